//! What evaluating a node gives: the evaluated object, what stopped it, the node's outcome,
//! and the small steps every evaluator shares to say so. A leaf, so that the stack and the
//! evaluators both import it.

use super::mesh::{Counts, EvalMesh, FaceRule};
use super::params::ParamError;
use crate::model::scene_index::SceneObject;

/// A node's evaluated object.
#[derive(Clone, Debug, PartialEq)]
pub enum Evaluated {
    /// The mesh, built.
    Mesh(EvalMesh),
    /// Counts only, and why: over the memory budget, or positions not known (an Edit Poly's
    /// vertex offsets over an input not built in Max's order).
    CountOnly {
        /// The counts.
        counts: Counts,
        /// Face rule of the result.
        rule: FaceRule,
        /// Which step went over the budget.
        note: String,
    },
}

impl Evaluated {
    /// Counts and face rule of the result.
    pub fn counts_and_rule(&self) -> (Counts, FaceRule) {
        match self {
            Evaluated::Mesh(m) => (m.counts(), m.rule),
            Evaluated::CountOnly { counts, rule, .. } => (*counts, *rule),
        }
    }
}

/// What stopped a node's evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    /// Class ID of the object or modifier that stopped it.
    pub class_id: [u32; 2],
    /// Its display name (informative only).
    pub class_name: String,
    /// Why.
    pub why: String,
}

/// Outcome of one node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeOutcome {
    /// Geometry, evaluated.
    Evaluated(Evaluated),
    /// Geometry Max counts, not evaluated here.
    Stopped(Stop),
    /// Not counted by Max (lights, cameras, helpers, shapes …), with the reason.
    LeftOut(String),
}

/// One node's evaluation.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeEval {
    /// Storage index of the node.
    pub storage_index: usize,
    /// Node name.
    pub name: String,
    /// Modifiers applied (0 when only the base was asked for).
    pub modifiers: usize,
    /// The mesh was built here (a primitive, or any modifier applied), not only read from
    /// stored buffers: what uses up the scene's memory budget.
    pub generated: bool,
    /// Outcome.
    pub outcome: NodeOutcome,
}

pub(crate) fn stop(o: &SceneObject<'_>, why: impl Into<String>) -> Stop {
    let (class_id, class_name) = o
        .class
        .as_ref()
        .map(|c| (c.class_id, c.name.clone()))
        .unwrap_or(([0, 0], format!("chunk 0x{:04x}", o.chunk.id)));
    Stop { class_id, class_name, why: why.into() }
}

/// The mesh a modifier works on: an input known by its counts only stops it.
pub(crate) fn mesh_of(m: &SceneObject<'_>, input: Evaluated) -> Result<EvalMesh, Stop> {
    match input {
        Evaluated::Mesh(mesh) => Ok(mesh),
        Evaluated::CountOnly { .. } => Err(stop(m, "input known by its counts only")),
    }
}

/// Stops a modifier whose result may hold `bound` vertices when the scene's budget has less room.
pub(crate) fn within_budget(m: &SceneObject<'_>, bound: u64, budget: u64) -> Result<(), Stop> {
    if bound > budget {
        return Err(stop(m, format!("up to {bound} vertices over the memory budget ({budget} left)")));
    }
    Ok(())
}

/// The input's counts without positions (a deformer whose case is not evaluated), with
/// the reason.
pub(crate) fn counts_only(input: Evaluated, note: String) -> Evaluated {
    let (counts, rule) = input.counts_and_rule();
    Evaluated::CountOnly { counts, rule, note }
}

/// The input as a poly object (counts kept, faces counted as polygons).
pub(crate) fn to_poly(input: Evaluated) -> Evaluated {
    match input {
        Evaluated::Mesh(mesh) => Evaluated::Mesh(mesh.into_poly()),
        Evaluated::CountOnly { counts, note, .. } => Evaluated::CountOnly { counts, rule: FaceRule::Polygons, note },
    }
}

/// A parameter that cannot be read stops the object or modifier, named.
pub(crate) fn param_stop(o: &SceneObject<'_>, e: ParamError) -> Stop {
    stop(o, format!("parameters: {e}"))
}
