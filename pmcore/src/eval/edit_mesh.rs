//! The Edit Mesh modifier (Class ID 0x50, 0): its per-node MeshDelta replayed on the
//! input, for the records whose meaning the corpus settles.
//!
//! Each node's copy keeps its edits in the derived object's 0x2500 → 0x2512 → 0x4000
//! container. What the children hold, measured on the pairs (the FBX Max wrote is the
//! result):
//!
//! * `0x0100` / `0x0110` — vertex / face counts of the input the delta was recorded on;
//! * `0x0220` — face attribute changes: `u32` count, then `(face, flags, value)` `u32`
//!   triples; flags `0x10` sets the material id to `value >> 5` (the SDK's
//!   `ATTRIB_MATID`, `ATTRIB_MATID_SHIFT`); flags 0–3 (edge visibility, hidden face) are
//!   not applied here and stop the node;
//! * `0x0230` — smoothing-group changes: `u32` count, then `(face, mask, value)` `u32`
//!   triples, the face's groups becoming `(groups & !mask) | (value & mask)` (the SDK's
//!   `FaceSmooth`; `thatchRoof.max`);
//! * `0x0400` / `0x0410` / `0x0420` — vertex / edge / face **selections** (bit arrays
//!   `0x2700`: `u32` bit count, then the bits, low bit first; the edge array has three
//!   bits per face). `max_payload_formats.txt` calls 0x0410 / 0x0420 delete sets, the
//!   files disagree: `Well.max` `Box009` carries two Edit Mesh modifiers whose 0x0420
//!   arrays are complements (faces 6, 7, 10, 11 and 0–5, 8, 9 of a 12-face box) and Max
//!   exported the whole box; `NoahWork/Table.max` and `DanWork/Chair.max` set every bit
//!   of 0x0420 and their exports keep every face. Selections do not change the mesh.
//! * `0x0300`, `0x0320`, `0x0324`, `0x0328` — map-channel bookkeeping (channel count,
//!   map vertex / face counts): texture coordinates are not carried through, the output
//!   has no map channel 1.
//!
//! * created vertices `0x0130`, vertex moves `0x0140`, deleted vertices / faces `0x0170` /
//!   `0x0270` and created faces `0x0208`: [`super::mesh_delta`].
//!
//! Any other record (remaps `0x0210`, …) stops the node, naming the chunk: no
//! delta is half applied.
//! The output is a tri object, as Edit Mesh's always is.

use super::mesh::{EvalMesh, FaceRule, Polygon};
use crate::chunk::Chunk;

/// Per-node data container inside the modifier's 0x2500 chunk.
pub const LOCAL_DATA: u16 = 0x2512;
/// The MeshDelta container.
pub const MESH_DELTA: u16 = 0x4000;
/// Input vertex count.
pub const INPUT_VERTICES: u16 = 0x0100;
/// Input face count.
pub const INPUT_FACES: u16 = 0x0110;
/// Face attribute changes.
pub const FACE_ATTRIBUTES: u16 = 0x0220;
/// Smoothing-group changes.
pub const FACE_SMOOTHING: u16 = 0x0230;
/// Records that leave the mesh as it is (selections, map bookkeeping).
/// (`0x0338`: the map faces of created faces, `Lantern.max`: 66, as many as `0x0208` creates.)
pub const NEUTRAL_RECORDS: &[u16] = &[0x0300, 0x0320, 0x0324, 0x0328, 0x0338, 0x0400, 0x0410, 0x0420];
/// The `ATTRIB_MATID` flag of a face attribute change.
const ATTRIB_MATID: u32 = 0x10;
/// The `ATTRIB_HIDE_FACE` flag of a face attribute change.
const ATTRIB_HIDE_FACE: u32 = 0x08;

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    p.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn single_u32(c: &Chunk<'_>) -> Result<u32, String> {
    c.payload()
        .filter(|p| p.len() == 4)
        .and_then(|p| u32_at(p, 0))
        .ok_or_else(|| format!("MeshDelta chunk 0x{:04x} is not one u32", c.id))
}

/// Applies a node's Edit Mesh data (`mod_app` = the modifier's 0x2500 chunk) to `input`;
/// `Err` names what is not applied. `in_max_order`: the input's faces are numbered as
/// Max numbers them (face attribute changes index them).
pub fn apply(mod_app: Option<&Chunk<'_>>, input: EvalMesh, in_max_order: bool) -> Result<EvalMesh, String> {
    let mut mesh = input;
    mesh.rule = FaceRule::Triangles;
    mesh.uv = None;
    let Some(delta) = mod_app.and_then(|a| a.child(LOCAL_DATA)).and_then(|l| l.child(MESH_DELTA)) else {
        // No edits recorded for this node: the input as a tri object.
        return Ok(mesh);
    };
    let triangles: usize = mesh.polygons.iter().map(Polygon::triangle_count).sum();
    let mut changes: Vec<Change> = Vec::new();
    let mut topology = super::mesh_delta::TopologyDelta::default();
    for c in delta.children() {
        match c.id {
            INPUT_VERTICES => {
                let n = single_u32(c)?;
                if n as usize != mesh.positions.len() {
                    return Err(format!("MeshDelta recorded on {n} vertices, the input has {}", mesh.positions.len()));
                }
            }
            INPUT_FACES => {
                let n = single_u32(c)?;
                if n as usize != triangles {
                    return Err(format!("MeshDelta recorded on {n} faces, the input has {triangles}"));
                }
            }
            FACE_ATTRIBUTES => {
                for (face, flags, value) in triples(c, triangles)? {
                    // Unhiding a face (`ATTRIB_HIDE_FACE` with the bit clear) leaves the
                    // mesh as it is (`Lantern.max`'s Edit Mesh unhides face 0).
                    let unhide = flags & ATTRIB_HIDE_FACE != 0 && value & ATTRIB_HIDE_FACE == 0;
                    if flags & !ATTRIB_HIDE_FACE != ATTRIB_MATID || (flags & ATTRIB_HIDE_FACE != 0 && !unhide) {
                        return Err(format!("MeshDelta face attribute change with flags 0x{flags:x} not applied"));
                    }
                    changes.push(Change::Material(face, ((value >> 5) & 0xffff) as u16));
                }
            }
            FACE_SMOOTHING => {
                for (face, mask, value) in triples(c, triangles)? {
                    changes.push(Change::Smoothing(face, mask, value));
                }
            }
            id if NEUTRAL_RECORDS.contains(&id) => {}
            id => {
                if !topology.read(c)? {
                    return Err(format!("MeshDelta chunk 0x{id:04x} not applied"));
                }
            }
        }
    }
    if !changes.is_empty() {
        if !in_max_order {
            return Err("face attribute changes index faces, and this input is not built in Max's order".into());
        }
        set_face_attributes(&mut mesh, &changes);
    }
    if !topology.is_empty() {
        if !in_max_order && topology.indexes_input(mesh.positions.len()) {
            return Err(
                "vertex moves / deletions / created faces index the mesh, and this input is not built in Max's order"
                    .into(),
            );
        }
        mesh = topology.apply(mesh)?;
    }
    Ok(mesh)
}

/// One per-face change, by face index in triangle order.
enum Change {
    /// Material id.
    Material(u32, u16),
    /// Smoothing groups: (face, mask, value).
    Smoothing(u32, u32, u32),
}

/// `(face, u32, u32)` records of a leaf: `u32` count, then the triples; faces checked
/// against `triangles`.
fn triples(c: &Chunk<'_>, triangles: usize) -> Result<Vec<(u32, u32, u32)>, String> {
    let p = c.payload().ok_or_else(|| format!("MeshDelta chunk 0x{:04x} is not a leaf", c.id))?;
    let n = u32_at(p, 0).ok_or_else(|| format!("MeshDelta chunk 0x{:04x} shorter than a count", c.id))? as usize;
    if p.len() != 4 + 12 * n {
        return Err(format!("MeshDelta chunk 0x{:04x}: {} bytes for {n} records", c.id, p.len()));
    }
    let out: Vec<(u32, u32, u32)> = (0..n)
        .map(|r| {
            let at = 4 + 12 * r;
            (u32_at(p, at).unwrap_or(0), u32_at(p, at + 4).unwrap_or(0), u32_at(p, at + 8).unwrap_or(0))
        })
        .collect();
    if let Some((face, ..)) = out.iter().find(|(face, ..)| *face as usize >= triangles) {
        return Err(format!("MeshDelta chunk 0x{:04x} changes face {face} of {triangles}", c.id));
    }
    Ok(out)
}

/// Applies per-triangle material and smoothing changes. A polygon whose triangles end up
/// with different attributes is split into its triangles.
fn set_face_attributes(mesh: &mut EvalMesh, changes: &[Change]) {
    let mut per_triangle: Vec<(u16, u32)> = Vec::new();
    for p in &mesh.polygons {
        per_triangle.extend(std::iter::repeat_n((p.material, p.smoothing), p.triangle_count()));
    }
    for change in changes {
        match *change {
            Change::Material(face, id) => per_triangle[face as usize].0 = id,
            Change::Smoothing(face, mask, value) => {
                let s = &mut per_triangle[face as usize].1;
                *s = (*s & !mask) | (value & mask);
            }
        }
    }
    let mut out = Vec::with_capacity(mesh.polygons.len());
    let mut next = 0usize;
    for p in mesh.polygons.drain(..) {
        let n = p.triangle_count();
        let attributes = &per_triangle[next..next + n];
        next += n;
        if attributes.iter().all(|a| *a == attributes[0]) {
            let (material, smoothing) = attributes.first().copied().unwrap_or((p.material, p.smoothing));
            out.push(Polygon { material, smoothing, ..p });
        } else {
            for (t, &(material, smoothing)) in p.mesh_triangles().into_iter().zip(attributes) {
                out.push(Polygon { corners: t.to_vec(), material, smoothing, triangles: Vec::new() });
            }
        }
    }
    mesh.polygons = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitives::{box_mesh, BoxParams};

    fn unit_box() -> EvalMesh {
        box_mesh(&BoxParams { length: 1.0, width: 1.0, height: 1.0, length_segs: 1, width_segs: 1, height_segs: 1 })
            .unwrap()
    }

    fn u32s(v: &[u32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn app(records: Vec<Chunk<'static>>) -> Chunk<'static> {
        Chunk::container(
            0x2500,
            vec![Chunk::container(
                LOCAL_DATA,
                vec![Chunk::leaf(0x2740, u32s(&[5])), Chunk::container(MESH_DELTA, records)],
            )],
        )
    }

    #[test]
    fn selections_and_bookkeeping_leave_the_box_whole() {
        // Well.max Box009's lower Edit Mesh: input 8 / 12, map bookkeeping, face selection
        // 0x3f 0x03 (faces 0–5, 8, 9) — Max exported all 12 triangles.
        let a = app(vec![
            Chunk::leaf(INPUT_VERTICES, u32s(&[8])),
            Chunk::leaf(INPUT_FACES, u32s(&[12])),
            Chunk::leaf(0x0300, u32s(&[2])),
            Chunk::leaf(0x0320, u32s(&[1])),
            Chunk::leaf(0x0324, u32s(&[28])),
            Chunk::leaf(0x0328, u32s(&[12])),
            Chunk::container(0x0420, vec![Chunk::leaf(0x2700, vec![12, 0, 0, 0, 0x3f, 0x03])]),
        ]);
        let out = apply(Some(&a), unit_box(), true).unwrap();
        assert_eq!(out.rule, FaceRule::Triangles);
        assert_eq!((out.positions, out.polygons.len()), (unit_box().positions, 6));
    }

    #[test]
    fn material_changes_follow_triangles_and_split_a_quad_they_divide() {
        // Faces 0 and 1 (the bottom quad's two triangles) to id 2 (value 2 << 5 = 0x40),
        // face 2 alone (half the top quad) to id 6 (0xc0): the bottom stays one quad with
        // id 2, the top splits into triangles (4, 5, 7) id 6 and (7, 6, 4) id 0.
        let a = app(vec![
            Chunk::leaf(INPUT_VERTICES, u32s(&[8])),
            Chunk::leaf(INPUT_FACES, u32s(&[12])),
            Chunk::leaf(FACE_ATTRIBUTES, u32s(&[3, 0, 0x10, 0x40, 1, 0x10, 0x40, 2, 0x10, 0xc0])),
        ]);
        let out = apply(Some(&a), unit_box(), true).unwrap();
        assert_eq!(out.polygons.len(), 7);
        assert_eq!((out.polygons[0].corners.len(), out.polygons[0].material), (4, 2));
        assert_eq!((out.polygons[1].corners.clone(), out.polygons[1].material), (vec![4, 5, 7], 6));
        assert_eq!((out.polygons[2].corners.clone(), out.polygons[2].material), (vec![7, 6, 4], 0));
    }

    #[test]
    fn smoothing_changes_keep_a_quad_whose_triangles_agree() {
        // Faces 0 and 1 (the bottom quad) get groups (0 & !0xffffffff) | 1 = 1; face 2 only
        // clears nothing and sets bit 2 within mask 2: the top quad splits.
        let a = app(vec![Chunk::leaf(FACE_SMOOTHING, u32s(&[3, 0, 0xffff_ffff, 1, 1, 0xffff_ffff, 1, 2, 2, 2]))]);
        let out = apply(Some(&a), unit_box(), true).unwrap();
        assert_eq!((out.polygons[0].corners.len(), out.polygons[0].smoothing), (4, 1));
        assert_eq!((out.polygons[1].smoothing, out.polygons[2].smoothing, out.polygons.len()), (2, 0, 7));
    }

    #[test]
    fn unknown_records_and_other_inputs_stop_named() {
        let remapped = app(vec![Chunk::leaf(0x0210, vec![0; 20])]);
        assert_eq!(apply(Some(&remapped), unit_box(), true).unwrap_err(), "MeshDelta chunk 0x0210 not applied");
        let other = app(vec![Chunk::leaf(INPUT_VERTICES, u32s(&[9]))]);
        assert!(apply(Some(&other), unit_box(), true).unwrap_err().contains("recorded on 9 vertices"));
        let edge_vis = app(vec![Chunk::leaf(FACE_ATTRIBUTES, u32s(&[1, 0, 0x1, 0]))]);
        assert!(apply(Some(&edge_vis), unit_box(), true).unwrap_err().contains("flags 0x1"));
        // No delta: the input as a tri object.
        assert_eq!(apply(None, unit_box().into_poly(), false).unwrap().rule, FaceRule::Triangles);
    }
}
