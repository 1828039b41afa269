//! `--in-process` runs the same pipeline code inside the farm (rayon, no isolation, for
//! benchmarks): on the demo corpus it gives the same statuses, verdicts and buckets as
//! the isolated run, and journals every file.

mod farm_support;
use farm_support::*;

#[test]
fn in_process_mode_matches_the_isolated_run() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let isolated = t.path().join("isolated");
    let in_process = t.path().join("in-process");
    let common = ["--gates", s(&gates), "--no-report", "-j", "2"];
    assert_exit(&Farm::new(&["run", s(&corpus), "--out", s(&isolated)]).args(common).output(), 0);
    assert_exit(&Farm::new(&["run", s(&corpus), "--out", s(&in_process), "--in-process"]).args(common).output(), 0);
    let a = results(&isolated);
    let b = results(&in_process);
    assert_eq!(a.len(), 14);
    assert_eq!(a.keys().collect::<Vec<_>>(), b.keys().collect::<Vec<_>>());
    for (path, x) in &a {
        let y = &b[path];
        for field in ["status", "reason", "results", "buckets", "signatures", "triage", "sha256", "input"] {
            assert_eq!(x[field], y[field], "{path}: {field}");
        }
    }
    let journaled = journal(&in_process).iter().filter(|r| r["record"] == "result").count();
    assert_eq!(journaled, 14);
}
