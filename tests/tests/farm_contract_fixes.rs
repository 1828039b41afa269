//! The behaviour fixes of issue #21, through the built binaries: `--export` implies `t3`
//! (worker and farm record and emit the same tiers), `report --baseline NAME` looks NAME up
//! in the workspace's `baselines/` like `run` does (not in the current folder), and one
//! shard of a sharded run says which shard it is in `summary.json` and in its journal.

mod farm_support;
use farm_support::*;
use serde_json::Value;
use std::path::Path;

/// The tiers of every `result` event of a worker run on `file` with `args`.
fn worker_result_tiers(file: &Path, args: &[&str]) -> Vec<String> {
    let run = pmtests::harness::Worker::new(file).args(args).run();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    run.events
        .iter()
        .filter_map(|e| match e {
            pmworker::events::Event::Result(r) => Some(r.tier.to_string()),
            _ => None,
        })
        .collect()
}

#[test]
fn worker_export_implies_t3_and_no_export_means_no_t3() {
    let t = tempfile::tempdir().unwrap();
    let file = demo_corpus(t.path()).join(VICTIM);
    let with_export = worker_result_tiers(&file, &["--tiers", "t1", "--export", "obj"]);
    assert!(with_export.iter().any(|t| t == "t1"), "{with_export:?}");
    assert_eq!(with_export.iter().filter(|t| *t == "t3").count(), 1, "one T3 result for obj: {with_export:?}");
    let without = worker_result_tiers(&file, &["--tiers", "t1"]);
    assert!(!without.is_empty() && without.iter().all(|t| t == "t1"), "{without:?}");
}

#[test]
fn farm_records_t3_when_an_export_is_named_without_it() {
    let t = tempfile::tempdir().unwrap();
    let file = demo_corpus(t.path()).join(VICTIM);
    let out = t.path().join("out");
    let o = Farm::new(&["run", s(&file), "--out", s(&out), "--no-gates", "--no-report", "--tiers", "t1"])
        .args(["--export", "obj"])
        .output();
    assert_exit(&o, 0);
    let summary = summary(&out);
    assert_eq!(summary["options"]["work"]["tiers"], serde_json::json!(["t1", "t3"]), "{summary}");
    let result = results(&out).into_values().next().expect("one result");
    let t3: Vec<&Value> = result["results"].as_array().expect("results").iter().filter(|r| r["tier"] == "t3").collect();
    assert_eq!(t3.len(), 1, "the recorded t3 matches the one T3 verdict (obj): {result}");
    assert_eq!(t3[0]["stream"], "obj");
}

/// A folder that `pmfarm` accepts as its workspace (`PMFARM_WORKSPACE`).
fn fake_workspace(dir: &Path) -> std::path::PathBuf {
    let ws = dir.join("ws");
    std::fs::create_dir_all(ws.join("pmfarm")).unwrap();
    std::fs::write(ws.join("Cargo.toml"), "[workspace]\nmembers = [\"pmfarm\"]\n").unwrap();
    std::fs::write(ws.join("pmfarm/Cargo.toml"), "[package]\nname = \"pmfarm\"\n").unwrap();
    ws
}

#[test]
fn report_finds_a_bare_baseline_name_in_the_workspace_baselines_from_any_folder() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let ws = fake_workspace(t.path());
    let out = t.path().join("out");
    let elsewhere = t.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let farm = |args: &[&str]| Farm::new(args).env(pmfarm::locate::WORKSPACE_ENV, &ws).current_dir(&elsewhere).output();
    assert_exit(&farm(&["run", s(&corpus), "--out", s(&out), "--no-gates", "--no-report", "-j", "2"]), 0);
    // `baseline save` without --baselines writes into the workspace's baselines/ …
    assert_exit(&farm(&["baseline", "save", s(&out), "demo"]), 0);
    assert!(ws.join("baselines/demo.jsonl").is_file(), "saved into the workspace");
    // … `run --baseline demo` compares with it, and `report --baseline demo`, run from
    // another folder, reads it from there too.
    let compared = t.path().join("compared");
    assert_exit(
        &farm(&["run", s(&corpus), "--out", s(&compared), "--no-gates", "--no-report", "--baseline", "demo"]),
        0,
    );
    let o = farm(&["report", s(&compared), "--baseline", "demo"]);
    assert_exit(&o, 0);
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(compared.join(pmschema::files::REPORT).join(pmschema::files::INDEX_JSON)).unwrap(),
    )
    .expect("index.json");
    let source = doc["baseline"]["source"].as_str().unwrap_or_default();
    assert!(source.ends_with("baselines/demo.jsonl"), "report read the workspace baseline: {}", doc["baseline"]);
    // An explicit --baselines folder wins; a name it lacks is a usage error naming it.
    let empty = t.path().join("no-baselines");
    std::fs::create_dir_all(&empty).unwrap();
    let o = farm(&["report", s(&compared), "--baseline", "demo", "--baselines", s(&empty)]);
    assert_exit(&o, 2);
    assert!(String::from_utf8_lossy(&o.stderr).contains("demo"), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn one_shard_names_itself_in_summary_and_journal_and_a_whole_run_does_not() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let shard = t.path().join("shard");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&shard), "--no-gates", "--no-report", "--tiers", "t1"])
        .args(["--shard", "2/3"])
        .output();
    assert_exit(&o, 0);
    assert_eq!(summary(&shard)["shard"], "2/3");
    assert_eq!(journal(&shard)[0]["shard"], "2/3", "a resumption reads the shard back from the journal");
    let whole = t.path().join("whole");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&whole), "--no-gates", "--no-report", "--tiers", "t1"]).output();
    assert_exit(&o, 0);
    assert!(summary(&whole).get("shard").is_none(), "a whole run is no shard");
}
