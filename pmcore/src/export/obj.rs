//! Wavefront OBJ export of evaluated meshes: one object per geometry node, its world-state
//! mesh = base object + modifier stack as [`crate::eval`] builds it (stored Editable Mesh /
//! Poly buffers, procedural primitives, the modifiers evaluation knows), vertices placed in
//! world space with the node's object offset and the accumulated controller defaults,
//! polygons triangulated through their stored cuts (design §7), map channel 1 where the
//! mesh has one, material ids as `usemtl id<N>` face groups.
//!
//! [`ExportOptions::base_only`] writes each node's base object without its modifiers.
//! Nodes whose evaluation stops are listed with the class that stopped them; nodes above
//! the memory budget are counted without a mesh (`count_only`) and not written; nodes
//! whose transform cannot be read from defaults (LookAt, script or list controllers) are
//! listed in `unplaced`. The summary's `max_vertices` / `max_faces` are the totals of what
//! was written plus the count-only nodes, faces counted as Max counts them (polygons for
//! poly objects, triangles for tri objects): the numbers compared with `Mesh Totals`.
//! Also a small OBJ reader, for T3 against reference outputs.

use crate::eval::{self, Evaluated, NodeOutcome, StoppedNode};
use crate::model::controllers::{object_offset, world_matrix};
use crate::model::scene_index::{SceneIndex, SceneTrees};
use crate::MaxFile;
use std::fmt::Write as _;

/// One exported object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObjObject {
    /// Node name (the OBJ `o` name).
    pub name: String,
    /// World-space vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Faces as object-local 0-based vertex indices (triangles from the exporter).
    pub faces: Vec<Vec<u32>>,
    /// Texture vertices of map channel 1 (empty when the mesh has none).
    pub uvs: Vec<[f32; 2]>,
    /// Per face, object-local 0-based texture vertex indices (empty, or one per face with
    /// the face's arity).
    pub uv_faces: Vec<Vec<u32>>,
    /// Per face material id (empty, or one per face).
    pub materials: Vec<u16>,
}

/// What to export.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExportOptions {
    /// Base objects only (modifier stacks not applied).
    pub base_only: bool,
    /// Per-node vertex budget above which only counts are computed.
    pub budget_vertices: u64,
}

impl Default for ExportOptions {
    fn default() -> Self {
        ExportOptions { base_only: false, budget_vertices: eval::DEFAULT_BUDGET_VERTICES }
    }
}

/// Counts reported with an OBJ export.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ObjSummary {
    /// Base objects only (no modifiers applied).
    pub base_only: bool,
    /// Objects written.
    pub objects: usize,
    /// Vertices written.
    pub vertices: usize,
    /// Triangles written.
    pub triangles: usize,
    /// Vertices of the written meshes plus count-only nodes: Max's `Mesh Totals` rule.
    pub max_vertices: u64,
    /// Faces of the written meshes plus count-only nodes, polygons for poly objects and
    /// triangles for tri objects: Max's `Mesh Totals` rule.
    pub max_faces: u64,
    /// Polygons (> 3 corners) triangulated as a fan (no stored cuts).
    pub polygons_fanned: usize,
    /// Nodes over the memory budget: counted, not written (`name: why`).
    pub count_only: Vec<String>,
    /// Geometry nodes whose evaluation stopped, with the class that stopped them.
    pub(crate) stopped: Vec<StoppedNode>,
    /// Nodes Max does not count (lights, cameras, helpers, shapes …), by reason.
    pub left_out: Vec<(String, usize)>,
    /// Nodes left out because their transform cannot be read, with why.
    pub unplaced: Vec<String>,
}

/// Why the OBJ exporter failed on a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjError {
    /// The Scene stream is not a chunk tree with a root container.
    #[error("Scene is not a readable chunk tree")]
    NoScene,
}

impl ObjError {
    /// Storage index of the Scene object the error is about, when there is one.
    pub fn object(&self) -> Option<usize> {
        None
    }

    /// Offset of the offending chunk's header in the Scene stream, when known.
    pub fn stream_offset(&self) -> Option<u64> {
        None
    }
}

/// Exports every geometry node of `file` with `options`.
pub fn export_with(file: &MaxFile, options: ExportOptions) -> Result<(Vec<ObjObject>, ObjSummary), ObjError> {
    let trees = SceneTrees::of(file).ok_or(ObjError::NoScene)?;
    let index = trees.index().ok_or(ObjError::NoScene)?;
    Ok(export_index(&index, options))
}

/// Exports every geometry node of a resolved Scene.
pub fn export_index(index: &SceneIndex<'_>, options: ExportOptions) -> (Vec<ObjObject>, ObjSummary) {
    let mut summary = ObjSummary { base_only: options.base_only, ..Default::default() };
    let mut objects = Vec::new();
    let nodes = eval::evaluate_index(index, options.budget_vertices, options.base_only);
    let totals = eval::totals_of(&nodes);
    summary.stopped = totals.stopped;
    summary.left_out = totals.left_out;
    for n in nodes {
        let NodeOutcome::Evaluated(evaluated) = n.outcome else { continue };
        let mesh = match evaluated {
            Evaluated::Mesh(mesh) => mesh,
            Evaluated::CountOnly { counts, rule, note } => {
                summary.max_vertices += counts.vertices;
                summary.max_faces += counts.faces(rule);
                summary.count_only.push(format!("{}: {note}", n.name));
                continue;
            }
        };
        let Some(node) = index.get(n.storage_index) else { continue };
        let world = match world_matrix(index, node) {
            Ok(w) => w * object_offset(node).matrix(),
            Err(e) => {
                summary.unplaced.push(format!("{}: {e}", n.name));
                continue;
            }
        };
        summary.max_vertices += mesh.positions.len() as u64;
        summary.max_faces += mesh.faces();
        let positions: Vec<[f32; 3]> = mesh.positions.iter().map(|p| world.transform_point3(*p).to_array()).collect();
        let mut faces = Vec::new();
        let mut uv_faces = Vec::new();
        let mut materials = Vec::new();
        let uv = mesh.uv.as_ref().filter(|uv| uv.faces.len() == mesh.polygons.len());
        for (i, p) in mesh.polygons.iter().enumerate() {
            if p.corners.len() > 3 && p.triangles.is_empty() {
                summary.polygons_fanned += 1;
            }
            let tris = p.mesh_triangles();
            // Map corners follow the polygon's corners; a triangle through a vertex that is
            // not a corner (a capped fan's centre) has no map corner: UVs are then dropped.
            let uv_tris: Option<Vec<Vec<u32>>> = uv.and_then(|uv| {
                tris.iter()
                    .map(|t| {
                        t.iter()
                            .map(|v| p.corners.iter().position(|c| c == v).map(|k| uv.faces[i][k]))
                            .collect::<Option<Vec<u32>>>()
                    })
                    .collect()
            });
            for (k, t) in tris.iter().enumerate() {
                faces.push(t.to_vec());
                materials.push(p.material);
                if let Some(u) = &uv_tris {
                    uv_faces.push(u[k].clone());
                }
            }
        }
        let uvs: Vec<[f32; 2]> = match uv {
            Some(uv) if uv_faces.len() == faces.len() => uv.vertices.iter().map(|v| v.to_array()).collect(),
            _ => {
                uv_faces.clear();
                Vec::new()
            }
        };
        summary.objects += 1;
        summary.vertices += positions.len();
        summary.triangles += faces.len();
        objects.push(ObjObject { name: n.name, positions, faces, uvs, uv_faces, materials });
    }
    (objects, summary)
}

/// OBJ text of `objects`: a comment line, then per object `o`, its `v` lines (shortest
/// round-trip decimal), its `vt` lines, and its `f` lines (1-based, global; `v/vt` when
/// the object has texture faces), preceded by `usemtl id<N>` wherever the material id
/// changes.
pub fn write(objects: &[ObjObject]) -> String {
    let mut out = String::from("# pmcore OBJ export\n");
    let (mut base, mut uv_base) = (1usize, 1usize);
    for o in objects {
        let _ = writeln!(out, "o {}", o.name);
        for p in &o.positions {
            let _ = writeln!(out, "v {} {} {}", p[0], p[1], p[2]);
        }
        for t in &o.uvs {
            let _ = writeln!(out, "vt {} {}", t[0], t[1]);
        }
        let with_uv = !o.uv_faces.is_empty() && o.uv_faces.len() == o.faces.len();
        let mut material = None;
        for (i, f) in o.faces.iter().enumerate() {
            if let Some(&m) = o.materials.get(i) {
                if material != Some(m) {
                    let _ = writeln!(out, "usemtl id{m}");
                    material = Some(m);
                }
            }
            out.push('f');
            for (k, &v) in f.iter().enumerate() {
                let _ = write!(out, " {}", v as usize + base);
                if let Some(t) = with_uv.then(|| o.uv_faces[i].get(k)).flatten() {
                    let _ = write!(out, "/{}", *t as usize + uv_base);
                }
            }
            out.push('\n');
        }
        base += o.positions.len();
        uv_base += o.uvs.len();
    }
    out
}

/// Parses one 1-based (or negative, relative) OBJ index against `total` elements.
fn resolve_index(word: &str, total: usize, line_no: usize, what: &str) -> Result<usize, String> {
    let i: i64 = word.parse().map_err(|_| format!("line {}: bad {what} index {word:?}", line_no + 1))?;
    let global = if i < 0 { total as i64 + i } else { i - 1 };
    if global < 0 || global as usize >= total {
        return Err(format!("line {}: {what} index {i} outside {total}", line_no + 1));
    }
    Ok(global as usize)
}

/// Reads OBJ text into objects: `o`/`g` start an object, `v` and `vt` lines belong to the
/// object they follow, `f` corners keep the position and texture indices (relative indices
/// resolved, made object-local), `usemtl id<N>` sets the material id of the faces after it.
/// Other statements are ignored.
pub fn read(text: &str) -> Result<Vec<ObjObject>, String> {
    let mut objects: Vec<ObjObject> = Vec::new();
    // Per object: first global position index, first global texture index, material seen.
    let mut starts: Vec<(usize, usize)> = Vec::new();
    let mut material: Option<u16> = None;
    let (mut total, mut uv_total) = (0usize, 0usize);
    for (line_no, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        let keyword = words.next();
        if matches!(keyword, Some("v") | Some("vt") | Some("f") | Some("usemtl")) && objects.is_empty() {
            // Statements before any `o`/`g` belong to an unnamed object.
            objects.push(ObjObject::default());
            starts.push((total, uv_total));
        }
        match keyword {
            Some("o") | Some("g") => {
                let name = line.trim_start()[1..].trim().to_string();
                objects.push(ObjObject { name, ..Default::default() });
                starts.push((total, uv_total));
                material = None;
            }
            Some("v") => {
                let mut p = [0f32; 3];
                for x in &mut p {
                    *x = words
                        .next()
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| format!("line {}: bad vertex", line_no + 1))?;
                }
                objects.last_mut().expect("current object").positions.push(p);
                total += 1;
            }
            Some("vt") => {
                let mut t = [0f32; 2];
                for x in &mut t {
                    *x = words
                        .next()
                        .and_then(|w| w.parse().ok())
                        .ok_or_else(|| format!("line {}: bad texture vertex", line_no + 1))?;
                }
                objects.last_mut().expect("current object").uvs.push(t);
                uv_total += 1;
            }
            Some("usemtl") => {
                material = words.next().and_then(|w| w.strip_prefix("id")).and_then(|n| n.parse().ok());
            }
            Some("f") => {
                let (start, uv_start) = *starts.last().expect("current object");
                let mut face = Vec::new();
                let mut uv_face = Vec::new();
                for w in words {
                    let mut parts = w.split('/');
                    let v = resolve_index(parts.next().unwrap_or(""), total, line_no, "vertex")?;
                    face.push(v.wrapping_sub(start) as u32);
                    if let Some(t) = parts.next().filter(|t| !t.is_empty()) {
                        let t = resolve_index(t, uv_total, line_no, "texture")?;
                        uv_face.push(t.wrapping_sub(uv_start) as u32);
                    }
                }
                let o = objects.last_mut().expect("current object");
                if let Some(m) = material {
                    // Faces before the first `usemtl id<N>` of the object get id 0.
                    o.materials.resize(o.faces.len(), 0);
                    o.materials.push(m);
                }
                if !uv_face.is_empty() {
                    o.uv_faces.resize(o.faces.len(), Vec::new());
                    o.uv_faces.push(uv_face);
                }
                o.faces.push(face);
            }
            _ => {}
        }
    }
    Ok(objects)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_read_keeps_objects_positions_and_faces() {
        let objects = vec![
            ObjObject {
                name: "A b".into(),
                positions: vec![[0.0, 1.5, -2.0], [1.0, 0.0, 0.0], [0.1, 0.2, 0.3]],
                faces: vec![vec![0, 1, 2]],
                uvs: vec![[0.0, 0.5], [1.0, 0.25]],
                uv_faces: vec![vec![0, 1, 1]],
                materials: vec![3],
            },
            ObjObject {
                name: "C".into(),
                positions: vec![[1e-7, 3.0e8, 0.0]; 3],
                faces: vec![vec![2, 1, 0]],
                ..Default::default()
            },
        ];
        let back = read(&write(&objects)).unwrap();
        assert_eq!(back, objects);
    }

    proptest::proptest! {
        #[test]
        fn write_then_read_is_identity_for_any_objects(
            raw in proptest::collection::vec(
                ("[A-Za-z0-9_-][A-Za-z0-9 _-]{0,10}[A-Za-z0-9_-]",
                 proptest::collection::vec(proptest::array::uniform3(proptest::num::f32::NORMAL | proptest::num::f32::ZERO | proptest::num::f32::SUBNORMAL), 1..8),
                 proptest::collection::vec(proptest::array::uniform3(0u32..64), 0..8),
                 proptest::collection::vec(proptest::array::uniform2(proptest::num::f32::NORMAL | proptest::num::f32::ZERO), 0..6),
                 proptest::collection::vec(0u16..5, 8),
                 proptest::bool::ANY),
                0..5),
        ) {
            let objects: Vec<ObjObject> = raw
                .into_iter()
                .map(|(name, positions, faces, uvs, materials, with_materials)| {
                    let n = positions.len() as u32;
                    let faces: Vec<Vec<u32>> = faces.into_iter().map(|f| f.iter().map(|v| v % n).collect()).collect();
                    let uv_faces = if uvs.is_empty() {
                        Vec::new()
                    } else {
                        faces.iter().map(|f| f.iter().map(|v| v % uvs.len() as u32).collect()).collect()
                    };
                    let materials =
                        if with_materials { materials[..faces.len()].to_vec() } else { Vec::new() };
                    ObjObject { name, positions, faces, uvs, uv_faces, materials }
                })
                .collect();
            let back = read(&write(&objects)).unwrap();
            proptest::prop_assert_eq!(back, objects);
        }
    }

    #[test]
    fn reader_rejects_out_of_range_faces() {
        assert!(read("v 0 0 0\nf 1 2 3\n").is_err());
        assert_eq!(read("v 0 0 0\nv 1 0 0\nv 0 1 0\nf -3 -2 -1\n").unwrap()[0].faces, vec![vec![0, 1, 2]]);
    }
}
