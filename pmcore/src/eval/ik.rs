//! IK chains: what an IK Chain (IKChainControl 0x78724378:0x008a4fd9) and the IK
//! Controller of each bone (IKControl 0x0e6f5815:0x717f99a4) store, read by Class ID.
//!
//! Layouts measured on `wild/tae8838__green@idle.max` (Max 2013, four HI-solver chains):
//! * IKChainControl references: 0 its ParamBlock2, 1 the goal's Position/Rotation/Scale
//!   (the chain node's own transform), 2 the end joint node, 3 the enable Boolean
//!   controller, 4 the start joint node, 5 a NodeMonitor of the chain node. Block
//!   parameters: 0 start joint, 1 end joint (nodes), 2 solver name (`IKHISolver`), 3 auto
//!   enable, 4 swivel angle (radians), 5 / 6 position / rotation thresholds, 7 iterations,
//!   0x13 swivel-angle parent space, the rest display settings.
//! * IKControl references: 0 its ParamBlock2, 1 the FK sub-controller (a
//!   Position/Rotation/Scale: the bone's local transform as keyed), 4 a NodeMonitor of the
//!   bone. Block parameters 0x24–0x26: preferred position, 0x27–0x29: preferred rotation
//!   (Euler XYZ, radians) — the pose the chain's zero plane is taken from.

use crate::eval::params::{ParamError, Params};
use crate::model::controllers::{self, class_name, has_class, ControllerError, LocalTransform};
use crate::model::keys;
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::{Quat, Vec3};

pub(crate) use crate::classes::ids::{IK_CHAIN_CONTROL, IK_CONTROL};

/// IKChainControl reference slots.
const CHAIN_BLOCK: usize = 0;
const CHAIN_GOAL: usize = 1;
const CHAIN_END_JOINT: usize = 2;
const CHAIN_START_JOINT: usize = 4;
/// IKChainControl block parameters.
const CHAIN_SOLVER_NAME: u16 = 2;
const CHAIN_SWIVEL: u16 = 4;
const CHAIN_SWIVEL_PARENT: u16 = 0x13;
/// IKControl reference slots and block parameters.
const BONE_BLOCK: usize = 0;
const BONE_FK: usize = 1;
const BONE_PREFERRED_POSITION: u16 = 0x24;
const BONE_PREFERRED_ROTATION: u16 = 0x27;

/// Why an IK chain cannot be evaluated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum IkError {
    /// A reference the chain or bone needs is missing.
    #[error("object #{object} ({class}): {what} is missing")]
    Missing {
        /// The IK controller's storage index.
        object: usize,
        /// Its class name.
        class: String,
        /// What is missing.
        what: &'static str,
    },
    /// A parameter is missing or animated by a controller not read.
    #[error("object #{object} ({class}): {source}")]
    Param {
        /// The IK controller's storage index.
        object: usize,
        /// Its class name.
        class: String,
        /// The parameter error.
        source: ParamError,
    },
    /// A controller below the chain cannot be sampled.
    #[error(transparent)]
    Controller(#[from] ControllerError),
    /// A chain shape this solver does not model (solver, bone count, swivel space).
    #[error("object #{object} ({class}): {what}")]
    Unsupported {
        /// The IK controller's storage index.
        object: usize,
        /// Its class name.
        class: String,
        /// What is not modelled.
        what: String,
    },
    /// A value that is not finite or a degenerate chain (zero-length bone).
    #[error("object #{object} ({class}): {what}")]
    Degenerate {
        /// The IK controller's storage index.
        object: usize,
        /// Its class name.
        class: String,
        /// What was degenerate.
        what: String,
    },
}

/// One bone of a chain as its IK Controller stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct IkBone {
    /// The bone node.
    pub node: usize,
    /// Its IKControl object.
    pub controller: usize,
    /// Preferred local position.
    pub preferred_position: Vec3,
    /// Preferred local rotation, Euler XYZ in radians.
    pub preferred_euler: Vec3,
}

impl IkBone {
    /// The preferred local rotation (right-handed, as the Euler XYZ controller composes it).
    pub fn preferred_rotation(&self) -> Quat {
        let e = self.preferred_euler;
        Quat::from_euler(glam::EulerRot::ZYX, e.z, e.y, e.x)
    }
}

/// An IK chain as its IKChainControl stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct IkChain {
    /// The chain (goal) node.
    pub node: usize,
    /// Its IKChainControl object.
    pub controller: usize,
    /// Solver name (`IKHISolver`).
    pub solver: String,
    /// Swivel angle (radians) at time 0 — the stored constant.
    pub swivel: f32,
    /// Swivel-angle parent space parameter (0x13).
    pub swivel_parent: i32,
    /// Start joint … end joint, parent to child.
    pub bones: Vec<IkBone>,
}

fn chain_error(o: &SceneObject<'_>) -> impl Fn(ParamError) -> IkError {
    let (object, class) = (o.storage_index, class_name(o));
    move |source| IkError::Param { object, class: class.clone(), source }
}

/// A chain shape not modelled, naming the IK controller `o`.
pub(crate) fn unsupported(o: &SceneObject<'_>, what: impl Into<String>) -> IkError {
    IkError::Unsupported { object: o.storage_index, class: class_name(o), what: what.into() }
}

fn missing(o: &SceneObject<'_>, what: &'static str) -> IkError {
    IkError::Missing { object: o.storage_index, class: class_name(o), what }
}

/// The chain string parameter (solver name), read from the block's raw values.
fn solver_name(index: &SceneIndex<'_>, chain: &SceneObject<'_>) -> Option<String> {
    use crate::model::paramblock::{ParamBlock2, ParamValue, PbString};
    let block = chain.reference(CHAIN_BLOCK).and_then(|i| index.get(i))?;
    let decoded = ParamBlock2::of_object(block.chunk).ok()?;
    let p = decoded.params.iter().find(|p| p.id == CHAIN_SOLVER_NAME)?;
    match &p.value {
        ParamValue::Str(PbString::Bytes(b)) => {
            let units: Vec<u16> = b.chunks_exact(2).map(|w| u16::from_le_bytes([w[0], w[1]])).collect();
            Some(String::from_utf16_lossy(&units).trim_end_matches('\0').to_string())
        }
        _ => None,
    }
}

/// Is the chain's swivel angle keyed through a controller? (Its stored constant would then not
/// be its value at every time.)
fn swivel_is_animated(index: &SceneIndex<'_>, chain: &SceneObject<'_>) -> bool {
    use crate::model::paramblock::ParamBlock2;
    let Some(block) = chain.reference(CHAIN_BLOCK).and_then(|i| index.get(i)) else { return false };
    let Ok(decoded) = ParamBlock2::of_object(block.chunk) else { return false };
    decoded.params.iter().zip(&decoded.controller_slots).any(|(p, slot)| p.id == CHAIN_SWIVEL && slot.is_some())
}

/// The bone an IKControl drives, read.
fn bone(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Result<IkBone, IkError> {
    let ctrl = node.reference(0).and_then(|i| index.get(i)).ok_or_else(|| missing(node, "transform controller"))?;
    if !has_class(ctrl, IK_CONTROL) {
        return Err(unsupported(ctrl, "a chain joint without an IK Controller"));
    }
    let p = Params::of(index, ctrl, BONE_BLOCK).map_err(chain_error(ctrl))?;
    let f = |id: u16| p.float(id).map_err(chain_error(ctrl));
    let v = |id: u16| -> Result<Vec3, IkError> { Ok(Vec3::new(f(id)?, f(id + 1)?, f(id + 2)?)) };
    Ok(IkBone {
        node: node.storage_index,
        controller: ctrl.storage_index,
        preferred_position: v(BONE_PREFERRED_POSITION)?,
        preferred_euler: v(BONE_PREFERRED_ROTATION)?,
    })
}

impl IkChain {
    /// The chain an IK Chain node's IKChainControl describes.
    pub fn of(index: &SceneIndex<'_>, chain_node: &SceneObject<'_>) -> Result<IkChain, IkError> {
        let ctrl =
            chain_node.reference(0).and_then(|i| index.get(i)).ok_or_else(|| missing(chain_node, "controller"))?;
        if !has_class(ctrl, IK_CHAIN_CONTROL) {
            return Err(unsupported(ctrl, "not an IK chain"));
        }
        let p = Params::of(index, ctrl, CHAIN_BLOCK).map_err(chain_error(ctrl))?;
        if swivel_is_animated(index, ctrl) {
            return Err(unsupported(
                ctrl,
                "a swivel angle keyed through a controller (only a constant swivel is read)",
            ));
        }
        let start = ctrl.reference(CHAIN_START_JOINT).and_then(|i| index.get(i));
        let end = ctrl.reference(CHAIN_END_JOINT).and_then(|i| index.get(i));
        let (start, end) = match (start, end) {
            (Some(s), Some(e)) if s.is_node() && e.is_node() => (s, e),
            _ => return Err(missing(ctrl, "start or end joint")),
        };
        // End joint up to the start joint, bounded by the scene size.
        let mut path = vec![end];
        while path.last().map(|n| n.storage_index) != Some(start.storage_index) {
            let up = path.last().and_then(|n| n.node_parent()).and_then(|i| index.get(i));
            match up {
                Some(n) if path.len() <= index.objects.len() => path.push(n),
                _ => return Err(missing(ctrl, "a parent path from the end joint to the start joint")),
            }
        }
        path.reverse();
        let bones = path.iter().map(|n| bone(index, n)).collect::<Result<Vec<_>, _>>()?;
        Ok(IkChain {
            node: chain_node.storage_index,
            controller: ctrl.storage_index,
            solver: solver_name(index, ctrl).unwrap_or_default(),
            swivel: p.float(CHAIN_SWIVEL).map_err(chain_error(ctrl))?,
            swivel_parent: p.int_or(CHAIN_SWIVEL_PARENT, 0).map_err(chain_error(ctrl))?,
            bones,
        })
    }
}

/// A Position/Rotation/Scale sub-controller's local transform at `tick`.
pub fn prs_at(index: &SceneIndex<'_>, prs: &SceneObject<'_>, tick: f64) -> Result<LocalTransform, ControllerError> {
    if !has_class(prs, controllers::PRS) {
        return Err(ControllerError::Unsupported {
            object: prs.storage_index,
            class: class_name(prs),
            role: "transform",
        });
    }
    let (scale, scale_axis) = keys::scale_at(index, prs.reference(2), tick)?;
    Ok(LocalTransform {
        translation: keys::position_at(index, prs.reference(0), tick)?,
        rotation: keys::rotation_at(index, prs.reference(1), tick)?.normalize(),
        scale,
        scale_axis: scale_axis.normalize(),
    })
}

/// The goal's transform (the chain node's own PRS) at `tick`, in the chain node's parent space.
pub fn goal_at(index: &SceneIndex<'_>, chain: &IkChain, tick: f64) -> Result<LocalTransform, IkError> {
    let ctrl = &index.objects[chain.controller];
    let prs = ctrl.reference(CHAIN_GOAL).and_then(|i| index.get(i)).ok_or_else(|| missing(ctrl, "goal controller"))?;
    Ok(prs_at(index, prs, tick)?)
}

/// A bone's FK sub-controller transform at `tick` (its local transform as keyed).
pub fn fk_at(index: &SceneIndex<'_>, bone: &IkBone, tick: f64) -> Result<LocalTransform, IkError> {
    let ctrl = &index.objects[bone.controller];
    let prs = ctrl.reference(BONE_FK).and_then(|i| index.get(i)).ok_or_else(|| missing(ctrl, "FK sub-controller"))?;
    Ok(prs_at(index, prs, tick)?)
}
