//! Scene → NeL skeleton for a Biped rig rooted at its COM (`Bip01`, or `Bip02` … when the file
//! has no `Bip01`: `super::rig`), following
//! `CExportNel::buildSkeleton` (nel_mesh_lib `export_skinning.cpp`, design §10):
//!
//! * Bones: every node of the `Bip01` subtree, depth-first pre-order, children in scene order
//!   — nubs, `Footsteps` and non-Biped children included (the exporter filters nothing: the
//!   real Ryzom `.skel` files hold `Bip01 Footsteps` as bone 1 and the nubs, renamed
//!   `Dummy05` …); a repeated name gets `_Second`.
//! * World (bind) matrix: `GetNodeTM` in figure mode, here the figure-mode placement of
//!   [`crate::eval::biped`] in Max axes; InvBindPos is its inverse.
//! * Default tracks: the local matrix `father world⁻¹ · world` — DefaultPos its translation
//!   (divided by the father's NeL scale, 1 for a Biped bone), DefaultRotQuat its rotation
//!   as NeL writes it (negated right-handed quaternion, as [`super::rig`]), DefaultScale 1
//!   (a Biped node's scale without a `_ref_scale` reference node); the root is reset (pos 0,
//!   identity rotation).
//! * UnheritScale: true when the father is a Biped node (COM or BipSlave); the COM root
//!   itself is true on every real Biped `.skel` (its controller reports scale not inherited).
//!
//! A bone pmcore cannot place (tails and their nubs, ponytails, props: [`UnplacedBone`]) is
//! never given a value: the skeleton is [`BipedSkeleton::complete`] only when every bone
//! is placed, and the worker writes nothing otherwise. The structure (names, fathers,
//! UnheritScale) and the placed bones stay available to T3, with the Link Constraint helpers
//! that follow the bones ([`super::biped_helper_links`]: T3's reference on rigs whose FBX binds
//! the helpers, not the bones).

use super::rig_tree::{pre_order, set_lod_distance, RigSummary};
use super::skel::{Bone, NelMatrix, Skeleton};
use crate::eval::biped::{to_max_axes, FigurePose};
use crate::model::biped::BipedRig;
use crate::model::scene_index::SceneIndex;
use glam::{DMat3, DMat4, DQuat, DVec3};

/// Class ID of the Biped system object, named in every unplaced-bone message (the class
/// whose figure pmcore does not fully evaluate).
pub const BIPED_SYSTEM_CLASS: [u32; 2] = [0x9155, 0];

/// A bone of the exported set that pmcore cannot place, and why.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct UnplacedBone {
    /// Bone index in the skeleton.
    pub index: usize,
    /// Bone name.
    pub name: String,
    /// Biped (bone id, link) from 0x0200, for a Biped-driven node.
    pub slot: Option<(i32, i32)>,
    /// Why it has no bind matrix.
    pub reason: String,
}

/// A Biped rig's skeleton: complete, or with the bones that could not be placed named.
#[derive(Clone, Debug, PartialEq)]
pub struct BipedSkeleton {
    /// Every bone of the exported set; an unplaced bone keeps NeL's constructor defaults in
    /// the fields pmcore could not compute (read only through [`Self::structure`]).
    skeleton: Skeleton,
    /// Per bone: its world (bind) matrix is placed, so its InvBindPos is meaningful.
    pub placed: Vec<bool>,
    /// Per bone: the `f32` spread of its placed rotation (`FigurePose::rotation_spread`: only
    /// xtras near gimbal lock have one), which a comparison adds to its rotation tolerance.
    pub rotation_spread: Vec<f64>,
    /// The bones without a placement (or whose father has none: no default tracks).
    pub unplaced: Vec<UnplacedBone>,
    /// Counts for the export summary.
    pub summary: RigSummary,
    /// Helpers outside the skeleton Link-Constrained to its bones, with their offsets
    /// ([`super::biped_helper_links`]): T3's part (d) reference for rigs whose FBX binds them.
    pub helper_links: Vec<super::biped_helper_links::HelperLink>,
    /// Such helpers whose offset was not read (keyed, or an unreadable controller), with why.
    pub helper_links_refused: Vec<String>,
}

impl BipedSkeleton {
    /// The skeleton, when every bone is placed: the only form that may be written.
    pub fn complete(&self) -> Option<&Skeleton> {
        self.unplaced.is_empty().then_some(&self.skeleton)
    }

    /// Names, fathers, UnheritScale and the placed bones' values, for T3 (never written:
    /// [`Self::placed`] says which InvBindPos are real).
    pub fn structure(&self) -> &Skeleton {
        &self.skeleton
    }

    /// One line naming the unplaced bones by reason, with the Biped class.
    pub fn unplaced_message(&self) -> String {
        let mut by_reason: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
        for u in &self.unplaced {
            by_reason.entry(u.reason.as_str()).or_default().push(u.name.as_str());
        }
        let groups: Vec<String> = by_reason
            .iter()
            .map(|(why, names)| {
                let shown: Vec<&str> = names.iter().take(3).copied().collect();
                let more = names.len().saturating_sub(shown.len());
                let tail = if more > 0 { format!(" and {more} more") } else { String::new() };
                format!("{} ({}{tail}): {why}", names.len(), shown.join(", "))
            })
            .collect();
        format!(
            "{} of {} bones not placed under Biped (0x{:x}, 0x{:x}): {}",
            self.unplaced.len(),
            self.placed.len(),
            BIPED_SYSTEM_CLASS[0],
            BIPED_SYSTEM_CLASS[1],
            groups.join("; ")
        )
    }
}

/// Where a node's world matrix comes from.
fn placement(
    index: &SceneIndex<'_>,
    rig: &BipedRig,
    pose: &FigurePose<'_>,
    node: usize,
) -> (Option<(i32, i32)>, Result<DMat4, String>) {
    let slot = rig.bone_of(node);
    let Some((id, link)) = slot else {
        let controller = index.objects[node].reference(0).and_then(|c| index.get(c)).and_then(|c| c.class.as_ref());
        let class = controller.map(|c| format!("0x{:x}, 0x{:x}", c.class_id[0], c.class_id[1]));
        let why = format!(
            "not driven by the Biped (controller {}): its world under a Biped parent is not evaluated",
            class.unwrap_or_else(|| "none".into())
        );
        return (None, Err(why));
    };
    let world = pose.bone(id, link).world().map(to_max_axes).map_err(|e| e.to_string());
    // A figure record of NaNs or a degenerate frame places nothing that could be inverted.
    let usable = |w: DMat4| w.is_finite() && w.determinant().abs() > f64::from(f32::MIN_POSITIVE);
    (
        slot,
        world
            .and_then(|w| if usable(w) { Ok(w) } else { Err("the figure placement is not finite or singular".into()) }),
    )
}

/// The local tracks of a placed bone under a placed father: (pos, NeL quaternion).
fn local_tracks(father: &DMat4, world: &DMat4) -> ([f32; 3], [f32; 4]) {
    let local = father.inverse() * *world;
    let q = DQuat::from_mat3(&DMat3::from_mat4(local)).normalize();
    let pos: DVec3 = local.w_axis.truncate();
    (pos.as_vec3().to_array(), (-q).as_quat().to_array())
}

/// Builds the skeleton of the Biped rig rooted at node `root`.
pub(crate) fn build(index: &SceneIndex<'_>, rig: &BipedRig, root: usize) -> BipedSkeleton {
    let pose = FigurePose::new(&rig.system);
    let biped_node = |n: usize| rig.bone_of(n).is_some();
    let order = pre_order(index, root);
    let mut summary = RigSummary::default();
    let (mut bones, mut worlds, mut unplaced) = (Vec::<Bone>::new(), Vec::<Option<DMat4>>::new(), Vec::new());
    let mut rotation_spread = Vec::with_capacity(order.len());
    for (i, &(node, father)) in order.iter().enumerate() {
        let raw = index.objects[node].node_name().unwrap_or_default();
        let name = if bones.iter().any(|b| b.name == raw) {
            summary.renamed_duplicates += 1;
            format!("{raw}_Second")
        } else {
            raw
        };
        let (slot, world) = placement(index, rig, &pose, node);
        rotation_spread.push(slot.map_or(0.0, |(id, link)| pose.rotation_spread(id, link)));
        let mut bone = Bone::new(name.clone());
        bone.father_id = father;
        bone.unherit_scale = father < 0 || biped_node(order[father as usize].0);
        let mut missing = world.as_ref().err().cloned();
        if let Ok(w) = &world {
            bone.inv_bind_pos = NelMatrix::from_affine(w.inverse().as_mat4());
            match usize::try_from(father).ok().map(|f| worlds[f]) {
                None => {}
                Some(Some(fw)) => (bone.default_pos, bone.default_rot_quat) = local_tracks(&fw, w),
                Some(None) => missing = Some("its father is not placed: no default position or rotation".into()),
            }
        }
        set_lod_distance(&mut bone, &index.objects[node], &mut summary);
        if let Some(reason) = missing {
            unplaced.push(UnplacedBone { index: i, name, slot, reason });
        }
        worlds.push(world.ok());
        bones.push(bone);
    }
    summary.bones = bones.len();
    let skeleton = Skeleton::build(bones);
    summary.lods = skeleton.lods.len();
    let placed = worlds.iter().map(Option::is_some).collect();
    let nodes: Vec<usize> = order.iter().map(|&(node, _)| node).collect();
    let (helper_links, helper_links_refused) = super::biped_helper_links::helper_links(index, &nodes);
    BipedSkeleton { skeleton, placed, rotation_spread, unplaced, summary, helper_links, helper_links_refused }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_tracks_are_the_father_relative_translation_and_the_negated_rotation() {
        let father = DMat4::from_rotation_z(std::f64::consts::FRAC_PI_2) * DMat4::from_translation(DVec3::X);
        let world = father * DMat4::from_translation(DVec3::new(2.0, 0.0, 0.0));
        let (pos, quat) = local_tracks(&father, &world);
        assert!((glam::Vec3::from(pos) - glam::Vec3::new(2.0, 0.0, 0.0)).length() < 1e-6);
        // Identity local rotation, written negated as NeL's exporter does.
        assert!((glam::Vec4::from(quat) - glam::Vec4::new(0.0, 0.0, 0.0, -1.0)).length() < 1e-6);
    }

    #[test]
    fn the_message_names_the_biped_class_and_groups_bones_by_reason() {
        let s = BipedSkeleton {
            skeleton: Skeleton::build(vec![Bone::new("Bip01")]),
            placed: vec![true, false, false],
            rotation_spread: vec![0.0; 3],
            unplaced: ["Bip01 REye", "Bip01 LEye"]
                .iter()
                .enumerate()
                .map(|(i, n)| UnplacedBone { index: i + 1, name: n.to_string(), slot: None, reason: "xtra".into() })
                .collect(),
            summary: RigSummary::default(),
            helper_links: vec![],
            helper_links_refused: vec![],
        };
        let m = s.unplaced_message();
        assert!(
            m.starts_with("2 of 3 bones not placed under Biped (0x9155, 0x0): 2 (Bip01 REye, Bip01 LEye): xtra"),
            "{m}"
        );
        assert!(s.complete().is_none());
    }
}
