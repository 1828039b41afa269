//! Scene → NeL `.anim` ([`Animation`]), following the NeL exporter's rules (design §10b–§10c,
//! `nel_mesh_lib/export_anim.cpp`: `addAnimation`, `addNodeTracks`, `addBoneTracks`,
//! `addBipedNodeTrack`, `buildATrack`).
//!
//! * **Selection** (the anim process's script): the node named `Bip01` plus every node whose
//!   AppData `NEL3D_APPDATA_EXPORT_NODE_ANIMATION` (SubId 1423062800) is `"1"`, in scene
//!   order. A scene with neither (every pairs scene) is exported as if its root node were
//!   selected: every node's tracks under `<node>.<value>` — pmfarm's rule, so a scene made
//!   outside Ryzom still gets its animation written (the summary says which rule chose).
//! * **Names**, flat: a selected node's own tracks are bare (`pos`, `rotquat`, `scale`) when
//!   its parent is the scene root, else `<node>.`-prefixed; every descendant's are
//!   `<prefix><descendant>.<value>`; a name already taken keeps its first track. Per node
//!   the order is scale, rotquat, pos.
//! * **Keyframer tracks** (`buildATrack`): a Bezier Scale (0x2010) with keys becomes a
//!   `CTrackKeyFramerBezierVector`: time = ticks / 4800, value = the diagonal of
//!   `srtm · stm · srtm⁻¹` (srtm = Max's matrix of the scale-axis quaternion), tangents
//!   **not** scaled (the reference exporter scales Bezier Point3 tangents by 4800 but not
//!   Bezier Scale ones), `Step` from out-tangent type 2; range from the controller's 0x3003
//!   interval, its first/last key when that is NEVER/FOREVER; loop mode off.
//! * **Position XYZ, Euler XYZ, Scale XYZ** (Max ≥ 5 defaults, younger than the exporter's
//!   `buildATrack`, which writes nothing for them): pmfarm evaluates them
//!   (`model::keys`) once per frame over their keys' span, like the exporter's Biped
//!   oversampling, into `CTrackKeyFramerLinearVector` / `LinearQuat` (rotation = the Max
//!   quaternion with `w` negated, made closest to the previous sample). The summary counts
//!   these as `oversampled`, by class.
//! * **Biped** nodes (COM 0x9156, BipSlave 0x9154): a rotation track for every node, a
//!   position track for the COM and the first links of both arms, the spine and the tail;
//!   sampled once per frame over the union of the limbs' key spans through
//!   [`BipedSampler`], the one entry point a keytrack decoder plugs into
//!   ([`super::nel_anim_biped`] is pmcore's, over `eval::biped_keys`). A Biped without
//!   keys has an empty span: no Biped track, as NeL writes. A sample the sampler marks as
//!   not exact (a model's in-between) is written and counted in
//!   [`AnimSummary::inexact_in_betweens`] with each node's exact ticks, so that a comparison
//!   can leave the guesses out.
//! * Linear Position/Rotation/Scale, Bezier Position, TCB Position/Rotation/Scale: their key
//!   tables as NeL's native keyframers ([`super::nel_anim_keys`]: TCB rotation as relative
//!   angle-axis, Bezier Position tangents ×4800).
//! * Anything else with keys (a table NeL does not export for that slot, a Biped whose keys
//!   are not evaluated, a key table with a free handle) is **not written**: the summary
//!   lists the track with the controller's class and Class ID.

use super::nel_anim_keys::{native_track, nel_scale, Want};
use super::rig::ROOT_NAME;
use super::rig_tree::{appdata_value, MAXSCRIPT_UTILITY_CLASS, UTILITY_SUPERCLASS};
use crate::classes::ids::{BEZIER_SCALE, EULER_XYZ, POSITION_XYZ, SCALE_XYZ};
use crate::model::biped::{bone, BipedRig};
use crate::model::controllers::{self, class_name, has_class, LocalTransform, TransformRefs};
use crate::model::keys::{self, float_keys, key_count, scale_keys, ScaleKey};
use crate::model::scene_index::{SceneIndex, SceneObject, SceneTrees};
use crate::model::time_config::{TimeConfig, TICKS_PER_SECOND};
use crate::nel::anim::{Animation, Key, KeyKind, Track};
use crate::MaxFile;
use glam::{Quat, Vec3};
use serde::Serialize;
use std::collections::BTreeMap;

/// AppData SubId of `NEL3D_APPDATA_EXPORT_NODE_ANIMATION` (`export_appdata.h`).
pub const EXPORT_NODE_ANIMATION_SUBID: u32 = 1423062800;
/// Ticks per frame when the scene's time configuration is not readable (30 fps).
const DEFAULT_TICKS_PER_FRAME: i32 = 160;
/// Samples one oversampled track may hold: 65,536 frames (36 minutes at 30 fps) — a key
/// span beyond it (a hostile or broken key time) is reported, not sampled.
const MAX_OVERSAMPLED_KEYS: i64 = 1 << 16;
/// Controller interval chunk (Max `Interval`, two `i32` ticks).
const RANGE_CHUNK: u16 = 0x3003;
/// `TIME_NegInfinity` / `TIME_PosInfinity`: NEVER and FOREVER intervals.
const NEG_INFINITY: i32 = i32::MIN;
const POS_INFINITY: i32 = i32::MAX;

/// A track the exporter did not write, and why.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnsupportedTrack {
    /// The track's name.
    pub track: String,
    /// The node.
    pub node: String,
    /// The controller's class name.
    pub class: String,
    /// Its Class ID, `(0x…, 0x…)`.
    pub class_id: String,
    /// Why.
    pub why: String,
}

/// Counts of an `.anim` export.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct AnimSummary {
    /// Which rule chose the nodes: `Bip01`, `Bip01+flagged`, `flagged`, `scene-root`.
    pub selection: String,
    /// The selected nodes.
    pub selected: Vec<String>,
    /// Tracks written.
    pub tracks: usize,
    /// Keys written.
    pub keys: usize,
    /// Tracks per NeL class.
    pub by_class: BTreeMap<String, usize>,
    /// Tracks oversampled once per frame, per Max controller class (Class ID).
    pub oversampled: BTreeMap<String, usize>,
    /// Tracks not written.
    pub unsupported: Vec<UnsupportedTrack>,
    /// Names that were taken already (first wins).
    pub name_collisions: usize,
    /// Ticks per frame of the oversampling.
    pub ticks_per_frame: i32,
    /// Biped samples written from a model not exact against Max (between keys), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub inexact_in_betweens: Option<InexactInBetweens>,
}

/// Biped samples the sampler guessed: written (NeL oversamples every frame) but not exact.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct InexactInBetweens {
    /// What the guessed samples come from.
    pub model: String,
    /// Biped samples written (all tracks).
    pub samples: usize,
    /// Of them, guessed.
    pub guessed: usize,
    /// Per Biped node with guessed samples: the ticks where its samples are exact.
    pub exact_ticks: BTreeMap<String, Vec<i32>>,
}

/// An export: the animation and its counts.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimExport {
    /// The animation.
    pub animation: Animation,
    /// Counts.
    pub summary: AnimSummary,
}

/// Why no animation could be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AnimError {
    /// The Scene stream is not a chunk tree.
    #[error("no Scene chunk tree")]
    NoScene,
    /// The Scene has no root container.
    #[error("Scene has no root container")]
    NoRoot,
}

/// Evaluates a keyed Biped: the single entry point of Biped animation (hB's keytrack
/// decoder implements it). Times are Max ticks.
pub trait BipedSampler {
    /// The span the exporter oversamples: the union of the limbs' key spans (§10c: the
    /// COM's own keys do not count); `Ok(None)` when the Biped has no key; `Err` names
    /// what stops the evaluation.
    fn key_range(&self) -> Result<Option<(i32, i32)>, String>;
    /// The local transform (relative to its parent node) of Biped node `node` (storage
    /// index) at `tick`.
    fn local_at(&self, node: usize, tick: i32) -> Result<LocalTransform, String>;
    /// [`Self::local_at`] and whether the value is exact (`false`: a model's guess, which
    /// the summary lists and the values comparison does not compare).
    fn sample(&self, node: usize, tick: i32) -> Result<(LocalTransform, bool), String> {
        self.local_at(node, tick).map(|local| (local, true))
    }
    /// What guessed samples are made from, when there can be some.
    fn in_between_model(&self) -> Option<&'static str> {
        None
    }
}

/// pmcore's own Biped sampler: the keytracks are counted, not decoded — a Biped without keys
/// has no span, one with keys is reported.
struct CountedBipedKeys(Result<usize, String>);

impl BipedSampler for CountedBipedKeys {
    fn key_range(&self) -> Result<Option<(i32, i32)>, String> {
        match &self.0 {
            Ok(0) => Ok(None),
            Ok(keys) => Err(format!("{keys} Biped keytrack keys not evaluated (keytracks not decoded)")),
            Err(e) => Err(e.clone()),
        }
    }
    fn local_at(&self, _node: usize, _tick: i32) -> Result<LocalTransform, String> {
        Err("Biped keytracks not decoded".into())
    }
}

/// Exports the animation of `file`; a keyed Biped's tracks are reported, not sampled
/// ([`super::nel_anim_biped::export`] samples them).
pub fn export(file: &MaxFile) -> Result<AnimExport, AnimError> {
    export_with(file, None)
}

/// Exports the animation of `file`; `biped` evaluates keyed Biped bones (`None`: pmcore's).
pub fn export_with(file: &MaxFile, biped: Option<&dyn BipedSampler>) -> Result<AnimExport, AnimError> {
    let trees = SceneTrees::of(file).ok_or(AnimError::NoScene)?;
    let index = trees.index().ok_or(AnimError::NoRoot)?;
    let ticks_per_frame = TimeConfig::of(file)
        .ok()
        .and_then(|c| i32::try_from(TICKS_PER_SECOND / c.frame_rate).ok())
        .filter(|t| *t > 0)
        .unwrap_or(DEFAULT_TICKS_PER_FRAME);
    let counted;
    let biped: &dyn BipedSampler = match biped {
        Some(b) => b,
        None => {
            counted = CountedBipedKeys(BipedRig::read(&index).map(|r| r.system.keys).map_err(|e| e.to_string()));
            &counted
        }
    };
    Ok(build(&index, biped, ticks_per_frame))
}

/// Builds the animation of a scene.
pub(crate) fn build(index: &SceneIndex<'_>, biped: &dyn BipedSampler, ticks_per_frame: i32) -> AnimExport {
    let mut b = Builder::new(index, biped, ticks_per_frame);
    let (selection, selected) = select(index);
    b.summary.selection = selection.into();
    for &node in &selected {
        let o = &index.objects[node];
        b.summary.selected.push(o.node_name().unwrap_or_default());
        b.add_animation(node);
    }
    if selected.is_empty() {
        b.summary.selection = "scene-root".into();
        for root in index.objects.iter().filter(|o| is_top_level(index, o)).map(|o| o.storage_index) {
            b.bone_tracks(root, "");
        }
    }
    b.finish()
}

/// The selected nodes and the rule that chose them.
fn select(index: &SceneIndex<'_>) -> (&'static str, Vec<usize>) {
    let bip = index.node_by_name(ROOT_NAME).map(|o| o.storage_index);
    let flagged: Vec<usize> = index
        .objects
        .iter()
        .filter(|o| o.is_node() && Some(o.storage_index) != bip && export_flag(o))
        .map(|o| o.storage_index)
        .collect();
    let rule = match (bip.is_some(), flagged.is_empty()) {
        (true, true) => "Bip01",
        (true, false) => "Bip01+flagged",
        (false, false) => "flagged",
        (false, true) => "scene-root",
    };
    (rule, bip.into_iter().chain(flagged).collect())
}

/// `NEL3D_APPDATA_EXPORT_NODE_ANIMATION` is `"1"`.
fn export_flag(o: &SceneObject<'_>) -> bool {
    appdata_value(o, MAXSCRIPT_UTILITY_CLASS, UTILITY_SUPERCLASS, EXPORT_NODE_ANIMATION_SUBID)
        .is_some_and(|v| v.iter().take_while(|&&b| b != 0).map(|&b| b as char).collect::<String>().trim() == "1")
}

/// The scene root node: a node without a transform controller.
fn is_scene_root(o: &SceneObject<'_>) -> bool {
    o.is_node() && o.reference(0).is_none()
}

/// A node whose parent is the scene root (or none).
fn is_top_level(index: &SceneIndex<'_>, o: &SceneObject<'_>) -> bool {
    !is_scene_root(o) && o.is_node() && o.node_parent().and_then(|p| index.get(p)).is_none_or(is_scene_root)
}

fn class_id_text(o: &SceneObject<'_>) -> String {
    o.class.as_ref().map_or("(?, ?)".into(), |c| format!("(0x{:x}, 0x{:x})", c.class_id[0], c.class_id[1]))
}

/// Which transform value a track holds.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Channel {
    Scale,
    Rotation,
    Position,
}

impl Channel {
    fn value_name(self) -> &'static str {
        match self {
            Channel::Scale => "scale",
            Channel::Rotation => "rotquat",
            Channel::Position => "pos",
        }
    }
}

struct Builder<'i, 'a> {
    index: &'i SceneIndex<'a>,
    children: Vec<Vec<usize>>,
    biped: &'i dyn BipedSampler,
    ticks_per_frame: i32,
    tracks: Vec<(String, Track)>,
    summary: AnimSummary,
    visited: Vec<bool>,
    /// Biped nodes with a position track besides the COM.
    biped_position_nodes: Vec<usize>,
}

impl<'i, 'a> Builder<'i, 'a> {
    fn new(index: &'i SceneIndex<'a>, biped: &'i dyn BipedSampler, ticks_per_frame: i32) -> Self {
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); index.objects.len()];
        for o in index.objects.iter().filter(|o| o.is_node()) {
            if let Some(p) = o.node_parent().filter(|&p| p < children.len() && p != o.storage_index) {
                children[p].push(o.storage_index);
            }
        }
        let summary = AnimSummary { ticks_per_frame, ..Default::default() };
        let visited = vec![false; index.objects.len()];
        let biped_position_nodes = BipedRig::read(index)
            .map(|rig| {
                let first_links = [bone::L_ARM, bone::R_ARM, bone::SPINE, bone::TAIL];
                rig.slaves.iter().filter(|s| s.link == 0 && first_links.contains(&s.bone)).map(|s| s.node).collect()
            })
            .unwrap_or_default();
        Builder { index, children, biped, ticks_per_frame, tracks: Vec::new(), summary, visited, biped_position_nodes }
    }

    fn finish(mut self) -> AnimExport {
        self.summary.tracks = self.tracks.len();
        self.summary.keys = self.tracks.iter().map(|(_, t)| t.keys.len()).sum();
        for (_, t) in &self.tracks {
            *self.summary.by_class.entry(t.kind.class_name().into()).or_default() += 1;
        }
        AnimExport { animation: Animation::new(self.tracks), summary: self.summary }
    }

    fn name_of(&self, node: usize) -> String {
        self.index.objects[node].node_name().unwrap_or_default()
    }

    fn kids(&self, node: usize) -> Vec<usize> {
        self.children.get(node).cloned().unwrap_or_default()
    }

    /// Adds a track unless its name is taken.
    fn add(&mut self, name: String, track: Track) {
        if self.tracks.iter().any(|(n, _)| *n == name) {
            self.summary.name_collisions += 1;
        } else {
            self.tracks.push((name, track));
        }
    }

    fn unsupported(&mut self, track: String, node: usize, controller: Option<&SceneObject<'_>>, why: String) {
        let node = self.name_of(node);
        let (class, class_id) = controller.map_or(("?".into(), "(?, ?)".into()), |o| (class_name(o), class_id_text(o)));
        self.summary.unsupported.push(UnsupportedTrack { track, node, class, class_id, why });
    }

    /// `addAnimation` of a selected node.
    fn add_animation(&mut self, node: usize) {
        let o = &self.index.objects[node];
        let top = is_top_level(self.index, o);
        let base = if top { String::new() } else { format!("{}.", self.name_of(node)) };
        if self.is_biped_com(node) {
            self.biped_tracks(node, &base, true);
            return;
        }
        self.node_tracks(node, &base);
        for child in self.kids(node) {
            self.bone_tracks(child, &base);
        }
    }

    /// `addBoneTracks`: the node's tracks under `<base><node>.`, then its descendants'.
    fn bone_tracks(&mut self, node: usize, base: &str) {
        if std::mem::replace(&mut self.visited[node], true) {
            return;
        }
        // A Biped node reached from outside its COM (a Biped under another node, a scene
        // without `Bip01`) still takes the Biped path.
        if self.is_biped_node(node) {
            self.visited[node] = false;
            self.biped_tracks(node, base, false);
            return;
        }
        let prefix = format!("{base}{}.", self.name_of(node));
        self.node_tracks(node, &prefix);
        for child in self.kids(node) {
            self.bone_tracks(child, base);
        }
    }

    fn controller(&self, node: usize) -> Option<&'i SceneObject<'a>> {
        self.index.objects[node].reference(0).and_then(|c| self.index.get(c))
    }

    fn is_biped_com(&self, node: usize) -> bool {
        self.controller(node).is_some_and(|c| has_class(c, crate::classes::ids::BIPED_COM))
    }

    fn is_biped_node(&self, node: usize) -> bool {
        self.controller(node).is_some_and(|c| {
            has_class(c, crate::classes::ids::BIPED_COM) || has_class(c, crate::classes::ids::BIPED_PART)
        })
    }

    /// `addNodeTracks`: scale, rotquat, pos of a PRS node.
    fn node_tracks(&mut self, node: usize, prefix: &str) {
        let o = &self.index.objects[node];
        let refs = match controllers::transform_refs(self.index, o) {
            Ok(TransformRefs::Prs { position, rotation, scale }) => {
                [(Channel::Scale, scale), (Channel::Rotation, rotation), (Channel::Position, position)]
            }
            Ok(TransformRefs::LookAt { .. }) | Err(_) => {
                // A Look At, IK or constraint controller is no keyframer `buildATrack`
                // exports; whether it moves the node is not known here, so it is reported.
                let why = "transform controller is not a Position/Rotation/Scale (no keyframer track)".to_string();
                self.unsupported(format!("{prefix}*"), node, self.controller(node), why);
                return;
            }
        };
        for (channel, slot) in refs {
            let Some(c) = slot.and_then(|s| self.index.get(s)) else { continue };
            let name = format!("{prefix}{}", channel.value_name());
            match self.channel_track(node, c, channel) {
                Ok(Some(track)) => self.add(name, track),
                Ok(None) => {}
                Err(why) => self.unsupported(name, node, Some(c), why),
            }
        }
    }

    /// The track of one PRS channel: `None` when its controller holds no key.
    fn channel_track(&mut self, node: usize, c: &SceneObject<'_>, channel: Channel) -> Result<Option<Track>, String> {
        if has_class(c, BEZIER_SCALE) && channel == Channel::Scale {
            let keys = scale_keys(c).map_err(|e| e.to_string())?.unwrap_or_default();
            return Ok((!keys.is_empty()).then(|| bezier_scale_track(c, &keys)));
        }
        if has_class(c, POSITION_XYZ) || has_class(c, EULER_XYZ) || has_class(c, SCALE_XYZ) {
            let Some(span) = xyz_key_span(self.index, c)? else { return Ok(None) };
            let track = self.oversampled(span, channel, |tick| channel_at(self.index, node, channel, tick))?;
            *self.summary.oversampled.entry(format!("{} {}", class_name(c), class_id_text(c))).or_default() += 1;
            return Ok(Some(track));
        }
        let want = match channel {
            Channel::Position => Want::Vector,
            Channel::Scale => Want::Scale,
            Channel::Rotation => Want::Rotation,
        };
        if let Some(mut track) = native_track(c, want)? {
            if let Some((start, end)) = controller_range(c) {
                track.range_begin = start as f32 / TICKS_PER_SECOND as f32;
                track.range_end = end as f32 / TICKS_PER_SECOND as f32;
            }
            return Ok(Some(track));
        }
        match key_count(c) {
            Some((_, n)) if n > 0 => Err(format!("{n} keys in a key table NeL does not export for this slot")),
            _ => Ok(None),
        }
    }

    /// Samples `at` once per frame from `span.0` while ≤ `span.1` (no clamped last
    /// sample, §10c) into a Linear track.
    fn oversampled(
        &self,
        span: (i32, i32),
        channel: Channel,
        at: impl Fn(i32) -> Result<Sampled, String>,
    ) -> Result<Track, String> {
        let frames = (i64::from(span.1) - i64::from(span.0)) / i64::from(self.ticks_per_frame) + 1;
        if frames > MAX_OVERSAMPLED_KEYS {
            return Err(format!(
                "keys span {frames} frames (ticks {} to {}), over the {MAX_OVERSAMPLED_KEYS} samples a track is given",
                span.0, span.1
            ));
        }
        let mut keys = Vec::with_capacity(frames.max(0) as usize);
        let mut previous: Option<Quat> = None;
        let mut tick = span.0;
        while tick <= span.1 {
            let time = tick as f32 / TICKS_PER_SECOND as f32;
            let values = match at(tick)? {
                Sampled::Vector(v) => v.to_array().to_vec(),
                Sampled::Quat(q) => {
                    let q = match previous {
                        Some(p) if p.dot(q) < 0.0 => -q,
                        _ => q,
                    };
                    previous = Some(q);
                    q.to_array().to_vec()
                }
            };
            keys.push(Key { time, values, step: None });
            match tick.checked_add(self.ticks_per_frame) {
                Some(t) => tick = t,
                None => break,
            }
        }
        let kind = if channel == Channel::Rotation { KeyKind::LinearQuat } else { KeyKind::LinearVector };
        Ok(Track::over_keys(kind, keys))
    }

    /// `addBipedNodeTrack`: a Biped node's rotation (and, for the COM and the first links of
    /// the arms, spine and tail, position) tracks, then its children.
    fn biped_tracks(&mut self, node: usize, base: &str, root: bool) {
        if std::mem::replace(&mut self.visited[node], true) {
            return;
        }
        if !self.is_biped_node(node) {
            self.visited[node] = false;
            self.bone_tracks(node, base);
            return;
        }
        let prefix = if root { base.to_string() } else { format!("{base}{}.", self.name_of(node)) };
        let mut channels = vec![Channel::Rotation];
        if self.exports_biped_position(node) {
            channels.push(Channel::Position);
        }
        for channel in channels {
            let name = format!("{prefix}{}", channel.value_name());
            match self.biped.key_range() {
                Ok(None) => {}
                Ok(Some(span)) => {
                    let exact = std::cell::RefCell::new(Vec::new());
                    let sampled = self.oversampled(span, channel, |tick| {
                        let (local, is_exact) = self.biped.sample(node, tick)?;
                        exact.borrow_mut().push((tick, is_exact));
                        Ok(channel_of(&local, channel))
                    });
                    match sampled {
                        Ok(track) => {
                            self.note_guesses(node, &exact.into_inner());
                            self.add(name, track)
                        }
                        Err(why) => self.unsupported(name, node, self.controller(node), why),
                    }
                }
                Err(why) => self.unsupported(name, node, self.controller(node), why),
            }
        }
        for child in self.kids(node) {
            self.biped_tracks(child, base, false);
        }
    }

    /// Counts a written Biped track's samples and, when some are guesses, lists the node's
    /// exact ticks.
    fn note_guesses(&mut self, node: usize, samples: &[(i32, bool)]) {
        let guessed = samples.iter().filter(|(_, exact)| !exact).count();
        let Some(model) = self.biped.in_between_model() else { return };
        let name = self.name_of(node);
        let report = self
            .summary
            .inexact_in_betweens
            .get_or_insert_with(|| InexactInBetweens { model: model.into(), ..Default::default() });
        report.samples += samples.len();
        report.guessed += guessed;
        if guessed > 0 {
            let ticks = samples.iter().filter(|(_, exact)| *exact).map(|(t, _)| *t).collect();
            report.exact_ticks.insert(name, ticks);
        }
    }

    /// The COM and the first links of both arms, the spine and the tail
    /// (`mustExportBipedBonePos`).
    fn exports_biped_position(&self, node: usize) -> bool {
        self.is_biped_com(node) || self.biped_position_nodes.contains(&node)
    }
}

/// A sampled channel value.
enum Sampled {
    Vector(Vec3),
    Quat(Quat),
}

/// The channel of a local transform as NeL stores it.
fn channel_of(local: &LocalTransform, channel: Channel) -> Sampled {
    match channel {
        Channel::Position => Sampled::Vector(local.translation),
        Channel::Rotation => Sampled::Quat(local.nel_rotation()),
        Channel::Scale => Sampled::Vector(nel_scale(local.scale, local.scale_axis)),
    }
}

/// One channel of `node` at `tick`, through the controller of that channel only.
fn channel_at(index: &SceneIndex<'_>, node: usize, channel: Channel, tick: i32) -> Result<Sampled, String> {
    let o = &index.objects[node];
    let Ok(TransformRefs::Prs { position, rotation, scale }) = controllers::transform_refs(index, o) else {
        return Err("transform controller is not a Position/Rotation/Scale".into());
    };
    let tick = f64::from(tick);
    let local = match channel {
        Channel::Position => {
            let translation = keys::position_at(index, position, tick).map_err(|e| e.to_string())?;
            LocalTransform { translation, ..Default::default() }
        }
        Channel::Rotation => {
            let rotation = keys::rotation_at(index, rotation, tick).map_err(|e| e.to_string())?;
            LocalTransform { rotation: rotation.normalize(), ..Default::default() }
        }
        Channel::Scale => {
            let (scale, scale_axis) = keys::scale_at(index, scale, tick).map_err(|e| e.to_string())?;
            LocalTransform { scale, scale_axis: scale_axis.normalize(), ..Default::default() }
        }
    };
    Ok(channel_of(&local, channel))
}

/// The span of the Bezier Float keys under a Position/Euler/Scale XYZ controller; `Err` when
/// a sub-controller holds keys of another kind.
fn xyz_key_span(index: &SceneIndex<'_>, c: &SceneObject<'_>) -> Result<Option<(i32, i32)>, String> {
    let mut span: Option<(i32, i32)> = None;
    for sub in (0..3).filter_map(|s| c.reference(s)).filter_map(|r| index.get(r)) {
        let times: Vec<i32> = match float_keys(sub).map_err(|e| e.to_string())? {
            Some(keys) => keys.iter().map(|k| k.time).collect(),
            None => match key_count(sub) {
                Some((_, n)) if n > 0 => {
                    return Err(format!(
                        "sub-controller {} {} holds {n} keys pmcore does not decode",
                        class_name(sub),
                        class_id_text(sub)
                    ))
                }
                _ => continue,
            },
        };
        for t in times {
            span = Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        }
    }
    Ok(span)
}

/// A Bezier Scale's keys as a `CTrackKeyFramerBezierVector` (tangents unscaled).
fn bezier_scale_track(c: &SceneObject<'_>, keys: &[ScaleKey]) -> Track {
    let nel_keys = keys
        .iter()
        .map(|k| {
            let value = nel_scale(k.scale, k.axis);
            let values = [value.to_array(), k.in_tangent.to_array(), k.out_tangent.to_array()].concat();
            let step = u8::from((k.flags >> 10) & 7 == 2);
            Key { time: k.time as f32 / TICKS_PER_SECOND as f32, values, step: Some(step) }
        })
        .collect();
    let mut track = Track::over_keys(KeyKind::BezierVector, nel_keys);
    if let Some((start, end)) = controller_range(c) {
        track.range_begin = start as f32 / TICKS_PER_SECOND as f32;
        track.range_end = end as f32 / TICKS_PER_SECOND as f32;
    }
    track
}

/// The controller's 0x3003 interval, `None` when absent or NEVER/FOREVER.
fn controller_range(c: &SceneObject<'_>) -> Option<(i32, i32)> {
    let p = c.chunk.child(RANGE_CHUNK)?.payload()?;
    let start = i32::from_le_bytes(p.get(0..4)?.try_into().ok()?);
    let end = i32::from_le_bytes(p.get(4..8)?.try_into().ok()?);
    let never_or_forever = start == NEG_INFINITY && (end == POS_INFINITY || end == NEG_INFINITY);
    (!never_or_forever).then_some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_scale_axis_keeps_the_scale_bit_exact() {
        let s = Vec3::new(0.1, 2.5, 3.0);
        assert_eq!(nel_scale(s, Quat::IDENTITY), s);
    }

    #[test]
    fn a_turned_scale_axis_moves_the_scale_between_the_diagonal_terms() {
        // A quarter turn about z swaps the x and y scale factors.
        let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let v = nel_scale(Vec3::new(2.0, 3.0, 4.0), q);
        assert!((v - Vec3::new(3.0, 2.0, 4.0)).abs().max_element() < 1e-5, "{v}");
    }

    #[test]
    fn oversampling_is_one_key_per_frame_and_a_huge_span_is_refused() {
        let index = SceneIndex::of_objects(0x2008, &[], []);
        let biped = CountedBipedKeys(Ok(0));
        let b = Builder::new(&index, &biped, 160);
        let still = |_| Ok(Sampled::Vector(Vec3::ONE));
        let t = b.oversampled((-160, 400), Channel::Position, still).unwrap();
        let times: Vec<f32> = t.keys.iter().map(|k| k.time).collect();
        // No clamped last sample: 400 is not a frame after −160.
        assert_eq!(times, [-160.0 / 4800.0, 0.0, 160.0 / 4800.0, 320.0 / 4800.0]);
        assert_eq!((t.range_begin, t.range_end), (times[0], times[3]));
        assert!(b.oversampled((i32::MIN, i32::MAX), Channel::Position, still).unwrap_err().contains("frames"));
    }

    #[test]
    fn a_biped_with_keys_is_reported_and_one_without_has_no_span() {
        assert_eq!(CountedBipedKeys(Ok(0)).key_range(), Ok(None));
        assert!(CountedBipedKeys(Ok(12)).key_range().unwrap_err().contains("12 Biped"));
        assert!(CountedBipedKeys(Ok(12)).local_at(0, 0).is_err());
    }
}
