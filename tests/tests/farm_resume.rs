//! The journal makes an interrupted run completable: kill -9 the coordinator once the
//! journal holds at least one result and before it holds the last, tear its last line,
//! then `pmfarm run --resume OUT` gives the same results as an uninterrupted run, and no
//! file that had finished runs again.

mod farm_support;
use farm_support::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::time::{Duration, Instant};

/// The last file in path order sleeps silently, so the run cannot finish before the
/// idle limit: the kill is guaranteed to land before the last result.
const SLOW: &str = "max9_gzip.max";

fn args<'a>(corpus: &'a str, out: &'a str, gates: &'a str) -> Vec<&'a str> {
    vec!["run", corpus, "--out", out, "--gates", gates, "-j", "1", "--idle-timeout", "3", "--grace", "1", "--no-report"]
}

fn result_paths(journal: &[Value]) -> Vec<String> {
    journal.iter().filter(|r| r["record"] == "result").map(|r| r["path"].as_str().unwrap().to_string()).collect()
}

#[test]
fn kill_9_then_resume_matches_an_uninterrupted_run_and_runs_nothing_twice() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let (corpus, gates) = (s(&corpus).to_string(), s(&gates).to_string());

    let reference_out = t.path().join("reference");
    let reference = Farm::new(&args(&corpus, s(&reference_out), &gates)).fault("sleep", SLOW).output();
    assert_exit(&reference, 0);
    let expected: BTreeMap<String, Value> = results(&reference_out).into_iter().map(|(k, v)| (k, stable(v))).collect();
    assert_eq!(expected[SLOW]["status"], "timeout");

    let out = t.path().join("interrupted");
    let mut child = Farm::new(&args(&corpus, s(&out), &gates)).fault("sleep", SLOW).command().spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if !result_paths(&journal(&out)).is_empty() {
            break;
        }
        assert!(Instant::now() < deadline, "no result journaled within 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before_kill = result_paths(&journal(&out));
    assert!(!before_kill.is_empty() && before_kill.len() < expected.len(), "killed mid-run: {before_kill:?}");
    assert!(!before_kill.contains(&SLOW.to_string()));
    assert!(!out.join(pmschema::files::RESULTS).exists(), "an interrupted run writes no results.jsonl");

    // A torn last line, as a kill in the middle of a write would leave.
    let mut j = std::fs::OpenOptions::new().append(true).open(out.join(pmschema::files::JOURNAL)).unwrap();
    j.write_all(b"{\"record\":\"result\",\"path\":\"max9_gz").unwrap();
    drop(j);

    let resumed = Farm::new(&["run", "--resume", s(&out), "--gates", &gates, "--idle-timeout", "3", "--no-report"])
        .fault("sleep", SLOW)
        .output();
    assert_exit(&resumed, 0);
    let got: BTreeMap<String, Value> = results(&out).into_iter().map(|(k, v)| (k, stable(v))).collect();
    assert_eq!(got, expected, "resumed results equal the uninterrupted run");

    let records = journal(&out);
    let results_per_path = result_paths(&records).into_iter().fold(BTreeMap::new(), |mut m, p| {
        *m.entry(p).or_insert(0) += 1;
        m
    });
    assert_eq!(results_per_path.len(), expected.len());
    assert!(results_per_path.values().all(|n| *n == 1), "one result per file: {results_per_path:?}");
    let resume_at = records.iter().position(|r| r["record"] == "run" && r["resumed"] == true).expect("resume record");
    let restarted: Vec<&str> =
        records[resume_at..].iter().filter(|r| r["record"] == "started").map(|r| r["path"].as_str().unwrap()).collect();
    for done in &before_kill {
        assert!(!restarted.contains(&done.as_str()), "{done} finished before the kill and ran again");
    }
    assert_eq!(restarted.len() + before_kill.len(), expected.len(), "every unfinished file ran exactly once more");
}
