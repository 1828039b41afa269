//! pmfarm: the coordinator. Enumerates `.max` files, runs one isolated `pmworker` per
//! file, keeps an append-only journal, sorts results into buckets, compares them with a
//! stored baseline and enforces gates. `docs/farm.md` describes the whole flow and
//! `docs/results.md` every output format.

pub mod baseline;
pub mod buckets;
pub mod demo;
pub mod display;
pub mod engine;
pub mod enumerate;
pub mod gates;
pub mod history;
mod inherit;
pub mod journal;
pub mod limits;
pub mod locate;
pub mod lock;
pub mod merge_command;
pub mod notice;
pub mod outcome;
pub mod output_set;
pub mod progress;
pub mod report;
/// The output data model, defined in `pmschema` (re-exported so `pmfarm::results` keeps working).
pub use pmschema::results;
pub mod run;
pub mod run_files;
pub mod run_summary;
pub mod shard;
pub mod shard_merge;
pub mod supervise;
pub mod synth;
pub mod tally;
pub mod verify_ledger;
pub mod workspace;
pub mod zygote;

/// Hidden first argument that turns the `pmfarm` process into a worker: the coordinator
/// launches its own executable as `pmfarm worker [pmworker arguments] FILE`, so the binary
/// `cargo run -p pmfarm` builds is complete on its own (no separate `pmworker` needed).
pub const WORKER_ENTRY: &str = "worker";

use std::path::Path;

/// Reads `OUT/results.jsonl` ([`run_files::RunDir::read_results`], the error as text).
pub fn read_results(out: &Path) -> Result<Vec<results::FileResult>, String> {
    run_files::RunDir::new(out).read_results().map_err(|e| e.to_string())
}

/// `pmfarm report OUT`: renders the report of a finished run under the run folder's lock
/// (the caller prints and picks the exit code).
pub fn report_of_finished_run(out: &Path, opts: &report::ReportOptions) -> Result<report::ReportIndex, String> {
    let _lock = lock_finished_run(out)?;
    report::render(out, opts).map_err(|e| e.to_string())
}

/// Locks the run folder `out` for a command that reads a finished run from it (`report`,
/// `baseline save/promote`): refused while another pmfarm holds it or while it is marked
/// in progress (a run writing it, or one interrupted there).
pub fn lock_finished_run(out: &Path) -> Result<lock::RunLock, String> {
    if !out.is_dir() {
        return Err(format!("{} is not a run folder", display::path(out)));
    }
    let held = lock::RunLock::acquire(out).map_err(|e| e.to_string())?;
    if output_set::in_progress(out) {
        return Err(format!(
            "{} holds an unfinished run (`{}` is present): complete it with `pmfarm run --resume` first",
            display::path(out),
            output_set::IN_PROGRESS
        ));
    }
    Ok(held)
}

/// [`lock_finished_run`], and the folder must be consistent as `pmfarm verify-ledger`
/// checks it (a baseline must never be taken from a run that lost or doubled results). A
/// merged folder (`pmfarm merge`, no journal) is checked for what it has: results and
/// summary agreeing.
pub fn lock_consistent_run(out: &Path) -> Result<lock::RunLock, String> {
    let held = lock_finished_run(out)?;
    let rep = verify_ledger::verify(out, verify_ledger::VerifyOptions::default()).map_err(|e| e.to_string())?;
    let dir = run_files::RunDir::new(out);
    let merged = !dir.journal().exists() && dir.summary().is_file();
    let journal_missing = |p: &String| p.starts_with(journal::JOURNAL) && p.contains("No such file");
    let problems: Vec<&String> = rep.problems.iter().filter(|p| !(merged && journal_missing(p))).collect();
    if merged {
        if let Err(e) = shard_merge::ShardOutput::read(out) {
            return Err(format!("{} is not a consistent run folder: {e}", display::path(out)));
        }
    }
    if problems.is_empty() {
        return Ok(held);
    }
    let shown: Vec<String> = problems.iter().take(5).map(|p| format!("\n  {}", display::escape_controls(p))).collect();
    Err(format!(
        "{} is not a consistent run folder (`pmfarm verify-ledger` finds {} problem(s)):{}",
        display::path(out),
        problems.len(),
        shown.concat()
    ))
}
