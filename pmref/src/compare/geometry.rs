//! `geometry`: every reference mesh against pmcore's evaluated mesh of its Max node —
//! counts, positions (in order or as point sets), polygon corners and map channel 1.

use super::axes::conversions;
use super::classes::moving_modifier;
use super::matching::{Matching, MaxTree};
use super::matrices::to_dmat;
use super::mesh_match::{compare_uv, match_as_set, same_cycle};
use super::outcome::{fail, locator, Comparison};
use super::tolerances::POSITION_TOLERANCE;
use crate::scene::{Format, RefScene};
use glam::{DMat4, DVec3};
use pmcore::eval::{Evaluated, FaceRule, NodeOutcome};
use pmcore::model::controllers::{object_offset, world_matrix};
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The name this comparison reports under.
pub(super) const NAME: &str = "geometry";

#[derive(Clone, Debug, serde::Serialize)]
struct MeshMiss {
    node: String,
    class: &'static str,
    reason: String,
}

/// Axis conversions a file that declares none is tried under (OBJ, `.x`): none, and the
/// Z-up-to-Y-up turn `(x, y, z) → (x, z, −y)` (the OBJ exporter's "Flip YZ"). The one that
/// fits is reported; FBX files use their declared settings only.
pub(super) fn compare(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    let candidates: Vec<(DMat4, String)> = match reference.format {
        Format::Fbx(_) => {
            vec![(DMat4::IDENTITY, "FBX: vertices in Max object axes and units (conversion on root nodes only)".into())]
        }
        _ => conversions(reference).unwrap_or_default().into_iter().map(|c| (c.matrix, c.note)).collect(),
    };
    let mut best: Option<(Comparison, (usize, f64))> = None;
    for (conv, note) in candidates {
        let (mut c, score) = geometry_under(tree, m, reference, name, conv);
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
fn geometry_under(
    tree: &MaxTree<'_, '_>,
    m: &Matching,
    reference: &RefScene,
    name: &str,
    conv: DMat4,
) -> (Comparison, (usize, f64)) {
    // OBJ has no per-node transforms: its vertices are in world space.
    let world_space = matches!(reference.format, Format::Obj);
    let resolution = reference.position_resolution.unwrap_or(0.0) * 3f64.sqrt();
    let (mut meshes, mut passed, mut vertices_compared, mut triangulated_meshes) = (0, 0, 0usize, 0usize);
    let mut matched_as_set = 0usize;
    let (mut uv_compared, mut uv_not_in_max) = (0usize, 0usize);
    let mut other_corners: Vec<String> = Vec::new();
    let mut max_error = 0.0f64;
    let mut misses: Vec<MeshMiss> = Vec::new();
    let mut first: Option<Verdict> = None;
    let mut first_detail = Value::Null;
    let mut real_fail = false;
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mesh) = &node.mesh else { continue };
        meshes += 1;
        let miss = |class: &'static str, reason: String| MeshMiss { node: node.name.clone(), class, reason };
        let Some(mx) = m.max_of[r] else {
            misses.push(miss("no-max-node", "no Max node of that name".into()));
            continue;
        };
        let index = tree.index;
        let o = &index.objects[tree.nodes[mx].storage];
        // The evaluated mesh (pmcore::eval: stored buffers or primitive parameters, then
        // the modifier stack).
        let evaluated = pmcore::eval::evaluate_node(index, o, pmcore::eval::DEFAULT_BUDGET_VERTICES, false);
        let modifiers = evaluated.modifiers;
        let deformer = moving_modifier(index, o, &reference.format);
        let max_mesh = match evaluated.outcome {
            NodeOutcome::Evaluated(Evaluated::Mesh(mm)) => mm,
            NodeOutcome::Evaluated(Evaluated::CountOnly { note, .. }) => {
                misses.push(miss("count-only", format!("counts only, no positions: {note}")));
                continue;
            }
            NodeOutcome::Stopped(stop) => {
                let why = format!(
                    "evaluation stopped at {} (0x{:08x}, 0x{:08x}): {}",
                    stop.class_name, stop.class_id[0], stop.class_id[1], stop.why
                );
                misses.push(miss("not-evaluated", why));
                continue;
            }
            NodeOutcome::LeftOut(why) => {
                misses.push(miss("no-geometry", format!("the Max node is not geometry ({why})")));
                continue;
            }
        };
        let place = if world_space {
            match world_matrix(index, o) {
                Ok(w) => to_dmat(w) * to_dmat(object_offset(o).matrix()),
                Err(e) => {
                    misses.push(miss("transform-unreadable", e.to_string()));
                    continue;
                }
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
        let max_polys: Vec<Vec<u32>> = if triangulated {
            max_mesh.polygons.iter().flat_map(|p| p.mesh_triangles()).map(|t| t.to_vec()).collect()
        } else {
            max_mesh.polygons.iter().map(|p| p.corners.clone()).collect()
        };
        if triangulated {
            triangulated_meshes += 1;
        }
        let kind = match (max_mesh.rule, triangulated) {
            (FaceRule::Triangles, _) => "tri object",
            (FaceRule::Polygons, false) => "poly object",
            (FaceRule::Polygons, true) => "poly object (triangulated export)",
        };
        let stack_note = if modifiers > 0 { format!(" with {modifiers} modifier(s) evaluated") } else { String::new() };
        let counts = (live.len(), max_polys.len(), mesh.positions.len(), mesh.polygons.len());
        let difference = if counts.0 != counts.2 || counts.1 != counts.3 {
            let ref_tris: usize = mesh.polygons.iter().map(|p| p.len().saturating_sub(2)).sum();
            let max_tris: usize = max_polys.iter().map(|p| p.len().saturating_sub(2)).sum();
            Some((
                "counts",
                format!(
                    "{kind}{stack_note}: vertices {} vs reference {}, polygons {} vs {} (triangles {} vs {})",
                    counts.0, counts.2, counts.1, counts.3, max_tris, ref_tris
                ),
            ))
        } else {
            let reference_positions: Vec<DVec3> =
                mesh.positions.iter().map(|q| node.geometric.transform_point3(DVec3::from_array(*q))).collect();
            // Max rounds every vertex to f32 through matrices whose magnitude is the mesh's:
            // the error of a vertex near the origin scales with the mesh's extent, not with
            // its own length (cancellation), so the relative tolerance is taken against the
            // larger of the two.
            let extent = reference_positions.iter().chain(&live).fold(1.0f64, |m, p| m.max(p.abs().max_element()));
            let tolerance =
                |e: DVec3, a: DVec3| POSITION_TOLERANCE * e.length().max(a.length()).max(extent) + resolution;
            // (excess over the tolerance, relative error, vertex)
            let mut worst = (0.0f64, 0.0f64, 0usize);
            for (i, (e, a)) in live.iter().zip(&reference_positions).enumerate() {
                let err = (*e - *a).length();
                let excess = err / tolerance(*e, *a);
                if excess > worst.0 {
                    worst = (excess, err / e.length().max(a.length()).max(1.0), i);
                }
            }
            vertices_compared += live.len();
            let in_order = worst.0 <= 1.0 && max_polys.iter().zip(&mesh.polygons).all(|(a, b)| same_cycle(a, b));
            if in_order {
                max_error = max_error.max(worst.1);
                match (&max_mesh.uv, &mesh.uv, triangulated) {
                    (Some(max_uv), Some(ref_uv), false) => match compare_uv(&max_polys, max_uv, &mesh.polygons, ref_uv) {
                        Ok(n) => {
                            uv_compared += n;
                            None
                        }
                        Err((corner, m_uv, r_uv)) => Some((
                            "uv",
                            format!(
                                "{kind}{stack_note}: map channel 1 at polygon corner {corner}: {m_uv:?} in Max, {r_uv:?} in the reference"
                            ),
                        )),
                    },
                    (None, Some(_), _) => {
                        uv_not_in_max += 1;
                        None
                    }
                    _ => None,
                }
            } else if let Some((err, polygons_equal)) =
                match_as_set(&live, &max_polys, &reference_positions, &mesh.polygons, tolerance)
            {
                // Same points and faces in another order (pmcore's primitive builders do not
                // follow Max's vertex order): equal as geometry, counted.
                max_error = max_error.max(err);
                matched_as_set += 1;
                if !polygons_equal {
                    // Counts and positions agree; the faces join the same points another way
                    // (e.g. quads split along the other diagonal): reported, not a count or
                    // position difference.
                    other_corners.push(node.name.clone());
                }
                None
            } else if worst.0 > 1.0 {
                max_error = max_error.max(worst.1);
                let i = worst.2;
                let (e, a) = (live[i], reference_positions[i]);
                if first_detail.is_null() {
                    first_detail =
                        json!({ "node": node.name, "vertex": i, "max": e.to_array(), "reference": a.to_array() });
                }
                Some((
                    "positions",
                    format!(
                        "{kind}{stack_note}: vertex {i} at {:?} in Max, {:?} in the reference (relative error {:.3e})",
                        e.to_array(),
                        a.to_array(),
                        worst.1
                    ),
                ))
            } else {
                // Positions agree in order; only the corner lists differ.
                max_error = max_error.max(worst.1);
                other_corners.push(node.name.clone());
                None
            }
        };
        match difference {
            None => passed += 1,
            Some(("positions", message)) if deformer.is_some() => {
                // Counts agree; pmcore::eval passes this modifier's topology through
                // without moving the vertices, so Max's positions are not known here.
                let (class_id, class_name) = deformer.unwrap_or_default();
                misses.push(miss(
                    "deformer-not-evaluated",
                    format!(
                        "{class_name} (0x{:08x}, 0x{:08x}) moves vertices and pmcore::eval passes it through: positions not comparable ({message})",
                        class_id[0], class_id[1]
                    ),
                ));
            }
            Some((what, message)) => {
                real_fail = true;
                if first.is_none() {
                    let message = format!("mesh {:?}: {message}", node.name);
                    first = Some(fail("t3-pairs-geometry", message, locator(name, node), node.offset));
                }
                misses.push(miss(what_class(what), message));
            }
        }
    }
    let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
    for miss in &misses {
        *by_class.entry(miss.class).or_default() += 1;
    }
    let detail = json!({
        "tolerance_relative": POSITION_TOLERANCE,
        "text_resolution": reference.position_resolution,
        "meshes": meshes,
        "meshes_passed": passed,
        "meshes_triangulated_by_the_exporter": triangulated_meshes,
        "meshes_equal_in_another_vertex_order": matched_as_set,
        "meshes_with_other_polygon_corners": other_corners,
        "vertices_compared": vertices_compared,
        "max_position_error": max_error,
        "uv_corners_compared": uv_compared,
        "meshes_uv_not_evaluated_in_max": uv_not_in_max,
        "misses_by_class": by_class,
        "misses": misses.iter().take(20).collect::<Vec<_>>(),
        "first_difference": first_detail,
    });
    let verdict = if real_fail {
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
    };
    (Comparison { name: NAME, verdict, detail }, (passed, max_error))
}

fn what_class(what: &str) -> &'static str {
    match what {
        "counts" => "count-difference",
        "positions" => "position-difference",
        "uv" => "uv-difference",
        _ => "polygon-difference",
    }
}
