//! `transforms`: every matched node's local matrix in the reference against Max's, under
//! the exporter's axis and unit conversion (the candidate that fits best where the file
//! declares none); animated nodes at their start frame.

use super::axes::{conversions, Conversion};
use super::matching::Pair;
use super::matrices::{
    biped_com_world, biped_rotation_spread, biped_world, describe, matrix_error, max_local_at, node_world, to_dmat,
};
use super::outcome::{fail, locator, Comparison};
use super::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::{max_ticks, RefNode};
use glam::DMat4;
use pmcore::eval::ik_solve::world_at as ik_world_at;
use pmcore::model::controllers::world_matrix;
use pmcore::verify::Verdict;
use serde_json::{json, Value};

/// The name this comparison reports under.
pub(super) const NAME: &str = "transforms";

pub(super) fn compare(pair: &Pair<'_, '_, '_>) -> Comparison {
    let reference = pair.reference;
    if !reference.format.has_hierarchy() {
        let verdict = Verdict::Skip { reason: "format carries no transforms (OBJ: world-space vertices)".into() };
        return Comparison { name: NAME, verdict, detail: json!({}) };
    }
    if reference.format == crate::scene::Format::ThreeDs {
        let reason = "format carries no transforms here (the .3ds reader reads keyframer tracks only)";
        return Comparison { name: NAME, verdict: Verdict::Skip { reason: reason.into() }, detail: json!({}) };
    }
    let candidates = match conversions(reference) {
        Ok(c) => c,
        Err(reason) => return Comparison { name: NAME, verdict: Verdict::Skip { reason }, detail: json!({}) },
    };
    let mut best: Option<(Comparison, usize)> = None;
    for conversion in candidates {
        let (c, passed) = transforms_under(pair, &conversion);
        if best.as_ref().is_none_or(|(_, p)| passed > *p) {
            best = Some((c, passed));
        }
    }
    best.expect("at least one conversion").0
}

/// The transforms under one conversion; the score is the nodes that agree.
fn transforms_under(pair: &Pair<'_, '_, '_>, conversion: &Conversion) -> (Comparison, usize) {
    let reference = pair.reference;
    let mut tally = Tally::default();
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mx) = pair.matching.max_of[r] else {
            tally.unmatched += 1;
            continue;
        };
        if reference.is_animated(r) {
            animated_at_start(pair, conversion, r, &mut tally);
        } else if node.parent.is_none() && !conversion.roots_comparable {
            tally.roots_undeclared += 1;
        } else {
            static_node(pair, conversion, r, mx, &mut tally);
        }
    }
    tally.report(conversion, pair.name)
}

/// Counters of one conversion's node comparisons, and the first difference.
#[derive(Default)]
struct Tally<'r> {
    compared: usize,
    off: usize,
    unreadable: usize,
    unmatched: usize,
    max_t: f64,
    max_l: f64,
    first: Option<Verdict>,
    first_detail: Value,
    misses: Vec<String>,
    unreadable_at: Option<&'r RefNode>,
    animated: Vec<&'r str>,
    roots_undeclared: usize,
    animated_compared: usize,
    /// Biped xtras near gimbal lock and their widened rotation/scale tolerance.
    widened: Vec<(&'r str, f64)>,
}

impl<'r> Tally<'r> {
    /// A node whose Max side could not be read.
    fn unread(&mut self, node: &'r RefNode, why: String) {
        self.unreadable += 1;
        self.misses.push(format!("{}: {why}", node.name));
        self.unreadable_at.get_or_insert(node);
    }

    /// One compared local matrix with its errors; `first` builds the failure (verdict and
    /// detail) when this is the first node off.
    fn compared(&mut self, errors: (f64, f64), first: impl FnOnce(f64, f64) -> (Verdict, Value)) {
        self.compared_within(errors, LINEAR_TOLERANCE, first)
    }

    /// [`Self::compared`] with the rotation/scale tolerance `linear` (a Biped xtra near gimbal
    /// lock widens it by its `f32` spread).
    fn compared_within(&mut self, (t, l): (f64, f64), linear: f64, first: impl FnOnce(f64, f64) -> (Verdict, Value)) {
        self.compared += 1;
        self.max_t = self.max_t.max(t);
        self.max_l = self.max_l.max(l);
        if t > POSITION_TOLERANCE || l > linear {
            self.off += 1;
            if self.first.is_none() {
                let (verdict, detail) = first(t, l);
                self.first = Some(verdict);
                self.first_detail = detail;
            }
        }
    }

    /// The comparison under `conversion`, and the nodes that agree.
    fn report(self, conversion: &Conversion, name: &str) -> (Comparison, usize) {
        let Tally { compared, off, unreadable, unmatched, max_t, max_l, .. } = self;
        let detail = json!({
            "axes": conversion.note,
            "nodes_compared": compared,
            "nodes_off": off,
            "nodes_unreadable_in_max": unreadable,
            "nodes_without_max_node": unmatched,
            "animated_nodes_left_to_animation": self.animated,
            "animated_nodes_compared_at_start": self.animated_compared,
            "roots_not_compared_undeclared_axes": self.roots_undeclared,
            "max_translation_error": max_t,
            "max_linear_error": max_l,
            "first_difference": self.first_detail,
            "misses": self.misses.iter().take(20).collect::<Vec<_>>(),
            "linear_tolerance_widened_at_gimbal_lock": self.widened.iter().map(|(n, t)| json!({ "node": n, "tolerance": t })).collect::<Vec<_>>(),
        });
        let verdict = self.verdict(conversion, name);
        (Comparison { name: NAME, verdict, detail }, compared - off)
    }

    /// The verdict: the first difference, else a skip when nothing was compared, else the
    /// first unreadable node, else a pass (with a note when nodes were left out).
    fn verdict(self, conversion: &Conversion, name: &str) -> Verdict {
        let Tally { first, unreadable_at, compared, unreadable, animated, roots_undeclared, misses, .. } = self;
        match (first, unreadable_at) {
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
        }
    }
}

/// An animated node: the file's static pose is the animation's at the export time, unknown;
/// the curves give the pose at the start frame (`TimeSpanStart`, else the node's first key),
/// compared with pmcore's controllers sampled there. A node whose curves are not all keyed at
/// that time is left to `animation`.
fn animated_at_start<'r>(pair: &Pair<'r, '_, '_>, conversion: &Conversion, r: usize, tally: &mut Tally<'r>) {
    let reference = pair.reference;
    let node = &reference.nodes[r];
    let start = reference.start_time.or_else(|| reference.key_times(r).first().copied()).unwrap_or(0);
    let Some(expected_ref) = reference.matrix_at(r, start) else {
        tally.animated.push(&node.name);
        return;
    };
    match max_local_at(pair.tree, pair.matching, reference, r, max_ticks(start), conversion) {
        Ok(max_local) => {
            tally.animated_compared += 1;
            tally.compared(matrix_error(&max_local, &expected_ref), |t, l| {
                let message = format!(
                    "node {:?} (animated, at the start frame): local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e})",
                    node.name
                );
                let detail = json!({ "node": node.name, "max": describe(&max_local), "reference": describe(&expected_ref) });
                (fail("t3-pairs-transforms", message, locator(pair.name, node), node.offset), detail)
            });
        }
        Err(why) if why.contains("declares neither") => tally.roots_undeclared += 1,
        Err(why) => tally.unread(node, why),
    }
}

/// A node without curves: Max's local matrix relative to the Max node of the reference
/// parent (roots carry the conversion) against the file's. A bone a static Biped places is
/// compared by its world matrix instead ([`biped_world_errors`]).
fn static_node<'r>(pair: &Pair<'r, '_, '_>, conversion: &Conversion, r: usize, mx: usize, tally: &mut Tally<'r>) {
    let node = &pair.reference.nodes[r];
    let world_comparable = conversion.similarity || conversion.roots_comparable;
    if let Some(placed) = biped_world(pair.tree, pair.tree.nodes[mx].storage).filter(|_| world_comparable) {
        return match placed {
            Ok(world) => biped_world_errors(pair, conversion, r, world, tally),
            Err(why) => tally.unread(node, why),
        };
    }
    let local = match max_local(pair, node, mx) {
        Ok(local) => local,
        Err(why) => return tally.unread(node, why),
    };
    let conv = conversion.matrix;
    let expected = match (conversion.similarity, node.parent.is_none()) {
        (true, _) => conv * local * conv.inverse(),
        (false, true) => conv * local,
        (false, false) => local,
    };
    tally.compared(matrix_error(&expected, &node.local), |t, l| {
        let message = format!(
            "node {:?}: local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e})",
            node.name
        );
        let detail = json!({ "node": node.name, "max": describe(&expected), "reference": describe(&node.local) });
        (fail("t3-pairs-transforms", message, locator(pair.name, node), node.offset), detail)
    });
}

/// A Biped bone: its world matrix (Max's figure placement under the conversion) against the
/// reference's (its `Lcl` chain). Max composes every bone of a Biped in `f32` from the COM
/// through its limb, so a bone's world position carries roundings at the magnitude of the COM's
/// position, not of its own offset; the exporter then derives each `Lcl` from two such world
/// matrices. Measured on every Rocketbox avatar: `Bip01 Head` 1e-4 cm off at 150 cm from the
/// origin (1.5e-5 of its 7 cm local offset), `Bip01 L Toe0` 1.1e-4 cm off at 10 cm from the
/// origin with the COM at 100 cm — about ten `f32` ulps at the COM's magnitude. So the
/// translation error is relative to `max(1, |world translation|, |COM world translation|)`,
/// with the same tolerances as every node.
fn biped_world_errors<'r>(
    pair: &Pair<'r, '_, '_>,
    conversion: &Conversion,
    r: usize,
    world: DMat4,
    tally: &mut Tally<'r>,
) {
    let reference = pair.reference;
    let node = &reference.nodes[r];
    let conv = conversion.matrix;
    let convert = |w: DMat4| if conversion.similarity { conv * w * conv.inverse() } else { conv * w };
    let expected = convert(world);
    let mut actual = node.local;
    let mut parent = node.parent;
    while let Some(p) = parent {
        actual = reference.nodes[p].local * actual;
        parent = reference.nodes[p].parent;
    }
    let com = biped_com_world(pair.tree).map_or(0.0, |com| convert(com).w_axis.truncate().length());
    let spread =
        pair.matching.max_of[r].map_or(0.0, |mx| biped_rotation_spread(pair.tree, pair.tree.nodes[mx].storage));
    if spread > 0.0 {
        tally.widened.push((node.name.as_str(), LINEAR_TOLERANCE + spread));
    }
    let (t, l) = matrix_error(&expected, &actual);
    let own = expected.w_axis.truncate().length().max(actual.w_axis.truncate().length()).max(1.0);
    let t = t * own / own.max(com);
    tally.compared_within((t, l), LINEAR_TOLERANCE + spread, |t, l| {
        let message = format!(
            "node {:?} (Biped bone): world transform differs (translation error {t:.3e} relative to the rig, rotation/scale error {l:.3e})",
            node.name
        );
        let detail = json!({ "node": node.name, "world": true, "com_distance": com, "max": describe(&expected), "reference": describe(&actual) });
        (fail("t3-pairs-transforms", message, locator(pair.name, node), node.offset), detail)
    });
}

/// Max's static local matrix of Max node `mx` relative to the Max node of `node`'s
/// reference parent (its world matrix for a root), or why it cannot be read.
fn max_local(pair: &Pair<'_, '_, '_>, node: &RefNode, mx: usize) -> Result<DMat4, String> {
    let (tree, m) = (pair.tree, pair.matching);
    let index = tree.index;
    let o = &index.objects[tree.nodes[mx].storage];
    // A node without curves holds one pose; where the defaults cannot give it: a node under
    // IK, its solved pose at the export's start (constant over the take, since the export
    // holds no curves for it); a Link Constraint, a keyed Biped bone, a node under one: the
    // pose at tick 0.
    let start = pair.reference.start_time.map_or(0.0, max_ticks);
    let static_world = |storage: usize| match world_matrix(index, &index.objects[storage]) {
        Ok(world) => Ok(to_dmat(world)),
        Err(e) => match ik_world_at(index, &index.objects[storage], start) {
            Some(solved) => solved.map_err(|why| why.to_string()),
            None => biped_world(tree, storage).unwrap_or_else(|| {
                node_world(tree, storage, 0.0).map_err(|at_zero| format!("{e}; at tick 0: {at_zero}"))
            }),
        },
    };
    let world = static_world(o.storage_index)?;
    match node.parent.map(|p| m.max_of[p]) {
        Some(Some(pm)) => match static_world(tree.nodes[pm].storage) {
            Ok(pw) => Ok(pw.inverse() * world),
            Err(e) => Err(format!("(parent) {e}")),
        },
        Some(None) => Err("the reference parent has no Max node".into()),
        None => Ok(world),
    }
}
