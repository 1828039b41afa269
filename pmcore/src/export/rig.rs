//! Scene → [`Skeleton`] for non-biped rigs rooted at `Bip01` (design §10 "Pilot done",
//! digest §7.1 "How the exporter fills each field"), from controller default values.
//!
//! * Bones: depth-first pre-order from `Bip01`, children in scene order; a repeated name
//!   gets the suffix `_Second`.
//! * Local transform from the PRS defaults; DefaultRotQuat is the Max quaternion with `w`
//!   negated; world matrices accumulate parent · local (`glam`, `f32` like Max).
//! * Root reset: bone 0 gets DefaultPos 0 and an identity DefaultRotQuat, keeping its scale.
//! * UnheritScale: the biped rules (parent is a biped node; the COM node) never apply on a
//!   non-biped rig, and Max's inherit-flag bits are not decoded, so it is `false` — the
//!   value Max's default "inherit everything" gives.
//! * LodDisableDistance from the node's AppData (MAXScript utility class, SubId
//!   1423062615), a text float as MAXScript's `setAppData` stores it.
//! * InvBindPos = inverse of the world matrix.
//!
//! Files with a Biped system whose COM is `Bip01` go to [`super::biped_rig`] (figure-mode
//! placement); a Biped file without a `Bip01` is rooted at its single Biped system's COM
//! (`Bip02` …, [`biped_root`]); other files without a `Bip01` node report `not-applicable`.

pub use super::rig_tree::RigSummary;
use super::rig_tree::{pre_order, set_lod_distance};
use super::skel::{Bone, NelMatrix, Skeleton};
use crate::model::controllers::{local_transform, world_matrix, ControllerError};
use crate::model::scene_index::{SceneIndex, SceneObject, SceneTrees};
use crate::MaxFile;
use glam::Mat4;

/// Name of the root node the build pipeline exports from.
pub(crate) const ROOT_NAME: &str = "Bip01";
/// ClassIds (part A, part B = 0) of the biped classes: system, COM controller, bone
/// controller, per-part object.
pub(crate) const BIPED_CLASSES: [u32; 4] = [0x9155, 0x9156, 0x9154, 0x9125];

/// Why the rig could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RigError {
    /// A bone's controller could not be read.
    #[error("bone {bone:?}: {source}")]
    Controller {
        /// Bone (node) name.
        bone: String,
        /// The controller error.
        source: ControllerError,
    },
    /// The world matrix is not invertible.
    #[error("bone {bone:?}: world matrix is singular")]
    Singular {
        /// Bone name.
        bone: String,
    },
}

impl RigError {
    /// Storage index of the Scene object the error is about, when there is one.
    pub fn object(&self) -> Option<usize> {
        match self {
            RigError::Controller { source, .. } => Some(source.object()),
            RigError::Singular { .. } => None,
        }
    }
}

/// What the skel exporter decided for a file.
#[derive(Clone, Debug, PartialEq)]
pub enum RigOutcome {
    /// A skeleton was built.
    Built {
        /// The skeleton.
        skeleton: Skeleton,
        /// Counts for the export summary.
        summary: RigSummary,
    },
    /// No `Bip01` rig in the file.
    NotApplicable(String),
    /// A biped rig that cannot be built (its system does not decode, or its `Bip01` is not
    /// the Biped's COM).
    NotImplemented(String),
    /// A Biped rig: complete, or with its unplaced bones named.
    Biped(Box<super::biped_rig::BipedSkeleton>),
}

/// Decides and, for a non-biped `Bip01` rig, builds the skeleton of `file`.
pub fn export(file: &MaxFile) -> Result<RigOutcome, RigError> {
    let Some(trees) = SceneTrees::of(file) else {
        return Ok(RigOutcome::NotApplicable("no Scene chunk tree".into()));
    };
    let Some(index) = trees.index() else {
        return Ok(RigOutcome::NotApplicable("Scene has no root container".into()));
    };
    if index.objects.iter().any(|o| o.class.as_ref().is_some_and(|c| is_biped_class(c.class_id))) {
        let rig = match crate::model::biped::BipedRig::read(&index) {
            Ok(rig) => rig,
            Err(e) => return Ok(RigOutcome::NotImplemented(format!("Biped (0x9155, 0x0) not decoded: {e}"))),
        };
        let root = match biped_root(&index, &rig) {
            Ok(root) => root,
            Err(outcome) => return Ok(*outcome),
        };
        return Ok(RigOutcome::Biped(Box::new(super::biped_rig::build(&index, &rig, root))));
    }
    let Some(root) = index.node_by_name(ROOT_NAME) else {
        return Ok(RigOutcome::NotApplicable(format!("no node named {ROOT_NAME}")));
    };
    let (skeleton, summary) = build(&index, root)?;
    Ok(RigOutcome::Built { skeleton, summary })
}

/// The root of a Biped rig's skeleton (storage index). `Bip01` when the file has one: the
/// Ryzom skel process's choice, and it must be the Biped's COM. Without a `Bip01`, the COM
/// of the file's single Biped system, whatever its name (`Bip02`): NeL's own
/// `CNelExport::exportSkeleton` builds the skeleton of whichever node it is given
/// (`buildSkeletonShape(*pNode)`), the name is only the process script's pick, and a Biped's
/// COM is the one node whose subtree is the whole rig. Two systems without a `Bip01` leave no
/// single root: `not-applicable`.
fn biped_root(index: &SceneIndex<'_>, rig: &crate::model::biped::BipedRig) -> Result<usize, Box<RigOutcome>> {
    let com = rig.com_node.as_ref().map(|(n, _)| *n);
    if let Some(root) = index.node_by_name(ROOT_NAME) {
        return match com {
            Some(c) if c == root.storage_index => Ok(c),
            _ => Err(Box::new(RigOutcome::NotImplemented(format!(
                "{ROOT_NAME} is not the COM of the Biped (0x9155, 0x0): no figure placement for its root"
            )))),
        };
    }
    let systems = index
        .objects
        .iter()
        .filter(|o| o.class.as_ref().is_some_and(|c| c.class_id == super::biped_rig::BIPED_SYSTEM_CLASS))
        .count();
    match com {
        Some(c) if systems == 1 => Ok(c),
        _ => Err(Box::new(RigOutcome::NotApplicable(format!(
            "no node named {ROOT_NAME} and no single Biped (0x9155, 0x0) COM ({systems} systems)"
        )))),
    }
}

/// True for the four biped ClassIds.
pub(crate) fn is_biped_class(id: [u32; 2]) -> bool {
    id[1] == 0 && BIPED_CLASSES.contains(&id[0])
}

/// Builds the skeleton rooted at `root`.
pub(crate) fn build(index: &SceneIndex<'_>, root: &SceneObject<'_>) -> Result<(Skeleton, RigSummary), RigError> {
    let mut summary = RigSummary::default();
    let mut bones: Vec<Bone> = Vec::new();
    let mut worlds: Vec<Mat4> = Vec::new();
    for (node_index, father) in pre_order(index, root.storage_index) {
        let node = &index.objects[node_index];
        let raw_name = node.node_name().unwrap_or_default();
        let name = if bones.iter().any(|b| b.name == raw_name) {
            summary.renamed_duplicates += 1;
            format!("{raw_name}_Second")
        } else {
            raw_name.clone()
        };
        let controller = |source| RigError::Controller { bone: raw_name.clone(), source };
        let local = local_transform(index, node).map_err(controller)?;
        let world = if father < 0 {
            world_matrix(index, node).map_err(controller)?
        } else {
            worlds[father as usize] * local.matrix()
        };
        if world.determinant().abs() < f32::MIN_POSITIVE {
            return Err(RigError::Singular { bone: raw_name });
        }
        let mut bone = Bone::new(name);
        bone.father_id = father;
        bone.unherit_scale = false;
        bone.default_scale = local.scale.to_array();
        if father >= 0 {
            bone.default_pos = local.translation.to_array();
            bone.default_rot_quat = local.nel_rotation().to_array();
        }
        bone.inv_bind_pos = NelMatrix::from_affine(world.inverse());
        set_lod_distance(&mut bone, node, &mut summary);
        bones.push(bone);
        worlds.push(world);
    }
    summary.bones = bones.len();
    let skeleton = Skeleton::build(bones);
    summary.lods = skeleton.lods.len();
    Ok((skeleton, summary))
}
