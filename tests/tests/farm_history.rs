//! `--history FILE`: one line of headline numbers per finished run, appended to a file the
//! user keeps; the report draws the newest runs as trend charts and `pmfarm history FILE`
//! prints them. Driven through the real binary on the demo corpus.

mod farm_support;
use farm_support::*;
use serde_json::Value;
use std::time::{Duration, Instant};

fn history_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a history line is JSON"))
        .collect()
}

#[test]
fn three_runs_make_three_points_and_the_table_lists_them() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let history = t.path().join("nightly/history.jsonl");
    for night in 0..3 {
        let out = t.path().join(format!("night-{night}"));
        let run =
            Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--history", s(&history)]).output();
        assert_exit(&run, 0);
        let lines = history_lines(&history);
        assert_eq!(lines.len(), night + 1, "one line per finished run");
        let html =
            std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::INDEX_HTML)).unwrap();
        let chart = html
            .split(r#"id="trend-pass-rate""#)
            .nth(1)
            .expect("pass-rate trend chart")
            .split("</svg>")
            .next()
            .unwrap();
        assert_eq!(chart.matches("<circle").count(), night + 1, "one point per run so far");
    }
    let lines = history_lines(&history);
    let files = lines[0]["files"].as_u64().unwrap();
    let summary = summary(&t.path().join("night-2"));
    assert_eq!(files, summary["files"].as_u64().unwrap(), "the line counts what summary.json counts");
    let pass = summary["status_counts"]["pass"].as_f64().unwrap();
    let skip = summary["status_counts"]["skip"].as_f64().unwrap();
    let rate = lines[2]["pass_rate"].as_f64().unwrap();
    assert!((rate - pass / (files as f64 - skip)).abs() < 1e-9, "pass rate = pass ÷ files not skipped: {rate}");
    assert!(lines.iter().all(|l| l["date"].as_str().is_some_and(|d| d.ends_with('Z') && d.len() == 20)));

    // Saving and promoting baselines from these runs leaves the history as it was.
    let before = std::fs::read(&history).unwrap();
    let baselines = t.path().join("baselines");
    let night = |n: usize| t.path().join(format!("night-{n}"));
    assert_exit(&Farm::new(&["baseline", "save", s(&night(1)), "nightly", "--baselines", s(&baselines)]).output(), 0);
    assert_exit(
        &Farm::new(&["baseline", "promote", s(&night(2)), "nightly", "--baselines", s(&baselines)]).output(),
        0,
    );
    assert_eq!(std::fs::read(&history).unwrap(), before, "baseline commands never touch the history");

    let printed = Farm::new(&["history", s(&history)]).output();
    assert_exit(&printed, 0);
    let text = String::from_utf8_lossy(&printed.stdout);
    assert_eq!(text.lines().count(), 4, "a header and three rows:\n{text}");
    let last = Farm::new(&["history", s(&history), "--last", "1"]).output();
    assert_eq!(String::from_utf8_lossy(&last.stdout).lines().count(), 2);
}

#[test]
fn a_run_without_the_flag_appends_nothing_and_a_damaged_history_stops_the_run_before_it_starts() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    assert_exit(&Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report"]).output(), 0);
    assert!(!out.join("history.jsonl").exists());

    let damaged = t.path().join("damaged.jsonl");
    std::fs::write(&damaged, "{not json}\n{\"also\": \"not an entry\"}\n").unwrap();
    let out2 = t.path().join("out2");
    let run =
        Farm::new(&["run", s(&corpus), "--out", s(&out2), "--gates", s(&gates), "--history", s(&damaged)]).output();
    assert_exit(&run, 2);
    assert!(String::from_utf8_lossy(&run.stderr).contains("line 1"), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(!out2.join(pmschema::files::JOURNAL).exists(), "no file ran");
}

#[test]
fn shards_leave_the_history_to_merge_which_appends_one_line() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let history = t.path().join("history.jsonl");
    let refused = Farm::new(&["run", s(&corpus), "--shard", "1/2", "--gates", s(&gates), "--history", s(&history)])
        .args(["--out", s(&t.path().join("refused"))])
        .output();
    assert_exit(&refused, 2);
    let mut outs = Vec::new();
    for k in 1..=2 {
        let out = t.path().join(format!("shard-{k}"));
        let spec = format!("{k}/2");
        let run =
            Farm::new(&["run", s(&corpus), "--shard", &spec, "--out", s(&out), "--gates", s(&gates), "--no-report"])
                .output();
        assert!(matches!(run.status.code(), Some(0) | Some(77)), "{run:?}");
        outs.push(out);
    }
    let merged = t.path().join("merged");
    let merge = Farm::new(&["merge", s(&outs[0]), s(&outs[1]), "--out", s(&merged), "--history", s(&history)]).output();
    assert_exit(&merge, 0);
    let lines = history_lines(&history);
    assert_eq!(lines.len(), 1, "one line for the merged run");
    assert_eq!(lines[0]["files"].as_u64(), summary(&merged)["files"].as_u64());
}

#[test]
fn an_interrupted_run_appends_nothing_and_its_resumption_appends_once() {
    const SLOW: &str = "max9_gzip.max";
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let history = t.path().join("history.jsonl");
    let out = t.path().join("out");
    let mut child = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "1"])
        .args(["--idle-timeout", "3", "--grace", "1", "--no-report", "--history", s(&history)])
        .fault("sleep", SLOW)
        .command()
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !journal(&out).iter().any(|r| r["record"] == "result") {
        assert!(Instant::now() < deadline, "no result journaled within 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(history_lines(&history).is_empty(), "a killed run appends nothing");
    let resumed = Farm::new(&["run", "--resume", s(&out), "--gates", s(&gates), "--idle-timeout", "3"])
        .args(["--grace", "1", "--no-report", "--history", s(&history)])
        .fault("sleep", SLOW)
        .output();
    assert_exit(&resumed, 0);
    let lines = history_lines(&history);
    assert_eq!(lines.len(), 1, "the resumed run appends one line");
    assert_eq!(lines[0]["files"].as_u64(), summary(&out)["files"].as_u64());
}
