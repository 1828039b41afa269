//! Worker faults with real processes: the built `pmfarm` runs the built `pmworker` on the
//! demo corpus while the worker's fault hook (`PMWORKER_FAULT`, aimed at one file through
//! `PMWORKER_FAULT_FILE`) breaks one file — segfault, abort, panic, an endless loop, a
//! memory blow-up, an output flood, a closed stdout, garbage, odd exit codes. Each test
//! asserts the victim's status, that every other file gets exactly its clean-run result,
//! the completeness invariant through `pmfarm verify-ledger`, that the journal replays to
//! `results.jsonl`, and that the report is still written.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, demo_corpus, gates_dir, s, statuses, Farm, VICTIM};
use reliability_support::*;
use serde_json::Value;
use std::path::Path;
use std::time::Duration;

const DEMO_FILES: u64 = 14;
const LIMITS: [&str; 8] = ["--timeout", "20", "--idle-timeout", "2", "--grace", "1", "--memory", "512M"];

/// What one faulty run left behind.
struct FaultRun {
    victim: Value,
    /// Highest `VmHWM` seen of the coordinator process.
    farm_peak_rss: u64,
    stderr: String,
}

/// Runs the demo corpus clean and with `action` aimed at [`VICTIM`] (extra farm arguments
/// in both), then checks everything every fault must leave intact.
fn fault_run(action: &str, extra: &[&str]) -> FaultRun {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    // The default limits, except those `extra` sets itself.
    let limits: Vec<&str> =
        LIMITS.chunks(2).filter(|flag_value| !extra.contains(&flag_value[0])).flatten().copied().collect();
    let base = |out: &Path| {
        Farm::new(&["run", s(&corpus), "--out", s(out), "--gates", s(&gates), "-j", "2"]).args(&limits).args(extra)
    };
    let clean_out = t.path().join("clean");
    assert_exit(&base(&clean_out).args(["--no-report"]).output(), 0);
    let clean = stable_results(&clean_out);

    let out = t.path().join("faulty");
    let child = base(&out)
        .fault(action, VICTIM)
        .command()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let watcher = std::thread::spawn(move || {
        let mut peak = 0;
        while let Some(rss) = peak_rss(pid) {
            peak = peak.max(rss);
            std::thread::sleep(Duration::from_millis(20));
        }
        peak
    });
    let output = child.wait_with_output().unwrap();
    let farm_peak_rss = watcher.join().unwrap();
    assert_exit(&output, 0); // no gates configured: one status per file, then exit 0

    let got = stable_results(&out);
    assert_eq!(got.len() as u64, DEMO_FILES, "every demo file has exactly one result");
    for (path, r) in &got {
        if path != VICTIM {
            assert_eq!(r, &clean[path], "{action}: {path} is unaffected by the fault in another worker");
        }
    }
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
    let victim = results_file(&out)[VICTIM].clone();
    let status = victim["status"].as_str().unwrap().to_string();
    let sigs = victim["signatures"].as_array().unwrap();
    assert!(sigs.iter().any(|s| s.as_str().unwrap().ends_with(&format!("|{status}"))), "{action}: {sigs:?}");
    FaultRun { victim, farm_peak_rss, stderr: String::from_utf8_lossy(&output.stderr).into_owned() }
}

fn reason(v: &Value) -> &str {
    v["reason"].as_str().unwrap_or_default()
}

#[test]
fn worker_sigsegv_in_t1_is_a_crash_located_at_its_breadcrumb() {
    let run = fault_run("segfault@t1:Scene", &[]);
    assert!(!run.stderr.contains("pmfarm: cannot"), "a worker crash is not a farm error: {}", run.stderr);
    let v = run.victim;
    assert_eq!(v["status"], "crash");
    assert_eq!(v["signal"], "SIGSEGV");
    assert_eq!(
        (v["last_breadcrumb"]["tier"].as_str(), v["last_breadcrumb"]["stream"].as_str()),
        (Some("t1"), Some("Scene"))
    );
    assert_eq!(v["results"], serde_json::json!([]), "no verdict is invented for a crashed file");
}

#[test]
fn worker_abort_in_t2_is_a_crash_with_sigabrt() {
    let v = fault_run("abort@t2", &[]).victim;
    assert_eq!(v["status"], "crash");
    assert_eq!(v["signal"], "SIGABRT");
    assert_eq!(v["last_breadcrumb"]["tier"], "t2");
    assert!(reason(&v).contains("SIGABRT"));
}

#[test]
fn worker_panic_in_an_exporter_is_a_crash_with_the_panic_report() {
    let v = fault_run("panic@export", &["--export", "obj"]).victim;
    assert_eq!(v["status"], "crash");
    assert_eq!(v["exit_code"], 101);
    assert!(v["panic"]["message"].as_str().unwrap().contains("injected panic"), "{v:#}");
    assert_eq!(v["last_breadcrumb"]["tier"], "export");
}

#[test]
fn worker_endless_loop_is_a_timeout_at_the_hard_limit() {
    // The loop is silent, but the idle limit is set above the hard one: the hard limit fires.
    let v = fault_run("hang@t1", &["--timeout", "2", "--idle-timeout", "30"]).victim;
    assert_eq!(v["status"], "timeout");
    assert!(reason(&v).contains("hard time limit"), "{v:#}");
    assert!(v["timing"]["wall_ms"].as_u64().unwrap() >= 2000);
}

#[test]
fn worker_memory_blow_up_is_oom_under_the_address_space_cap() {
    let v = fault_run("alloc@t2", &[]).victim;
    assert_eq!(v["status"], "oom");
    assert!(v["stderr_tail"].as_str().unwrap_or_default().contains("memory allocation of"), "{v:#}");
}

#[test]
fn worker_closing_stdout_early_is_a_crash_never_a_pass() {
    let v = fault_run("close-stdout@t1", &[]).victim;
    assert_eq!(v["status"], "crash");
    assert_eq!(v["exit_code"], 0, "the worker went on and exited 0, yet it is not a pass");
    assert!(reason(&v).contains("without an end event"), "{v:#}");
}

#[test]
fn worker_exit_codes_outside_the_contract_map_to_infra_error_and_crash() {
    let v = fault_run("exit=2@t1", &[]).victim;
    assert_eq!((v["status"].as_str(), v["exit_code"].as_i64()), (Some("infra-error"), Some(2)));
    let v = fault_run("exit=7@t2", &[]).victim;
    assert_eq!((v["status"].as_str(), v["exit_code"].as_i64()), (Some("crash"), Some(7)));
    let v = fault_run("exit=0@t1", &[]).victim;
    assert_eq!(v["status"], "crash", "exit 0 without `end` is never a pass: {v:#}");
}

#[test]
fn worker_flood_without_newlines_is_cut_at_the_line_bound_without_buffering() {
    let run = fault_run("flood@t1", &[]);
    assert_eq!(run.victim["status"], "crash");
    assert!(reason(&run.victim).contains("stdout line over 4194304 bytes"), "{:#}", run.victim);
    assert!(run.farm_peak_rss > 0 && run.farm_peak_rss < 64 << 20, "farm peak RSS {} B", run.farm_peak_rss);
}

/// 256 MiB of well-formed events through the farm (the default output bound) in a debug
/// build takes about 20 s, so it runs with `PMFARM_LONG_TESTS=1` (set by `.ci/run`).
#[test]
fn worker_flood_of_gigabytes_of_events_is_killed_at_the_byte_bound_without_buffering() {
    if std::env::var("PMFARM_LONG_TESTS").map_or(true, |v| v != "1") {
        eprintln!("SKIP: set PMFARM_LONG_TESTS=1 to flood 256 MiB of events through the farm");
        return;
    }
    let run = fault_run("flood-lines@t1", &["--idle-timeout", "60", "--timeout", "120"]);
    eprintln!("farm peak RSS during a 256 MiB event flood: {} KiB", run.farm_peak_rss >> 10);
    assert_eq!(run.victim["status"], "crash");
    assert!(reason(&run.victim).contains("stdout over 268435456 bytes"), "{:#}", run.victim);
    // Before the fix the farm kept every parsed breadcrumb: 1.67 GB peak for this flood.
    assert!(run.farm_peak_rss > 0, "the coordinator's memory was sampled");
    assert!(run.farm_peak_rss < 64 << 20, "farm peak RSS {} B: the farm buffered the flood", run.farm_peak_rss);
    // The flood's lines are forged breadcrumb events written straight to stdout; the farm
    // takes the location from the worker's breadcrumb slot, which records where the worker
    // really was when the fault fired (T1, Scene), and a flood cannot overwrite it.
    assert_eq!(run.victim["last_breadcrumb"]["tier"], "t1", "{:#}", run.victim);
    assert_eq!(run.victim["last_breadcrumb"]["stream"], "Scene", "{:#}", run.victim);
}

#[test]
fn every_worker_crashing_still_gives_every_file_one_status_and_fails_the_default_gates() {
    let t = tempfile::tempdir().unwrap();
    let corpus = demo_corpus(t.path());
    let out = t.path().join("out");
    let gates = pmtests::workspace_root().join("gates");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "2"])
        .fault("segfault", ".max")
        .output();
    assert_exit(&run, 1);
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(stderr.contains("GATE FAILED default/no-abnormal-end"), "{stderr}");
    let rep = assert_ledger_complete(&out, DEMO_FILES);
    // Every `.max` crashes; the demo's one NeL file (`nel_rig.skel`) is not armed.
    assert_eq!(rep["status_counts"]["crash"], DEMO_FILES - 1, "{rep:#}");
    assert_eq!(statuses(&out)["nel_rig.skel"], "pass");
    assert_replay_equals_results(&out);
    assert_report_written(&out);
}
