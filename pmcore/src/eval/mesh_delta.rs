//! The MeshDelta records of an Edit Mesh that move, delete and create (called from
//! [`super::edit_mesh::apply`]), measured on the pairs (the FBX Max wrote is the result):
//!
//! * `0x0130` — created vertices: `u32` count, then `(i32 original, f32 x, y, z)`; original
//!   −1 is a new vertex at that position, appended after the input's
//!   (`public/dimapetrinko__horse.max`: 2,081 new vertices over a 1,536-vertex Lathe, and
//!   Max's Mesh Totals count 1,536 + 2,081 + the 25 of its plane); a copy of an existing
//!   vertex (original ≥ 0, `wild/seanconway512__hand2.max`) stops;
//! * `0x0140` — vertex moves: `u32` count, then `(u32 vertex, f32 dx, dy, dz)` (the SDK's
//!   `VertMove`): `Cylinder001` of `pairs/…/SeanWork/Lantern.max` moves 18 of its 72
//!   vertices by (0, 0, −0.507), and its export keeps 72 vertices at the moved places;
//! * `0x0170` — deleted vertices, `0x0270` — deleted faces: BitArray containers (`0x2700`)
//!   over the input's vertices / faces (`Lantern` deletes vertex 0 and the seven faces
//!   around it: 114 → 113 vertices);
//! * `0x0208` — created faces: `u32` count, then 24-byte records `(i32 original, u32 a, b,
//!   c, u32 smoothing, u32 flags)` (the SDK's `FaceCreate`: original −1 for a new face; the
//!   face's flags hold the edge visibility bits and the material id in the high word);
//!   `Lantern` creates 66 faces over its input's vertices: 224 − 7 + 66 = 283 faces.
//!
//! Order (the SDK's `MeshDelta::Apply`): created vertices, moves, then the created faces appended after the
//! input's, then the deletions, vertices and faces renumbered in order. A created face
//! copied from an existing one (original ≠ −1), or a kept face on a deleted vertex, stops.

use super::edit_poly::bit_array;
use super::mesh::{EvalMesh, Polygon};
use crate::chunk::Chunk;
use glam::Vec3;

/// Created vertices.
pub const VERTEX_CREATES: u16 = 0x0130;
/// Vertex moves.
pub const VERTEX_MOVES: u16 = 0x0140;
/// Deleted vertices.
pub const VERTEX_DELETES: u16 = 0x0170;
/// Created faces.
pub const FACE_CREATES: u16 = 0x0208;
/// Deleted faces.
pub const FACE_DELETES: u16 = 0x0270;
/// The BitArray inside a delete set.
const BIT_ARRAY: u16 = 0x2700;

/// The topology and move records of one MeshDelta.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopologyDelta {
    /// New vertices, appended after the input's.
    pub created_vertices: Vec<Vec3>,
    /// (vertex, offset).
    pub moves: Vec<(u32, Vec3)>,
    /// Deleted input vertices (empty: none).
    pub deleted_vertices: Vec<bool>,
    /// Deleted input faces (empty: none).
    pub deleted_faces: Vec<bool>,
    /// Created faces: corners, smoothing groups, material id.
    pub created: Vec<([u32; 3], u32, u16)>,
}

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    p.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// Records of a leaf: `u32` count, then `size`-byte records.
fn records<'c>(c: &'c Chunk<'_>, size: usize) -> Result<Vec<&'c [u8]>, String> {
    let p = c.payload().ok_or_else(|| format!("MeshDelta chunk 0x{:04x} is not a leaf", c.id))?;
    let n = u32_at(p, 0).ok_or_else(|| format!("MeshDelta chunk 0x{:04x} shorter than a count", c.id))? as usize;
    if p.len() != n.checked_mul(size).and_then(|b| b.checked_add(4)).unwrap_or(usize::MAX) {
        return Err(format!("MeshDelta chunk 0x{:04x}: {} bytes for {n} records", c.id, p.len()));
    }
    Ok(p[4..].chunks_exact(size).collect())
}

impl TopologyDelta {
    /// Records one chunk; `Ok(false)` when it is not one of this module's.
    pub fn read(&mut self, c: &Chunk<'_>) -> Result<bool, String> {
        match c.id {
            VERTEX_CREATES => {
                for r in records(c, 16)? {
                    let original = u32_at(r, 0).unwrap_or(0);
                    if original != u32::MAX {
                        return Err(format!("MeshDelta created vertex copied from vertex {original} not applied"));
                    }
                    let f = |at| f32::from_bits(u32_at(r, at).unwrap_or(0));
                    let p = Vec3::new(f(4), f(8), f(12));
                    if !p.is_finite() {
                        return Err("MeshDelta created vertex is not finite".into());
                    }
                    self.created_vertices.push(p);
                }
            }
            VERTEX_MOVES => {
                for r in records(c, 16)? {
                    let f = |at| f32::from_bits(u32_at(r, at).unwrap_or(0));
                    let d = Vec3::new(f(4), f(8), f(12));
                    if !d.is_finite() {
                        return Err("MeshDelta vertex move is not finite".into());
                    }
                    self.moves.push((u32_at(r, 0).unwrap_or(0), d));
                }
            }
            VERTEX_DELETES | FACE_DELETES => {
                let bits = c
                    .child(BIT_ARRAY)
                    .and_then(bit_array)
                    .ok_or_else(|| format!("MeshDelta chunk 0x{:04x} holds no bit array", c.id))?;
                if c.id == VERTEX_DELETES {
                    self.deleted_vertices = bits;
                } else {
                    self.deleted_faces = bits;
                }
            }
            FACE_CREATES => {
                for r in records(c, 24)? {
                    let w = |at| u32_at(r, at).unwrap_or(0);
                    if w(0) != u32::MAX {
                        return Err(format!("MeshDelta created face copied from face {} not applied", w(0)));
                    }
                    self.created.push(([w(4), w(8), w(12)], w(16), (w(20) >> 16) as u16));
                }
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// Whether any record was read.
    pub fn is_empty(&self) -> bool {
        self.created_vertices.is_empty()
            && self.moves.is_empty()
            && !self.deleted_vertices.contains(&true)
            && !self.deleted_faces.contains(&true)
            && self.created.is_empty()
    }

    /// Whether the records name any of the input's `vertices` (a move, a deletion, a created
    /// face on one of them): only then must the input be numbered as Max numbers it. The
    /// horse's Edit Mesh creates its 2,081 vertices and 4,124 faces apart from the Lathe's.
    pub fn indexes_input(&self, vertices: usize) -> bool {
        self.moves.iter().any(|&(v, _)| (v as usize) < vertices)
            || self.deleted_vertices.contains(&true)
            || self.deleted_faces.contains(&true)
            || self.created.iter().any(|(c, ..)| c.iter().any(|&v| (v as usize) < vertices))
    }

    /// Applies the records to `mesh` (faces indexed in triangle order). A polygon that
    /// loses some of its triangles keeps the others as triangles of their own; a created
    /// face is a polygon of one triangle.
    pub fn apply(&self, mut mesh: EvalMesh) -> Result<EvalMesh, String> {
        mesh.positions.extend_from_slice(&self.created_vertices);
        let vertices = mesh.positions.len();
        for &(v, d) in &self.moves {
            let p = mesh
                .positions
                .get_mut(v as usize)
                .ok_or_else(|| format!("MeshDelta moves vertex {v} of {vertices}"))?;
            *p += d;
        }
        let triangles: usize = mesh.polygons.iter().map(Polygon::triangle_count).sum();
        if self.deleted_faces.len() > triangles || self.deleted_vertices.len() > vertices {
            return Err(format!(
                "MeshDelta deletes from {} faces / {} vertices, the input has {triangles} / {vertices}",
                self.deleted_faces.len(),
                self.deleted_vertices.len()
            ));
        }
        let mut polygons = Vec::with_capacity(mesh.polygons.len() + self.created.len());
        let mut face = 0usize;
        for p in mesh.polygons.drain(..) {
            let n = p.triangle_count();
            let kept: Vec<bool> =
                (face..face + n).map(|f| !self.deleted_faces.get(f).copied().unwrap_or(false)).collect();
            face += n;
            if kept.iter().all(|&k| k) {
                polygons.push(p);
                continue;
            }
            for (t, _) in p.mesh_triangles().into_iter().zip(&kept).filter(|(_, &k)| k) {
                polygons.push(Polygon {
                    corners: t.to_vec(),
                    material: p.material,
                    smoothing: p.smoothing,
                    triangles: Vec::new(),
                });
            }
        }
        for &(corners, smoothing, material) in &self.created {
            if let Some(v) = corners.iter().find(|&&v| v as usize >= vertices) {
                return Err(format!("MeshDelta creates a face on vertex {v} of {vertices}"));
            }
            polygons.push(Polygon { corners: corners.to_vec(), material, smoothing, triangles: Vec::new() });
        }
        // Deleted vertices go; the kept faces must not use them.
        let mut remap = vec![u32::MAX; vertices];
        let mut positions = Vec::with_capacity(vertices);
        for (i, p) in mesh.positions.iter().enumerate() {
            if !self.deleted_vertices.get(i).copied().unwrap_or(false) {
                remap[i] = positions.len() as u32;
                positions.push(*p);
            }
        }
        for p in &mut polygons {
            for c in p.corners.iter_mut().chain(p.triangles.iter_mut().flatten()) {
                *c = remap[*c as usize];
                if *c == u32::MAX {
                    return Err("MeshDelta deletes a vertex a kept face uses".into());
                }
            }
        }
        mesh.positions = positions;
        mesh.polygons = polygons;
        Ok(mesh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::FaceRule;

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// A unit square as one quad (triangles 0 = (0,1,2), 1 = (2,3,0)) plus a lone vertex 4.
    fn square() -> EvalMesh {
        let mut quad = Polygon::new(vec![0, 1, 2, 3]);
        quad.triangles = vec![[0, 1, 2], [2, 3, 0]];
        EvalMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y, Vec3::Z],
            polygons: vec![quad],
            uv: None,
            rule: FaceRule::Triangles,
        }
    }

    #[test]
    fn moves_deletes_and_creates_in_the_sdk_order() {
        let mut d = TopologyDelta::default();
        // Create vertex 5 at (2, 0, 0): 16-byte record (i32 −1, three f32).
        let mut create = u32s(&[1, u32::MAX]);
        for f in [2.0f32, 0.0, 0.0] {
            create.extend(f.to_le_bytes());
        }
        assert!(d.read(&Chunk::leaf(VERTEX_CREATES, create)).unwrap());
        // Move vertex 2 by (0, 0, 0.5): 16-byte record (u32 vertex, three f32).
        let mut moves = u32s(&[1, 2]);
        for f in [0.0f32, 0.0, 0.5] {
            moves.extend(f.to_le_bytes());
        }
        assert!(d.read(&Chunk::leaf(VERTEX_MOVES, moves)).unwrap());
        // Delete face 1 (2, 3, 0) and vertex 3 (bits: count 5, byte 0b01000).
        assert!(d
            .read(&Chunk::container(FACE_DELETES, vec![Chunk::leaf(BIT_ARRAY, [u32s(&[2]), vec![0b10]].concat())]))
            .unwrap());
        assert!(d
            .read(&Chunk::container(VERTEX_DELETES, vec![Chunk::leaf(BIT_ARRAY, [u32s(&[5]), vec![0b1000]].concat())]))
            .unwrap());
        // Create face (2, 5, 0) on the created vertex, smoothing 1, flags 3 | material 5 << 16.
        let create = u32s(&[1, u32::MAX, 2, 5, 0, 1, 3 | (5 << 16)]);
        assert!(d.read(&Chunk::leaf(FACE_CREATES, create)).unwrap());
        assert!(!d.read(&Chunk::leaf(0x0300, u32s(&[2]))).unwrap());
        let m = d.apply(square()).unwrap();
        // Vertices 0, 1, 2, 4, 5 remain (3 deleted): 4 → 3, 5 → 4; vertex 2 moved to (1, 1, 0.5).
        assert_eq!(m.positions, vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.5), Vec3::Z, Vec3::new(2.0, 0.0, 0.0)]);
        // The quad keeps triangle 0 as its own polygon; the created face follows: (2, 4, 0).
        assert_eq!(m.polygons.len(), 2);
        assert_eq!(m.polygons[0].corners, vec![0, 1, 2]);
        assert_eq!(
            (m.polygons[1].corners.clone(), m.polygons[1].smoothing, m.polygons[1].material),
            (vec![2, 4, 0], 1, 5)
        );
        assert_eq!(m.faces(), 2);
        assert!(d.indexes_input(5));
        // Only created vertices and a face over them (input of 5 vertices: 5, 6, 7 are new):
        // the input's numbering does not matter.
        let apart = TopologyDelta {
            created_vertices: vec![Vec3::ZERO; 3],
            created: vec![([5, 6, 7], 0, 0)],
            ..TopologyDelta::default()
        };
        assert!(!apart.indexes_input(5));
        assert_eq!(apart.apply(square()).unwrap().positions.len(), 8);
    }

    #[test]
    fn refuses_what_it_cannot_place() {
        // A kept face on a deleted vertex.
        let mut d = TopologyDelta::default();
        d.read(&Chunk::container(VERTEX_DELETES, vec![Chunk::leaf(BIT_ARRAY, [u32s(&[5]), vec![0b1]].concat())]))
            .unwrap();
        assert!(d.apply(square()).is_err());
        // A face copied from another, a move past the end, a short record table.
        let mut d = TopologyDelta::default();
        assert!(d.read(&Chunk::leaf(FACE_CREATES, u32s(&[1, 0, 0, 1, 2, 0, 0]))).is_err());
        let mut moves = u32s(&[1, 9]);
        moves.extend([0u8; 12]);
        d.read(&Chunk::leaf(VERTEX_MOVES, moves)).unwrap();
        assert!(d.apply(square()).is_err());
        assert!(TopologyDelta::default().read(&Chunk::leaf(VERTEX_MOVES, u32s(&[2, 0]))).is_err());
    }
}
