//! Read-only view of node transform controllers: which controller a node uses
//! (Position/Rotation/Scale or LookAt), which sub-controllers those reference, and the
//! default values the keyframe controllers store — what the exporters need to place
//! objects and bones without evaluating animation.
//!
//! Default-value chunks (digest §5.6): 0x2501 float (`f32`), 0x2503 position (3 `f32`),
//! 0x2504 rotation quaternion `x, y, z, w` **in Max's inverse convention** (the NeL exporter
//! negates `w`), 0x2505 scale (3 `f32`) + scale-axis quaternion (4 `f32`). Newer files wrap a
//! float controller's 0x2501 in a 0x7127 container; both forms are read.
//!
//! Conventions of the returned [`LocalTransform`]: column vectors (`glam`), rotations as
//! ordinary right-handed quaternions, so a Max quaternion `q` becomes `conjugate(q)`.

use super::scene_index::{SceneIndex, SceneObject};
use glam::{Mat4, Quat, Vec3};

/// The controller Class IDs read here (named in the class catalogue).
pub use crate::classes::ids::{EULER_XYZ, LOOK_AT, POSITION_XYZ, PRS, SCALE_XYZ};
/// Default float value.
pub const DEFAULT_FLOAT: u16 = 0x2501;
/// Default position value.
pub const DEFAULT_POSITION: u16 = 0x2503;
/// Default rotation value (Max quaternion convention).
pub const DEFAULT_ROTATION: u16 = 0x2504;
/// Default scale value (scale + axis).
pub const DEFAULT_SCALE: u16 = 0x2505;
/// Container some float controllers wrap their value chunks in.
pub const FLOAT_VALUE_WRAPPER: u16 = 0x7127;
/// Euler controller axis order (`u32`, 0 = XYZ).
pub const EULER_ORDER: u16 = 0x1003;
/// NodeImpl object-offset position (Point3).
pub const NODE_OFFSET_POS: u16 = 0x096a;
/// NodeImpl object-offset rotation (Max quaternion).
pub const NODE_OFFSET_ROT: u16 = 0x096b;
/// NodeImpl object-offset scale (scale + axis).
pub const NODE_OFFSET_SCALE: u16 = 0x096c;

/// Why a controller's value could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ControllerError {
    /// The node has no transform controller reference.
    #[error("node #{node} has no transform controller (reference slot 0)")]
    NoController {
        /// Node storage index.
        node: usize,
    },
    /// A controller class this view does not evaluate.
    #[error("object #{object} ({class}) is not an evaluable {role} controller")]
    Unsupported {
        /// Controller storage index.
        object: usize,
        /// Its class name.
        class: String,
        /// `transform`, `position`, `rotation`, `scale`, `float`.
        role: &'static str,
    },
    /// The default-value chunk is missing or has the wrong size.
    #[error("object #{object}: default value chunk 0x{chunk:04x} {what}")]
    BadValue {
        /// Controller storage index.
        object: usize,
        /// Expected chunk id.
        chunk: u16,
        /// What was wrong.
        what: String,
    },
}

impl ControllerError {
    /// Storage index of the Scene object the error is about (its locator).
    pub fn object(&self) -> usize {
        match self {
            ControllerError::NoController { node } => *node,
            ControllerError::Unsupported { object, .. } | ControllerError::BadValue { object, .. } => *object,
        }
    }
}

/// References of a node's transform controller.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransformRefs {
    /// Position/Rotation/Scale: slots 0, 1, 2.
    Prs {
        /// Position controller.
        position: Option<usize>,
        /// Rotation controller.
        rotation: Option<usize>,
        /// Scale controller.
        scale: Option<usize>,
    },
    /// LookAt: slot 0 target node, 1 position, 2 roll (float), 3 scale (as stored in the
    /// public corpus).
    LookAt {
        /// Target node.
        target: Option<usize>,
        /// Position controller.
        position: Option<usize>,
        /// Roll float controller.
        roll: Option<usize>,
        /// Scale controller.
        scale: Option<usize>,
    },
}

/// A local transform from controller defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LocalTransform {
    /// Translation.
    pub translation: Vec3,
    /// Rotation (right-handed, column-vector convention).
    pub rotation: Quat,
    /// Scale factors along the scale axes.
    pub scale: Vec3,
    /// Orientation of the scale axes (right-handed).
    pub scale_axis: Quat,
}

impl Default for LocalTransform {
    fn default() -> Self {
        LocalTransform {
            translation: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            scale_axis: Quat::IDENTITY,
        }
    }
}

impl LocalTransform {
    /// `T · R · A · S · A⁻¹`: Max's scale-then-rotate-then-translate order (row-vector
    /// `S·R·T`) in column-vector form.
    pub fn matrix(&self) -> Mat4 {
        let axis = Mat4::from_quat(self.scale_axis);
        Mat4::from_translation(self.translation)
            * Mat4::from_quat(self.rotation)
            * axis
            * Mat4::from_scale(self.scale)
            * axis.inverse()
    }

    /// The rotation as NeL's exporter writes it: the Max quaternion with `w` negated,
    /// normalised — which is the negated right-handed quaternion.
    pub fn nel_rotation(&self) -> Quat {
        -self.rotation.normalize()
    }
}

/// Converts a stored Max quaternion (`x, y, z, w`, inverse convention) to a right-handed one.
pub fn max_quat(v: [f32; 4]) -> Quat {
    Quat::from_xyzw(-v[0], -v[1], -v[2], v[3])
}

fn f32s(p: &[u8]) -> Vec<f32> {
    p.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

/// True when the object's class has Class ID `id`.
pub(crate) fn has_class(o: &SceneObject<'_>, id: [u32; 2]) -> bool {
    o.class.as_ref().is_some_and(|c| c.class_id == id)
}

/// A class name for messages: the directory's, or the chunk id without one.
pub(crate) fn class_name(o: &SceneObject<'_>) -> String {
    o.class.as_ref().map(|c| c.name.clone()).unwrap_or_else(|| format!("chunk 0x{:04x}", o.chunk.id))
}

/// Payload of value chunk `id` on a controller (directly or inside the 0x7127 wrapper).
fn value_chunk<'a>(o: &'a SceneObject<'a>, id: u16) -> Option<&'a [u8]> {
    o.chunk
        .child(id)
        .and_then(|c| c.payload())
        .or_else(|| o.chunk.child(FLOAT_VALUE_WRAPPER).and_then(|w| w.child(id)).and_then(|c| c.payload()))
}

fn value(o: &SceneObject<'_>, id: u16, floats: usize) -> Result<Vec<f32>, ControllerError> {
    let bad = |what: String| ControllerError::BadValue { object: o.storage_index, chunk: id, what };
    let p = value_chunk(o, id).ok_or_else(|| bad("missing".into()))?;
    if p.len() < floats * 4 {
        return Err(bad(format!("has {} bytes, expected {}", p.len(), floats * 4)));
    }
    Ok(f32s(&p[..floats * 4]))
}

/// The transform controller references of `node` (its reference slot 0).
pub fn transform_refs(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Result<TransformRefs, ControllerError> {
    let ctrl = node
        .reference(0)
        .and_then(|i| index.get(i))
        .ok_or(ControllerError::NoController { node: node.storage_index })?;
    if has_class(ctrl, PRS) {
        return Ok(TransformRefs::Prs {
            position: ctrl.reference(0),
            rotation: ctrl.reference(1),
            scale: ctrl.reference(2),
        });
    }
    if has_class(ctrl, LOOK_AT) {
        return Ok(TransformRefs::LookAt {
            target: ctrl.reference(0),
            position: ctrl.reference(1),
            roll: ctrl.reference(2),
            scale: ctrl.reference(3),
        });
    }
    Err(ControllerError::Unsupported { object: ctrl.storage_index, class: class_name(ctrl), role: "transform" })
}

/// The object a controller's reference `slot` names, or why it cannot be read (`role`).
pub(crate) fn object<'a, 'b>(
    index: &'b SceneIndex<'a>,
    slot: Option<usize>,
    role: &'static str,
) -> Result<&'b SceneObject<'a>, ControllerError> {
    slot.and_then(|i| index.get(i)).ok_or(ControllerError::Unsupported {
        object: slot.unwrap_or(usize::MAX),
        class: "missing reference".into(),
        role,
    })
}

/// Default value of a float controller (0x2501).
pub fn float_default(index: &SceneIndex<'_>, slot: Option<usize>) -> Result<f32, ControllerError> {
    let o = object(index, slot, "float")?;
    Ok(value(o, DEFAULT_FLOAT, 1)?[0])
}

/// Default position: a keyframe position controller's 0x2503, or a Position XYZ's three floats.
pub fn position_default(index: &SceneIndex<'_>, slot: Option<usize>) -> Result<Vec3, ControllerError> {
    let o = object(index, slot, "position")?;
    if value_chunk(o, DEFAULT_POSITION).is_some() {
        return Ok(Vec3::from_slice(&value(o, DEFAULT_POSITION, 3)?));
    }
    if has_class(o, POSITION_XYZ) {
        let axis = |s| float_default(index, o.reference(s));
        return Ok(Vec3::new(axis(0)?, axis(1)?, axis(2)?));
    }
    Err(ControllerError::Unsupported { object: o.storage_index, class: class_name(o), role: "position" })
}

/// Default rotation (right-handed): a keyframe rotation controller's 0x2504 (conjugated
/// from Max's convention), or a Euler XYZ controller's three angles in XYZ order
/// (`R = Rz · Ry · Rx`, Max's row-vector `Rx · Ry · Rz`).
pub fn rotation_default(index: &SceneIndex<'_>, slot: Option<usize>) -> Result<Quat, ControllerError> {
    let o = object(index, slot, "rotation")?;
    if value_chunk(o, DEFAULT_ROTATION).is_some() {
        let v = value(o, DEFAULT_ROTATION, 4)?;
        return Ok(max_quat([v[0], v[1], v[2], v[3]]));
    }
    if has_class(o, EULER_XYZ) {
        let order = o.chunk.child(EULER_ORDER).and_then(|c| c.payload()).map(f32s_u32);
        if order.is_some_and(|v| v != Some(0)) {
            return Err(ControllerError::Unsupported {
                object: o.storage_index,
                class: format!("{} (axis order other than XYZ)", class_name(o)),
                role: "rotation",
            });
        }
        let angle = |s| float_default(index, o.reference(s));
        return Ok(glam::Quat::from_euler(glam::EulerRot::ZYX, angle(2)?, angle(1)?, angle(0)?));
    }
    Err(ControllerError::Unsupported { object: o.storage_index, class: class_name(o), role: "rotation" })
}

fn f32s_u32(p: &[u8]) -> Option<u32> {
    (p.len() == 4).then(|| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
}

/// Default scale and scale axis (0x2505), or a Scale XYZ's three floats (axis identity).
pub fn scale_default(index: &SceneIndex<'_>, slot: Option<usize>) -> Result<(Vec3, Quat), ControllerError> {
    let o = object(index, slot, "scale")?;
    if has_class(o, SCALE_XYZ) && value_chunk(o, DEFAULT_SCALE).is_none() {
        let axis = |s| float_default(index, o.reference(s));
        return Ok((Vec3::new(axis(0)?, axis(1)?, axis(2)?), Quat::IDENTITY));
    }
    let v = value(o, DEFAULT_SCALE, 3)?;
    let axis = value(o, DEFAULT_SCALE, 7).map(|a| max_quat([a[3], a[4], a[5], a[6]])).unwrap_or(Quat::IDENTITY);
    Ok((Vec3::new(v[0], v[1], v[2]), axis))
}

/// The node's local transform (relative to its parent) from its controller defaults.
/// LookAt rotations need the target's world position, which this view does not evaluate:
/// they are reported as unsupported rather than guessed.
pub fn local_transform(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Result<LocalTransform, ControllerError> {
    match transform_refs(index, node)? {
        TransformRefs::Prs { position, rotation, scale } => {
            let (scale, scale_axis) = scale_default(index, scale)?;
            Ok(LocalTransform {
                translation: position_default(index, position)?,
                rotation: rotation_default(index, rotation)?.normalize(),
                scale,
                scale_axis,
            })
        }
        TransformRefs::LookAt { .. } => Err(ControllerError::Unsupported {
            object: node.reference(0).unwrap_or(usize::MAX),
            class: "Look At (rotation needs the target)".into(),
            role: "transform",
        }),
    }
}

/// The node's object offset (pivot) transform from NodeImpl chunks 0x096a/0x096b/0x096c;
/// identity for parts that are absent.
pub fn object_offset(node: &SceneObject<'_>) -> LocalTransform {
    let floats = |id: u16, n: usize| {
        node.chunk.child(id).and_then(|c| c.payload()).filter(|p| p.len() >= n * 4).map(|p| f32s(&p[..n * 4]))
    };
    let mut t = LocalTransform::default();
    if let Some(p) = floats(NODE_OFFSET_POS, 3) {
        t.translation = Vec3::new(p[0], p[1], p[2]);
    }
    if let Some(q) = floats(NODE_OFFSET_ROT, 4) {
        t.rotation = max_quat([q[0], q[1], q[2], q[3]]).normalize();
    }
    if let Some(s) = floats(NODE_OFFSET_SCALE, 7) {
        t.scale = Vec3::new(s[0], s[1], s[2]);
        t.scale_axis = max_quat([s[3], s[4], s[5], s[6]]).normalize();
    }
    t
}

/// World matrix of `node`: its parents' local transforms accumulated from the root
/// (bounded by the number of scene objects, so a parent cycle cannot loop).
pub fn world_matrix(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Result<Mat4, ControllerError> {
    let mut chain = vec![node];
    let mut current = node;
    while let Some(parent) = current.node_parent().and_then(|p| index.get(p)) {
        if chain.len() > index.objects.len() || parent.reference(0).is_none() {
            break; // the root node carries no transform controller
        }
        chain.push(parent);
        current = parent;
    }
    let mut world = Mat4::IDENTITY;
    for n in chain.iter().rev() {
        world *= local_transform(index, n)?.matrix();
    }
    Ok(world)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn max_quaternion_is_the_conjugate() {
        // Max stores a +90° turn about Z as (0, 0, -sin45, cos45).
        let q = max_quat([0.0, 0.0, -std::f32::consts::FRAC_1_SQRT_2, std::f32::consts::FRAC_1_SQRT_2]);
        let x = q * Vec3::X;
        assert!((x - Vec3::Y).length() < 1e-6, "{x}");
    }

    #[test]
    fn local_matrix_scales_then_rotates_then_translates() {
        let t = LocalTransform {
            translation: Vec3::new(10.0, 0.0, 0.0),
            rotation: Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
            scale: Vec3::new(2.0, 1.0, 1.0),
            scale_axis: Quat::IDENTITY,
        };
        let p = t.matrix().transform_point3(Vec3::X);
        assert!((p - Vec3::new(10.0, 2.0, 0.0)).length() < 1e-5, "{p}");
    }

    #[test]
    fn nel_rotation_negates_max_w() {
        let stored = [0.1f32, 0.2, 0.3, 0.9];
        let t = LocalTransform { rotation: max_quat(stored), ..Default::default() };
        let nel = t.nel_rotation();
        let n = glam::Vec4::new(0.1, 0.2, 0.3, -0.9).normalize();
        assert!((glam::Vec4::from(nel) - n).length() < 1e-6);
    }
}
