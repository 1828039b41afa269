//! The coordinator is SIGKILLed at pseudo-random points (several seeds: after a chosen
//! number of journal records, or after a chosen delay, sometimes twice, sometimes with a
//! torn last line added as a kill inside a write leaves one), then `pmfarm run --resume`
//! completes the run. For every seed: no worker outlives the coordinator, the interrupted
//! journal is consistent as far as it goes (`verify-ledger --partial`), the final results
//! equal an uninterrupted run, nothing is lost and nothing that finished runs twice
//! (`verify-ledger` and an independent replay), and the report is written.
//! More seeds run with `PMFARM_LONG_TESTS=1`.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, demo_corpus, gates_dir, s, Farm};
use reliability_support::*;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

const DEMO_FILES: u64 = 14;

/// splitmix64: a seeded, dependency-free source of kill points.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
}

fn run_args<'a>(corpus: &'a str, out: &'a str, gates: &'a str) -> Vec<&'a str> {
    vec!["run", corpus, "--out", out, "--gates", gates, "-j", "1", "--export", "obj,skel"]
}

fn journal_lines(out: &Path) -> usize {
    std::fs::read(out.join(pmschema::files::JOURNAL)).map_or(0, |b| b.iter().filter(|c| **c == b'\n').count())
}

/// Where to kill the coordinator.
#[derive(Debug)]
enum KillPoint {
    /// Once the journal holds this many more complete lines than at spawn.
    AfterRecords(usize),
    /// After this long.
    After(Duration),
}

/// Spawns `farm`, kills it with SIGKILL at `point` (or lets it finish first), and waits
/// until no worker of this test is left. Returns whether the kill landed before it ended.
/// `appends`: the farm appends to the journal (`--resume`) rather than starting it afresh.
fn spawn_and_kill(farm: Farm, appends: bool, out: &Path, point: &KillPoint, scope: &str) -> bool {
    let lines_at_spawn = if appends { journal_lines(out) } else { 0 };
    // A fresh run truncates an earlier journal: count only once that has been seen.
    let earlier = journal_lines(out);
    let mut counting = appends || earlier == 0;
    let mut child = farm.command().stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if child.try_wait().unwrap().is_some() {
            return false; // finished before the kill point
        }
        let lines = journal_lines(out);
        counting |= lines < earlier;
        let due = match point {
            KillPoint::AfterRecords(n) => counting && lines >= lines_at_spawn + n,
            KillPoint::After(d) => Instant::now() >= deadline - Duration::from_secs(60) + *d,
        };
        if due {
            break;
        }
        assert!(Instant::now() < deadline, "kill point {point:?} not reached in 60 s");
        std::thread::sleep(Duration::from_millis(1));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let gone_by = Instant::now() + Duration::from_secs(5);
    while !workers_mentioning(scope).is_empty() {
        assert!(
            Instant::now() < gone_by,
            "workers outlived the SIGKILLed coordinator: {:?}",
            workers_mentioning(scope)
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// Every path has exactly one `result` record and no `started` record after it.
fn assert_nothing_ran_twice(out: &Path) {
    let mut finished: BTreeMap<String, usize> = BTreeMap::new();
    for (i, r) in journal_records(out).iter().enumerate() {
        let path = r["path"].as_str().unwrap_or_default().to_string();
        match r["record"].as_str() {
            Some("result") => assert!(finished.insert(path.clone(), i).is_none(), "{path}: two results"),
            Some("started") => assert!(!finished.contains_key(&path), "{path} started again after its result"),
            _ => {}
        }
    }
    assert_eq!(finished.len() as u64, DEMO_FILES);
}

fn kill_and_resume(seed: u64) {
    let mut rng = Rng(seed);
    let t = tempfile::tempdir().unwrap();
    let scope = t.path().to_str().unwrap().to_string();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let (corpus, gates) = (s(&corpus).to_string(), s(&gates).to_string());

    let reference_out = t.path().join("reference");
    let clock = Instant::now();
    assert_exit(&Farm::new(&run_args(&corpus, s(&reference_out), &gates)).args(["--no-report"]).output(), 0);
    let reference_wall = clock.elapsed();
    let expected = stable_results(&reference_out);
    let records = journal_lines(&reference_out); // 1 run + 14 started + 14 results + 1 finished

    let out = t.path().join("out");
    let kills = 1 + rng.below(2);
    let mut fresh = true;
    for k in 0..kills {
        let point = if rng.below(3) == 0 {
            KillPoint::After(Duration::from_micros(rng.below(reference_wall.as_micros() as u64)))
        } else {
            KillPoint::AfterRecords(1 + rng.below(records as u64) as usize)
        };
        let farm = if fresh {
            Farm::new(&run_args(&corpus, s(&out), &gates))
        } else {
            Farm::new(&["run", "--resume", s(&out), "--gates", &gates])
        };
        let killed = spawn_and_kill(farm, !fresh, &out, &point, &scope);
        let journaled = journal_replay(&out).len();
        eprintln!("seed {seed:#x} kill {k}: {point:?}, killed before the end: {killed}, {journaled} results journaled");
        let has_run_record = journal_records(&out).first().is_some_and(|r| r["record"] == "run");
        if !has_run_record {
            // Killed before the first record: nothing to resume, and --resume says so.
            let o = Farm::new(&["run", "--resume", s(&out), "--gates", &gates]).output();
            assert_exit(&o, 2);
            let stderr = String::from_utf8_lossy(&o.stderr);
            assert!(stderr.contains("--resume"), "seed {seed}: a clear --resume error: {stderr}");
            continue; // fresh again
        }
        fresh = false;
        let (code, rep) = verify_ledger(&out, true);
        assert_eq!(code, 0, "seed {seed}, kill {k} at {point:?}: the interrupted journal is consistent: {rep:#}");
        if killed && rep["finished"] == false {
            assert_eq!(verify_ledger(&out, false).0, 1, "seed {seed}: an interrupted run is not complete");
        }
        if rng.below(2) == 0 {
            let mut j = std::fs::OpenOptions::new().append(true).open(out.join(pmschema::files::JOURNAL)).unwrap();
            j.write_all(b"{\"record\":\"result\",\"path\":\"max2016_b").unwrap();
            let (code, rep) = verify_ledger(&out, true);
            assert_eq!(code, 0, "seed {seed}: a torn last line is tolerated: {rep:#}");
            assert!(rep["torn_bytes"].as_u64().unwrap() > 0);
        }
    }
    let last = if fresh {
        Farm::new(&run_args(&corpus, s(&out), &gates)).output()
    } else {
        Farm::new(&["run", "--resume", s(&out), "--gates", &gates]).output()
    };
    assert_exit(&last, 0);
    let got: BTreeMap<String, Value> = stable_results(&out);
    assert_eq!(got, expected, "seed {seed}: the resumed run equals an uninterrupted one");
    assert_ledger_complete(&out, DEMO_FILES);
    assert_nothing_ran_twice(&out);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
}

#[test]
fn coordinator_sigkill_at_random_points_then_resume_loses_nothing_and_repeats_nothing() {
    let seeds: u64 = if std::env::var("PMFARM_LONG_TESTS").is_ok_and(|v| v == "1") { 24 } else { 6 };
    for seed in 0..seeds {
        kill_and_resume(0x5EED_0000 + seed);
    }
}

#[test]
fn a_rerun_killed_in_an_old_output_folder_leaves_no_earlier_results_behind() {
    let t = tempfile::tempdir().unwrap();
    let scope = t.path().to_str().unwrap().to_string();
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let out = t.path().join("out");
    let args = run_args(s(&corpus), s(&out), s(&gates));
    assert_exit(&Farm::new(&args).output(), 0);
    assert_ledger_complete(&out, DEMO_FILES);
    assert!(spawn_and_kill(Farm::new(&args), false, &out, &KillPoint::AfterRecords(5), &scope), "killed mid-run");
    for stale in [pmschema::files::RESULTS, pmschema::files::SUMMARY] {
        assert!(!out.join(stale).exists(), "{stale} of the earlier run would pass for this one");
    }
    let (code, rep) = verify_ledger(&out, true);
    assert_eq!(code, 0, "{rep:#}");
    assert_eq!(verify_ledger(&out, false).0, 1, "the interrupted re-run is incomplete");
}
