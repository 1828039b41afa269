//! `pmfarm verify-ledger` on real run folders: consistent after a clean run; each kind of
//! tampering a lost or doubled result would leave is caught (exit 1) and named; a torn
//! last line is tolerated and reported; a folder that does not exist is a usage error.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, demo_corpus, gates_dir, s, Farm};
use reliability_support::*;
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};

const DEMO_FILES: u64 = 14;

/// A finished demo run, copied per test so each can tamper with its own.
fn finished_run(dir: &Path) -> PathBuf {
    let corpus = demo_corpus(dir);
    let gates = gates_dir(dir, "");
    let out = dir.join("out");
    assert_exit(&Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report"]).output(), 0);
    out
}

fn problems(rep: &Value) -> String {
    rep["problems"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect::<Vec<_>>().join("\n")
}

fn rewrite(path: &Path, edit: impl FnOnce(Vec<String>) -> Vec<String>) {
    let lines: Vec<String> = std::fs::read_to_string(path).unwrap().lines().map(str::to_string).collect();
    let text: String = edit(lines).into_iter().map(|l| l + "\n").collect();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_clean_run_is_consistent_and_prints_a_readable_summary() {
    let t = tempfile::tempdir().unwrap();
    let out = finished_run(t.path());
    let rep = assert_ledger_complete(&out, DEMO_FILES);
    assert_eq!((rep["segments"].as_u64(), rep["finished"].as_bool()), (Some(1), Some(true)));
    let o = Farm::new(&["verify-ledger", s(&out)]).output();
    assert_exit(&o, 0);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("14 enumerated, 14 with exactly one result") && text.contains("ledger consistent"), "{text}");
}

#[test]
fn a_doubled_result_in_the_journal_is_running_twice() {
    let t = tempfile::tempdir().unwrap();
    let out = finished_run(t.path());
    rewrite(&out.join(pmschema::files::JOURNAL), |mut lines| {
        let result = lines.iter().position(|l| l.starts_with("{\"record\":\"result\"")).unwrap();
        let path = serde_json::from_str::<Value>(&lines[result]).unwrap()["path"].as_str().unwrap().to_string();
        lines.insert(result + 1, format!("{{\"record\":\"started\",\"path\":\"{path}\"}}"));
        lines.insert(result + 2, lines[result].clone());
        lines
    });
    let (code, rep) = verify_ledger(&out, false);
    assert_eq!(code, 1);
    let p = problems(&rep);
    assert!(p.contains("started again after its result (ran twice)") && p.contains("a second result for"), "{p}");
}

#[test]
fn a_result_missing_from_the_journal_or_from_results_jsonl_is_lost() {
    let t = tempfile::tempdir().unwrap();
    let out = finished_run(t.path());
    rewrite(&out.join(pmschema::files::RESULTS), |mut lines| {
        lines.remove(4);
        lines
    });
    let (code, rep) = verify_ledger(&out, false);
    assert_eq!(code, 1);
    assert!(problems(&rep).contains("is journaled but missing"), "{rep:#}");

    let out = finished_run(&t.path().join("second"));
    rewrite(&out.join(pmschema::files::JOURNAL), |lines| {
        let mut dropped = false;
        lines
            .into_iter()
            .filter(|l| {
                let drop = !dropped && l.starts_with("{\"record\":\"result\"");
                dropped |= drop;
                !drop
            })
            .collect()
    });
    let (code, rep) = verify_ledger(&out, false);
    assert_eq!(code, 1);
    let p = problems(&rep);
    assert!(p.contains("1 file(s) without a result") && p.contains("has no result in the journal"), "{p}");
}

#[test]
fn a_fail_rewritten_as_a_pass_in_results_jsonl_is_caught() {
    let t = tempfile::tempdir().unwrap();
    let out = finished_run(t.path());
    rewrite(&out.join(pmschema::files::RESULTS), |lines| {
        lines.into_iter().map(|l| l.replacen("\"status\":\"fail\"", "\"status\":\"pass\"", 1)).collect()
    });
    let (code, rep) = verify_ledger(&out, false);
    assert_eq!(code, 1);
    let p = problems(&rep);
    assert!(p.contains("differs from its journaled result (status fail there, pass here)"), "{p}");
    assert!(p.contains("summary.json: status counts"), "{p}");
}

#[test]
fn a_torn_last_line_is_tolerated_and_reported_and_a_missing_folder_is_a_usage_error() {
    let t = tempfile::tempdir().unwrap();
    let out = finished_run(t.path());
    let mut j = std::fs::OpenOptions::new().append(true).open(out.join(pmschema::files::JOURNAL)).unwrap();
    j.write_all(b"{\"record\":\"star").unwrap();
    let (code, rep) = verify_ledger(&out, false);
    assert_eq!(code, 0, "{rep:#}");
    assert_eq!(rep["torn_bytes"], 15);
    let o = Farm::new(&["verify-ledger", s(&out)]).output();
    assert!(String::from_utf8_lossy(&o.stdout).contains("torn last line: 15 bytes (tolerated)"));

    assert_exit(&Farm::new(&["verify-ledger", s(&t.path().join("nope"))]).output(), 2);
    assert_exit(&Farm::new(&["verify-ledger"]).output(), 2);
    let (code, rep) = verify_ledger(&t.path().join("demo"), false);
    assert_eq!(code, 1, "a folder without a journal is no verified run: {rep:#}");
}
