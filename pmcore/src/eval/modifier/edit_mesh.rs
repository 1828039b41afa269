//! The Edit Mesh modifier (Class ID 0x50, 0): its per-node MeshDelta replayed on the
//! input, for the records whose meaning the corpus settles.
//!
//! Each node's copy keeps its edits in the derived object's 0x2500 → 0x2512 → 0x4000
//! container. What the children hold (the chunk map of the C++ reference's
//! `pipeline_max_export_common/edit_mesh_mod.h`, facts only, checked on the pairs — the FBX
//! Max wrote is the result):
//!
//! * `0x0100` / `0x0110` — vertex / face counts of the input the delta was recorded on;
//! * `0x0220` — face attribute changes: `u32` count, then `(face, flags, value)` `u32`
//!   triples; flags `0x10` sets the material id to `value >> 5` (the SDK's
//!   `ATTRIB_MATID`, `ATTRIB_MATID_SHIFT`); flag `0x08` with a value whose bit 3 is clear
//!   unhides the face (display state: `Lantern.max` unhides 7 faces); hiding a face and
//!   edge visibility (flags 0–2) are not applied here and stop the node;
//! * `0x0230` — smoothing-group changes: `u32` count, then `(face, mask, value)` `u32`
//!   triples, the face's groups becoming `(groups & !mask) | (value & mask)` (the SDK's
//!   `FaceSmooth`; `thatchRoof.max`);
//! * `0x0140` — vertex moves: `u32` count, then `(vertex, dx, dy, dz)` (`u32`, 3 `f32`),
//!   offsets added to input vertices (`Lantern.FBX`'s `Cylinder001`: a ring of 18 moved
//!   by −0.507 along Z);
//! * `0x0210` — face corner remaps: `u32` count, then `(face, mask, v0, v1, v2)`; corner
//!   `i` becomes `v_i` where bit `i` of the mask is set (the other slots are not data);
//! * `0x0270` / `0x0170` — face / vertex deletions (bit arrays `0x2700`, below);
//! * `0x0130` — created vertices: `u32` count, then `(tag, x, y, z)`, appended;
//! * `0x0208` — created faces: `u32` count, then `(tag, a, b, c, smoothing, flags)` `u32`s,
//!   the material id in the flags' high 16 bits, appended;
//! * `0x0400` / `0x0410` / `0x0420` — vertex / edge / face **selections** (bit arrays
//!   `0x2700`: `u32` bit count, then the bits, low bit first; the edge array has three
//!   bits per face). `max_payload_formats.txt` calls 0x0410 / 0x0420 delete sets, the
//!   files disagree: `Well.max` `Box009` carries two Edit Mesh modifiers whose 0x0420
//!   arrays are complements (faces 6, 7, 10, 11 and 0–5, 8, 9 of a 12-face box) and Max
//!   exported the whole box; `NoahWork/Table.max` and `DanWork/Chair.max` set every bit
//!   of 0x0420 and their exports keep every face. Selections do not change the mesh.
//! * `0x0300`, `0x0320`, `0x0324`, `0x0328`, `0x0334`, `0x0338`, `0x033b` — map-channel
//!   records (channel count, map vertex / face counts, created map vertices and faces, map
//!   face remaps): texture coordinates are not carried through, the output has no map
//!   channel 1.
//!
//! The records apply in the SDK's `MeshDelta::Apply` order: attributes, moves, remaps,
//! face deletions, created vertices, created faces (indexing input and created vertices),
//! vertex deletions (renumbering every face). Any other record stops the node, naming the
//! chunk: no delta is half applied. The output is a tri object, as Edit Mesh's always is;
//! input polygons the delta leaves whole stay polygons, the others and the created faces
//! are triangles.

use super::Modifier;
use crate::chunk::Chunk;
use crate::eval::context::ModContext;
use crate::eval::derived::StackModifier;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{mesh_of, stop, Evaluated, Stop};
use crate::eval::selection::{level, Carry, Selection, EDIT_MESH_SEL_LEVEL};
use crate::model::scene_index::SceneIndex;
use glam::Vec3;

/// Per-node data container inside the modifier's 0x2500 chunk.
pub const LOCAL_DATA: u16 = 0x2512;
/// The MeshDelta container.
pub const MESH_DELTA: u16 = 0x4000;
/// Input vertex count.
pub(crate) const INPUT_VERTICES: u16 = 0x0100;
/// Input face count.
pub(crate) const INPUT_FACES: u16 = 0x0110;
/// Created vertices.
pub(crate) const CREATED_VERTICES: u16 = 0x0130;
/// Vertex moves.
pub(crate) const VERTEX_MOVES: u16 = 0x0140;
/// Vertex deletions.
pub(crate) const DELETED_VERTICES: u16 = 0x0170;
/// Created faces.
pub(crate) const CREATED_FACES: u16 = 0x0208;
/// Face corner remaps.
pub(crate) const FACE_REMAPS: u16 = 0x0210;
/// Face attribute changes.
pub(crate) const FACE_ATTRIBUTES: u16 = 0x0220;
/// Smoothing-group changes.
pub(crate) const FACE_SMOOTHING: u16 = 0x0230;
/// Face deletions.
pub(crate) const DELETED_FACES: u16 = 0x0270;
/// Records that leave the geometry as it is (selections, map channels).
pub(crate) const NEUTRAL_RECORDS: &[u16] =
    &[0x0300, 0x0320, 0x0324, 0x0328, 0x0334, 0x0338, 0x033b, 0x0400, 0x0410, 0x0420];
/// The `ATTRIB_MATID` flag of a face attribute change.
const ATTRIB_MATID: u32 = 0x10;
/// The hidden-face flag of a face attribute change (and of its value).
const ATTRIB_HIDDEN: u32 = 0x08;
/// Bit array inside a selection or deletion container.
const BIT_ARRAY: u16 = 0x2700;

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    p.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn f32_at(p: &[u8], at: usize) -> Option<f32> {
    u32_at(p, at).map(f32::from_bits)
}

fn single_u32(c: &Chunk<'_>) -> Result<u32, String> {
    c.payload()
        .filter(|p| p.len() == 4)
        .and_then(|p| u32_at(p, 0))
        .ok_or_else(|| format!("MeshDelta chunk 0x{:04x} is not one u32", c.id))
}

/// A leaf of `u32` count then `count` records of `words` 32-bit words each.
fn records<'c>(c: &'c Chunk<'_>, words: usize) -> Result<Vec<&'c [u8]>, String> {
    let p = c.payload().ok_or_else(|| format!("MeshDelta chunk 0x{:04x} is not a leaf", c.id))?;
    let n = u32_at(p, 0).ok_or_else(|| format!("MeshDelta chunk 0x{:04x} shorter than a count", c.id))? as usize;
    if Some(p.len()) != n.checked_mul(4 * words).and_then(|b| b.checked_add(4)) {
        return Err(format!("MeshDelta chunk 0x{:04x}: {} bytes for {n} records", c.id, p.len()));
    }
    Ok(p[4..].chunks_exact(4 * words).collect())
}

/// The bits of a deletion container (`0x2700`: `u32` bit count, then the bits).
fn bits(c: &Chunk<'_>) -> Result<Vec<bool>, String> {
    let p = c
        .child(BIT_ARRAY)
        .and_then(Chunk::payload)
        .ok_or_else(|| format!("MeshDelta chunk 0x{:04x} has no bit array", c.id))?;
    let n = u32_at(p, 0).ok_or_else(|| format!("MeshDelta chunk 0x{:04x}: bit array too short", c.id))? as usize;
    if p.len() < 4 + n.div_ceil(8) {
        return Err(format!("MeshDelta chunk 0x{:04x}: {n} bits in {} bytes", c.id, p.len()));
    }
    Ok((0..n).map(|i| p[4 + i / 8] >> (i % 8) & 1 == 1).collect())
}

/// A MeshDelta's records, decoded.
#[derive(Default)]
struct Delta {
    changes: Vec<Change>,
    moves: Vec<(u32, Vec3)>,
    remaps: Vec<(u32, u32, [u32; 3])>,
    deleted_faces: Vec<bool>,
    created_vertices: Vec<Vec3>,
    created_faces: Vec<Face>,
    deleted_vertices: Vec<bool>,
}

impl Delta {
    /// Whether the delta changes which faces or vertices there are.
    fn changes_topology(&self) -> bool {
        !self.remaps.is_empty()
            || self.deleted_faces.contains(&true)
            || !self.created_vertices.is_empty()
            || !self.created_faces.is_empty()
            || self.deleted_vertices.contains(&true)
    }

    /// Whether a record names a vertex or face of the input by its index: only then must
    /// the input be numbered as Max numbers it. A delta that only adds vertices and faces
    /// among them applies to any order (`wild/dimapetrinko__horse.max`, an Edit Mesh over
    /// a closed-line Lathe: 3642 / 7228 as Mesh Totals counts).
    fn names_input(&self, input_vertices: usize) -> bool {
        !self.changes.is_empty()
            || !self.moves.is_empty()
            || !self.remaps.is_empty()
            || self.deleted_faces.contains(&true)
            || self.deleted_vertices.contains(&true)
            || self.created_faces.iter().any(|f| f.corners.iter().any(|&c| (c as usize) < input_vertices))
    }
}

/// Applies a node's Edit Mesh data (`mod_app` = the modifier's 0x2500 chunk) to `input`;
/// `Err` names what is not applied. `in_max_order`: the input's vertices and faces are
/// numbered as Max numbers them (every record but the counts indexes them).
pub fn apply(mod_app: Option<&Chunk<'_>>, input: EvalMesh, in_max_order: bool) -> Result<EvalMesh, String> {
    let mut mesh = input;
    mesh.rule = FaceRule::Triangles;
    mesh.uv = None;
    let Some(delta_chunk) = mod_app.and_then(|a| a.child(LOCAL_DATA)).and_then(|l| l.child(MESH_DELTA)) else {
        // No edits recorded for this node: the input as a tri object.
        return Ok(mesh);
    };
    let triangles: usize = mesh.polygons.iter().map(Polygon::triangle_count).sum();
    let vertices = mesh.positions.len();
    let delta = read_delta(delta_chunk, vertices, triangles)?;
    if delta.names_input(vertices) && !in_max_order {
        return Err("the MeshDelta indexes vertices and faces, and this input is not built in Max's order".into());
    }
    if !delta.changes_topology() {
        if !delta.changes.is_empty() {
            set_face_attributes(&mut mesh, &delta.changes);
        }
        move_vertices(&mut mesh.positions, &delta.moves);
        return Ok(mesh);
    }
    replay(mesh, &delta)
}

/// The records of a MeshDelta recorded on an input of `vertices` vertices and `triangles`
/// faces.
fn read_delta(delta_chunk: &Chunk<'_>, vertices: usize, triangles: usize) -> Result<Delta, String> {
    let mut delta = Delta::default();
    for c in delta_chunk.children() {
        match c.id {
            INPUT_VERTICES => {
                let n = single_u32(c)?;
                if n as usize != vertices {
                    return Err(format!("MeshDelta recorded on {n} vertices, the input has {vertices}"));
                }
            }
            INPUT_FACES => {
                let n = single_u32(c)?;
                if n as usize != triangles {
                    return Err(format!("MeshDelta recorded on {n} faces, the input has {triangles}"));
                }
            }
            FACE_ATTRIBUTES => delta.changes.extend(attribute_changes(c, triangles)?),
            FACE_SMOOTHING => {
                for (face, mask, value) in triples(c, triangles)? {
                    delta.changes.push(Change::Smoothing(face, mask, value));
                }
            }
            VERTEX_MOVES => delta.moves.extend(vertex_moves(c, vertices)?),
            FACE_REMAPS => delta.remaps.extend(face_remaps(c, triangles)?),
            DELETED_FACES => delta.deleted_faces = bits(c)?,
            DELETED_VERTICES => delta.deleted_vertices = bits(c)?,
            CREATED_VERTICES => {
                delta.created_vertices = records(c, 4)?.into_iter().map(|r| point_at(r, 4)).collect();
            }
            CREATED_FACES => delta.created_faces = records(c, 6)?.into_iter().map(created_face).collect(),
            id if NEUTRAL_RECORDS.contains(&id) => {}
            id => return Err(format!("MeshDelta chunk 0x{id:04x} not applied")),
        }
    }
    Ok(delta)
}

/// The three floats at `at` of a record (0 where short).
fn point_at(r: &[u8], at: usize) -> Vec3 {
    Vec3::new(f32_at(r, at).unwrap_or(0.0), f32_at(r, at + 4).unwrap_or(0.0), f32_at(r, at + 8).unwrap_or(0.0))
}

/// Face attribute changes: material ids; unhiding a face (hidden bit applied with value 0)
/// is display state only.
fn attribute_changes(c: &Chunk<'_>, triangles: usize) -> Result<Vec<Change>, String> {
    let mut changes = Vec::new();
    for (face, flags, value) in triples(c, triangles)? {
        let unhide = flags & ATTRIB_HIDDEN != 0 && value & ATTRIB_HIDDEN == 0;
        let rest = if unhide { flags & !ATTRIB_HIDDEN } else { flags };
        match rest {
            ATTRIB_MATID => changes.push(Change::Material(face, ((value >> 5) & 0xffff) as u16)),
            0 => {}
            _ => return Err(format!("MeshDelta face attribute change with flags 0x{flags:x} not applied")),
        }
    }
    Ok(changes)
}

/// Vertex moves `(vertex, offset)`, each vertex checked against the input.
fn vertex_moves(c: &Chunk<'_>, vertices: usize) -> Result<Vec<(u32, Vec3)>, String> {
    let mut moves = Vec::new();
    for r in records(c, 4)? {
        let v = u32_at(r, 0).unwrap_or(u32::MAX);
        if v as usize >= vertices {
            return Err(format!("MeshDelta moves vertex {v} of {vertices}"));
        }
        moves.push((v, point_at(r, 4)));
    }
    Ok(moves)
}

/// Face remaps `(face, corner mask, corners)`, each face checked against the input.
fn face_remaps(c: &Chunk<'_>, triangles: usize) -> Result<Vec<(u32, u32, [u32; 3])>, String> {
    let mut remaps = Vec::new();
    for r in records(c, 5)? {
        let face = u32_at(r, 0).unwrap_or(u32::MAX);
        if face as usize >= triangles {
            return Err(format!("MeshDelta remaps face {face} of {triangles}"));
        }
        let corners = [u32_at(r, 8), u32_at(r, 12), u32_at(r, 16)].map(|v| v.unwrap_or(u32::MAX));
        remaps.push((face, u32_at(r, 4).unwrap_or(0) & 7, corners));
    }
    Ok(remaps)
}

/// A created face record: corners, smoothing, material in the high half of the flags.
fn created_face(r: &[u8]) -> Face {
    let w = |k: usize| u32_at(r, 4 * k).unwrap_or(u32::MAX);
    Face { corners: [w(1), w(2), w(3)], material: (w(5) >> 16) as u16, smoothing: w(4), source: None, changed: true }
}

fn move_vertices(positions: &mut [Vec3], moves: &[(u32, Vec3)]) {
    for &(v, d) in moves {
        positions[v as usize] += d;
    }
}

/// One triangle of a delta being replayed: its input polygon, and whether the delta
/// touched its corners.
#[derive(Clone, Debug)]
struct Face {
    corners: [u32; 3],
    material: u16,
    smoothing: u32,
    source: Option<usize>,
    changed: bool,
}

/// The whole delta over the input's triangles, in `MeshDelta::Apply` order.
fn replay(mut mesh: EvalMesh, delta: &Delta) -> Result<EvalMesh, String> {
    let mut faces: Vec<Face> = Vec::new();
    for (k, p) in mesh.polygons.iter().enumerate() {
        for corners in p.mesh_triangles() {
            faces.push(Face { corners, material: p.material, smoothing: p.smoothing, source: Some(k), changed: false });
        }
    }
    for change in &delta.changes {
        match *change {
            Change::Material(face, id) => faces[face as usize].material = id,
            Change::Smoothing(face, mask, value) => {
                let s = &mut faces[face as usize].smoothing;
                *s = (*s & !mask) | (value & mask);
            }
        }
    }
    move_vertices(&mut mesh.positions, &delta.moves);
    for &(face, mask, corners) in &delta.remaps {
        let f = &mut faces[face as usize];
        for (i, &v) in corners.iter().enumerate() {
            if mask >> i & 1 == 1 {
                f.corners[i] = v;
                f.changed = true;
            }
        }
    }
    let mut kept = Vec::with_capacity(faces.len() + delta.created_faces.len());
    for (i, f) in faces.into_iter().enumerate() {
        if !delta.deleted_faces.get(i).copied().unwrap_or(false) {
            kept.push(f);
        }
    }
    mesh.positions.extend_from_slice(&delta.created_vertices);
    kept.extend(delta.created_faces.iter().cloned());
    let all = mesh.positions.len();
    if let Some(f) = kept.iter().find(|f| f.corners.iter().any(|&v| v as usize >= all)) {
        return Err(format!("MeshDelta face {:?} indexes past the {all} vertices", f.corners));
    }
    let mut remap: Vec<u32> = Vec::with_capacity(all);
    let mut positions = Vec::with_capacity(all);
    for (i, p) in mesh.positions.iter().enumerate() {
        if delta.deleted_vertices.get(i).copied().unwrap_or(false) {
            remap.push(u32::MAX);
        } else {
            remap.push(positions.len() as u32);
            positions.push(*p);
        }
    }
    for f in &mut kept {
        for v in &mut f.corners {
            *v = remap[*v as usize];
        }
        if f.corners.contains(&u32::MAX) {
            return Err("MeshDelta deletes a vertex a remaining face uses".into());
        }
    }
    let polygons = regroup(&mesh.polygons, &kept, &remap);
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The replayed triangles as polygons: input polygons whose triangles all survive
/// untouched, with one set of attributes, stay whole; everything else is a triangle.
fn regroup(input: &[Polygon], kept: &[Face], remap: &[u32]) -> Vec<Polygon> {
    let mut polygons = Vec::with_capacity(kept.len());
    let mut i = 0;
    while i < kept.len() {
        let f = &kept[i];
        if let Some(k) = f.source.filter(|_| !f.changed) {
            let p = &input[k];
            let n = p.triangle_count();
            let run = kept.get(i..i + n).unwrap_or(&[]);
            let whole = run.len() == n
                && run.iter().all(|g| {
                    g.source == Some(k) && !g.changed && (g.material, g.smoothing) == (f.material, f.smoothing)
                });
            if whole && n > 1 {
                let at = |v: &u32| remap[*v as usize];
                polygons.push(Polygon {
                    corners: p.corners.iter().map(at).collect(),
                    material: f.material,
                    smoothing: f.smoothing,
                    triangles: run.iter().map(|g| g.corners).collect(),
                    hidden_edges: 0,
                });
                i += n;
                continue;
            }
        }
        polygons.push(Polygon {
            corners: f.corners.to_vec(),
            material: f.material,
            smoothing: f.smoothing,
            triangles: Vec::new(),
            hidden_edges: 0,
        });
        i += 1;
    }
    polygons
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
    let out: Vec<(u32, u32, u32)> = records(c, 3)?
        .into_iter()
        .map(|r| (u32_at(r, 0).unwrap_or(0), u32_at(r, 4).unwrap_or(0), u32_at(r, 8).unwrap_or(0)))
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
                out.push(Polygon { corners: t.to_vec(), material, smoothing, triangles: Vec::new(), hidden_edges: 0 });
            }
        }
    }
    mesh.polygons = out;
}

/// The Edit Mesh modifier's evaluator: a tri object out, in the tri order, with the
/// selection it sets.
pub(crate) const EDIT_MESH: Modifier =
    Modifier { outputs_tri_order: true, ..Modifier::new(module_path!(), evaluate, true, Carry::Own(selection_after)) };

/// Replays the MeshDelta over the input's mesh.
fn evaluate(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    Ok(Evaluated::Mesh(apply(mc.modifier.mod_app, mesh_of(m, input)?, mc.in_max_order).map_err(|e| stop(m, e))?))
}

/// Edit Mesh's output selection: object level, or not decoded.
fn selection_after(_: &SceneIndex<'_>, sm: &StackModifier<'_, '_>, _: Option<&EvalMesh>, _: bool) -> Selection {
    match level(sm.object.chunk.child(EDIT_MESH_SEL_LEVEL)) {
        Some(0) => Selection::Object,
        l => Selection::Unknown(format!("Edit Mesh at selection level {l:?}: its selection is not decoded")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::r#box::{box_mesh, BoxParams};

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

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    fn bit_array(count: u32, bytes: &[u8]) -> Vec<u8> {
        let mut out = count.to_le_bytes().to_vec();
        out.extend_from_slice(bytes);
        out
    }

    #[test]
    fn vertex_moves_add_their_offsets() {
        // Lantern.max's Cylinder001 moves a ring by (0, 0, −0.507); here vertex 0 by
        // (0, 0, −0.5) and vertex 7 by (1, 0, 0): the others stay, the faces stay.
        let mut moves = u32s(&[2, 0]);
        moves.extend(f32s(&[0.0, 0.0, -0.5]));
        moves.extend(u32s(&[7]));
        moves.extend(f32s(&[1.0, 0.0, 0.0]));
        let a = app(vec![Chunk::leaf(INPUT_VERTICES, u32s(&[8])), Chunk::leaf(VERTEX_MOVES, moves)]);
        let input = unit_box();
        let out = apply(Some(&a), input.clone(), true).unwrap();
        assert_eq!(out.positions[0], input.positions[0] + Vec3::new(0.0, 0.0, -0.5));
        assert_eq!(out.positions[7], input.positions[7] + Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(&out.positions[1..7], &input.positions[1..7]);
        assert_eq!(out.polygons, input.polygons);
        // A move past the input's vertices stops the node.
        let mut past = u32s(&[1, 8]);
        past.extend(f32s(&[0.0, 0.0, 1.0]));
        let bad = app(vec![Chunk::leaf(VERTEX_MOVES, past)]);
        assert!(apply(Some(&bad), unit_box(), true).unwrap_err().contains("moves vertex 8 of 8"));
        // Over an input not in Max's order nothing indexed is applied.
        assert!(apply(Some(&a), unit_box(), false).is_err());
    }

    #[test]
    fn deleted_faces_created_vertices_and_faces_make_a_pyramid_under_the_box() {
        // Delete faces 0 and 1 (the bottom quad (a b c d), bits 0b11), create vertex 8 at
        // (0, 0, −1) and the four faces (a b 8) (b c 8) (c d 8) (d a 8) with material id 3
        // (flags 3 << 16) and group 2: 9 vertices, 10 + 4 = 14 triangles, the five other
        // quads whole (5 + 4 = 9 polygons), a closed surface (9 − 21 + 14 = 2).
        let input = unit_box();
        let [a0, b0, c0, d0] = input.polygons[0].corners[..] else { panic!("bottom quad") };
        let mut created = u32s(&[1, 0]);
        created.extend(f32s(&[0.0, 0.0, -1.0]));
        let mut faces = u32s(&[4]);
        for (p, q) in [(a0, b0), (b0, c0), (c0, d0), (d0, a0)] {
            faces.extend(u32s(&[0xffff_ffff, p, q, 8, 2, 3 << 16]));
        }
        let a = app(vec![
            Chunk::leaf(INPUT_VERTICES, u32s(&[8])),
            Chunk::leaf(INPUT_FACES, u32s(&[12])),
            Chunk::container(DELETED_FACES, vec![Chunk::leaf(BIT_ARRAY, bit_array(12, &[0b11, 0]))]),
            Chunk::leaf(CREATED_VERTICES, created.clone()),
            Chunk::leaf(CREATED_FACES, faces.clone()),
        ]);
        let out = apply(Some(&a), input.clone(), true).unwrap();
        assert_eq!(out.positions.len(), 9);
        assert_eq!(out.positions[8], Vec3::new(0.0, 0.0, -1.0));
        let k = out.counts();
        assert_eq!((k.triangles, k.polygons, k.edges), (14, 9, 12 + 4));
        assert_eq!(out.polygons[0], input.polygons[1]);
        let last = out.polygons.last().unwrap();
        assert_eq!((last.corners.clone(), last.material, last.smoothing), (vec![d0, a0, 8], 3, 2));
        // With an unused created vertex before it (8) deleted (bit 8), the apex becomes 8
        // again through the renumbering: created vertices 8 (unused) and 9, faces on 9.
        let mut two = u32s(&[2, 0]);
        two.extend(f32s(&[5.0, 5.0, 5.0]));
        two.extend(u32s(&[0]));
        two.extend(f32s(&[0.0, 0.0, -1.0]));
        let mut faces9 = u32s(&[4]);
        for (p, q) in [(a0, b0), (b0, c0), (c0, d0), (d0, a0)] {
            faces9.extend(u32s(&[0xffff_ffff, p, q, 9, 2, 3 << 16]));
        }
        let b = app(vec![
            Chunk::container(DELETED_FACES, vec![Chunk::leaf(BIT_ARRAY, bit_array(12, &[0b11, 0]))]),
            Chunk::leaf(CREATED_VERTICES, two),
            Chunk::leaf(CREATED_FACES, faces9),
            Chunk::container(DELETED_VERTICES, vec![Chunk::leaf(BIT_ARRAY, bit_array(10, &[0, 0b1]))]),
        ]);
        let renumbered = apply(Some(&b), input.clone(), true).unwrap();
        assert_eq!(renumbered.positions, out.positions);
        assert_eq!(renumbered.polygons, out.polygons);
        // Deleting a vertex a face still uses stops the node.
        let c = app(vec![
            Chunk::leaf(CREATED_VERTICES, created),
            Chunk::leaf(CREATED_FACES, faces),
            Chunk::container(DELETED_VERTICES, vec![Chunk::leaf(BIT_ARRAY, bit_array(9, &[0, 0b1]))]),
        ]);
        assert!(apply(Some(&c), input, true).unwrap_err().contains("deletes a vertex a remaining face uses"));
    }

    #[test]
    fn a_corner_remap_splits_the_polygon_it_touches() {
        // Face 0 = the bottom quad's first triangle (p q r); mask 0b001 replaces corner 0 by
        // vertex 7 (the other slots are not data): (7 q r) and the quad's second triangle
        // become separate triangles, the other five quads stay: 7 polygons, 12 triangles.
        let input = unit_box();
        let [_, q, r] = input.polygons[0].mesh_triangles()[0];
        let second = input.polygons[0].mesh_triangles()[1];
        let a = app(vec![Chunk::leaf(FACE_REMAPS, u32s(&[1, 0, 1, 7, 0xdead, 0xbeef]))]);
        let out = apply(Some(&a), input, true).unwrap();
        assert_eq!(out.polygons.len(), 7);
        assert_eq!(out.polygons[0].corners, vec![7, q, r]);
        assert_eq!(out.polygons[1].corners, second.to_vec());
        assert_eq!(out.counts().triangles, 12);
    }

    #[test]
    fn unknown_records_and_other_inputs_stop_named() {
        let unknown = app(vec![Chunk::leaf(0x0250, vec![0; 20])]);
        assert_eq!(apply(Some(&unknown), unit_box(), true).unwrap_err(), "MeshDelta chunk 0x0250 not applied");
        let other = app(vec![Chunk::leaf(INPUT_VERTICES, u32s(&[9]))]);
        assert!(apply(Some(&other), unit_box(), true).unwrap_err().contains("recorded on 9 vertices"));
        let edge_vis = app(vec![Chunk::leaf(FACE_ATTRIBUTES, u32s(&[1, 0, 0x1, 0]))]);
        assert!(apply(Some(&edge_vis), unit_box(), true).unwrap_err().contains("flags 0x1"));
        let hide = app(vec![Chunk::leaf(FACE_ATTRIBUTES, u32s(&[1, 0, 0x18, 0x08 | 2 << 5]))]);
        assert!(apply(Some(&hide), unit_box(), true).unwrap_err().contains("flags 0x18"));
        // Unhide with material id 2 (Lantern.max's mask 0x18, value 2 << 5): only the id
        // changes; faces 0 and 1 are the bottom quad, which keeps its corners.
        let unhide = app(vec![Chunk::leaf(FACE_ATTRIBUTES, u32s(&[2, 0, 0x18, 2 << 5, 1, 0x18, 2 << 5]))]);
        let out = apply(Some(&unhide), unit_box(), true).unwrap();
        assert_eq!((out.polygons[0].material, out.polygons.len()), (2, 6));
        // No delta: the input as a tri object.
        assert_eq!(apply(None, unit_box().into_poly(), false).unwrap().rule, FaceRule::Triangles);
    }
}
