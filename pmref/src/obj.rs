//! Wavefront OBJ references through `tobj`: one mesh node per `o`/`g` group, world-space
//! positions, polygons kept as written (no triangulation), no hierarchy and no transforms.

use crate::scene::{Format, RefMesh, RefNode, RefScene};
use glam::DMat4;

/// Why an OBJ reference did not read.
#[derive(Debug, thiserror::Error)]
#[error("OBJ: {0}")]
pub struct ObjError(String);

/// Reads OBJ text (material libraries are not followed: geometry only).
pub fn read_scene(bytes: &[u8]) -> Result<RefScene, ObjError> {
    let options =
        tobj::LoadOptions { triangulate: false, ignore_points: true, ignore_lines: true, ..Default::default() };
    let mut reader = std::io::BufReader::new(bytes);
    let (models, _) = tobj::load_obj_buf(&mut reader, &options, |_| Err(tobj::LoadError::OpenFileFailed))
        .map_err(|e| ObjError(e.to_string()))?;
    let mut nodes = Vec::new();
    for m in models {
        let mesh = &m.mesh;
        let positions: Vec<[f64; 3]> =
            mesh.positions.chunks_exact(3).map(|c| [c[0] as f64, c[1] as f64, c[2] as f64]).collect();
        let mut polygons = Vec::new();
        let mut at = 0usize;
        let arities: Vec<u32> =
            if mesh.face_arities.is_empty() { vec![3; mesh.indices.len() / 3] } else { mesh.face_arities.clone() };
        for n in arities {
            let end = at + n as usize;
            let Some(corners) = mesh.indices.get(at..end) else {
                return Err(ObjError("face runs past its indices".into()));
            };
            polygons.push(corners.to_vec());
            at = end;
        }
        nodes.push(RefNode {
            name: m.name,
            kind: "Mesh".into(),
            parent: None,
            local: DMat4::IDENTITY,
            pre_rotation: [0.0; 3],
            geometric: DMat4::IDENTITY,
            mesh: Some(RefMesh { positions, polygons, uv: None }),
            offset: 0,
            fbx_transform: None,
        });
    }
    Ok(RefScene { position_resolution: Some(resolution(bytes)), ..RefScene::of_nodes(Format::Obj, nodes) })
}

/// Half a unit of the finest decimal any `v` line prints (the precision the text keeps).
fn resolution(bytes: &[u8]) -> f64 {
    let text = String::from_utf8_lossy(bytes);
    let decimals = text
        .lines()
        .filter(|l| l.starts_with("v "))
        .flat_map(|l| l.split_whitespace().skip(1))
        .filter_map(|w| w.split_once('.').map(|(_, frac)| frac.chars().take_while(char::is_ascii_digit).count()))
        .max()
        .unwrap_or(0)
        .min(17);
    0.5 * 10f64.powi(-(decimals as i32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_become_mesh_nodes_with_polygons_kept() {
        let text = b"o A\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\no B\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 5 6 7\n";
        let scene = read_scene(text).unwrap();
        assert_eq!(scene.nodes.len(), 2);
        let a = scene.nodes[0].mesh.as_ref().unwrap();
        assert_eq!(
            (scene.nodes[0].name.as_str(), a.positions.len(), a.polygons.clone()),
            ("A", 4, vec![vec![0, 1, 2, 3]])
        );
        let b = scene.nodes[1].mesh.as_ref().unwrap();
        assert_eq!((b.positions[2], b.polygons.clone()), ([0.0, 1.0, 1.0], vec![vec![0, 1, 2]]));
        assert_eq!(scene.position_resolution, Some(0.5));
        assert_eq!(resolution(b"v 1.2500 0 0\nv 1.5 2 3\n"), 0.5e-4);
    }
}
