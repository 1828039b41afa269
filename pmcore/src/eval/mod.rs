//! Evaluation: a node's world-state mesh = its base object + its modifier stack, as Max
//! would build it, and the scene's vertex / face totals compared with Max's own `Mesh
//! Totals`.
//!
//! * [`mesh`] — the one evaluated-mesh type the exporters share, and its counts;
//! * [`primitives`] — Box, Plane, Cylinder/Cone, Tube, Torus, Sphere, GeoSphere from
//!   their parameter values; [`params`] reads those values from the parameter block;
//! * [`boolean`] — ProBoolean's cached result mesh;
//! * [`classes`] — the Class IDs evaluation knows and each modifier's topology rule;
//! * [`cloth`] — the Cloth modifier's saved simulation state;
//! * [`deform`] — the Bend modifier (a simple-modifier gizmo frame);
//! * [`edit_mesh`] — the Edit Mesh modifier's MeshDelta, where its records are known;
//! * [`edit_poly`] — which Edit Poly modifier operations keep the counts, and the replay
//!   of those whose records are known; [`poly_edges`] — Max's edge numbering the
//!   edge-indexed ones need;
//! * [`lathe`] — the Lathe modifier over a spline shape ([`spline`] decodes and
//!   interpolates the shape);
//! * [`normal`] — the Normal modifier (flip);
//! * [`selection`] — the sub-object selection a stack passes up to its deformers;
//! * [`pyramid`] — the Pyramid primitive in Max's order;
//! * [`ripple`] — the Ripple modifier (concentric sine waves in a gizmo frame);
//! * [`shell`] — the Shell modifier;
//! * [`subdivide`] — Catmull-Clark (TurboSmooth) as a mesh or as counts;
//! * [`symmetry`] — the Symmetry modifier (slice, mirror, weld);
//! * [`uvw_map`] — the UVW Map modifier's planar projection of map channel 1;
//! * [`stack`] — base object and modifiers of a node, evaluated bottom-up, with a
//!   memory budget above which only counts are computed.
//!
//! Anything not evaluable stops the node with the Class ID that stopped it; no node is
//! dropped without a counted reason.

pub mod boolean;
pub mod classes;
pub mod cloth;
pub mod deform;
pub mod edit_mesh;
pub mod edit_poly;
pub mod lathe;
pub mod mesh;
pub mod normal;
pub mod params;
pub mod poly_edges;
pub mod primitives;
pub mod pyramid;
pub mod ripple;
pub mod selection;
pub mod shell;
pub mod spline;
pub mod stack;
pub mod subdivide;
pub mod symmetry;
pub mod uvw_map;

pub use mesh::{Counts, EvalMesh, FaceRule};
pub use stack::{evaluate_index, evaluate_node, Evaluated, NodeEval, NodeOutcome, Stop, DEFAULT_BUDGET_VERTICES};

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
