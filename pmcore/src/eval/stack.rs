//! A node's object evaluated bottom-up: base object (stored mesh or procedural primitive,
//! [`super::base`]), then its modifiers from the one nearest the base to the top. Each
//! modifier's evaluator is found by its Class ID in the class catalogue
//! ([`crate::classes`]); this module only walks the stack and carries, from one modifier to
//! the next, the order of the mesh's indices and the sub-object selection.

use super::base;
use super::context::{EvalContext, ModContext};
use super::modifier::{Modifier, ShapeModifier};
use super::selection::{self, Selection};
use crate::classes::{self, ids, ids::superclass};
use crate::model::scene_index::{SceneIndex, SceneObject};

pub use super::base::evaluate_base;
pub use super::derived::{mod_context_box, mod_context_tm, stack, stack_with_data, StackModifier};
pub use super::outcome::{Evaluated, NodeEval, NodeOutcome, Stop};

use super::outcome::stop;

/// Evaluates every node of the scene, in storage order.
/// `budget` is shared by the whole scene: each built mesh uses it up.
pub fn evaluate_index(index: &SceneIndex<'_>, budget: u64, base_only: bool) -> Vec<NodeEval> {
    let mut left = budget;
    let mut out = Vec::new();
    for node in index.objects.iter().filter(|o| o.is_node()) {
        let e = evaluate_node(index, node, left, base_only);
        match &e.outcome {
            NodeOutcome::Evaluated(Evaluated::Mesh(m)) if e.generated => {
                left = left.saturating_sub(m.positions.len() as u64);
            }
            _ => {}
        }
        out.push(e);
    }
    out
}

/// What a node's base object makes of it, before any evaluation.
enum Gate {
    /// Geometry: evaluate the base, then the modifiers.
    Geometry,
    /// A shape under a modifier that builds the mesh from it.
    OverShape(&'static ShapeModifier),
    /// Decided without evaluation.
    Done(NodeOutcome),
}

/// Max counts geometric objects (not targets), and shapes only under a modifier that
/// builds geometry from them.
fn gate(base: &SceneObject<'_>, modifiers: &[StackModifier<'_, '_>], base_only: bool) -> Gate {
    let class = base.class.as_ref();
    match class.map(|c| c.superclass) {
        Some(superclass::GEOM_OBJECT) if class.is_some_and(|c| c.class_id == ids::TARGET_OBJECT) => {
            Gate::Done(NodeOutcome::LeftOut("target object".into()))
        }
        Some(superclass::GEOM_OBJECT) => Gate::Geometry,
        Some(superclass::SHAPE) if modifiers.is_empty() || base_only => {
            Gate::Done(NodeOutcome::LeftOut("shape".into()))
        }
        Some(superclass::SHAPE) => {
            match modifiers[0].object.class.as_ref().and_then(|c| classes::over_shape(c.class_id)) {
                Some(s) => Gate::OverShape(s),
                None => Gate::Done(NodeOutcome::Stopped(stop(modifiers[0].object, "modifier over a shape"))),
            }
        }
        Some(s) => Gate::Done(NodeOutcome::LeftOut(format!("superclass 0x{s:x}"))),
        None => Gate::Done(NodeOutcome::Stopped(stop(base, "class not in the class directory"))),
    }
}

/// The evaluator of a modifier on the stack.
fn modifier_of(sm: &StackModifier<'_, '_>) -> Option<&'static Modifier> {
    sm.object.class.as_ref().and_then(|c| classes::modifier(c.class_id))
}

/// Evaluates one node.
pub fn evaluate_node(index: &SceneIndex<'_>, node: &SceneObject<'_>, budget: u64, base_only: bool) -> NodeEval {
    let name = node.node_name().unwrap_or_default();
    let mut out = NodeEval {
        storage_index: node.storage_index,
        name,
        modifiers: 0,
        generated: false,
        outcome: NodeOutcome::LeftOut(String::new()),
    };
    let Some((base, modifiers)) = stack_with_data(index, node) else {
        out.outcome = NodeOutcome::LeftOut("no object".into());
        return out;
    };
    let ctx = EvalContext::new(index, budget);
    match gate(base, &modifiers, base_only) {
        Gate::Geometry => {}
        Gate::OverShape(shape) => return evaluate_over_shape(&ctx, base, &modifiers, shape, out),
        Gate::Done(outcome) => {
            out.outcome = outcome;
            return out;
        }
    }
    out.generated = !modifiers.is_empty() && !base_only;
    let poly_first = !base_only && modifiers.first().and_then(modifier_of).is_some_and(|m| m.indexes_poly);
    let built = match base::evaluate(&ctx, base, poly_first) {
        Ok(b) => b,
        Err(s) => {
            out.outcome = NodeOutcome::Stopped(s);
            return out;
        }
    };
    out.generated |= built.generated;
    if base_only {
        out.outcome = NodeOutcome::Evaluated(Evaluated::Mesh(built.mesh));
        return out;
    }
    let carried =
        Carried { in_max_order: built.in_max_order, tri_order: built.tri_order, selection: selection::of_base(base) };
    apply_modifiers(&ctx, &modifiers, Evaluated::Mesh(built.mesh), carried, out)
}

/// What the stack carries from one modifier to the next besides the mesh.
struct Carried {
    /// The mesh's indices are Max's own, poly conversion included (what Edit Poly indexes).
    in_max_order: bool,
    /// The tri object's indices are Max's own (what the other modifiers index).
    tri_order: bool,
    /// The sub-object selection passed up.
    selection: Selection,
}

/// Applies `modifiers` in order to `current`, recording the outcome in `out`.
fn apply_modifiers(
    ctx: &EvalContext<'_, '_>,
    modifiers: &[StackModifier<'_, '_>],
    mut current: Evaluated,
    mut c: Carried,
    mut out: NodeEval,
) -> NodeEval {
    // Whether a Normal modifier turned the faces over since the edges were numbered.
    let mut turned = false;
    for sm in modifiers {
        let m = sm.object;
        let Some(class) = m.class.as_ref() else {
            out.outcome = NodeOutcome::Stopped(stop(m, "class not in the class directory"));
            return out;
        };
        let Some(modifier) = classes::modifier(class.class_id) else {
            out.outcome = NodeOutcome::Stopped(stop(m, "modifier not evaluated"));
            return out;
        };
        let in_max_order = if modifier.indexes_poly { c.in_max_order } else { c.tri_order };
        let mc = ModContext { eval: ctx, modifier: sm, in_max_order, selection: &c.selection, turned };
        current = match (modifier.apply)(&mc, current) {
            Ok(Evaluated::Mesh(mut mesh)) => {
                mesh.drop_stale_map();
                Evaluated::Mesh(mesh)
            }
            Ok(next) => next,
            Err(s) => {
                out.outcome = NodeOutcome::Stopped(s);
                return out;
            }
        };
        out.modifiers += 1;
        turned ^= modifier.flips.is_some_and(|flips| flips(ctx.index, m));
        if modifier.outputs_tri_order {
            c.in_max_order = c.tri_order;
        }
        c.in_max_order &= modifier.keeps_indices;
        c.tri_order &= modifier.keeps_indices;
        let output = match &current {
            Evaluated::Mesh(mesh) => Some(mesh),
            Evaluated::CountOnly { .. } => None,
        };
        c.selection = selection::after_modifier(modifier.carry, ctx.index, sm, c.selection, output, c.in_max_order);
    }
    out.outcome = NodeOutcome::Evaluated(current);
    out
}

/// A spline shape under a modifier that builds the mesh from it (the Lathe), then the
/// modifiers above it.
fn evaluate_over_shape(
    ctx: &EvalContext<'_, '_>,
    base: &SceneObject<'_>,
    modifiers: &[StackModifier<'_, '_>],
    shape: &ShapeModifier,
    mut out: NodeEval,
) -> NodeEval {
    out.generated = true;
    match (shape.evaluate)(ctx.index, base, &modifiers[0], ctx.budget) {
        Ok((mesh, in_max_order)) => {
            out.modifiers = 1;
            // It builds a new object: what sits above it sees the whole of it.
            let c = Carried { in_max_order, tri_order: in_max_order, selection: Selection::Object };
            apply_modifiers(ctx, &modifiers[1..], Evaluated::Mesh(mesh), c, out)
        }
        Err(s) => {
            out.outcome = NodeOutcome::Stopped(s);
            out
        }
    }
}
