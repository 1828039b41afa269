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

use super::derived::StackModifier;
use super::mesh::EvalMesh;
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
pub(crate) fn level(chunk: Option<&Chunk<'_>>) -> Option<i32> {
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

/// A modifier's own rule for the selection it outputs: `(scene, the modifier, its output,
/// whether the output's indices are Max's own)`.
pub type OwnSelection = fn(&SceneIndex<'_>, &StackModifier<'_, '_>, Option<&EvalMesh>, bool) -> Selection;

/// How a modifier passes the selection it receives on.
#[derive(Clone, Copy)]
pub enum Carry {
    /// A vertex selection stays when the output has as many vertices (mapping, selection
    /// and material edits, deformers that only move vertices).
    Keeps,
    /// A vertex selection is lost (the output's vertices are rebuilt or not checked).
    Loses,
    /// The modifier sets the selection it outputs (Edit Poly, Edit Mesh, Mesh Select, …).
    Own(OwnSelection),
}

/// The selection after modifier `sm` produced `output` from an input carrying `before`.
/// `in_max_order`: the output's vertex and face indices are Max's own (what stored
/// selections index).
pub fn after_modifier(
    carry: Carry,
    index: &SceneIndex<'_>,
    sm: &StackModifier<'_, '_>,
    before: Selection,
    output: Option<&EvalMesh>,
    in_max_order: bool,
) -> Selection {
    let Some(class) = sm.object.class.as_ref() else { return Selection::Unknown("modifier class unknown".into()) };
    if let Carry::Own(own) = carry {
        return own(index, sm, output, in_max_order);
    }
    match before {
        Selection::Vertices(v) => {
            let kept = matches!(carry, Carry::Keeps) && output.is_some_and(|o| o.positions.len() == v.len());
            if kept {
                Selection::Vertices(v)
            } else {
                Selection::Unknown(format!("a vertex selection carried through {}", class.name))
            }
        }
        other => other,
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
