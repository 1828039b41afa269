//! The keyed Biped sampler of the `.anim` exporter ([`super::nel_anim::BipedSampler`]) over
//! pmcore's keytrack evaluator ([`crate::eval::biped_keys::keyed_bone`]).
//!
//! NeL's exporter oversamples every Biped node once per frame over the union of the limbs'
//! key spans (design §10c), so most samples fall between two keys. pmcore's keyed pose is
//! exact at key times (and outside a track's keys, where its end key holds) but its TCB
//! in-between model is measured inexact against Max (player: 1,507 of 7,992 poses off,
//! docs/exporters.md "After issue 40 point 2"). So every sample is first made with
//! [`InBetween::Refuse`]; where that refuses (a sample between two keys of a track the bone
//! hangs from, or its parent's) the value is written from [`InBetween::Tcb`] and the sample
//! is marked **guessed** — the exporter's summary lists, per node, the ticks that are exact,
//! and the `nel-anim/values` comparison compares only there.
//!
//! A node's local is its placed world (`keyed_bone`, Y-up, put in Max axes) relative to its
//! parent's: a Biped parent's placed world, identity under the scene root; any other parent
//! (a Biped under a non-Biped node) is refused. Bones `keyed_bone` does not place (hands,
//! fingers, toes, tails, xtras, nubs) are refused with its reason; the exporter reports their
//! tracks with the controller's Class ID.

use super::nel_anim::{export_with, AnimError, AnimExport, BipedSampler};
use crate::eval::biped::to_max_axes;
use crate::eval::biped_keys::{keyed_bone, InBetween, KeyedError};
use crate::model::biped::keytracks::Track;
use crate::model::biped::{bone, BipedRig};
use crate::model::controllers::LocalTransform;
use crate::model::scene_index::{SceneIndex, SceneTrees};
use crate::MaxFile;
use glam::DMat4;

/// Bone ids of the ponytails (Character Studio's `BID_PONY1`, `BID_PONY2`; design §10c).
const PONY1: i32 = 17;
const PONY2: i32 = 18;

/// What the in-between samples are written from, as the summary names it.
pub const IN_BETWEEN_MODEL: &str =
    "TCB per stored channel (pmcore::eval::biped_tcb), not exact against Max between keys";

/// A keyed Biped evaluated by `keyed_bone`, with each sample marked exact or guessed.
pub struct KeyedBipedSampler {
    rig: BipedRig,
    /// Each node's parent storage index (`None`: none or the scene root).
    parents: Vec<Option<usize>>,
}

impl KeyedBipedSampler {
    /// The sampler of the scene's Biped; `None` when the scene holds no Biped with keys.
    pub fn of(index: &SceneIndex<'_>) -> Option<Self> {
        let rig = BipedRig::read(index).ok()?;
        if rig.system.keys == 0 {
            return None;
        }
        let parents = index
            .objects
            .iter()
            .map(|o| {
                o.node_parent()
                    .filter(|&p| p != o.storage_index)
                    .filter(|&p| index.get(p).is_some_and(|q| q.is_node() && q.reference(0).is_some()))
            })
            .collect();
        Some(KeyedBipedSampler { rig, parents })
    }

    /// Whether the rig has a bone the keytrack `track` drives (a track without one does not
    /// widen the span, §10c).
    fn drives_a_bone(&self, track: Track) -> bool {
        let id = match track {
            Track::Horizontal | Track::Vertical | Track::Turn => return false,
            Track::Tail => bone::TAIL,
            Track::Pony1 => PONY1,
            Track::Pony2 => PONY2,
            _ => return true,
        };
        self.rig.slaves.iter().any(|s| s.bone == id)
    }

    /// Node `node`'s world in Max axes at `tick`.
    fn world(&self, node: usize, tick: i32, in_between: InBetween) -> Result<DMat4, Why> {
        let Some(bone) = self.rig.bone_of(node) else {
            return Err(Why::Other(format!("node #{node} is no Biped bone")));
        };
        match keyed_bone(&self.rig.system, f64::from(tick), bone, in_between) {
            Ok(pose) => pose.world().map(to_max_axes).map_err(|e| Why::Other(format!("bone {bone:?}: {e}"))),
            Err(e @ KeyedError::Between { .. }) => Err(Why::Between(e.to_string())),
            Err(e) => Err(Why::Other(e.to_string())),
        }
    }

    /// The local of `node` (relative to its parent) at `tick`.
    fn local(&self, node: usize, tick: i32, in_between: InBetween) -> Result<DMat4, Why> {
        let world = self.world(node, tick, in_between)?;
        let parent = match self.parents.get(node).copied().flatten() {
            None => DMat4::IDENTITY,
            Some(p) if self.rig.bone_of(p).is_some() => self.world(p, tick, in_between)?,
            Some(p) => return Err(Why::Other(format!("parent node #{p} is neither a Biped bone nor the scene root"))),
        };
        Ok(parent.inverse() * world)
    }
}

/// Why a sample was not made.
enum Why {
    /// Between two keys (only with [`InBetween::Refuse`]).
    Between(String),
    Other(String),
}

impl BipedSampler for KeyedBipedSampler {
    fn key_range(&self) -> Result<Option<(i32, i32)>, String> {
        let tracks = self.rig.system.keytracks.as_ref().map_err(|e| e.to_string())?;
        let ticks = tracks.tracks.iter().filter(|t| self.drives_a_bone(t.track)).flat_map(|t| &t.times).map(|k| k.tick);
        Ok(ticks.fold(None, |span, t| Some(span.map_or((t, t), |(a, b): (i32, i32)| (a.min(t), b.max(t))))))
    }

    fn local_at(&self, node: usize, tick: i32) -> Result<LocalTransform, String> {
        self.sample(node, tick).map(|(local, _)| local)
    }

    fn sample(&self, node: usize, tick: i32) -> Result<(LocalTransform, bool), String> {
        let (local, exact) = match self.local(node, tick, InBetween::Refuse) {
            Ok(m) => (m, true),
            Err(Why::Between(_)) => match self.local(node, tick, InBetween::Tcb) {
                Ok(m) => (m, false),
                Err(Why::Between(why) | Why::Other(why)) => return Err(why),
            },
            Err(Why::Other(why)) => return Err(why),
        };
        let (scale, rotation, translation) = local.to_scale_rotation_translation();
        let local = LocalTransform {
            translation: translation.as_vec3(),
            rotation: rotation.as_quat().normalize(),
            scale: scale.as_vec3(),
            ..Default::default()
        };
        Ok((local, exact))
    }

    fn in_between_model(&self) -> Option<&'static str> {
        Some(IN_BETWEEN_MODEL)
    }
}

/// Exports the animation of `file` with its keyed Biped (if any) sampled by
/// [`KeyedBipedSampler`]; a scene without one exports as [`super::nel_anim::export`].
pub fn export(file: &MaxFile) -> Result<AnimExport, AnimError> {
    let trees = SceneTrees::of(file).ok_or(AnimError::NoScene)?;
    let index = trees.index().ok_or(AnimError::NoRoot)?;
    match KeyedBipedSampler::of(&index) {
        Some(sampler) => export_with(file, Some(&sampler)),
        None => export_with(file, None),
    }
}
