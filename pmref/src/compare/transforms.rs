//! `transforms`: every matched node's local matrix in the reference against Max's, under
//! the exporter's axis and unit conversion (the candidate that fits best where the file
//! declares none); animated nodes at their start frame.

use super::axes::{conversions, Conversion};
use super::matching::{Matching, MaxTree};
use super::matrices::{describe, matrix_error, max_local_at, to_dmat};
use super::outcome::{fail, locator, Comparison};
use super::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::{max_ticks, RefNode, RefScene};
use pmcore::model::controllers::world_matrix;
use pmcore::verify::Verdict;
use serde_json::{json, Value};

/// The name this comparison reports under.
pub(super) const NAME: &str = "transforms";

pub(super) fn compare(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    if !reference.format.has_hierarchy() {
        let verdict = Verdict::Skip { reason: "format carries no transforms (OBJ: world-space vertices)".into() };
        return Comparison { name: NAME, verdict, detail: json!({}) };
    }
    let candidates = match conversions(reference) {
        Ok(c) => c,
        Err(reason) => return Comparison { name: NAME, verdict: Verdict::Skip { reason }, detail: json!({}) },
    };
    let mut best: Option<(Comparison, usize)> = None;
    for conversion in candidates {
        let (c, passed) = transforms_under(tree, m, reference, name, &conversion);
        if best.as_ref().is_none_or(|(_, p)| passed > *p) {
            best = Some((c, passed));
        }
    }
    best.expect("at least one conversion").0
}

fn transforms_under(
    tree: &MaxTree<'_, '_>,
    m: &Matching,
    reference: &RefScene,
    name: &str,
    conversion: &Conversion,
) -> (Comparison, usize) {
    let conv = conversion.matrix;
    let (mut compared, mut off, mut unreadable, mut unmatched) = (0, 0, 0, 0);
    let (mut max_t, mut max_l) = (0.0f64, 0.0f64);
    let mut first: Option<Verdict> = None;
    let mut first_detail = Value::Null;
    let mut misses: Vec<String> = Vec::new();
    let mut unreadable_at: Option<&RefNode> = None;
    let mut animated: Vec<&str> = Vec::new();
    let mut roots_undeclared = 0;
    let mut animated_compared = 0;
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mx) = m.max_of[r] else {
            unmatched += 1;
            continue;
        };
        if reference.is_animated(r) {
            // The file's static pose is the animation's at the export time, unknown; the
            // curves give the pose at the start frame (`TimeSpanStart`, else the node's
            // first key), compared with pmcore's controllers sampled there. A node whose
            // curves are not all keyed at that time is left to `animation`.
            let start = reference.start_time.or_else(|| reference.key_times(r).first().copied()).unwrap_or(0);
            let Some(expected_ref) = reference.matrix_at(r, start) else {
                animated.push(&node.name);
                continue;
            };
            match max_local_at(tree, m, reference, r, max_ticks(start), conversion) {
                Ok(max_local) => {
                    compared += 1;
                    animated_compared += 1;
                    let (t, l) = matrix_error(&max_local, &expected_ref);
                    max_t = max_t.max(t);
                    max_l = max_l.max(l);
                    if (t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE) && first.is_none() {
                        off += 1;
                        let message = format!(
                            "node {:?} (animated, at the start frame): local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e})",
                            node.name
                        );
                        first_detail = json!({ "node": node.name, "max": describe(&max_local), "reference": describe(&expected_ref) });
                        first = Some(fail("t3-pairs-transforms", message, locator(name, node), node.offset));
                    } else if t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE {
                        off += 1;
                    }
                }
                Err(why) if why.contains("declares neither") => roots_undeclared += 1,
                Err(why) => {
                    unreadable += 1;
                    misses.push(format!("{}: {why}", node.name));
                    unreadable_at.get_or_insert(node);
                }
            }
            continue;
        }
        if node.parent.is_none() && !conversion.roots_comparable {
            roots_undeclared += 1;
            continue;
        }
        let index = tree.index;
        let o = &index.objects[tree.nodes[mx].storage];
        let mut unread = |why: String| {
            unreadable += 1;
            misses.push(format!("{}: {why}", node.name));
            unreadable_at.get_or_insert(node);
        };
        let world = match world_matrix(index, o) {
            Ok(w) => to_dmat(w),
            Err(e) => {
                unread(e.to_string());
                continue;
            }
        };
        // Local relative to the exported parent; roots carry the conversion.
        let local = match node.parent.map(|p| m.max_of[p]) {
            Some(Some(pm)) => match world_matrix(index, &index.objects[tree.nodes[pm].storage]) {
                Ok(pw) => to_dmat(pw).inverse() * world,
                Err(e) => {
                    unread(format!("(parent) {e}"));
                    continue;
                }
            },
            Some(None) => {
                unread("the reference parent has no Max node".into());
                continue;
            }
            None => world,
        };
        let expected = match (conversion.similarity, node.parent.is_none()) {
            (true, _) => conv * local * conv.inverse(),
            (false, true) => conv * local,
            (false, false) => local,
        };
        compared += 1;
        let (t, l) = matrix_error(&expected, &node.local);
        max_t = max_t.max(t);
        max_l = max_l.max(l);
        if t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE {
            off += 1;
            if first.is_none() {
                let message = format!(
                    "node {:?}: local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e})",
                    node.name
                );
                first_detail =
                    json!({ "node": node.name, "max": describe(&expected), "reference": describe(&node.local) });
                first = Some(fail("t3-pairs-transforms", message, locator(name, node), node.offset));
            }
        }
    }
    let detail = json!({
        "axes": conversion.note,
        "nodes_compared": compared,
        "nodes_off": off,
        "nodes_unreadable_in_max": unreadable,
        "nodes_without_max_node": unmatched,
        "animated_nodes_left_to_animation": animated,
        "animated_nodes_compared_at_start": animated_compared,
        "roots_not_compared_undeclared_axes": roots_undeclared,
        "max_translation_error": max_t,
        "max_linear_error": max_l,
        "first_difference": first_detail,
        "misses": misses.iter().take(20).collect::<Vec<_>>(),
    });
    let verdict = match (first, unreadable_at) {
        (Some(v), _) => v,
        (None, _) if compared == 0 && unreadable == 0 => Verdict::Skip {
            reason: if !animated.is_empty() {
                format!("every node is animated ({}): left to the animation comparison", animated.len())
            } else if roots_undeclared > 0 {
                conversion.note.clone()
            } else {
                "no reference node has a Max node".into()
            },
        },
        (None, Some(node)) => {
            let message = format!("{unreadable} node transform(s) not readable in Max: {}", misses[0]);
            fail("t3-pairs-transforms-unreadable", message, locator(name, node), node.offset)
        }
        (None, None) if animated.is_empty() && roots_undeclared == 0 => Verdict::pass(),
        (None, None) => Verdict::Pass {
            note: Some(format!(
                "{compared} node(s) equal; {} animated node(s) left to the animation comparison, {roots_undeclared} root(s) not placeable",
                animated.len()
            )),
        },
    };
    (Comparison { name: NAME, verdict, detail }, compared - off)
}
