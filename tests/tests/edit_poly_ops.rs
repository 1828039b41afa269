//! Edit Poly topology operations (`pmcore::eval::modifier::edit_poly`) against what 3ds Max
//! wrote into the same files: the scene's own `Mesh Totals`, and the vertex counts Max
//! recorded in later operation records. Skips visibly without `../shared`.

use pmcore::eval::{NodeEval, NodeOutcome};
use pmcore::model::scene_index::SceneTrees;
use std::path::Path;

fn with_file<T>(max: &Path, f: impl FnOnce(&pmcore::MaxFile) -> T) -> T {
    let bytes = std::fs::read(max).expect("max readable");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    f(&pmcore::MaxFile::new(ole))
}

/// Max's saved `Mesh Totals` (vertices, faces).
fn max_totals(f: &pmcore::MaxFile) -> (u64, u64) {
    let stream = f.ole.stream("\u{5}DocumentSummaryInformation").expect("summary stream");
    let sections = pmcore::facts::property_set::parse(&stream.bytes).expect("property set");
    let totals = pmcore::facts::doc_summary::DocSummary::from_sections(&sections).mesh_totals.expect("Mesh Totals");
    (totals.vertices, totals.faces)
}

/// `danshaub__weaponrack.max`: `Box001`'s Edit Poly deletes eight faces, then caps the two
/// holes with two cap operations (op 9, each selecting the 8 edges of one hole among the 52
/// edges Max's list held — the selection's own length, which the replay checks against its
/// edge numbering). The scene's evaluated totals equal Max's (304 / 428).
#[test]
fn caps_give_the_weapon_rack_max_mesh_totals() {
    let Some(wild) = pmtests::shared_corpus("wild") else { return };
    with_file(&wild.join("danshaub__weaponrack.max"), |f| {
        let totals = pmcore::eval::scene_totals(f).expect("scene");
        assert!(totals.stopped.is_empty(), "{:?}", totals.stopped);
        assert_eq!((totals.vertices, totals.faces), max_totals(f));
    });
}

/// `alina0708__room.max`: `Box007` … `Box010` each hold a chamfer edge (op 34) whose stored
/// selection covers the box's 12 edges with none set, then a transform (op 53) whose record
/// Max wrote for 8 vertices (`0x12c3` = 8, `0x12c4` = 8 offset triples): the chamfer changed
/// nothing. Each box evaluates to the unit box's 8 vertices and 6 quads.
#[test]
fn chamfers_of_no_edge_leave_the_room_boxes_as_they_were() {
    let Some(wild) = pmtests::shared_corpus("wild") else { return };
    with_file(&wild.join("alina0708__room.max"), |f| {
        let trees = SceneTrees::of(f).expect("Scene parses");
        let index = trees.index().expect("Scene root");
        let nodes: Vec<NodeEval> = pmcore::eval::stack::evaluate_index(&index, u64::MAX, false);
        for name in ["Box007", "Box008", "Box009", "Box010"] {
            let n = nodes.iter().find(|n| n.name == name).unwrap_or_else(|| panic!("{name}"));
            let NodeOutcome::Evaluated(e) = &n.outcome else { panic!("{name}: {:?}", n.outcome) };
            let (counts, _) = e.counts_and_rule();
            assert_eq!((counts.vertices, counts.polygons), (8, 6), "{name}");
        }
    });
}
