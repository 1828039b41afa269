//! The OBJ writer (`pmcore::export::obj::write`) read back by an independent reader, `tobj`:
//! for any objects, every object comes back under its name with the same faces — the same
//! arities and, corner by corner, bit-identical positions and texture coordinates.
//! (`pmcore`'s own reader is checked against the writer in `pmcore::export::obj`; this is
//! the check that does not share code with it.)

use pmcore::export::obj::{write, ObjObject};
use proptest::prelude::*;

fn finite() -> impl Strategy<Value = f32> {
    proptest::num::f32::NORMAL | proptest::num::f32::ZERO | proptest::num::f32::SUBNORMAL
}

/// Objects with 1–8 positions, 1–6 faces of 3–6 corners, optionally a UV set.
fn objects() -> impl Strategy<Value = Vec<ObjObject>> {
    let object = (
        "[A-Za-z0-9_-][A-Za-z0-9 _-]{0,10}[A-Za-z0-9_-]",
        proptest::collection::vec(proptest::array::uniform3(finite()), 1..8),
        proptest::collection::vec(proptest::collection::vec(0u32..64, 3..7), 1..6),
        proptest::collection::vec(proptest::array::uniform2(finite()), 0..5),
    )
        .prop_map(|(name, positions, faces, uvs)| {
            let n = positions.len() as u32;
            let faces: Vec<Vec<u32>> = faces.into_iter().map(|f| f.iter().map(|v| v % n).collect()).collect();
            let uv_faces = if uvs.is_empty() {
                Vec::new()
            } else {
                faces.iter().map(|f| f.iter().map(|v| v % uvs.len() as u32).collect()).collect()
            };
            ObjObject { name, positions, faces, uvs, uv_faces, materials: Vec::new() }
        });
    proptest::collection::vec(object, 1..5)
}

proptest! {
    #[test]
    fn tobj_reads_back_what_the_writer_wrote(objects in objects()) {
        let text = write(&objects);
        let options = tobj::LoadOptions { single_index: false, triangulate: false, ..Default::default() };
        let (models, _) = tobj::load_obj_buf(&mut text.as_bytes(), &options, |_| {
            Ok((Vec::new(), Default::default()))
        })
        .expect("tobj reads the writer's text");
        prop_assert_eq!(models.len(), objects.len());
        let mut uvs_seen = false;
        for (m, o) in models.iter().zip(&objects) {
            prop_assert_eq!(&m.name, &o.name);
            let mesh = &m.mesh;
            // tobj leaves the arities empty when every face is a triangle.
            let arities: Vec<u32> = if mesh.face_arities.is_empty() {
                vec![3; mesh.indices.len() / 3]
            } else {
                mesh.face_arities.clone()
            };
            let expected: Vec<u32> = o.faces.iter().map(|f| f.len() as u32).collect();
            prop_assert_eq!(&arities, &expected);
            let corners: Vec<u32> = o.faces.iter().flatten().copied().collect();
            prop_assert_eq!(mesh.indices.len(), corners.len());
            for (k, (&read, &ours)) in mesh.indices.iter().zip(&corners).enumerate() {
                let r = read as usize * 3;
                let back = [mesh.positions[r], mesh.positions[r + 1], mesh.positions[r + 2]];
                prop_assert_eq!(back.map(f32::to_bits), o.positions[ours as usize].map(f32::to_bits), "corner {}", k);
            }
            if o.uvs.is_empty() {
                // Corners without `/vt` get tobj's fallback indices once the file has any
                // `vt` (its documented behaviour), so only a file without UVs so far is checked.
                if !uvs_seen {
                    prop_assert!(mesh.texcoord_indices.is_empty());
                }
            } else {
                uvs_seen = true;
                let uv_corners: Vec<u32> = o.uv_faces.iter().flatten().copied().collect();
                prop_assert_eq!(mesh.texcoord_indices.len(), uv_corners.len());
                for (&read, &ours) in mesh.texcoord_indices.iter().zip(&uv_corners) {
                    let r = read as usize * 2;
                    let back = [mesh.texcoords[r], mesh.texcoords[r + 1]];
                    prop_assert_eq!(back.map(f32::to_bits), o.uvs[ours as usize].map(f32::to_bits));
                }
            }
        }
    }
}
