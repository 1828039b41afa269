//! Symmetry: the mesh sliced by a mirror plane, the kept half mirrored across it, and the
//! two halves welded along the plane.
//!
//! Max's steps (facts from the SDK sample of the modifier, Class ID 0x2d7e702b:0x0be41a6e):
//! the plane is `N · x = offset` with `N` the mirror gizmo's axis (`axis` 0/1/2, negated by
//! `flip`) and its origin the gizmo's translation, both in object space (gizmo controller ·
//! inverse of the mod-context matrix); *slice* removes everything below the plane (faces
//! crossing it are cut, new vertices on the plane shared by the two faces of an edge) and
//! then the faces lying wholly on the plane; *mirror* clones every face and vertex through
//! the gizmo's reflection, with the winding reversed; *weld* merges the open-border
//! vertices within `threshold` of the plane with their mirror images. A tri input stays a
//! tri object, a poly input a poly object.
//!
//! Counts: with `V_above` vertices kept above the plane, `V_on` on it (after the cut) and
//! `F` faces kept, the welded result has `2·V_above + V_on` vertices and `2F` faces.

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::gizmo::{context_of, prs_matrix};
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{mesh_of, param_stop, stop, within_budget, Evaluated, Stop};
use crate::eval::params::{ParamError, Params};
use crate::eval::selection::Carry;
use glam::{Mat4, Vec3};
use std::collections::HashMap;

/// Distance under which a vertex counts as lying on the plane (Max's `MNEPS`).
pub(crate) const ON_PLANE: f32 = 1e-4;

/// Symmetry settings, in the input's object space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SymmetryParams {
    /// Gizmo → object space (the mirror controller's matrix · inverse of the mod context).
    pub gizmo: Mat4,
    /// Mirror axis of the gizmo: 0 X, 1 Y, 2 Z.
    pub axis: usize,
    /// Keep the other side.
    pub flip: bool,
    /// Cut the mesh along the plane and drop what is below it.
    pub slice: bool,
    /// Weld the seam.
    pub weld: bool,
    /// Weld distance.
    pub threshold: f32,
}

impl SymmetryParams {
    /// The plane `(N, offset)` in object space.
    pub(crate) fn plane(&self) -> (Vec3, f32) {
        let mut a = Vec3::ZERO;
        a[self.axis.min(2)] = if self.flip { -1.0 } else { 1.0 };
        let origin = self.gizmo.transform_point3(Vec3::ZERO);
        let n = (self.gizmo.transform_point3(a) - origin).normalize_or_zero();
        (n, n.dot(origin))
    }

    /// Reflection through the gizmo's plane: gizmo⁻¹, then the axis negated, then gizmo.
    pub(crate) fn reflection(&self) -> Mat4 {
        let mut s = Vec3::ONE;
        s[self.axis.min(2)] = -1.0;
        self.gizmo * Mat4::from_scale(s) * self.gizmo.inverse()
    }
}

/// Applies Symmetry to `input`.
pub(crate) fn symmetry(input: EvalMesh, p: &SymmetryParams) -> EvalMesh {
    let (n, offset) = p.plane();
    let rule = input.rule;
    let mut mesh = match rule {
        // A tri object is cut triangle by triangle.
        FaceRule::Triangles => explode_triangles(input),
        FaceRule::Polygons => input,
    };
    let dist = |q: Vec3| n.dot(q) - offset;
    if p.slice {
        mesh = slice(mesh, &dist);
    }
    let v = mesh.positions.len() as u32;
    let reflect = p.reflection();
    let mirrored: Vec<Vec3> = mesh.positions.iter().map(|&q| reflect.transform_point3(q)).collect();
    mesh.positions.extend(mirrored);
    let clones: Vec<Polygon> = mesh
        .polygons
        .iter()
        .map(|poly| Polygon {
            corners: poly.corners.iter().rev().map(|c| c + v).collect(),
            material: poly.material,
            smoothing: poly.smoothing,
            triangles: Vec::new(),
            hidden_edges: 0,
        })
        .collect();
    mesh.polygons.extend(clones);
    if p.weld {
        weld_seam(&mut mesh, v, &dist, p.threshold.max(0.0));
    }
    mesh.rule = rule;
    mesh
}

/// Each polygon replaced by its triangles (a tri object's faces).
fn explode_triangles(mesh: EvalMesh) -> EvalMesh {
    let mut polygons = Vec::with_capacity(mesh.polygons.len() * 2);
    for poly in &mesh.polygons {
        for t in poly.mesh_triangles() {
            polygons.push(Polygon {
                corners: t.to_vec(),
                material: poly.material,
                smoothing: poly.smoothing,
                triangles: Vec::new(),
                hidden_edges: 0,
            });
        }
    }
    let mut out = EvalMesh { positions: mesh.positions, polygons, uv: None, rule: mesh.rule };
    out.remove_unused_vertices();
    out
}

/// Keeps what lies on or above the plane: polygons crossing it are cut (one new vertex per
/// cut edge, shared by both faces of the edge), faces wholly on the plane are dropped, and
/// vertices no face uses are removed.
fn slice(mesh: EvalMesh, dist: &dyn Fn(Vec3) -> f32) -> EvalMesh {
    let d: Vec<f32> = mesh.positions.iter().map(|&q| dist(q)).collect();
    let side = |i: u32| {
        let x = d[i as usize];
        if x > ON_PLANE {
            1
        } else if x < -ON_PLANE {
            -1
        } else {
            0
        }
    };
    let mut positions = mesh.positions.clone();
    let mut cuts: HashMap<(u32, u32), u32> = HashMap::new();
    let mut polygons = Vec::with_capacity(mesh.polygons.len());
    for poly in &mesh.polygons {
        let c = &poly.corners;
        if c.iter().all(|&i| side(i) >= 0) {
            if c.iter().any(|&i| side(i) > 0) {
                polygons.push(poly.clone());
            }
            continue;
        }
        if c.iter().all(|&i| side(i) <= 0) {
            continue;
        }
        let mut kept = Vec::with_capacity(c.len() + 2);
        for (k, &a) in c.iter().enumerate() {
            let b = c[(k + 1) % c.len()];
            if side(a) >= 0 {
                kept.push(a);
            }
            if side(a) * side(b) < 0 {
                let key = (a.min(b), a.max(b));
                let idx = *cuts.entry(key).or_insert_with(|| {
                    let (pa, pb) = (positions[key.0 as usize], positions[key.1 as usize]);
                    let (da, db) = (d[key.0 as usize], d[key.1 as usize]);
                    positions.push(pa + (pb - pa) * (da / (da - db)));
                    positions.len() as u32 - 1
                });
                kept.push(idx);
            }
        }
        if kept.len() >= 3 {
            polygons.push(Polygon {
                corners: kept,
                material: poly.material,
                smoothing: poly.smoothing,
                triangles: Vec::new(),
                hidden_edges: 0,
            });
        }
    }
    let mut out = EvalMesh { positions, polygons, uv: None, rule: mesh.rule };
    out.remove_unused_vertices();
    out
}

/// Merges each open-border vertex of the original half lying within `threshold` of the
/// plane with its mirror image (index + `v`), at their midpoint.
fn weld_seam(mesh: &mut EvalMesh, v: u32, dist: &dyn Fn(Vec3) -> f32, threshold: f32) {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for poly in mesh.polygons.iter().take(mesh.polygons.len() / 2) {
        for (k, &a) in poly.corners.iter().enumerate() {
            let b = poly.corners[(k + 1) % poly.corners.len()];
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut border = vec![false; v as usize];
    for (&(a, b), &n) in &uses {
        if n == 1 {
            border[a as usize] = true;
            border[b as usize] = true;
        }
    }
    let mut target: Vec<u32> = (0..mesh.positions.len() as u32).collect();
    for i in 0..v {
        let (a, b) = (mesh.positions[i as usize], mesh.positions[(i + v) as usize]);
        if border[i as usize] && dist(a).abs() <= threshold && a.distance(b) <= threshold {
            mesh.positions[i as usize] = (a + b) * 0.5;
            target[(i + v) as usize] = i;
        }
    }
    for poly in &mut mesh.polygons {
        for c in &mut poly.corners {
            *c = target[*c as usize];
        }
    }
    mesh.remove_unused_vertices();
}

/// The Symmetry's evaluator.
pub(crate) const SYMMETRY: Modifier = Modifier::new(module_path!(), apply, false, Carry::Loses);

/// Symmetry parameters: 0 axis, 1 slice, 2 weld, 3 threshold, 4 flip; the mirror gizmo is
/// reference 1.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    let params = Params::of(mc.index(), m, 0).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    let axis = params.int(0).map_err(pe)?;
    let axis = usize::try_from(axis)
        .ok()
        .filter(|a| *a < 3)
        .ok_or_else(|| stop(m, format!("mirror axis {axis} not evaluated")))?;
    let gizmo = prs_matrix(mc.index(), m.reference(1)).map_err(|e| stop(m, format!("mirror gizmo: {e}")))?;
    let p = SymmetryParams {
        gizmo: context_of(m, mc.modifier)?.inverse() * gizmo,
        axis,
        flip: params.int_or(4, 0).map_err(pe)? != 0,
        slice: params.int_or(1, 1).map_err(pe)? != 0,
        weld: params.int_or(2, 1).map_err(pe)? != 0,
        threshold: params
            .float(3)
            .or_else(|e| if matches!(e, ParamError::Missing(_)) { Ok(0.1) } else { Err(e) })
            .map_err(pe)?,
    };
    let mesh = mesh_of(m, input)?;
    within_budget(m, (mesh.positions.len() as u64).saturating_mul(3), mc.eval.budget)?;
    Ok(Evaluated::Mesh(symmetry(mesh, &p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::plane::{plane_mesh, PlaneParams};
    use crate::eval::primitive::r#box::{box_mesh, BoxParams};

    fn params(axis: usize, x: f32) -> SymmetryParams {
        SymmetryParams {
            gizmo: Mat4::from_translation(Vec3::new(x, 0.0, 0.0)),
            axis,
            flip: false,
            slice: true,
            weld: true,
            threshold: 0.1,
        }
    }

    #[test]
    fn plane_grid_mirrored_about_its_centre_line() {
        // A 4×4 plane (x, y in −2..2, width 4 along X): 25 vertices, 16 quads as 32
        // triangles. Mirror about x = 0 keeping x ≥ 0: the columns x = 0, 1, 2 stay
        // (15 vertices: 5 on the plane, 10 above), the 2 × 4 quads there = 16 triangles.
        // Mirrored and welded: 2·10 + 5 = 25 vertices, 2·16 = 32 triangles — the plane again.
        let plane = plane_mesh(&PlaneParams { length: 4.0, width: 4.0, length_segs: 4, width_segs: 4 }).unwrap();
        let out = symmetry(plane, &params(0, 0.0));
        let c = out.counts();
        assert_eq!((c.vertices, c.triangles, out.faces()), (25, 32, 32));
    }

    #[test]
    fn box_cut_between_grid_lines_gains_a_seam_column() {
        // A 2×2×1-segment box, x and y in −1..1 (grid lines at −1, 0, 1), z 0..1: top and
        // bottom grids of 3×3 = 18 vertices, no inner rings. Mirror about x = 0.5 keeping
        // x ≥ 0.5: the 6 vertices at x = 1 (3 on top, 3 on the bottom) stay above. A tri
        // object is cut triangle by triangle, so every edge from x = 0 to x = 1 gains a
        // vertex, diagonals included: on the top grid 3 grid edges + the diagonals of its 2
        // crossing quads = 5, the bottom 5, the front and back sides 1 diagonal each (their
        // other crossing edges are grid edges already counted) = 12 on the plane.
        // Mirrored and welded: 2·6 + 12 = 24 vertices; still a tri object.
        let b = box_mesh(&BoxParams {
            length: 2.0,
            width: 2.0,
            height: 1.0,
            length_segs: 2,
            width_segs: 2,
            height_segs: 1,
        })
        .unwrap();
        let out = symmetry(b, &params(0, 0.5));
        assert_eq!(out.counts().vertices, 24);
        assert_eq!(out.rule, FaceRule::Triangles);
    }

    #[test]
    fn poly_box_mirrored_at_the_middle_keeps_its_counts() {
        // A 2×1×1 poly box (x −1..1, 2 width segments): 12 vertices, 10 quads. Mirror at
        // x = 0: the 4 vertices at x = 1 stay above, the 4 at x = 0 lie on the plane; the
        // kept faces are 4 quads (top, bottom, front, back halves) + the right side = 5;
        // no face lies wholly on the plane (the box has no inner wall). Result: 2·4 + 4 =
        // 12 vertices, 2·5 = 10 polygons — the same box.
        let b = box_mesh(&BoxParams {
            length: 1.0,
            width: 2.0,
            height: 1.0,
            length_segs: 1,
            width_segs: 2,
            height_segs: 1,
        })
        .unwrap()
        .into_poly();
        let out = symmetry(b, &params(0, 0.0));
        let c = out.counts();
        assert_eq!((c.vertices, c.polygons, out.faces()), (12, 10, 10));
        // The seam welded shut: every edge is shared by two faces (closed box: E = 20).
        assert_eq!(c.edges, 20);
    }

    #[test]
    fn without_slice_or_weld_everything_doubles() {
        // A 1×1 plane (4 vertices, 1 quad = 2 triangles) at x −0.5..0.5, mirror at x = 5
        // without slice or weld: 8 vertices, 4 triangles.
        let plane = plane_mesh(&PlaneParams { length: 1.0, width: 1.0, length_segs: 1, width_segs: 1 }).unwrap();
        let p = SymmetryParams { slice: false, weld: false, ..params(0, 5.0) };
        let c = symmetry(plane, &p).counts();
        assert_eq!((c.vertices, c.triangles), (8, 4));
    }
}
