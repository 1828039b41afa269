//! `animation`: every animated reference node's local matrix at its key times against
//! pmcore's controllers sampled at the same times.

use super::axes::conversions;
use super::matching::{Matching, MaxTree};
use super::matrices::{describe, matrix_error, max_local_at};
use super::outcome::{fail, locator, Comparison};
use super::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::{max_ticks, RefScene};
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The name this comparison reports under.
pub(super) const NAME: &str = "animation";

/// Animation: every animated reference node's local matrix at each of its key times (the
/// values the file stores, no interpolation on its side) against pmcore's controllers
/// sampled at the same time (`pmcore::model::keys`), under the same axes, units and
/// tolerances as `transforms`.
pub(super) fn compare(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    let animated_curves: Vec<_> = reference.curves.iter().filter(|c| c.times.len() >= 2).collect();
    let keys: usize = animated_curves.iter().map(|c| c.times.len()).sum();
    let on_matched = animated_curves.iter().filter(|c| m.max_of[c.node].is_some()).count();
    let mut detail = json!({
        "curves": animated_curves.len(),
        "keys": keys,
        "curves_on_matched_nodes": on_matched,
        "keys_compared": 0,
        "tolerance": { "translation_relative": POSITION_TOLERANCE, "rotation_scale": LINEAR_TOLERANCE },
    });
    if !reference.format.has_animation() {
        return Comparison {
            name: NAME,
            verdict: Verdict::Skip { reason: "format carries no animation curves".into() },
            detail,
        };
    }
    if animated_curves.is_empty() {
        return Comparison {
            name: NAME,
            verdict: Verdict::Skip { reason: "the reference has no animation curve with two or more keys".into() },
            detail,
        };
    }
    let conversion = match conversions(reference).map(|c| c.into_iter().next()) {
        Ok(Some(c)) => c,
        Ok(None) | Err(_) => {
            return Comparison {
                name: NAME,
                verdict: Verdict::Skip { reason: "the file's axis conversion is not modelled".into() },
                detail,
            }
        }
    };
    let mut nodes: Vec<usize> = animated_curves.iter().map(|c| c.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let (mut poses, mut poses_off, mut keys_compared, mut times_not_keyed) = (0usize, 0usize, 0usize, 0usize);
    let (mut max_t, mut max_l) = (0.0f64, 0.0f64);
    let mut misses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut first: Option<Verdict> = None;
    let mut first_detail = Value::Null;
    let mut unreadable: Option<(String, u64)> = None;
    for &r in &nodes {
        let node = &reference.nodes[r];
        if m.max_of[r].is_none() {
            misses.entry("no-max-node".into()).or_default().push(node.name.clone());
            continue;
        }
        for time in reference.key_times(r) {
            let Some(expected_ref) = reference.matrix_at(r, time) else {
                times_not_keyed += 1;
                continue;
            };
            let tick = max_ticks(time);
            let max_local = match max_local_at(tree, m, reference, r, tick, &conversion) {
                Ok(l) => l,
                Err(why) if why.contains("shape not modelled") => {
                    // Between two keys whose in-between shape is not modelled: this pose is
                    // not compared; the keys themselves still are.
                    let list = misses.entry("in-between-not-modelled".into()).or_default();
                    let entry = format!("{}: {why}", node.name);
                    if !list.contains(&entry) {
                        list.push(entry);
                    }
                    continue;
                }
                Err(why) => {
                    let class = if why.contains("not an evaluable") || why.contains("not sampled") {
                        "controller-not-sampled"
                    } else if why.contains("declares neither") {
                        "axes-undeclared"
                    } else {
                        "max-side-unreadable"
                    };
                    let list = misses.entry(class.into()).or_default();
                    let entry = format!("{}: {why}", node.name);
                    if !list.contains(&entry) {
                        list.push(entry.clone());
                    }
                    if class != "axes-undeclared" {
                        unreadable.get_or_insert((entry, node.offset));
                    }
                    break;
                }
            };
            poses += 1;
            let keyed_here = reference.curves.iter().filter(|c| c.node == r && c.times.contains(&time)).count();
            keys_compared += keyed_here;
            let (t, l) = matrix_error(&max_local, &expected_ref);
            max_t = max_t.max(t);
            max_l = max_l.max(l);
            if t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE {
                poses_off += 1;
                if first.is_none() {
                    let at = reference
                        .curves
                        .iter()
                        .find(|c| c.node == r && c.times.contains(&time))
                        .map(|c| c.offset)
                        .unwrap_or(node.offset);
                    let index = tree.index;
                    let keyed = m.max_of[r]
                        .is_some_and(|mx| pmcore::model::keys::has_keys(index, &index.objects[tree.nodes[mx].storage]));
                    let message = format!(
                        "node {:?} at frame {:.2} (tick {tick:.1}): local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e}){}",
                        node.name,
                        tick / 160.0,
                        if keyed { "" } else { "; the Max node holds no keys (the .max is not the animated scene state)" }
                    );
                    first_detail = json!({ "node": node.name, "fbx_time": time, "max_tick": tick,
                        "max": describe(&max_local), "reference": describe(&expected_ref) });
                    first = Some(fail("t3-pairs-animation", message, locator(name, node), at));
                }
            }
        }
    }
    if let Value::Object(map) = &mut detail {
        map.insert("axes".into(), json!(conversion.note));
        map.insert("animated_nodes".into(), json!(nodes.len()));
        map.insert("poses_compared".into(), json!(poses));
        map.insert("poses_off".into(), json!(poses_off));
        map.insert("keys_compared".into(), json!(keys_compared));
        map.insert("times_not_keyed_on_every_curve".into(), json!(times_not_keyed));
        map.insert("max_translation_error".into(), json!(max_t));
        map.insert("max_linear_error".into(), json!(max_l));
        map.insert("misses".into(), json!(misses));
        map.insert("first_difference".into(), first_detail);
    }
    let verdict = match (first, unreadable) {
        (Some(v), _) => v,
        (None, Some((why, offset))) => fail(
            "t3-pairs-animation-unreadable",
            format!("a node's controllers cannot be sampled in Max: {why}"),
            format!("@reference/{name}/{}", why.split(':').next().unwrap_or_default()),
            offset,
        ),
        (None, None) if poses == 0 => Verdict::Skip {
            reason: match misses.iter().next() {
                Some((class, list)) => format!("no pose compared ({class}): {}", list.join("; ")),
                None => "no key time is keyed on every curve of its node".into(),
            },
        },
        (None, None) if misses.is_empty() => Verdict::Pass {
            note: Some(format!("{poses} pose(s) of {} node(s) equal, {keys_compared} key(s)", nodes.len())),
        },
        (None, None) => Verdict::Pass {
            note: Some(format!(
                "{poses} pose(s) equal, {keys_compared} key(s); not compared: {}",
                misses.iter().map(|(k, v)| format!("{k} ({})", v.len())).collect::<Vec<_>>().join(", ")
            )),
        },
    };
    Comparison { name: NAME, verdict, detail }
}
