//! What the deforming modifiers built on Max's "simple modifier" frame share (Bend in
//! [`super::modifier::bend`], Taper in [`super::modifier::taper`]): a gizmo placed in the
//! modifier's context, every selected vertex mapped through it.
//!
//! The frame (facts of the SDK's `SimpleMod::CompMatrix` / `ModifyObject`, the SDK sample
//! `bend.cpp`): the mod-context matrix `0x2500 → 0x2510` then the inverse of the gizmo
//! controller (reference 0) and the inverse of the centre's position (reference 1) take a
//! vertex into gizmo space (`gizmo::simple_frame`).
//!
//! Both deform the selection passed up the stack (the SDK's `SimpleMod::ModifyObject`
//! deforms with `useSel`: at sub-object level only the selected vertices move), given as
//! `only` ([`super::selection`]); `None` moves every vertex (object level).

use super::context::ModContext;
use super::derived::mod_context_box;
use super::gizmo::simple_frame;
use super::mesh::EvalMesh;
use super::outcome::{param_stop, stop, Evaluated, Stop};
use super::params::Params;
use glam::{DMat4, Mat4, Vec3};

/// Moves the vertices `only` selects (every vertex when `None`) through `f`.
pub(crate) fn map_selected(mesh: &mut EvalMesh, only: Option<&[bool]>, f: impl Fn(Vec3) -> Vec3) {
    match only {
        None => mesh.map_positions(f),
        Some(sel) => {
            for (v, _) in mesh.positions.iter_mut().zip(sel).filter(|(_, s)| **s) {
                *v = f(*v);
            }
        }
    }
}

/// The axis turn of a simple modifier: the chosen axis onto gizmo Z.
pub(crate) fn axis_turn(axis: usize) -> DMat4 {
    match axis {
        0 => DMat4::from_rotation_y(-std::f64::consts::FRAC_PI_2),
        1 => DMat4::from_rotation_x(std::f64::consts::FRAC_PI_2),
        _ => DMat4::IDENTITY,
    }
}

/// A simple deformer's setup over a built mesh: its parameters, axis, frame and the vertices
/// it moves.
pub(crate) struct SimpleDeform<'s> {
    /// Parameter block 2.
    pub params: Params,
    /// Primary axis 0 X, 1 Y, 2 Z (parameter 2).
    pub axis: usize,
    /// Object space → gizmo space.
    pub to_gizmo: Mat4,
    /// The mod-context box extent along each axis.
    pub extent: [f32; 3],
    /// The mesh.
    pub mesh: EvalMesh,
    /// The vertices the selection moves (`None`: all).
    pub only: Option<&'s [bool]>,
}

/// Reads a simple deformer (Bend, Taper) up to its own parameters: `Ok(Err(out))` when
/// the result is already known (an input known by its counts passes on; a selection not
/// known leaves the counts known and the positions not). `limits_id`: its limits switch,
/// whose case is not evaluated.
pub(crate) fn simple_deform<'s>(
    mc: &ModContext<'s, '_>,
    input: Evaluated,
    limits_id: u16,
) -> Result<Result<SimpleDeform<'s>, Evaluated>, Stop> {
    let m = mc.object();
    let params = Params::of(mc.index(), m, 2).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    if params.int_or(limits_id, 0).map_err(pe)? != 0 {
        return Err(stop(m, "limits (from / to) are not evaluated"));
    }
    let axis = params.int(2).map_err(pe)?;
    let axis =
        usize::try_from(axis).ok().filter(|a| *a < 3).ok_or_else(|| stop(m, format!("axis {axis} not evaluated")))?;
    let to_gizmo = simple_frame(mc.index(), mc.modifier)?;
    let (low, high) = mod_context_box(mc.modifier.mod_app).ok_or_else(|| stop(m, "mod-context box missing"))?;
    let extent = (high - low).to_array();
    let Evaluated::Mesh(mesh) = input else { return Ok(Err(input)) };
    // Only the selection passed up the stack moves (`super::selection`); one not known
    // leaves the counts known and the positions not.
    let only = match mc.selection.deformed(mesh.positions.len()) {
        Ok(only) => only,
        Err(why) => {
            let name = m.class.as_ref().map(|c| c.name.as_str()).unwrap_or_default();
            return Ok(Err(Evaluated::CountOnly {
                counts: mesh.counts(),
                rule: mesh.rule,
                note: format!("{name}: {why}; positions not known"),
            }));
        }
    };
    Ok(Ok(SimpleDeform { params, axis, to_gizmo, extent, mesh, only }))
}
