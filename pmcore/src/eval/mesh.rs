//! The one evaluated-mesh type the exporters share, and the counts Max's `Mesh Totals`
//! are compared with.
//!
//! A mesh is a list of polygons over object-space positions. Whether Max counts its faces
//! as polygons or as triangles depends on the object type that produced it (measured on
//! the pairs corpus: polygons for Editable Poly objects, triangles for Editable Mesh /
//! tri objects), so every mesh carries its [`FaceRule`]. Tri objects keep, per polygon,
//! the triangles Max stores; a polygon of a tri object is a group of triangles joined
//! across hidden edges (what Max shows as one face when it converts to poly).

use glam::{Vec2, Vec3};
use std::collections::HashMap;

/// How Max counts the faces of a mesh in `Mesh Totals`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaceRule {
    /// Tri object (Editable Mesh, procedural primitives): faces are triangles.
    Triangles,
    /// Poly object (Editable Poly and modifiers that output one): faces are polygons.
    Polygons,
}

/// One polygon: corner indices into [`EvalMesh::positions`], in winding order.
#[derive(Clone, Debug, PartialEq)]
pub struct Polygon {
    /// Corners (at least 3).
    pub corners: Vec<u32>,
    /// Material id (0-based, as stored).
    pub material: u16,
    /// Smoothing-group bits.
    pub smoothing: u32,
    /// The triangles Max stores for this face, as mesh vertex indices (they may use a
    /// vertex that is not a corner, e.g. the centre of a capped fan); empty means a fan
    /// from corner 0.
    pub triangles: Vec<[u32; 3]>,
    /// Bit k set: the edge from corner k to corner k + 1 is hidden (a stored tri face's
    /// edge-visibility flags, inverted; 0 — every edge visible — for built polygons).
    /// MeshSmooth joins triangles across hidden edges ([`crate::eval::tri_join`]).
    pub hidden_edges: u8,
}

impl Polygon {
    /// A polygon triangulated as a fan.
    pub(crate) fn new(corners: Vec<u32>) -> Self {
        Polygon { corners, material: 0, smoothing: 0, triangles: Vec::new(), hidden_edges: 0 }
    }

    /// Number of triangles this polygon makes.
    pub(crate) fn triangle_count(&self) -> usize {
        if self.triangles.is_empty() {
            self.corners.len().saturating_sub(2)
        } else {
            self.triangles.len()
        }
    }

    /// Triangles as mesh vertex indices, winding kept.
    pub fn mesh_triangles(&self) -> Vec<[u32; 3]> {
        if self.triangles.is_empty() {
            let c = &self.corners;
            (1..c.len().saturating_sub(1)).map(|i| [c[0], c[i], c[i + 1]]).collect()
        } else {
            self.triangles.clone()
        }
    }
}

/// Texture coordinates of one map channel: map vertices and one map face per polygon
/// (same arity as the polygon).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MapChannel {
    /// Map vertices (u, v).
    pub vertices: Vec<Vec2>,
    /// Per polygon, corner indices into `vertices`.
    pub faces: Vec<Vec<u32>>,
}

impl MapChannel {
    /// True when the channel has one map face per polygon, of the polygon's arity, and
    /// every map corner names a map vertex — what a modifier that changed the topology
    /// without carrying the channel breaks.
    pub(crate) fn lines_up_with(&self, polygons: &[Polygon]) -> bool {
        self.faces.len() == polygons.len()
            && self.faces.iter().zip(polygons).all(|(f, p)| f.len() == p.corners.len())
            && self.faces.iter().flatten().all(|&i| (i as usize) < self.vertices.len())
    }
}

/// An evaluated mesh in object space.
#[derive(Clone, Debug, PartialEq)]
pub struct EvalMesh {
    /// Vertex positions (every entry is live).
    pub positions: Vec<Vec3>,
    /// Polygons.
    pub polygons: Vec<Polygon>,
    /// Map channel 1, when the producer knows it.
    pub uv: Option<MapChannel>,
    /// How Max counts its faces.
    pub rule: FaceRule,
}

/// Vertex and face counts of a mesh, without the mesh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Vertices.
    pub vertices: u64,
    /// Polygons.
    pub polygons: u64,
    /// Triangles.
    pub triangles: u64,
    /// Distinct edges (polygon edges, not triangle diagonals).
    pub edges: u64,
    /// Sum of polygon arities.
    pub corners: u64,
}

impl Counts {
    /// The face count Max reports under `rule`.
    pub fn faces(&self, rule: FaceRule) -> u64 {
        match rule {
            FaceRule::Triangles => self.triangles,
            FaceRule::Polygons => self.polygons,
        }
    }
}

impl EvalMesh {
    /// An empty mesh counted under `rule`.
    pub(crate) fn empty(rule: FaceRule) -> Self {
        EvalMesh { positions: Vec::new(), polygons: Vec::new(), uv: None, rule }
    }

    /// Face count as Max reports it.
    pub fn faces(&self) -> u64 {
        self.counts().faces(self.rule)
    }

    /// Every count of this mesh (edges counted once per undirected vertex pair).
    /// The distinct edges are counted by sorting their keys: a SipHash map of every edge was
    /// ≈ 8 % of the farm's default worker on the public files (issue #43).
    pub fn counts(&self) -> Counts {
        let mut edges: Vec<u64> = Vec::with_capacity(self.polygons.iter().map(|p| p.corners.len()).sum());
        let mut c = Counts { vertices: self.positions.len() as u64, ..Default::default() };
        for p in &self.polygons {
            c.polygons += 1;
            c.triangles += p.triangle_count() as u64;
            c.corners += p.corners.len() as u64;
            for (i, &a) in p.corners.iter().enumerate() {
                let b = p.corners[(i + 1) % p.corners.len()];
                edges.push(u64::from(a.min(b)) << 32 | u64::from(a.max(b)));
            }
        }
        edges.sort_unstable();
        edges.dedup();
        c.edges = edges.len() as u64;
        c
    }

    /// Drops map channel 1 when it no longer lines up with the polygons (a modifier changed
    /// the topology and did not carry the channel): no channel beats a wrong one.
    pub(crate) fn drop_stale_map(&mut self) {
        if self.uv.as_ref().is_some_and(|uv| !uv.lines_up_with(&self.polygons)) {
            self.uv = None;
        }
    }

    /// Applies `f` to every position (modifiers that only move vertices).
    pub(crate) fn map_positions(&mut self, f: impl Fn(Vec3) -> Vec3) {
        for p in &mut self.positions {
            *p = f(*p);
        }
    }

    /// Drops vertices no polygon uses and renumbers the rest (Max's poly conversion does
    /// this to the centre vertex of a capped fan).
    pub(crate) fn remove_unused_vertices(&mut self) {
        let mut used = vec![false; self.positions.len()];
        for p in &self.polygons {
            for &c in p.corners.iter().chain(p.triangles.iter().flatten()) {
                used[c as usize] = true;
            }
        }
        let mut remap = vec![u32::MAX; self.positions.len()];
        let mut kept = Vec::with_capacity(self.positions.len());
        for (i, p) in self.positions.iter().enumerate() {
            if used[i] {
                remap[i] = kept.len() as u32;
                kept.push(*p);
            }
        }
        self.positions = kept;
        for p in &mut self.polygons {
            for c in p.corners.iter_mut().chain(p.triangles.iter_mut().flatten()) {
                *c = remap[*c as usize];
            }
        }
    }

    /// The mesh as a poly object: polygons stay what they are (a tri object's polygons
    /// are its triangles joined across hidden edges), vertices no polygon uses are gone.
    pub(crate) fn into_poly(mut self) -> EvalMesh {
        for p in &mut self.polygons {
            p.triangles.clear();
        }
        self.remove_unused_vertices();
        self.rule = FaceRule::Polygons;
        self
    }
}

/// Builds polygon meshes from an integer lattice of points: vertices shared between
/// faces are welded by their lattice key, so generators can emit each face on its own
/// and still get Max's vertex count.
#[derive(Default)]
pub(crate) struct Welder {
    keys: HashMap<[i64; 3], u32>,
    /// Positions in first-use order.
    pub positions: Vec<Vec3>,
}

impl Welder {
    /// Index of the vertex with lattice `key`, created at `position` on first use.
    pub(crate) fn vertex(&mut self, key: [i64; 3], position: Vec3) -> u32 {
        let next = self.positions.len() as u32;
        *self.keys.entry(key).or_insert_with(|| {
            self.positions.push(position);
            next
        })
    }
}

/// Test fixture of the deformers: `points` with one triangle (0 1 2) over them, a tri object.
#[cfg(test)]
pub(crate) fn points_with_one_triangle(points: &[[f32; 3]]) -> EvalMesh {
    EvalMesh {
        positions: points.iter().map(|p| Vec3::from_array(*p)).collect(),
        polygons: vec![Polygon::new(vec![0, 1, 2])],
        uv: None,
        rule: FaceRule::Triangles,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quad_counts_one_polygon_two_triangles_four_edges() {
        let m = EvalMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::ONE, Vec3::Y],
            polygons: vec![Polygon::new(vec![0, 1, 2, 3])],
            uv: None,
            rule: FaceRule::Triangles,
        };
        let c = m.counts();
        assert_eq!((c.vertices, c.polygons, c.triangles, c.edges, c.corners), (4, 1, 2, 4, 4));
        assert_eq!(m.faces(), 2);
        assert_eq!(m.clone().into_poly().faces(), 1);
    }

    #[test]
    fn poly_conversion_drops_a_vertex_no_face_uses() {
        let m = EvalMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            polygons: vec![Polygon::new(vec![1, 2, 3])],
            uv: None,
            rule: FaceRule::Triangles,
        };
        let p = m.into_poly();
        assert_eq!(p.positions.len(), 3);
        assert_eq!(p.polygons[0].corners, vec![0, 1, 2]);
    }
}
