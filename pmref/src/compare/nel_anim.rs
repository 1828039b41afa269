//! `nel-anim/values`: a written NeL `.anim` (as read back from its bytes) against the FBX
//! 3ds Max wrote from the same scene. Every FBX-animated node's local matrix at each of its
//! key times is rebuilt from the `.anim`: its tracks are sampled the way NeL plays them
//! (`pmcore::nel::anim_eval`) at the same time in seconds (NeL time = ticks / 4800), composed
//! `T · R · S` as NeL does, along the node's Max parents — a channel no track holds keeps
//! its Max value (a NeL skeleton plays its default there) — and put in the FBX's axes like
//! the pairs `animation` comparison does. Tolerances are that comparison's.
//!
//! Track names map to Max nodes by the exporter's flat naming: `<node>.<value>`, a
//! `<selected>.`-prefixed form, or a bare `<value>` for the node named `bare_node`. A name
//! that maps to no scene node fails (`t3-nel-anim-unknown-track`); an FBX-animated node with
//! no track on its chain fails (`t3-nel-anim-missing-track`) unless its FBX curves are
//! constant (NeL writes no track for an unkeyed node) or the exporter reported its tracks as
//! unsupported — then the verdict says so (`t3-nel-anim-unsupported` when everything
//! compared agrees, a skip when nothing could be compared).
//!
//! A node whose samples the exporter guessed (a keyed Biped's in-betweens, written from a
//! model not exact against Max) is compared only at the ticks the exporter lists as exact
//! (its Biped key times); a pose at another tick — a guess of its own or of a Max ancestor
//! below its compared parent — counts as `in-between-not-compared`, never as a pass.

use super::axes::{conversions, Conversion};
use super::matching::{match_nodes, Matching, MaxTree};
use super::matrices::{describe, matrix_error, max_local_at, node_world};
use super::outcome::{fail, locator, Comparison};
use super::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::{max_ticks, RefScene, FBX_TICKS_PER_SECOND};
use glam::{DMat4, DQuat};
use pmcore::model::scene_index::SceneIndex;
use pmcore::nel::anim::{Animation, KeyKind, Track};
use pmcore::nel::anim_eval::{sample, Sampled};
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::{BTreeMap, HashMap};

/// The name this comparison reports under.
pub const NAME: &str = "nel-anim/values";

/// Miss class of the poses (and untracked nodes) where the .max's own controllers miss the
/// FBX as well.
const OTHER_STATE: &str = "reference-not-the-max-state";
/// Miss class of the poses at ticks where the exporter wrote a guessed in-between sample.
const IN_BETWEEN: &str = "in-between-not-compared";
/// Detail field: how many of the poses off agree once the Bezier Scale tangents are read
/// ×4800 (equal to `poses_off` when that NeL exporter rule explains every difference).
pub const POSES_OFF_AGREEING_SCALED: &str = "poses_off_agreeing_with_scale_tangents_x4800";
/// The fail kind of a difference that NeL's per-tick Bezier Scale tangents explain.
pub const SCALE_TANGENTS_KIND: &str = "t3-nel-anim-scale-tangents";

/// A pose off by more than the tolerances.
fn off((t, l): (f64, f64)) -> bool {
    t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE
}

/// What the comparison needs besides the two files.
pub struct NelAnimInput<'a> {
    /// The `.anim` as read back.
    pub animation: &'a Animation,
    /// The node whose tracks are written bare (`pos`, `rotquat`), if any.
    pub bare_node: Option<&'a str>,
    /// Nodes some of whose tracks the exporter reported as not written, with why.
    pub unsupported: &'a [(String, String)],
    /// Nodes some of whose samples the exporter guessed (Biped in-betweens), each with the
    /// ticks where its samples are exact: a pose at any other tick is not compared.
    pub guessed: &'a [(String, Vec<i32>)],
    /// The nodes the exporter selected (their subtrees are exported); `None`: every node.
    pub selected: Option<&'a [String]>,
}

/// The tracks of one Max node.
#[derive(Default, Clone, Copy)]
struct NodeTracks<'t> {
    pos: Option<&'t Track>,
    rot: Option<&'t Track>,
    scale: Option<&'t Track>,
}

impl NodeTracks<'_> {
    fn any(&self) -> bool {
        self.pos.is_some() || self.rot.is_some() || self.scale.is_some()
    }
}

/// Compares `input` with the FBX `reference` (file `reference_name`) of the scene `index`.
pub fn compare(
    index: &SceneIndex<'_>,
    reference: &RefScene,
    reference_name: &str,
    input: &NelAnimInput<'_>,
) -> Comparison {
    let tree = MaxTree::of(index);
    let matching = match_nodes(reference, &tree);
    let mut detail = json!({
        "tolerance": { "translation_relative": POSITION_TOLERANCE, "rotation_scale": LINEAR_TOLERANCE },
    });
    let done = |verdict, detail| Comparison { name: NAME, verdict, detail };
    let Some(tracks) = input.animation.tracks() else {
        return done(Verdict::Skip { reason: "the .anim's tracks are not typed".into() }, detail);
    };
    let (by_node, unknown) = resolve(&tree, &tracks, input.bare_node);
    if let Value::Object(map) = &mut detail {
        map.insert("tracks".into(), json!(tracks.len()));
        map.insert("nodes_with_tracks".into(), json!(by_node.iter().filter(|t| t.any()).count()));
    }
    if let Some(name) = unknown.first() {
        let message = format!("track {name:?} names no node of the scene ({} such tracks)", unknown.len());
        let v = fail("t3-nel-anim-unknown-track", message, format!("@export/anim/{name}"), 0);
        return done(v, detail);
    }
    let animated: Vec<usize> = {
        let mut n: Vec<usize> = reference.curves.iter().filter(|c| c.times.len() >= 2).map(|c| c.node).collect();
        n.sort_unstable();
        n.dedup();
        n
    };
    if animated.is_empty() {
        return done(
            Verdict::Skip { reason: "the reference has no animation curve with two or more keys".into() },
            detail,
        );
    }
    let Ok(Some(conversion)) = conversions(reference).map(|c| c.into_iter().next()) else {
        return done(Verdict::Skip { reason: "the file's axis conversion is not modelled".into() }, detail);
    };
    let world = NelWorld { tree: &tree, tracks: &by_node, scaled_tangents: false };
    let ctx =
        Ctx { tree: &tree, matching: &matching, reference, reference_name, conversion: &conversion, input, world };
    let mut tally = Tally::default();
    for &r in &animated {
        if let Some((mx, parent)) = ctx.compared_node(r, &mut tally) {
            ctx.compare_poses(r, mx, parent, &mut tally);
        }
    }
    tally.into_comparison(detail, reference_name)
}

/// What one comparison holds while it walks the FBX-animated nodes.
struct Ctx<'c, 'i, 'a, 't> {
    tree: &'c MaxTree<'i, 'a>,
    matching: &'c Matching,
    reference: &'c RefScene,
    reference_name: &'c str,
    conversion: &'c Conversion,
    input: &'c NelAnimInput<'c>,
    world: NelWorld<'c, 'i, 'a, 't>,
}

impl Ctx<'_, '_, '_, '_> {
    /// The Max node of FBX node `r` and its compared parent, or `None` after noting why the
    /// node is not compared.
    fn compared_node(&self, r: usize, tally: &mut Tally) -> Option<(usize, Option<usize>)> {
        let (reference, tree) = (self.reference, self.tree);
        let node = &reference.nodes[r];
        let Some(mx) = self.matching.max_of[r] else {
            tally.miss("no-max-node", &node.name);
            return None;
        };
        if let Some(selected) = self.input.selected.filter(|s| !self.world.chain_has_name(mx, s)) {
            tally.miss("not-selected", &format!("{} (outside {})", node.name, selected.join(", ")));
            return None;
        }
        let constant = reference
            .curves
            .iter()
            .filter(|c| c.node == r)
            .all(|c| c.values.windows(2).all(|w| (w[0] - w[1]).abs() <= 1e-9));
        if let Some((_, why)) = self.input.unsupported.iter().find(|(n, _)| *n == tree.nodes[mx].name) {
            // A node whose FBX curves hold one value needs no track either.
            let class = if constant { "constant-in-reference" } else { "unsupported" };
            tally.miss(class, &format!("{}: {why}", node.name));
            return None;
        }
        if !self.world.chain_has_tracks(mx) {
            if constant {
                tally.miss("constant-in-reference", &node.name);
            } else if reference.key_times(r).into_iter().any(|time| self.max_misses_reference(r, time)) {
                // The FBX holds another scene state than the .max's controllers (the pairs
                // `animation` comparison reports it): not a track this file should have.
                tally.miss(OTHER_STATE, &node.name);
            } else {
                tally.missing.push(node.name.clone());
            }
            return None;
        }
        match node.parent.map(|p| self.matching.max_of[p]) {
            Some(Some(pm)) => Some((mx, Some(pm))),
            Some(None) => {
                tally.miss("reference-parent-not-in-max", &node.name);
                None
            }
            None if !self.conversion.roots_comparable => {
                tally.miss("axes-undeclared", &node.name);
                None
            }
            None => Some((mx, None)),
        }
    }

    /// True when the exporter guessed Max node `n`'s sample at `tick` (not one of its
    /// exact ticks).
    fn guessed_at(&self, n: usize, tick: f64) -> bool {
        let name = &self.tree.nodes[n].name;
        self.input.guessed.iter().any(|(g, exact)| g == name && !exact.iter().any(|&t| f64::from(t) == tick.round()))
    }

    /// True when a track the compared local of `mx` is built from holds a guess at `tick`:
    /// `mx`'s and its Max ancestors' up to (not including) `parent` when `parent` is one of
    /// them (its own world cancels), else both whole chains.
    fn chain_guessed_at(&self, mx: usize, parent: Option<usize>, tick: f64) -> bool {
        match self.walk_for_guess(Some(mx), parent, tick) {
            Some(guessed) => guessed,
            None => self.walk_for_guess(parent, None, tick) == Some(true),
        }
    }

    /// Walks from Max node `from` up its ancestors: `Some(true)` at the first node guessed at
    /// `tick`, `Some(false)` on reaching `stop`, `None` past the root (or a parents loop).
    fn walk_for_guess(&self, from: Option<usize>, stop: Option<usize>, tick: f64) -> Option<bool> {
        let (mut at, mut steps) = (from, 0);
        while let Some(n) = at.filter(|_| steps <= self.tree.nodes.len()) {
            if Some(n) == stop {
                return Some(false);
            }
            if self.guessed_at(n, tick) {
                return Some(true);
            }
            at = self.tree.nodes[n].parent;
            steps += 1;
        }
        None
    }

    /// True when the .max's own controllers miss the FBX's pose of node `r` at `time`.
    fn max_misses_reference(&self, r: usize, time: i64) -> bool {
        let Some(expected) = self.reference.matrix_at(r, time) else { return false };
        let tick = max_ticks(time);
        max_local_at(self.tree, self.matching, self.reference, r, tick, self.conversion)
            .is_ok_and(|m| off(matrix_error(&m, &expected)))
    }

    /// The `.anim`'s local matrix of Max node `mx` (relative to `parent`, or in the FBX's
    /// axes for a root) at `tick`.
    fn local(
        &self,
        world: &NelWorld<'_, '_, '_, '_>,
        mx: usize,
        parent: Option<usize>,
        tick: f64,
    ) -> Result<DMat4, String> {
        let w = world.at(mx, tick)?;
        let c = self.conversion;
        Ok(match parent {
            Some(pm) => world.at(pm, tick)?.inverse() * w,
            None if c.similarity => c.matrix * w * c.matrix.inverse(),
            None => c.matrix * w,
        })
    }

    /// Every key time of FBX node `r`: the `.anim`'s pose against the FBX's.
    fn compare_poses(&self, r: usize, mx: usize, parent: Option<usize>, tally: &mut Tally) {
        let node = &self.reference.nodes[r];
        for time in self.reference.key_times(r) {
            let Some(expected) = self.reference.matrix_at(r, time) else {
                tally.times_not_keyed += 1;
                continue;
            };
            let tick = max_ticks(time);
            if self.chain_guessed_at(mx, parent, tick) {
                tally.poses_guessed += 1;
                tally.miss(IN_BETWEEN, &node.name);
                continue;
            }
            let ours = match self.local(&self.world, mx, parent, tick) {
                Ok(l) => l,
                Err(why) => {
                    tally.miss("not-sampled", &format!("{}: {why}", node.name));
                    break;
                }
            };
            let (t, l) = matrix_error(&ours, &expected);
            if off((t, l)) && self.max_misses_reference(r, time) {
                // The FBX was written from another scene state there (the .max's own
                // controllers miss it too): the pose says nothing about the .anim.
                tally.poses_other_state += 1;
                tally.miss(OTHER_STATE, &node.name);
                continue;
            }
            tally.poses += 1;
            tally.max_t = tally.max_t.max(t);
            tally.max_l = tally.max_l.max(l);
            if off((t, l)) {
                tally.poses_off += 1;
                if self.agrees_with_scaled_tangents(mx, parent, tick, &expected) {
                    tally.poses_off_agreeing_scaled += 1;
                }
                if tally.first.is_none() {
                    self.first_difference(r, (mx, parent), time, (&ours, &expected), (t, l), tally);
                }
            }
        }
    }

    /// Does the pose agree once the `.anim`'s Bezier Scale tangents are read ×4800 — the one
    /// NeL exporter rule (tangents per tick, runtime per second) the FBX does not share?
    fn agrees_with_scaled_tangents(&self, mx: usize, parent: Option<usize>, tick: f64, expected: &DMat4) -> bool {
        let rescaled = NelWorld { scaled_tangents: true, ..self.world };
        self.local(&rescaled, mx, parent, tick).is_ok_and(|m| !off(matrix_error(&m, expected)))
    }

    /// The first difference, located at a curve keyed at `time`; named
    /// `t3-nel-anim-scale-tangents` when Bezier Scale tangents ×4800 make the pose agree
    /// (NeL's exporter writes them per tick where its runtime reads them per second).
    fn first_difference(
        &self,
        r: usize,
        (mx, parent): (usize, Option<usize>),
        time: i64,
        (ours, expected): (&DMat4, &DMat4),
        (t, l): (f64, f64),
        tally: &mut Tally,
    ) {
        let node = &self.reference.nodes[r];
        let tick = max_ticks(time);
        let seconds = time as f64 / FBX_TICKS_PER_SECOND as f64;
        let (kind, cause) = if self.agrees_with_scaled_tangents(mx, parent, tick, expected) {
            (SCALE_TANGENTS_KIND, "; with its Bezier Scale tangents ×4800 it agrees (NeL's exporter writes them per tick, its runtime reads them per second)")
        } else {
            ("t3-nel-anim-values", "")
        };
        let message = format!(
            "node {:?} at {seconds:.4} s (tick {tick:.1}): the .anim's local transform differs from the FBX's (translation error {t:.3e} relative, rotation/scale error {l:.3e}){cause}",
            node.name
        );
        let at = self
            .reference
            .curves
            .iter()
            .find(|c| c.node == r && c.times.contains(&time))
            .map_or(node.offset, |c| c.offset);
        tally.first = Some(fail(kind, message, locator(self.reference_name, node), at));
        tally.first_detail =
            json!({ "node": node.name, "seconds": seconds, "anim": describe(ours), "reference": describe(expected) });
    }
}

/// Maps every track name to its Max node (`tree.nodes` index); the names that map to none.
fn resolve<'t>(
    tree: &MaxTree<'_, '_>,
    tracks: &[(&str, &'t Track)],
    bare: Option<&str>,
) -> (Vec<NodeTracks<'t>>, Vec<String>) {
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, n) in tree.nodes.iter().enumerate() {
        by_name.entry(n.name.as_str()).or_insert(i);
    }
    let mut out = vec![NodeTracks::default(); tree.nodes.len()];
    let mut unknown = Vec::new();
    for &(name, track) in tracks {
        let (node_part, value) = match name.rsplit_once('.') {
            Some((n, v)) => (Some(n), v),
            None => (bare, name),
        };
        // `<node>`, else the part after a `<selected>.` prefix (node names may hold dots).
        let node = node_part.and_then(|n| {
            by_name
                .get(n)
                .copied()
                .or_else(|| n.match_indices('.').find_map(|(i, _)| by_name.get(&n[i + 1..]).copied()))
        });
        let slot = node.and_then(|i| match value {
            "pos" => Some(&mut out[i].pos),
            "rotquat" => Some(&mut out[i].rot),
            "scale" => Some(&mut out[i].scale),
            _ => None,
        });
        match slot {
            Some(s) => *s = Some(track),
            None => unknown.push(name.to_string()),
        }
    }
    (out, unknown)
}

/// World matrices of Max nodes with the `.anim`'s tracks in place of their controllers.
#[derive(Clone, Copy)]
struct NelWorld<'w, 'i, 'a, 't> {
    tree: &'w MaxTree<'i, 'a>,
    tracks: &'w [NodeTracks<'t>],
    /// Bezier Vector scale tangents ×4800 (the diagnosis of a difference, never a pass).
    scaled_tangents: bool,
}

impl NelWorld<'_, '_, '_, '_> {
    /// True when node `i` or a Max ancestor is named in `names`.
    fn chain_has_name(&self, i: usize, names: &[String]) -> bool {
        let mut at = Some(i);
        let mut steps = 0;
        while let Some(n) = at.filter(|_| steps <= self.tree.nodes.len()) {
            if names.contains(&self.tree.nodes[n].name) {
                return true;
            }
            at = self.tree.nodes[n].parent;
            steps += 1;
        }
        false
    }

    /// True when node `i` or a Max ancestor has a track.
    fn chain_has_tracks(&self, i: usize) -> bool {
        let mut at = Some(i);
        let mut steps = 0;
        while let Some(n) = at.filter(|_| steps <= self.tree.nodes.len()) {
            if self.tracks[n].any() {
                return true;
            }
            at = self.tree.nodes[n].parent;
            steps += 1;
        }
        false
    }

    /// Node `i`'s world matrix at `tick`: each node's Max local with its tracked channels
    /// replaced by the tracks' values at `tick / 4800` seconds.
    fn at(&self, i: usize, tick: f64) -> Result<DMat4, String> {
        let mut chain = vec![i];
        while let Some(p) = self.tree.nodes[*chain.last().unwrap_or(&i)].parent {
            if chain.len() > self.tree.nodes.len() {
                return Err("the node's parents form a loop".into());
            }
            chain.push(p);
        }
        let (mut nel, mut max_parent) = (DMat4::IDENTITY, DMat4::IDENTITY);
        for &n in chain.iter().rev() {
            let max_world = node_world(self.tree, self.tree.nodes[n].storage, tick)?;
            let max_local = max_parent.inverse() * max_world;
            nel *= self.local(n, max_local, tick)?;
            max_parent = max_world;
        }
        Ok(nel)
    }

    fn local(&self, n: usize, max_local: DMat4, tick: f64) -> Result<DMat4, String> {
        let t = self.tracks[n];
        if !t.any() {
            return Ok(max_local);
        }
        let (mut s, mut r, mut p) = max_local.to_scale_rotation_translation();
        let seconds = (tick / 4800.0) as f32;
        let vector = |track: &Track| match sample(track, seconds).map_err(|e| e.to_string())? {
            Sampled::Vector(v) => Ok(v.as_dvec3()),
            Sampled::Quat(_) => Err(format!("{} holds quaternions", track.kind.class_name())),
        };
        if let Some(track) = t.pos {
            p = vector(track)?;
        }
        if let Some(track) = t.scale {
            s = if self.scaled_tangents && track.kind == KeyKind::BezierVector {
                let mut scaled = track.clone();
                scaled.keys.iter_mut().for_each(|k| k.values[3..9].iter_mut().for_each(|v| *v *= 4800.0));
                vector(&scaled)?
            } else {
                vector(track)?
            };
        }
        if let Some(track) = t.rot {
            r = match sample(track, seconds).map_err(|e| e.to_string())? {
                Sampled::Quat(q) => DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize(),
                Sampled::Vector(_) => return Err(format!("{} holds vectors", track.kind.class_name())),
            };
        }
        Ok(DMat4::from_scale_rotation_translation(s, r, p))
    }
}

/// Counters, misses by class and the first difference.
#[derive(Default)]
struct Tally {
    poses: usize,
    poses_off: usize,
    /// Poses off that agree once the Bezier Scale tangents are ×4800.
    poses_off_agreeing_scaled: usize,
    /// Poses not counted: the .max's controllers miss the FBX there too.
    poses_other_state: usize,
    /// Poses not compared: the exporter guessed the sample there (Biped in-between).
    poses_guessed: usize,
    times_not_keyed: usize,
    max_t: f64,
    max_l: f64,
    misses: BTreeMap<String, Vec<String>>,
    missing: Vec<String>,
    first: Option<Verdict>,
    first_detail: Value,
}

impl Tally {
    fn miss(&mut self, class: &str, what: &str) {
        let list = self.misses.entry(class.into()).or_default();
        if !list.iter().any(|w| w == what) {
            list.push(what.to_string());
        }
    }

    fn into_comparison(self, mut detail: Value, reference_name: &str) -> Comparison {
        if let Value::Object(map) = &mut detail {
            map.insert("poses_compared".into(), json!(self.poses));
            map.insert("poses_off".into(), json!(self.poses_off));
            map.insert(POSES_OFF_AGREEING_SCALED.into(), json!(self.poses_off_agreeing_scaled));
            map.insert("poses_not_counted_reference_not_the_max_state".into(), json!(self.poses_other_state));
            map.insert("poses_not_compared_guessed_in_between".into(), json!(self.poses_guessed));
            map.insert("times_not_keyed_on_every_curve".into(), json!(self.times_not_keyed));
            map.insert("max_translation_error".into(), json!(self.max_t));
            map.insert("max_linear_error".into(), json!(self.max_l));
            map.insert("misses".into(), json!(self.misses));
            map.insert("missing_tracks".into(), json!(self.missing));
            map.insert("first_difference".into(), self.first_detail);
        }
        let classes = || self.misses.iter().map(|(k, v)| format!("{k} ({})", v.len())).collect::<Vec<_>>().join(", ");
        let verdict = if let Some(v) = self.first {
            v
        } else if let Some(node) = self.missing.first() {
            let message = format!(
                "{} FBX-animated node(s) have no track in the .anim and no reported reason, first {node:?}",
                self.missing.len()
            );
            fail("t3-nel-anim-missing-track", message, format!("@reference/{reference_name}/{node}"), 0)
        } else if self.poses == 0 {
            let prefix = if self.misses.contains_key("unsupported") || self.misses.contains_key(IN_BETWEEN) {
                "not-implemented: "
            } else if self
                .misses
                .keys()
                .all(|k| ["constant-in-reference", "not-selected", OTHER_STATE].contains(&k.as_str()))
            {
                "not-applicable: "
            } else {
                ""
            };
            Verdict::Skip { reason: format!("{prefix}no pose compared: {}", classes()) }
        } else if let Some(list) = self.misses.get("unsupported") {
            let message = format!(
                "{} pose(s) equal, but {} FBX-animated node(s) have tracks the exporter could not write: {}",
                self.poses,
                list.len(),
                list.join("; ")
            );
            let node = list[0].split(':').next().unwrap_or_default();
            fail("t3-nel-anim-unsupported", message, format!("@reference/{reference_name}/{node}"), 0)
        } else if self.misses.is_empty() {
            Verdict::Pass { note: Some(format!("{} pose(s) equal", self.poses)) }
        } else {
            Verdict::Pass { note: Some(format!("{} pose(s) equal; not compared: {}", self.poses, classes())) }
        };
        Comparison { name: NAME, verdict, detail }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_compared_with_unsupported_nodes_is_a_not_implemented_skip() {
        let mut t = Tally::default();
        t.miss("unsupported", "Bip01: 12 Biped keys not evaluated");
        let c = t.into_comparison(json!({}), "x.fbx");
        assert!(matches!(c.verdict, Verdict::Skip { ref reason } if reason.starts_with("not-implemented")));
    }

    #[test]
    fn an_animated_node_without_a_track_or_a_reason_fails() {
        let t = Tally { missing: vec!["Box01".into()], poses: 3, ..Default::default() };
        let c = t.into_comparison(json!({}), "x.fbx");
        assert!(matches!(c.verdict, Verdict::Fail(ref m) if m.kind == "t3-nel-anim-missing-track"));
    }

    #[test]
    fn guessed_in_betweens_alone_are_a_not_implemented_skip_and_beside_equal_poses_are_named() {
        let mut t = Tally { poses_guessed: 30, ..Default::default() };
        t.miss(IN_BETWEEN, "Bip01");
        let c = t.into_comparison(json!({}), "x.fbx");
        assert!(matches!(c.verdict, Verdict::Skip { ref reason } if reason.starts_with("not-implemented")));
        assert_eq!(c.detail["poses_not_compared_guessed_in_between"], 30);
        let mut t = Tally { poses: 2, poses_guessed: 30, ..Default::default() };
        t.miss(IN_BETWEEN, "Bip01");
        let c = t.into_comparison(json!({}), "x.fbx");
        assert!(
            matches!(c.verdict, Verdict::Pass { note: Some(ref n) } if n.contains("2 pose(s) equal") && n.contains(IN_BETWEEN))
        );
    }

    #[test]
    fn equal_poses_with_unsupported_nodes_do_not_pass() {
        let mut t = Tally { poses: 4, ..Default::default() };
        t.miss("unsupported", "Arm: TCB Rotation keys");
        let c = t.into_comparison(json!({}), "x.fbx");
        assert!(matches!(c.verdict, Verdict::Fail(ref m) if m.kind == "t3-nel-anim-unsupported"));
    }
}
