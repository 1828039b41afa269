//! Deforming modifiers built on Max's "simple modifier" frame: a gizmo placed in the
//! modifier's context, every vertex mapped through it. The Bend and Taper modifiers, and
//! Mirror (its own gizmo frame: mod context, then the inverse gizmo).
//!
//! The frame (facts of the SDK's `SimpleMod::CompMatrix` / `ModifyObject`, the SDK sample
//! `bend.cpp`): the mod-context matrix `0x2500 → 0x2510` then the inverse of the gizmo
//! controller (reference 0) and the inverse of the centre's position (reference 1) take a
//! vertex into gizmo space; the bend axis is turned onto Z (X: −90° about Y, Y: +90° about
//! X) and the direction parameter turns about Z; the bend radius is the extent of the
//! mod-context box `0x2500 → 0x2511` (min, max) along the axis divided by the angle in
//! radians; a point at `(x, ·, z)` goes to `x' = r·cos(π − z/r) + r − x·cos(π − z/r)`,
//! `z' = r·sin(π − z/r) − x·sin(π − z/r)` (in `f64`, as the sample computes), then back.
//!
//! Taper (`taper.cpp`, same frame without the direction turn): with `z` the gizmo-space
//! height over the box extent along the axis (mirrored to `|z|` with symmetry), the
//! effect axes (0 X, 1 Y, 2 both, in gizmo space) scale by `1 + z·amount + curve·z·(1 − z)`.
//!
//! Both deform the selection passed up the stack (the SDK's `SimpleMod::ModifyObject`
//! deforms with `useSel`: at sub-object level only the selected vertices move), given as
//! `only` ([`super::selection`]); `None` moves every vertex (object level).

use super::mesh::EvalMesh;
use glam::{DMat4, DVec3, Mat4, Vec3};

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

/// Moves the vertices `only` selects (every vertex when `None`) through `f`.
fn map_selected(mesh: &mut EvalMesh, only: Option<&[bool]>, f: impl Fn(Vec3) -> Vec3) {
    match only {
        None => mesh.map_positions(f),
        Some(sel) => {
            for (v, _) in mesh.positions.iter_mut().zip(sel).filter(|(_, s)| **s) {
                *v = f(*v);
            }
        }
    }
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

/// The axis turn of a simple modifier: the chosen axis onto gizmo Z.
fn axis_turn(axis: usize) -> DMat4 {
    match axis {
        0 => DMat4::from_rotation_y(-std::f64::consts::FRAC_PI_2),
        1 => DMat4::from_rotation_x(std::f64::consts::FRAC_PI_2),
        _ => DMat4::IDENTITY,
    }
}

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
    /// Object space → gizmo space, as for [`BendParams::to_gizmo`].
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

/// Mirror parameters (old parameter block: 0 axis, 1 copy, 2 offset; the gizmo is
/// reference 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MirrorParams {
    /// 0 X, 1 Y, 2 Z, 3 XY, 4 YZ, 5 ZX.
    pub axis: usize,
    /// Keep the original and mirror a copy.
    pub copy: bool,
    /// Offset along the mirrored axes.
    pub offset: f32,
    /// Object space → gizmo space: inverse(gizmo) · mod-context matrix.
    pub to_gizmo: Mat4,
}

/// The Mirror modifier over a whole mesh (the SDK sample `mirror.cpp`, facts only): with
/// copy, every face is cloned with its own vertices (appended after the originals) and the
/// clones are mirrored; the mirrored faces are flipped when one axis is mirrored; a vertex
/// goes through the gizmo frame, the mirrored axes scaled by −1 and shifted by the offset.
pub fn mirror(mut mesh: EvalMesh, p: &MirrorParams) -> EvalMesh {
    let mut scale = DVec3::ONE;
    let mut shift = DVec3::ZERO;
    let axes: &[usize] = match p.axis {
        a @ 0..=2 => &[[0, 1, 2][a]],
        a => &[[[0, 1], [1, 2], [2, 0]][a - 3][0], [[0, 1], [1, 2], [2, 0]][a - 3][1]],
    };
    for &a in axes {
        scale[a] = -1.0;
        shift[a] = f64::from(p.offset);
    }
    let tm = p.to_gizmo.as_dmat4();
    let whole = tm.inverse() * DMat4::from_translation(shift) * DMat4::from_scale(scale) * tm;
    // With copy: the vertices any face uses are copied in vertex order, the faces cloned
    // onto the copies after the originals.
    let face_start = if p.copy {
        let mut used = vec![false; mesh.positions.len()];
        for f in &mesh.polygons {
            for &v in f.corners.iter().chain(f.triangles.iter().flatten()) {
                used[v as usize] = true;
            }
        }
        let mut copy = vec![u32::MAX; mesh.positions.len()];
        for v in 0..used.len() {
            if used[v] {
                copy[v] = mesh.positions.len() as u32;
                let q = mesh.positions[v];
                mesh.positions.push(q);
            }
        }
        let faces = mesh.polygons.len();
        let clones: Vec<_> = mesh
            .polygons
            .iter()
            .map(|f| {
                let mut c = f.clone();
                for v in c.corners.iter_mut().chain(c.triangles.iter_mut().flatten()) {
                    *v = copy[*v as usize];
                }
                c
            })
            .collect();
        mesh.polygons.extend(clones);
        faces
    } else {
        0
    };
    let mut moved = vec![false; mesh.positions.len()];
    for f in &mut mesh.polygons[face_start..] {
        for &v in f.corners.iter().chain(f.triangles.iter().flatten()) {
            moved[v as usize] = true;
        }
        if axes.len() == 1 {
            f.corners.reverse();
            for t in &mut f.triangles {
                t.reverse();
            }
        }
    }
    for (v, m) in mesh.positions.iter_mut().zip(moved) {
        if m {
            *v = whole.transform_point3(v.as_dvec3()).as_vec3();
        }
    }
    mesh
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

    #[test]
    fn mirror_with_copy_keeps_the_original_and_adds_a_flipped_reflection() {
        // Axis Y (1), copy, offset 0, identity frame: (1, 2, 3) (4, 5, 6) (7, 8, 9) stay and
        // gain (1, −2, 3) (4, −5, 6) (7, −8, 9) as vertices 3–5; the clone of face (0 1 2)
        // is (5 4 3), winding reversed. Axis XY (3) without copy: x and y negated in place,
        // winding kept; an offset of 1 on axis X moves the mirrored x by +1.
        let tri = line(&[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]]);
        let p = MirrorParams { axis: 1, copy: true, offset: 0.0, to_gizmo: Mat4::IDENTITY };
        let out = mirror(tri.clone(), &p);
        assert_eq!(out.positions.len(), 6);
        assert_eq!(out.positions[0], Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(out.positions[3], Vec3::new(1.0, -2.0, 3.0));
        assert_eq!(out.positions[5], Vec3::new(7.0, -8.0, 9.0));
        assert_eq!(out.polygons[1].corners, vec![5, 4, 3]);
        let both = mirror(tri.clone(), &MirrorParams { axis: 3, copy: false, ..p });
        assert_eq!(both.positions[0], Vec3::new(-1.0, -2.0, 3.0));
        assert_eq!(both.polygons[0].corners, vec![0, 1, 2]);
        let shifted = mirror(tri, &MirrorParams { axis: 0, copy: false, offset: 1.0, ..p });
        assert_eq!(shifted.positions[0], Vec3::new(0.0, 2.0, 3.0));
    }

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
