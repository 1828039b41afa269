//! The lines `pmfarm run`, `run --resume` and `merge` close with, exactly and in order: the
//! engine hands back values and only `main.rs` prints them, so these pin what operators and
//! scripts read (`docs/farm.md`). Driven through the real binary on the demo corpus.

mod farm_support;
use farm_support::*;
use pmschema::files::{INDEX_HTML, REPORT, RESULTS, SUMMARY};
use std::path::Path;
use std::process::Output;

fn stdout_lines(o: &Output) -> Vec<String> {
    String::from_utf8_lossy(&o.stdout).lines().map(str::to_string).collect()
}

fn stderr_text(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn files(out: &Path) -> u64 {
    summary(out)["files"].as_u64().expect("summary.files")
}

#[test]
fn run_resume_and_merge_close_with_the_same_lines_as_before_the_engine_returned_values() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let out = t.path().join("out");
    let history = t.path().join("history.jsonl");
    let run =
        Farm::new(&["run", s(&corpus), "--out", s(&out), "--no-gates", "--history", s(&history), "-j", "2"]).output();
    assert_exit(&run, 0);
    let lines = stdout_lines(&run);
    let n = files(&out);
    assert_eq!(lines.len(), 5, "{lines:#?}");
    assert!(lines[0].starts_with(&format!("pmfarm: {n} files: ")), "{lines:#?}");
    assert_eq!(lines[1], "pmfarm: gates: none (--no-gates)");
    assert_eq!(lines[2], format!("pmfarm: results in {}", out.join(RESULTS).display()));
    assert_eq!(lines[3], format!("pmfarm: history: appended to {}", history.display()));
    assert_eq!(lines[4], format!("pmfarm: report: {}", out.join(REPORT).join(INDEX_HTML).display()));

    // A resumption of the finished run says where it starts (stderr), then closes the same way.
    let resumed = Farm::new(&["run", "--resume", s(&out), "--no-gates", "--no-report"]).output();
    assert_exit(&resumed, 0);
    let err = stderr_text(&resumed);
    assert!(err.contains(&format!("pmfarm: resuming {}: {n} of {n} files already done\n", out.display())), "{err}");
    let lines = stdout_lines(&resumed);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines[0].starts_with(&format!("pmfarm: {n} files: ")), "{lines:#?}");
    assert_eq!(lines[2], format!("pmfarm: results in {}", out.join(RESULTS).display()));

    // Two shards merged: the merge's own three lines, and no report line.
    let mut shards = Vec::new();
    for k in ["1/2", "2/2"] {
        let shard = t.path().join(format!("shard{}", &k[..1]));
        let o = Farm::new(&["run", s(&corpus), "--out", s(&shard), "--no-gates", "--no-report", "--shard", k]).output();
        assert_exit(&o, 0);
        shards.push(shard);
    }
    let merged = t.path().join("merged");
    let merged_history = t.path().join("merged-history.jsonl");
    let o = Farm::new(&["merge", s(&shards[0]), s(&shards[1]), "--out", s(&merged)])
        .args(["--no-gates", "--history", s(&merged_history)])
        .output();
    assert_exit(&o, 0);
    let lines = stdout_lines(&o);
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines[0].starts_with(&format!("pmfarm merge: 2 shard(s), {n} files: ")), "{lines:#?}");
    assert_eq!(lines[1], format!("pmfarm merge: results in {}", merged.join(RESULTS).display()));
    assert_eq!(lines[2], format!("pmfarm merge: history: appended to {}", merged_history.display()));
    assert!(stderr_text(&o).is_empty(), "{}", stderr_text(&o));

    // A merge that cannot read its inputs stops before writing anything: one line, exit 2.
    let o = Farm::new(&["merge", s(&t.path().join("absent")), "--out", s(&t.path().join("m2")), "--no-gates"]).output();
    assert_exit(&o, 2);
    let err = stderr_text(&o);
    assert!(err.starts_with("pmfarm merge: ") && err.contains(SUMMARY), "{err}");
    assert!(stdout_lines(&o).is_empty());
}
