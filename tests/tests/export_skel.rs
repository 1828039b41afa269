//! The skel exporter, end to end through the worker binary, on a rig this test builds by
//! hand (no public file holds a `Bip01` rig, so the skel path is proven on hand-built rigs
//! only).
//!
//! The `.max` is assembled from the documented chunk layouts (`pmtests::fixtures`, cfb
//! directly): a RootNode, five nodes `Bip01`, `Bip01 Spine`, `Bip01 Head`, `Bip01 Arm`,
//! `Bip01 Tail`, each with a Position/Rotation/Scale controller whose Bezier Position (0x2503),
//! TCB Rotation (0x2504, Max quaternion) and Bezier Scale (0x2505) hold the defaults below,
//! plus bone-LOD AppData on two nodes. The expected `.skel` bytes are computed here, by
//! hand, from the NeL format (digest §7.1) — world matrices and their inverses worked out
//! on paper for transforms chosen to be exact in `f32`.

use pmtests::fixtures::{self, container, i32s, leaf, u32s, utf16, SceneBuilder};
use pmworker::events::Event;
use std::ffi::OsStr;
use std::path::Path;

const PRS: [u32; 2] = [0x2005, 0];

/// One bone of the hand-built rig: name, parent (index into the list, or None for Bip01),
/// position, Max-convention rotation quaternion, scale, LOD AppData text.
struct RigNode {
    name: &'static str,
    parent: Option<usize>,
    pos: [f32; 3],
    max_quat: [f32; 4],
    scale: [f32; 3],
    lod: Option<&'static str>,
}

fn rig() -> Vec<RigNode> {
    let id = [0.0, 0.0, 0.0, 1.0];
    vec![
        RigNode { name: "Bip01", parent: None, pos: [10.0, 0.0, 5.0], max_quat: id, scale: [1.0; 3], lod: None },
        // 180° about Z (either sign of the axis is the same turn).
        RigNode {
            name: "Bip01 Spine",
            parent: Some(0),
            pos: [0.0, 0.0, 4.0],
            max_quat: [0.0, 0.0, 1.0, 0.0],
            scale: [1.0; 3],
            lod: Some("20"),
        },
        RigNode { name: "Bip01 Head", parent: Some(1), pos: [1.0, 2.0, 3.0], max_quat: id, scale: [2.0; 3], lod: None },
        RigNode { name: "Bip01 Arm", parent: Some(1), pos: [0.0, 3.0, 0.0], max_quat: id, scale: [1.0; 3], lod: None },
        RigNode {
            name: "Bip01 Tail",
            parent: Some(0),
            pos: [-3.0, 0.0, 0.0],
            max_quat: id,
            scale: [1.0; 3],
            lod: Some("12.5"),
        },
    ]
}

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The rig as a `.max` file. `extra_class` adds one more class instance (e.g. a biped system).
fn rig_max(extra_class: Option<([u32; 2], u32, &str)>) -> Vec<u8> {
    rig_max_of(rig(), extra_class)
}

/// `nodes` as a `.max` file (see [`rig_max`]).
fn rig_max_of(nodes: Vec<RigNode>, extra_class: Option<([u32; 2], u32, &str)>) -> Vec<u8> {
    let mut s = SceneBuilder::new();
    let root_class = s.class(-1, [2, 0], 1, "RootNode");
    let node_class = s.class(-1, [1, 0], 1, "Node");
    let prs = s.class(-1, PRS, 0x9008, "Position/Rotation/Scale");
    let bez_pos = s.class(-1, [0x2008, 0], 0x900b, "Bezier Position");
    let tcb_rot = s.class(-1, [0x442313, 0], 0x900c, "TCB Rotation");
    let bez_scale = s.class(-1, [0x2010, 0], 0x900d, "Bezier Scale");
    let root = s.object(root_class, &[leaf(0x0100, &i32s(&[0]))]);
    let mut node_ids = Vec::new();
    for n in nodes {
        let p = s.object(bez_pos, &[leaf(0x2503, &f32s(&n.pos))]);
        let r = s.object(tcb_rot, &[leaf(0x2504, &f32s(&n.max_quat))]);
        let mut scale = n.scale.to_vec();
        scale.extend([0.0, 0.0, 0.0, 1.0]);
        let sc = s.object(bez_scale, &[leaf(0x2505, &f32s(&scale))]);
        let ctrl = s.object(prs, &[leaf(0x2034, &i32s(&[p, r, sc]))]);
        let parent = n.parent.map(|i| node_ids[i]).unwrap_or(root);
        let mut children =
            vec![leaf(0x2034, &i32s(&[ctrl, -1])), leaf(0x0960, &i32s(&[parent, 0])), leaf(0x0962, &utf16(n.name))];
        if let Some(text) = n.lod {
            // AppData: count, then entry = key (class a, b, superclass, sub id, size) + value.
            let key = u32s(&[0x04d64858, 0x16d1751d, 0x1020, 1423062615, text.len() as u32]);
            children.push(container(
                0x2150,
                &[leaf(0x0100, &u32s(&[1])), container(0x0110, &[leaf(0x0120, &key), leaf(0x0130, text.as_bytes())])],
            ));
        }
        node_ids.push(s.object(node_class, &children));
    }
    if let Some((id, superclass, name)) = extra_class {
        let c = s.class(-1, id, superclass, name);
        s.object(c, &[]);
    }
    s.max_bytes()
}

/// A bone as the expected file states it.
struct ExpectedBone {
    name: &'static str,
    inv_bind_rows: [[f32; 4]; 3],
    father: i32,
    lod: f32,
    pos: [f32; 3],
    quat: [f32; 4],
    scale: [f32; 3],
}

/// The expected bones, worked out by hand. Worlds (column vectors, W = parent · T · R · S):
/// Bip01 = T(10,0,5); Spine = T(10,0,9)·Rz180; Head = T(9,−2,12)·diag(−2,−2,2);
/// Arm = T(10,−3,9)·Rz180; Tail = T(7,0,5). InvBindPos = inverse of each: rotation part
/// transposed / inverted, translation −L⁻¹·t. DefaultRotQuat = stored Max quaternion with
/// w negated (identity → (0,0,0,−1); (0,0,1,0) → (0,0,1,−0)). Root reset on Bip01.
/// LODs: Spine 20 → its children Head and Arm inherit 20; Tail 12.5.
fn expected_bones() -> Vec<ExpectedBone> {
    let nw = [0.0, 0.0, 0.0, -1.0];
    vec![
        ExpectedBone {
            name: "Bip01",
            inv_bind_rows: [[1.0, 0.0, 0.0, -10.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -5.0]],
            father: -1,
            lod: 0.0,
            pos: [0.0; 3],
            quat: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Spine",
            inv_bind_rows: [[-1.0, 0.0, 0.0, 10.0], [0.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -9.0]],
            father: 0,
            lod: 20.0,
            pos: [0.0, 0.0, 4.0],
            quat: [0.0, 0.0, 1.0, -0.0],
            scale: [1.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Head",
            inv_bind_rows: [[-0.5, 0.0, 0.0, 4.5], [0.0, -0.5, 0.0, -1.0], [0.0, 0.0, 0.5, -6.0]],
            father: 1,
            lod: 20.0,
            pos: [1.0, 2.0, 3.0],
            quat: nw,
            scale: [2.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Arm",
            inv_bind_rows: [[-1.0, 0.0, 0.0, 10.0], [0.0, -1.0, 0.0, -3.0], [0.0, 0.0, 1.0, -9.0]],
            father: 1,
            lod: 20.0,
            pos: [0.0, 3.0, 0.0],
            quat: nw,
            scale: [1.0; 3],
        },
        ExpectedBone {
            name: "Bip01 Tail",
            inv_bind_rows: [[1.0, 0.0, 0.0, -7.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -5.0]],
            father: 0,
            lod: 12.5,
            pos: [-3.0, 0.0, 0.0],
            quat: nw,
            scale: [1.0; 3],
        },
    ]
}

/// NeL string: u32 length + bytes.
fn nel_string(s: &str) -> Vec<u8> {
    let mut out = (s.len() as u32).to_le_bytes().to_vec();
    out.extend(s.as_bytes());
    out
}

/// The `.skel` bytes of `bones`, written field by field from digest §7.1.
fn skel_bytes(bones: &[ExpectedBone]) -> Vec<u8> {
    let mut out = b"SHAP".to_vec();
    out.extend(1u64.to_le_bytes()); // poly-pointer id of the first object
    out.extend(nel_string("CSkeletonShape"));
    out.push(1); // CSkeletonShape version
    out.extend((bones.len() as i32).to_le_bytes());
    for b in bones {
        out.push(2); // CBoneBase version
        out.extend(nel_string(b.name));
        out.push(0); // CMatrix version
        out.extend(11u32.to_le_bytes()); // StateBit TRANS | ROT | SCALEANY
        out.extend(f32s(&[1.0])); // Scale33
        for r in &b.inv_bind_rows {
            out.extend(f32s(&r[..3]));
        }
        out.extend(f32s(&[b.inv_bind_rows[0][3], b.inv_bind_rows[1][3], b.inv_bind_rows[2][3]]));
        out.extend(b.father.to_le_bytes());
        out.push(0); // UnheritScale false
        out.extend(f32s(&[b.lod]));
        for v in [&b.pos[..], &[0.0, 0.0, 0.0]] {
            out.push(0);
            out.extend(f32s(v));
        }
        out.push(0);
        out.extend(f32s(&b.quat));
        for v in [&b.scale[..], &[0.0, 0.0, 0.0]] {
            out.push(0);
            out.extend(f32s(v));
        }
        out.extend(f32s(&[1.0, 1.0, 1.0])); // SkinScale
    }
    // BoneMap sorted by name.
    let map = [("Bip01", 0u32), ("Bip01 Arm", 3), ("Bip01 Head", 2), ("Bip01 Spine", 1), ("Bip01 Tail", 4)];
    out.extend((map.len() as i32).to_le_bytes());
    for (name, id) in map {
        out.extend(nel_string(name));
        out.extend(id.to_le_bytes());
    }
    // LODs: 0 (all on), 12.5 (Tail off), 20 (all but Bip01 off).
    let lods: [(f32, [u8; 5]); 3] = [(0.0, [0xFF; 5]), (12.5, [0xFF, 0xFF, 0xFF, 0xFF, 0]), (20.0, [0xFF, 0, 0, 0, 0])];
    out.extend(3i32.to_le_bytes());
    for (d, flags) in lods {
        out.push(0);
        out.extend(f32s(&[d]));
        out.extend(5i32.to_le_bytes());
        out.extend(flags);
    }
    out
}

struct Outcome {
    events: Vec<Event>,
    code: Option<i32>,
    stderr: String,
}

fn run_skel(max: &Path, out: &Path, reference: Option<&Path>) -> Outcome {
    let mut args: Vec<&OsStr> = vec![
        OsStr::new("--tiers"),
        OsStr::new("t1"),
        OsStr::new("--export"),
        OsStr::new("skel"),
        OsStr::new("--out"),
        out.as_os_str(),
    ];
    if let Some(r) = reference {
        args.extend([OsStr::new("--reference"), r.as_os_str()]);
    }
    args.push(max.as_os_str());
    let run = fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    let events = run.lines().iter().map(|l| Event::from_line(l).expect("every line is an event")).collect();
    Outcome { events, code: run.code, stderr: run.stderr }
}

fn t3_result(events: &[Event]) -> &pmworker::events::TierResult {
    events
        .iter()
        .find_map(|e| match e {
            Event::Result(r) if r.tier == pmworker::events::Tier::T3 && r.stream == "skel" => Some(r),
            _ => None,
        })
        .expect("a T3 result for skel")
}

fn export_event(events: &[Event]) -> &pmworker::events::Export {
    events
        .iter()
        .find_map(|e| match e {
            Event::Export(x) if x.exporter == "skel" => Some(x),
            _ => None,
        })
        .expect("an export event for skel")
}

#[test]
fn skel_writer_reproduces_the_hand_built_rig_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let max = fixtures::write_file(dir.path(), "rig.max", &rig_max(None));
    let out = dir.path().join("out");
    let run = run_skel(&max, &out, None);
    assert_eq!(run.code, Some(0), "stderr: {}", run.stderr);
    let export = export_event(&run.events);
    assert_eq!(export.status, "ok");
    assert_eq!(export.files, vec!["rig.skel".to_string()]);
    let produced = std::fs::read(out.join("rig.skel")).unwrap();
    let expected = skel_bytes(&expected_bones());
    if produced != expected {
        let at = produced.iter().zip(&expected).position(|(a, b)| a != b).unwrap_or(produced.len().min(expected.len()));
        panic!(
            "skel differs at byte {at} (produced {} bytes, expected {}):\n produced {:02x?}\n expected {:02x?}",
            produced.len(),
            expected.len(),
            &produced[at.saturating_sub(8)..(at + 16).min(produced.len())],
            &expected[at.saturating_sub(8)..(at + 16).min(expected.len())]
        );
    }
    assert_eq!(export.summary["bones"], 5);
    assert_eq!(export.summary["lod_from_appdata"], 2);
    // Without a reference T3 is a skip that carries the export digest.
    let t3 = t3_result(&run.events);
    assert_eq!(t3.verdict.name(), "skip");
    assert_eq!(t3.detail.as_ref().unwrap()["sha256"], serde_json::json!(export.sha256.clone().unwrap()));
}

#[test]
fn t3_against_the_exact_reference_passes_with_every_field_bit_exact() {
    let dir = tempfile::tempdir().unwrap();
    let max = fixtures::write_file(dir.path(), "rig.max", &rig_max(None));
    let refs = dir.path().join("ref");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("rig.skel"), skel_bytes(&expected_bones())).unwrap();
    let run = run_skel(&max, &dir.path().join("out"), Some(&refs));
    let t3 = t3_result(&run.events);
    assert_eq!(t3.verdict.name(), "pass", "{t3:?}");
    let d = t3.detail.as_ref().unwrap();
    for (field, counts) in d["fields"].as_object().unwrap() {
        assert_eq!(counts["bit_exact"], 5, "{field}: {counts}");
    }
    assert_eq!(d["inv_bind_pos_ulp"]["0"], 60, "5 bones × 12 elements at 0 ULP");
    assert_eq!(d["offset_scale"], 1.0);
}

#[test]
fn t3_reports_exactly_a_rotated_bone_a_scaled_bone_and_a_changed_father() {
    let dir = tempfile::tempdir().unwrap();
    let max = fixtures::write_file(dir.path(), "rig.max", &rig_max(None));
    let mut bones = expected_bones();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    bones[2].quat = [h, 0.0, 0.0, h]; // Head turned 90° about X
    bones[4].scale = [1.2, 1.2, 1.2]; // Tail ×1.2
    bones[3].father = 0; // Arm re-parented from Spine to Bip01
    let refs = dir.path().join("ref");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("rig.skel"), skel_bytes(&bones)).unwrap();
    let run = run_skel(&max, &dir.path().join("out"), Some(&refs));
    assert_eq!(run.code, Some(1), "a T3 failure fails the file");
    let t3 = t3_result(&run.events);
    assert_eq!(t3.verdict.name(), "fail");
    let d = t3.detail.as_ref().unwrap();
    let off: Vec<(String, String)> = d["off"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["bone"].as_str().unwrap().to_string(), o["field"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        off,
        vec![
            ("Bip01 Head".to_string(), "default_rot_quat".to_string()),
            ("Bip01 Tail".to_string(), "default_scale".to_string())
        ]
    );
    let structure: Vec<&str> =
        d["structure_differences"].as_array().unwrap().iter().map(|s| s.as_str().unwrap()).collect();
    assert_eq!(structure, vec![r#"bone "Bip01 Arm" father: produced Some("Bip01 Spine"), reference Some("Bip01")"#]);
    assert_eq!(d["fields"]["default_rot_quat"]["off"], 1);
    assert_eq!(d["fields"]["default_rot_quat"]["bit_exact"], 4);
    assert_eq!(d["fields"]["default_scale"]["off"], 1);
    assert_eq!(d["fields"]["inv_bind_pos"]["bit_exact"], 5);
}

#[test]
fn t3_reports_the_uniform_offset_scale_of_an_era_mismatched_reference() {
    let dir = tempfile::tempdir().unwrap();
    let max = fixtures::write_file(dir.path(), "rig.max", &rig_max(None));
    let mut bones = expected_bones();
    for b in &mut bones {
        b.pos = b.pos.map(|x| x * 1.2); // the `_big` re-proportioned reference
    }
    let refs = dir.path().join("ref");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("rig.skel"), skel_bytes(&bones)).unwrap();
    let run = run_skel(&max, &dir.path().join("out"), Some(&refs));
    let d = t3_result(&run.events).detail.clone().unwrap();
    let s = d["offset_scale"].as_f64().unwrap();
    assert!((s - 1.2).abs() < 1e-6, "offset scale {s}");
    assert_eq!(d["fields"]["default_pos"]["off"], 4, "every non-root offset moved by more than 0.02");
}

#[test]
fn biped_rig_is_not_implemented_and_a_file_without_bip01_is_not_applicable() {
    let dir = tempfile::tempdir().unwrap();
    let biped = fixtures::write_file(dir.path(), "biped.max", &rig_max(Some(([0x9155, 0], 0x60, "Biped"))));
    let run = run_skel(&biped, &dir.path().join("out"), None);
    assert_eq!(export_event(&run.events).status, "not-implemented");
    let t3 = t3_result(&run.events);
    assert_eq!(t3.verdict.name(), "skip");
    assert!(t3.detail.as_ref().is_some_and(|d| d["figure_era"].is_array()), "figure era from triage: {t3:?}");
    assert!(!dir.path().join("out/biped.skel").exists());

    let plain = fixtures::write_file(dir.path(), "plain.max", &fixtures::minimal_max());
    let run = run_skel(&plain, &dir.path().join("out"), None);
    assert_eq!(export_event(&run.events).status, "not-applicable");
    assert_eq!(t3_result(&run.events).detail, None);
    assert_eq!(run.code, Some(0));
}

#[test]
fn a_repeated_bone_name_gets_the_second_suffix() {
    let dir = tempfile::tempdir().unwrap();
    let mut nodes = rig();
    nodes[4].name = "Bip01 Head"; // Tail renamed to clash with Head
    let max = fixtures::write_file(dir.path(), "dup.max", &rig_max_of(nodes, None));
    let out = dir.path().join("out");
    let run = run_skel(&max, &out, None);
    assert_eq!(export_event(&run.events).summary["renamed_duplicates"], 1);
    let skel = pmcore::export::skel::read(&std::fs::read(out.join("dup.skel")).unwrap()).unwrap();
    let names: Vec<&str> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Bip01", "Bip01 Spine", "Bip01 Head", "Bip01 Arm", "Bip01 Head_Second"]);
    assert_eq!(skel.bone_map.len(), 5);
}
