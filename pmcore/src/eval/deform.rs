//! Bend and Taper: the two "simple modifiers" of the pairs corpus that move vertices, for
//! the settings measured on Max's own exports. Any other setting keeps the modifier a
//! topology pass-through, and [`deformer`] says so (`None`), so a position this module does
//! not compute is never taken for one it did.
//!
//! Max's frame, as the SDK's simple-modifier samples describe it and the exports confirm:
//! a point goes from object space to the modifier's context space (the 0x2510 matrix of its
//! ModContext in the derived object), then into the gizmo's space (the gizmo controller,
//! reference 0, and the center, reference 1), then the deformation axis is turned onto Z
//! (X: −90° about Y, Y: +90° about X, Z: none) and, for Bend, the direction turns it about
//! Z. The length the deformation is spread over is the extent, along the chosen axis, of
//! the context's bounding box (the 0x2511 chunk: the input's box in context space when the
//! modifier was applied, not re-measured later).
//!
//! * **Bend** by angle θ over length `L` (r = L / θ, θ in radians): a point (x, y, z) of
//!   the frame goes to `x' = r·c + r − x·c`, `z' = r·s − x·s` with `c = cos(π − z/r)`,
//!   `s = sin(π − z/r)` (a circle of radius r about (r, ·, 0): z = 0 stays, the top bends
//!   towards +x). Measured: `Kenji's Room.max` `Cylinder002` / `Cylinder004` (90°, axis Z,
//!   no limits, an Editable Poly cylinder of height 14.98): all 108 vertices of each equal
//!   the FBX Max wrote.
//! * **Taper** by amount `a` over length `L`: the axes it affects are scaled by
//!   `f = 1 + a·z / L` (curve 0, no symmetry). Measured: `DanWork/MaxFiles/Chair.max` `Box005`
//!   (amount −0.2, primary axis Y, effect on both other axes): all 194 vertices equal
//!   `Chair.FBX`'s.
//!
//! Evaluated only without upper/lower limits; Bend only about Z with direction 0 (the axis
//! turns and the direction's sense are written as the SDK describes them but not measured:
//! the pairs' other Bends, in `FirePit.max` and `man.max`, sit above modifiers not yet
//! evaluated); Taper only with curve 0 and no symmetry, and
//! with its effect on one axis only when the primary axis is Z (where the frame's axes are
//! the object's; for X and Y the effect axes' naming is not measured); the gizmo and center
//! only when one of them is at rest (the order in which Max composes them is not measured).

use super::mesh::EvalMesh;
use super::params::Params;
use super::stack::{mod_context_tm, StackModifier};
use crate::chunk::Chunk;
use crate::model::controllers::{position_default, rotation_default, scale_default, LocalTransform};
use crate::model::scene_index::SceneIndex;
use glam::{Mat4, Vec3};
use std::f32::consts::{FRAC_PI_2, PI};

/// Bend (object-space modifier).
pub const BEND: [u32; 2] = [0x0000_0010, 0];
/// Taper (object-space modifier).
pub const TAPER: [u32; 2] = [0x0000_0020, 0];

/// ModContext bounding box inside the modifier's 0x2500 chunk: two Point3 (min, max).
pub const MOD_CONTEXT_BOX: u16 = 0x2511;

/// A deformation this module evaluates, with everything it needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Deformer {
    /// Object space → the deformation frame (the axis on Z).
    pub to_frame: Mat4,
    /// What it does in the frame.
    pub kind: DeformKind,
}

/// The deformation, in its frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DeformKind {
    /// Bend by `angle` radians over `length` along Z.
    Bend {
        /// Bend angle (radians).
        angle: f32,
        /// Extent of the context box along the bend axis.
        length: f32,
    },
    /// Taper by `amount` over `length` along Z, scaling X and/or Y.
    Taper {
        /// Taper amount.
        amount: f32,
        /// Extent of the context box along the primary axis.
        length: f32,
        /// Scale the frame's X.
        x: bool,
        /// Scale the frame's Y.
        y: bool,
    },
}

impl Deformer {
    /// Where the deformation takes an object-space point.
    pub fn map(&self, p: Vec3) -> Vec3 {
        let q = self.to_frame.transform_point3(p);
        let moved = match self.kind {
            DeformKind::Bend { angle, length } => bend_point(q, angle, length),
            DeformKind::Taper { amount, length, x, y } => taper_point(q, amount, length, x, y),
        };
        self.to_frame.inverse().transform_point3(moved)
    }

    /// Moves every vertex of `mesh`.
    pub fn apply(&self, mut mesh: EvalMesh) -> EvalMesh {
        let back = self.to_frame.inverse();
        mesh.map_positions(|p| {
            let q = self.to_frame.transform_point3(p);
            let moved = match self.kind {
                DeformKind::Bend { angle, length } => bend_point(q, angle, length),
                DeformKind::Taper { amount, length, x, y } => taper_point(q, amount, length, x, y),
            };
            back.transform_point3(moved)
        });
        mesh
    }
}

/// Bend of a frame point: Z is the bend axis, the bend turns towards +X.
pub fn bend_point(p: Vec3, angle: f32, length: f32) -> Vec3 {
    // Max skips the singularity below 1e-4 rad.
    if angle.abs() < 1e-4 {
        return p;
    }
    let r = length / angle;
    let (x, along) = (p.x, p.z);
    let (s, c) = (PI - along / r).sin_cos();
    Vec3::new(r * c + r - x * c, p.y, r * s - x * s)
}

/// Taper of a frame point: Z is the primary axis.
pub fn taper_point(p: Vec3, amount: f32, length: f32, x: bool, y: bool) -> Vec3 {
    if length == 0.0 {
        return p;
    }
    let f = 1.0 + amount * p.z / length;
    Vec3::new(if x { p.x * f } else { p.x }, if y { p.y * f } else { p.y }, p.z)
}

/// The turn that puts deformation axis `axis` (0 X, 1 Y, 2 Z) on the frame's Z, in
/// column-vector form (Max's `RotateY(−π/2)` / `RotateX(π/2)` on row vectors: a row vector
/// times Max's rotation matrix is the standard rotation of the column vector).
fn axis_turn(axis: usize) -> Mat4 {
    match axis {
        // Row vector · RotateY(−π/2): (x, y, z) → (−z, y, x).
        0 => Mat4::from_rotation_y(-FRAC_PI_2),
        // Row vector · RotateX(π/2): (x, y, z) → (x, −z, y).
        1 => Mat4::from_rotation_x(FRAC_PI_2),
        _ => Mat4::IDENTITY,
    }
}

/// The Bend or Taper of `sm` when its settings are ones this module evaluates, else `None`
/// (the modifier then stays a topology pass-through whose positions are not known).
pub fn deformer(index: &SceneIndex<'_>, sm: &StackModifier<'_, '_>) -> Option<Deformer> {
    let class_id = sm.object.class.as_ref()?.class_id;
    if class_id != BEND && class_id != TAPER {
        return None;
    }
    let params = Params::of(index, sm.object, 2).ok()?;
    let context = mod_context_tm(sm.mod_app)?;
    let (min, max) = context_box(sm.mod_app?)?;
    let gizmo = gizmo_matrix(index, sm)?;
    // Row vectors in Max: p · context · gizmo⁻¹ · axis turn (· RotateZ(direction)); as
    // column vectors the same chain read right to left.
    let frame_of = |axis: usize| axis_turn(axis) * gizmo.inverse() * context;
    let axis_of = |id| usize::try_from(params.int(id).ok()?).ok().filter(|a| *a < 3);
    if class_id == BEND {
        // ParamBlock2 ids: 0 angle (degrees), 1 direction (degrees), 2 axis, 3 limit on.
        // Measured: axis Z, direction 0, no limits; the direction's sense and the X / Y
        // axes are not measured on any export this module could reach, so they stay out.
        if params.int_or(3, 0).ok()? != 0 || params.float(1).ok()? != 0.0 {
            return None;
        }
        let axis = axis_of(2).filter(|&a| a == 2)?;
        let length = max[axis] - min[axis];
        Some(Deformer {
            to_frame: frame_of(axis),
            kind: DeformKind::Bend { angle: params.float(0).ok()?.to_radians(), length },
        })
    } else {
        // ParamBlock2 ids: 0 amount, 1 curve, 2 primary axis, 3 effect (0 first other axis,
        // 1 second, 2 both), 4 symmetry, 5 limit on.
        if params.float(1).ok()? != 0.0 || params.int_or(4, 0).ok()? != 0 || params.int_or(5, 0).ok()? != 0 {
            return None;
        }
        let axis = axis_of(2)?;
        let effect = params.int(3).ok()?;
        let (x, y) = match (axis, effect) {
            (_, 2) => (true, true),
            (2, 0) => (true, false),
            (2, 1) => (false, true),
            _ => return None,
        };
        let length = max[axis] - min[axis];
        Some(Deformer {
            to_frame: frame_of(axis),
            kind: DeformKind::Taper { amount: params.float(0).ok()?, length, x, y },
        })
    }
}

/// The ModContext box (min, max) in context space.
fn context_box(mod_app: &Chunk<'_>) -> Option<(Vec3, Vec3)> {
    let p = mod_app.child(MOD_CONTEXT_BOX)?.payload()?;
    if p.len() != 24 {
        return None;
    }
    let f: Vec<f32> = p.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    let (min, max) = (Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5]));
    (min.is_finite() && max.is_finite()).then_some((min, max))
}

/// Gizmo (reference 0, a Position/Rotation/Scale) and center (reference 1, a position
/// controller) as one matrix, gizmo space → context space; `None` when a controller is not
/// readable or both are away from rest.
fn gizmo_matrix(index: &SceneIndex<'_>, sm: &StackModifier<'_, '_>) -> Option<Mat4> {
    let m = sm.object;
    let gizmo = match m.reference(0).and_then(|i| index.get(i)) {
        None => Mat4::IDENTITY,
        Some(ctrl) => {
            let (scale, scale_axis) = scale_default(index, ctrl.reference(2)).ok()?;
            LocalTransform {
                translation: position_default(index, ctrl.reference(0)).ok()?,
                rotation: rotation_default(index, ctrl.reference(1)).ok()?.normalize(),
                scale,
                scale_axis,
            }
            .matrix()
        }
    };
    let center = match m.reference(1) {
        None => Vec3::ZERO,
        Some(_) => position_default(index, m.reference(1)).ok()?,
    };
    let at_rest = |g: &Mat4| g.abs_diff_eq(Mat4::IDENTITY, 1e-6);
    if center != Vec3::ZERO && !at_rest(&gizmo) {
        return None;
    }
    Some(gizmo * Mat4::from_translation(center))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn a_quarter_bend_puts_the_top_on_the_circle() {
        // Length 2, 90°: r = 2 / (π/2) = 4/π = 1.2732395. The base (z = 0) stays: c =
        // cos π = −1, so x' = −r + r + x = x. The top (0, 0, 2): z/r = π/2, c = cos(π/2) = 0,
        // s = 1 → (r, 0, r). Halfway up at x = 0.5: z/r = π/4, c = cos(3π/4) = −0.7071068,
        // s = 0.7071068 → x' = −0.9003163 + 1.2732395 + 0.3535534 = 0.7264766,
        // z' = 0.9003163 − 0.3535534 = 0.5467629.
        let angle = 90f32.to_radians();
        assert!(close(bend_point(Vec3::new(0.3, 0.1, 0.0), angle, 2.0), Vec3::new(0.3, 0.1, 0.0)));
        assert!(close(bend_point(Vec3::new(0.0, 0.0, 2.0), angle, 2.0), Vec3::new(1.2732395, 0.0, 1.2732395)));
        assert!(close(bend_point(Vec3::new(0.5, 0.0, 1.0), angle, 2.0), Vec3::new(0.7264766, 0.0, 0.5467629)));
        // Below Max's 1e-4 rad threshold nothing moves.
        assert_eq!(bend_point(Vec3::new(1.0, 2.0, 3.0), 5e-5, 2.0), Vec3::new(1.0, 2.0, 3.0));
    }

    #[test]
    fn a_bend_of_kenjis_room_cylinder_matches_the_fbx_max_wrote() {
        // `Kenji's Room.max` Cylinder002: Bend 90°, axis Z, context box z 0 … 14.980247 (its
        // 0x2511 chunk), identity context and gizmo. Vertex 26 of the Editable Poly at
        // (−1.4230134, 0.5179347, 2.9960494) is, in `Kenji's Room.FBX`, at
        // (−0.8866058, 0.5179347, 3.3867443). By hand: r = 14.980247 / (π/2) = 9.536721;
        // z/r = 0.3141593; c = cos(2.8274334) = −0.9510565, s = 0.3090170;
        // x' = −9.0700 + 9.536721 − 1.3533749 = −0.8866, z' = 2.9470 + 0.4397315 = 3.3867.
        let p = bend_point(Vec3::new(-1.4230134, 0.5179347, 2.9960494), 90f32.to_radians(), 14.980247);
        assert!(close(p, Vec3::new(-0.8866058, 0.5179347, 3.3867443)), "{p:?}");
    }

    #[test]
    fn taper_scales_the_effect_axes_along_the_primary_axis() {
        // `Chair.max` Box005: amount −0.2, primary Y, both other axes, box y −17.5 … 17.5
        // (L = 35). In the frame (Y on Z) a point at y = −17.5 is scaled by
        // 1 + (−0.2)(−17.5)/35 = 1.1: `Chair.FBX` has (−16.44331, −17.5, 2) at
        // (−18.08764, −17.5, 2.2); at y = 8.75 the factor is 0.95: (−16.44331, 8.75, 2) →
        // (−15.621144, 8.75, 1.9).
        let d = Deformer {
            to_frame: axis_turn(1),
            kind: DeformKind::Taper { amount: -0.2, length: 35.0, x: true, y: true },
        };
        assert!(close(d.map(Vec3::new(-16.44331, -17.5, 2.0)), Vec3::new(-18.087641, -17.5, 2.2)));
        assert!(close(d.map(Vec3::new(-16.44331, 8.75, 2.0)), Vec3::new(-15.621144, 8.75, 1.9)));
    }

    #[test]
    fn the_axis_turn_puts_the_axis_on_z() {
        // Max's RotateY(−π/2) on a row vector takes (x, y, z) to (−z, y, x); RotateX(π/2)
        // to (x, −z, y): the X axis lands on +Z for axis 0, the Y axis on +Z for axis 1.
        assert!(close(axis_turn(0).transform_point3(Vec3::new(1.0, 2.0, 3.0)), Vec3::new(-3.0, 2.0, 1.0)));
        assert!(close(axis_turn(1).transform_point3(Vec3::new(1.0, 2.0, 3.0)), Vec3::new(1.0, -3.0, 2.0)));
        assert!(close(axis_turn(2).transform_point3(Vec3::new(1.0, 2.0, 3.0)), Vec3::new(1.0, 2.0, 3.0)));
    }
}
