//! The skel exporter, end to end through the worker binary, on a rig this test builds by
//! hand (no public file holds a `Bip01` rig, so the skel path is proven on hand-built rigs
//! only).
//!
//! The rig and its expected `.skel` bytes, worked out by hand, live in `pmtests::rigs`.

use pmtests::fixtures;
use pmtests::rigs::{expected_bones, rig, rig_max, rig_max_of, skel_bytes};
use pmworker::events::Event;
use std::ffi::OsStr;
use std::path::Path;

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
