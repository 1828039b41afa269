//! T3 gates and the era-mismatch bucket through the real `pmfarm` and `pmworker` on the
//! hand-built rig (`pmtests::rigs`; expected `.skel` worked out by hand, the independent
//! reference): the design's drot floor (`fields.default_rot_quat.bit_exact` share ≥ 97 %,
//! design §10 `--gate-t3`) holds on the exact reference and fails on one with a bone
//! turned; a reference whose offsets are ×1.2 lands in `era-mismatch` from the worker's
//! `offset_scale`; a skel skip on a fresh-era biped never does.

mod farm_support;

use farm_support::*;
use pmtests::rigs::{expected_bones, rig_max, skel_bytes, ExpectedBone};
use std::path::{Path, PathBuf};

const FLOORS: &str = "[[gate]]\nname = \"skel-floors\"\ntier = \"t3\"\nmin_ran = 1\n\
    [gate.t3_share_min]\n\"fields.default_rot_quat.bit_exact\" = 0.97\n\
    \"fields.default_pos.bit_exact+close\" = 0.72\n\
    [gate.t3_max]\n\"structure_differences\" = 0\n";

/// A corpus holding the rig as `rig.max` and a reference folder holding `bones` as `rig.skel`.
fn rig_case(dir: &Path, bones: &[ExpectedBone]) -> (PathBuf, PathBuf) {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("rig.max"), rig_max(None)).unwrap();
    let refs = dir.join("ref");
    std::fs::create_dir_all(&refs).unwrap();
    std::fs::write(refs.join("rig.skel"), skel_bytes(bones)).unwrap();
    (corpus, refs)
}

fn run_t3(dir: &Path, corpus: &Path, refs: &Path, gates: &Path) -> (std::process::Output, PathBuf) {
    let out = dir.join("out");
    let o = Farm::new(&["run", s(corpus), "--out", s(&out), "--gates", s(gates), "--no-report"])
        .args(["--tiers", "t1,t3", "--export", "skel", "--reference", s(refs)])
        .output();
    (o, out)
}

#[test]
fn the_drot_floor_holds_on_the_exact_reference_and_fails_on_a_turned_bone() {
    let t = tempfile::tempdir().unwrap();
    let gates = gates_dir(t.path(), FLOORS);

    let exact = t.path().join("exact");
    let (corpus, refs) = rig_case(&exact, &expected_bones());
    let (o, out) = run_t3(&exact, &corpus, &refs, &gates);
    assert_exit(&o, 0);
    let gate = summary(&out)["gates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["metric"] == "t3_share_min:fields.default_rot_quat.bit_exact")
        .cloned()
        .unwrap();
    assert_eq!(gate["value"], 1.0, "5 of 5 bones bit-exact: {gate}");
    assert_eq!(gate["checked"], true);

    let turned = t.path().join("turned");
    let mut bones = expected_bones();
    let h = std::f32::consts::FRAC_1_SQRT_2;
    bones[2].quat = [h, 0.0, 0.0, h]; // Head turned 90° about X in the reference
    let (corpus, refs) = rig_case(&turned, &bones);
    let (o, _) = run_t3(&turned, &corpus, &refs, &gates);
    assert_exit(&o, 1);
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("GATE FAILED test/skel-floors [bucket all, tier t3]: t3_share_min:fields.default_rot_quat.bit_exact = 0.8000 (threshold 0.9700)"),
        "4 of 5 bones exact: {e}"
    );
    assert!(!e.contains("default_pos.bit_exact+close ="), "dpos untouched: {e}");
}

#[test]
fn era_mismatch_comes_from_the_workers_offset_scale_and_never_from_a_skip() {
    let t = tempfile::tempdir().unwrap();
    let gates = gates_dir(t.path(), "");

    let big = t.path().join("big");
    let mut bones = expected_bones();
    for b in &mut bones {
        b.pos = b.pos.map(|x| x * 1.2); // the `_big` re-proportioned reference
    }
    let (corpus, refs) = rig_case(&big, &bones);
    let (o, out) = run_t3(&big, &corpus, &refs, &gates);
    assert_exit(&o, 0);
    let r = &results(&out)["rig.max"];
    let buckets: Vec<&str> = r["buckets"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert!(buckets.contains(&"era-mismatch"), "{buckets:?}");

    // The demo's fresh-era biped (0x0115 = 0): its skel export is not implemented, a skip.
    let fresh = t.path().join("fresh");
    let demo = demo_corpus(&fresh);
    let corpus = fresh.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::copy(demo.join("max2022_biped_fresh.max"), corpus.join("max2022_biped_fresh.max")).unwrap();
    let (o, out) = run_t3(&fresh, &corpus, &fresh, &gates);
    assert_exit(&o, 0);
    let r = &results(&out)["max2022_biped_fresh.max"];
    let t3: Vec<&serde_json::Value> = r["results"].as_array().unwrap().iter().filter(|x| x["tier"] == "t3").collect();
    assert_eq!(t3[0]["verdict"], "skip", "{t3:?}");
    let buckets: Vec<&str> = r["buckets"].as_array().unwrap().iter().map(|b| b.as_str().unwrap()).collect();
    assert!(!buckets.contains(&"era-mismatch"), "a skip is never a mismatch: {buckets:?}");
}
