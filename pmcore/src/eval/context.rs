//! What every evaluator is handed: the scene, the evaluation time and the memory budget
//! ([`EvalContext`]); and, for a modifier, its place on the stack — the modifier with its
//! mod context, the order and selection of its input ([`ModContext`]).

use super::derived::StackModifier;
use super::selection::Selection;
use crate::model::scene_index::{SceneIndex, SceneObject};

/// Vertices evaluation may build for a whole scene beyond what the file stores; past it,
/// subdivisions are counted without building their mesh and primitives stop, named. A
/// built vertex costs about 100 bytes (position, its share of quads, the subdivision edge
/// map), so 250,000 vertices stay near 25 MB, inside the worker's 3 × decoded + 32 MiB
/// memory bound.
pub const DEFAULT_BUDGET_VERTICES: u64 = 250_000;

/// The scene-wide inputs of an evaluation.
#[derive(Clone, Copy, Debug)]
pub struct EvalContext<'i, 'a> {
    /// The scene's objects.
    pub index: &'i SceneIndex<'a>,
    /// Evaluation time in ticks. Parameters are read at their stored values (what Max
    /// shows at frame 0), so 0 is the only time evaluated today.
    pub time: i32,
    /// Vertices the evaluator may still build ([`DEFAULT_BUDGET_VERTICES`] for a scene).
    pub budget: u64,
}

impl<'i, 'a> EvalContext<'i, 'a> {
    /// The context at time 0 with `budget` vertices left.
    pub fn new(index: &'i SceneIndex<'a>, budget: u64) -> Self {
        EvalContext { index, time: 0, budget }
    }
}

/// One modifier's call: the scene context, the modifier and its mod context, and what the
/// stack knows of its input.
#[derive(Clone, Copy, Debug)]
pub struct ModContext<'c, 'a> {
    /// Scene, time and budget.
    pub eval: &'c EvalContext<'c, 'a>,
    /// The modifier and its per-node data (mod-context matrix and box, local data).
    pub modifier: &'c StackModifier<'c, 'a>,
    /// The input's vertex and face indices are Max's own (what stored records index).
    pub in_max_order: bool,
    /// The sub-object selection passed up to this modifier.
    pub selection: &'c Selection,
    /// A Normal modifier below turned the faces over since the edges were numbered.
    pub turned: bool,
}

impl<'c, 'a> ModContext<'c, 'a> {
    /// The modifier object.
    pub fn object(&self) -> &'c SceneObject<'a> {
        self.modifier.object
    }

    /// The scene's objects.
    pub fn index(&self) -> &'c SceneIndex<'a> {
        self.eval.index
    }
}
