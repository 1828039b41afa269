//! Shell: the surface doubled into an outer and an inner skin joined along its open
//! borders by rims of quads.
//!
//! Topology: V' = 2V + (segments − 1)·Vb, polygons F' = 2F + segments·Eb, where Vb and Eb
//! are the border vertices and edges. Max counts the result's faces as triangles
//! (measured on Plane inputs: `pairs/…/ModularDoorWindowed.max`, a 1×1 plane under Shell
//! adds 8 vertices and 12 faces = 2 caps + 4 rim quads, as triangles).

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{mesh_of, param_stop, stop, within_budget, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::Carry;
use glam::Vec3;
use std::collections::HashMap;

/// Shell parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ShellParams {
    /// Offset of the inner skin along the vertex normals (inwards).
    pub inner: f32,
    /// Offset of the outer skin along the vertex normals.
    pub outer: f32,
    /// Segments across each rim.
    pub segments: u32,
}

/// Shells a mesh (as a poly object) into a tri object.
pub(crate) fn shell(input: EvalMesh, p: &ShellParams) -> EvalMesh {
    let mesh = input.into_poly();
    let v = mesh.positions.len();
    let segments = p.segments.max(1);
    let normals = vertex_normals(&mesh);
    let border = border_edges(&mesh);
    let mut border_index: HashMap<u32, u32> = HashMap::new();
    for &(a, b, _) in &border {
        for x in [a, b] {
            let next = border_index.len() as u32;
            border_index.entry(x).or_insert(next);
        }
    }
    let vb = border_index.len() as u32;
    let mut positions = Vec::with_capacity(2 * v + (segments as usize - 1) * vb as usize);
    positions.extend(mesh.positions.iter().zip(&normals).map(|(q, n)| *q + *n * p.outer));
    positions.extend(mesh.positions.iter().zip(&normals).map(|(q, n)| *q - *n * p.inner));
    let mut ring_sources: Vec<u32> = vec![0; vb as usize];
    for (&src, &i) in &border_index {
        ring_sources[i as usize] = src;
    }
    for k in 1..segments {
        let t = k as f32 / segments as f32;
        for &src in &ring_sources {
            let (q, n) = (mesh.positions[src as usize], normals[src as usize]);
            positions.push(q + n * (p.outer + (-p.inner - p.outer) * t));
        }
    }
    let v32 = v as u32;
    let row = |k: u32, x: u32| match k {
        0 => x,
        k if k == segments => x + v32,
        k => 2 * v32 + (k - 1) * vb + border_index[&x],
    };
    let mut polygons = Vec::with_capacity(2 * mesh.polygons.len() + border.len() * segments as usize);
    for poly in &mesh.polygons {
        polygons.push(Polygon { triangles: Vec::new(), ..poly.clone() });
    }
    for poly in &mesh.polygons {
        let corners = poly.corners.iter().rev().map(|c| c + v32).collect();
        polygons.push(Polygon {
            corners,
            material: poly.material,
            smoothing: poly.smoothing,
            triangles: Vec::new(),
            hidden_edges: 0,
        });
    }
    for &(a, b, material) in &border {
        for k in 0..segments {
            let corners = vec![row(k, b), row(k, a), row(k + 1, a), row(k + 1, b)];
            polygons.push(Polygon { corners, material, smoothing: 0, triangles: Vec::new(), hidden_edges: 0 });
        }
    }
    EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles }
}

/// Vertex normals: face normals (Newell, unit) weighted by the face's corner angle at
/// the vertex — independent of how the faces around are split. Measured on
/// `guardTower.max` `Cylinder010` (a ProBoolean's triangles under Shell, outer 0.1): the
/// FBX Max wrote moves (22, 0, 0) to (22.1, 0, 0); area-weighted normals tilted it to
/// (22.0998, 0.0059, 0) and left 47 of 138 vertices off, angle weights none.
fn vertex_normals(mesh: &EvalMesh) -> Vec<Vec3> {
    let mut normals = vec![Vec3::ZERO; mesh.positions.len()];
    for poly in &mesh.polygons {
        let mut n = Vec3::ZERO;
        for (i, &a) in poly.corners.iter().enumerate() {
            let (pa, pb) =
                (mesh.positions[a as usize], mesh.positions[poly.corners[(i + 1) % poly.corners.len()] as usize]);
            n += Vec3::new((pa.y - pb.y) * (pa.z + pb.z), (pa.z - pb.z) * (pa.x + pb.x), (pa.x - pb.x) * (pa.y + pb.y));
        }
        let n = n.normalize_or_zero();
        let k = poly.corners.len();
        for (i, &c) in poly.corners.iter().enumerate() {
            let at = mesh.positions[c as usize];
            let to_next = mesh.positions[poly.corners[(i + 1) % k] as usize] - at;
            let to_prev = mesh.positions[poly.corners[(i + k - 1) % k] as usize] - at;
            normals[c as usize] += n * to_next.angle_between(to_prev);
        }
    }
    normals.into_iter().map(|n| n.normalize_or_zero()).collect()
}

/// Border edges: used by exactly one face, kept in that face's direction, with its material.
fn border_edges(mesh: &EvalMesh) -> Vec<(u32, u32, u16)> {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for poly in &mesh.polygons {
        for (i, &a) in poly.corners.iter().enumerate() {
            let b = poly.corners[(i + 1) % poly.corners.len()];
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut border: Vec<(u32, u32, u16)> = Vec::new();
    for poly in &mesh.polygons {
        for (i, &a) in poly.corners.iter().enumerate() {
            let b = poly.corners[(i + 1) % poly.corners.len()];
            if uses[&(a.min(b), a.max(b))] == 1 {
                border.push((a, b, poly.material));
            }
        }
    }
    border
}

/// The Shell's evaluator.
pub(crate) const SHELL: Modifier = Modifier::new(module_path!(), apply, false, Carry::Loses);

/// Shell parameters: 0 inner, 1 outer amount, 3 segments.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    let params = Params::of(mc.index(), m, 0).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    let segments = params.int(3).map_err(pe)?;
    let segments = u32::try_from(segments)
        .ok()
        .filter(|s| (1..=1000).contains(s))
        .ok_or_else(|| stop(m, format!("segments {segments} out of range")))?;
    let p = ShellParams { inner: params.float(0).map_err(pe)?, outer: params.float(1).map_err(pe)?, segments };
    let mesh = mesh_of(m, input)?;
    // Upper bound of the result (every vertex on the border).
    within_budget(m, (mesh.positions.len() as u64).saturating_mul(u64::from(segments) + 1), mc.eval.budget)?;
    Ok(Evaluated::Mesh(shell(mesh, &p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::plane::{plane_mesh, PlaneParams};
    use crate::eval::primitive::r#box::{box_mesh, BoxParams};

    #[test]
    fn shelled_plane_grid() {
        // A 4×4 plane: V 25, 16 quads, border 16 edges / 16 vertices. One segment:
        // V = 50, polygons 32 + 16 = 48 quads, 96 triangles. Two segments: V = 50 + 16 = 66,
        // polygons 32 + 32 = 64.
        let plane = plane_mesh(&PlaneParams { length: 4.0, width: 4.0, length_segs: 4, width_segs: 4 }).unwrap();
        let one = shell(plane.clone(), &ShellParams { inner: 0.0, outer: 1.0, segments: 1 });
        let c = one.counts();
        assert_eq!((c.vertices, c.polygons, c.triangles), (50, 48, 96));
        assert_eq!(one.faces(), 96);
        let two = shell(plane, &ShellParams { inner: 0.5, outer: 0.5, segments: 2 }).counts();
        assert_eq!((two.vertices, two.polygons), (66, 64));
    }

    #[test]
    fn vertex_normals_weigh_faces_by_their_corner_angle() {
        // Vertex 0 at the origin joins a 4 × 1 quad in z = 0 (normal +Z, area 4) and a 1 × 1
        // quad in x = 0 (normal +X, area 1), both with a 90° corner there: its normal is
        // (1, 0, 1)/√2 whatever the areas, so an outer offset of 1 puts it at
        // (0.7071068, 0, 0.7071068) (area weights would give (1, 0, 4)/√17).
        let mesh = EvalMesh {
            positions: vec![
                Vec3::ZERO,
                Vec3::new(4.0, 0.0, 0.0),
                Vec3::new(4.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, 1.0),
                Vec3::new(0.0, 0.0, 1.0),
            ],
            polygons: vec![Polygon::new(vec![0, 1, 2, 3]), Polygon::new(vec![0, 3, 4, 5])],
            uv: None,
            rule: FaceRule::Polygons,
        };
        let out = shell(mesh, &ShellParams { inner: 0.0, outer: 1.0, segments: 1 });
        assert!((out.positions[0] - Vec3::new(0.70710677, 0.0, 0.70710677)).length() < 1e-6);
    }

    #[test]
    fn shelled_closed_box_has_no_rim() {
        // A closed box has no border: V 16, 12 quads.
        let b = box_mesh(&BoxParams {
            length: 1.0,
            width: 1.0,
            height: 1.0,
            length_segs: 1,
            width_segs: 1,
            height_segs: 1,
        })
        .unwrap();
        let c = shell(b, &ShellParams { inner: 0.1, outer: 0.0, segments: 3 }).counts();
        assert_eq!((c.vertices, c.polygons), (16, 12));
    }
}
