//! A node's object evaluated bottom-up: base object (stored mesh or procedural
//! primitive), then its modifiers from the one nearest the base to the top.
//!
//! Derived objects (OSM/WSM Derived) list their modifiers top-first and their input
//! object last (measured on the corpus: the last reference is the object the modifiers
//! apply to, possibly another derived object).

use super::classes::{self, ModifierRule, GEOM_OBJECT, SHAPE};
use super::edit_poly;
use super::mesh::{Counts, EvalMesh, FaceRule, Polygon};
use super::params::{ParamError, Params};
use super::primitives::{self as prim, PrimitiveError};
use super::selection::Selection;
use super::shell::{shell, ShellParams};
use super::subdivide::{catmull_clark, catmull_clark_counts};
use super::symmetry::{symmetry, SymmetryParams};
use crate::chunk::Chunk;
use crate::model::controllers::{position_default, rotation_default, scale_default, ControllerError, LocalTransform};
use crate::model::geometry::{self, MeshKind};
use crate::model::scene_index::{SceneIndex, SceneObject, OSM_DERIVED, WSM_DERIVED};
use glam::{Mat4, Vec3, Vec4};

/// Vertices evaluation may build for a whole scene beyond what the file stores; past it,
/// subdivisions are counted without building their mesh and primitives stop, named. A
/// built vertex costs about 100 bytes (position, its share of quads, the subdivision edge
/// map), so 250,000 vertices stay near 25 MB, inside the worker's 3 × decoded + 32 MiB
/// memory bound.
pub const DEFAULT_BUDGET_VERTICES: u64 = 250_000;

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
fn mesh_of(m: &SceneObject<'_>, input: Evaluated) -> Result<EvalMesh, Stop> {
    match input {
        Evaluated::Mesh(mesh) => Ok(mesh),
        Evaluated::CountOnly { .. } => Err(stop(m, "input known by its counts only")),
    }
}

/// Stops a modifier whose result may hold `bound` vertices when the scene's budget has less room.
fn within_budget(m: &SceneObject<'_>, bound: u64, budget: u64) -> Result<(), Stop> {
    if bound > budget {
        return Err(stop(m, format!("up to {bound} vertices over the memory budget ({budget} left)")));
    }
    Ok(())
}

/// The modifier's mod-context matrix; one shorter than a Matrix3 stops it.
pub(crate) fn context_of(m: &SceneObject<'_>, sm: &StackModifier<'_, '_>) -> Result<Mat4, Stop> {
    mod_context_tm(sm.mod_app).ok_or_else(|| stop(m, "mod-context matrix shorter than a Matrix3"))
}

/// Base object and modifiers (in application order, nearest the base first) under a
/// node's object reference. Bounded by the number of scene objects.
pub fn stack<'a, 'b>(
    index: &'b SceneIndex<'a>,
    node: &SceneObject<'a>,
) -> Option<(&'b SceneObject<'a>, Vec<&'b SceneObject<'a>>)> {
    let mut current = index.get(node.reference(1)?)?;
    let mut top_first = Vec::new();
    for _ in 0..=index.objects.len() {
        if !matches!(current.chunk.id, OSM_DERIVED | WSM_DERIVED) {
            top_first.reverse();
            return Some((current, top_first));
        }
        let refs: Vec<usize> = current.references().into_iter().filter_map(|(_, t)| t).collect();
        let (&last, rest) = refs.split_last()?;
        top_first.extend(rest.iter().filter_map(|&i| index.get(i)));
        current = index.get(last)?;
    }
    None
}

/// Chunk of a modifier's per-node data on its derived object (mod context, local data).
pub const MOD_APP: u16 = 0x2500;
/// Mod-context matrix inside [`MOD_APP`]: a Matrix3 (4 rows of 3 floats, Max's
/// row-vector convention) and a flags word.
pub const MOD_CONTEXT_TM: u16 = 0x2510;

/// One modifier on a node's stack with its per-node data.
#[derive(Clone, Copy, Debug)]
pub struct StackModifier<'b, 'a> {
    /// The modifier object.
    pub object: &'b SceneObject<'a>,
    /// Its [`MOD_APP`] chunk on the derived object: one per modifier position, in the
    /// derived object's reference order (design notes; checked on the corpus by the
    /// Symmetry and Edit Poly files).
    pub mod_app: Option<&'a Chunk<'a>>,
}

/// Like [`stack`], with each modifier's per-node data.
pub fn stack_with_data<'a, 'b>(
    index: &'b SceneIndex<'a>,
    node: &SceneObject<'a>,
) -> Option<(&'b SceneObject<'a>, Vec<StackModifier<'b, 'a>>)> {
    let mut current = index.get(node.reference(1)?)?;
    let mut top_first = Vec::new();
    for _ in 0..=index.objects.len() {
        if !matches!(current.chunk.id, OSM_DERIVED | WSM_DERIVED) {
            top_first.reverse();
            return Some((current, top_first));
        }
        let refs: Vec<usize> = current.references().into_iter().filter_map(|(_, t)| t).collect();
        let (&last, rest) = refs.split_last()?;
        let apps: Vec<&'a Chunk<'a>> = current.chunk.children().iter().filter(|c| c.id == MOD_APP).collect();
        for (k, &i) in rest.iter().enumerate() {
            if let Some(object) = index.get(i) {
                top_first.push(StackModifier { object, mod_app: apps.get(k).copied() });
            }
        }
        current = index.get(last)?;
    }
    None
}

/// Mod-context bounding box inside [`MOD_APP`]: min and max corners (6 floats).
pub const MOD_CONTEXT_BOX: u16 = 0x2511;

/// The mod-context box of a modifier (min, max); `None` when absent or short.
pub fn mod_context_box(mod_app: Option<&Chunk<'_>>) -> Option<(Vec3, Vec3)> {
    let p = mod_app?.child(MOD_CONTEXT_BOX)?.payload()?;
    let f: Vec<f32> = p.get(..24)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some((Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5])))
}

/// The mod-context matrix of a modifier (object space → modifier context), column-vector
/// form: identity when the chunk is absent (Max then applies none), `None` when it is
/// shorter than a Matrix3.
pub fn mod_context_tm(mod_app: Option<&Chunk<'_>>) -> Option<Mat4> {
    let Some(p) = mod_app.and_then(|c| c.child(MOD_CONTEXT_TM)).and_then(|c| c.payload()) else {
        return Some(Mat4::IDENTITY);
    };
    if p.len() < 48 {
        return None;
    }
    let f: Vec<f32> = p[..48].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // Row-vector rows 0–2 are the images of the axes, row 3 the translation: as columns.
    Some(Mat4::from_cols(
        Vec4::new(f[0], f[1], f[2], 0.0),
        Vec4::new(f[3], f[4], f[5], 0.0),
        Vec4::new(f[6], f[7], f[8], 0.0),
        Vec4::new(f[9], f[10], f[11], 1.0),
    ))
}

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
    let superclass = base.class.as_ref().map(|c| c.superclass);
    match superclass {
        Some(GEOM_OBJECT) if base.class.as_ref().is_some_and(|c| c.class_id == classes::TARGET_OBJECT) => {
            out.outcome = NodeOutcome::LeftOut("target object".into());
            return out;
        }
        Some(GEOM_OBJECT) => {}
        Some(SHAPE) if modifiers.is_empty() || base_only => {
            out.outcome = NodeOutcome::LeftOut("shape".into());
            return out;
        }
        // A Lathe directly on a spline shape builds the mesh the rest of the stack takes.
        Some(SHAPE) if modifiers[0].object.class.as_ref().is_some_and(|c| c.class_id == classes::LATHE) => {
            return evaluate_over_shape(index, base, &modifiers, budget, out);
        }
        Some(SHAPE) => {
            out.outcome = NodeOutcome::Stopped(stop(modifiers[0].object, "modifier over a shape"));
            return out;
        }
        Some(s) => {
            out.outcome = NodeOutcome::LeftOut(format!("superclass 0x{s:x}"));
            return out;
        }
        None => {
            out.outcome = NodeOutcome::Stopped(stop(base, "class not in the class directory"));
            return out;
        }
    }
    out.generated = !modifiers.is_empty() && !base_only;
    // Whether vertex and face indices are Max's own (stored meshes, and the builders
    // checked against Max's order): what Edit Poly selections and offsets index.
    // An Edit Poly directly on a cylinder or cone receives Max's poly conversion of it.
    let as_poly = !base_only
        && modifiers
            .first()
            .and_then(|m| m.object.class.as_ref())
            .is_some_and(|c| c.class_id == classes::EDIT_POLY_MOD)
        && base.class.as_ref().is_some_and(|c| classes::POLY_BUILT_IN_MAX_ORDER.contains(&c.class_id));
    let in_max_order = base.chunk.child(geometry::GEOM_BUFFERS).is_some()
        || base.class.as_ref().is_some_and(|c| classes::BUILT_IN_MAX_ORDER.contains(&c.class_id))
        || as_poly
        || tri_cylinder_in_max_order(index, base);
    // A tri object in Max's order whose own poly conversion is not checked (the Sphere):
    // what Edit Mesh indexes, not yet what an Edit Poly directly on it indexes. After an
    // Edit Mesh the input of a later Edit Poly is the generic tri → poly conversion of a tri
    // object, which keeps the order (`Well.max`: Box > Edit Mesh > Edit Poly).
    let tri_order =
        in_max_order || base.class.as_ref().is_some_and(|c| classes::TRI_BUILT_IN_MAX_ORDER.contains(&c.class_id));
    let built = if as_poly { evaluate_base_as_poly(index, base, budget) } else { evaluate_base(index, base, budget) };
    let current = match built {
        Ok(m) => {
            out.generated |= base.chunk.child(geometry::GEOM_BUFFERS).is_none();
            Evaluated::Mesh(m)
        }
        Err(s) => {
            out.outcome = NodeOutcome::Stopped(s);
            return out;
        }
    };
    if !base_only {
        let selection = super::selection::of_base(base);
        return apply_modifiers(index, &modifiers, current, budget, (in_max_order, tri_order), selection, out);
    }
    out.outcome = NodeOutcome::Evaluated(current);
    out
}

/// Applies `modifiers` in order to `current`, recording the outcome in `out`.
fn apply_modifiers(
    index: &SceneIndex<'_>,
    modifiers: &[StackModifier<'_, '_>],
    mut current: Evaluated,
    budget: u64,
    (mut in_max_order, mut tri_order): (bool, bool),
    mut selection: super::selection::Selection,
    mut out: NodeEval,
) -> NodeEval {
    // Whether a Normal modifier turned the faces over since the edges were numbered.
    let mut turned = false;
    for m in modifiers {
        let class_id = m.object.class.as_ref().map(|c| c.class_id);
        // An Edit Poly indexes the poly conversion, the other modifiers the tri object.
        let order = if class_id == Some(classes::EDIT_POLY_MOD) { in_max_order } else { tri_order };
        current = match apply_modifier(index, m, current, budget, order, &selection, turned) {
            Ok(next) => next,
            Err(s) => {
                out.outcome = NodeOutcome::Stopped(s);
                return out;
            }
        };
        out.modifiers += 1;
        turned ^= class_id == Some(super::normal::NORMAL_MODIFIER) && super::normal::flips(index, m.object);
        let keeps = class_id.and_then(classes::modifier_rule).is_some_and(ModifierRule::keeps_indices);
        if class_id == Some(classes::EDIT_MESH_MOD) {
            in_max_order = tri_order;
        }
        in_max_order &= keeps;
        tri_order &= keeps;
        let output = match &current {
            Evaluated::Mesh(mesh) => Some(mesh),
            Evaluated::CountOnly { .. } => None,
        };
        selection = super::selection::after_modifier(index, m, selection, output, in_max_order);
    }
    out.outcome = NodeOutcome::Evaluated(current);
    out
}

/// A spline shape under a Lathe ([`super::lathe::evaluate`]), then the modifiers above it.
fn evaluate_over_shape(
    index: &SceneIndex<'_>,
    base: &SceneObject<'_>,
    modifiers: &[StackModifier<'_, '_>],
    budget: u64,
    mut out: NodeEval,
) -> NodeEval {
    out.generated = true;
    match super::lathe::evaluate(index, base, &modifiers[0], budget) {
        Ok((mesh, in_max_order)) => {
            out.modifiers = 1;
            // The Lathe builds a new object: what sits above it sees the whole of it.
            let selection = super::selection::Selection::Object;
            apply_modifiers(
                index,
                &modifiers[1..],
                Evaluated::Mesh(mesh),
                budget,
                (in_max_order, in_max_order),
                selection,
                out,
            )
        }
        Err(s) => {
            out.outcome = NodeOutcome::Stopped(s);
            out
        }
    }
}

/// A stored tri / poly mesh as an [`EvalMesh`]: dead vertices dropped, poly faces keep the
/// triangles of their stored cuts.
pub fn from_stored(mesh: &geometry::Mesh) -> EvalMesh {
    let mut remap = vec![u32::MAX; mesh.positions.len()];
    let mut positions = Vec::with_capacity(mesh.positions.len());
    for (i, p) in mesh.positions.iter().enumerate() {
        if let Some(p) = p {
            remap[i] = positions.len() as u32;
            positions.push(Vec3::from_array(*p));
        }
    }
    let polygons = mesh
        .polygons
        .iter()
        .map(|p| {
            let corners: Vec<u32> = p.corners.iter().map(|&c| remap[c as usize]).collect();
            let triangles = if corners.len() > 3 {
                geometry::triangulate_by_cuts(corners.len(), &p.cuts)
                    .map(|t| t.iter().map(|t| t.map(|l| corners[l])).collect())
                    .unwrap_or_default()
            } else {
                Vec::new()
            };
            Polygon { corners, material: p.material.unwrap_or(0), smoothing: p.smoothing, triangles }
        })
        .collect();
    let rule = match mesh.kind {
        MeshKind::Tri => FaceRule::Triangles,
        MeshKind::Poly => FaceRule::Polygons,
    };
    EvalMesh { positions, polygons, uv: None, rule }
}

fn param_stop(o: &SceneObject<'_>, e: ParamError) -> Stop {
    stop(o, format!("parameters: {e}"))
}

fn prim_stop(o: &SceneObject<'_>, e: PrimitiveError) -> Stop {
    stop(o, e.to_string())
}

/// A cylinder or cone base as the poly object Max converts it to
/// ([`prim::cylinder_poly`]).
pub fn evaluate_base_as_poly(index: &SceneIndex<'_>, base: &SceneObject<'_>, budget: u64) -> Result<EvalMesh, Stop> {
    let q = cylinder_params(index, base)?;
    if q.vertices() > budget {
        return Err(stop(base, format!("{} vertices over the memory budget ({budget} left)", q.vertices())));
    }
    prim::cylinder_poly(&q).map_err(|e| prim_stop(base, e))
}

/// Whether `base` is a Cylinder whose tri mesh [`prim::cylinder_mesh`] builds in Max's
/// vertex and face order: checked with one cap segment (`guardTower.FBX`'s `Cylinder009`,
/// in order, and its `Cylinder001`, whose Edit Poly deletes face 91 of the poly conversion:
/// the top cap), not with more.
fn tri_cylinder_in_max_order(index: &SceneIndex<'_>, base: &SceneObject<'_>) -> bool {
    base.class.as_ref().is_some_and(|c| c.class_id == classes::CYLINDER)
        && cylinder_params(index, base).is_ok_and(|q| q.cap_segs == 1 && !q.slice)
}

/// Cylinder (radius, height, height segments, cap segments, sides, slice 6) and cone
/// (radius 1, radius 2, height, …, slice 7) parameters.
fn cylinder_params(index: &SceneIndex<'_>, base: &SceneObject<'_>) -> Result<prim::CylinderParams, Stop> {
    let p = Params::of(index, base, 0).map_err(|e| param_stop(base, e))?;
    let pe = |e: ParamError| param_stop(base, e);
    let class_id = base.class.as_ref().map(|c| c.class_id).unwrap_or_default();
    Ok(if class_id == classes::CONE {
        prim::CylinderParams {
            radius1: p.float(0).map_err(pe)?,
            radius2: p.float(1).map_err(pe)?,
            height: p.float(2).map_err(pe)?,
            height_segs: p.int(3).map_err(pe)?,
            cap_segs: p.int(4).map_err(pe)?,
            sides: p.int(5).map_err(pe)?,
            slice: p.int_or(7, 0).map_err(pe)? != 0,
        }
    } else {
        let r = p.float(0).map_err(pe)?;
        prim::CylinderParams {
            radius1: r,
            radius2: r,
            height: p.float(1).map_err(pe)?,
            height_segs: p.int(2).map_err(pe)?,
            cap_segs: p.int(3).map_err(pe)?,
            sides: p.int(4).map_err(pe)?,
            slice: p.int_or(6, 0).map_err(pe)? != 0,
        }
    })
}

/// The base object's mesh: stored buffers when it has them, else its primitive.
/// Primitives whose vertex count would exceed `budget` stop (named) before being built.
pub fn evaluate_base(index: &SceneIndex<'_>, base: &SceneObject<'_>, budget: u64) -> Result<EvalMesh, Stop> {
    match geometry::Mesh::of_object(base.chunk) {
        Ok(Some(m)) => return Ok(from_stored(&m)),
        Ok(None) => {}
        Err(e) => return Err(stop(base, format!("stored mesh: {e}"))),
    }
    let class_id = base.class.as_ref().map(|c| c.class_id).unwrap_or_default();
    let guard = |vertices: u64| {
        if vertices > budget {
            Err(stop(base, format!("{vertices} vertices over the memory budget ({budget} left)")))
        } else {
            Ok(())
        }
    };
    let p = || Params::of(index, base, 0).map_err(|e| param_stop(base, e));
    let pe = |e: ParamError| param_stop(base, e);
    let mesh = match class_id {
        classes::BOX => {
            let p = p()?;
            let q = prim::BoxParams {
                length: p.float(0).map_err(pe)?,
                width: p.float(1).map_err(pe)?,
                height: p.float(2).map_err(pe)?,
                width_segs: p.int(3).map_err(pe)?,
                length_segs: p.int(4).map_err(pe)?,
                height_segs: p.int(5).map_err(pe)?,
            };
            guard(q.vertices())?;
            prim::box_mesh(&q)
        }
        classes::PLANE => {
            let p = p()?;
            let q = prim::PlaneParams {
                length: p.float(0).map_err(pe)?,
                width: p.float(1).map_err(pe)?,
                length_segs: p.int(2).map_err(pe)?,
                width_segs: p.int(3).map_err(pe)?,
            };
            guard(q.vertices())?;
            prim::plane_mesh(&q)
        }
        classes::CYLINDER | classes::CONE => {
            let q = cylinder_params(index, base)?;
            guard(q.vertices())?;
            prim::cylinder_mesh(&q)
        }
        classes::TUBE => {
            let p = p()?;
            let q = prim::TubeParams {
                radius1: p.float(0).map_err(pe)?,
                radius2: p.float(1).map_err(pe)?,
                height: p.float(2).map_err(pe)?,
                // Parameter 3 is the sides and 5 the height segments: snow_tube.max stores
                // 18 / 1 / 5 (Max's default tube) and its NeL export has 18 sides, 5 rows.
                sides: p.int(3).map_err(pe)?,
                cap_segs: p.int(4).map_err(pe)?,
                height_segs: p.int(5).map_err(pe)?,
                slice: p.int_or(7, 0).map_err(pe)? != 0,
                smooth: p.int_or(6, 0).map_err(pe)? != 0,
                map_coords: p.int_or(10, 0).map_err(pe)? != 0,
            };
            guard(q.vertices())?;
            prim::tube_mesh(&q)
        }
        classes::TORUS => {
            let p = p()?;
            let q = prim::TorusParams {
                radius1: p.float(0).map_err(pe)?,
                radius2: p.float(1).map_err(pe)?,
                segments: p.int(4).map_err(pe)?,
                sides: p.int(5).map_err(pe)?,
                slice: p.int_or(7, 0).map_err(pe)? != 0,
                // Smooth (6) = 2 smooths every face: snow_torus.max stores 2 and its NeL
                // export is smooth everywhere (169 entries = 13 × 13 map seams only). The
                // other modes (sides / segments) are not measured and keep no groups.
                smooth_all: p.int_or(6, 0).map_err(pe)? == 2,
                map_coords: p.int_or(10, 0).map_err(pe)? != 0,
            };
            guard(q.vertices())?;
            prim::torus_mesh(&q)
        }
        classes::SPHERE => {
            let p = p()?;
            // Parameters later releases added are absent from older blocks: Max's defaults.
            let float_or = |id: u16| match p.float(id) {
                Err(ParamError::Missing(_)) => Ok(0.0),
                other => other,
            };
            let q = prim::SphereParams {
                radius: p.float(0).map_err(pe)?,
                segments: p.int(1).map_err(pe)?,
                smooth: p.int_or(2, 0).map_err(pe)? != 0,
                hemisphere: float_or(3).map_err(pe)?,
                squash: p.int_or(4, 0).map_err(pe)? != 0,
                base_to_pivot: p.int_or(5, 0).map_err(pe)? != 0,
                slice: p.int_or(7, 0).map_err(pe)? != 0,
                slice_from: float_or(8).map_err(pe)?,
                slice_to: float_or(9).map_err(pe)?,
                // The sphere's own chunk 0x0100 (the SDK sample's "new map" chunk).
                quarter_turn: base.chunk.child(prim::SPHERE_NEW_MAP).is_some(),
            };
            guard(q.vertices())?;
            prim::sphere_mesh(&q)
        }
        classes::PYRAMID => {
            let p = p()?;
            let q = super::pyramid::PyramidParams {
                width: p.float(0).map_err(pe)?,
                depth: p.float(1).map_err(pe)?,
                height: p.float(2).map_err(pe)?,
                width_segs: p.int(3).map_err(pe)?,
                depth_segs: p.int(4).map_err(pe)?,
                height_segs: p.int(5).map_err(pe)?,
            };
            guard(q.vertices())?;
            super::pyramid::pyramid_mesh(&q)
        }
        classes::GEOSPHERE => {
            let p = p()?;
            let base = match p.int(2).map_err(pe)? {
                0 => prim::GeoBase::Tetra,
                1 => prim::GeoBase::Octa,
                _ => prim::GeoBase::Icosa,
            };
            let q = prim::GeoSphereParams {
                radius: p.float(0).map_err(pe)?,
                segments: p.int(1).map_err(pe)?,
                base,
                hemisphere: p.int_or(3, 0).map_err(pe)? != 0,
            };
            guard(q.vertices())?;
            prim::geosphere_mesh(&q)
        }
        classes::BONE => {
            let p = p()?;
            // Side (4), front (8) and back (12) fin switches.
            let fins = [4, 8, 12].iter().any(|&id| p.int_or(id, 0) != Ok(0));
            let q = prim::BoneParams {
                width: p.float(0).map_err(pe)?,
                height: p.float(1).map_err(pe)?,
                taper: p.float(2).map_err(pe)?,
                length: p.float(3).map_err(pe)?,
                fins,
            };
            guard(q.vertices())?;
            prim::bone_mesh(&q)
        }
        super::boolean::PROBOOLEAN => {
            return super::boolean::proboolean_result(base).map_err(|e| stop(base, e.to_string()))
        }
        _ => return Err(stop(base, "object class not evaluated")),
    };
    mesh.map_err(|e| prim_stop(base, e))
}

fn apply_modifier(
    index: &SceneIndex<'_>,
    sm: &StackModifier<'_, '_>,
    input: Evaluated,
    budget: u64,
    in_max_order: bool,
    selection: &Selection,
    turned: bool,
) -> Result<Evaluated, Stop> {
    let m = sm.object;
    let Some(class) = m.class.as_ref() else { return Err(stop(m, "class not in the class directory")) };
    let Some(rule) = classes::modifier_rule(class.class_id) else {
        return Err(stop(m, "modifier not evaluated"));
    };
    Ok(match rule {
        // UVW Map: topology passes through; a planar map of the measured kind is projected.
        ModifierRule::PassThrough if class.class_id == classes::UVW_MAP => match input {
            Evaluated::Mesh(mesh) => match super::uvw_map::planar_settings(index, m) {
                Ok(planar) => Evaluated::Mesh(super::uvw_map::apply_planar(mesh, &planar)),
                Err(_) => Evaluated::Mesh(mesh),
            },
            other => other,
        },
        ModifierRule::PassThrough if class.class_id == super::normal::NORMAL_MODIFIER => match input {
            Evaluated::Mesh(mesh) => {
                let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
                let pe = |e| param_stop(m, e);
                let (unify, flip) = (params.int_or(0, 0).map_err(pe)?, params.int_or(1, 0).map_err(pe)?);
                Evaluated::Mesh(super::normal::apply(mesh, unify, flip).map_err(|e| stop(m, e))?)
            }
            other => other,
        },
        ModifierRule::PassThrough => input,
        ModifierRule::EditPoly => {
            let ops = edit_poly::operations(sm.mod_app).map_err(|e| stop(m, e))?;
            let ids: Vec<u32> = ops.iter().map(|o| o.id).collect();
            let current =
                Params::of(index, m, 0).map_err(|e| param_stop(m, e))?.int_or(0, 0).map_err(|e| param_stop(m, e))?;
            let mut changing: Vec<u32> = edit_poly::topology_operations(&ids)
                .into_iter()
                .filter(|id| !edit_poly::REPLAYED_OPERATIONS.iter().any(|(r, _)| r == id))
                .collect();
            // The operation still being edited (not committed) has no stored records.
            if edit_poly::topology_operations(&[current as u32]).len() == 1 {
                changing.push(current as u32);
            }
            if !changing.is_empty() {
                return Err(stop(m, format!("operations that change the topology are not replayed: {changing:?}")));
            }
            let indexed: Vec<u32> = ops.iter().filter(|o| edit_poly::uses_indices(o)).map(|o| o.id).collect();
            if !in_max_order && !indexed.is_empty() {
                // Offsets alone keep the counts: those are known, the positions are not.
                if indexed.iter().all(|&id| id == 53) && edit_poly::topology_operations(&ids).is_empty() {
                    let (counts, rule) = to_poly(input).counts_and_rule();
                    return Ok(Evaluated::CountOnly {
                        counts,
                        rule,
                        note: "Edit Poly vertex offsets index Max's vertex order, which this input's builder is not \
                               checked to follow: positions not known"
                            .into(),
                    });
                }
                return Err(stop(
                    m,
                    format!(
                        "operations {indexed:?} index vertices or faces, and this input is not built in Max's order"
                    ),
                ));
            }
            match input {
                Evaluated::Mesh(mesh) => Evaluated::Mesh(
                    edit_poly::replay_after_flips(mesh.into_poly(), &ops, turned).map_err(|e| stop(m, e))?,
                ),
                other if edit_poly::topology_operations(&ids).is_empty() => to_poly(other),
                Evaluated::CountOnly { .. } => return Err(stop(m, "input known by its counts only")),
            }
        }
        ModifierRule::ToPoly => to_poly(input),
        ModifierRule::Bend | ModifierRule::Taper => {
            let params = Params::of(index, m, 2).map_err(|e| param_stop(m, e))?;
            let pe = |e| param_stop(m, e);
            let (limits_id, axis_id) = if rule == ModifierRule::Bend { (3, 2) } else { (5, 2) };
            if params.int_or(limits_id, 0).map_err(pe)? != 0 {
                return Err(stop(m, "limits (from / to) are not evaluated"));
            }
            let axis = params.int(axis_id).map_err(pe)?;
            let axis = usize::try_from(axis)
                .ok()
                .filter(|a| *a < 3)
                .ok_or_else(|| stop(m, format!("axis {axis} not evaluated")))?;
            let gizmo = prs_matrix(index, m.reference(0)).map_err(|e| stop(m, format!("gizmo: {e}")))?;
            let centre = match m.reference(1) {
                None => Vec3::ZERO,
                slot => position_default(index, slot).map_err(|e| stop(m, format!("centre: {e}")))?,
            };
            let context = context_of(m, sm)?;
            let (low, high) = mod_context_box(sm.mod_app).ok_or_else(|| stop(m, "mod-context box missing"))?;
            let to_gizmo = Mat4::from_translation(-centre) * gizmo.inverse() * context;
            let extent = (high - low).to_array();
            let Evaluated::Mesh(mesh) = input else { return Ok(input) };
            // Only the selection passed up the stack moves (`super::selection`); one not
            // known leaves the counts known and the positions not.
            let only = match selection.deformed(mesh.positions.len()) {
                Ok(only) => only,
                Err(why) => {
                    return Ok(Evaluated::CountOnly {
                        counts: mesh.counts(),
                        rule: mesh.rule,
                        note: format!("{}: {why}; positions not known", class.name),
                    })
                }
            };
            Evaluated::Mesh(if rule == ModifierRule::Bend {
                super::deform::bend(
                    mesh,
                    &super::deform::BendParams {
                        angle: params.float(0).map_err(pe)?,
                        direction: params.float(1).map_err(pe)?,
                        axis,
                        to_gizmo,
                        extent,
                    },
                    only,
                )
            } else {
                let effect = params.int(3).map_err(pe)?;
                let effect = u8::try_from(effect)
                    .ok()
                    .filter(|e| *e < 3)
                    .ok_or_else(|| stop(m, format!("effect axis {effect} not evaluated")))?;
                super::deform::taper(
                    mesh,
                    &super::deform::TaperParams {
                        amount: params.float(0).map_err(pe)?,
                        curve: params.float(1).map_err(pe)?,
                        axis,
                        effect,
                        symmetry: params.int_or(4, 0).map_err(pe)? != 0,
                        to_gizmo,
                        extent,
                    },
                    only,
                )
            })
        }
        ModifierRule::Ripple => {
            // Parameters animated or unreadable: the topology is known, the positions are not.
            let params = match Params::of(index, m, 2) {
                Ok(p) => p,
                Err(e) => return Ok(counts_only(input, format!("Ripple parameters not evaluated: {e}"))),
            };
            let values: Result<Vec<f32>, ParamError> = (0..5).map(|id| params.float(id)).collect();
            let values = match values {
                Ok(v) => v,
                Err(e) => return Ok(counts_only(input, format!("Ripple parameter not evaluated: {e}"))),
            };
            // The simple-modifier frame, as for Bend: gizmo (reference 0), centre (1).
            let gizmo = prs_matrix(index, m.reference(0)).map_err(|e| stop(m, format!("gizmo: {e}")))?;
            let centre = match m.reference(1) {
                None => Vec3::ZERO,
                slot => position_default(index, slot).map_err(|e| stop(m, format!("centre: {e}")))?,
            };
            let context = context_of(m, sm)?;
            let p = super::ripple::RippleParams {
                amplitude1: values[0],
                amplitude2: values[1],
                wave_length: values[2],
                phase: values[3],
                decay: values[4],
                to_gizmo: Mat4::from_translation(-centre) * gizmo.inverse() * context,
            };
            match input {
                Evaluated::Mesh(mesh) => Evaluated::Mesh(super::ripple::ripple(mesh, &p)),
                other => other,
            }
        }
        ModifierRule::Mirror => {
            let params = Params::of(index, m, 1).map_err(|e| param_stop(m, e))?;
            let pe = |e| param_stop(m, e);
            let axis = params.int(0).map_err(pe)?;
            let axis = usize::try_from(axis)
                .ok()
                .filter(|a| *a < 6)
                .ok_or_else(|| stop(m, format!("mirror axis {axis} not evaluated")))?;
            let gizmo = prs_matrix(index, m.reference(0)).map_err(|e| stop(m, format!("mirror gizmo: {e}")))?;
            // Mirror's handling of a sub-object selection is not evaluated.
            if !matches!(selection, Selection::Object) {
                return Err(stop(m, "a sub-object selection below Mirror is not evaluated"));
            }
            let context = context_of(m, sm)?;
            let p = super::deform::MirrorParams {
                axis,
                copy: params.int(1).map_err(pe)? != 0,
                offset: params.float(2).map_err(pe)?,
                to_gizmo: gizmo.inverse() * context,
            };
            Evaluated::Mesh(super::deform::mirror(mesh_of(m, input)?, &p))
        }
        ModifierRule::EditMesh => Evaluated::Mesh(
            super::edit_mesh::apply(sm.mod_app, mesh_of(m, input)?, in_max_order).map_err(|e| stop(m, e))?,
        ),
        ModifierRule::ToMesh => match input {
            Evaluated::Mesh(mut mesh) => {
                mesh.rule = FaceRule::Triangles;
                // Cloth: its saved simulation state, when it has one vertex per input vertex.
                if let Some(p) =
                    super::cloth::simulated_positions(sm.mod_app).filter(|p| p.len() == mesh.positions.len())
                {
                    mesh.positions = p;
                }
                Evaluated::Mesh(mesh)
            }
            Evaluated::CountOnly { counts, note, .. } => {
                Evaluated::CountOnly { counts, rule: FaceRule::Triangles, note }
            }
        },
        ModifierRule::Shell => {
            let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
            let pe = |e| param_stop(m, e);
            let segments = params.int(3).map_err(pe)?;
            let segments = u32::try_from(segments)
                .ok()
                .filter(|s| (1..=1000).contains(s))
                .ok_or_else(|| stop(m, format!("segments {segments} out of range")))?;
            let p = ShellParams { inner: params.float(0).map_err(pe)?, outer: params.float(1).map_err(pe)?, segments };
            let mesh = mesh_of(m, input)?;
            // Upper bound of the result (every vertex on the border).
            within_budget(m, (mesh.positions.len() as u64).saturating_mul(u64::from(segments) + 1), budget)?;
            Evaluated::Mesh(shell(mesh, &p))
        }
        ModifierRule::Symmetry => {
            let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
            let pe = |e| param_stop(m, e);
            let axis = params.int(0).map_err(pe)?;
            let axis = usize::try_from(axis)
                .ok()
                .filter(|a| *a < 3)
                .ok_or_else(|| stop(m, format!("mirror axis {axis} not evaluated")))?;
            let gizmo = prs_matrix(index, m.reference(1)).map_err(|e| stop(m, format!("mirror gizmo: {e}")))?;
            let p = SymmetryParams {
                gizmo: context_of(m, sm)?.inverse() * gizmo,
                axis,
                flip: params.int_or(4, 0).map_err(pe)? != 0,
                slice: params.int_or(1, 1).map_err(pe)? != 0,
                weld: params.int_or(2, 1).map_err(pe)? != 0,
                threshold: params
                    .float(3)
                    .or_else(|e| if matches!(e, ParamError::Missing(_)) { Ok(0.1) } else { Err(e) })
                    .map_err(pe)?,
            };
            let mesh = mesh_of(m, input)?;
            within_budget(m, (mesh.positions.len() as u64).saturating_mul(3), budget)?;
            Evaluated::Mesh(symmetry(mesh, &p))
        }
        ModifierRule::MeshSmooth => {
            // Parameter ids as the corpus files store them: 9 subdivision method (0
            // classic, 1 quad output, 2 NURMS), 4 iterations, 2 smoothness.
            let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
            let pe = |e| param_stop(m, e);
            let method = params.int(9).map_err(pe)?;
            let iterations = params.int(4).map_err(pe)?;
            let iterations = u32::try_from(iterations)
                .ok()
                .filter(|&i| i <= 10)
                .ok_or_else(|| stop(m, format!("iterations {iterations} out of range")))?;
            let smoothness = params.float(2).map_err(pe)?;
            if iterations > 0 && (method == 0 || smoothness < 1.0) {
                return Err(stop(
                    m,
                    format!("method {method} with smoothness {smoothness} is not evaluated (NURMS / quad output at 1.0 only)"),
                ));
            }
            meshsmooth(input, iterations, budget)
        }
        ModifierRule::TurboSmooth => {
            let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
            let iterations = params.int(0).map_err(|e| param_stop(m, e))?;
            let iterations = u32::try_from(iterations)
                .ok()
                .filter(|&i| i <= 10)
                .ok_or_else(|| stop(m, format!("iterations {iterations} out of range")))?;
            turbosmooth(input, iterations, budget)
        }
    })
}

/// The input's counts without positions (a deformer whose case is not evaluated), with
/// the reason.
fn counts_only(input: Evaluated, note: String) -> Evaluated {
    let (counts, rule) = input.counts_and_rule();
    Evaluated::CountOnly { counts, rule, note }
}

/// The input as a poly object (counts kept, faces counted as polygons).
fn to_poly(input: Evaluated) -> Evaluated {
    match input {
        Evaluated::Mesh(mesh) => Evaluated::Mesh(mesh.into_poly()),
        Evaluated::CountOnly { counts, note, .. } => Evaluated::CountOnly { counts, rule: FaceRule::Polygons, note },
    }
}

/// The matrix of a Position/Rotation/Scale controller from its sub-controllers' defaults
/// (a modifier gizmo); identity when the slot is empty (Max creates the controller on
/// first edit).
pub(crate) fn prs_matrix(index: &SceneIndex<'_>, slot: Option<usize>) -> Result<Mat4, ControllerError> {
    let Some(ctrl) = slot.and_then(|i| index.get(i)) else { return Ok(Mat4::IDENTITY) };
    let (scale, scale_axis) = scale_default(index, ctrl.reference(2))?;
    let t = LocalTransform {
        translation: position_default(index, ctrl.reference(0))?,
        rotation: rotation_default(index, ctrl.reference(1))?.normalize(),
        scale,
        scale_axis,
    };
    Ok(t.matrix())
}

/// MeshSmooth (NURMS or quad output, smoothness 1): Catmull-Clark like TurboSmooth, but the
/// result keeps the input's type — a poly input comes out a poly object (measured: Editable
/// Poly under MeshSmooth in `wild/snubblejr__woman.max`, `wild/buwaka__poltrona-swan.max`,
/// `public/uholnik__room.max` counts the subdivided quads as polygons; under a Shell in
/// `wild/langwenchong__project.max`), a tri input a tri object (the output follows the input
/// type, as Symmetry's does; no corpus file has a tri input).
pub fn meshsmooth(input: Evaluated, iterations: u32, budget: u64) -> Evaluated {
    let rule = input.counts_and_rule().1;
    match turbosmooth(input, iterations, budget) {
        Evaluated::Mesh(mut mesh) => {
            mesh.rule = rule;
            Evaluated::Mesh(mesh)
        }
        Evaluated::CountOnly { counts, note, .. } => Evaluated::CountOnly { counts, rule, note },
    }
}

/// TurboSmooth: the input as a poly object, subdivided `iterations` times — as a mesh when
/// the result fits the budget, as counts otherwise. Max counts the result's faces as
/// triangles (measured: `pairs/…/cake.max`, three Editable Poly cylinders under TurboSmooth
/// with 396 quads each, Mesh Totals 2,376 faces = 3 × 792; `wild/radobaychev__couch.max`).
pub fn turbosmooth(input: Evaluated, iterations: u32, budget: u64) -> Evaluated {
    match input {
        Evaluated::Mesh(mesh) => {
            let poly = mesh.into_poly();
            let predicted = catmull_clark_counts(poly.counts(), iterations);
            if predicted.vertices > budget {
                return Evaluated::CountOnly {
                    counts: predicted,
                    rule: FaceRule::Triangles,
                    note: format!(
                        "TurboSmooth x{iterations}: {} vertices over the {budget}-vertex budget, counted without a mesh",
                        predicted.vertices
                    ),
                };
            }
            let mut out = poly;
            for _ in 0..iterations {
                out = catmull_clark(&out);
            }
            out.rule = FaceRule::Triangles;
            Evaluated::Mesh(out)
        }
        Evaluated::CountOnly { counts, note, .. } => {
            Evaluated::CountOnly { counts: catmull_clark_counts(counts, iterations), rule: FaceRule::Triangles, note }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitives::{box_mesh, BoxParams};

    fn unit_box() -> EvalMesh {
        box_mesh(&BoxParams { length: 1.0, width: 1.0, height: 1.0, length_segs: 1, width_segs: 1, height_segs: 1 })
            .unwrap()
    }

    #[test]
    fn mod_context_matrix_rows_become_columns() {
        // Row-vector Matrix3 rows: X → (0, 1, 0), Y → (−1, 0, 0), Z → (0, 0, 2), translation
        // (5, 6, 7), then the 4-byte flags word: 52 bytes. (1, 0, 0) maps to (5, 7, 7);
        // (0, 1, 0) to (4, 6, 7); (0, 0, 1) to (5, 6, 9).
        let floats = [0.0f32, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 5.0, 6.0, 7.0];
        let mut payload: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        payload.extend([0u8; 4]);
        let app = Chunk::container(MOD_APP, vec![Chunk::leaf(MOD_CONTEXT_TM, payload)]);
        let m = mod_context_tm(Some(&app)).unwrap();
        assert_eq!(m.transform_point3(Vec3::X), Vec3::new(5.0, 7.0, 7.0));
        assert_eq!(m.transform_point3(Vec3::Y), Vec3::new(4.0, 6.0, 7.0));
        assert_eq!(m.transform_point3(Vec3::Z), Vec3::new(5.0, 6.0, 9.0));
        // Absent: identity (Max applies no mod context); short: unreadable, not guessed.
        assert_eq!(mod_context_tm(None), Some(Mat4::IDENTITY));
        let short = Chunk::container(MOD_APP, vec![Chunk::leaf(MOD_CONTEXT_TM, vec![0u8; 20])]);
        assert_eq!(mod_context_tm(Some(&short)), None);
    }

    #[test]
    fn meshsmooth_keeps_the_input_type_turbosmooth_gives_triangles() {
        // A 1-segment box: V 8, E 12, 6 quads (12 triangles). One Catmull-Clark step:
        // V' = 8 + 12 + 6 = 26, quads' = 4 · 6 = 24 (48 triangles).
        let tri = meshsmooth(Evaluated::Mesh(unit_box()), 1, 1_000);
        let (c, rule) = tri.counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule), rule), (26, 48, FaceRule::Triangles));
        let poly = meshsmooth(Evaluated::Mesh(unit_box().into_poly()), 1, 1_000);
        let (c, rule) = poly.counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule), rule), (26, 24, FaceRule::Polygons));
        let ts = turbosmooth(Evaluated::Mesh(unit_box().into_poly()), 1, 1_000);
        let (c, rule) = ts.counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule)), (26, 48));
        // Over the budget: counted, not built, the type kept. Two steps: V'' = 26 + 48 + 24
        // = 98 (E' = 2·12 + 24 = 48).
        match meshsmooth(Evaluated::Mesh(unit_box().into_poly()), 2, 50) {
            Evaluated::CountOnly { counts, rule, .. } => {
                assert_eq!((counts.vertices, counts.polygons, rule), (98, 96, FaceRule::Polygons))
            }
            other => panic!("expected counts only, got {other:?}"),
        }
    }
}
