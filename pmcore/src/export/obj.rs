//! Wavefront OBJ export: one object per node whose object (through any modifier stack)
//! is an Editable Mesh / Editable Poly / tri object with stored geometry buffers; vertices
//! placed in world space with the node's object offset and the accumulated controller
//! defaults; polygons triangulated through their stored cuts (design §7).
//!
//! Modifier stacks are not evaluated: the base object is exported and the node counted in
//! `base_of_modifier_stack`. Parametric objects (Box, Teapot …) store no mesh and are
//! counted, not exported. Nodes whose transform cannot be read from defaults (LookAt,
//! script or list controllers) are left out and listed in `unplaced`.
//! Also a small OBJ reader, for T3 against reference outputs.

use crate::model::controllers::{object_offset, world_matrix};
use crate::model::geometry::{GeometryError, Mesh};
use crate::model::scene_index::{SceneIndex, SceneObject, SceneTrees, OSM_DERIVED, WSM_DERIVED};
use crate::MaxFile;
use std::fmt::Write as _;

/// Superclass of geometric objects.
pub const GEOM_OBJECT_SUPERCLASS: u32 = 0x10;

/// One exported object.
#[derive(Clone, Debug, PartialEq)]
pub struct ObjObject {
    /// Node name (the OBJ `o` name).
    pub name: String,
    /// World-space vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Faces as object-local 0-based vertex indices (triangles from the exporter).
    pub faces: Vec<Vec<u32>>,
}

/// Counts reported with an OBJ export.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ObjSummary {
    /// Objects written.
    pub objects: usize,
    /// Vertices written.
    pub vertices: usize,
    /// Triangles written.
    pub triangles: usize,
    /// Polygons (> 3 corners) split through their stored cuts.
    pub polygons_by_cuts: usize,
    /// Polygons (> 3 corners) without usable cuts, fanned.
    pub polygons_fanned: usize,
    /// Dead faces skipped.
    pub dead_faces: usize,
    /// Dead vertices skipped.
    pub dead_vertices: usize,
    /// Nodes exported from the base object under a modifier stack.
    pub base_of_modifier_stack: usize,
    /// Geometry nodes without stored mesh buffers (parametric objects, bones …).
    pub no_stored_mesh: usize,
    /// Nodes left out because their transform cannot be read, with why.
    pub unplaced: Vec<String>,
}

/// Why the OBJ exporter failed on a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ObjError {
    /// The Scene stream is not a chunk tree with a root container.
    #[error("Scene is not a readable chunk tree")]
    NoScene,
    /// A geometry buffer did not decode.
    #[error("node {node:?}, object #{object}: {source}")]
    Geometry {
        /// Node name.
        node: String,
        /// Object storage index.
        object: usize,
        /// The decoder error.
        source: GeometryError,
    },
}

impl ObjError {
    /// Storage index of the Scene object the error is about, when there is one.
    pub fn object(&self) -> Option<usize> {
        match self {
            ObjError::NoScene => None,
            ObjError::Geometry { object, .. } => Some(*object),
        }
    }

    /// Offset of the offending chunk's header in the Scene stream, when known.
    pub fn stream_offset(&self) -> Option<u64> {
        match self {
            ObjError::Geometry { source: GeometryError::Malformed { stream_offset, .. }, .. } => *stream_offset,
            _ => None,
        }
    }
}

/// Exports every mesh node of `file`.
pub fn export(file: &MaxFile) -> Result<(Vec<ObjObject>, ObjSummary), ObjError> {
    let trees = SceneTrees::of(file).ok_or(ObjError::NoScene)?;
    let index = trees.index().ok_or(ObjError::NoScene)?;
    export_index(&index)
}

/// Exports every mesh node of a resolved Scene.
pub fn export_index(index: &SceneIndex<'_>) -> Result<(Vec<ObjObject>, ObjSummary), ObjError> {
    let mut summary = ObjSummary::default();
    let mut objects = Vec::new();
    for node in index.objects.iter().filter(|o| o.is_node()) {
        let Some((base, modifiers)) = base_object(index, node) else { continue };
        if base.class.as_ref().is_none_or(|c| c.superclass != GEOM_OBJECT_SUPERCLASS) {
            continue;
        }
        let name = node.node_name().unwrap_or_default();
        let mesh = Mesh::of_object(base.chunk).map_err(|source| ObjError::Geometry {
            node: name.clone(),
            object: base.storage_index,
            source,
        })?;
        let Some(mesh) = mesh else {
            summary.no_stored_mesh += 1;
            continue;
        };
        let world = match world_matrix(index, node) {
            Ok(w) => w * object_offset(node).matrix(),
            Err(e) => {
                summary.unplaced.push(format!("{name}: {e}"));
                continue;
            }
        };
        if modifiers > 0 {
            summary.base_of_modifier_stack += 1;
        }
        let mut remap = vec![u32::MAX; mesh.positions.len()];
        let mut positions = Vec::with_capacity(mesh.positions.len());
        for (i, p) in mesh.positions.iter().enumerate() {
            match p {
                Some(p) => {
                    remap[i] = positions.len() as u32;
                    positions.push(world.transform_point3(glam::Vec3::from_array(*p)).to_array());
                }
                None => summary.dead_vertices += 1,
            }
        }
        let tri = mesh.triangulate();
        summary.polygons_by_cuts += tri.by_cuts;
        summary.polygons_fanned += tri.fanned;
        summary.dead_faces += mesh.dead_faces;
        let faces: Vec<Vec<u32>> =
            tri.triangles.iter().map(|t| t.iter().map(|&v| remap[v as usize]).collect()).collect();
        summary.objects += 1;
        summary.vertices += positions.len();
        summary.triangles += faces.len();
        objects.push(ObjObject { name, positions, faces });
    }
    Ok((objects, summary))
}

/// The base object under a node's object reference (slot 1), walking derived objects
/// through their last reference (modifiers come first), with the number of modifiers
/// passed. Bounded by the number of scene objects.
pub fn base_object<'a, 'b>(index: &'b SceneIndex<'a>, node: &SceneObject<'a>) -> Option<(&'b SceneObject<'a>, usize)> {
    let mut current = index.get(node.reference(1)?)?;
    let mut modifiers = 0;
    for _ in 0..index.objects.len() {
        if !matches!(current.chunk.id, OSM_DERIVED | WSM_DERIVED) {
            return Some((current, modifiers));
        }
        let refs: Vec<usize> = current.references().into_iter().filter_map(|(_, t)| t).collect();
        let (&last, rest) = refs.split_last()?;
        modifiers += rest.len();
        current = index.get(last)?;
    }
    None
}

/// OBJ text of `objects`: a comment line, then per object `o`, its `v` lines (shortest
/// round-trip decimal) and its `f` lines (1-based, global).
pub fn write(objects: &[ObjObject]) -> String {
    let mut out = String::from("# pmcore OBJ export\n");
    let mut base = 1usize;
    for o in objects {
        let _ = writeln!(out, "o {}", o.name);
        for p in &o.positions {
            let _ = writeln!(out, "v {} {} {}", p[0], p[1], p[2]);
        }
        for f in &o.faces {
            out.push('f');
            for &v in f {
                let _ = write!(out, " {}", v as usize + base);
            }
            out.push('\n');
        }
        base += o.positions.len();
    }
    out
}

/// Reads OBJ text into objects: `o`/`g` start an object, `v` lines belong to the object
/// they follow, `f` corners keep only the position index (relative indices resolved) and
/// become object-local. Other statements are ignored.
pub fn read(text: &str) -> Result<Vec<ObjObject>, String> {
    let mut objects: Vec<ObjObject> = Vec::new();
    let mut starts: Vec<usize> = Vec::new();
    let mut total = 0usize;
    for (line_no, line) in text.lines().enumerate() {
        let mut words = line.split_whitespace();
        // Statements before any `o`/`g` belong to an unnamed object.
        let current = |objects: &mut Vec<ObjObject>, starts: &mut Vec<usize>, total: usize| {
            if objects.is_empty() {
                objects.push(ObjObject { name: String::new(), positions: Vec::new(), faces: Vec::new() });
                starts.push(total);
            }
        };
        match words.next() {
            Some("o") | Some("g") => {
                let name = line.trim_start()[1..].trim().to_string();
                objects.push(ObjObject { name, positions: Vec::new(), faces: Vec::new() });
                starts.push(total);
            }
            Some("v") => {
                current(&mut objects, &mut starts, total);
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
            Some("f") => {
                current(&mut objects, &mut starts, total);
                let start = *starts.last().expect("current object");
                let mut face = Vec::new();
                for w in words {
                    let i: i64 = w
                        .split('/')
                        .next()
                        .and_then(|s| s.parse().ok())
                        .ok_or_else(|| format!("line {}: bad face corner {w:?}", line_no + 1))?;
                    let global = if i < 0 { total as i64 + i } else { i - 1 };
                    if global < 0 || global as usize >= total {
                        return Err(format!("line {}: index {i} outside {total} vertices", line_no + 1));
                    }
                    face.push((global as usize).wrapping_sub(start) as u32);
                }
                objects.last_mut().expect("current object").faces.push(face);
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
            },
            ObjObject { name: "C".into(), positions: vec![[1e-7, 3.0e8, 0.0]; 3], faces: vec![vec![2, 1, 0]] },
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
                 proptest::collection::vec(proptest::array::uniform3(0u32..64), 0..8)),
                0..5),
        ) {
            let objects: Vec<ObjObject> = raw
                .into_iter()
                .map(|(name, positions, faces)| {
                    let n = positions.len() as u32;
                    let faces = faces.into_iter().map(|f| f.iter().map(|v| v % n).collect()).collect();
                    ObjObject { name, positions, faces }
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
