//! The farm isolates each worker: a crashing, aborting, panicking, hanging, memory-hungry
//! or garbage-printing worker (the worker's own fault hook, aimed at one file through
//! `PMWORKER_FAULT_FILE`) gets the right status while every other file of the run gets
//! exactly the status it gets in a clean run.

mod farm_support;
use farm_support::*;

/// (path, status) of every file but the victim.
type Statuses = Vec<(String, String)>;

/// How the farm starts its own workers (`--worker-start`): every fault is checked both ways.
const WORKER_STARTS: [&str; 2] = ["zygote", "spawn"];

/// Runs the demo corpus with `action` fired at the victim's first T1 breadcrumb, workers
/// started the `start` way, and returns (victim result, clean statuses, faulty statuses).
fn run_with_fault(action: &str, start: &str) -> (serde_json::Value, Statuses, Statuses) {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let limits = [
        "--timeout",
        "30",
        "--idle-timeout",
        "3",
        "--grace",
        "1",
        "--memory",
        "512M",
        "-j",
        "2",
        "--no-report",
        "--worker-start",
        start,
    ];
    let clean_out = t.path().join("clean");
    let clean = Farm::new(&["run", s(&corpus), "--out", s(&clean_out), "--gates", s(&gates)]).args(limits).output();
    assert_exit(&clean, 0);
    let out = t.path().join("faulty");
    let faulty = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates)])
        .args(limits)
        .fault(&format!("{action}@t1"), VICTIM)
        .output();
    // No gates are configured here: the run itself completes with exit 0 and one status per file.
    assert_exit(&faulty, 0);
    let results = results(&out);
    assert_eq!(results.len(), 14, "every demo file has exactly one result");
    assert_eq!(summary(&out)["files"], 14);
    let victim = results[VICTIM].clone();
    let others =
        |m: std::collections::BTreeMap<String, String>| m.into_iter().filter(|(k, _)| k != VICTIM).collect::<Vec<_>>();
    (victim, others(statuses(&clean_out)), others(statuses(&out)))
}

/// Checks `action` with workers started both ways; returns the victim of the default way.
fn check(action: &str, status: &str, reason_part: &str) -> serde_json::Value {
    let victims: Vec<_> = WORKER_STARTS
        .iter()
        .map(|start| {
            let (victim, clean, faulty) = run_with_fault(action, start);
            assert_eq!(victim["status"], status, "{action}, {start}: {victim:#}");
            let reason = victim["reason"].as_str().unwrap_or_default();
            assert!(reason.contains(reason_part), "{action}, {start}: reason {reason:?} lacks {reason_part:?}");
            assert_eq!(clean, faulty, "{action}, {start}: the other files are unaffected");
            let sigs = victim["signatures"].as_array().unwrap();
            assert!(
                sigs.iter().any(|s| s.as_str().unwrap().ends_with(&format!("|{status}"))),
                "{action}, {start}: signature names the status: {sigs:?}"
            );
            victim
        })
        .collect();
    for other in &victims[1..] {
        for field in ["signal", "exit_code", "last_breadcrumb"] {
            assert_eq!(victims[0][field], other[field], "{action}: {field} the same whichever way the worker started");
        }
    }
    victims[0].clone()
}

#[test]
fn segfaulting_worker_is_a_crash_with_its_signal_and_last_breadcrumb() {
    let v = check("segfault", "crash", "SIGSEGV");
    assert_eq!(v["signal"], "SIGSEGV");
    assert_eq!(v["last_breadcrumb"]["tier"], "t1", "{v:#}");
}

#[test]
fn aborting_worker_is_a_crash() {
    let v = check("abort", "crash", "SIGABRT");
    assert_eq!(v["signal"], "SIGABRT");
}

#[test]
fn panicking_worker_is_a_crash_with_the_panic_report() {
    let v = check("panic", "crash", "injected panic");
    assert_eq!(v["exit_code"], 101);
    assert!(v["panic"]["message"].as_str().unwrap().contains("injected panic"));
}

#[test]
fn hanging_worker_is_a_timeout_at_the_no_output_limit() {
    let v = check("hang", "timeout", "without output");
    assert!(v["timing"]["wall_ms"].as_u64().unwrap() >= 3000, "{v:#}");
}

#[test]
fn memory_hungry_worker_is_oom_under_the_address_space_cap() {
    check("alloc", "oom", "memory cap");
}

#[test]
fn garbage_printing_worker_is_a_crash_never_a_pass() {
    let v = check("garbage", "crash", "without an end event");
    assert_eq!(v["exit_code"], 0, "the worker exited 0, yet it is not a pass");
}

#[test]
fn flooding_worker_is_killed_at_the_line_bound() {
    check("flood", "crash", "stdout line over");
}

#[test]
fn silent_worker_is_a_timeout_at_the_hard_limit() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report"])
        .args(["--timeout", "4", "--idle-timeout", "600", "--grace", "1"])
        .fault("sleep@t1", VICTIM)
        .output();
    assert_exit(&run, 0);
    let v = &results(&out)[VICTIM];
    assert_eq!(v["status"], "timeout", "{v:#}");
    assert!(v["reason"].as_str().unwrap().contains("hard time limit"), "{v:#}");
}

#[test]
fn worker_usage_exit_is_an_infra_error() {
    for start in WORKER_STARTS {
        let (victim, clean, faulty) = run_with_fault("exit=2", start);
        assert_eq!(victim["status"], "infra-error", "{start}: {victim:#}");
        assert_eq!(clean, faulty, "{start}");
    }
}

/// A hard crash inside one Scene object of T2: the farm reports that object as the last
/// location, read from the worker's breadcrumb slot (object-level breadcrumbs do not travel
/// as stdout lines when the farm gives a slot).
#[test]
fn segfault_inside_a_scene_object_is_located_through_the_breadcrumb_slot() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report", "-j", "2"])
        .fault("segfault@t2:Scene:Scene/", VICTIM)
        .output();
    assert_exit(&run, 0);
    let victim = results(&out)[VICTIM].clone();
    assert_eq!(victim["status"], "crash", "{victim:#}");
    assert_eq!(victim["signal"], "SIGSEGV");
    let crumb = &victim["last_breadcrumb"];
    assert_eq!(crumb["tier"], "t2", "{victim:#}");
    assert_eq!(crumb["stream"], "Scene");
    let path = crumb["chunk_path"].as_str().unwrap_or_default();
    assert!(path.starts_with("Scene/0x") && path.contains("/[0]"), "first Scene object: {path:?}");
    assert!(crumb["class"].as_str().is_some_and(|c| !c.is_empty()), "{crumb}");
}
