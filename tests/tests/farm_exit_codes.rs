//! Each exit code of `pmfarm run` produced by the real binary: 0 gates pass, 1 a gate
//! failed (each failing gate printed with its numbers), 2 usage or configuration error,
//! 77 nothing runnable (no corpus, or only pointers and skips — with the reason on stderr).

mod farm_support;
use farm_support::*;

fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn exit_0_when_every_gate_passes_and_the_default_run_reports_where_it_wrote() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    // No paths: the embedded demo corpus, the workspace's own gates, the report.
    let out = Farm::new(&["run", "--out", s(&out_dir)]).output();
    assert_exit(&out, 0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("results in"), "{stdout}");
    let summary = summary(&out_dir);
    assert_eq!(summary["files"], 14);
    assert!(!summary["gates"].as_array().unwrap().is_empty(), "the default gates were evaluated");
    assert!(summary["gates"].as_array().unwrap().iter().all(|g| g["passed"] == true));
    let st = statuses(&out_dir);
    assert_eq!(st["corrupt.max"], "fail");
    assert_eq!(st["lfs_pointer.max"], "skip");
    assert_eq!(st["empty.max"], "skip");
    assert_eq!(st.values().filter(|s| *s == "pass").count(), 11);
}

#[test]
fn exit_1_prints_each_failing_gate_with_its_numbers() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(
        t.path(),
        "[[gate]]\nname = \"every-file-passes\"\nbuckets = [\"all\", \"max-2*\"]\ntier = \"file\"\nmin_pass_rate = 1.0\n",
    );
    let out_dir = t.path().join("out");
    let out = Farm::new(&["run", s(&corpus), "--out", s(&out_dir), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&out, 1);
    let err = stderr(&out);
    // 11 pass of 12 runnable (two skips are not judged; corrupt.max fails; nel_rig.skel passes).
    assert!(
        err.contains(
            "GATE FAILED test/every-file-passes [bucket all, tier file]: min_pass_rate = 0.9167 (threshold 1)"
        ),
        "{err}"
    );
    assert!(err.contains("corrupt.max"), "{err}");
    let summary = summary(&out_dir);
    let failed: Vec<_> = summary["gates"].as_array().unwrap().iter().filter(|g| g["passed"] == false).collect();
    assert_eq!(failed.len(), 1, "the max-2* buckets all pass: {failed:#?}");
}

#[test]
fn exit_2_for_usage_and_configuration_errors() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let out_dir = t.path().join("out");
    let out = Farm::new(&["run", "--no-such-flag"]).output();
    assert_exit(&out, 2);
    let out = Farm::new(&["run", s(&corpus), "--out", s(&out_dir), "--timeout", "soon"]).output();
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("--timeout"), "{}", stderr(&out));
    let bad_gates = gates_dir(t.path(), "[[gate]]\nname = \"x\"\nmin_pass_rat = 1.0\n");
    let out = Farm::new(&["run", s(&corpus), "--out", s(&out_dir), "--gates", s(&bad_gates)]).output();
    assert_exit(&out, 2);
    assert!(stderr(&out).contains("test.toml"), "the bad gate file is named: {}", stderr(&out));
    let out = Farm::new(&["run", s(&corpus), "--out", s(&out_dir), "--worker", "/nonexistent/pmworker"]).output();
    assert_exit(&out, 2);
    let out = Farm::new(&["run", s(&corpus), "--out", s(&out_dir), "--baseline", "no-such-baseline"])
        .args(["--baselines", s(t.path())])
        .output();
    assert_exit(&out, 2);
}

#[test]
fn exit_77_when_nothing_is_runnable() {
    let t = tempfile::tempdir().unwrap();
    let out_dir = t.path().join("out");
    let gates = gates_dir(t.path(), "");

    let absent = t.path().join("no-corpus-here");
    let out = Farm::new(&["run", s(&absent), "--out", s(&out_dir), "--gates", s(&gates)]).output();
    assert_exit(&out, 77);
    assert!(stderr(&out).contains("does not exist"), "{}", stderr(&out));

    let empty_dir = t.path().join("empty-dir");
    std::fs::create_dir_all(&empty_dir).unwrap();
    let out = Farm::new(&["run", s(&empty_dir), "--out", s(&out_dir), "--gates", s(&gates)]).output();
    assert_exit(&out, 77);
    assert!(stderr(&out).contains("no .max files"), "{}", stderr(&out));

    // Only an LFS pointer and an empty file: every file gets its skip status, and the
    // run is still not green.
    let demo = demo_corpus(t.path());
    let skips = t.path().join("skips");
    std::fs::create_dir_all(&skips).unwrap();
    for f in ["lfs_pointer.max", "empty.max"] {
        std::fs::copy(demo.join(f), skips.join(f)).unwrap();
    }
    let out = Farm::new(&["run", s(&skips), "--out", s(&out_dir), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&out, 77);
    assert!(stderr(&out).contains("all 2 file(s) were skipped (1 empty, 1 lfs-pointer)"), "{}", stderr(&out));
    assert_eq!(statuses(&out_dir).values().filter(|s| *s == "skip").count(), 2);
}
