//! `era-mismatch`: the reference was written from another state of the scene. Only with
//! evidence checkable against the files:
//! - `missing_nodes`: names the reference holds that occur in no stream of the `.max`
//!   ([`MaxText`](super::MaxText): ASCII and UTF-16LE, ASCII case ignored; names with
//!   other characters, whose code page the `.max` does not say, are never counted);
//! - `keys_absent`: nodes whose reference curves vary while the `.max` node — with a
//!   Position/Rotation/Scale controller pmcore samples — holds no key;
//! - `other_revision`: the reference the manifest pairs with another saved revision of
//!   the scene, and that revision matches it (the shape exporter's `detail.other_revision`),
//!   or the mesh built with the other Max release's normal rule matches it at every vertex;
//! - `map_revision`: the NeL shape equals the evaluated mesh but for UV splits, and holds
//!   UVs outside the map channel the `.max` stores, which every derived UV lies in (the
//!   shape exporter's `detail.map_revision`);
//! - `take_beyond_keys` (`beyond_keys.rs`): the reference animates a node at times beyond
//!   every key the `.max` holds for it;
//! - `other_export` (`other_export.rs`): another export of the same `.max` passes the
//!   comparison (or agrees with every key of the node) and differs from this reference on
//!   the missed node in two records or more;
//! - `turned_as_one` (`turned.rs`): one turn by an angle no conversion makes, and one scale,
//!   carry every one of Max's poses onto the file's;
//! - `figure_era`: the skel rule of design §10 (offsets ×1.2 / ×0.8, or a fresh Biped figure
//!   against legacy references).
//!
//! The evidence is about the reference as a whole, so it explains every comparison of
//! that reference that misses.

use super::{class, Detector, TriageInput, Triaged};
use crate::compare::strip_name_clash;
use crate::scene::RefScene;
use pmcore::model::keys::{has_keys, world_matrix_at};
use pmcore::model::scene_index::SceneIndex;
use serde_json::{json, Value};

/// Uniform offset scales of the skel era rule (design §10), ±0.1 %.
const ERA_SCALES: [f64; 2] = [1.2, 0.8];

/// The detector.
pub struct EraMismatch;

impl Detector for EraMismatch {
    fn class(&self) -> &'static str {
        class::ERA_MISMATCH
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        if let Some(t) = figure_era(input).or_else(|| other_revision(input)) {
            return Some(t);
        }
        let reference = input.reference?;
        let (missing, unsearchable) = missing_nodes(reference, input.text);
        let keys = input.index.map(|index| keys_absent(reference, index)).unwrap_or_default();
        if missing.is_empty() && keys.is_empty() {
            return super::beyond_keys::detect(input)
                .or_else(|| super::other_export::detect(input))
                .or_else(|| super::turned::detect(input));
        }
        let mut message = Vec::new();
        if !missing.is_empty() {
            message.push(format!(
                "the reference holds {} node name(s) no stream of the .max holds ({})",
                missing.len(),
                missing.join(", ")
            ));
        }
        if !keys.is_empty() {
            let names: Vec<&str> = keys.iter().filter_map(|k| k["node"].as_str()).collect();
            message.push(format!(
                "the reference animates {} node(s) the .max holds no key for ({})",
                keys.len(),
                names.join(", ")
            ));
        }
        let mut evidence = json!({});
        if !missing.is_empty() {
            evidence["searched"] = json!("every decoded stream of the .max, as ASCII and UTF-16LE, ASCII case ignored");
            evidence["missing_nodes"] = json!(missing);
            evidence["unsearchable_names"] = json!(unsearchable);
        }
        if !keys.is_empty() {
            evidence["keys_absent"] = Value::Array(keys);
        }
        Some(Triaged { class: self.class(), evidence, message: message.join("; ") })
    }
}

/// Reference node names that no stream of the `.max` holds (a name with an FBX name-clash
/// suffix counts as present when its stem is), and how many names were not searched
/// (characters outside ASCII: their encoding in the `.max` is not known).
pub fn missing_nodes(reference: &RefScene, text: &super::MaxText<'_>) -> (Vec<String>, usize) {
    let mut missing: Vec<String> = Vec::new();
    let mut unsearchable = 0;
    for node in &reference.nodes {
        let name = node.name.as_str();
        if name.is_empty() || !name.is_ascii() {
            unsearchable += usize::from(!name.is_empty());
            continue;
        }
        let present = text.holds(name) || strip_name_clash(name).is_some_and(|stem| text.holds(stem));
        if !present && !missing.iter().any(|m| m == name) {
            missing.push(name.to_string());
        }
    }
    (missing, unsearchable)
}

/// Reference nodes with varying curves whose `.max` node (same name, ASCII case ignored)
/// has a Position/Rotation/Scale controller that samples and holds no key.
pub fn keys_absent(reference: &RefScene, index: &SceneIndex<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    for (i, node, max) in super::beyond_keys::animated_prs_nodes(reference, index) {
        if world_matrix_at(index, max, 0.0).is_ok() && !has_keys(index, max) {
            let varying = reference
                .curves
                .iter()
                .filter(|c| c.node == i && c.values.iter().any(|v| (v - c.values[0]).abs() > 1e-9))
                .count();
            out.push(json!({ "node": node.name, "varying_curves": varying, "max_object": max.storage_index }));
        }
    }
    out
}

/// The skel era rule: a skel comparison that differs where the offsets match the
/// reference only after ×1.2 / ×0.8, or the file's Biped figure is fresh (era 0).
fn figure_era(input: &TriageInput<'_, '_>) -> Option<Triaged> {
    if input.stream != "skel" || input.fail_kind()? != "t3-skel" {
        return None;
    }
    let detail = input.detail?;
    let scale = detail.get("offset_scale").and_then(Value::as_f64);
    let era = detail.get("figure_era").cloned().unwrap_or(Value::Null);
    let fresh = era.as_array().is_some_and(|a| a.iter().any(|e| e.as_i64() == Some(0)));
    let scaled = scale.is_some_and(|s| ERA_SCALES.iter().any(|e| ((s - e) / e).abs() <= 0.001));
    (fresh || scaled).then(|| Triaged {
        class: class::ERA_MISMATCH,
        evidence: json!({ "figure_era": era, "offset_scale": scale }),
        message: if scaled {
            format!(
                "the reference's bone offsets are the produced ones × {:.4} (a rig rescaled after the references)",
                scale.unwrap_or(0.0)
            )
        } else {
            "the file's Biped figure is fresh (figure era 0) while the references were exported in the legacy era"
                .into()
        },
    })
}

/// The NeL shape revision rule: counts exact, normals differ, and the other Max
/// release's normal rule matches every vertex.
fn other_revision(input: &TriageInput<'_, '_>) -> Option<Triaged> {
    let kind = input.fail_kind()?;
    if let Some(other) = input.detail.and_then(|d| d.get("other_revision")).filter(|o| o.is_object()) {
        if kind.starts_with("t3-nel-shape-") {
            let max = other.get("max").and_then(Value::as_str).unwrap_or("another revision");
            return Some(Triaged {
                class: class::ERA_MISMATCH,
                evidence: json!({ "other_revision": other }),
                message: format!("the manifest pairs the reference with {max}, another saved revision of this scene, which matches it"),
            });
        }
    }
    if let Some(map) = input.detail.and_then(|d| d.get("map_revision")).filter(|o| o.is_object()) {
        if kind.starts_with("t3-nel-shape-") {
            return Some(Triaged {
                class: class::ERA_MISMATCH,
                evidence: json!({ "map_revision": map }),
                message: "the reference's UVs lie outside the map channel the scene stores: it was exported from \
                          another mapping"
                    .into(),
            });
        }
    }
    if kind != "t3-nel-shape-revision" {
        return None;
    }
    let best = input.detail.and_then(|d| d.get("best"));
    let field = |k: &str| best.and_then(|b| b.get(k)).cloned().unwrap_or(Value::Null);
    Some(Triaged {
        class: class::ERA_MISMATCH,
        evidence: json!({ "other_revision": {
            "reference": field("reference"),
            "node": field("node"),
            "agrees_with": "the mesh built with the other Max release's normal rule matches every vertex",
        } }),
        message: "the reference was exported from a revision saved by the other Max release".into(),
    })
}
