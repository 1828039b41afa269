//! The Taper modifier (the SDK sample `taper.cpp`, facts only), in the simple-modifier
//! frame of [`crate::eval::deform`] without the direction turn: with `z` the gizmo-space
//! height over the box extent along the axis (mirrored to `|z|` with symmetry), the effect
//! axes (0 X, 1 Y, 2 both, in gizmo space) scale by `1 + z·amount + curve·z·(1 − z)`. Only
//! the selection passed up the stack moves.

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::deform::{axis_turn, map_selected, simple_deform};
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, stop, Evaluated, Stop};
use crate::eval::selection::Carry;
use glam::Mat4;

/// The Taper's evaluator.
pub const TAPER: Modifier = Modifier::new(module_path!(), apply, true, Carry::Keeps);

/// Taper parameters (parameter block ids 0–4; limits, id 5, are not evaluated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TaperParams {
    /// Amount (id 0).
    pub amount: f32,
    /// Curve (id 1).
    pub curve: f32,
    /// Primary axis 0 X, 1 Y, 2 Z (id 2).
    pub axis: usize,
    /// Effect: 0 gizmo X, 1 gizmo Y, 2 both (id 3).
    pub effect: u8,
    /// Symmetry (id 4).
    pub symmetry: bool,
    /// Object space → gizmo space, as for [`super::bend::BendParams::to_gizmo`].
    pub to_gizmo: Mat4,
    /// The mod-context box extent along each axis.
    pub extent: [f32; 3],
}

/// Tapers the vertices of `mesh` that `only` selects (every vertex when `None`).
pub fn taper(mut mesh: EvalMesh, p: &TaperParams, only: Option<&[bool]>) -> EvalMesh {
    let length = f64::from(p.extent[p.axis]);
    if length == 0.0 {
        return mesh;
    }
    let tm = axis_turn(p.axis) * p.to_gizmo.as_dmat4();
    let inv = tm.inverse();
    let (k1, k2) = (f64::from(p.amount), f64::from(p.curve));
    map_selected(&mut mesh, only, |v| {
        let mut q = tm.transform_point3(v.as_dvec3());
        let mut z = q.z / length;
        if p.symmetry && z < 0.0 {
            z = -z;
        }
        let f = 1.0 + z * k1 + k2 * z * (1.0 - z);
        if p.effect != 1 {
            q.x *= f;
        }
        if p.effect != 0 {
            q.y *= f;
        }
        inv.transform_point3(q).as_vec3()
    });
    mesh
}

/// Taper parameters: 0 amount, 1 curve, 2 axis, 3 effect, 4 symmetry, 5 limits.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let d = match simple_deform(mc, input, 5)? {
        Ok(d) => d,
        Err(done) => return Ok(done),
    };
    let m = mc.object();
    let pe = |e| param_stop(m, e);
    let effect = d.params.int(3).map_err(pe)?;
    let effect = u8::try_from(effect)
        .ok()
        .filter(|e| *e < 3)
        .ok_or_else(|| stop(m, format!("effect axis {effect} not evaluated")))?;
    let p = TaperParams {
        amount: d.params.float(0).map_err(pe)?,
        curve: d.params.float(1).map_err(pe)?,
        axis: d.axis,
        effect,
        symmetry: d.params.int_or(4, 0).map_err(pe)? != 0,
        to_gizmo: d.to_gizmo,
        extent: d.extent,
    };
    Ok(Evaluated::Mesh(taper(d.mesh, &p, d.only)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    use crate::eval::mesh::points_with_one_triangle as line;

    #[test]
    fn taper_scales_across_the_axis_by_height() {
        // Axis Z, extent 2, amount −0.5, curve 0: at z = 2 (z/l = 1) f = 0.5, at z = 1
        // f = 0.75, at z = 0 f = 1. Effect both: x and y scale; effect X: y stays.
        let p = TaperParams {
            amount: -0.5,
            curve: 0.0,
            axis: 2,
            effect: 2,
            symmetry: false,
            to_gizmo: Mat4::IDENTITY,
            extent: [1.0, 1.0, 2.0],
        };
        let out = taper(line(&[[2.0, 2.0, 2.0], [2.0, -4.0, 1.0], [3.0, 3.0, 0.0]]), &p, None);
        assert_eq!(out.positions[0], Vec3::new(1.0, 1.0, 2.0));
        assert_eq!(out.positions[1], Vec3::new(1.5, -3.0, 1.0));
        assert_eq!(out.positions[2], Vec3::new(3.0, 3.0, 0.0));
        let x_only =
            taper(line(&[[2.0, 2.0, 2.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), &TaperParams { effect: 0, ..p }, None);
        assert_eq!(x_only.positions[0], Vec3::new(1.0, 2.0, 2.0));
        // Curve 1 alone: f = 1 + z(1 − z), 1.25 at mid-height (z/l = 0.5).
        let curved = taper(
            line(&[[4.0, 0.0, 1.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]),
            &TaperParams { amount: 0.0, curve: 1.0, ..p },
            None,
        );
        assert_eq!(curved.positions[0], Vec3::new(5.0, 0.0, 1.0));
        // A sub-object selection: only vertex 1 is selected, so vertex 0 at the top
        // (f = 0.5 would halve it) stays, vertex 1 at mid-height scales by 0.75.
        let picked =
            taper(line(&[[2.0, 2.0, 2.0], [2.0, -4.0, 1.0], [3.0, 3.0, 0.0]]), &p, Some(&[false, true, false]));
        assert_eq!(picked.positions[0], Vec3::new(2.0, 2.0, 2.0));
        assert_eq!(picked.positions[1], Vec3::new(1.5, -3.0, 1.0));
    }
}
