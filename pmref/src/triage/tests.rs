use super::*;
use crate::scene::{Format, RefNode, RefScene};
use glam::DMat4;
use pmcore::verify::Mismatch;

fn node(name: &str) -> RefNode {
    RefNode {
        name: name.into(),
        kind: "Mesh".into(),
        parent: None,
        local: DMat4::IDENTITY,
        pre_rotation: [0.0; 3],
        geometric: DMat4::IDENTITY,
        mesh: None,
        offset: 0,
        fbx_transform: None,
    }
}

fn scene(names: &[&str]) -> RefScene {
    RefScene::of_nodes(Format::Fbx(7400), names.iter().map(|n| node(n)).collect())
}

fn fail(kind: &str, message: &str) -> Verdict {
    Verdict::Fail(Mismatch {
        kind: kind.into(),
        message: message.into(),
        chunk_path: "@reference/x/n".into(),
        ..Default::default()
    })
}

fn run(
    stream: &str,
    verdict: &Verdict,
    detail: Option<&Value>,
    reference: Option<&RefScene>,
    text: &MaxText,
) -> Option<Triaged> {
    classify(&TriageInput { stream, verdict, detail, reference, index: None, text, others: &[] })
}

/// The class of a fail beside the other results of its `.max`.
fn run_beside(
    stream: &str,
    verdict: &Verdict,
    detail: &Value,
    reference: &RefScene,
    text: &MaxText,
    others: &[OtherResult],
) -> Triaged {
    let input =
        TriageInput { stream, verdict, detail: Some(detail), reference: Some(reference), index: None, text, others };
    classify(&input).expect("a miss has a class")
}

/// A stream holding `Box001` as ASCII and `Door` as UTF-16LE, as Max stores node names.
fn text() -> MaxText<'static> {
    const DOOR_UTF16: &[u8] = b"D\0o\0o\0r\0";
    MaxText::from_streams(&[b"..Box001..", DOOR_UTF16])
}

#[test]
fn a_pass_has_no_class_and_every_miss_has_one() {
    let t = text();
    assert_eq!(run("pairs/geometry/a.fbx", &Verdict::pass(), None, None, &t), None);
    let unexplained = run("summary/objects", &fail("t3-summary-objects", "objects differ"), None, None, &t).unwrap();
    assert_eq!(unexplained.class, class::UNEXPLAINED);
    assert!(unexplained.message.contains("objects differ"));
}

#[test]
fn skips_are_reference_absent_or_not_applicable_by_their_reason() {
    let t = text();
    let skip = |r: &str| Verdict::Skip { reason: r.into() };
    for r in ["no-reference: no reference output x.obj", "missing reference: no row", "ambiguous reference: two rows"] {
        assert_eq!(run("pairs", &skip(r), None, None, &t).unwrap().class, class::REFERENCE_ABSENT, "{r}");
    }
    for r in [
        "format carries no hierarchy (OBJ)",
        "the reference has no skin deformer",
        "not-applicable: no node named Bip01",
        "absent-in-file",
    ] {
        assert_eq!(run("pairs/skin/a.fbx", &skip(r), None, None, &t).unwrap().class, class::NOT_APPLICABLE, "{r}");
    }
    let unreadable = run("pairs/hierarchy/a.fbx", &fail("t3-reference-unreadable", "a.fbx: truncated"), None, None, &t);
    assert_eq!(unreadable.unwrap().class, class::REFERENCE_UNREADABLE);
}

#[test]
fn names_absent_from_every_stream_are_era_evidence_and_present_ones_are_not() {
    let t = text();
    let v = fail("t3-pairs-hierarchy", "reference node \"Ghost\" has no Max node of that name");
    let r = scene(&["Box001", "door", "Ghost"]);
    let got = run("pairs/hierarchy/a.fbx", &v, None, Some(&r), &t).unwrap();
    assert_eq!(got.class, class::ERA_MISMATCH);
    assert_eq!(got.evidence["missing_nodes"], json!(["Ghost"]), "door is held as UTF-16LE, Box001 as ASCII");
    // Renamed to a name the .max holds: no evidence, so never an era mismatch.
    let r = scene(&["Box001", "BOX001"]);
    assert_eq!(run("pairs/hierarchy/a.fbx", &v, None, Some(&r), &t).unwrap().class, class::UNEXPLAINED);
    // An FBX name-clash suffix: the stem is what Max holds.
    let r = scene(&["Box001_ncl1_1"]);
    assert_eq!(run("pairs/hierarchy/a.fbx", &v, None, Some(&r), &t).unwrap().class, class::UNEXPLAINED);
}

#[test]
fn names_that_are_not_utf8_are_never_evidence_but_the_miss_still_gets_a_class() {
    let t = text();
    let lossy = String::from_utf8_lossy(b"Bo\xffx001").into_owned();
    let r = scene(&[&lossy]);
    let v = fail("t3-pairs-hierarchy", &format!("reference node {lossy:?} has no Max node of that name"));
    let got = run("pairs/hierarchy/a.fbx", &v, None, Some(&r), &t).unwrap();
    assert_eq!(got.class, class::UNEXPLAINED, "{got:?}");
}

#[test]
fn class_ids_are_read_in_both_written_forms() {
    use super::unsupported::class_ids_in;
    assert_eq!(
        class_ids_in("stopped at Straight Stair (0x2c693321, 0x63be1109): object"),
        vec![[0x2c69_3321, 0x63be_1109]]
    );
    assert_eq!(
        class_ids_in("not-implemented: Boolean 0x51db4f2f:0x1c596b1a; Hedra (0xf21c5e23:0x00000000)"),
        vec![[0x51db_4f2f, 0x1c59_6b1a], [0xf21c_5e23, 0]]
    );
    assert!(class_ids_in("no asset table (Max 2009 and older)").is_empty());
    assert!(class_ids_in("0x").is_empty() && class_ids_in("0x12, ").is_empty());
    let t = text();
    let skip = Verdict::Skip { reason: "2 of 10 mesh(es) not comparable (not-evaluated): S: evaluation stopped at Straight Stair (0x2c693321, 0x63be1109)".into() };
    let got = run("pairs/geometry/a.fbx", &skip, None, None, &t).unwrap();
    assert_eq!(got.class, class::UNSUPPORTED);
    assert_eq!(got.evidence["classes"][0]["class_id"], "0x2c693321:0x63be1109");
}

#[test]
fn a_near_miss_is_tolerance_and_a_moved_vertex_is_not() {
    let t = text();
    let v = fail("t3-pairs-geometry", "mesh \"Box001\": vertex 0 differs");
    let near = json!({ "max_position_error": 4e-5, "tolerance_relative": 1e-5 });
    let got = run("pairs/geometry/a.fbx", &v, Some(&near), None, &t).unwrap();
    assert_eq!((got.class, got.evidence["worst_delta"].as_f64()), (class::TOLERANCE, Some(4e-5)));
    let far = json!({ "max_position_error": 0.05, "tolerance_relative": 1e-5 });
    assert_eq!(run("pairs/geometry/a.fbx", &v, Some(&far), None, &t).unwrap().class, class::UNEXPLAINED);
    let nan = json!({ "max_position_error": f64::MAX, "tolerance_relative": 1e-5 });
    assert_eq!(run("pairs/geometry/a.fbx", &v, Some(&nan), None, &t).unwrap().class, class::UNEXPLAINED);
}

#[test]
fn an_exporter_rule_explains_a_fail_only_when_every_pose_off_agrees_with_it_undone() {
    use crate::compare::nel_anim::{POSES_OFF_AGREEING_SCALED, SCALE_TANGENTS_KIND};
    let t = text();
    let v = fail(SCALE_TANGENTS_KIND, "node \"B_Root\" at 0.0333 s: differs");
    let with = |off: u64, agreeing: u64| {
        let detail = json!({ "poses_off": off, POSES_OFF_AGREEING_SCALED: agreeing });
        run("nel-anim/values/Blue.FBX", &v, Some(&detail), None, &t).unwrap()
    };
    let all = with(4, 4);
    assert_eq!(all.class, class::EXPORTER_RULE);
    assert_eq!(all.evidence["poses_agreeing_with_the_rule_undone"], 4);
    // One pose off that the rule does not explain: the fail is not the rule's.
    assert_eq!(with(4, 3).class, class::UNEXPLAINED);
    // The same counts under another kind decide nothing.
    let other = fail("t3-nel-anim-values", "differs");
    let detail = json!({ "poses_off": 2, POSES_OFF_AGREEING_SCALED: 2 });
    assert_eq!(run("nel-anim/values/Blue.FBX", &other, Some(&detail), None, &t).unwrap().class, class::UNEXPLAINED);
}

#[test]
fn the_skel_era_rule_needs_the_scale_or_a_fresh_figure() {
    let t = text();
    let v = fail("t3-skel", "offsets differ");
    let scaled = json!({ "offset_scale": 1.2003, "figure_era": [3] });
    assert_eq!(run("skel", &v, Some(&scaled), None, &t).unwrap().class, class::ERA_MISMATCH);
    let fresh = json!({ "offset_scale": 1.0, "figure_era": [0] });
    assert_eq!(run("skel", &v, Some(&fresh), None, &t).unwrap().class, class::ERA_MISMATCH);
    let neither = json!({ "offset_scale": 1.1, "figure_era": [3] });
    assert_eq!(run("skel", &v, Some(&neither), None, &t).unwrap().class, class::UNEXPLAINED);
}

#[test]
fn every_registered_detector_names_a_distinct_class() {
    let mut classes: Vec<&str> = REGISTRY.iter().map(|d| d.class()).collect();
    classes.sort_unstable();
    let n = classes.len();
    classes.dedup();
    assert_eq!(classes.len(), n);
}

#[test]
fn a_class_that_stopped_another_mesh_does_not_explain_a_fail() {
    let t = text();
    let misses = json!({ "misses": [{ "class": "not-evaluated", "node": "Other", "reason": "evaluation stopped at Boolean (0x51db4f2f, 0x1c596b1a)" }],
        "stopped": [{ "class_id": "0xf21c5e23:0x00000000", "node": "Hedra01" }] });
    let v = fail("t3-pairs-geometry", "mesh \"Box001\": vertex 3 differs");
    assert_eq!(run("pairs/geometry/a.fbx", &v, Some(&misses), None, &t).unwrap().class, class::UNEXPLAINED);
    let skip = Verdict::Skip { reason: "1 of 2 mesh(es) not comparable (not-evaluated): Other".into() };
    let got = run("pairs/geometry/a.fbx", &skip, Some(&misses), None, &t).unwrap();
    assert_eq!(got.class, class::UNSUPPORTED);
    assert_eq!(got.evidence["classes"], json!([{ "class_id": "0x51db4f2f:0x1c596b1a", "in_file": null }]));
}

#[test]
fn a_nel_shape_miss_with_map_revision_evidence_is_an_era_mismatch() {
    let t = text();
    let v = fail("t3-nel-shape-vertices", "vertices ours 295 reference 316");
    let detail = serde_json::json!({ "map_revision": { "reference_uvs_outside": 44 } });
    let triaged = run("nel-shape", &v, Some(&detail), None, &t).unwrap();
    assert_eq!(triaged.class, class::ERA_MISMATCH);
    assert_eq!(triaged.evidence["map_revision"]["reference_uvs_outside"], 44);
    // Without the evidence the same miss is unexplained; the evidence on another stream's
    // miss explains nothing.
    assert_eq!(run("nel-shape", &v, None, None, &t).unwrap().class, class::UNEXPLAINED);
    let other = fail("t3-summary-objects", "objects differ");
    assert_eq!(run("summary/objects", &other, Some(&detail), None, &t).unwrap().class, class::UNEXPLAINED);
}

fn mesh_scene(positions: Vec<[f64; 3]>) -> RefScene {
    let mut s = scene(&["Box001"]);
    s.nodes[0].mesh = Some(crate::scene::RefMesh { positions, polygons: Vec::new(), uv: None });
    s
}

#[test]
fn two_exports_are_two_states_only_when_they_differ_in_two_records_or_more() {
    let corners: Vec<[f64; 3]> = (0..8).map(|i| [(i & 1) as f64, (i >> 1 & 1) as f64, (i >> 2) as f64]).collect();
    let base = mesh_scene(corners.clone());
    // The same vertices in another order: no difference.
    let mut reversed = corners.clone();
    reversed.reverse();
    assert_eq!(other_export::differ("geometry", &base, &mesh_scene(reversed), "Box001"), None);
    // One vertex moved onto another's place: one record, not a state.
    let mut one = corners.clone();
    one[0] = one[1];
    assert_eq!(other_export::differ("geometry", &base, &mesh_scene(one.clone()), "Box001"), None);
    // Two vertices moved: two states.
    one[2][2] += 0.5;
    let got = other_export::differ("geometry", &base, &mesh_scene(one), "Box001").expect("two records");
    assert_eq!(got["records"], 2);
    // Another vertex count, and a node the other reference lacks.
    assert!(other_export::differ("geometry", &base, &mesh_scene(corners[..6].to_vec()), "Box001").is_some());
    assert_eq!(other_export::differ("geometry", &base, &scene(&["Box002"]), "Box001"), None);
}

#[test]
fn another_export_speaks_only_when_this_export_s_hierarchy_passes() {
    let t = text();
    let (this, other) = (mesh_scene(vec![[0.0; 3], [1.0; 3]]), mesh_scene(vec![[2.0; 3], [3.0; 3]]));
    let detail = json!({ "first_difference": { "node": "Box001" } });
    let v = fail("t3-pairs-geometry", "mesh \"Box001\": vertex 0 differs");
    let pass = Verdict::pass();
    let with = |hierarchy: &Verdict| {
        let others = [
            OtherResult { stream: "pairs/hierarchy/a.fbx", verdict: hierarchy, reference: Some(&this), detail: None },
            OtherResult { stream: "pairs/geometry/b.fbx", verdict: &pass, reference: Some(&other), detail: None },
        ];
        run_beside("pairs/geometry/a.fbx", &v, &detail, &this, &t, &others)
    };
    let got = with(&pass);
    assert_eq!(got.class, class::ERA_MISMATCH, "{got:?}");
    assert_eq!(got.evidence["other_export"]["reference"], "b.fbx");
    assert_eq!(with(&fail("t3-pairs-hierarchy", "renamed")).class, class::UNEXPLAINED);
}

#[test]
fn a_common_turn_is_evidence_only_off_the_right_angles() {
    let t = text();
    let v = fail("t3-pairs-animation", "node \"a\" at frame 0.00: local transform differs");
    let pass = Verdict::pass();
    let this = scene(&["Box001", "Door"]);
    let others =
        [OtherResult { stream: "pairs/hierarchy/z.fbx", verdict: &pass, reference: Some(&this), detail: None }];
    let with = |angle: f64| {
        let detail = json!({ "one_turn_and_scale_off_every_pose": {
            "poses": 4, "nodes": 2, "rotation_axis": [0.0, 1.0, 0.0], "rotation_deg": angle, "scale": [1.0, 1.0, 1.0] } });
        run_beside("pairs/animation/z.fbx", &v, &detail, &this, &t, &others)
    };
    assert_eq!(with(163.58).class, class::ERA_MISMATCH);
    assert_eq!(with(163.58).evidence["turned_as_one"]["rotation_deg"], 163.58);
    // A multiple of 90° is what an axis conversion does: no evidence.
    assert_eq!(with(90.0).class, class::UNEXPLAINED);
    assert_eq!(with(180.004).class, class::UNEXPLAINED);
}
