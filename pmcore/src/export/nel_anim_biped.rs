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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{parse_stream, Chunk};
    use crate::model::biped::{BipedSystem, ObjectAt, SlaveNode};

    /// The fuzz seed of `eval::biped_keys`: keyed COM (ticks 0, 1600), pelvis (0, 800), right
    /// leg (0, 960) and spine (0, 1600).
    const SEED: &[u8] = include_bytes!("../../../fuzz/regressions/biped_keytracks/hand_made_keyed_legs");

    /// Node 1 the COM under the scene root, node 2 the pelvis under it, node 3 a left hand.
    fn sampler() -> KeyedBipedSampler {
        let object = Chunk::container(0x0014, parse_stream("test", SEED).unwrap());
        let system = BipedSystem::decode(&object, ObjectAt { root_id: 0x2017, storage_index: 1 }).unwrap();
        let slave = |node, bone, link| SlaveNode { node, name: format!("#{node}"), bone, link };
        let rig = BipedRig {
            system,
            com_node: Some((1, "Bip01".into())),
            footsteps_node: None,
            slaves: vec![slave(2, bone::PELVIS, 0), slave(3, bone::L_ARM, 3)],
        };
        KeyedBipedSampler { rig, parents: vec![None, None, Some(1), Some(2)] }
    }

    #[test]
    fn key_times_are_exact_between_them_the_sample_is_marked_guessed() {
        let s = sampler();
        assert_eq!(s.key_range(), Ok(Some((0, 1600))));
        let (at_key, exact) = s.sample(1, 1600).unwrap();
        assert!(exact);
        // COM at its last key: Max (x, −z↑, height) of the stored (10, 55, 5), Y-up.
        assert!((at_key.translation - glam::Vec3::new(10.0, -5.0, 55.0)).length() < 1e-4, "{at_key:?}");
        let (_, exact) = s.sample(1, 800).unwrap();
        assert!(!exact, "the COM between its keys at 0 and 1600 is a guess");
        // The pelvis at 800 is its own key, but its parent (the COM) is guessed there.
        assert!(!s.sample(2, 800).unwrap().1);
        assert!(s.sample(2, 0).unwrap().1);
    }

    #[test]
    fn a_bone_keyed_bone_does_not_place_is_refused_with_its_reason() {
        let e = sampler().sample(3, 0).unwrap_err();
        assert!(e.contains("(0, 3)"), "{e}");
        assert!(sampler().sample(7, 0).unwrap_err().contains("no Biped bone"));
    }
}
