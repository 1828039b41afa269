//! The Extrude and Bevel modifiers over spline shapes (`pmcore::eval` `modifier::extrude`,
//! `modifier::bevel`) against what 3ds Max counted: the `Mesh Totals` Max stores in each
//! file's DocumentSummaryInformation. No export pair holds either modifier, so positions
//! are checked by the hand-worked unit tests only. Skips visibly without `../shared`.

use pmcore::eval::stack::{evaluate_index, NodeEval, NodeOutcome};
use pmcore::eval::DEFAULT_BUDGET_VERTICES;
use pmcore::model::scene_index::SceneTrees;
use std::path::Path;

/// Max's own totals and every node's evaluation.
fn evaluate(path: &Path) -> ((u64, u64), Vec<NodeEval>) {
    let bytes = std::fs::read(path).expect("max readable");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", path.display()) };
    let file = pmcore::MaxFile::new(ole);
    let stream = file.ole.stream("\u{5}DocumentSummaryInformation").expect("summary stream");
    let sections = pmcore::facts::property_set::parse(&stream.bytes).expect("property set");
    let summary = pmcore::facts::doc_summary::DocSummary::from_sections(&sections);
    let max = summary.mesh_totals.expect("Mesh Totals");
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene root");
    ((max.vertices, max.faces), evaluate_index(&index, DEFAULT_BUDGET_VERTICES, false))
}

/// A node's (vertices, faces) under Max's face rule.
fn counts(nodes: &[NodeEval], name: &str) -> (u64, u64) {
    let node = nodes.iter().find(|n| n.name == name).unwrap_or_else(|| panic!("node {name}"));
    let NodeOutcome::Evaluated(e) = &node.outcome else { panic!("{name}: {:?}", node.outcome) };
    let (c, rule) = e.counts_and_rule();
    (c.vertices, c.faces(rule))
}

/// Sum over the evaluated nodes.
fn evaluated_sum(nodes: &[NodeEval]) -> (u64, u64) {
    nodes.iter().fold((0, 0), |(v, f), n| match &n.outcome {
        NodeOutcome::Evaluated(e) => {
            let (c, rule) = e.counts_and_rule();
            (v + c.vertices, f + c.faces(rule))
        }
        _ => (v, f),
    })
}

/// `seanconway512__myfieldhq_containers_and_terrain.max`: eleven Extrudes (five Rectangle
/// floors, four Editable Spline roofs of six knots, two open two-knot gate wires; one
/// segment, caps on, morph) — by hand, a floor is 4 points × 2 levels = 8 vertices, 8 side
/// and 2 × 2 cap triangles; a roof 6 × 2 = 12 vertices, 12 + 2 × 4 = 20 triangles; a wire
/// 2 × 2 = 4 vertices, 2 triangles and no cap (open). With them (and the MapScaler's tri
/// output) the scene's totals are Max's.
#[test]
fn extrudes_give_max_mesh_totals_on_seanconway512_field_hq() {
    let Some(wild) = pmtests::shared_corpus("wild") else { return };
    let (max, nodes) = evaluate(&wild.join("seanconway512__myfieldhq_containers_and_terrain.max"));
    assert_eq!(max, (11785, 11806), "Max's own totals");
    for floor in ["Barracks01-Floor", "Barracks02-Floor", "Barracks03-Floor", "Barn Floor", "sentry-floor"] {
        assert_eq!(counts(&nodes, floor), (8, 12), "{floor}");
    }
    for roof in ["Barracks01-Roof", "Barracks02-Roof", "Barracks03-Roof", "sentry-roof"] {
        assert_eq!(counts(&nodes, roof), (12, 20), "{roof}");
    }
    for wire in ["Gate-left-wire", "Gate-right-wire"] {
        assert_eq!(counts(&nodes, wire), (4, 2), "{wire}");
    }
    let stopped: Vec<&str> =
        nodes.iter().filter(|n| matches!(n.outcome, NodeOutcome::Stopped(_))).map(|n| n.name.as_str()).collect();
    assert!(stopped.is_empty(), "{stopped:?}");
    assert_eq!(evaluated_sum(&nodes), max);
}

/// `ryu-ko__lr9.max`: three Bevels over Lines (the body: 4 points, levels 1–3 on → 4 × 4 =
/// 16 vertices, 2 × 4 × 3 sides + 2 × 2 caps = 28 triangles; two open 10-point wheel arches,
/// level 1 only → 20 vertices, 18 triangles). The one node left stopped is the Boolean wheel
/// `Пколесо4`; with the counts of its sibling wheel `Пколесо3` (3,242 / 6,480) in its
/// place the sum is exactly Max's totals.
#[test]
fn bevels_give_max_mesh_totals_on_ryu_ko_lr9_beside_one_boolean_wheel() {
    let Some(wild) = pmtests::shared_corpus("wild") else { return };
    let (max, nodes) = evaluate(&wild.join("ryu-ko__lr9.max"));
    assert_eq!(max, (29716, 56122), "Max's own totals");
    assert_eq!(counts(&nodes, "корпус"), (16, 28));
    assert_eq!(counts(&nodes, "Парка"), (20, 18));
    assert_eq!(counts(&nodes, "Ларка"), (20, 18));
    let stopped: Vec<&str> =
        nodes.iter().filter(|n| matches!(n.outcome, NodeOutcome::Stopped(_))).map(|n| n.name.as_str()).collect();
    assert_eq!(stopped, ["Пколесо4"]);
    let wheel = counts(&nodes, "Пколесо3");
    let (v, f) = evaluated_sum(&nodes);
    assert_eq!((v + wheel.0, f + wheel.1), max);
}
