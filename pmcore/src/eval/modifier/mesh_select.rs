//! The Mesh Select modifier: topology passes through; it sets the selection it outputs
//! (object level is decoded, a sub-object level is not).

use super::pass_through::PASS_THROUGH;
use super::Modifier;
use crate::eval::derived::StackModifier;
use crate::eval::mesh::EvalMesh;
use crate::eval::selection::{level, Carry, Selection, MESH_SELECT_SEL_LEVEL};
use crate::model::scene_index::SceneIndex;

/// The Mesh Select's evaluator.
pub const MESH_SELECT: Modifier =
    Modifier { module: module_path!(), carry: Carry::Own(selection_after), ..PASS_THROUGH };

/// Mesh Select's output selection.
fn selection_after(_: &SceneIndex<'_>, sm: &StackModifier<'_, '_>, _: Option<&EvalMesh>, _: bool) -> Selection {
    match level(sm.object.chunk.child(MESH_SELECT_SEL_LEVEL)) {
        Some(0) => Selection::Object,
        l => Selection::Unknown(format!("Mesh Select at selection level {l:?}: its selection is not decoded")),
    }
}
