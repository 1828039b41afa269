//! `geometry`: every reference mesh against pmcore's evaluated mesh of its Max node —
//! counts, positions (in order or as point sets), polygon corners and map channel 1.

use super::axes::conversions;
use super::matching::Pair;
use super::matrices::to_dmat;
use super::mesh_match::{compare_uv, match_as_set, same_cycle};
use super::modifiers::moving_modifier;
use super::outcome::{fail, locator, Comparison};
use super::tolerances::POSITION_TOLERANCE;
use crate::scene::{Format, RefMesh, RefNode, RefScene};
use glam::{DMat4, DVec3};
use pmcore::eval::mesh::MapChannel;
use pmcore::eval::{EvalMesh, Evaluated, FaceRule, NodeOutcome};
use pmcore::model::controllers::{object_offset, world_matrix};
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The name this comparison reports under.
pub(super) const NAME: &str = "geometry";

/// Why one reference mesh was not compared, or how it differed.
#[derive(Clone, Debug, serde::Serialize)]
struct MeshMiss {
    node: String,
    class: &'static str,
    reason: String,
}

/// Axis conversions a file that declares none is tried under (OBJ, `.x`): none, and the
/// Z-up-to-Y-up turn `(x, y, z) → (x, z, −y)` (the OBJ exporter's "Flip YZ"). The one that
/// fits is reported; FBX files use their declared settings only.
pub(super) fn compare(pair: &Pair<'_, '_, '_>) -> Comparison {
    let reference = pair.reference;
    let candidates: Vec<(DMat4, String)> = match reference.format {
        Format::Fbx(_) => {
            vec![(DMat4::IDENTITY, "FBX: vertices in Max object axes and units (conversion on root nodes only)".into())]
        }
        _ => conversions(reference).unwrap_or_default().into_iter().map(|c| (c.matrix, c.note)).collect(),
    };
    let mut best: Option<(Comparison, (usize, f64))> = None;
    for (conv, note) in candidates {
        let (mut c, score) = geometry_under(pair, conv);
        if let Value::Object(map) = &mut c.detail {
            map.insert("axes".into(), json!(note));
        }
        if best.as_ref().is_none_or(|(_, s)| score.0 > s.0 || (score.0 == s.0 && score.1 < s.1)) {
            best = Some((c, score));
        }
    }
    best.expect("at least one candidate").0
}

/// Geometry under one axis conversion `conv`; the score is (meshes passed, worst error).
fn geometry_under(pair: &Pair<'_, '_, '_>, conv: DMat4) -> (Comparison, (usize, f64)) {
    let mut tally = Tally::default();
    for (r, node) in pair.reference.nodes.iter().enumerate() {
        let Some(mesh) = &node.mesh else { continue };
        tally.meshes += 1;
        compare_mesh(pair, conv, r, mesh, &mut tally);
    }
    tally.report(pair.reference)
}

/// Counters of one conversion's meshes, the meshes not compared or differing, and the first
/// difference.
#[derive(Default)]
struct Tally {
    meshes: usize,
    passed: usize,
    vertices_compared: usize,
    triangulated_meshes: usize,
    matched_as_set: usize,
    uv_compared: usize,
    uv_not_in_max: usize,
    other_corners: Vec<String>,
    max_error: f64,
    misses: Vec<MeshMiss>,
    first: Option<Verdict>,
    first_detail: Value,
    real_fail: bool,
}

/// Max's side of one reference mesh: pmcore's evaluated mesh, placed in the reference's axes.
struct MaxSide {
    /// Positions, placed.
    live: Vec<DVec3>,
    /// Polygons; Max's triangles per face when the export is triangulated.
    polygons: Vec<Vec<u32>>,
    /// Map channel 1, when the evaluation knows it.
    uv: Option<MapChannel>,
    /// Every reference polygon a triangle while Max has larger faces.
    triangulated: bool,
    /// What the mesh is and the modifiers evaluated (`poly object with 2 modifier(s)
    /// evaluated`), for messages.
    label: String,
}

/// One reference mesh (node `r`) against Max's.
fn compare_mesh(pair: &Pair<'_, '_, '_>, conv: DMat4, r: usize, mesh: &RefMesh, tally: &mut Tally) {
    let (tree, reference) = (pair.tree, pair.reference);
    let node = &reference.nodes[r];
    let miss = |class: &'static str, reason: String| MeshMiss { node: node.name.clone(), class, reason };
    let Some(mx) = pair.matching.max_of[r] else {
        tally.misses.push(miss("no-max-node", "no Max node of that name".into()));
        return;
    };
    let index = tree.index;
    let o = &index.objects[tree.nodes[mx].storage];
    let deformer = moving_modifier(index, o, &reference.format);
    let side = match max_side(pair, o, conv, mesh) {
        Ok(side) => side,
        Err((class, reason)) => return tally.misses.push(miss(class, reason)),
    };
    if side.triangulated {
        tally.triangulated_meshes += 1;
    }
    let resolution = reference.position_resolution.unwrap_or(0.0) * 3f64.sqrt();
    match difference(node, mesh, &side, resolution, tally) {
        None => tally.passed += 1,
        Some(("positions", message)) if deformer.is_some() => {
            // Counts agree; pmcore::eval passes this modifier's topology through
            // without moving the vertices, so Max's positions are not known here.
            let (class_id, class_name) = deformer.unwrap_or_default();
            tally.misses.push(miss(
                "deformer-not-evaluated",
                format!(
                    "{class_name} (0x{:08x}, 0x{:08x}) moves vertices and pmcore::eval passes it through: positions not comparable ({message})",
                    class_id[0], class_id[1]
                ),
            ));
        }
        Some((what, message)) => {
            tally.real_fail = true;
            if tally.first.is_none() {
                let message = format!("mesh {:?}: {message}", node.name);
                tally.first = Some(fail("t3-pairs-geometry", message, locator(pair.name, node), node.offset));
            }
            tally.misses.push(miss(what_class(what), message));
        }
    }
}

/// Max's mesh of node object `o` for reference mesh `mesh`, placed under `conv`; or the miss
/// class and reason why there is none.
fn max_side(
    pair: &Pair<'_, '_, '_>,
    o: &pmcore::model::scene_index::SceneObject<'_>,
    conv: DMat4,
    mesh: &RefMesh,
) -> Result<MaxSide, (&'static str, String)> {
    let index = pair.tree.index;
    let (max_mesh, modifiers) = evaluated_mesh(index, o)?;
    // OBJ has no per-node transforms: its vertices are in world space.
    let place = if matches!(pair.reference.format, Format::Obj) {
        match world_matrix(index, o) {
            Ok(w) => to_dmat(w) * to_dmat(object_offset(o).matrix()),
            Err(e) => return Err(("transform-unreadable", e.to_string())),
        }
    } else {
        to_dmat(object_offset(o).matrix())
    };
    let place = conv * place;
    let live: Vec<DVec3> = max_mesh.positions.iter().map(|p| place.transform_point3(p.as_dvec3())).collect();
    // A triangulated export (every reference polygon a triangle) is compared with the
    // triangles Max keeps for each face.
    let triangulated =
        mesh.polygons.iter().all(|p| p.len() == 3) && max_mesh.polygons.iter().any(|p| p.corners.len() > 3);
    let polygons: Vec<Vec<u32>> = if triangulated {
        max_mesh.polygons.iter().flat_map(|p| p.mesh_triangles()).map(|t| t.to_vec()).collect()
    } else {
        max_mesh.polygons.iter().map(|p| p.corners.clone()).collect()
    };
    let kind = match (max_mesh.rule, triangulated) {
        (FaceRule::Triangles, _) => "tri object",
        (FaceRule::Polygons, false) => "poly object",
        (FaceRule::Polygons, true) => "poly object (triangulated export)",
    };
    let stack_note = if modifiers > 0 { format!(" with {modifiers} modifier(s) evaluated") } else { String::new() };
    // A tri object's UVs are not compared: the stored tri map channel (0x2394 / 0x2396) that
    // the evaluation carries for MeshSmooth and the NeL shape exporter (checked against the
    // NeL exporter's `.shape` files) disagrees with 3ds Max's FBX on four pairs (`macgyverlin__4`,
    // `__5` `Table`, `Podium` `Box003`, `Door and room` `Object001`), cause not found; they count
    // in `meshes_uv_not_evaluated_in_max`, as before the channel was carried.
    let uv = if max_mesh.rule == FaceRule::Triangles { None } else { max_mesh.uv };
    Ok(MaxSide { live, polygons, uv, triangulated, label: format!("{kind}{stack_note}") })
}

/// The evaluated mesh of node object `o` (pmcore::eval: stored buffers or primitive
/// parameters, then the modifier stack) and the number of modifiers evaluated; or the miss
/// class and reason why there is none.
fn evaluated_mesh(
    index: &pmcore::model::scene_index::SceneIndex<'_>,
    o: &pmcore::model::scene_index::SceneObject<'_>,
) -> Result<(EvalMesh, usize), (&'static str, String)> {
    let evaluated = pmcore::eval::evaluate_node(index, o, pmcore::eval::DEFAULT_BUDGET_VERTICES, false);
    match evaluated.outcome {
        NodeOutcome::Evaluated(Evaluated::Mesh(mm)) => Ok((mm, evaluated.modifiers)),
        NodeOutcome::Evaluated(Evaluated::CountOnly { note, .. }) => {
            Err(("count-only", format!("counts only, no positions: {note}")))
        }
        NodeOutcome::Stopped(stop) => Err((
            "not-evaluated",
            format!(
                "evaluation stopped at {} (0x{:08x}, 0x{:08x}): {}",
                stop.class_name, stop.class_id[0], stop.class_id[1], stop.why
            ),
        )),
        NodeOutcome::LeftOut(why) => Err(("no-geometry", format!("the Max node is not geometry ({why})"))),
    }
}

/// How Max's mesh differs from the reference's — `counts`, `positions` or `uv`, with the
/// message — or `None` when they agree (in order, as point sets, or joining the same points
/// into other polygons, which is counted in `tally`).
fn difference(
    node: &RefNode,
    mesh: &RefMesh,
    side: &MaxSide,
    resolution: f64,
    tally: &mut Tally,
) -> Option<(&'static str, String)> {
    let (live, max_polys, label) = (&side.live, &side.polygons, &side.label);
    let counts = (live.len(), max_polys.len(), mesh.positions.len(), mesh.polygons.len());
    if counts.0 != counts.2 || counts.1 != counts.3 {
        let ref_tris: usize = mesh.polygons.iter().map(|p| p.len().saturating_sub(2)).sum();
        let max_tris: usize = max_polys.iter().map(|p| p.len().saturating_sub(2)).sum();
        return Some((
            "counts",
            format!(
                "{label}: vertices {} vs reference {}, polygons {} vs {} (triangles {} vs {})",
                counts.0, counts.2, counts.1, counts.3, max_tris, ref_tris
            ),
        ));
    }
    let reference_positions: Vec<DVec3> =
        mesh.positions.iter().map(|q| node.geometric.transform_point3(DVec3::from_array(*q))).collect();
    // Max rounds every vertex to f32 through matrices whose magnitude is the mesh's:
    // the error of a vertex near the origin scales with the mesh's extent, not with
    // its own length (cancellation), so the relative tolerance is taken against the
    // larger of the two.
    let extent = reference_positions.iter().chain(live).fold(1.0f64, |m, p| m.max(p.abs().max_element()));
    let tolerance = |e: DVec3, a: DVec3| POSITION_TOLERANCE * e.length().max(a.length()).max(extent) + resolution;
    let worst = worst_vertex(live, &reference_positions, tolerance);
    tally.vertices_compared += live.len();
    let in_order = worst.0 <= 1.0 && max_polys.iter().zip(&mesh.polygons).all(|(a, b)| same_cycle(a, b));
    if in_order {
        tally.max_error = tally.max_error.max(worst.1);
        uv_difference(mesh, side, tally)
    } else if let Some((err, polygons_equal)) =
        match_as_set(live, max_polys, &reference_positions, &mesh.polygons, tolerance)
    {
        // Same points and faces in another order (pmcore's primitive builders do not
        // follow Max's vertex order): equal as geometry, counted.
        tally.max_error = tally.max_error.max(err);
        tally.matched_as_set += 1;
        if !polygons_equal {
            // Counts and positions agree; the faces join the same points another way
            // (e.g. quads split along the other diagonal): reported, not a count or
            // position difference.
            tally.other_corners.push(node.name.clone());
        }
        None
    } else if worst.0 > 1.0 {
        tally.max_error = tally.max_error.max(worst.1);
        let i = worst.2;
        let (e, a) = (live[i], reference_positions[i]);
        if tally.first_detail.is_null() {
            tally.first_detail =
                json!({ "node": node.name, "vertex": i, "max": e.to_array(), "reference": a.to_array() });
        }
        Some((
            "positions",
            format!(
                "{label}: vertex {i} at {:?} in Max, {:?} in the reference (relative error {:.3e})",
                e.to_array(),
                a.to_array(),
                worst.1
            ),
        ))
    } else {
        // Positions agree in order; only the corner lists differ.
        tally.max_error = tally.max_error.max(worst.1);
        tally.other_corners.push(node.name.clone());
        None
    }
}

/// The vertex furthest over its tolerance, in order: (excess over the tolerance, relative
/// error, vertex).
fn worst_vertex(live: &[DVec3], reference: &[DVec3], tolerance: impl Fn(DVec3, DVec3) -> f64) -> (f64, f64, usize) {
    let mut worst = (0.0f64, 0.0f64, 0usize);
    for (i, (e, a)) in live.iter().zip(reference).enumerate() {
        let err = (*e - *a).length();
        let excess = err / tolerance(*e, *a);
        if excess > worst.0 {
            worst = (excess, err / e.length().max(a.length()).max(1.0), i);
        }
    }
    worst
}

/// Map channel 1 of a mesh whose positions and polygons agree in order: the first corner
/// that differs, if any; the corners compared, or a mesh whose uvs Max's side lacks, are
/// counted in `tally`.
fn uv_difference(mesh: &RefMesh, side: &MaxSide, tally: &mut Tally) -> Option<(&'static str, String)> {
    match (&side.uv, &mesh.uv, side.triangulated) {
        (Some(max_uv), Some(ref_uv), false) => match compare_uv(&side.polygons, max_uv, &mesh.polygons, ref_uv) {
            Ok(n) => {
                tally.uv_compared += n;
                None
            }
            Err((corner, m_uv, r_uv)) => Some((
                "uv",
                format!(
                    "{}: map channel 1 at polygon corner {corner}: {m_uv:?} in Max, {r_uv:?} in the reference",
                    side.label
                ),
            )),
        },
        (None, Some(_), _) => {
            tally.uv_not_in_max += 1;
            None
        }
        _ => None,
    }
}

impl Tally {
    /// The comparison under one conversion and its score (meshes passed, worst error).
    fn report(self, reference: &RefScene) -> (Comparison, (usize, f64)) {
        let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
        for miss in &self.misses {
            *by_class.entry(miss.class).or_default() += 1;
        }
        let detail = json!({
            "tolerance_relative": POSITION_TOLERANCE,
            "text_resolution": reference.position_resolution,
            "meshes": self.meshes,
            "meshes_passed": self.passed,
            "meshes_triangulated_by_the_exporter": self.triangulated_meshes,
            "meshes_equal_in_another_vertex_order": self.matched_as_set,
            "meshes_with_other_polygon_corners": self.other_corners,
            "vertices_compared": self.vertices_compared,
            "max_position_error": self.max_error,
            "uv_corners_compared": self.uv_compared,
            "meshes_uv_not_evaluated_in_max": self.uv_not_in_max,
            "misses_by_class": by_class,
            "misses": self.misses.iter().take(20).collect::<Vec<_>>(),
            "first_difference": self.first_detail,
        });
        let score = (self.passed, self.max_error);
        (Comparison { name: NAME, verdict: self.verdict(), detail }, score)
    }

    /// The verdict: the first real difference, else a skip when a mesh was not comparable
    /// (or there is none), else a pass (noting meshes joined into other polygons).
    fn verdict(self) -> Verdict {
        let Tally { meshes, misses, other_corners, first, real_fail, .. } = self;
        if real_fail {
            first.unwrap_or_else(Verdict::pass)
        } else if meshes == 0 {
            Verdict::Skip { reason: "the reference holds no mesh".into() }
        } else if let Some(miss) = misses.first() {
            let reason = format!(
                "{} of {meshes} mesh(es) not comparable ({}): {}: {}",
                misses.len(),
                miss.class,
                miss.node,
                miss.reason
            );
            Verdict::Skip { reason }
        } else if other_corners.is_empty() {
            Verdict::pass()
        } else {
            let note = format!(
                "counts and positions equal; {} mesh(es) join the same vertices into other polygons ({})",
                other_corners.len(),
                other_corners.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
            );
            Verdict::Pass { note: Some(note) }
        }
    }
}

/// The miss class of a difference.
fn what_class(what: &str) -> &'static str {
    match what {
        "counts" => "count-difference",
        "positions" => "position-difference",
        "uv" => "uv-difference",
        _ => "polygon-difference",
    }
}
