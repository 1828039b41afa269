//! The sub-object selection an object carries up its modifier stack: which vertices a
//! deforming modifier above moves.
//!
//! Facts of the SDK (the Edit Poly modifier sample and `Object::Deform`): a modifier that
//! edits selections sets the level of what it outputs (Edit Poly: its selection level,
//! chunk `0x0100` of the modifier, `ePolyModSelLevel` 0 object, 1 vertex, 2 edge, 3 border,
//! 4 face, 5 element) and the selection at that level (its per-node data `0x2512` holds the
//! vertex `0x0200`, edge `0x0210` and face `0x0220` bit arrays of its output). A simple
//! modifier (Bend, Taper) deforms with `useSel`: at object level every vertex, otherwise
//! the vertices of the selected vertices, edges or faces (`VertexTempSel`), weighted by the
//! soft selection when there is one. Modifiers that do not edit selections pass them on.
//!
//! What is not decoded here becomes [`Selection::Unknown`] with the reason: a Bend or Taper
//! above it leaves the counts known and the positions not (never the wrong vertices moved).

use super::classes::{self, ModifierRule};
use super::edit_poly::{bit_array, LOCAL_DATA};
use super::mesh::EvalMesh;
use super::params::Params;
use super::stack::StackModifier;
use crate::chunk::Chunk;
use crate::model::scene_index::{SceneIndex, SceneObject};

/// Edit Poly modifier: selection level (`kChunkSelLevel`, an `int`).
pub const EDIT_POLY_SEL_LEVEL: u16 = 0x0100;
/// Edit Poly per-node data: vertex, edge and face selections (each a `0x2700` bit array).
pub const EDIT_POLY_VERTEX_SEL: u16 = 0x0200;
/// See [`EDIT_POLY_VERTEX_SEL`].
pub const EDIT_POLY_EDGE_SEL: u16 = 0x0210;
/// See [`EDIT_POLY_VERTEX_SEL`].
pub const EDIT_POLY_FACE_SEL: u16 = 0x0220;
/// Edit Mesh modifier: selection level (an `int16`).
pub const EDIT_MESH_SEL_LEVEL: u16 = 0x2800;
/// Mesh Select modifier: selection level.
pub const MESH_SELECT_SEL_LEVEL: u16 = 0x0100;
/// Editable Poly / Editable Mesh object: selection level.
pub const EDITABLE_SEL_LEVEL: u16 = 0x4038;

/// Edit Poly parameters (`iEPolyMod.h` enumeration): use the stack selection, use soft
/// selection.
const EPM_STACK_SELECTION: u16 = 4;
const EPM_SS_USE: u16 = 5;

/// Mesh Select.
const MESH_SELECT: [u32; 2] = [0x73d8_ff93, 0];
/// Select By Channel.
const SELECT_BY_CHANNEL: [u32; 2] = [0x31f9_c666, 0x03b4_a588];

/// What a deformer receives.
#[derive(Clone, Debug, PartialEq)]
pub enum Selection {
    /// Object level: every vertex.
    Object,
    /// Sub-object level: the vertices marked `true`, by index.
    Vertices(Vec<bool>),
    /// Not known here, and why.
    Unknown(String),
}

impl Selection {
    /// The vertices a deformer moves over a mesh of `vertices` vertices: `Ok(None)` for
    /// all, `Err` with the reason when the selection is not known or does not fit.
    pub fn deformed(&self, vertices: usize) -> Result<Option<&[bool]>, String> {
        match self {
            Selection::Object => Ok(None),
            Selection::Vertices(v) if v.len() == vertices => Ok(Some(v)),
            Selection::Vertices(v) => {
                Err(format!("sub-object selection of {} vertices over a mesh of {vertices}", v.len()))
            }
            Selection::Unknown(why) => Err(format!("sub-object selection not known: {why}")),
        }
    }
}

/// The selection level stored in `chunk` (an `int16` or `int32`), `None` when absent or
/// not 2 / 4 bytes.
fn level(chunk: Option<&Chunk<'_>>) -> Option<i32> {
    match chunk?.payload()? {
        [a, b] => Some(i32::from(i16::from_le_bytes([*a, *b]))),
        [a, b, c, d] => Some(i32::from_le_bytes([*a, *b, *c, *d])),
        _ => None,
    }
}

/// The selection a base object passes up: object level for procedural objects; an
/// Editable Poly or Mesh at a sub-object level is not decoded (its selection lives in the
/// stored mesh's flags).
pub fn of_base(base: &SceneObject<'_>) -> Selection {
    match level(base.chunk.child(EDITABLE_SEL_LEVEL)) {
        None | Some(0) => Selection::Object,
        Some(l) => Selection::Unknown(format!("base object at selection level {l}")),
    }
}

/// The selection after modifier `sm` produced `output` from an input carrying `before`.
/// `in_max_order`: the output's vertex and face indices are Max's own (what stored
/// selections index).
pub fn after_modifier(
    index: &SceneIndex<'_>,
    sm: &StackModifier<'_, '_>,
    before: Selection,
    output: Option<&EvalMesh>,
    in_max_order: bool,
) -> Selection {
    let m = sm.object;
    let Some(class) = m.class.as_ref() else { return Selection::Unknown("modifier class unknown".into()) };
    let rule = classes::modifier_rule(class.class_id);
    match rule {
        Some(ModifierRule::EditPoly) => return edit_poly(index, sm, output, in_max_order),
        Some(ModifierRule::EditMesh) => {
            return match level(m.chunk.child(EDIT_MESH_SEL_LEVEL)) {
                Some(0) => Selection::Object,
                l => Selection::Unknown(format!("Edit Mesh at selection level {l:?}: its selection is not decoded")),
            }
        }
        _ => {}
    }
    if class.class_id == MESH_SELECT {
        return match level(m.chunk.child(MESH_SELECT_SEL_LEVEL)) {
            Some(0) => Selection::Object,
            l => Selection::Unknown(format!("Mesh Select at selection level {l:?}: its selection is not decoded")),
        };
    }
    if class.class_id == SELECT_BY_CHANNEL {
        return Selection::Unknown("Select By Channel is not decoded".into());
    }
    match before {
        Selection::Vertices(v) => {
            let kept = rule.is_some_and(|r| {
                matches!(
                    r,
                    ModifierRule::PassThrough
                        | ModifierRule::ToPoly
                        | ModifierRule::ToMesh
                        | ModifierRule::Bend
                        | ModifierRule::Taper
                )
            }) && output.is_some_and(|o| o.positions.len() == v.len());
            if kept {
                Selection::Vertices(v)
            } else {
                Selection::Unknown(format!("a vertex selection carried through {}", class.name))
            }
        }
        other => other,
    }
}

/// Edit Poly's output selection (see the module notes).
fn edit_poly(
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
mod tests {
    use super::*;

    #[test]
    fn levels_read_as_int16_or_int32_and_deformed_checks_the_size() {
        // Edit Mesh stores an int16 (4 = polygon), Edit Poly an int32 (1 = vertex).
        let em = Chunk::leaf(EDIT_MESH_SEL_LEVEL, vec![4, 0]);
        assert_eq!(level(Some(&em)), Some(4));
        let ep = Chunk::leaf(EDIT_POLY_SEL_LEVEL, vec![1, 0, 0, 0]);
        assert_eq!(level(Some(&ep)), Some(1));
        assert_eq!(level(Some(&Chunk::leaf(EDIT_POLY_SEL_LEVEL, vec![1, 0, 0]))), None);
        assert_eq!(Selection::Object.deformed(5), Ok(None));
        let sel = Selection::Vertices(vec![true, false]);
        assert_eq!(sel.deformed(2), Ok(Some(&[true, false][..])));
        assert!(sel.deformed(3).is_err());
        assert!(Selection::Unknown("x".into()).deformed(2).is_err());
    }
}
