//! The Bend modifier (the SDK sample `bend.cpp`, facts only), in the simple-modifier frame
//! of [`crate::eval::deform`]: the bend axis is turned onto Z (X: −90° about Y, Y: +90°
//! about X) and the direction parameter turns about Z; the bend radius is the extent of the
//! mod-context box `0x2500 → 0x2511` (min, max) along the axis divided by the angle in
//! radians; a point at `(x, ·, z)` goes to `x' = r·cos(π − z/r) + r − x·cos(π − z/r)`,
//! `z' = r·sin(π − z/r) − x·sin(π − z/r)` (in `f64`, as the sample computes), then back.
//! Only the selection passed up the stack moves.

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::deform::{axis_turn, map_selected, simple_deform};
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, Evaluated, Stop};
use crate::eval::selection::Carry;
use glam::{DMat4, DVec3, Mat4};

/// The Bend's evaluator.
pub const BEND: Modifier = Modifier::new(module_path!(), apply, true, Carry::Keeps);

/// Bend parameters (parameter block 2 ids 0–5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BendParams {
    /// Angle in degrees (id 0).
    pub angle: f32,
    /// Direction in degrees (id 1).
    pub direction: f32,
    /// Bend axis 0 X, 1 Y, 2 Z (id 2).
    pub axis: usize,
    /// Object space → gizmo space: inverse(centre) · inverse(gizmo) · mod-context matrix,
    /// column-vector form.
    pub to_gizmo: Mat4,
    /// The mod-context box extent along each axis (max − min).
    pub extent: [f32; 3],
}

/// Bends the vertices of `mesh` that `only` selects (every vertex when `None`).
pub fn bend(mut mesh: EvalMesh, p: &BendParams, only: Option<&[bool]>) -> EvalMesh {
    let angle = f64::from(p.angle).to_radians();
    let length = f64::from(p.extent[p.axis]);
    if angle.abs() < 1e-6 {
        return mesh;
    }
    let r = length / angle;
    let axis = DMat4::from_rotation_z(f64::from(p.direction).to_radians()) * axis_turn(p.axis);
    let tm = axis * p.to_gizmo.as_dmat4();
    let inv = tm.inverse();
    map_selected(&mut mesh, only, |v| {
        let q = tm.transform_point3(v.as_dvec3());
        let (x, z) = (q.x, q.z);
        let a = std::f64::consts::PI - z / r;
        let (s, c) = a.sin_cos();
        let bent = DVec3::new(r * c + r - x * c, q.y, r * s - x * s);
        inv.transform_point3(bent).as_vec3()
    });
    mesh
}

/// Bend parameters: 0 angle, 1 direction, 2 axis, 3 limits.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let d = match simple_deform(mc, input, 3)? {
        Ok(d) => d,
        Err(done) => return Ok(done),
    };
    let pe = |e| param_stop(mc.object(), e);
    let p = BendParams {
        angle: d.params.float(0).map_err(pe)?,
        direction: d.params.float(1).map_err(pe)?,
        axis: d.axis,
        to_gizmo: d.to_gizmo,
        extent: d.extent,
    };
    Ok(Evaluated::Mesh(bend(d.mesh, &p, d.only)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    use crate::eval::mesh::points_with_one_triangle as line;

    #[test]
    fn a_full_turn_about_z_rolls_the_axis_into_a_circle() {
        // Axis Z, extent 2π along Z, angle 360°: r = 2π / 2π = 1. The point at z = 0
        // stays (a = π: x' = −r + r = 0, z' = 0); at z = π (a = 0): x' = r + r = 2,
        // z' = 0; at z = π/2 (a = π/2): x' = r = 1, z' = r = 1. Identity frame.
        let p = BendParams {
            angle: 360.0,
            direction: 0.0,
            axis: 2,
            to_gizmo: Mat4::IDENTITY,
            extent: [1.0, 1.0, std::f32::consts::TAU],
        };
        let out = bend(
            line(&[[0.0, 0.0, 0.0], [0.0, 0.0, std::f32::consts::PI], [0.0, 3.0, std::f32::consts::FRAC_PI_2]]),
            &p,
            None,
        );
        let near = |a: Vec3, b: [f32; 3]| (a - Vec3::from_array(b)).length() < 1e-5;
        assert!(near(out.positions[0], [0.0, 0.0, 0.0]), "{:?}", out.positions[0]);
        assert!(near(out.positions[1], [2.0, 0.0, 0.0]), "{:?}", out.positions[1]);
        // y is along the bend's cylinder axis and stays.
        assert!(near(out.positions[2], [1.0, 3.0, 1.0]), "{:?}", out.positions[2]);
        // Angle 0: nothing moves.
        // With a sub-object selection only the selected vertices bend: vertex 1 at z = π
        // goes to (2, 0, 0) as above, vertex 2 (not selected) keeps (0, 3, π/2).
        let picked = bend(
            line(&[[0.0, 0.0, 0.0], [0.0, 0.0, std::f32::consts::PI], [0.0, 3.0, std::f32::consts::FRAC_PI_2]]),
            &p,
            Some(&[true, true, false]),
        );
        assert!(near(picked.positions[1], [2.0, 0.0, 0.0]), "{:?}", picked.positions[1]);
        assert_eq!(picked.positions[2], Vec3::new(0.0, 3.0, std::f32::consts::FRAC_PI_2));
        let flat =
            bend(line(&[[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), &BendParams { angle: 0.0, ..p }, None);
        assert_eq!(flat.positions[0], Vec3::new(0.0, 0.0, 1.0));
    }
}
