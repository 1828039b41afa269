//! A mesh the file stores (Editable Poly / Mesh buffers, a ProBoolean's cached result, an
//! Edit Poly attach) as the evaluated-mesh type.

use super::mesh::{EvalMesh, FaceRule, MapChannel, Polygon};
use crate::chunk::Chunk;
use crate::model::geometry::{self, MeshKind};
use glam::{Vec2, Vec3};

/// Editable Mesh texture vertices (`u32 n`, n × 3 `f32`) and texture faces (`u32 n`,
/// n × 3 `u32`) under the object's 0x08fe (map channel 1).
const TRI_TVERTS: u16 = 0x2394;
const TRI_TVFACES: u16 = 0x2396;

/// Map channel 1 of a stored tri object (`object` is the GeomObject chunk), when its
/// texture faces line up with `mesh`'s triangles one for one; `None` otherwise (no channel,
/// or a channel this mesh cannot carry).
pub(crate) fn stored_tri_map(object: &Chunk<'_>, mesh: &EvalMesh) -> Option<MapChannel> {
    if mesh.polygons.iter().any(|p| p.corners.len() != 3) {
        return None;
    }
    tri_map_channel(object).filter(|map| map.faces.len() == mesh.polygons.len())
}

/// The (u, v) box of the stored map channel 1 vertices that texture faces use: every UV a
/// subdivision of the channel makes lies in it (the smoothing weights are convex), which
/// is what tells a reference exported from another mapping.
pub(crate) fn stored_tri_map_range(object: &Chunk<'_>) -> Option<[Vec2; 2]> {
    let map = tri_map_channel(object)?;
    let used = map.faces.iter().flatten().map(|&i| map.vertices[i as usize]);
    used.fold(None, |b: Option<[Vec2; 2]>, v| Some(b.map_or([v, v], |[lo, hi]| [lo.min(v), hi.max(v)])))
}

/// The stored channel: `u32 n` + n texture vertices, `u32 m` + m texture faces, every
/// corner naming a stored texture vertex.
fn tri_map_channel(object: &Chunk<'_>) -> Option<MapChannel> {
    let buffers = object.child(geometry::GEOM_BUFFERS)?;
    let verts = buffers.child(TRI_TVERTS)?.payload()?;
    let faces = buffers.child(TRI_TVFACES)?.payload()?;
    let words =
        |p: &[u8]| -> Vec<u32> { p.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect() };
    let (v, f) = (words(verts), words(faces));
    let nv = *v.first()? as usize;
    let nf = *f.first()? as usize;
    if v.len() != 1 + nv.checked_mul(3)? || f.len() != 1 + nf.checked_mul(3)? {
        return None;
    }
    let vertices = v[1..].chunks_exact(3).map(|t| Vec2::new(f32::from_bits(t[0]), f32::from_bits(t[1]))).collect();
    let faces: Vec<Vec<u32>> = f[1..].chunks_exact(3).map(|t| t.to_vec()).collect();
    faces.iter().flatten().all(|&i| (i as usize) < nv).then_some(MapChannel { vertices, faces })
}

/// A stored tri / poly mesh as an [`EvalMesh`]: dead vertices dropped, poly faces keep the
/// triangles of their stored cuts.
pub(crate) fn from_stored(mesh: &geometry::Mesh) -> EvalMesh {
    let mut remap = vec![u32::MAX; mesh.positions.len()];
    let mut positions = Vec::with_capacity(mesh.positions.len());
    for (i, p) in mesh.positions.iter().enumerate() {
        if let Some(p) = p {
            remap[i] = positions.len() as u32;
            positions.push(Vec3::from_array(*p));
        }
    }
    let polygons = mesh
        .polygons
        .iter()
        .map(|p| {
            let corners: Vec<u32> = p.corners.iter().map(|&c| remap[c as usize]).collect();
            let triangles = if corners.len() > 3 {
                geometry::triangulate_by_cuts(corners.len(), &p.cuts)
                    .map(|t| t.iter().map(|t| t.map(|l| corners[l])).collect())
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            Polygon {
                corners,
                material: p.material.unwrap_or(0),
                smoothing: p.smoothing,
                triangles,
                hidden_edges: p.hidden_edges,
            }
        })
        .collect();
    let rule = match mesh.kind {
        MeshKind::Tri => FaceRule::Triangles,
        MeshKind::Poly => FaceRule::Polygons,
    };
    EvalMesh { positions, polygons, uv: None, rule }
}
