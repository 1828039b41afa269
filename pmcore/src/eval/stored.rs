//! A mesh the file stores (Editable Poly / Mesh buffers, a ProBoolean's cached result, an
//! Edit Poly attach) as the evaluated-mesh type.

use super::mesh::{EvalMesh, FaceRule, Polygon};
use crate::model::geometry::{self, MeshKind};
use glam::Vec3;

/// A stored tri / poly mesh as an [`EvalMesh`]: dead vertices dropped, poly faces keep the
/// triangles of their stored cuts.
pub fn from_stored(mesh: &geometry::Mesh) -> EvalMesh {
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
            Polygon { corners, material: p.material.unwrap_or(0), smoothing: p.smoothing, triangles }
        })
        .collect();
    let rule = match mesh.kind {
        MeshKind::Tri => FaceRule::Triangles,
        MeshKind::Poly => FaceRule::Polygons,
    };
    EvalMesh { positions, polygons, uv: None, rule }
}
