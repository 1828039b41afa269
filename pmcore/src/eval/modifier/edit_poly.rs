//! The Edit Poly modifier: which of its recorded operations leave the topology alone.
//!
//! Each node's copy of the modifier keeps, in its per-node data (the derived object's
//! 0x2500 → 0x2512 container), one `0x0230` (operation id, u32) → `0x0234` (settings) →
//! optional `0x0238` (data) triple per committed operation, in application order
//! (`max_payload_formats.txt`); the operation still being edited is the modifier's
//! parameter 0 (`currentOperation`, 0 = none). Operation ids are the SDK's
//! `epolyModButtonOp` enumeration (`iEPolyMod.h`).
//!
//! [`replay`] applies, in order, the operations whose records and meaning are known (the
//! SDK sample `EditPolyOps.cpp` / `EditPolyData.cpp` give the layouts; the FBX Max wrote
//! checks the result):
//!
//! * every settings chunk `0x0234` holds `0x0600` (the operation's selection `0x0400` →
//!   bit array `0x2700`, and `0x0410` parameter records `(u32 id, value)`), then
//!   per-operation chunks (`0x0601`: detach as clone, one byte);
//! * **delete face** (11): the selected faces go; a vertex that loses its last face goes
//!   too when parameter 26 (`epm_delete_isolated_verts`) is set; dead parts are removed
//!   at once (Max collapses after every deleting operation);
//! * **detach face** (13) to an element: vertices shared between selected and unselected
//!   faces are split, the copies (appended in the order the selected faces first use
//!   the vertices: with it `tree.max`'s offsets on its three cloned branches land as in
//!   `tree.FBX`) going to the selected faces; as a clone, the selected faces are copied
//!   with new vertices;
//! * **extrude face** (41), group normals (parameter 36 = 0) or by polygon (2), height
//!   parameter 37: the selected faces, in clusters joined by edges (each face its own
//!   cluster by polygon), are lifted along the cluster's normal (the normalized sum of its
//!   faces' unit normals); a cluster's border vertices are copied, the cluster's faces take
//!   the copies, and one side quad `(a, b, copy b, copy a)` per border edge `a → b` is
//!   appended, walking each border loop (see [`walk_borders`]). While Max's edge numbering
//!   is known ([`poly_edges`]) the walk starts at the cluster's border edge Max numbers
//!   first and the copies come in walk order (`ModularWallSingleDoor.fbx`'s door frame
//!   vertices come in that order; `car`, `Whiteboard`, `PictureFrame` and `MeetingTable`
//!   agree); a bevel right after an extrude walks the new border from the copy of the
//!   extrude's start; otherwise copies come in vertex order. Max parameters beyond these
//!   stop the node (their meaning is not established); **bevel** (32) and **inset** (38)
//!   move the copies as described at [`Lift`];
//! * **tessellate** (28) by edges with tension 0 (parameters 19 = 0 and 20 = 0.0): see
//!   [`tessellate_by_edges`]; by face centres or with a tension the node stops;
//! * **transform** (53): data `0x0238` holds `0x12c3` (vertex count) and `0x12c4` (one
//!   `f32` offset triple per vertex), added to the positions; an empty data chunk moves
//!   nothing;
//! * **insert vertex in edge** (66): data `0x0238` → `0x1600` (count, edge indices,
//!   proportions), and **connect vertices** (44) by the selection: see [`poly_edges`] for
//!   the edge numbering and how faces split; an edge record after an operation whose new
//!   edges are not numbered stops the node;
//! * **hinge from edge** (45) by angle 0 changes nothing (the SDK's `Do` returns at once);
//!   another angle stops the node;
//! * **attach** (58): data `0x0238` holds `0x0e04` (mesh count), per mesh `0x0e08` (its
//!   slot) and `0x0e00` (the attached MNMesh, already in this object's space: Max
//!   transforms it when attaching), then `0x0e0c` (per mesh a material limit: when non-zero
//!   the existing faces' material ids are taken modulo it); the meshes are appended.
//!
//! Operations that only change selections, visibility, materials, smoothing or
//! triangulation pass. Any other operation stops the node, naming it.

use super::Modifier;
use crate::chunk::Chunk;
use crate::eval::context::ModContext;
use crate::eval::derived::StackModifier;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, stop, to_poly, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::poly_edges;
use crate::eval::selection::{
    level, Carry, Selection, EDIT_POLY_EDGE_SEL, EDIT_POLY_FACE_SEL, EDIT_POLY_SEL_LEVEL, EDIT_POLY_VERTEX_SEL,
};
use crate::model::geometry;
use crate::model::scene_index::SceneIndex;
use glam::Vec3;
use std::collections::HashMap;

mod cap;
mod delete_edge;

/// Edit Poly operation ids that keep vertex and polygon counts, with their SDK names.
pub(crate) const COUNT_NEUTRAL_OPERATIONS: &[(u32, &str)] = &[
    (0, "null"),
    (1, "hide vertex"),
    (2, "hide face"),
    (3, "unhide vertex"),
    (4, "unhide face"),
    (5, "hide unselected vertex"),
    (6, "hide unselected face"),
    (7, "named selection copy"),
    (8, "named selection paste"),
    (19, "reset plane"),
    (24, "create shape"),
    (25, "make planar"),
    (29, "retriangulate"),
    (30, "flip face"),
    (31, "flip element"),
    (36, "grow selection"),
    (37, "shrink selection"),
    (46, "select ring"),
    (47, "select loop"),
    (48, "remove isolated map vertices"),
    (51, "outline"),
    (52, "toggle shaded faces"),
    (53, "transform"),
    (57, "align"),
    (61, "edit triangulation"),
    (68, "autosmooth"),
    (69, "smooth"),
    (70, "set material"),
    (71, "select by smoothing"),
    (72, "select by material"),
    (73, "get stack selection"),
    (76, "make planar X"),
    (77, "make planar Y"),
    (78, "make planar Z"),
    (79, "turn edge"),
    (80, "relax"),
    (81, "paint deform"),
    (83, "preserve UV settings"),
];

/// Per-node data container inside the modifier's 0x2500 chunk.
pub(crate) const LOCAL_DATA: u16 = 0x2512;
/// Operation id chunk (u32), one per committed operation.
pub(crate) const OPERATION_ID: u16 = 0x0230;

#[cfg(test)]
/// The committed operation ids stored in a node's Edit Poly data, in application order;
/// `None` when the data is missing or an id chunk is not 4 bytes.
pub(crate) fn committed_operations(mod_app: Option<&Chunk<'_>>) -> Option<Vec<u32>> {
    let local = mod_app?.child(LOCAL_DATA)?;
    local
        .children()
        .iter()
        .filter(|c| c.id == OPERATION_ID)
        .map(|c| {
            let p = c.payload()?;
            (p.len() == 4).then(|| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
        })
        .collect()
}

/// The operations among `ops` that change counts (empty: the modifier passes counts through).
pub(crate) fn topology_operations(ops: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> =
        ops.iter().copied().filter(|op| !COUNT_NEUTRAL_OPERATIONS.iter().any(|(id, _)| id == op)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Operation ids [`replay`] applies beyond the count-neutral ones.
pub(crate) const REPLAYED_OPERATIONS: &[(u32, &str)] = &[
    (9, "cap"),
    (11, "delete face"),
    (54, "delete edge"),
    (13, "detach face"),
    (28, "tessellate"),
    (44, "connect vertices"),
    (45, "hinge from edge (angle 0)"),
    (22, "weld vertex"),
    (59, "target weld vertex"),
    (66, "insert vertex in edge"),
    (32, "bevel"),
    (38, "inset"),
    (41, "extrude face"),
    (53, "transform"),
    (58, "attach"),
];

/// Settings chunk of an operation.
pub(crate) const OPERATION_SETTINGS: u16 = 0x0234;
/// Data chunk of an operation.
pub(crate) const OPERATION_DATA: u16 = 0x0238;

/// One committed operation as stored.
#[derive(Clone, Debug)]
pub(crate) struct Operation<'c> {
    /// `epolyModButtonOp` id.
    pub id: u32,
    /// The operation's own selection (`None`: none stored).
    pub selection: Option<Vec<bool>>,
    /// Parameter records (id, value bytes).
    pub parameters: Vec<(u32, &'c [u8])>,
    /// Detach as clone (`0x0601`).
    pub clone: bool,
    /// The data chunk `0x0238`, when present.
    pub data: Option<&'c Chunk<'c>>,
    /// Chunks of the settings' `0x0600` whose meaning is not established (the operation's
    /// own transform `0x0420` and mod-context matrix `0x0430` among them).
    pub unknown_settings: Vec<u16>,
}

/// Settings chunks inside `0x0600` a replay may leave aside: selection `0x0400`,
/// parameters `0x0410`, texture-preservation settings `0x0440`, and `0x0450` / `0x0470`
/// (newer releases, one `u32` each; present on the operations of `MeetingTable.max`,
/// `Whiteboard.max` and `pictureframe.max`, whose replays equal Max's exports).
const KNOWN_SETTINGS: &[u16] = &[0x0400, 0x0410, 0x0440, 0x0450, 0x0470];

/// Decodes a Max `BitArray` chunk (`0x2700`: `u32` bit count, then the bits, low bit of
/// byte 0 first).
pub(crate) fn bit_array(c: &Chunk<'_>) -> Option<Vec<bool>> {
    let p = c.payload()?;
    let n = u32::from_le_bytes(p.get(..4)?.try_into().ok()?) as usize;
    let bytes = p.get(4..)?;
    if bytes.len() != n.div_ceil(8) {
        return None;
    }
    Some((0..n).map(|i| bytes[i / 8] & (1 << (i % 8)) != 0).collect())
}

/// The committed operations of a node's Edit Poly data with their settings and data;
/// `Err` when the records are not laid out as `0x0230 → 0x0234 → [0x0238]`.
pub(crate) fn operations<'c>(mod_app: Option<&'c Chunk<'c>>) -> Result<Vec<Operation<'c>>, String> {
    let local = mod_app.and_then(|a| a.child(LOCAL_DATA)).ok_or("per-node operation records missing")?;
    let mut out: Vec<Operation<'c>> = Vec::new();
    for c in local.children() {
        match c.id {
            OPERATION_ID => {
                let p = c.payload().filter(|p| p.len() == 4).ok_or("operation id is not a u32")?;
                out.push(Operation {
                    id: u32::from_le_bytes([p[0], p[1], p[2], p[3]]),
                    selection: None,
                    parameters: Vec::new(),
                    clone: false,
                    data: None,
                    unknown_settings: Vec::new(),
                });
            }
            OPERATION_SETTINGS => {
                let op = out.last_mut().ok_or("operation settings before any operation id")?;
                for s in c.children() {
                    match s.id {
                        0x0600 => {
                            for b in s.children() {
                                match b.id {
                                    0x0400 => {
                                        op.selection = match b.child(0x2700) {
                                            Some(bits) => {
                                                Some(bit_array(bits).ok_or("unreadable selection bit array")?)
                                            }
                                            None => None,
                                        }
                                    }
                                    0x0410 => {
                                        let p = b.payload().filter(|p| p.len() >= 4).ok_or("short parameter record")?;
                                        op.parameters.push((u32::from_le_bytes([p[0], p[1], p[2], p[3]]), &p[4..]));
                                    }
                                    id if KNOWN_SETTINGS.contains(&id) => {}
                                    id => op.unknown_settings.push(id),
                                }
                            }
                        }
                        0x0601 => op.clone = s.payload().is_some_and(|p| p.first().is_some_and(|&b| b != 0)),
                        _ => {}
                    }
                }
            }
            OPERATION_DATA => out.last_mut().ok_or("operation data before any operation id")?.data = Some(c),
            _ => {}
        }
    }
    Ok(out)
}

impl Operation<'_> {
    fn parameter_u32(&self, id: u32) -> Option<u32> {
        self.parameters
            .iter()
            .find(|(p, _)| *p == id)
            .and_then(|(_, v)| v.get(..4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    /// The selected indices below `count`; `Err` when the operation stores no selection.
    fn selected(&self, count: usize) -> Result<Vec<bool>, String> {
        let sel = self.selection.as_ref().filter(|s| !s.is_empty()).ok_or_else(|| {
            format!("operation {} stores no selection (Max would use the live one, not saved)", self.id)
        })?;
        Ok((0..count).map(|i| sel.get(i).copied().unwrap_or(false)).collect())
    }
}

/// Whether the operation indexes vertices or faces of its input (a selection, or per-vertex
/// offsets not all zero): replaying it needs the input in Max's own order.
pub(crate) fn uses_indices(op: &Operation<'_>) -> bool {
    match op.id {
        9 | 11 | 13 | 22 | 28 | 32 | 38 | 41 | 44 | 54 | 59 | 66 => true,
        53 => op.data.is_some_and(|d| transform_offsets(d).map_or(true, |o| o.iter().any(|v| *v != Vec3::ZERO))),
        _ => false,
    }
}

/// `epm_delete_isolated_verts` (`iEPolyMod.h` parameter enumeration).
const DELETE_ISOLATED_VERTICES: u32 = 26;
/// `epm_tess_type` (0 by edges, 1 by face centres) and `epm_tess_tension`.
const TESS_TYPE: u32 = 19;
const TESS_TENSION: u32 = 20;
/// `epm_extrude_face_type`: 0 group normals, 1 local normals, 2 by polygon.
const EXTRUDE_FACE_TYPE: u32 = 36;
/// `epm_extrude_face_height`.
const EXTRUDE_FACE_HEIGHT: u32 = 37;
/// `epm_bevel_type`, `epm_bevel_height`, `epm_bevel_outline`.
const BEVEL_TYPE: u32 = 38;
const BEVEL_HEIGHT: u32 = 39;
const BEVEL_OUTLINE: u32 = 40;
/// `epm_inset_type`, `epm_inset`.
const INSET_TYPE: u32 = 41;
const INSET_AMOUNT: u32 = 42;
/// `epm_hinge_angle` (the hinge's other parameters, 45–47, are its base, direction and
/// segments).
const HINGE_ANGLE: u32 = 44;
/// `epm_weld_vertex_threshold`.
const WELD_THRESHOLD: u32 = 27;
/// `epm_preserve_maps` (texture coordinates only).
const PRESERVE_MAPS: u32 = 71;
/// A parameter newer Max releases write beside the extrude settings, beyond the 2011
/// SDK's enumeration: the corpus files hold 1.0, and with it read as the neutral value the
/// results equal Max's exports (`Whiteboard.fbx`, `PictureFrame.fbx`); any other value
/// stops the node.
const EXTRUDE_FACE_BIAS: u32 = 120;
/// Its bevel counterpart: 1.0 in the corpus files; read as neutral, the bevel of
/// `NewModularWallSingleDoor.max` puts the door frame's inner ring where
/// `ModularWallSingleDoor.fbx` has it (e.g. (18.8977, −38.5827, 0.3937)); any other value
/// stops the node.
const BEVEL_BIAS: u32 = 121;

#[cfg(test)]
/// Applies `ops` in order to `mesh` (a poly object); `Err` names the first operation that
/// is not replayed or whose records are unreadable.
pub(crate) fn replay(mesh: EvalMesh, ops: &[Operation<'_>]) -> Result<EvalMesh, String> {
    replay_after_flips(mesh, ops, false)
}

/// [`replay`] on an input whose faces a Normal modifier turned over after its edges were
/// numbered (`turned`: see [`poly_edges::fill_edges`]).
pub(crate) fn replay_after_flips(mut mesh: EvalMesh, ops: &[Operation<'_>], turned: bool) -> Result<EvalMesh, String> {
    let mut edges = Some(poly_edges::fill_edges(&mesh, turned));
    // After an extrude-like operation: its new border edges in the order Max numbers them.
    let mut lifted_border: Option<Vec<(u32, u32)>> = None;
    let mut edges_lost_at = 0;
    // Directed edges whose direction is known (target welds keep an edge's `v1`), also
    // after operations that renumber only some edges.
    let mut directed: Option<Vec<(u32, u32)>> = None;
    let mut caps = cap::Caps::default();
    for op in ops {
        if empty_selection_no_op(op) {
            continue;
        }
        caps.check(op, mesh.polygons.len())?;
        if ![32, 38, 41, 53].contains(&op.id) {
            lifted_border = None;
        }
        // Operations that change the edges in ways not tracked still see them before.
        let mut edges_before = None;
        if !EDGE_KEEPING.contains(&op.id) && edges.is_some() {
            edges_before = edges.take();
            edges_lost_at = op.id;
        }
        match edges.as_ref().or(edges_before.as_ref()) {
            Some(e) => directed = Some(e.iter().map(|e| (e.v1, e.v2)).collect()),
            None if ![32, 38, 41, 53, 59].contains(&op.id) => directed = None,
            None => {}
        }
        if skipped(op)? {
            continue;
        }
        match op.id {
            9 => caps.fill(&mut mesh, edges.as_mut().ok_or_else(|| no_edges(edges_lost_at))?, op)?,
            11 => delete_faces_op(&mut mesh, edges.as_mut(), op)?,
            54 => delete_edge::delete_edges_op(&mut mesh, edges.as_mut().ok_or_else(|| no_edges(edges_lost_at))?, op)?,
            66 => {
                let e = edges.as_mut().ok_or_else(|| no_edges(edges_lost_at))?;
                let data = op.data.and_then(|d| d.child(0x1600)).and_then(|c| c.payload());
                let records =
                    data.and_then(poly_edges::insert_records).ok_or("insert vertex in edge: records unreadable")?;
                for (edge, prop) in records {
                    poly_edges::split_edge(&mut mesh, e, edge, prop)?;
                }
            }
            22 => weld_op(&mut mesh, op)?,
            59 => target_weld_op(&mut mesh, &mut directed, op)?,
            44 => {
                let e = edges.as_mut().ok_or_else(|| no_edges(edges_lost_at))?;
                let marked = op.selected(mesh.positions.len())?;
                poly_edges::connect_vertices(&mut mesh, e, &marked)?;
            }
            13 => {
                let faces = op.selected(mesh.polygons.len())?;
                detach_faces(&mut mesh, &faces, op.clone);
            }
            28 => tessellate_op(&mut mesh, op)?,
            32 | 38 | 41 => {
                let faces = op.selected(mesh.polygons.len())?;
                let order = match (&edges_before, &lifted_border) {
                    (Some(e), _) => Some(poly_edges::directed_border(e, &mesh, &faces)),
                    (None, Some(l)) => Some(l.clone()),
                    _ => None,
                };
                let (lift, by_polygon) = face_operation(op)?;
                lifted_border = Some(lift_faces(&mut mesh, &faces, by_polygon, lift, order.as_deref(), &mut directed)?);
            }
            53 => {
                let Some(data) = op.data else { continue };
                let offsets = transform_offsets(data)?;
                for (p, o) in mesh.positions.iter_mut().zip(offsets) {
                    *p += o;
                }
            }
            58 => attach(&mut mesh, op.data.ok_or("attach without its meshes")?)?,
            id => return Err(format!("operation {id} is not replayed")),
        }
    }
    collapse_dead_faces(&mut mesh);
    Ok(mesh)
}

/// Operations that act on the sub-objects their selection flags and on nothing else:
/// chamfer vertex (33), chamfer edge (34), extrude vertex (39), extrude edge (40), connect
/// edge (43). Max's `PolyOperation::SetUserFlags` sets the operation's flag on exactly the
/// elements its stored selection holds (and clears it on the rest) unless the stored
/// selection has size 0; with a stored selection of non-zero size and no bit set, nothing is
/// flagged and the `MNMesh` call (`ChamferEdges`, `ExtrudeEdges`, `ConnectEdges` …) finds
/// nothing to work on. `alina0708__room.max` holds four such chamfers (12 edges, none set).
const FLAG_ONLY_OPERATIONS: &[u32] = &[33, 34, 39, 40, 43];

/// Whether `op` is one of [`FLAG_ONLY_OPERATIONS`] with a stored, non-empty selection in
/// which no element is set: it changes nothing, counts and edge numbering included.
pub(crate) fn empty_selection_no_op(op: &Operation<'_>) -> bool {
    FLAG_ONLY_OPERATIONS.contains(&op.id)
        && op.selection.as_ref().is_some_and(|s| !s.is_empty() && s.iter().all(|&b| !b))
}

/// Whether `op` changes nothing to replay (a count-neutral operation other than the vertex
/// offsets, a hinge by 0°); `Err` for settings that are not replayed.
fn skipped(op: &Operation<'_>) -> Result<bool, String> {
    if COUNT_NEUTRAL_OPERATIONS.iter().any(|(id, _)| *id == op.id) && op.id != 53 {
        return Ok(true);
    }
    if op.id == 45 {
        // `PolyOpHingeFromEdge::Do` returns at once when the angle is 0.
        match op.parameter_u32(HINGE_ANGLE).map(f32::from_bits) {
            Some(0.0) => return Ok(true),
            Some(a) => return Err(format!("hinge from edge by {a} rad is not replayed")),
            None => return Err("hinge from edge without its angle".into()),
        }
    }
    if let Some(id) = op.unknown_settings.first() {
        return Err(format!("operation {} carries settings chunk 0x{id:04x}, not replayed", op.id));
    }
    Ok(false)
}

/// Delete face (11), with the edge numbering kept in step when it is known.
fn delete_faces_op(
    mesh: &mut EvalMesh,
    edges: Option<&mut Vec<poly_edges::Edge>>,
    op: &Operation<'_>,
) -> Result<(), String> {
    let faces = op.selected(mesh.polygons.len())?;
    delete_marked_faces(mesh, edges, &faces, op)
}

/// Deletes the `faces` marked (delete face, delete edge), dropping the vertices left
/// without a face when `op`'s isolated-vertices setting asks for it, with the edge
/// numbering kept in step when it is known.
fn delete_marked_faces(
    mesh: &mut EvalMesh,
    edges: Option<&mut Vec<poly_edges::Edge>>,
    faces: &[bool],
    op: &Operation<'_>,
) -> Result<(), String> {
    let delete_isolated =
        op.parameter_u32(DELETE_ISOLATED_VERTICES).ok_or("delete face without its isolated-vertices setting")? != 0;
    let vertex_map = delete_faces(mesh, faces, delete_isolated);
    collapse_dead_faces(mesh);
    if let Some(e) = edges {
        let mut next = 0;
        let face_map: Vec<Option<usize>> = faces
            .iter()
            .map(|&gone| {
                (!gone).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        poly_edges::after_delete(e, &face_map, &vertex_map)?;
    }
    Ok(())
}

/// Weld vertex (22) by its threshold.
fn weld_op(mesh: &mut EvalMesh, op: &Operation<'_>) -> Result<(), String> {
    let marked = op.selected(mesh.positions.len())?;
    if let Some((id, _)) = op.parameters.iter().find(|(id, _)| *id != WELD_THRESHOLD) {
        return Err(format!("weld vertex with parameter {id}, whose meaning is not established"));
    }
    let threshold = op.parameter_u32(WELD_THRESHOLD).map(f32::from_bits).ok_or("weld vertex without its threshold")?;
    poly_edges::weld_vertices(mesh, &marked, threshold)
}

/// Target weld (59): each start vertex onto its target.
fn target_weld_op(
    mesh: &mut EvalMesh,
    directed: &mut Option<Vec<(u32, u32)>>,
    op: &Operation<'_>,
) -> Result<(), String> {
    let data = op.data.ok_or("target weld without its records")?;
    let payload = |id: u16| data.child(id).and_then(|c| c.payload());
    let welds = payload(0x06c0)
        .zip(payload(0x06c4))
        .and_then(|(s, t)| poly_edges::weld_records(s, t))
        .ok_or("target weld: records unreadable")?;
    for (start, target) in welds {
        poly_edges::target_weld(mesh, directed, start, target)?;
    }
    Ok(())
}

/// Tessellate (28) by edges at tension 0, the one case replayed.
fn tessellate_op(mesh: &mut EvalMesh, op: &Operation<'_>) -> Result<(), String> {
    let faces = op.selected(mesh.polygons.len())?;
    if let Some((id, _)) = op.parameters.iter().find(|(id, _)| ![TESS_TYPE, TESS_TENSION].contains(id)) {
        return Err(format!("tessellate with parameter {id}, whose meaning is not established"));
    }
    if op.parameter_u32(TESS_TYPE).ok_or("tessellate without its type")? != 0 {
        return Err("tessellate by face centres (type 1) is not replayed".into());
    }
    let tension = f32::from_bits(op.parameter_u32(TESS_TENSION).ok_or("tessellate without its tension")?);
    if tension != 0.0 {
        return Err(format!("tessellate with tension {tension} (edge points off the edges) is not replayed"));
    }
    tessellate_by_edges(mesh, &faces);
    Ok(())
}

/// Bevel (32), inset (38) or extrude face (41): how the faces move, and whether each
/// polygon goes alone (type 2) rather than by cluster (type 0).
fn face_operation(op: &Operation<'_>) -> Result<(Lift, bool), String> {
    let (type_id, known, lift): FaceOperation = match op.id {
        41 => {
            (EXTRUDE_FACE_TYPE, &[EXTRUDE_FACE_TYPE, EXTRUDE_FACE_HEIGHT, EXTRUDE_FACE_BIAS], |h, _| Lift::Extrude(h))
        }
        38 => (INSET_TYPE, &[INSET_TYPE, INSET_AMOUNT, PRESERVE_MAPS], |a, _| Lift::Inset(a)),
        _ => (BEVEL_TYPE, &[BEVEL_TYPE, BEVEL_HEIGHT, BEVEL_OUTLINE, BEVEL_BIAS], Lift::Bevel),
    };
    if let Some((id, _)) = op.parameters.iter().find(|(id, _)| !known.contains(id)) {
        return Err(format!("operation {} with parameter {id}, whose meaning is not established", op.id));
    }
    for bias in [EXTRUDE_FACE_BIAS, BEVEL_BIAS] {
        if op.parameter_u32(bias).is_some_and(|b| f32::from_bits(b) != 1.0) {
            return Err(format!("operation {} with parameter {bias} other than 1", op.id));
        }
    }
    let by_polygon = match op.parameter_u32(type_id).ok_or("face operation without its type")? {
        0 => false,
        2 => true,
        t => return Err(format!("operation {} of type {t} (local normals) is not replayed", op.id)),
    };
    let float = |id: u32| op.parameter_u32(id).map(f32::from_bits);
    let (a, b) = match op.id {
        41 => (float(EXTRUDE_FACE_HEIGHT).ok_or("extrude face without its height")?, 0.0),
        38 => (float(INSET_AMOUNT).ok_or("inset without its amount")?, 0.0),
        _ => (
            float(BEVEL_HEIGHT).ok_or("bevel without its height")?,
            float(BEVEL_OUTLINE).ok_or("bevel without its outline")?,
        ),
    };
    Ok((lift(a, b), by_polygon))
}

/// Operations after which [`poly_edges`] still knows Max's edge order: cap (9) gives the
/// existing border edges their second face and adds none; outline (51) moves vertices only;
/// delete edge (54) deletes faces, as delete face does.
const EDGE_KEEPING: &[u32] =
    &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 19, 24, 36, 37, 44, 45, 46, 47, 48, 51, 52, 53, 54, 66, 70, 71, 72, 73];

fn no_edges(after: u32) -> String {
    format!("edge order after operation {after} is not known")
}

/// Unit normal of a polygon (Newell's sum over its corners).
fn polygon_normal(positions: &[Vec3], corners: &[u32]) -> Vec3 {
    let mut n = Vec3::ZERO;
    for (i, &a) in corners.iter().enumerate() {
        let (p, q) = (positions[a as usize], positions[corners[(i + 1) % corners.len()] as usize]);
        n += Vec3::new((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y));
    }
    n.normalize_or_zero()
}

/// Extrudes the marked faces (see the module notes).
/// A face operation's type parameter, its accepted parameters and its motion.
type FaceOperation = (u32, &'static [u32], fn(f32, f32) -> Lift);

/// How the copied faces of [`lift_faces`] move.
#[derive(Clone, Copy, Debug)]
enum Lift {
    /// Every vertex of a cluster along the cluster's normal by this height (extrude).
    Extrude(f32),
    /// The border copies inward in the cluster's plane so that every border edge moves
    /// by this distance (inset): a copy of `v` between border edges `u → v → w` moves
    /// along `(n₁ + n₂) / (1 + n₁·n₂)`, `nᵢ` the edges' unit inward normals `N × edge`.
    Inset(f32),
    /// Extrude by the height, then move the border copies outward by the outline amount
    /// (an inset by its negative).
    Bevel(f32, f32),
}

/// Copies the border of each cluster of marked faces, joins old and new borders by side
/// quads, and moves the copies as `lift` says.
fn lift_faces(
    mesh: &mut EvalMesh,
    faces: &[bool],
    by_polygon: bool,
    lift: Lift,
    border_order: Option<&[(u32, u32)]>,
    known: &mut Option<Vec<(u32, u32)>>,
) -> Result<Vec<(u32, u32)>, String> {
    let edge_face = edge_faces(mesh);
    let (selected, roots) = clusters(mesh, faces, by_polygon, &edge_face);
    let mut normal: HashMap<usize, Vec3> = HashMap::new();
    for (&f, &r) in selected.iter().zip(&roots) {
        *normal.entry(r).or_default() += polygon_normal(&mesh.positions, &mesh.polygons[f].corners);
    }
    let border = cluster_borders(mesh, &selected, &roots, &edge_face, border_order);
    let copy = copy_border_vertices(mesh, &border, border_order.is_some());
    // Known edge directions: an edge inside a cluster moves to the copies; a border edge
    // now lies between the unmarked face and a side face, and runs as the marked face
    // walked it (the side face's way: the welds of `NewModularWallSingleDoor.max` need
    // it); by polygon every edge of a marked face turns into a border: not followed.
    if by_polygon {
        *known = None;
    }
    if let Some(k) = known.as_mut() {
        follow_known_edges(mesh, &selected, &roots, &copy, k);
    }
    let moved = move_to_copies(mesh, &selected, &roots, &copy);
    apply_lift(mesh, lift, &moved, &normal, &border, &copy)?;
    let mut copied_border = Vec::with_capacity(border.len());
    for (r, a, b) in border {
        mesh.polygons.push(Polygon::new(vec![a, b, copy[&(r, b)], copy[&(r, a)]]));
        copied_border.push((copy[&(r, a)], copy[&(r, b)]));
    }
    Ok(copied_border)
}

/// Directed edge → face, to find each edge's other face.
fn edge_faces(mesh: &EvalMesh) -> HashMap<(u32, u32), usize> {
    let mut edge_face: HashMap<(u32, u32), usize> = HashMap::new();
    for (f, p) in mesh.polygons.iter().enumerate() {
        for (i, &a) in p.corners.iter().enumerate() {
            edge_face.insert((a, p.corners[(i + 1) % p.corners.len()]), f);
        }
    }
    edge_face
}

/// The marked faces and the cluster (its root face) of each: the union of marked faces
/// sharing an edge, or each face alone `by_polygon`.
fn clusters(
    mesh: &EvalMesh,
    faces: &[bool],
    by_polygon: bool,
    edge_face: &HashMap<(u32, u32), usize>,
) -> (Vec<usize>, Vec<usize>) {
    let selected: Vec<usize> = (0..mesh.polygons.len()).filter(|&f| faces[f]).collect();
    let mut cluster: HashMap<usize, usize> = selected.iter().map(|&f| (f, f)).collect();
    fn root(c: &mut HashMap<usize, usize>, f: usize) -> usize {
        let mut r = f;
        while c[&r] != r {
            r = c[&r];
        }
        c.insert(f, r);
        r
    }
    if !by_polygon {
        for &f in &selected {
            let c = &mesh.polygons[f].corners;
            for (i, &a) in c.iter().enumerate() {
                let b = c[(i + 1) % c.len()];
                if let Some(&g) = edge_face.get(&(b, a)) {
                    if faces[g] {
                        let (x, y) = (root(&mut cluster, f), root(&mut cluster, g));
                        if x != y {
                            cluster.insert(x.max(y), x.min(y));
                        }
                    }
                }
            }
        }
    }
    let roots: Vec<usize> = selected.iter().map(|&f| root(&mut cluster, f)).collect();
    (selected, roots)
}

/// Border edges per cluster (edge a → b of a cluster face whose other side is not in the
/// same cluster), in face order, or from the edge Max numbers first, walked as loops.
fn cluster_borders(
    mesh: &EvalMesh,
    selected: &[usize],
    roots: &[usize],
    edge_face: &HashMap<(u32, u32), usize>,
    border_order: Option<&[(u32, u32)]>,
) -> Vec<(usize, u32, u32)> {
    let in_cluster =
        |g: Option<&usize>, r: usize, roots_of: &HashMap<usize, usize>| g.is_some_and(|g| roots_of.get(g) == Some(&r));
    let roots_of: HashMap<usize, usize> = selected.iter().copied().zip(roots.iter().copied()).collect();
    let mut border: Vec<(usize, u32, u32)> = Vec::new();
    for (&f, &r) in selected.iter().zip(roots) {
        let c = &mesh.polygons[f].corners;
        for (i, &a) in c.iter().enumerate() {
            let b = c[(i + 1) % c.len()];
            if !in_cluster(edge_face.get(&(b, a)), r, &roots_of) {
                border.push((r, a, b));
            }
        }
    }
    if let Some(order) = border_order {
        // Each cluster's walk starts at its border edge Max numbers first.
        let rank: HashMap<(u32, u32), usize> = order.iter().enumerate().map(|(i, &e)| (e, i)).rev().collect();
        border.sort_by_key(|&(_, a, b)| rank.get(&(a, b)).copied().unwrap_or(usize::MAX));
    }
    walk_borders(border)
}

/// Copies of border vertices per cluster, appended in vertex order, or in the order of the
/// walk when Max's border order is `walked`.
fn copy_border_vertices(mesh: &mut EvalMesh, border: &[(usize, u32, u32)], walked: bool) -> HashMap<(usize, u32), u32> {
    let mut on_border: Vec<(usize, u32)> =
        border.iter().map(|&(r, a, _)| (r, a)).chain(border.iter().map(|&(r, _, b)| (r, b))).collect();
    if walked {
        let mut seen = Vec::with_capacity(on_border.len());
        for &(r, a, _) in border {
            if !seen.contains(&(r, a)) {
                seen.push((r, a));
            }
        }
        on_border = seen;
    } else {
        on_border.sort_by_key(|&(r, v)| (v, r));
        on_border.dedup();
    }
    let mut copy: HashMap<(usize, u32), u32> = HashMap::new();
    for (r, v) in on_border {
        copy.insert((r, v), mesh.positions.len() as u32);
        let p = mesh.positions[v as usize];
        mesh.positions.push(p);
    }
    copy
}

/// Updates the known edge directions `k` for the lift (see [`lift_faces`]).
fn follow_known_edges(
    mesh: &EvalMesh,
    selected: &[usize],
    roots: &[usize],
    copy: &HashMap<(usize, u32), u32>,
    k: &mut [(u32, u32)],
) {
    // Per undirected pair: the marked faces walking it (cluster, from, to).
    type Walks = Vec<(usize, u32, u32)>;
    let mut walking: HashMap<(u32, u32), Walks> = HashMap::new();
    for (&f, &r) in selected.iter().zip(roots) {
        let c = &mesh.polygons[f].corners;
        for i in 0..c.len() {
            let (x, y) = (c[i], c[(i + 1) % c.len()]);
            walking.entry((x.min(y), x.max(y))).or_default().push((r, x, y));
        }
    }
    for (a, b) in k.iter_mut() {
        match walking.get(&((*a).min(*b), (*a).max(*b))).map(Vec::as_slice) {
            Some([(r, _, _), _]) => {
                *a = copy.get(&(*r, *a)).copied().unwrap_or(*a);
                *b = copy.get(&(*r, *b)).copied().unwrap_or(*b);
            }
            Some([(_, x, y)]) => (*a, *b) = (*x, *y),
            _ => {}
        }
    }
}

/// Cluster faces take the copies; the moved vertices per cluster, sorted.
fn move_to_copies(
    mesh: &mut EvalMesh,
    selected: &[usize],
    roots: &[usize],
    copy: &HashMap<(usize, u32), u32>,
) -> Vec<(usize, u32)> {
    let mut moved: Vec<(usize, u32)> = Vec::new();
    for (&f, &r) in selected.iter().zip(roots) {
        let p = &mut mesh.polygons[f];
        p.triangles.clear();
        for c in p.corners.iter_mut() {
            if let Some(&n) = copy.get(&(r, *c)) {
                *c = n;
            }
            moved.push((r, *c));
        }
    }
    moved.sort_unstable();
    moved.dedup();
    moved
}

/// Moves the copies as `lift` says.
fn apply_lift(
    mesh: &mut EvalMesh,
    lift: Lift,
    moved: &[(usize, u32)],
    normal: &HashMap<usize, Vec3>,
    border: &[(usize, u32, u32)],
    copy: &HashMap<(usize, u32), u32>,
) -> Result<(), String> {
    let amount = match lift {
        Lift::Extrude(height) | Lift::Bevel(height, _) => {
            for &(r, v) in moved {
                let n = normal[&r].normalize_or_zero();
                mesh.positions[v as usize] += n * height;
            }
            match lift {
                Lift::Bevel(_, outline) => -outline,
                _ => return Ok(()),
            }
        }
        Lift::Inset(a) => a,
    };
    // Per border copy: the inward normals of its incoming and outgoing border edges.
    let mut edges_at: HashMap<(usize, u32), Vec<Vec3>> = HashMap::new();
    for &(r, a, b) in border {
        let n = normal[&r].normalize_or_zero();
        let inward = n.cross(mesh.positions[b as usize] - mesh.positions[a as usize]).normalize_or_zero();
        edges_at.entry((r, a)).or_default().push(inward);
        edges_at.entry((r, b)).or_default().push(inward);
    }
    for ((r, v), normals) in edges_at {
        let [n1, n2] = normals[..] else {
            return Err(format!("inset: vertex {v} lies on {} border edges of its cluster", normals.len()));
        };
        let d = (n1 + n2) / (1.0 + n1.dot(n2));
        let c = copy[&(r, v)] as usize;
        mesh.positions[c] += d * amount;
    }
    Ok(())
}

/// Orders border edges `(cluster, a, b)` as Max appends the side faces: clusters in order
/// of their first border edge (face order), and within a cluster, from its first border
/// edge along the loop (the edge leaving `b` next) until the loop closes, then the next
/// edge not yet taken (`car.max`'s delete after an extrude of 2 × 4 quads picks the two
/// sides meeting at one corner as consecutive faces).
fn walk_borders(border: Vec<(usize, u32, u32)>) -> Vec<(usize, u32, u32)> {
    let mut taken = vec![false; border.len()];
    let mut out = Vec::with_capacity(border.len());
    let mut clusters: Vec<usize> = Vec::new();
    for &(r, _, _) in &border {
        if !clusters.contains(&r) {
            clusters.push(r);
        }
    }
    for r in clusters {
        while let Some(start) = (0..border.len()).find(|&i| !taken[i] && border[i].0 == r) {
            let mut i = start;
            loop {
                taken[i] = true;
                out.push(border[i]);
                let b = border[i].2;
                match (0..border.len()).find(|&j| !taken[j] && border[j].0 == r && border[j].1 == b) {
                    Some(j) => i = j,
                    None => break,
                }
            }
        }
    }
    out
}

/// Per-vertex offsets of a transform operation's data.
fn transform_offsets(data: &Chunk<'_>) -> Result<Vec<Vec3>, String> {
    // An empty data chunk (no children, no bytes): a transform that moved no vertex
    // (`car.max`'s Edit Poly, whose replay then equals `car.FBX`).
    if data.children().is_empty() && data.payload().is_some_and(|p| p.is_empty()) {
        return Ok(Vec::new());
    }
    let n = data
        .child(0x12c3)
        .and_then(|c| c.payload())
        .filter(|p| p.len() == 4)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize)
        .ok_or("transform data without its vertex count 0x12c3")?;
    let p = data.child(0x12c4).and_then(|c| c.payload()).ok_or("transform data without offsets 0x12c4")?;
    if p.len() != 12 * n {
        return Err(format!("transform offsets: {} bytes for {n} vertices", p.len()));
    }
    Ok(p.chunks_exact(12)
        .map(|c| {
            let f = |i: usize| f32::from_le_bytes([c[i], c[i + 1], c[i + 2], c[i + 3]]);
            Vec3::new(f(0), f(4), f(8))
        })
        .collect())
}

/// Deletes the faces marked in `faces`; a vertex used before and by no face after goes
/// when `delete_isolated` (a vertex no face used before stays). Survivors keep their order.
/// Returns each old vertex's new index (`None`: deleted).
fn delete_faces(mesh: &mut EvalMesh, faces: &[bool], delete_isolated: bool) -> Vec<Option<u32>> {
    let mut used_before = vec![false; mesh.positions.len()];
    let mut used_after = vec![false; mesh.positions.len()];
    for (p, &gone) in mesh.polygons.iter().zip(faces) {
        for &c in &p.corners {
            used_before[c as usize] = true;
            used_after[c as usize] |= !gone;
        }
    }
    let mut keep = faces.iter().map(|g| !g);
    mesh.polygons.retain(|_| keep.next().unwrap_or(true));
    let dead: Vec<bool> = if delete_isolated {
        used_before.iter().zip(&used_after).map(|(b, a)| *b && !*a).collect()
    } else {
        vec![false; mesh.positions.len()]
    };
    remove_vertices(mesh, &dead)
}

/// Removes the vertices marked dead (no live polygon may use them) and renumbers; returns
/// each old vertex's new index.
fn remove_vertices(mesh: &mut EvalMesh, dead: &[bool]) -> Vec<Option<u32>> {
    let mut remap = vec![u32::MAX; mesh.positions.len()];
    let mut kept = Vec::with_capacity(mesh.positions.len());
    for (i, p) in mesh.positions.iter().enumerate() {
        if !dead[i] {
            remap[i] = kept.len() as u32;
            kept.push(*p);
        }
    }
    mesh.positions = kept;
    for p in &mut mesh.polygons {
        for c in p.corners.iter_mut().chain(p.triangles.iter_mut().flatten()) {
            *c = remap[*c as usize];
        }
    }
    remap.into_iter().map(|r| (r != u32::MAX).then_some(r)).collect()
}

/// Tessellates the marked faces by edges with tension 0 (`MNMesh::TessellateByEdges`,
/// which the SDK's Edit Poly calls with tension / 400): every edge of a marked face gets a
/// vertex at its midpoint (in the order the edges come in the marked faces, each face's
/// from its corner 0 — with that order `car.FBX`'s vertices all match), every
/// marked face a vertex at its safe centre ([`safe_centre`]); a marked n-gon dies in place (its
/// index stays taken until the next collapse: `car.max`'s next selection counts
/// 96 + 4 × 32 faces) and n quads `(midpoint before corner j+1, corner j+1, midpoint
/// after, centre)` are appended, j = 0 … n−1 (the rotation `car.max`'s extrude and delete
/// selections need). An unmarked face sharing such an edge takes the midpoint among its
/// corners (a quad beside the region becomes a pentagon).
fn tessellate_by_edges(mesh: &mut EvalMesh, faces: &[bool]) {
    use std::collections::HashMap;
    let key = |a: u32, b: u32| (a.min(b), a.max(b));
    // Midpoints in the order the marked faces' edges come (face order, then corner order).
    let mut midpoint: HashMap<(u32, u32), u32> = HashMap::new();
    for (p, _) in mesh.polygons.iter().zip(faces).filter(|(_, &s)| s) {
        let c = &p.corners;
        for (i, &a) in c.iter().enumerate() {
            let b = c[(i + 1) % c.len()];
            if let std::collections::hash_map::Entry::Vacant(e) = midpoint.entry(key(a, b)) {
                let m = (mesh.positions[a as usize] + mesh.positions[b as usize]) * 0.5;
                mesh.positions.push(m);
                e.insert((mesh.positions.len() - 1) as u32);
            }
        }
    }
    let mut added: Vec<Polygon> = Vec::new();
    for (f, &marked) in faces.iter().enumerate().take(mesh.polygons.len()) {
        let c = mesh.polygons[f].corners.clone();
        let n = c.len();
        if marked {
            let corners: Vec<Vec3> = c.iter().map(|&v| mesh.positions[v as usize]).collect();
            mesh.positions.push(safe_centre(&corners));
            let centre = (mesh.positions.len() - 1) as u32;
            for j in 0..n {
                let (prev, v, next) = (c[j], c[(j + 1) % n], c[(j + 2) % n]);
                let mut q = mesh.polygons[f].clone();
                q.corners = vec![midpoint[&key(prev, v)], v, midpoint[&key(v, next)], centre];
                q.triangles.clear();
                added.push(q);
            }
            // The face dies in place (its index stays taken until the next collapse).
            mesh.polygons[f].corners.clear();
            mesh.polygons[f].triangles.clear();
        } else if c.iter().enumerate().any(|(i, &a)| midpoint.contains_key(&key(a, c[(i + 1) % n]))) {
            let mut corners = Vec::with_capacity(n + 2);
            for (i, &a) in c.iter().enumerate() {
                corners.push(a);
                if let Some(&m) = midpoint.get(&key(a, c[(i + 1) % n])) {
                    corners.push(m);
                }
            }
            let p = &mut mesh.polygons[f];
            p.corners = corners;
            p.triangles.clear();
        }
    }
    mesh.polygons.extend(added);
}

/// The "safe" centre of a polygon (`MNMesh::ComputeSafeCenter`, which the MAXScript
/// reference describes as the centre of the region that sees every corner, the regular
/// centre when that region is empty): the polygon, seen along its Newell normal, is clipped
/// by the inner side of each of its edges in turn (Sutherland–Hodgman, heights above the
/// plane of the corners' mean carried linearly along the clipped sides, a point repeated
/// exactly kept once); the centre is the mean of what is left. For a convex polygon that is
/// the mean of its corners. Measured on `tree.max` (`SnubbleJr/GameJam1`): its non-convex,
/// non-planar 18-gon cap and the 18 quads of the second tessellate around it land where
/// `tree.FBX`'s smoothed mesh puts them (within 0.001; the mean of the corners is 4.3
/// units off for the cap).
fn safe_centre(corners: &[Vec3]) -> Vec3 {
    use glam::{DVec2, DVec3};
    let n = corners.len();
    if n < 3 {
        // No polygon (a face already dead): its corners' mean, the origin when it has none.
        return corners.iter().sum::<Vec3>() / n.max(1) as f32;
    }
    let p: Vec<DVec3> = corners.iter().map(|v| v.as_dvec3()).collect();
    let mean = p.iter().sum::<DVec3>() / n as f64;
    let regular = mean.as_vec3();
    let mut normal = DVec3::ZERO;
    for (i, a) in p.iter().enumerate() {
        let b = p[(i + 1) % n];
        normal += DVec3::new((a.y - b.y) * (a.z + b.z), (a.z - b.z) * (a.x + b.x), (a.x - b.x) * (a.y + b.y));
    }
    let Some(normal) = normal.try_normalize() else { return regular };
    let Some(u) = (p[0] - mean).reject_from_normalized(normal).try_normalize() else { return regular };
    let v = normal.cross(u);
    // Plane coordinates and height of each corner; the Newell normal makes the polygon
    // counter-clockwise in (u, v).
    let flat: Vec<DVec2> = p.iter().map(|q| DVec2::new((*q - mean).dot(u), (*q - mean).dot(v))).collect();
    let mut region: Vec<(DVec2, f64)> = p.iter().zip(&flat).map(|(q, f)| (*f, (*q - mean).dot(normal))).collect();
    for (i, a) in flat.iter().enumerate() {
        let b = flat[(i + 1) % n];
        let side = |q: DVec2| (b - *a).perp_dot(q - *a);
        let mut kept: Vec<(DVec2, f64)> = Vec::with_capacity(region.len() + 2);
        for (j, &(q, h)) in region.iter().enumerate() {
            let (r, hr) = region[(j + 1) % region.len()];
            let (sq, sr) = (side(q), side(r));
            if sq >= 0.0 {
                kept.push((q, h));
            }
            if (sq > 0.0 && sr < 0.0) || (sq < 0.0 && sr > 0.0) {
                let t = sq / (sq - sr);
                kept.push((q + (r - q) * t, h + (hr - h) * t));
            }
        }
        kept.dedup_by(|x, y| x.0 == y.0);
        while kept.len() > 1 && kept.first().map(|x| x.0) == kept.last().map(|x| x.0) {
            kept.pop();
        }
        region = kept;
        if region.is_empty() {
            return regular;
        }
    }
    let k = region.len() as f64;
    let (f, h) = region.iter().fold((DVec2::ZERO, 0.0), |(f, h), (q, hq)| (f + *q, h + hq));
    (mean + u * (f.x / k) + v * (f.y / k) + normal * (h / k)).as_vec3()
}

/// The Edit Poly modifier's evaluator: it indexes its input's poly conversion, and sets
/// the selection it outputs.
pub(crate) const EDIT_POLY: Modifier =
    Modifier { indexes_poly: true, ..Modifier::new(module_path!(), apply, true, Carry::Own(selection_after)) };

/// Operations that change the topology and are not replayed, including the one still
/// being edited (not committed: it has no stored records).
fn not_replayed(ids: &[u32], current: i32) -> Vec<u32> {
    let mut changing: Vec<u32> =
        topology_operations(ids).into_iter().filter(|id| !REPLAYED_OPERATIONS.iter().any(|(r, _)| r == id)).collect();
    if topology_operations(&[current as u32]).len() == 1 {
        changing.push(current as u32);
    }
    changing
}

/// Replays the committed operations whose records are known, when the input's order is
/// the one they index; offsets alone over an input not in Max's order keep the counts.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    let ops = operations(mc.modifier.mod_app).map_err(|e| stop(m, e))?;
    // Operations that do nothing (flag-only operations over an empty selection) drop out.
    let ids: Vec<u32> = ops.iter().filter(|o| !empty_selection_no_op(o)).map(|o| o.id).collect();
    let current =
        Params::of(mc.index(), m, 0).map_err(|e| param_stop(m, e))?.int_or(0, 0).map_err(|e| param_stop(m, e))?;
    let changing = not_replayed(&ids, current);
    if !changing.is_empty() {
        return Err(stop(m, format!("operations that change the topology are not replayed: {changing:?}")));
    }
    let indexed: Vec<u32> = ops.iter().filter(|o| uses_indices(o)).map(|o| o.id).collect();
    if !mc.in_max_order && !indexed.is_empty() {
        // Offsets alone keep the counts: those are known, the positions are not.
        if indexed.iter().all(|&id| id == 53) && topology_operations(&ids).is_empty() {
            let (counts, rule) = to_poly(input).counts_and_rule();
            return Ok(Evaluated::CountOnly {
                counts,
                rule,
                note: "Edit Poly vertex offsets index Max's vertex order, which this input's builder is not \
                       checked to follow: positions not known"
                    .into(),
            });
        }
        return Err(stop(
            m,
            format!("operations {indexed:?} index vertices or faces, and this input is not built in Max's order"),
        ));
    }
    Ok(match input {
        Evaluated::Mesh(mesh) => {
            Evaluated::Mesh(replay_after_flips(mesh.into_poly(), &ops, mc.turned).map_err(|e| stop(m, e))?)
        }
        other if topology_operations(&ids).is_empty() => to_poly(other),
        Evaluated::CountOnly { .. } => return Err(stop(m, "input known by its counts only")),
    })
}

/// Edit Poly parameters (`iEPolyMod.h` enumeration): use the stack selection, use soft
/// selection.
const EPM_STACK_SELECTION: u16 = 4;
const EPM_SS_USE: u16 = 5;

/// Edit Poly's output selection (see [`crate::eval::selection`]).
fn selection_after(
    index: &SceneIndex<'_>,
    sm: &StackModifier<'_, '_>,
    output: Option<&EvalMesh>,
    in_max_order: bool,
) -> Selection {
    let unknown = |why: &str| Selection::Unknown(format!("Edit Poly {why}"));
    let Some(level) = level(sm.object.chunk.child(EDIT_POLY_SEL_LEVEL)) else {
        return unknown("selection level missing");
    };
    if level == 0 {
        return Selection::Object;
    }
    let Ok(params) = Params::of(index, sm.object, 0) else { return unknown("parameters unreadable") };
    if params.int_or(EPM_STACK_SELECTION, 0) != Ok(0) {
        return unknown("passes the stack selection on");
    }
    if params.int_or(EPM_SS_USE, 0) != Ok(0) {
        return unknown("soft selection is not evaluated");
    }
    let Some(mesh) = output else { return unknown("output known by its counts only") };
    if !in_max_order {
        return unknown("selection over an output not built in Max's order");
    }
    let bits = |id: u16| {
        sm.mod_app
            .and_then(|a| a.child(LOCAL_DATA))
            .and_then(|l| l.child(id))
            .and_then(|c| c.child(0x2700))
            .and_then(bit_array)
    };
    selection_at_level(level, mesh, bits)
}

/// The vertices the selection at `level` marks, from its stored bit arrays.
fn selection_at_level(level: i32, mesh: &EvalMesh, bits: impl Fn(u16) -> Option<Vec<bool>>) -> Selection {
    let unknown = |why: &str| Selection::Unknown(format!("Edit Poly {why}"));
    match level {
        1 => match bits(EDIT_POLY_VERTEX_SEL) {
            Some(v) if v.len() == mesh.positions.len() => Selection::Vertices(v),
            Some(v) => unknown(&format!("vertex selection of {} over {} vertices", v.len(), mesh.positions.len())),
            None => unknown("vertex selection unreadable"),
        },
        // Edge order (MNMesh's edge list) is not built here: only an empty edge selection
        // is known.
        2 | 3 => match bits(EDIT_POLY_EDGE_SEL) {
            Some(e) if e.iter().all(|s| !s) => Selection::Vertices(vec![false; mesh.positions.len()]),
            Some(_) => unknown("edge selection: edge order is not built"),
            None => unknown("edge selection unreadable"),
        },
        4 | 5 => match bits(EDIT_POLY_FACE_SEL) {
            Some(f) if f.len() == mesh.polygons.len() => {
                let mut v = vec![false; mesh.positions.len()];
                for (p, _) in mesh.polygons.iter().zip(&f).filter(|(_, s)| **s) {
                    for &c in &p.corners {
                        if let Some(x) = v.get_mut(c as usize) {
                            *x = true;
                        }
                    }
                }
                Selection::Vertices(v)
            }
            Some(f) => unknown(&format!("face selection of {} over {} faces", f.len(), mesh.polygons.len())),
            None => unknown("face selection unreadable"),
        },
        l => unknown(&format!("selection level {l} not known")),
    }
}

#[cfg(test)]
mod safe_centre_tests {
    use super::safe_centre;
    use glam::Vec3;

    #[test]
    fn a_convex_polygon_gives_the_mean_a_dart_the_centre_of_what_sees_every_corner() {
        // Square: the mean (1, 1, 0); non-planar but convex seen along its normal (heights
        // 0, 1, 0, 1): the mean (1, 1, 0.5) as well.
        let square =
            [Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 0.0), Vec3::new(2.0, 2.0, 0.0), Vec3::new(0.0, 2.0, 0.0)];
        assert!((safe_centre(&square) - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6);
        let bent =
            [Vec3::new(0.0, 0.0, 0.0), Vec3::new(2.0, 0.0, 1.0), Vec3::new(2.0, 2.0, 0.0), Vec3::new(0.0, 2.0, 1.0)];
        assert!((safe_centre(&bent) - Vec3::new(1.0, 1.0, 0.5)).length() < 1e-6);
        // Dart A (0, 0), B (4, 2), C (0, 4), D (1, 2) (D reflex; counter-clockwise). Inner
        // sides: AB y ≥ x/2, BC x + 2y ≤ 8, CD 2x + y ≥ 4, DA y ≤ 2x. What sees every corner
        // is the quadrilateral AB∩CD (1.6, 0.8), B (4, 2), BC∩DA (1.6, 3.2), D (1, 2), whose
        // mean is (8.2 / 4, 8 / 4) = (2.05, 2); the mean of the corners would be (1.25, 2).
        let dart =
            [Vec3::new(0.0, 0.0, 0.0), Vec3::new(4.0, 2.0, 0.0), Vec3::new(0.0, 4.0, 0.0), Vec3::new(1.0, 2.0, 0.0)];
        let c = safe_centre(&dart);
        assert!((c - Vec3::new(2.05, 2.0, 0.0)).length() < 1e-6, "{c:?}");
        // Fewer than three corners: no panic, the mean (the origin for none).
        assert_eq!(safe_centre(&[]), Vec3::ZERO);
        assert_eq!(safe_centre(&[Vec3::X, Vec3::Y]), Vec3::new(0.5, 0.5, 0.0));
    }
}

/// Removes the faces a tessellation killed (no corners left), as Max's collapse does.
fn collapse_dead_faces(mesh: &mut EvalMesh) {
    mesh.polygons.retain(|p| !p.corners.is_empty());
}

/// Detaches the marked faces to an element (or copies them, `clone`).
fn detach_faces(mesh: &mut EvalMesh, faces: &[bool], clone: bool) {
    let n = mesh.positions.len();
    let mut in_selected = vec![false; n];
    let mut in_other = vec![false; n];
    for (p, &sel) in mesh.polygons.iter().zip(faces) {
        for &c in &p.corners {
            if sel {
                in_selected[c as usize] = true;
            } else {
                in_other[c as usize] = true;
            }
        }
    }
    let mut copy = vec![u32::MAX; n];
    // Copies in the order the selected faces first use the vertices.
    let mut order: Vec<usize> = Vec::new();
    let mut seen = vec![false; n];
    for (p, _) in mesh.polygons.iter().zip(faces).filter(|(_, &s)| s) {
        for &c in &p.corners {
            if !std::mem::replace(&mut seen[c as usize], true) {
                order.push(c as usize);
            }
        }
    }
    for v in order {
        if in_selected[v] && (clone || in_other[v]) {
            copy[v] = mesh.positions.len() as u32;
            let p = mesh.positions[v];
            mesh.positions.push(p);
        }
    }
    let moved = |p: &Polygon| {
        let mut q = p.clone();
        for c in q.corners.iter_mut().chain(q.triangles.iter_mut().flatten()) {
            if copy[*c as usize] != u32::MAX {
                *c = copy[*c as usize];
            }
        }
        q
    };
    if clone {
        let copies: Vec<Polygon> = mesh.polygons.iter().zip(faces).filter(|(_, &s)| s).map(|(p, _)| moved(p)).collect();
        mesh.polygons.extend(copies);
    } else {
        for (p, &sel) in mesh.polygons.iter_mut().zip(faces) {
            if sel {
                *p = moved(p);
            }
        }
    }
}

/// Appends the meshes of an attach operation's data.
fn attach(mesh: &mut EvalMesh, data: &Chunk<'_>) -> Result<(), String> {
    let u32s = |c: &Chunk<'_>| -> Option<Vec<u32>> {
        let p = c.payload()?;
        (p.len() % 4 == 0).then(|| p.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    };
    let mut meshes: Vec<(usize, &Chunk<'_>)> = Vec::new();
    let mut slot = 0usize;
    let mut limits: Vec<u32> = Vec::new();
    let mut count = None;
    for c in data.children() {
        match c.id {
            0x0e04 => count = u32s(c).and_then(|v| v.first().copied()),
            0x0e08 => slot = u32s(c).and_then(|v| v.first().copied()).ok_or("attach slot unreadable")? as usize,
            0x0e00 => meshes.push((slot, c)),
            0x0e0c => limits = u32s(c).ok_or("attach material limits unreadable")?,
            _ => {}
        }
    }
    let count = count.ok_or("attach data without its mesh count 0x0e04")? as usize;
    if meshes.len() != count || limits.len() != count {
        return Err(format!("attach data: {count} meshes announced, {} stored, {} limits", meshes.len(), limits.len()));
    }
    meshes.sort_by_key(|(s, _)| *s);
    for (k, (_, chunk)) in meshes.into_iter().enumerate() {
        let stored = geometry::Mesh::of_poly_buffers(chunk).map_err(|e| format!("attached mesh: {e}"))?;
        let limit = limits[k];
        if limit != 0 {
            for p in &mut mesh.polygons {
                p.material = (u32::from(p.material) % limit) as u16;
            }
        }
        let added = crate::eval::stored::from_stored(&stored);
        let base = mesh.positions.len() as u32;
        mesh.positions.extend(added.positions);
        mesh.polygons.extend(added.polygons.into_iter().map(|mut p| {
            for c in p.corners.iter_mut().chain(p.triangles.iter_mut().flatten()) {
                *c += base;
            }
            p
        }));
    }
    mesh.rule = FaceRule::Polygons;
    mesh.uv = None;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::eval::primitive::r#box::unit_poly_box as poly_box;

    fn op_with(id: u32, faces: &[usize], n: usize, parameters: Vec<(u32, &'static [u8])>) -> Operation<'static> {
        Operation {
            id,
            selection: Some((0..n).map(|i| faces.contains(&i)).collect()),
            parameters,
            clone: false,
            data: None,
            unknown_settings: Vec::new(),
        }
    }

    const ON: &[u8] = &[1, 0, 0, 0];

    #[test]
    fn a_chamfer_or_connect_over_an_empty_edge_selection_changes_nothing() {
        // By hand: the stored selection covers the box's 12 edges, none set, so no edge is
        // flagged and the box stays 8 vertices, 6 quads; one edge set is a real chamfer,
        // which is not replayed.
        for id in [34, 43] {
            let none = op_with(id, &[], 12, Vec::new());
            assert!(empty_selection_no_op(&none));
            let m = replay(poly_box(), &[none]).unwrap();
            assert_eq!((m.positions.len(), m.polygons.len()), (8, 6));
            assert_eq!(m.positions, poly_box().positions);
            let one = op_with(id, &[3], 12, Vec::new());
            assert!(!empty_selection_no_op(&one));
            assert!(replay(poly_box(), &[one]).is_err());
        }
        // A selection of size 0 leaves Max's flags as they were: not a no-op.
        assert!(!empty_selection_no_op(&op_with(34, &[], 0, Vec::new())));
    }
    const OFF: &[u8] = &[0, 0, 0, 0];

    #[test]
    fn delete_face_drops_vertices_left_without_faces_only_when_asked() {
        // Deleting every face but the bottom leaves vertices 4–7 without faces: gone with
        // delete-isolated on (4 vertices, the bottom quad unchanged), kept with it off.
        let all_but_bottom = [1, 2, 3, 4, 5];
        let on = replay(poly_box(), &[op_with(11, &all_but_bottom, 6, vec![(26, ON)])]).unwrap();
        assert_eq!((on.positions.len(), on.polygons.len()), (4, 1));
        assert_eq!(on.polygons[0].corners, vec![0, 2, 3, 1]);
        let off = replay(poly_box(), &[op_with(11, &all_but_bottom, 6, vec![(26, OFF)])]).unwrap();
        assert_eq!((off.positions.len(), off.polygons.len()), (8, 1));
        // No stored selection: not replayed.
        let mut none = op_with(11, &[], 6, vec![(26, ON)]);
        none.selection = None;
        assert!(replay(poly_box(), &[none]).unwrap_err().contains("no selection"));
    }

    #[test]
    fn detach_then_delete_the_top_leaves_an_open_box() {
        // Well.max Box010: detach face 1 (the top), then delete it with isolated vertices.
        // The top's corners 4, 5, 7, 6 are shared with the sides: copies 8–11 in the order
        // the top uses them (4, 5, 7, 6: the order that makes `tree.max`'s cloned
        // detaches take their offsets as Max did), the top becomes (8 9 10 11); deleting
        // it leaves the copies without faces: 8 vertices, 5 quads, as Max exported.
        let detached = replay(poly_box(), &[op_with(13, &[1], 6, vec![])]).unwrap();
        assert_eq!(detached.positions.len(), 12);
        assert_eq!(detached.polygons[1].corners, vec![8, 9, 10, 11]);
        assert_eq!(detached.positions[10], Vec3::new(0.5, 0.5, 1.0));
        assert_eq!(detached.positions[8], Vec3::new(-0.5, -0.5, 1.0));
        let open = replay(detached, &[op_with(11, &[1], 6, vec![(26, ON)])]).unwrap();
        assert_eq!((open.positions.len(), open.polygons.len()), (8, 5));
    }

    #[test]
    fn extruding_the_top_by_two_adds_a_ring_of_sides() {
        // Top quad (4 5 7 6), normal +z, height 2. Its border walked from the border edge
        // Max numbers first (edge 4, 4→5: the top is the second face), along the top:
        // 4→5, 5→7, 7→6, 6→4; copies 8, 9, 10, 11 of 4, 5, 7, 6 in that order at z = 3;
        // the top becomes (8 9 10 11); sides (a b b' a') per edge in walk order.
        // V = 12, F = 6 + 4.
        let height: &'static [u8] = &[0, 0, 0, 0x40]; // 2.0f32
        let out = replay(poly_box(), &[op_with(41, &[1], 6, vec![(36, OFF), (37, height)])]).unwrap();
        assert_eq!((out.positions.len(), out.polygons.len()), (12, 10));
        assert_eq!(out.positions[8], Vec3::new(-0.5, -0.5, 3.0));
        assert_eq!(out.positions[10], Vec3::new(0.5, 0.5, 3.0));
        assert_eq!(out.positions[11], Vec3::new(-0.5, 0.5, 3.0));
        assert_eq!(out.positions[4], Vec3::new(-0.5, -0.5, 1.0));
        assert_eq!(out.polygons[1].corners, vec![8, 9, 10, 11]);
        let sides: Vec<Vec<u32>> = out.polygons[6..].iter().map(|p| p.corners.clone()).collect();
        assert_eq!(sides, vec![vec![4, 5, 9, 8], vec![5, 7, 10, 9], vec![7, 6, 11, 10], vec![6, 4, 8, 11]]);
        // Local normals and parameters of unknown meaning stop.
        assert!(replay(poly_box(), &[op_with(41, &[1], 6, vec![(36, ON), (37, height)])]).is_err());
        assert!(replay(poly_box(), &[op_with(41, &[1], 6, vec![(36, OFF), (37, height), (120, ON)])]).is_err());
    }

    #[test]
    fn inset_and_bevel_move_the_border_copies_in_plane() {
        // Inset the top (4 5 7 6) by 0.25: at corner 4 = (−0.5, −0.5, 1) the border edges
        // 6→4 and 4→5 have inward normals z × (−y) = +x and z × x = +y, so the copy moves
        // along (x + y) / (1 + 0) by 0.25: (−0.25, −0.25, 1); every edge of the inner quad
        // lies 0.25 inside. Bevel by height 1 and outline 0.25 lifts the copies by 1 and
        // moves them outward: (−0.75, −0.75, 2). Counts as for an extrude: 12 and 10;
        // copy 10 is 7's (the border walk 4, 5, 7, 6), inset to (0.25, 0.25, 1).
        let quarter: &'static [u8] = &[0, 0, 0x80, 0x3e]; // 0.25f32
        let one: &'static [u8] = &[0, 0, 0x80, 0x3f]; // 1.0f32
        let inset = replay(poly_box(), &[op_with(38, &[1], 6, vec![(41, OFF), (42, quarter)])]).unwrap();
        assert_eq!((inset.positions.len(), inset.polygons.len()), (12, 10));
        assert_eq!(inset.positions[8], Vec3::new(-0.25, -0.25, 1.0));
        assert_eq!(inset.positions[10], Vec3::new(0.25, 0.25, 1.0));
        let bevel = replay(poly_box(), &[op_with(32, &[1], 6, vec![(38, OFF), (39, one), (40, quarter)])]).unwrap();
        assert_eq!(bevel.positions[8], Vec3::new(-0.75, -0.75, 2.0));
        assert_eq!(bevel.positions[4], Vec3::new(-0.5, -0.5, 1.0));
    }

    #[test]
    fn tessellating_the_top_splits_it_in_four_and_its_neighbours_take_the_midpoints() {
        // Top (4 5 7 6), tension 0: midpoints of its edges in the top's own corner order
        // 4-5, 5-7, 7-6, 6-4:
        // 8 = (0, -0.5, 1), 9 = (0.5, 0, 1), 10 = (0, 0.5, 1), 11 = (-0.5, 0, 1); centre
        // 12 = (0, 0, 1). Quad j runs (midpoint before corner j+1, corner j+1, midpoint
        // after, centre): (8 5 9 12), (9 7 10 12), (10 6 11 12), (11 4 8 12), appended
        // while the top dies in place (car.max: the next operation's selection counts
        // 96 + 4 × 32 faces). The front (0 1 5 4) takes 8 between 5 and 4. V = 8 + 5,
        // F = 6 − 1 + 4.
        let out = replay(poly_box(), &[op_with(28, &[1], 6, vec![(19, OFF), (20, OFF)])]).unwrap();
        assert_eq!((out.positions.len(), out.polygons.len()), (13, 9));
        assert_eq!(out.positions[8], Vec3::new(0.0, -0.5, 1.0));
        assert_eq!(out.positions[9], Vec3::new(0.5, 0.0, 1.0));
        assert_eq!(out.positions[12], Vec3::new(0.0, 0.0, 1.0));
        assert_eq!(out.polygons[1].corners, vec![0, 1, 5, 8, 4]);
        let quads: Vec<Vec<u32>> = out.polygons[5..].iter().map(|p| p.corners.clone()).collect();
        assert_eq!(quads, vec![vec![8, 5, 9, 12], vec![9, 7, 10, 12], vec![10, 6, 11, 12], vec![11, 4, 8, 12]]);
        // The dead top keeps index 1 for the next operation: deleting face 6 removes the
        // first new quad (8 5 9 12), not the front.
        let then_delete = replay(
            poly_box(),
            &[op_with(28, &[1], 6, vec![(19, OFF), (20, OFF)]), op_with(11, &[6], 10, vec![(26, ON)])],
        )
        .unwrap();
        assert_eq!(then_delete.polygons.len(), 8);
        assert_eq!(then_delete.polygons[1].corners, vec![0, 1, 5, 8, 4]);
        // By face centres, or with a tension, not replayed.
        assert!(replay(poly_box(), &[op_with(28, &[1], 6, vec![(19, ON), (20, OFF)])]).is_err());
        assert!(replay(poly_box(), &[op_with(28, &[1], 6, vec![(19, OFF), (20, &[0, 0, 0x80, 0x3f])])]).is_err());
    }

    #[test]
    fn extrude_sides_follow_each_border_loop() {
        // Two quads side by side, A (0 1 4 3) and B (1 2 5 4): border edges in face order
        // 0→1, 4→3, 3→0, 1→2, 2→5, 5→4 (1→4 is shared); along the loop from the first:
        // 0→1, 1→2, 2→5, 5→4, 4→3, 3→0.
        let border = vec![(0, 0, 1), (0, 4, 3), (0, 3, 0), (0, 1, 2), (0, 2, 5), (0, 5, 4)];
        let walked: Vec<(u32, u32)> = walk_borders(border).into_iter().map(|(_, a, b)| (a, b)).collect();
        assert_eq!(walked, vec![(0, 1), (1, 2), (2, 5), (5, 4), (4, 3), (3, 0)]);
    }

    fn le(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn transform_adds_offsets_and_attach_appends_the_stored_mesh() {
        // Offsets for 2 of the 8 vertices: (0, 0, 1) and (1, 0, 0).
        let mut offsets = Vec::new();
        for f in [0f32, 0.0, 1.0, 1.0, 0.0, 0.0] {
            offsets.extend(f.to_le_bytes());
        }
        let data = Chunk::container(OPERATION_DATA, vec![Chunk::leaf(0x12c3, le(&[2])), Chunk::leaf(0x12c4, offsets)]);
        let mut t = op_with(53, &[], 0, vec![]);
        t.data = Some(Box::leak(Box::new(data)));
        let moved = replay(poly_box(), &[t]).unwrap();
        assert_eq!(moved.positions[0], Vec3::new(-0.5, -0.5, 1.0));
        assert_eq!(moved.positions[1], Vec3::new(1.5, -0.5, 0.0));
        assert_eq!(moved.positions[2], Vec3::new(-0.5, 0.5, 0.0));
        // One attached triangle (0,0,5) (1,0,5) (0,1,5), poly buffers as an MNMesh saves
        // them (vertex: flags word + 3 floats; face: corner count, corners, layout word 0),
        // material limit 0: appended as vertices 8–10 and polygon 6 (8 9 10).
        let mut v = le(&[3]);
        for p in [[0f32, 0.0, 5.0], [1.0, 0.0, 5.0], [0.0, 1.0, 5.0]] {
            v.extend(le(&[0]));
            for c in p {
                v.extend(c.to_le_bytes());
            }
        }
        let mut f = le(&[1, 3, 0, 1, 2]);
        f.extend(0u16.to_le_bytes());
        let mesh = Chunk::container(0x0e00, vec![Chunk::leaf(0x0100, v), Chunk::leaf(0x011a, f)]);
        let data = Chunk::container(
            OPERATION_DATA,
            vec![Chunk::leaf(0x0e04, le(&[1])), Chunk::leaf(0x0e08, le(&[0])), mesh, Chunk::leaf(0x0e0c, le(&[0]))],
        );
        let mut a = op_with(58, &[], 0, vec![]);
        a.data = Some(Box::leak(Box::new(data)));
        let out = replay(poly_box(), &[a]).unwrap();
        assert_eq!((out.positions.len(), out.polygons.len()), (11, 7));
        assert_eq!(out.polygons[6].corners, vec![8, 9, 10]);
        assert_eq!(out.positions[9], Vec3::new(1.0, 0.0, 5.0));
    }

    #[test]
    fn insert_and_connect_cut_the_front_and_a_zero_hinge_does_nothing() {
        // Insert vertices on edges 8 (1→5) at 0.25 and 9 (4→0) at 0.75 (the box's edges by
        // first use: see `poly_edges`): vertices 8 = (0.5, −0.5, 0.25) and
        // 9 = (−0.5, −0.5, 0.25); connecting them splits the front (0 1 8 5 4 9) into
        // (0 1 8 9) and a new face 6 (8 5 4 9). A hinge by angle 0 before changes nothing
        // (`PolyOpHingeFromEdge::Do` returns at once); by another angle it stops.
        let mut record = Vec::new();
        for w in [2u32, 8, 9, 0.25f32.to_bits(), 0.75f32.to_bits()] {
            record.extend(w.to_le_bytes());
        }
        let mut insert = op_with(66, &[], 0, vec![]);
        insert.data = Some(Box::leak(Box::new(Chunk::container(OPERATION_DATA, vec![Chunk::leaf(0x1600, record)]))));
        let mut connect = op_with(44, &[], 0, vec![]);
        connect.selection = Some((0..10).map(|v| v == 8 || v == 9).collect());
        let zero_hinge = op_with(45, &[0], 6, vec![(44, OFF)]);
        let out = replay(poly_box(), &[zero_hinge, insert, connect]).unwrap();
        assert_eq!((out.positions.len(), out.polygons.len()), (10, 7));
        assert_eq!(out.positions[9], Vec3::new(-0.5, -0.5, 0.25));
        assert_eq!(out.polygons[2].corners, vec![0, 1, 8, 9]);
        assert_eq!(out.polygons[6].corners, vec![8, 5, 4, 9]);
        let hinge: &'static [u8] = &[0, 0, 0x80, 0x3f]; // 1.0 rad
        assert!(replay(poly_box(), &[op_with(45, &[0], 6, vec![(44, hinge)])]).unwrap_err().contains("hinge"));
        // After an operation whose new edges are not numbered, an edge record stops.
        let mut late = op_with(66, &[], 0, vec![]);
        late.data = insert_data();
        let tess = op_with(28, &[1], 6, vec![(19, OFF), (20, OFF)]);
        assert!(replay(poly_box(), &[tess, late]).unwrap_err().contains("edge order"));
    }

    fn insert_data() -> Option<&'static Chunk<'static>> {
        let mut record = Vec::new();
        for w in [1u32, 0, 0.5f32.to_bits()] {
            record.extend(w.to_le_bytes());
        }
        Some(Box::leak(Box::new(Chunk::container(OPERATION_DATA, vec![Chunk::leaf(0x1600, record)]))))
    }

    fn op(id: u32) -> Chunk<'static> {
        Chunk::leaf(OPERATION_ID, id.to_le_bytes().to_vec())
    }

    #[test]
    fn reads_operation_ids_in_order_and_names_the_topology_ones() {
        // Two transforms (53), a chamfer (34), an extrude (41), a transform: as a
        // `0x2500 → 0x2512` tree laid out like `wild/michaeldonalgallagher__…` files.
        let local = Chunk::container(
            LOCAL_DATA,
            vec![
                Chunk::leaf(0x0240, Vec::new()),
                op(53),
                Chunk::container(0x0234, vec![]),
                op(53),
                op(34),
                op(41),
                op(53),
            ],
        );
        let app = Chunk::container(0x2500, vec![Chunk::leaf(0x2510, vec![0; 52]), local]);
        let ops = committed_operations(Some(&app)).unwrap();
        assert_eq!(ops, vec![53, 53, 34, 41, 53]);
        assert_eq!(topology_operations(&ops), vec![34, 41]);
        assert!(topology_operations(&[53, 53, 70, 0]).is_empty());
    }

    #[test]
    fn a_short_id_chunk_is_unreadable_not_guessed() {
        let local = Chunk::container(LOCAL_DATA, vec![Chunk::leaf(OPERATION_ID, vec![1, 2])]);
        let app = Chunk::container(0x2500, vec![local]);
        assert_eq!(committed_operations(Some(&app)), None);
        assert_eq!(committed_operations(None), None);
    }
}
