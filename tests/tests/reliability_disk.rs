//! Disk faults with real processes and a real file system (a small tmpfs, mounted per
//! test; skipped with a message when mounting is not permitted, a failure under
//! `PMFARM_REQUIRE_TOOLS=1`):
//! - the output folder fills up while the journal is being written: the farm stops with a
//!   clear error naming the journal, the journal holds only whole records, and once space
//!   is back `--resume` completes the run with nothing lost and nothing run twice;
//! - it fills up after the last result, when `results.jsonl` is written: clear error,
//!   every result journaled, `--resume` runs no worker and writes the outputs;
//! - the workers' temporary folder (TMPDIR, where exports are written) is full: each
//!   exporting file fails with `export-error` naming ENOSPC; nothing crashes.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, demo_corpus, gates_dir, s, Farm};
use reliability_support::*;
use std::path::Path;

const DEMO_FILES: u64 = 14;

/// A clean run of the demo corpus: its stable results and journal size.
fn reference(
    dir: &Path,
    corpus: &Path,
    gates: &Path,
    extra: &[&str],
) -> (std::collections::BTreeMap<String, serde_json::Value>, u64) {
    let out = dir.join("reference");
    let o = Farm::new(&["run", s(corpus), "--out", s(&out), "--gates", s(gates), "-j", "2", "--no-report"])
        .args(extra)
        .output();
    assert_exit(&o, 0);
    (stable_results(&out), std::fs::metadata(out.join(pmschema::files::JOURNAL)).unwrap().len())
}

/// What `pmfarm.lock` and `in-progress` take on a tmpfs while a run writes: a page each.
const RUN_FOLDER_PAGES: u64 = 2 * 4096;

fn started_after_last_run_record(out: &Path) -> Vec<String> {
    let records = journal_records(out);
    let at = records.iter().rposition(|r| r["record"] == "run").unwrap();
    records[at..].iter().filter(|r| r["record"] == "started").map(|r| r["path"].as_str().unwrap().into()).collect()
}

#[test]
fn a_full_output_disk_mid_journal_stops_cleanly_and_resume_completes() {
    let t = tempfile::tempdir().unwrap();
    // Big enough for the whole report once the filler is gone (a report that does not fit
    // fails the run), small enough to fill in an instant.
    let Some(fs) = TinyFs::mount(&t.path().join("disk"), 2 << 20) else { return };
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let (expected, journal_bytes) = reference(t.path(), &corpus, &gates, &[]);
    // Room for about half the journal (beside the one-page lock file and in-progress mark
    // every run folder holds while a run writes it): the run must stop part-way through.
    let filler = fs.fill_leaving(journal_bytes / 2 + RUN_FOLDER_PAGES);
    let out = fs.dir.join("out");
    let full = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "2"]).output();
    assert_exit(&full, 2);
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert!(
        stderr.contains("cannot append to journal.jsonl: No space left on device"),
        "the error names the journal and the cause: {stderr}"
    );
    // Its workers die with it (SIGKILL on drop, PR_SET_PDEATHSIG): give the kernel a moment.
    let gone_by = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while !workers_mentioning(s(t.path())).is_empty() {
        assert!(std::time::Instant::now() < gone_by, "a worker outlived the stopped run");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Journal intact: whole records only (no torn tail), consistent as far as it goes.
    let bytes = std::fs::read(out.join(pmschema::files::JOURNAL)).unwrap();
    assert!(bytes.ends_with(b"\n"), "a failed append leaves no half record");
    let (code, partial) = verify_ledger(&out, true);
    assert_eq!(code, 0, "{partial:#}");
    assert_eq!(partial["torn_bytes"], 0);
    let done_before = journal_replay(&out);
    assert!((done_before.len() as u64) < DEMO_FILES, "the disk filled before the end: {}", done_before.len());
    let (code, strict) = verify_ledger(&out, false);
    assert_eq!(code, 1, "an interrupted run is not complete: {strict:#}");
    assert!(!out.join(pmschema::files::RESULTS).exists());

    std::fs::remove_file(filler).unwrap();
    let resumed = Farm::new(&["run", "--resume", s(&out), "--gates", s(&gates)]).output();
    assert_exit(&resumed, 0);
    assert_eq!(stable_results(&out), expected, "nothing lost: the resumed run equals a clean one");
    let rerun = started_after_last_run_record(&out);
    for done in done_before.keys() {
        assert!(!rerun.contains(done), "{done} had a result and ran again");
    }
    assert_eq!(rerun.len() + done_before.len(), DEMO_FILES as usize);
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
}

#[test]
fn a_full_output_disk_at_the_outputs_keeps_every_result_and_resume_runs_nothing() {
    let t = tempfile::tempdir().unwrap();
    // Big enough for the whole report once the filler is gone (a report that does not fit
    // fails the run), small enough to fill in an instant.
    let Some(fs) = TinyFs::mount(&t.path().join("disk"), 2 << 20) else { return };
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let (expected, journal_bytes) = reference(t.path(), &corpus, &gates, &[]);
    // Room for the whole journal (page slack included) and the lock file and in-progress
    // mark, not for results.jsonl beside them.
    let filler = fs.fill_leaving(journal_bytes + 8192 + RUN_FOLDER_PAGES);
    let out = fs.dir.join("out");
    let full = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "2"]).output();
    assert_exit(&full, 2);
    let stderr = String::from_utf8_lossy(&full.stderr);
    assert!(stderr.contains("cannot write outputs") && stderr.contains("No space left on device"), "{stderr}");
    assert_eq!(journal_replay(&out).len() as u64, DEMO_FILES, "every result is journaled");
    let (code, partial) = verify_ledger(&out, true);
    assert_eq!(code, 0, "{partial:#}");
    assert_eq!(partial["finished"], false);

    std::fs::remove_file(filler).unwrap();
    let resumed = Farm::new(&["run", "--resume", s(&out), "--gates", s(&gates)]).output();
    assert_exit(&resumed, 0);
    assert!(started_after_last_run_record(&out).is_empty(), "no worker runs again");
    assert_eq!(stable_results(&out), expected);
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
}

#[test]
fn a_full_temporary_folder_fails_each_export_with_enospc_and_crashes_nothing() {
    let t = tempfile::tempdir().unwrap();
    let Some(fs) = TinyFs::mount(&t.path().join("tmp"), 64 << 10) else { return };
    let corpus = demo_corpus(t.path());
    let gates = gates_dir(t.path(), "");
    let (clean, _) = reference(t.path(), &corpus, &gates, &["--export", "obj"]);
    fs.fill_leaving(0);
    let out = t.path().join("out");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "-j", "2", "--export", "obj"])
        .command()
        .env("TMPDIR", &fs.dir)
        .output()
        .unwrap();
    assert_exit(&run, 0);
    let got = stable_results(&out);
    assert_eq!(got.len() as u64, DEMO_FILES);
    let mut exporting = 0;
    for (path, before) in &clean {
        let now = &got[path];
        let exported =
            before["exports"].as_array().unwrap().iter().any(|e| e["exporter"] == "obj" && e["status"] == "ok");
        if exported && before["status"] == "pass" {
            exporting += 1;
            assert_eq!(now["status"], "fail", "{path}: {now:#}");
            assert_eq!(now["fail_kinds"], serde_json::json!(["export-error"]), "{path}");
            let reason = now["reason"].as_str().unwrap();
            assert!(reason.contains("No space left on device"), "{path}: {reason}");
        } else {
            assert_eq!(now["status"], before["status"], "{path}: unaffected by TMPDIR");
        }
    }
    assert!(exporting >= 5, "most demo files export an OBJ: {exporting}");
    assert_ledger_complete(&out, DEMO_FILES);
    assert_replay_equals_results(&out);
    assert_report_written(&out);
}
