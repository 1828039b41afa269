//! The Mirror modifier (the SDK sample `mirror.cpp`, facts only): its own gizmo frame —
//! the mod context, then the inverse gizmo (reference 0).

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::gizmo::{context_of, prs_matrix};
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{mesh_of, param_stop, stop, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::{Carry, Selection};
use glam::{DMat4, DVec3, Mat4};

/// The Mirror's evaluator: copies change the vertex and face numbering.
pub const MIRROR: Modifier = Modifier::new(module_path!(), apply, false, Carry::Loses);

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

/// Mirror parameters from the old parameter block (slot 1).
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let (index, m) = (mc.index(), mc.object());
    let params = Params::of(index, m, 1).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    let axis = params.int(0).map_err(pe)?;
    let axis = usize::try_from(axis)
        .ok()
        .filter(|a| *a < 6)
        .ok_or_else(|| stop(m, format!("mirror axis {axis} not evaluated")))?;
    let gizmo = prs_matrix(index, m.reference(0)).map_err(|e| stop(m, format!("mirror gizmo: {e}")))?;
    // Mirror's handling of a sub-object selection is not evaluated.
    if !matches!(mc.selection, Selection::Object) {
        return Err(stop(m, "a sub-object selection below Mirror is not evaluated"));
    }
    let context = context_of(m, mc.modifier)?;
    let p = MirrorParams {
        axis,
        copy: params.int(1).map_err(pe)? != 0,
        offset: params.float(2).map_err(pe)?,
        to_gizmo: gizmo.inverse() * context,
    };
    Ok(Evaluated::Mesh(mirror(mesh_of(m, input)?, &p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    use crate::eval::mesh::points_with_one_triangle as line;

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
}
