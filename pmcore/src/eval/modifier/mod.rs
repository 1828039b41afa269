//! The modifiers evaluation applies, one file each, named after the modifier. Each file
//! exports one descriptor ([`Modifier`], or [`ShapeModifier`] for a modifier that builds
//! a mesh from the spline shape under it) that the modifier's row in the class catalogue
//! ([`crate::classes::CATALOGUE`]) names: the stack finds a modifier's evaluator by its
//! Class ID there, never by a match of its own.
//!
//! Adding a modifier: a new file here with its `apply` and its descriptor, `pub(crate) mod` it
//! below, and one catalogue row naming the descriptor (`docs/architecture.md`).

use super::context::ModContext;
use super::derived::StackModifier;
use super::mesh::EvalMesh;
use super::outcome::{Evaluated, Stop};
use super::selection::Carry;
use crate::model::scene_index::{SceneIndex, SceneObject};

pub(crate) mod bend;
pub(crate) mod bevel;
pub mod cloth;
pub mod edit_mesh;
pub(crate) mod edit_poly;
pub(crate) mod extrude;
pub mod lathe;
pub(crate) mod map_scaler;
pub(crate) mod mesh_select;
pub(crate) mod meshsmooth;
pub(crate) mod mirror;
pub(crate) mod normal;
pub(crate) mod pass_through;
pub(crate) mod ripple;
pub(crate) mod select_by_channel;
pub(crate) mod shell;
pub(crate) mod symmetry;
pub(crate) mod taper;
pub(crate) mod turbosmooth;
pub(crate) mod uvw_map;

/// A modifier's evaluation: its input in, its output or what stopped it out.
pub(crate) type Apply = fn(&ModContext<'_, '_>, Evaluated) -> Result<Evaluated, Stop>;

/// Whether a modifier turns its faces over (what edge numbering above it sees).
pub(crate) type Flips = fn(&SceneIndex<'_>, &SceneObject<'_>) -> bool;

/// What the stack needs to know of a modifier besides its evaluation.
#[derive(Clone, Copy)]
pub(crate) struct Modifier {
    /// The evaluator's module (`module_path!()`): which file implements it.
    #[cfg_attr(not(test), allow(dead_code))] // read by the catalogue tests (classes/tests.rs)
    pub module: &'static str,
    /// The evaluation.
    pub apply: Apply,
    /// Its output keeps its input's vertex and face indices (then appends, as Edit Poly's
    /// replayed operations and Edit Mesh do; deformers only move vertices).
    pub keeps_indices: bool,
    /// It indexes its input's poly conversion (Edit Poly), not the tri object.
    pub indexes_poly: bool,
    /// Its output is a tri object in the tri order: a later Edit Poly's poly conversion of
    /// it keeps that order (Edit Mesh).
    pub outputs_tri_order: bool,
    /// How the sub-object selection passes through it.
    pub carry: Carry,
    /// Whether it turns faces over, when it can.
    pub flips: Option<Flips>,
}

impl Modifier {
    /// A modifier that neither indexes the poly conversion, re-orders, nor flips.
    pub(crate) const fn new(module: &'static str, apply: Apply, keeps_indices: bool, carry: Carry) -> Self {
        Modifier { module, apply, keeps_indices, indexes_poly: false, outputs_tri_order: false, carry, flips: None }
    }
}

/// A modifier that builds a mesh from the spline shape directly under it (Lathe): the
/// mesh, and whether its vertex and face order is Max's.
pub(crate) type OverShape =
    fn(&SceneIndex<'_>, &SceneObject<'_>, &StackModifier<'_, '_>, u64) -> Result<(EvalMesh, bool), Stop>;

/// A modifier over a shape.
#[derive(Clone, Copy)]
pub(crate) struct ShapeModifier {
    /// The evaluator's module (`module_path!()`).
    #[cfg_attr(not(test), allow(dead_code))] // read by the catalogue tests (classes/tests.rs)
    pub module: &'static str,
    /// The evaluation.
    pub evaluate: OverShape,
}
