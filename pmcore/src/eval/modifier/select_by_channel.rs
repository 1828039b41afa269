//! The Select By Channel modifier: topology passes through; the selection it outputs is
//! not decoded.

use super::pass_through::PASS_THROUGH;
use super::Modifier;
use crate::eval::derived::StackModifier;
use crate::eval::mesh::EvalMesh;
use crate::eval::selection::{Carry, Selection};
use crate::model::scene_index::SceneIndex;

/// The Select By Channel's evaluator.
pub const SELECT_BY_CHANNEL: Modifier =
    Modifier { module: module_path!(), carry: Carry::Own(selection_after), ..PASS_THROUGH };

/// Its output selection: not decoded.
fn selection_after(_: &SceneIndex<'_>, _: &StackModifier<'_, '_>, _: Option<&EvalMesh>, _: bool) -> Selection {
    Selection::Unknown("Select By Channel is not decoded".into())
}
