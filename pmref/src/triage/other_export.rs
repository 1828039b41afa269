//! `era-mismatch` by `other_export`: the manifest pairs the same `.max` with another export
//! that **passes** the same comparison — or, for `animation`, that compared every key time
//! of the missed node and found each pose equal (`detail.nodes_every_pose_equal`), even if
//! it misses on another node — and the two references disagree on the node this one misses
//! on. One `.max` holds one state of the scene; the other export shows that pmcore's reading
//! of that node is that state, so a reference that differs from it there was written from
//! another state (`ModularDoorWindowed.max`: `ModularDoorWindowed.fbx` passes,
//! `ModularDoorWindowedMirror.fbx` holds the doors mirrored; `henrynorthway__character.max`:
//! `_PlayerMove.FBX` agrees with every key of `_PlayerArmLeft`, which `_PlayerIdle.FBX` and
//! `_PlayerJump.FBX` swing otherwise).
//!
//! A lone edited value is not a state: the two references must differ in more than one
//! record of that node — vertices (or the vertex count; matched one to one, in any order)
//! for `geometry`, local-matrix entries for `transforms` and at the key times of
//! `animation`, vertex weights for `skin` — so a reference with one vertex moved stays
//! `unexplained`; and this export's own `hierarchy` must pass, so a node renamed to another
//! name the `.max` holds stays `unexplained` too (`docs/triage.md`). `transforms` and
//! `animation` also need both references to declare the same axes and units (their
//! matrices and curves are in file axes and units).

use super::{class, OtherResult, TriageInput, Triaged};
use crate::compare::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::RefScene;
use pmcore::verify::Verdict;
use serde_json::{json, Value};

/// Fewest differing records that make two references two states, not one edited value.
const MIN_RECORDS: usize = 2;

/// Weights differing by more than the FBX exporter's weight floor (1e-4) are different.
const WEIGHT_TOLERANCE: f64 = 1e-4;

/// The evidence, when this reference shows it (asked by the `era-mismatch` detector).
pub(super) fn detect(input: &TriageInput<'_, '_>) -> Option<Triaged> {
    input.fail_kind()?;
    let comparison = input.comparison();
    if !matches!(comparison, "geometry" | "transforms" | "animation" | "skin") {
        return None;
    }
    if !input.hierarchy_passes() {
        return None;
    }
    let reference = input.reference?;
    let node = missed_node(input)?;
    // An animated node's `transforms` miss is its pose at the start frame: the other
    // export's `animation` result speaks for it, and the references' poses at their key
    // times are what differ.
    let animated = reference.node_by_name(&node).is_some_and(|i| reference.is_animated(i));
    let measured = if comparison == "transforms" && animated { "animation" } else { comparison };
    input.others.iter().filter(|o| o.stream != input.stream).find_map(|other| {
        let (other_comparison, export) = other.stream.strip_prefix("pairs/")?.split_once('/')?;
        let passes = other_comparison == comparison && matches!(other.verdict, Verdict::Pass { .. });
        let vouches = other_comparison == measured && vouches_for_node(other, &node);
        if !(passes || vouches) {
            return None;
        }
        let difference = differ(measured, reference, other.reference?, &node)?;
        let why = if passes {
            format!("passes {comparison}")
        } else {
            format!("agrees with the .max at every animation key of \"{node}\"")
        };
        Some(Triaged {
            class: class::ERA_MISMATCH,
            message: format!(
                "{export}, another export of this .max, {why} and differs from this reference on \"{node}\" ({} records): two states of the scene",
                difference["records"]
            ),
            evidence: json!({ "other_export": {
                "reference": export,
                "comparison": comparison,
                "passes": passes,
                "node_agrees_at_every_key": !passes,
                "node": node,
                "compared_as": measured,
                "difference": difference,
            } }),
        })
    })
}

/// Does `other` — an `animation` result that misses elsewhere — compare every key time of
/// `node` and find each pose equal (`detail.nodes_every_pose_equal`)?
fn vouches_for_node(other: &OtherResult<'_>, node: &str) -> bool {
    other.stream.starts_with("pairs/animation/")
        && other
            .detail
            .and_then(|d| d.get("nodes_every_pose_equal"))
            .and_then(Value::as_array)
            .is_some_and(|nodes| nodes.iter().any(|n| n.as_str() == Some(node)))
}

/// The node a fail names: the comparison's `first_difference.node`, else the last part of
/// the fail's locator (`@reference/<export>/<node>`).
fn missed_node(input: &TriageInput<'_, '_>) -> Option<String> {
    if let Some(n) = input.detail.and_then(|d| d.pointer("/first_difference/node")).and_then(Value::as_str) {
        return Some(n.to_string());
    }
    let Verdict::Fail(m) = input.verdict else { return None };
    let export = input.stream.splitn(3, '/').nth(2)?;
    m.chunk_path.strip_prefix("@reference/")?.strip_prefix(export)?.strip_prefix('/').map(str::to_string)
}

/// How `a` and `b` differ on node `name` for `comparison`, when they differ in at least
/// [`MIN_RECORDS`] records; `None` otherwise (or when either lacks the node).
pub fn differ(comparison: &str, a: &RefScene, b: &RefScene, name: &str) -> Option<Value> {
    let ia = a.nodes.iter().position(|n| n.name == name)?;
    let ib = b.nodes.iter().position(|n| n.name == name)?;
    let found = match comparison {
        "geometry" => geometry(a, b, ia, ib),
        "transforms" if a.axes == b.axes => transforms(a, b, ia, ib),
        "animation" if a.axes == b.axes => animation(a, b, ia, ib),
        "skin" => skin(a, b, ia, ib),
        _ => None,
    }?;
    (found["records"].as_u64().unwrap_or(0) as usize >= MIN_RECORDS).then_some(found)
}

fn close(x: f64, y: f64, tolerance: f64) -> bool {
    (x - y).abs() <= tolerance * x.abs().max(y.abs()).max(1.0)
}

/// Vertices of `a`'s mesh with no vertex of `b`'s mesh at the same place (order-free, one to
/// one), or
/// the vertex counts when they differ.
fn geometry(a: &RefScene, b: &RefScene, ia: usize, ib: usize) -> Option<Value> {
    let (ma, mb) = (a.nodes[ia].mesh.as_ref()?, b.nodes[ib].mesh.as_ref()?);
    if ma.positions.len() != mb.positions.len() {
        return Some(
            json!({ "records": ma.positions.len().max(mb.positions.len()), "vertices": [ma.positions.len(), mb.positions.len()] }),
        );
    }
    let unmatched = unmatched_vertices(&ma.positions, &mb.positions);
    let first = unmatched.first().map(|&v| json!({ "vertex": v, "here": ma.positions[v], "there": mb.positions[v] }));
    Some(
        json!({ "records": unmatched.len(), "vertices_elsewhere": unmatched.len(), "of": ma.positions.len(), "first": first }),
    )
}

/// Vertices of `a` with no vertex of `b` at the same place, matched one to one (each vertex
/// of `b` stands for one of `a` only, so a vertex moved onto another's place still counts)
/// in any order: `b` sorted by x, each vertex of `a` looks only at the x window its
/// tolerance allows — n log n, not n², on meshes of any size.
fn unmatched_vertices(a: &[[f64; 3]], b: &[[f64; 3]]) -> Vec<usize> {
    let same = |p: &[f64; 3], q: &[f64; 3]| (0..3).all(|k| close(p[k], q[k], POSITION_TOLERANCE));
    let mut order: Vec<usize> = (0..b.len()).collect();
    order.sort_by(|&i, &j| b[i][0].total_cmp(&b[j][0]));
    let mut used = vec![false; b.len()];
    (0..a.len())
        .filter(|&v| {
            let p = &a[v];
            let reach = POSITION_TOLERANCE * p[0].abs().max(1.0) * 2.0 + f64::EPSILON;
            let start = order.partition_point(|&w| b[w][0] < p[0] - reach);
            let found = order[start..]
                .iter()
                .take_while(|&&w| b[w][0] <= p[0] + reach)
                .copied()
                .find(|&w| !used[w] && same(p, &b[w]));
            found.map(|w| used[w] = true).is_none()
        })
        .collect()
}

/// Entries of the node's local matrix that differ.
fn transforms(a: &RefScene, b: &RefScene, ia: usize, ib: usize) -> Option<Value> {
    let (la, lb) = (a.nodes[ia].local.to_cols_array(), b.nodes[ib].local.to_cols_array());
    let differing = la.iter().zip(&lb).filter(|(x, y)| !close(**x, **y, LINEAR_TOLERANCE)).count();
    Some(json!({ "records": differing, "matrix_entries": differing, "here": la, "there": lb }))
}

/// Entries of the node's local matrix that differ at the key times of either reference
/// where both rebuild it from their own keys ([`RefScene::matrix_at`]: no interpolation).
fn animation(a: &RefScene, b: &RefScene, ia: usize, ib: usize) -> Option<Value> {
    let mut times: Vec<i64> = a.key_times(ia).into_iter().chain(b.key_times(ib)).collect();
    times.sort_unstable();
    times.dedup();
    let mut differing = 0;
    let mut first = Value::Null;
    for t in times {
        let (Some(ma), Some(mb)) = (a.matrix_at(ia, t), b.matrix_at(ib, t)) else { continue };
        let (la, lb) = (ma.to_cols_array(), mb.to_cols_array());
        let here = la.iter().zip(&lb).filter(|(x, y)| !close(**x, **y, LINEAR_TOLERANCE)).count();
        if here > 0 && first.is_null() {
            first = json!({ "fbx_time": t, "here": la, "there": lb });
        }
        differing += here;
    }
    Some(json!({ "records": differing, "matrix_entries": differing, "first": first }))
}

/// Vertex weights of the node's skin that differ (bone by name, vertex by index; a weight
/// one side lacks counts as 0).
fn skin(a: &RefScene, b: &RefScene, ia: usize, ib: usize) -> Option<Value> {
    let (sa, sb) = (a.skins.iter().find(|s| s.node == ia)?, b.skins.iter().find(|s| s.node == ib)?);
    let weight = |clusters: &[crate::scene::RefCluster], bone: &str, v: u32| {
        clusters
            .iter()
            .filter(|c| c.bone == bone)
            .flat_map(|c| c.indices.iter().zip(&c.weights))
            .find(|(i, _)| **i == v)
            .map_or(0.0, |(_, w)| *w)
    };
    let mut differing = 0;
    let mut first = Value::Null;
    let mut note = |bone: &str, v: u32, here: f64, there: f64| {
        if (here - there).abs() > WEIGHT_TOLERANCE {
            differing += 1;
            if first.is_null() {
                first = json!({ "bone": bone, "vertex": v, "here": here, "there": there });
            }
        }
    };
    for c in &sa.clusters {
        for (v, w) in c.indices.iter().zip(&c.weights) {
            note(&c.bone, *v, *w, weight(&sb.clusters, &c.bone, *v));
        }
    }
    for c in &sb.clusters {
        for (v, w) in c.indices.iter().zip(&c.weights) {
            if weight(&sa.clusters, &c.bone, *v) == 0.0 {
                note(&c.bone, *v, 0.0, *w);
            }
        }
    }
    Some(json!({ "records": differing, "weights": differing, "first": first }))
}
