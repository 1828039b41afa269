//! One run folder, one coordinator (issue 23), attacked as an operator would: a second
//! coordinator on a folder in use, a SIGKILL in the middle of a `-j 64` burst, a re-run
//! killed in an old folder, a report that cannot be written, descriptor exhaustion, a
//! journal damaged in the middle, a baseline taken from an inconsistent folder, slot files
//! in `$TMPDIR`, escape sequences in file names. Everything drives the built `pmfarm` and
//! `pmworker`; every test ends by asserting the statuses, `pmfarm verify-ledger`, and that
//! no worker process and no temporary file is left behind (`$TMPDIR` is a fresh folder per
//! test, so a `pmfarm-slot-*` file left there would show).
//! `PMFARM_LONG_TESTS=1` repeats the kill-during-burst trial more often.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, demo_corpus, gates_dir, s, statuses, VICTIM};
use reliability_support::*;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const DEMO_FILES: u64 = 14;

/// One test's scratch space: corpus, gates, outputs and its own `$TMPDIR`.
struct Scratch {
    dir: tempfile::TempDir,
    tmp: PathBuf,
    corpus: PathBuf,
    gates: PathBuf,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let tmp = dir.path().join("tmpdir");
        std::fs::create_dir_all(&tmp).unwrap();
        let corpus = demo_corpus(dir.path());
        let gates = gates_dir(dir.path(), "");
        Scratch { dir, tmp, corpus, gates }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Text that every worker of this test has on its command line (the corpus path).
    fn scope(&self) -> String {
        self.dir.path().to_str().unwrap().to_string()
    }

    /// `pmfarm ARGS` with this test's `$TMPDIR` and no fault armed.
    fn farm(&self, args: &[&str]) -> Command {
        pmtests::harness::Farm::new(args).env("TMPDIR", &self.tmp).command()
    }

    /// `pmfarm run CORPUS --out OUT --gates GATES EXTRA…`.
    fn run(&self, corpus: &Path, out: &Path, extra: &[&str]) -> Command {
        let mut args = vec!["run", s(corpus), "--out", s(out), "--gates", s(&self.gates)];
        args.extend_from_slice(extra);
        self.farm(&args)
    }

    /// No worker of this test is alive (waiting up to 5 s for killed ones to go), nothing
    /// is left in `$TMPDIR`, and no temporary output or report folder is left in `out`.
    fn assert_nothing_left(&self, out: &Path) {
        let gone_by = Instant::now() + Duration::from_secs(5);
        while !workers_mentioning(&self.scope()).is_empty() {
            assert!(Instant::now() < gone_by, "workers left running: {:?}", workers_mentioning(&self.scope()));
            std::thread::sleep(Duration::from_millis(10));
        }
        let left: Vec<_> = std::fs::read_dir(&self.tmp).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert!(left.is_empty(), "left in $TMPDIR: {left:?}");
        if let Ok(entries) = std::fs::read_dir(out) {
            for e in entries {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                assert!(
                    !name.starts_with(".report-tmp-") && !name.ends_with(".tmp"),
                    "temporary output left in {}: {name}",
                    out.display()
                );
            }
        }
    }
}

fn output(mut cmd: Command) -> Output {
    cmd.output().expect("pmfarm starts")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Waits until this run's worker for `file` (a path in the corpus) is alive and the
/// journal in `out` says it started (an earlier run's journal may say so too: the live
/// worker is what tells this run's start).
fn wait_until_started(out: &Path, file: &Path, child: &mut std::process::Child) {
    let deadline = Instant::now() + Duration::from_secs(60);
    let name = file.file_name().unwrap().to_str().unwrap();
    loop {
        let started = journal_records(out)
            .iter()
            .any(|r| r["record"] == "started" && r["path"].as_str().is_some_and(|p| p.contains(name)));
        if started && !workers_mentioning(s(file)).is_empty() {
            return;
        }
        assert!(child.try_wait().unwrap().is_none(), "the farm ended before {name} started");
        assert!(Instant::now() < deadline, "{name} not started within 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The run id in `OUT/summary.json` and in `OUT/report/index.json`.
fn run_ids(out: &Path) -> (String, String) {
    let read = |p: PathBuf| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(&p).unwrap_or_default()).unwrap_or_default()
    };
    let summary = read(out.join(pmschema::files::SUMMARY));
    let index = read(out.join(pmschema::files::REPORT).join(pmschema::files::INDEX_JSON));
    (
        summary["timing"]["run_id"].as_str().unwrap_or_default().to_string(),
        index["stamp"]["timing"]["run_id"].as_str().unwrap_or_default().to_string(),
    )
}

// 1. An exclusive lock on the run folder.
#[test]
fn a_second_coordinator_on_a_folder_in_use_is_refused_naming_the_holder() {
    let x = Scratch::new();
    let out = x.path("out");
    // A finished shard, to merge into the folder in use below.
    let shard = x.path("shard");
    assert_exit(&output(x.run(&x.corpus, &shard, &["--no-report"])), 0);
    // The holder: one worker sleeps until the hard limit, so the folder stays in use.
    let mut holder = x
        .run(&x.corpus, &out, &["-j", "2", "--timeout", "5", "--grace", "0.2"])
        .env("PMWORKER_FAULT", "sleep")
        .env("PMWORKER_FAULT_FILE", VICTIM)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until_started(&out, &x.corpus.join(VICTIM), &mut holder);
    let holder_pid = holder.id().to_string();
    let contenders: Vec<(&str, Command)> = vec![
        ("run", x.run(&x.corpus, &out, &[])),
        ("run --resume", x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates)])),
        ("report", x.farm(&["report", s(&out)])),
        ("baseline save", x.farm(&["baseline", "save", s(&out), "b", "--baselines", s(&x.path("baselines"))])),
    ];
    for (what, cmd) in contenders {
        let o = output(cmd);
        assert_exit(&o, 2);
        let err = stderr(&o);
        assert!(err.contains(&format!("in use by another pmfarm (pid {holder_pid}, started 20")), "{what}: {err}");
    }
    // A merge into the folder in use: a finished shard as input, the busy folder as --out.
    let o = output(x.farm(&["merge", s(&shard), "--out", s(&out), "--gates", s(&x.gates)]));
    assert_exit(&o, 2);
    assert!(stderr(&o).contains(&format!("(pid {holder_pid}, started ")), "{}", stderr(&o));

    assert!(holder.try_wait().unwrap().is_none(), "the holder was still running: every refusal above was the lock's");
    let status = holder.wait().unwrap();
    assert_eq!(status.code(), Some(0), "the holder completes undisturbed");
    assert_eq!(statuses(&out)[VICTIM], "timeout");
    assert_eq!(statuses(&out).len() as u64, DEMO_FILES);
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
    // Released by the kernel: the folder is free again.
    assert_exit(&output(x.farm(&["report", s(&out)])), 0);
    assert_ledger_complete(&out, DEMO_FILES);
    x.assert_nothing_left(&out);
    x.assert_nothing_left(&shard);
}

// 2. No worker outlives its coordinator.
/// A corpus of at least 64 files: the demo corpus five times over.
fn wide_corpus(x: &Scratch, copies: usize) -> PathBuf {
    let wide = x.path("wide");
    for i in 0..copies {
        let dir = wide.join(format!("copy{i}"));
        std::fs::create_dir_all(&dir).unwrap();
        for e in std::fs::read_dir(&x.corpus).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
        }
    }
    wide
}

#[test]
fn a_coordinator_sigkilled_during_a_j64_burst_leaves_no_worker_behind() {
    // A race hit in 10 % of trials escapes n trials with probability 0.9^n: 30 trials
    // miss it 4 % of the time, 100 (PMFARM_LONG_TESTS=1) 0.003 %.
    let long = std::env::var("PMFARM_LONG_TESTS").is_ok_and(|v| v == "1");
    let trials = if long { 100 } else { 30 };
    let x = Scratch::new();
    let wide = wide_corpus(&x, 5);
    let mut seed = 0x2323_u64;
    let mut live_at_kill = Vec::new();
    for trial in 0..trials {
        let out = x.path(&format!("out{trial}"));
        // Every worker sleeps once it has read its file: alive until killed.
        let mut farm = x
            .run(&wide, &out, &["-j", "64", "--no-report"])
            .env("PMWORKER_FAULT", "sleep")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Into the burst: once the first worker is up, 0–30 ms more (seeded) while the
        // other 63 are being forked.
        let deadline = Instant::now() + Duration::from_secs(60);
        while workers_mentioning(&x.scope()).is_empty() {
            assert!(Instant::now() < deadline, "trial {trial}: no worker started in 60 s");
            std::thread::sleep(Duration::from_millis(1));
        }
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        std::thread::sleep(Duration::from_millis((seed >> 33) % 31));
        live_at_kill.push(workers_mentioning(&x.scope()).len());
        farm.kill().unwrap(); // SIGKILL
        farm.wait().unwrap();
        x.assert_nothing_left(&out);
        // The journal is consistent as far as it goes.
        let (code, rep) = verify_ledger(&out, true);
        assert_eq!(code, 0, "trial {trial}: {rep:#}");
        assert_eq!(verify_ledger(&out, false).0, 1, "trial {trial}: an interrupted run is not complete");
    }
    eprintln!("workers alive at each of {trials} kills: {live_at_kill:?}");
    // One of the folders, completed: nothing lost, nothing run twice.
    let out = x.path("out0");
    let o = output(x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates), "--no-report"]));
    assert_exit(&o, 0);
    assert_ledger_complete(&out, DEMO_FILES * 5);
    assert_replay_equals_results(&out);
    x.assert_nothing_left(&out);
}

// 3. Outputs replaced atomically as a set.
#[test]
fn a_rerun_killed_in_an_old_folder_leaves_no_stale_report_and_resume_writes_a_matching_one() {
    let x = Scratch::new();
    let out = x.path("out");
    assert_exit(&output(x.run(&x.corpus, &out, &[])), 0);
    assert_report_written(&out);
    let (first_id, first_report_id) = run_ids(&out);
    assert!(!first_id.is_empty() && first_id == first_report_id, "{first_id} / {first_report_id}");
    assert_ledger_complete(&out, DEMO_FILES);

    // The re-run: killed while the victim sleeps.
    let mut rerun = x
        .run(&x.corpus, &out, &["-j", "1"])
        .env("PMWORKER_FAULT", "sleep")
        .env("PMWORKER_FAULT_FILE", VICTIM)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    wait_until_started(&out, &x.corpus.join(VICTIM), &mut rerun);
    rerun.kill().unwrap();
    rerun.wait().unwrap();
    x.assert_nothing_left(&out);
    assert!(out.join(pmschema::files::IN_PROGRESS).exists(), "the folder is marked in progress");
    for stale in [pmschema::files::RESULTS, pmschema::files::SUMMARY, pmschema::files::REPORT] {
        assert!(!out.join(stale).exists(), "{stale} of the earlier run would pass for this one");
    }
    let (code, rep) = verify_ledger(&out, false);
    assert_eq!(code, 1);
    assert!(rep["problems"].to_string().contains("in-progress"), "{rep:#}");
    assert_eq!(verify_ledger(&out, true).0, 0);
    // Nothing reads a finished run from it meanwhile.
    let o = output(x.farm(&["report", s(&out)]));
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("unfinished run"), "{}", stderr(&o));

    let o = output(x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates)]));
    assert_exit(&o, 0);
    assert!(!out.join(pmschema::files::IN_PROGRESS).exists());
    let (id, report_id) = run_ids(&out);
    assert!(id != first_id && id == report_id, "new run id {id}, report {report_id}, first {first_id}");
    assert_eq!(statuses(&out)[VICTIM], "pass");
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    x.assert_nothing_left(&out);
}

/// `pmfarm ARGS` with a file-size limit (RLIMIT_FSIZE) and SIGXFSZ ignored: any write
/// past `bytes` fails with EFBIG, as on a disk that fills at that point.
fn with_file_size_limit(mut cmd: Command, bytes: u64) -> Command {
    // SAFETY: setrlimit and signal are async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit { rlim_cur: bytes as libc::rlim_t, rlim_max: bytes as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

#[test]
fn a_report_that_cannot_be_written_fails_the_run_keeps_the_results_and_leaves_no_torn_report() {
    let x = Scratch::new();
    let sizes = x.path("sizes");
    assert_exit(&output(x.run(&x.corpus, &sizes, &[])), 0);
    let size = |p: PathBuf| std::fs::metadata(p).unwrap().len();
    let largest_output =
        [pmschema::files::JOURNAL, pmschema::files::RESULTS, pmschema::files::SUMMARY].map(|n| size(sizes.join(n)));
    let largest_output = largest_output.into_iter().max().unwrap();
    let index = size(sizes.join(pmschema::files::REPORT).join(pmschema::files::INDEX_HTML));
    // The limit sits halfway between the largest output and the report page, with room on
    // both sides for run-to-run differences (timings, ids).
    assert!(index > largest_output + 2048, "the report page ({index}) outgrows every output ({largest_output})");
    let limit = largest_output + (index - largest_output) / 2;

    let out = x.path("out");
    assert_exit(&output(x.run(&x.corpus, &out, &[])), 0); // an earlier report to be replaced
    let o = output(with_file_size_limit(x.run(&x.corpus, &out, &[]), limit));
    assert_exit(&o, 2);
    let err = stderr(&o);
    assert!(err.contains("report not written") && err.contains("File too large"), "{err}");
    assert!(err.contains("the results are complete"), "{err}");
    assert!(!out.join(pmschema::files::REPORT).exists(), "neither the earlier report nor a torn one is left");
    assert!(!out.join(pmschema::files::IN_PROGRESS).exists(), "the results are complete");
    assert_eq!(statuses(&out).len() as u64, DEMO_FILES);
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    x.assert_nothing_left(&out);
    // Rendered again once there is room.
    assert_exit(&output(x.farm(&["report", s(&out)])), 0);
    let (id, report_id) = run_ids(&out);
    assert_eq!(id, report_id);
    assert_ledger_complete(&out, DEMO_FILES);
    x.assert_nothing_left(&out);
}

#[test]
fn verify_ledger_tells_a_report_from_another_run_apart() {
    let x = Scratch::new();
    let (a, b) = (x.path("a"), x.path("b"));
    assert_exit(&output(x.run(&x.corpus, &a, &[])), 0);
    assert_exit(&output(x.run(&x.corpus, &b, &[])), 0);
    assert_ledger_complete(&b, DEMO_FILES);
    // b's report replaced by a's (same files, same statuses: only the run id differs).
    std::fs::remove_dir_all(b.join(pmschema::files::REPORT)).unwrap();
    let cp = Command::new("cp")
        .args(["-r", s(&a.join(pmschema::files::REPORT)), s(&b.join(pmschema::files::REPORT))])
        .status()
        .unwrap();
    assert!(cp.success());
    let (code, rep) = verify_ledger(&b, false);
    assert_eq!(code, 1, "{rep:#}");
    assert!(rep["problems"].to_string().contains("a stale report"), "{rep:#}");
    x.assert_nothing_left(&b);
}

// 4. Coordinator-side resource exhaustion.
/// `cmd` with at most `n` open descriptors (RLIMIT_NOFILE).
fn with_descriptor_limit(mut cmd: Command, n: u64) -> Command {
    // SAFETY: setrlimit is async-signal-safe.
    unsafe {
        cmd.pre_exec(move || {
            let lim = libc::rlimit { rlim_cur: n as libc::rlim_t, rlim_max: n as libc::rlim_t };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    cmd
}

#[test]
fn descriptor_exhaustion_at_j64_lowers_the_concurrency_and_no_file_ends_infra_error() {
    let x = Scratch::new();
    let wide = wide_corpus(&x, 5);
    let clean = x.path("clean");
    assert_exit(&output(x.run(&wide, &clean, &["-j", "4", "--no-report"])), 0);
    let out = x.path("out");
    let o = output(with_descriptor_limit(x.run(&wide, &out, &["-j", "64", "--no-report"]), 64));
    assert_exit(&o, 0);
    let err = stderr(&o);
    assert!(err.contains("Too many open files") && err.contains("worker(s) at once from now on"), "{err}");
    assert_eq!(statuses(&out), statuses(&clean), "every file has its clean-run status");
    assert_ledger_complete(&out, DEMO_FILES * 5);
    assert_replay_equals_results(&out);
    x.assert_nothing_left(&out);
}

#[test]
fn a_start_that_never_succeeds_is_infra_error_after_its_retries_and_resume_runs_it_again() {
    let x = Scratch::new();
    let one = x.path("one");
    std::fs::create_dir_all(&one).unwrap();
    std::fs::copy(x.corpus.join(VICTIM), one.join(VICTIM)).unwrap();
    let out = x.path("out");
    // 14 descriptors: the coordinator starts, but no worker start (slot, pipes) ever fits.
    let o = output(with_descriptor_limit(x.run(&one, &out, &["-j", "1", "--no-report"]), 14));
    assert_exit(&o, 0);
    let r = &results_file(&out)[VICTIM];
    assert_eq!(r["status"], "infra-error", "{r:#}");
    let reason = r["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("Too many open files") && reason.contains("after 8 attempts"), "{reason}");
    assert_ledger_complete(&out, 1);
    x.assert_nothing_left(&out);
    // With descriptors back, a resumption runs it again by default.
    let o = output(x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates), "--no-report"]));
    assert_exit(&o, 0);
    assert_eq!(statuses(&out)[VICTIM], "pass");
    // (The journal holds the infra error and then the pass: verify-ledger replays that.)
    assert_ledger_complete(&out, 1);
    x.assert_nothing_left(&out);
}

#[test]
fn infra_errors_are_run_again_by_resume_unless_kept() {
    let x = Scratch::new();
    let out = x.path("out");
    // exit 2 is the worker's "could not read": an infra error, not a verdict on the file.
    let mut cmd = x.run(&x.corpus, &out, &["--no-report"]);
    cmd.env("PMWORKER_FAULT", "exit=2").env("PMWORKER_FAULT_FILE", VICTIM);
    assert_exit(&output(cmd), 0);
    assert_eq!(statuses(&out)[VICTIM], "infra-error");
    let kept = x.path("kept");
    let cp = Command::new("cp").args(["-r", s(&out), s(&kept)]).status().unwrap();
    assert!(cp.success());

    let o = output(x.farm(&["run", "--resume", s(&kept), "--keep-infra-errors", "--gates", s(&x.gates)]));
    assert_exit(&o, 0);
    assert_eq!(statuses(&kept)[VICTIM], "infra-error");
    assert_ledger_complete(&kept, DEMO_FILES);

    let o = output(x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates)]));
    assert_exit(&o, 0);
    assert!(stderr(&o).contains("1 infra error(s) run again"), "{}", stderr(&o));
    assert_eq!(statuses(&out)[VICTIM], "pass");
    let rep = assert_ledger_complete(&out, DEMO_FILES);
    assert!(rep["notes"].to_string().contains("run again by a resumption"), "{rep:#}");
    let victim_results = journal_records(&out)
        .iter()
        .filter(|r| r["record"] == "result" && r["path"].as_str().is_some_and(|p| p.contains(VICTIM)))
        .count();
    assert_eq!(victim_results, 2, "the infra error and the re-run are both journaled");
    x.assert_nothing_left(&out);
    x.assert_nothing_left(&kept);
}

// 6. Journal strictness, baselines from consistent folders only, escaped names.
#[test]
fn resume_refuses_a_journal_damaged_before_its_last_line_naming_the_line() {
    let x = Scratch::new();
    let out = x.path("out");
    assert_exit(&output(x.run(&x.corpus, &out, &["--no-report"])), 0);
    let journal = out.join(pmschema::files::JOURNAL);
    let text = std::fs::read_to_string(&journal).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    lines.truncate(6); // an interrupted run: `run` + five records
    let mut damaged: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    damaged[3] = damaged[3][..damaged[3].len() / 2].to_string(); // line 4 cut in half
    std::fs::write(&journal, damaged.join("\n") + "\n").unwrap();
    std::fs::remove_file(out.join(pmschema::files::RESULTS)).unwrap();
    std::fs::remove_file(out.join(pmschema::files::SUMMARY)).unwrap();
    let before = std::fs::read(&journal).unwrap();

    let o = output(x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates)]));
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("journal.jsonl:4: a damaged record that is not the last line"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&journal).unwrap(), before, "the journal is left as it was");
    let (code, rep) = verify_ledger(&out, true);
    assert_eq!(code, 1);
    assert!(rep["problems"].to_string().contains("journal.jsonl:4: not a journal record"), "{rep:#}");

    // The same damage on the last line is what a kill inside a write leaves: resumed.
    let mut last_damaged: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    let n = last_damaged.len() - 1;
    last_damaged[n] = last_damaged[n][..last_damaged[n].len() / 2].to_string();
    std::fs::write(&journal, last_damaged.join("\n") + "\n").unwrap();
    assert_eq!(verify_ledger(&out, true).0, 0);
    let o = output(x.farm(&["run", "--resume", s(&out), "--gates", s(&x.gates), "--no-report"]));
    assert_exit(&o, 0);
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    x.assert_nothing_left(&out);
}

#[test]
fn baseline_commands_refuse_an_inconsistent_or_unfinished_folder() {
    let x = Scratch::new();
    let out = x.path("out");
    let baselines = x.path("baselines");
    assert_exit(&output(x.run(&x.corpus, &out, &["--no-report"])), 0);
    let results = out.join(pmschema::files::RESULTS);
    let good = std::fs::read_to_string(&results).unwrap();
    // A result dropped from results.jsonl: verify-ledger calls the folder inconsistent.
    let dropped: Vec<&str> = good.lines().skip(1).collect();
    std::fs::write(&results, dropped.join("\n") + "\n").unwrap();
    assert_eq!(verify_ledger(&out, false).0, 1);
    for cmd in [["save", s(&out), "demo"], ["promote", s(&out), "demo"]] {
        let mut args = vec!["baseline"];
        args.extend_from_slice(&cmd);
        args.extend_from_slice(&["--baselines", s(&baselines)]);
        let o = output(x.farm(&args));
        assert_exit(&o, 2);
        assert!(stderr(&o).contains("is not a consistent run folder"), "{}", stderr(&o));
        assert!(stderr(&o).contains("journaled but missing"), "{}", stderr(&o));
    }
    assert!(!baselines.join("demo.jsonl").exists(), "no baseline written");
    // Marked in progress (an interrupted run): refused too.
    std::fs::write(&results, &good).unwrap();
    std::fs::write(out.join(pmschema::files::IN_PROGRESS), "run\n").unwrap();
    let o = output(x.farm(&["baseline", "save", s(&out), "demo", "--baselines", s(&baselines)]));
    assert_exit(&o, 2);
    assert!(stderr(&o).contains("unfinished run"), "{}", stderr(&o));
    std::fs::remove_file(out.join(pmschema::files::IN_PROGRESS)).unwrap();
    // Consistent again: saved.
    assert_ledger_complete(&out, DEMO_FILES);
    assert_exit(&output(x.farm(&["baseline", "save", s(&out), "demo", "--baselines", s(&baselines)])), 0);
    assert!(baselines.join("demo.jsonl").exists());
    x.assert_nothing_left(&out);
}

#[test]
fn slot_files_never_reach_tmpdir_even_when_workers_are_killed() {
    let x = Scratch::new();
    let out = x.path("out");
    let mut farm = x
        .run(&x.corpus, &out, &["-j", "14", "--no-report"])
        .env("PMWORKER_FAULT", "sleep")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while workers_mentioning(&x.scope()).len() < DEMO_FILES as usize {
        assert!(Instant::now() < deadline, "14 workers not started in 60 s");
        std::thread::sleep(Duration::from_millis(5));
    }
    // Every worker is running with its slot: none of them is a file in $TMPDIR.
    let names: Vec<_> = std::fs::read_dir(&x.tmp).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(names.is_empty(), "slot files in $TMPDIR while workers run: {names:?}");
    farm.kill().unwrap();
    farm.wait().unwrap();
    x.assert_nothing_left(&out);
    assert_eq!(verify_ledger(&out, true).0, 0);
    // The slot still works: a crash is located at the breadcrumb the worker wrote there.
    let out = x.path("crash");
    let mut cmd = x.run(&x.corpus, &out, &["--no-report"]);
    cmd.env("PMWORKER_FAULT", "segfault@t1:Scene").env("PMWORKER_FAULT_FILE", VICTIM);
    assert_exit(&output(cmd), 0);
    let r = &results_file(&out)[VICTIM];
    assert_eq!(r["status"], "crash");
    assert_eq!(r["last_breadcrumb"]["stream"], "Scene", "{r:#}");
    assert_ledger_complete(&out, DEMO_FILES);
    x.assert_nothing_left(&out);
}

#[test]
fn control_characters_in_file_names_reach_no_terminal_and_no_markdown_raw() {
    let x = Scratch::new();
    let evil = "evil\u{1b}]0;pwned\u{7}\u{1b}[31m\u{9b}2J.max";
    std::fs::copy(x.corpus.join(VICTIM), x.corpus.join(evil)).unwrap();
    let out = x.path("out");
    // The evil file crashes, so every list of problem files names it.
    let gates = gates_dir(
        &x.path("strict"),
        "[[gate]]\nname = \"no-crash\"\nbuckets = [\"all\"]\ntier = \"file\"\nmax_abnormal = 0\n",
    );
    let mut cmd = x.farm(&["run", s(&x.corpus), "--out", s(&out), "--gates", s(&gates)]);
    cmd.env("PMWORKER_FAULT", "segfault").env("PMWORKER_FAULT_FILE", "evil");
    let o = output(cmd);
    assert_exit(&o, 1);
    assert_eq!(results_file(&out)[evil]["status"], "crash");
    let raw = |bytes: &[u8]| {
        bytes.iter().any(|b| *b == 0x1b || *b == 0x07) || String::from_utf8_lossy(bytes).contains('\u{9b}')
    };
    assert!(!raw(&o.stdout) && !raw(&o.stderr), "raw control characters on the terminal:\n{}", stderr(&o));
    let md = std::fs::read(out.join(pmschema::files::REPORT).join(pmschema::files::SUMMARY_MD)).unwrap();
    assert!(!raw(&md), "raw control characters in summary.md");
    let md = String::from_utf8(md).unwrap();
    assert!(md.contains("evil\\x1b]0;pwned\\x07\\x1b[31m\\x9b2J.max"), "{md}");
    // verify-ledger names the file when it finds something wrong with it.
    let results = out.join(pmschema::files::RESULTS);
    let kept: Vec<String> = std::fs::read_to_string(&results)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("evil"))
        .map(str::to_string)
        .collect();
    std::fs::write(&results, kept.join("\n") + "\n").unwrap();
    let v = output(x.farm(&["verify-ledger", s(&out)]));
    assert_exit(&v, 1);
    assert!(!raw(&v.stdout) && !raw(&v.stderr), "{}", String::from_utf8_lossy(&v.stdout));
    assert!(String::from_utf8_lossy(&v.stdout).contains("evil\\x1b"), "{}", String::from_utf8_lossy(&v.stdout));
    x.assert_nothing_left(&out);
}
