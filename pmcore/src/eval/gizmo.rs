//! The frames modifiers place their gizmos in: the mod-context matrix of a modifier's
//! per-node data, and a Position/Rotation/Scale gizmo controller's matrix.

use super::derived::{mod_context_tm, StackModifier};
use super::outcome::{stop, Stop};
use crate::model::controllers::{position_default, rotation_default, scale_default, ControllerError, LocalTransform};
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::{Mat4, Vec3};

/// The modifier's mod-context matrix; one shorter than a Matrix3 stops it.
pub(crate) fn context_of(m: &SceneObject<'_>, sm: &StackModifier<'_, '_>) -> Result<Mat4, Stop> {
    mod_context_tm(sm.mod_app).ok_or_else(|| stop(m, "mod-context matrix shorter than a Matrix3"))
}

/// The matrix of a Position/Rotation/Scale controller from its sub-controllers' defaults
/// (a modifier gizmo); identity when the slot is empty (Max creates the controller on
/// first edit).
pub(crate) fn prs_matrix(index: &SceneIndex<'_>, slot: Option<usize>) -> Result<Mat4, ControllerError> {
    let Some(ctrl) = slot.and_then(|i| index.get(i)) else { return Ok(Mat4::IDENTITY) };
    let (scale, scale_axis) = scale_default(index, ctrl.reference(2))?;
    let t = LocalTransform {
        translation: position_default(index, ctrl.reference(0))?,
        rotation: rotation_default(index, ctrl.reference(1))?.normalize(),
        scale,
        scale_axis,
    };
    Ok(t.matrix())
}

/// The simple-modifier frame (the SDK's `SimpleMod::CompMatrix`): object space → gizmo
/// space, i.e. the mod-context matrix, then the inverse of the gizmo controller
/// (reference 0) and of the centre's position (reference 1).
pub(crate) fn simple_frame(index: &SceneIndex<'_>, sm: &StackModifier<'_, '_>) -> Result<Mat4, Stop> {
    let m = sm.object;
    let gizmo = prs_matrix(index, m.reference(0)).map_err(|e| stop(m, format!("gizmo: {e}")))?;
    let centre = match m.reference(1) {
        None => Vec3::ZERO,
        slot => position_default(index, slot).map_err(|e| stop(m, format!("centre: {e}")))?,
    };
    let context = context_of(m, sm)?;
    Ok(Mat4::from_translation(-centre) * gizmo.inverse() * context)
}
