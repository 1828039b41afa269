//! Nothing passes silently (issue 22), through the real `pmfarm` binary: gates and
//! baselines are validated before the first worker starts (previous outputs untouched),
//! a gate that checks nothing is an error, skips are never passes, regressions are named
//! with their kind, every path the enumeration meets ends in a status, and an installed
//! copy of the binary outside the workspace applies the same rules or says what to pass.

mod farm_support;

use farm_support::*;
use std::path::{Path, PathBuf};
use std::process::Output;

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// An output folder holding a previous run's outputs, which a refused run must not touch.
fn previous_outputs(dir: &Path) -> PathBuf {
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    for f in [pmschema::files::RESULTS, pmschema::files::SUMMARY] {
        std::fs::write(out.join(f), "previous run").unwrap();
    }
    out
}

fn untouched(out: &Path) {
    for f in [pmschema::files::RESULTS, pmschema::files::SUMMARY] {
        assert_eq!(std::fs::read_to_string(out.join(f)).unwrap(), "previous run", "{f} untouched");
    }
    assert!(!out.join(pmschema::files::JOURNAL).exists(), "no worker started");
}

/// Runs the demo corpus with `gates` (TOML) and extra arguments.
fn run_with_gates(dir: &Path, toml: &str, extra: &[&str]) -> (Output, PathBuf) {
    let corpus = demo_corpus(dir);
    let gates = gates_dir(dir, toml);
    let out = dir.join("out");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report"]).args(extra).output();
    (o, out)
}

#[test]
fn gate_configuration_errors_exit_2_before_any_worker_and_leave_previous_outputs() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let cases: [(&str, &str); 5] = [
        ("", "holds no *.toml rule file"),
        ("# nothing\n", "no [[gate]] rule"),
        ("[[gate]]\nname = \"lazy\"\ntier = \"t1\"\n", "gate `lazy`: no metric"),
        ("[[gate]]\nname = \"nowhere\"\nbuckets = []\nmax_abnormal = 0\n", "buckets must list at least one"),
        ("[[gate]]\nname = \"x\"\ntier = \"t1\"\nmin_pass_rate = 1.5\n", "min_pass_rate must be within 0..1"),
    ];
    for (i, (toml, want)) in cases.iter().enumerate() {
        let case = t.path().join(format!("case{i}"));
        let out = previous_outputs(&case);
        let gates = case.join("gates");
        std::fs::create_dir_all(&gates).unwrap();
        if !toml.is_empty() {
            std::fs::write(gates.join("g.toml"), toml).unwrap();
        }
        let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates)]).output();
        assert_exit(&o, 2);
        assert!(stderr(&o).contains(want), "case {i}: want {want:?} in {}", stderr(&o));
        untouched(&out);
    }
    let out = previous_outputs(&t.path().join("missing"));
    let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", "/nonexistent/gates"]).output();
    assert_exit(&o, 2);
    let e = stderr(&o);
    assert!(e.contains("/nonexistent/gates") && e.contains("--gates DIR") && e.contains("--no-gates"), "{e}");
    untouched(&out);
}

#[test]
fn a_bucket_glob_matching_nothing_fails_naming_the_closest_buckets() {
    let t = tempfile::tempdir().unwrap();
    let (o, _) = run_with_gates(t.path(), "[[gate]]\nname = \"typo\"\nbuckets = [\"alll\"]\nmax_abnormal = 0\n", &[]);
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(e.contains("GATE FAILED test/typo"), "{e}");
    assert!(e.contains("matched no bucket") && e.contains("closest bucket names: all"), "{e}");
}

#[test]
fn a_gated_run_that_checked_nothing_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    // A T3 rule on a run that did not request T3 (T3 is a default tier: ask for T1 and T2
    // only): not applicable, so nothing was checked.
    let (o, out) =
        run_with_gates(t.path(), "[[gate]]\nname = \"t3\"\ntier = \"t3\"\nmin_ran = 1\n", &["--tiers", "t1,t2"]);
    assert_exit(&o, 1);
    assert!(stderr(&o).contains("GATES CHECKED NOTHING"), "{}", stderr(&o));
    assert!(stdout(&o).contains("0 checked, 1 not checked"), "{}", stdout(&o));
    let g = &summary(&out)["gates"][0];
    assert_eq!(g["checked"], false);
    assert!(g["detail"].as_str().unwrap().contains("not requested"), "{g}");
    // The console names the rule and says why, as summary.json does.
    let why = format!("pmfarm: gate test/t3 not checked: {}", g["detail"].as_str().unwrap());
    assert!(stdout(&o).lines().any(|l| l == why), "{why}\n{}", stdout(&o));
}

#[test]
fn skips_are_not_passes() {
    let t = tempfile::tempdir().unwrap();
    // T3 requested without references: every T3 verdict is a `no-reference` skip.
    let toml = "[[gate]]\nname = \"t3-ran\"\ntier = \"t3\"\nmin_pass_rate = 1.0\nmin_ran = 1\nmax_skip_rate = 0.5\n";
    let (o, out) = run_with_gates(t.path(), toml, &["--tiers", "t1,t3", "--export", "obj"]);
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(e.contains("GATE FAILED test/t3-ran [bucket all, tier t3]: min_ran = 0 (threshold 1)"), "{e}");
    assert!(e.contains("max_skip_rate = 1 (threshold 0.5000)") && e.contains("no-reference"), "{e}");
    let gates = summary(&out)["gates"].as_array().unwrap().clone();
    let rate = gates.iter().find(|g| g["metric"] == "min_pass_rate").unwrap();
    assert_eq!(rate["checked"], false, "a pass rate over zero files that ran is not a pass: {rate}");

    // The default gates' T3 rule on the same run: no floor or cap names `obj`'s absent
    // comparisons except `obj`, whose skips are `reference-absent` (never unexplained); the
    // floors check nothing, the other rules do, and the corrupt input is an expected failure
    // class of the file-status rule.
    let t2 = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t2.path());
    let out = t2.path().join("out");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--tiers", "t1,t3", "--export", "obj", "--no-report"])
        .output();
    assert_exit(&o, 0);
    let gates = summary(&out)["gates"].as_array().unwrap().clone();
    let t3: Vec<&serde_json::Value> = gates.iter().filter(|g| g["name"] == "default/t3-exports-match").collect();
    for floor in t3.iter().filter(|g| g["metric"].as_str().unwrap().starts_with("t3_floor:")) {
        assert_eq!(floor["checked"], false, "{floor}");
        assert!(floor["detail"].as_str().unwrap().contains("no T3 result of a comparison matching"), "{floor}");
    }
    let obj = t3.iter().find(|g| g["metric"] == "t3_max_unexplained:obj").unwrap();
    assert_eq!((&obj["checked"], &obj["passed"], &obj["value"]), (&true.into(), &true.into(), &0.0.into()), "{obj}");
    let status = gates.iter().find(|g| g["metric"] == "expected_fails").unwrap();
    assert_eq!(status["passed"], true, "{status}");
}

#[test]
fn an_abnormal_end_counts_once_under_the_abnormal_end_rule() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(
        t.path(),
        "[[gate]]\nname = \"t2\"\ntier = \"t2\"\nmin_pass_rate = 1.0\n\
         [[gate]]\nname = \"no-abnormal-end\"\nmax_abnormal = 0\n",
    );
    let out = t.path().join("out");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report"])
        .fault("panic", VICTIM)
        .output();
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(e.contains("GATE FAILED test/no-abnormal-end") && e.contains(VICTIM), "{e}");
    assert!(!e.contains("GATE FAILED test/t2"), "the crash is not also a T2 failure: {e}");
}

#[test]
fn malformed_or_missing_baselines_exit_2_before_any_worker() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let baselines = t.path().join("baselines");
    std::fs::create_dir_all(&baselines).unwrap();
    let good = r#"{"path":"max9_box.max","status":"pass","verdicts":{"t1:Scene":"pass"}}"#;
    let cases = [
        ("wonderful", format!("{good}\n{{\"path\":\"a.max\",\"status\":\"wonderful\"}}\n"), ":2: unknown status"),
        ("conflict", format!("{good}\n{}\n", good.replace("\"pass\"}", "\"fail\"}")), ":2: max9_box.max conflicts"),
        ("nostatus", "{\"path\":\"a.max\"}\n".to_string(), ":1: missing field `status`"),
        ("absent", String::new(), "No such file"),
    ];
    for (name, text, want) in cases {
        if name != "absent" {
            std::fs::write(baselines.join(format!("{name}.jsonl")), text).unwrap();
        }
        let out = previous_outputs(&t.path().join(name));
        let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--baseline", name, "--baselines", s(&baselines)])
            .output();
        assert_exit(&o, 2);
        let e = stderr(&o);
        assert!(e.contains(&format!("{name}.jsonl")) && e.contains(want), "{name}: want {want:?} in {e}");
        untouched(&out);
    }
}

#[test]
fn regressions_are_named_with_their_kind_and_gates_can_allow_a_kind() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let baselines = t.path().join("baselines");
    let first = t.path().join("first");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&first), "--no-gates", "--no-report"]).output();
    assert_exit(&o, 0);
    let o = Farm::new(&["baseline", "save", s(&first), "before", "--baselines", s(&baselines)]).output();
    assert_exit(&o, 0);
    // The baseline says T1 also ran a stream that this run no longer reports, and that a
    // T2 stream passed where this run finds it degraded-free but skipped.
    let path = baselines.join("before.jsonl");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut lines: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let box9 = lines.iter_mut().find(|l| l["path"] == "max9_box.max").unwrap();
    box9["verdicts"]["t1:Vanished"] = "pass".into();
    let skipped_t2 = results(&first)["max9_box.max"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["tier"] == "t2" && r["verdict"] == "skip")
        .map(|r| r["stream"].as_str().unwrap().to_string());
    if let Some(stream) = &skipped_t2 {
        box9["verdicts"][format!("t2:{stream}")] = "pass".into();
    }
    let text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    let gates = gates_dir(t.path(), "[[gate]]\nname = \"no-regressions\"\nmax_regressions = 0\n");
    let out = t.path().join("second");
    let common = ["--baseline", "before", "--baselines", s(&baselines), "--no-report"];
    let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates)]).args(common).output();
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(e.contains("max9_box.max (to-absent"), "{e}");
    let diff: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join(pmschema::files::BASELINE_DIFF)).unwrap()).unwrap();
    let file = diff["files"].as_array().unwrap().iter().find(|f| f["path"] == "max9_box.max").unwrap();
    assert_eq!(file["class"], "regressed");
    let kinds: Vec<&str> = file["changes"].as_array().unwrap().iter().filter_map(|c| c["kind"].as_str()).collect();
    assert!(kinds.contains(&"to-absent"), "{kinds:?}");
    if skipped_t2.is_some() {
        assert!(kinds.contains(&"to-skip"), "{kinds:?}");
    }

    let allowing = t.path().join("allowing");
    std::fs::create_dir_all(&allowing).unwrap();
    std::fs::write(
        allowing.join("g.toml"),
        "[[gate]]\nname = \"tolerant\"\nmax_regressions = 0\nallow_regressions = [\"to-absent\", \"to-skip\"]\n",
    )
    .unwrap();
    let o = Farm::new(&["run", s(&corpus), "--out", s(&t.path().join("third")), "--gates", s(&allowing)])
        .args(common)
        .output();
    assert_exit(&o, 0);
}

#[test]
fn every_path_the_enumeration_meets_ends_in_a_status() {
    use std::os::unix::ffi::OsStrExt;
    let t = tempfile::tempdir().unwrap();
    let demo = demo_corpus(t.path());
    let c = t.path().join("corpus");
    std::fs::create_dir_all(c.join("real")).unwrap();
    let box_max = std::fs::read(demo.join("max9_box.max")).unwrap();
    std::fs::write(c.join("real/box.max"), &box_max).unwrap();
    for name in [&b"d\xe9cor.max"[..], b"d\xe8cor.max"] {
        std::fs::write(c.join(std::ffi::OsStr::from_bytes(name)), &box_max).unwrap();
    }
    std::os::unix::fs::symlink(c.join("real"), c.join("linked")).unwrap();
    std::os::unix::fs::symlink(&c, c.join("real/loop-up")).unwrap();
    std::os::unix::fs::symlink(c.join("missing.max"), c.join("dangling.max")).unwrap();
    std::os::unix::fs::symlink(c.join("self.max"), c.join("self.max")).unwrap();
    let fifo = std::ffi::CString::new(c.join("pipe.max").as_os_str().as_bytes()).unwrap();
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);

    let out = t.path().join("out");
    let gates = gates_dir(
        t.path(),
        "[[gate]]\nname = \"file-status\"\ntier = \"file\"\nexpected_skips = [\"lfs-pointer\", \"empty\", \"not-ole\"]\n",
    );
    let o = Farm::new(&["run", s(&c), "--out", s(&out), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(e.contains("unexpected skips:") && e.contains("dangling-link"), "{e}");
    let r = results(&out);
    let reason = |p: &str| r[p]["reason"].as_str().unwrap_or_default().to_string();
    assert_eq!(r["d\\xE8cor.max"]["status"], "pass", "{:?}", r.keys());
    assert_eq!(r["d\\xE9cor.max"]["status"], "pass");
    assert_eq!(r["dangling.max"]["status"], "skip");
    assert!(reason("dangling.max").starts_with("dangling-link: "), "{}", reason("dangling.max"));
    assert!(reason("self.max").starts_with("symlink-loop: "), "{}", reason("self.max"));
    assert!(reason("pipe.max").starts_with("not-a-file: "), "{}", reason("pipe.max"));
    let boxes: Vec<&String> = r.keys().filter(|k| k.ends_with("box.max")).collect();
    assert_eq!(boxes.len(), 1, "the symlinked folder is walked once: {boxes:?}");
    assert_eq!(r.len(), 6, "{:?}", r.keys());
    assert!(stdout(&o).contains("6 files"), "{}", stdout(&o));

    // An unreadable folder is an infra error naming the path and the OS error. Root reads a
    // mode-000 folder, so under root the farm runs as `nobody` (setpriv) for this part.
    let locked = c.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::write(locked.join("x.max"), &box_max).unwrap();
    std::fs::write(c.join("secret.max"), &box_max).unwrap();
    set_mode(&c.join("secret.max"), 0o000);
    let privileged = {
        set_mode(&locked, 0o000);
        std::fs::read_dir(&locked).is_ok()
    };
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].map(PathBuf::from).into_iter().find(|p| p.is_file());
    let out = t.path().join("out-locked");
    let o = match (privileged, setpriv) {
        (false, _) => Farm::new(&["run", s(&c), "--out", s(&out), "--no-gates", "--no-report"]).output(),
        (true, Some(setpriv)) => {
            set_mode(t.path(), 0o755);
            std::fs::create_dir_all(&out).unwrap();
            set_mode(&out, 0o777);
            let farm = installed_copy(t.path());
            Farm::at(&farm, &["run", s(&c), "--out", s(&out), "--no-gates", "--no-report"])
                .wrapped_in(&setpriv, &["--reuid=65534", "--regid=65534", "--clear-groups"])
                .output()
        }
        (true, None) => {
            set_mode(&locked, 0o755);
            eprintln!("SKIP (unreadable folder part): root reads a mode-000 folder and setpriv is missing");
            return;
        }
    };
    set_mode(&locked, 0o755);
    assert_exit(&o, 0);
    let r = results(&out);
    assert_eq!(r["locked"]["status"], "infra-error", "{:?}", r.keys());
    let why = r["locked"]["reason"].as_str().unwrap();
    assert!(why.contains("cannot read folder") && why.contains("locked") && why.contains("os error 13"), "{why}");
    assert_eq!(r["secret.max"]["status"], "infra-error");
    let why = r["secret.max"]["reason"].as_str().unwrap();
    assert!(why.contains("cannot open") && why.contains("secret.max") && why.contains("os error 13"), "{why}");
}

fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// `pmfarm` and `pmworker` copied into a folder outside the workspace.
fn installed_copy(dir: &Path) -> PathBuf {
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for name in ["pmfarm", "pmworker"] {
        std::fs::copy(pmtests::binary(name), bin.join(name)).unwrap();
    }
    bin.join("pmfarm")
}

fn gate_keys(out: &Path) -> Vec<String> {
    summary(out)["gates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| format!("{} {} {} {}", g["name"], g["bucket"], g["metric"], g["passed"]))
        .collect()
}

#[test]
fn an_installed_copy_outside_the_workspace_applies_the_same_gates_or_says_what_to_pass() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let farm = installed_copy(t.path());
    let run = |cwd: &Path, out: &Path, extra: &[&str], env: Option<&str>| {
        let farm = Farm::at(&farm, &["run", s(&corpus), "--out", s(out), "--no-report"]).current_dir(cwd).args(extra);
        match env {
            Some(ws) => farm.env(pmfarm::locate::WORKSPACE_ENV, ws),
            None => farm.env_remove(pmfarm::locate::WORKSPACE_ENV),
        }
        .output()
    };
    let inside = t.path().join("inside");
    let o = Farm::new(&["run", s(&corpus), "--out", s(&inside), "--no-report"]).output();
    assert_exit(&o, 0);
    let outside = t.path().join("outside");
    let o = run(t.path(), &outside, &[], None);
    assert_exit(&o, 0);
    let gates_dir = pmtests::workspace_root().join("gates");
    assert!(stdout(&o).contains(&format!("gates ({})", gates_dir.display())), "{}", stdout(&o));
    assert_eq!(gate_keys(&inside), gate_keys(&outside), "the same rules from any folder");
    assert!(gate_keys(&outside).iter().any(|k| k.contains("default/file-status")));

    // A copy that belongs to no workspace: exit 2, telling what to pass.
    let o = run(t.path(), &t.path().join("lost"), &[], Some("/nonexistent/workspace"));
    assert_exit(&o, 2);
    let e = stderr(&o);
    assert!(e.contains("pass --gates DIR, or --no-gates"), "{e}");
    let o = run(t.path(), &t.path().join("ungated"), &["--no-gates"], Some("/nonexistent/workspace"));
    assert_exit(&o, 0);
    assert!(stdout(&o).contains("gates: none (--no-gates)"), "{}", stdout(&o));
    let o = run(t.path(), &t.path().join("explicit"), &["--gates", s(&gates_dir)], Some("/nonexistent/workspace"));
    assert_exit(&o, 0);
}

#[test]
fn the_public_corpus_is_checked_by_the_same_default_rules_from_any_folder() {
    let Some(public) = pmtests::public_corpus() else { return };
    let t = tempfile::tempdir().unwrap();
    let farm = installed_copy(t.path());
    let mut keys = Vec::new();
    for (i, cwd) in [t.path().to_path_buf(), pmtests::workspace_root(), PathBuf::from("/")].iter().enumerate() {
        let out = t.path().join(format!("out{i}"));
        let o = Farm::at(&farm, &["run", s(&public), "--out", s(&out), "--tiers", "t1", "--no-report"])
            .current_dir(cwd)
            .env_remove(pmfarm::locate::WORKSPACE_ENV)
            .output();
        assert!(matches!(o.status.code(), Some(0 | 1)), "{o:?}");
        keys.push(gate_keys(&out));
    }
    assert!(keys[0].iter().any(|k| k.contains("default/t1-byte-exact")), "{:?}", keys[0]);
    assert_eq!(keys[0], keys[1]);
    assert_eq!(keys[0], keys[2]);
}

#[test]
fn in_a_shard_the_bucket_check_waits_for_merge() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "[[gate]]\nname = \"typo\"\nbuckets = [\"alll\"]\nmax_abnormal = 0\n");
    let mut outs = Vec::new();
    for k in ["1/2", "2/2"] {
        let out = t.path().join(format!("shard{}", &k[..1]));
        let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--shard", k, "--no-report"])
            .output();
        assert_exit(&o, 0);
        let g = &summary(&out)["gates"][0];
        assert_eq!(g["checked"], false, "{g}");
        assert!(g["detail"].as_str().unwrap().contains("pmfarm merge"), "{g}");
        outs.push(out);
    }
    let merged = t.path().join("merged");
    let o = Farm::new(&["merge", s(&outs[0]), s(&outs[1]), "--out", s(&merged), "--no-report"]).output();
    assert_exit(&o, 1);
    let e = stderr(&o);
    assert!(e.contains("matched no bucket") && e.contains("closest bucket names: all"), "{e}");
}
