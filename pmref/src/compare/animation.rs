//! `animation`: every animated reference node's local matrix at its key times against
//! pmcore's controllers sampled at the same times.

use super::axes::conversions;
use super::axes::Conversion;
use super::matching::Pair;
use super::matrices::{describe, matrix_error, max_local_at};
use super::outcome::{fail, locator, Comparison};
use super::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::{max_ticks, RefNode};
use glam::DMat4;
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The name this comparison reports under.
pub(super) const NAME: &str = "animation";

/// Animation: every animated reference node's local matrix at each of its key times (the
/// values the file stores, no interpolation on its side) against pmcore's controllers
/// sampled at the same time (`pmcore::model::keys`), under the same axes, units and
/// tolerances as `transforms`.
pub(super) fn compare(pair: &Pair<'_, '_, '_>) -> Comparison {
    let (m, reference) = (pair.matching, pair.reference);
    if let Some(sampled) = &reference.sampled {
        let (verdict, detail) = super::animation_sampled::compare(pair, sampled, NAME);
        return Comparison { name: NAME, verdict, detail };
    }
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
            verdict: Verdict::Skip { reason: "reference carries no animation (its format has no curves)".into() },
            detail,
        };
    }
    if animated_curves.is_empty() {
        return Comparison {
            name: NAME,
            verdict: Verdict::Skip {
                reason: "reference carries no animation (no transform curve with two or more keys)".into(),
            },
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
    let mut tally = Tally::default();
    for &r in &nodes {
        compare_node(pair, &conversion, r, &mut tally);
    }
    tally.describe_into(&mut detail, &conversion, nodes.len());
    let verdict = tally.verdict(nodes.len(), pair.name);
    Comparison { name: NAME, verdict, detail }
}

/// Counters of the poses compared, the poses not compared by class, and the first
/// difference.
#[derive(Default)]
struct Tally {
    poses: usize,
    poses_off: usize,
    keys_compared: usize,
    times_not_keyed: usize,
    max_t: f64,
    max_l: f64,
    misses: BTreeMap<String, Vec<String>>,
    first: Option<Verdict>,
    first_detail: Value,
    unreadable: Option<(String, u64)>,
    /// Nodes whose every key time was compared and equal: what one export of a `.max`
    /// vouches for even when another of its nodes misses (the triage's `other_export`).
    nodes_every_pose_equal: Vec<String>,
    /// Per compared pose of a root node: the node and `reference · max⁻¹`, the transform
    /// that would carry Max's pose onto the file's (see [`one_transform`]).
    root_offsets: Vec<(usize, DMat4)>,
    /// Poses compared on nodes below a root.
    child_poses: usize,
    /// Poses over the rotation tolerance but within it widened at an FBX Euler lock.
    poses_at_euler_lock: usize,
    /// The pose farthest from Max relative to its tolerance: (error ÷ tolerance, its JSON).
    worst: Option<(f64, Value)>,
}

impl Tally {
    /// Notes `node` (once per reason) under the miss class `class`; the entry written.
    fn miss(&mut self, class: &str, node: &RefNode, why: &str) -> String {
        let list = self.misses.entry(class.into()).or_default();
        let entry = format!("{}: {why}", node.name);
        if !list.contains(&entry) {
            list.push(entry.clone());
        }
        entry
    }

    /// The counters and the first difference, added to the comparison's detail.
    fn describe_into(&mut self, detail: &mut Value, conversion: &Conversion, animated_nodes: usize) {
        if let Value::Object(map) = detail {
            map.insert("axes".into(), json!(conversion.note));
            map.insert("animated_nodes".into(), json!(animated_nodes));
            map.insert("poses_compared".into(), json!(self.poses));
            map.insert("poses_off".into(), json!(self.poses_off));
            map.insert("keys_compared".into(), json!(self.keys_compared));
            map.insert("times_not_keyed_on_every_curve".into(), json!(self.times_not_keyed));
            map.insert("max_translation_error".into(), json!(self.max_t));
            map.insert("max_linear_error".into(), json!(self.max_l));
            map.insert("misses".into(), json!(self.misses));
            map.insert("first_difference".into(), std::mem::take(&mut self.first_detail));
            map.insert("nodes_every_pose_equal".into(), json!(self.nodes_every_pose_equal));
            map.insert("poses_within_tolerance_widened_at_euler_lock".into(), json!(self.poses_at_euler_lock));
            map.insert("worst".into(), self.worst.take().map_or(Value::Null, |(_, w)| w));
            if let Some(common) = one_transform(self) {
                map.insert("one_turn_and_scale_off_every_pose".into(), common);
            }
        }
    }

    /// The verdict: the first difference, else the first node whose controllers cannot be
    /// sampled, else a skip when no pose was compared, else a pass naming what was not.
    fn verdict(self, animated_nodes: usize, name: &str) -> Verdict {
        let Tally { poses, keys_compared, misses, first, unreadable, .. } = self;
        match (first, unreadable) {
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
                note: Some(format!("{poses} pose(s) of {animated_nodes} node(s) equal, {keys_compared} key(s)")),
            },
            (None, None) => Verdict::Pass {
                note: Some(format!(
                    "{poses} pose(s) equal, {keys_compared} key(s); not compared: {}",
                    misses.iter().map(|(k, v)| format!("{k} ({})", v.len())).collect::<Vec<_>>().join(", ")
                )),
            },
        }
    }
}

/// One animated reference node `r`: its local matrix at each of its key times against
/// Max's, until Max's side cannot be sampled.
fn compare_node(pair: &Pair<'_, '_, '_>, conversion: &Conversion, r: usize, tally: &mut Tally) {
    let reference = pair.reference;
    let node = &reference.nodes[r];
    if pair.matching.max_of[r].is_none() {
        tally.misses.entry("no-max-node".into()).or_default().push(node.name.clone());
        return;
    }
    let (mut compared, mut all_equal) = (0, true);
    for time in reference.key_times(r) {
        let Some(expected_ref) = reference.matrix_at(r, time) else {
            tally.times_not_keyed += 1;
            all_equal = false;
            continue;
        };
        let tick = max_ticks(time);
        let max_local = match max_local_at(pair.tree, pair.matching, reference, r, tick, conversion) {
            Ok(l) => l,
            Err(why) if why.contains("shape not modelled") => {
                // Between two keys whose in-between shape is not modelled: this pose is
                // not compared; the keys themselves still are.
                tally.miss("in-between-not-modelled", node, &why);
                all_equal = false;
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
                let entry = tally.miss(class, node, &why);
                if class != "axes-undeclared" {
                    tally.unreadable.get_or_insert((entry, node.offset));
                }
                all_equal = false;
                break;
            }
        };
        tally.poses += 1;
        let keyed_here = reference.curves.iter().filter(|c| c.node == r && c.times.contains(&time)).count();
        tally.keys_compared += keyed_here;
        let (t, l) = matrix_error(&max_local, &expected_ref);
        tally.max_t = tally.max_t.max(t);
        tally.max_l = tally.max_l.max(l);
        let (ratio, channel, error, tolerance) = if t / POSITION_TOLERANCE >= l / LINEAR_TOLERANCE {
            (t / POSITION_TOLERANCE, "translation", t, POSITION_TOLERANCE)
        } else {
            (l / LINEAR_TOLERANCE, "rotation_scale", l, LINEAR_TOLERANCE)
        };
        if tally.worst.as_ref().is_none_or(|(r, _)| ratio > *r) {
            let worst = json!({ "node": node.name, "channel": channel, "fbx_time": time, "max_tick": tick,
                "error": error, "tolerance": tolerance });
            tally.worst = Some((ratio, worst));
        }
        compared += 1;
        if node.parent.is_none() && max_local.determinant().abs() > f64::MIN_POSITIVE {
            tally.root_offsets.push((r, expected_ref * max_local.inverse()));
        } else {
            tally.child_poses += 1;
        }
        let locked = euler_locked(reference, r, time);
        if locked && l > LINEAR_TOLERANCE {
            tally.poses_at_euler_lock += 1;
        }
        let linear_tolerance = if locked { LINEAR_TOLERANCE + F32_EULER_LOCK } else { LINEAR_TOLERANCE };
        if t > POSITION_TOLERANCE || l > linear_tolerance {
            all_equal = false;
            tally.poses_off += 1;
            if tally.first.is_none() {
                let (verdict, detail) = first_difference(pair, r, time, (&max_local, &expected_ref), (t, l));
                tally.first = Some(verdict);
                tally.first_detail = detail;
            }
        }
    }
    if compared > 0 && all_equal {
        tally.nodes_every_pose_equal.push(node.name.clone());
    }
}

/// How far from ±90° an `f32` Euler middle angle can be and still be written as exactly ±90°:
/// `sin β` rounds to 1 below 2⁻²⁵ from it, i.e. for |cos β| < √(2 · 2⁻²⁵) = 2⁻¹². A reference
/// key at the lock therefore stands for every rotation within 2⁻¹² rad of it (the other two
/// angles then share one axis). Measured: `Player.FBX` B_L/R_UpperArm at ticks 65600–80000,
/// Euler Y exactly −90° where Max's pose is 1.47e-4 / 1.50e-4 from the lock.
const F32_EULER_LOCK: f64 = 1.0 / 4096.0;

/// Does node `r`'s rotation key at `time` sit exactly at the XYZ Euler lock (middle angle
/// ±90° as an `f32`)?
fn euler_locked(reference: &crate::scene::RefScene, r: usize, time: i64) -> bool {
    let order = reference.nodes[r].fbx_transform.as_ref().map_or(-1, |t| t.rotation_order);
    order == 0
        && reference.curves.iter().any(|c| {
            c.node == r
                && c.channel == 'R'
                && c.component == 1
                && c.times.iter().position(|&t| t == time).is_some_and(|k| (c.values[k] as f32).abs() == 90.0)
        })
}

/// When every pose compared is a root's, poses of two nodes or more, and one rotation and
/// scale `L` other than identity carries each of Max's poses onto the file's (`reference ·
/// max⁻¹` has the linear part `L` in every pose, within the comparison's tolerances): `L`
/// as axis, angle and scale, with the translations seen. A model turned or rescaled as a
/// whole after the export leaves this; the triage reads it (`docs/triage.md`,
/// `turned_as_one`).
fn one_transform(tally: &Tally) -> Option<Value> {
    let linear = |d: &DMat4| DMat4::from_mat3(glam::DMat3::from_mat4(*d));
    let first = linear(&tally.root_offsets.first()?.1);
    let mut nodes: Vec<usize> = tally.root_offsets.iter().map(|(r, _)| *r).collect();
    nodes.dedup();
    let within = |a: &DMat4, b: &DMat4| matrix_error(a, b).1 <= LINEAR_TOLERANCE;
    let common = tally.root_offsets.iter().all(|(_, d)| within(&first, &linear(d)));
    (tally.child_poses == 0 && nodes.len() >= 2 && common && !within(&first, &DMat4::IDENTITY)).then(|| {
        let (scale, rotation, _) = first.to_scale_rotation_translation();
        let (axis, angle) = rotation.to_axis_angle();
        let translations: Vec<[f64; 3]> =
            tally.root_offsets.iter().map(|(_, d)| d.w_axis.truncate().to_array()).take(8).collect();
        json!({
            "poses": tally.root_offsets.len(),
            "nodes": nodes.len(),
            "rotation_axis": axis.to_array(),
            "rotation_deg": angle.to_degrees(),
            "scale": scale.to_array(),
            "translations_first_8": translations,
        })
    })
}

/// The failure of node `r`'s pose at `time` (Max's and the reference's local matrices, and
/// their translation and rotation/scale errors), located at a curve keyed at that time.
fn first_difference(
    pair: &Pair<'_, '_, '_>,
    r: usize,
    time: i64,
    (max_local, expected_ref): (&DMat4, &DMat4),
    (t, l): (f64, f64),
) -> (Verdict, Value) {
    let (tree, reference) = (pair.tree, pair.reference);
    let node = &reference.nodes[r];
    let tick = max_ticks(time);
    let at = reference
        .curves
        .iter()
        .find(|c| c.node == r && c.times.contains(&time))
        .map(|c| c.offset)
        .unwrap_or(node.offset);
    let index = tree.index;
    let keyed = pair.matching.max_of[r]
        .is_some_and(|mx| pmcore::model::keys::has_keys(index, &index.objects[tree.nodes[mx].storage]));
    let message = format!(
        "node {:?} at frame {:.2} (tick {tick:.1}): local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e}){}",
        node.name,
        tick / 160.0,
        if keyed { "" } else { "; the Max node holds no keys (the .max is not the animated scene state)" }
    );
    let detail = json!({ "node": node.name, "fbx_time": time, "max_tick": tick,
        "max": describe(max_local), "reference": describe(expected_ref) });
    (fail("t3-pairs-animation", message, locator(pair.name, node), at), detail)
}
