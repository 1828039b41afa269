//! The lead's hostile inputs (`pmtests::hostile`, derived at test time from a public file,
//! never committed) through the real farm: one isolated `pmworker` per hostile file under
//! a 512 MiB address-space cap and short time limits. pmcore must be robust enough that
//! the farm's safety net is never needed: every file ends `pass`, `fail` or `skip`, never
//! `crash`, `timeout` or `oom`, and the ledger is complete.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, gates_dir, s, Farm};
use pmtests::hostile::{cases_from, Rng};
use reliability_support::*;

/// The hostile-input seeds of `tests/tests/hostile_inputs.rs`.
const SEEDS: &[&str] = &["dakahler__room.max", "nekidaem__01-teapot_no_cams_vray.max", "fhqht12331__box.max"];

#[test]
fn hostile_inputs_through_the_farm_never_need_the_safety_net() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("hostile");
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(0x5EED);
    let cases: Vec<_> = SEEDS
        .iter()
        .flat_map(|seed| cases_from(seed, &std::fs::read(corpus.join(seed)).expect("seed readable"), &mut rng))
        .collect();
    for (i, case) in cases.iter().enumerate() {
        std::fs::write(dir.join(format!("case{i:03}.max")), &case.bytes).unwrap();
    }
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    let run = Farm::new(&["run", s(&dir), "--out", s(&out), "--gates", s(&gates), "-j", "2"])
        .args(["--timeout", "60", "--idle-timeout", "30", "--memory", "512M", "--export", "obj,skel"])
        .output();
    assert_exit(&run, 0);
    println!("{}", String::from_utf8_lossy(&run.stdout));
    let rep = assert_ledger_complete(&out, cases.len() as u64);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
    let abnormal: Vec<String> = results_file(&out)
        .into_iter()
        .filter(|(_, r)| !matches!(r["status"].as_str(), Some("pass" | "fail" | "skip")))
        .map(|(path, r)| {
            let i: usize = path[4..7].parse().unwrap();
            format!("{} ({path}): {} — {}", cases[i].name, r["status"], r["reason"])
        })
        .collect();
    assert!(abnormal.is_empty(), "{} abnormal ends:\n{}", abnormal.len(), abnormal.join("\n"));
    assert!(rep["status_counts"]["fail"].as_u64().unwrap() > cases.len() as u64 / 2, "{rep:#}");
}
