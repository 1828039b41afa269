//! The Mirror modifier (Class ID `0xef92aa7c, 0x511bbe75`): every vertex reflected across
//! a plane (or two, or three) of its gizmo, or — with Copy — the input kept and a reflected
//! copy appended (vertices after the input's, faces after the input's with their winding
//! reversed so the copy faces outwards). Nothing is welded.
//!
//! The frame is the one the other gizmo modifiers use: object space → mod-context space
//! (the 0x2510 matrix of its ModContext in the derived object) → gizmo space (the gizmo
//! controller, reference 0); there the mirror axes are negated and the offset (parameter 2)
//! added along them, and the point goes back. Parameters (old ParamBlock, reference 1):
//! 0 axis (0 X, 1 Y, 2 Z, 3 XY, 4 YZ, 5 ZX), 1 copy, 2 offset.
//!
//! Measured: `wild/snubblejr__bird.max` `Cylinder002` and `wild/snubblejr__cat.max`
//! `Sphere001` (axis Y, Copy on, offset 0) against the FBX Max wrote for each.

use super::mesh::{EvalMesh, Polygon};
use super::params::{ParamError, Params};
use super::stack::{mod_context_tm, StackModifier};
use crate::model::controllers::{position_default, rotation_default, scale_default, LocalTransform};
use crate::model::scene_index::SceneIndex;
use glam::{Mat4, Vec3};

/// Mirror (object-space modifier).
pub const MIRROR: [u32; 2] = [0xef92_aa7c, 0x511b_be75];

/// A mirror as evaluated.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MirrorParams {
    /// Object space → gizmo space.
    pub to_gizmo: Mat4,
    /// Which gizmo axes are negated.
    pub axes: [bool; 3],
    /// Offset added along each mirrored axis (gizmo units).
    pub offset: f32,
    /// Keep the input and append the reflected copy.
    pub copy: bool,
}

impl MirrorParams {
    /// The reflection in object space.
    pub fn matrix(&self) -> Mat4 {
        let s = Vec3::new(
            if self.axes[0] { -1.0 } else { 1.0 },
            if self.axes[1] { -1.0 } else { 1.0 },
            if self.axes[2] { -1.0 } else { 1.0 },
        );
        let t = Vec3::new(
            if self.axes[0] { self.offset } else { 0.0 },
            if self.axes[1] { self.offset } else { 0.0 },
            if self.axes[2] { self.offset } else { 0.0 },
        );
        self.to_gizmo.inverse() * Mat4::from_translation(t) * Mat4::from_scale(s) * self.to_gizmo
    }
}

/// The Mirror settings of `sm`, or why they are not evaluated.
pub fn settings(index: &SceneIndex<'_>, sm: &StackModifier<'_, '_>) -> Result<MirrorParams, String> {
    let m = sm.object;
    let p = Params::of(index, m, 1).map_err(|e| format!("parameters: {e}"))?;
    let axis = p.int(0).map_err(|e| format!("parameters: {e}"))?;
    let axes = match axis {
        0 => [true, false, false],
        1 => [false, true, false],
        2 => [false, false, true],
        3 => [true, true, false],
        4 => [false, true, true],
        5 => [true, false, true],
        other => return Err(format!("mirror axis {other} not evaluated")),
    };
    let copy = p.int_or(1, 0).map_err(|e| format!("parameters: {e}"))? != 0;
    let offset = match p.float(2) {
        Err(ParamError::Missing(_)) => 0.0,
        other => other.map_err(|e| format!("parameters: {e}"))?,
    };
    let gizmo = match m.reference(0).and_then(|i| index.get(i)) {
        None => Mat4::IDENTITY,
        Some(ctrl) => {
            let e = |e: crate::model::controllers::ControllerError| format!("mirror gizmo: {e}");
            let (scale, scale_axis) = scale_default(index, ctrl.reference(2)).map_err(e)?;
            LocalTransform {
                translation: position_default(index, ctrl.reference(0)).map_err(e)?,
                rotation: rotation_default(index, ctrl.reference(1)).map_err(e)?.normalize(),
                scale,
                scale_axis,
            }
            .matrix()
        }
    };
    let context = mod_context_tm(sm.mod_app).ok_or("mod-context matrix shorter than a Matrix3")?;
    Ok(MirrorParams { to_gizmo: gizmo.inverse() * context, axes, offset, copy })
}

/// Applies the mirror to `mesh` (map channel 1 is dropped: the copy's mapping is not known).
pub fn mirror(mut mesh: EvalMesh, p: &MirrorParams) -> EvalMesh {
    let m = p.matrix();
    // An odd number of negated axes turns faces inside out; Max reverses their winding.
    let flips = p.axes.iter().filter(|a| **a).count() % 2 == 1;
    let reflect = |poly: &Polygon, shift: u32| {
        let mut q = poly.clone();
        for c in q.corners.iter_mut().chain(q.triangles.iter_mut().flatten()) {
            *c += shift;
        }
        if flips {
            q.corners.reverse();
            for t in &mut q.triangles {
                t.swap(1, 2);
            }
        }
        q
    };
    mesh.uv = None;
    if p.copy {
        let n = mesh.positions.len() as u32;
        let copies: Vec<Vec3> = mesh.positions.iter().map(|v| m.transform_point3(*v)).collect();
        mesh.positions.extend(copies);
        let mirrored: Vec<Polygon> = mesh.polygons.iter().map(|f| reflect(f, n)).collect();
        mesh.polygons.extend(mirrored);
    } else {
        mesh.map_positions(|v| m.transform_point3(v));
        mesh.polygons = mesh.polygons.iter().map(|f| reflect(f, 0)).collect();
    }
    mesh
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::FaceRule;

    #[test]
    fn a_copy_across_y_appends_reflected_vertices_and_reversed_faces() {
        // One triangle (0, 1, 0), (1, 1, 0), (0, 2, 0) mirrored across the gizmo's Y with
        // Copy, gizmo at the origin: the copy is (0, −1, 0), (1, −1, 0), (0, −2, 0) as
        // vertices 3, 4, 5 and the face 3 5 4 (winding reversed).
        let mesh = EvalMesh {
            positions: vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 2.0, 0.0)],
            polygons: vec![Polygon::new(vec![0, 1, 2])],
            uv: None,
            rule: FaceRule::Polygons,
        };
        let p = MirrorParams { to_gizmo: Mat4::IDENTITY, axes: [false, true, false], offset: 0.0, copy: true };
        let out = mirror(mesh.clone(), &p);
        assert_eq!(out.positions.len(), 6);
        assert_eq!(out.positions[4], Vec3::new(1.0, -1.0, 0.0));
        assert_eq!(out.polygons[1].corners, vec![5, 4, 3]);
        // Without Copy, in place; a gizmo moved to y = 3 (object → gizmo subtracts 3)
        // reflects y = 1 to 5.
        let p = MirrorParams {
            to_gizmo: Mat4::from_translation(Vec3::new(0.0, -3.0, 0.0)),
            axes: [false, true, false],
            offset: 0.0,
            copy: false,
        };
        let out = mirror(mesh, &p);
        assert_eq!(out.positions.len(), 3);
        assert!((out.positions[0] - Vec3::new(0.0, 5.0, 0.0)).length() < 1e-6);
        assert_eq!(out.polygons[0].corners, vec![2, 1, 0]);
    }
}
