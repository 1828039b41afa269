//! Evaluation: a node's world-state mesh = its base object + its modifier stack, as Max
//! would build it, and the scene's vertex / face totals compared with Max's own `Mesh
//! Totals`.
//!
//! * [`stack`] — base object and modifiers of a node, evaluated bottom-up: it only walks
//!   the stack, finding each evaluator by Class ID in the class catalogue
//!   ([`crate::classes`]);
//! * [`base`] — the base object: its stored mesh or its class's builder;
//! * [`primitive`] — one file per object family (Box, Plane, Cylinder/Cone, Tube, Torus,
//!   Sphere, GeoSphere, Pyramid, Bone, ProBoolean's cached result);
//! * [`modifier`] — one file per modifier (Bend, Taper, Mirror, Ripple, TurboSmooth,
//!   MeshSmooth, Symmetry, Shell, Cloth, Edit Poly, Edit Mesh, UVW Map, Normal, Lathe, Extrude,
//!   Bevel, MapScaler, Mesh Select, Select By Channel, and the pass-through ones);
//! * [`context`] — what an evaluator is handed: the scene, the time and the memory budget,
//!   and for a modifier its mod context and input;
//! * [`outcome`] — the evaluated object, what stopped it, a node's outcome;
//! * the leaves the evaluators share: [`mesh`] (the one evaluated-mesh type the exporters
//!   share, and its counts), [`params`] (parameter values from the parameter block),
//!   [`derived`] (a derived object's modifiers and their per-node data), [`gizmo`] (gizmo
//!   and mod-context frames), [`deform`] (the simple-modifier deformers' setup),
//!   [`selection`] (the sub-object selection a stack passes up), [`stored`] (stored meshes),
//!   [`subdivide`] (Catmull-Clark), [`poly_edges`] (Max's edge numbering), [`spline`]
//!   (spline shapes), `shape` (the shape under Extrude / Bevel as polylines), `levels`
//!   (stacked polyline copies with sides and caps), `cap` (morph caps).
//!
//! Anything not evaluable stops the node with the Class ID that stopped it; no node is
//! dropped without a counted reason.

pub(crate) mod base;
pub mod biped;
pub mod biped_keys;
pub mod biped_tcb;
pub(crate) mod cap;
pub(crate) mod context;
pub(crate) mod deform;
pub(crate) mod derived;
pub(crate) mod gizmo;
pub mod ik;
pub mod ik_solve;
pub(crate) mod levels;
pub mod mesh;
pub(crate) mod modifier;
pub(crate) mod outcome;
pub mod params;
pub(crate) mod poly_edges;
pub(crate) mod primitive;
pub(crate) mod selection;
pub(crate) mod shape;
pub mod spline;
pub mod stack;
pub(crate) mod stored;
pub(crate) mod subdivide;
pub(crate) mod tri_join;

pub use modifier::{cloth, edit_mesh, lathe};

/// The primitive builders under their former path (fuzz targets and probes name them so).
pub mod primitives {

    pub use super::primitive::r#box::{box_mesh, BoxParams};
}

pub use context::DEFAULT_BUDGET_VERTICES;
pub use mesh::{EvalMesh, FaceRule};
pub use outcome::{Evaluated, NodeEval, NodeOutcome, Stop};
pub use stack::{evaluate_index, evaluate_node};

use crate::model::scene_index::SceneTrees;
use crate::MaxFile;

/// Scene totals as Max counts them, with what they are made of.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct MeshTotals {
    /// Vertices of every evaluated geometry node.
    pub vertices: u64,
    /// Faces under each node's face rule (polygons for poly objects, triangles otherwise).
    pub faces: u64,
    /// Geometry nodes evaluated to a mesh.
    pub meshes: usize,
    /// Of those, nodes above the memory budget whose counts were computed without a mesh.
    pub count_only: usize,
    /// Nodes whose evaluation stopped, with the class that stopped them: their geometry is
    /// missing from the totals, so totals are complete only when this is empty.
    pub stopped: Vec<StoppedNode>,
    /// Nodes left out of the totals by Max's own rules (not geometry, shapes that do not
    /// render, …), by reason, with counts.
    pub left_out: Vec<(String, usize)>,
}

/// A node whose evaluation stopped.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StoppedNode {
    /// Node name.
    pub node: String,
    /// Class ID that stopped it, as `0x…:0x…`.
    pub class_id: String,
    /// The class's display name (informative only).
    pub class_name: String,
    /// Why.
    pub why: String,
}

/// Why [`scene_totals`] cannot evaluate a file at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EvalError {
    /// The Scene stream is not a chunk tree with a root container.
    #[error("Scene is not a readable chunk tree")]
    NoScene,
}

/// The scene's evaluated totals (count-only above the default memory budget).
pub fn scene_totals(file: &MaxFile) -> Result<MeshTotals, EvalError> {
    let trees = SceneTrees::of(file).ok_or(EvalError::NoScene)?;
    let index = trees.index().ok_or(EvalError::NoScene)?;
    let nodes = evaluate_index(&index, DEFAULT_BUDGET_VERTICES, false);
    Ok(totals_of(&nodes))
}

/// Sums node evaluations into totals.
pub fn totals_of(nodes: &[NodeEval]) -> MeshTotals {
    let mut t = MeshTotals::default();
    for n in nodes {
        match &n.outcome {
            NodeOutcome::Evaluated(e) => {
                let (counts, rule) = e.counts_and_rule();
                t.vertices += counts.vertices;
                t.faces += counts.faces(rule);
                t.meshes += 1;
                t.count_only += usize::from(matches!(e, Evaluated::CountOnly { .. }));
            }
            NodeOutcome::Stopped(stop) => t.stopped.push(StoppedNode {
                node: n.name.clone(),
                class_id: format!("0x{:08x}:0x{:08x}", stop.class_id[0], stop.class_id[1]),
                class_name: stop.class_name.clone(),
                why: stop.why.clone(),
            }),
            NodeOutcome::LeftOut(why) => match t.left_out.iter_mut().find(|(w, _)| w == why) {
                Some((_, count)) => *count += 1,
                None => t.left_out.push((why.clone(), 1)),
            },
        }
    }
    t
}
