//! `era-mismatch` by `take_beyond_keys`: the reference animates a node at times where the
//! `.max` cannot move it. Outside the span of a node's own transform keys every channel of
//! a Max keyframe controller holds its end value (the constant out-of-range rule
//! `pmcore::model::keys` samples with; no Bezier Float of the pairs stores another
//! out-of-range chunk, `docs/triage.md`), so a reference curve whose values differ from
//! one another at two or more key times on the same side beyond that span was baked from
//! another animation of the scene — a take the `.max` holds no keys for. Shown by
//! `wild/tae8838__blue.max` against `Blue@Spawn.FBX`: `B_Root` keyed from −1760 to 3520
//! ticks in the `.max`, the reference's 43 keys run 0 … 6720 and its height falls
//! 77.45 → 1.55 after tick 3520.
//!
//! It explains `transforms` and `animation` fails only: what it proves is about the
//! animation the reference was baked from, not about its meshes or weights.

use super::{class, TriageInput, Triaged};
use crate::scene::{max_ticks, RefNode, RefScene};
use pmcore::model::controllers::{transform_refs, TransformRefs};
use pmcore::model::keys::key_span;
use pmcore::model::scene_index::{SceneIndex, SceneObject};
use serde_json::{json, Value};

/// Two reference values differ when they are this far apart, relative to their size (at
/// least 1): far above float noise, far below any motion a take bakes.
const VALUE_TOLERANCE: f64 = 1e-4;

/// Half a tick: FBX times of whole frames land on whole ticks; anything beyond the span by
/// less than this is at its end key.
const TICK_SLACK: f64 = 0.5;

/// The evidence, when this reference shows it (asked by the `era-mismatch` detector).
pub(super) fn detect(input: &TriageInput<'_, '_>) -> Option<Triaged> {
    input.fail_kind()?;
    if !matches!(input.comparison(), "transforms" | "animation") {
        return None;
    }
    if !input.hierarchy_passes() {
        return None;
    }
    let found = take_beyond_keys(input.reference?, input.index?);
    if found.is_empty() {
        return None;
    }
    let names: Vec<&str> = found.iter().filter_map(|n| n["node"].as_str()).collect();
    Some(Triaged {
        class: class::ERA_MISMATCH,
        message: format!(
            "the reference animates {} node(s) at times beyond every key the .max holds for them ({})",
            found.len(),
            names.join(", ")
        ),
        evidence: json!({ "take_beyond_keys": found }),
    })
}

/// Reference nodes whose curves vary beyond the span of the same-named `.max` node's keys
/// (ASCII case ignored; a node whose transform is not a PRS, or holds a key table pmcore
/// does not decode, is never counted).
pub fn take_beyond_keys(reference: &RefScene, index: &SceneIndex<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, node, max) in animated_prs_nodes(reference, index) {
        let Some((first, last)) = key_span(index, max) else { continue };
        let mut varying = Vec::new();
        let mut span = (f64::INFINITY, f64::NEG_INFINITY);
        for c in reference.curves.iter().filter(|c| c.node == i && c.times.len() >= 2) {
            let ticks: Vec<f64> = c.times.iter().map(|&t| max_ticks(t)).collect();
            span = (span.0.min(ticks[0]), span.1.max(ticks[ticks.len() - 1]));
            let side = |keep: &dyn Fn(f64) -> bool| -> Option<(f64, f64, f64)> {
                let values: Vec<(f64, f64)> =
                    ticks.iter().zip(&c.values).filter(|(t, _)| keep(**t)).map(|(t, v)| (*t, *v)).collect();
                let (t0, v0) = *values.first()?;
                values
                    .iter()
                    .find(|(_, v)| (v - v0).abs() > VALUE_TOLERANCE * v.abs().max(v0.abs()).max(1.0))
                    .map(|&(t, v)| (t0.min(t), v0, v))
            };
            let before = side(&|t| t < first as f64 - TICK_SLACK);
            let after = side(&|t| t > last as f64 + TICK_SLACK);
            for (where_, found) in [("before", before), ("after", after)] {
                if let Some((_, a, b)) = found {
                    varying.push(
                        json!({ "curve": format!("{}{}", c.channel, c.component), "side": where_, "from": a, "to": b }),
                    );
                }
            }
        }
        if !varying.is_empty() {
            out.push(json!({
                "node": node.name,
                "max_object": max.storage_index,
                "max_key_span_ticks": [first, last],
                "reference_key_span_ticks": [span.0, span.1],
                "varying_curves": varying,
            }));
        }
    }
    out
}

/// The reference's animated nodes (index, node) with the `.max` node of the same name
/// (ASCII case ignored) whose transform is a Position/Rotation/Scale controller.
pub(super) fn animated_prs_nodes<'r, 'i>(
    reference: &'r RefScene,
    index: &'i SceneIndex<'i>,
) -> impl Iterator<Item = (usize, &'r RefNode, &'i SceneObject<'i>)> + 'r
where
    'i: 'r,
{
    reference.nodes.iter().enumerate().filter(|(i, _)| reference.is_animated(*i)).filter_map(move |(i, node)| {
        let max = index
            .objects
            .iter()
            .find(|o| o.is_node() && o.node_name().is_some_and(|n| n.eq_ignore_ascii_case(&node.name)))?;
        matches!(transform_refs(index, max), Ok(TransformRefs::Prs { .. })).then_some((i, node, max))
    })
}
