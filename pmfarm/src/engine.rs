//! What `pmfarm run`, `run --resume` and `merge` hand back to the CLI: an [`Outcome`] when
//! the results were written (whatever the gates say), a [`FarmError`] when the farm stopped
//! before that. Both carry their exit code; neither prints — `main.rs` renders them.

use crate::display::{escape_controls, path};
use crate::results::Summary;
use pmschema::exit::farm as code;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// Why a run, a resumption or a merge stopped before its results were complete on disk.
/// `Display` is the message the CLI prints after its `pmfarm: ` (or `pmfarm merge: `) prefix.
#[derive(Debug, thiserror::Error)]
pub enum FarmError {
    /// The corpus holds no file to check.
    #[error("nothing runnable: no .max files under {}", .0.display())]
    NoMaxFiles(PathBuf),
    /// The gate files could not be read or are invalid.
    #[error("gate configuration: {0}")]
    Gates(String),
    /// The `--baseline` file could not be read.
    #[error("{0}")]
    Baseline(String),
    /// The output folder could not be created.
    #[error("cannot create {}: {source}", path(.out))]
    CreateOut {
        /// The output folder.
        out: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Another pmfarm holds the output folder, or its lock could not be taken.
    #[error("{}", escape_controls(&.0.to_string()))]
    Lock(#[from] crate::lock::LockError),
    /// The outputs of an earlier run in the folder could not be removed.
    #[error("cannot clear the earlier outputs in {}: {source}", path(.out))]
    ClearEarlierOutputs {
        /// The output folder.
        out: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The journal could not be created.
    #[error("cannot write the journal in {}: {source}", .out.display())]
    CreateJournal {
        /// The output folder.
        out: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A record could not be appended to the journal.
    #[error("journal: {0}")]
    Journal(std::io::Error),
    /// The worker scheduler failed (runtime, or a task that did not finish).
    #[error("scheduler: {0}")]
    Scheduler(std::io::Error),
    /// `results.jsonl`, `summary.json` or `baseline-diff.json` could not be written.
    #[error("cannot write outputs in {}: {source}", path(.out))]
    WriteOutputs {
        /// The output folder.
        out: PathBuf,
        /// Which file and why.
        source: crate::run_files::RunDirError,
    },
    /// `--resume`: the journal could not be read.
    #[error("--resume: cannot read {}: {}", path(.journal), escape_controls(&.source.to_string()))]
    ResumeRead {
        /// The journal file.
        journal: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `--resume`: the journal does not say what was run.
    #[error("--resume: the journal has no run record")]
    ResumeNoRunRecord,
    /// `--resume`: the shard the journal records does not parse.
    #[error("--resume: shard in the journal: {0}")]
    ResumeShard(crate::shard::ShardError),
    /// `--resume`: the work options the journal records do not parse.
    #[error("--resume: run options in the journal: {0}")]
    ResumeOptions(serde_json::Error),
    /// `--resume`: the outputs of the interrupted run could not be removed.
    #[error("--resume: cannot clear the earlier outputs: {0}")]
    ResumeClear(std::io::Error),
    /// `--resume`: the journal could not be reopened for appending.
    #[error("--resume: {0}")]
    ResumeReopen(std::io::Error),
    /// `merge`: the shard folders could not be read or merged, or the merge not written.
    #[error(transparent)]
    Merge(#[from] crate::shard_merge::MergeError),
}

impl FarmError {
    /// The process exit code: 77 when the corpus holds nothing to check, else 2.
    pub fn exit_code(&self) -> i32 {
        match self {
            FarmError::NoMaxFiles(_) => code::NOTHING_RUNNABLE,
            _ => code::USAGE,
        }
    }
}

/// A run or merge whose results are complete in its folder, and what came after them.
#[derive(Debug)]
pub struct Outcome {
    /// The run folder.
    pub out: PathBuf,
    /// `results.jsonl` in it.
    pub results_file: PathBuf,
    /// The summary written: counts, baseline comparison, gate verdicts.
    pub summary: Summary,
    /// `--history`: the file appended to, or why the line was not written.
    pub history: Option<Result<PathBuf, String>>,
    /// The report's `index.html`, or why it was not written; `None` when not rendered
    /// (`--no-report`, or a merge that stopped at its history line).
    pub report: Option<Result<PathBuf, String>>,
    /// The in-progress mark could not be removed (the folder still reads as unfinished).
    pub unfinished: Option<std::io::Error>,
    /// Enumerated files that ended without a status (never expected; always a failure).
    pub missing: Vec<String>,
    /// Skipped files per reason (`skip` when none is given).
    pub skip_reasons: BTreeMap<String, u64>,
    /// One line per failed gate (or for a gated run that checked nothing).
    pub gate_failures: Vec<String>,
}

/// What decides the exit code of an [`Outcome`], first match wins.
#[derive(Debug)]
pub enum Verdict<'a> {
    /// The in-progress mark stayed.
    Unfinished(&'a std::io::Error),
    /// `--history` was asked for and not written.
    HistoryNotWritten,
    /// The report was asked for and not written.
    ReportNotWritten,
    /// Files without a status.
    WithoutStatus(&'a [String]),
    /// Every file was skipped (or there were none).
    NothingRunnable,
    /// Gates failed.
    GatesFailed(&'a [String]),
    /// Everything asked for was done and no gate failed.
    Passed,
}

impl Outcome {
    /// The verdict; see [`Verdict`] for the order.
    pub fn verdict(&self) -> Verdict<'_> {
        let skipped = self.summary.status_counts.get("skip").copied().unwrap_or(0);
        if let Some(e) = &self.unfinished {
            Verdict::Unfinished(e)
        } else if matches!(self.history, Some(Err(_))) {
            Verdict::HistoryNotWritten
        } else if matches!(self.report, Some(Err(_))) {
            Verdict::ReportNotWritten
        } else if !self.missing.is_empty() {
            Verdict::WithoutStatus(&self.missing)
        } else if self.summary.files == skipped {
            Verdict::NothingRunnable
        } else if !self.gate_failures.is_empty() {
            Verdict::GatesFailed(&self.gate_failures)
        } else {
            Verdict::Passed
        }
    }

    /// The process exit code: 2 when something asked for was not written, 1 for files
    /// without a status or failed gates, 77 when every file was skipped, else 0.
    pub fn exit_code(&self) -> i32 {
        match self.verdict() {
            Verdict::Unfinished(_) | Verdict::HistoryNotWritten | Verdict::ReportNotWritten => code::USAGE,
            Verdict::WithoutStatus(_) | Verdict::GatesFailed(_) => code::GATE_FAILED,
            Verdict::NothingRunnable => code::NOTHING_RUNNABLE,
            Verdict::Passed => code::OK,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(pass: u64, skip: u64) -> Outcome {
        let mut summary = Summary { files: pass + skip, ..Default::default() };
        summary.status_counts.insert("pass".into(), pass);
        summary.status_counts.insert("skip".into(), skip);
        Outcome {
            out: "/o".into(),
            results_file: "/o/results.jsonl".into(),
            summary,
            history: None,
            report: None,
            unfinished: None,
            missing: Vec::new(),
            skip_reasons: BTreeMap::new(),
            gate_failures: Vec::new(),
        }
    }

    #[test]
    fn exit_codes_follow_the_verdict_order() {
        assert_eq!(outcome(1, 0).exit_code(), code::OK);
        assert_eq!(outcome(0, 2).exit_code(), code::NOTHING_RUNNABLE);
        assert_eq!(outcome(0, 0).exit_code(), code::NOTHING_RUNNABLE);
        let mut o = outcome(0, 2);
        o.gate_failures.push("gate failed".into());
        o.missing.push("a.max".into());
        assert_eq!(o.exit_code(), code::GATE_FAILED, "a missing status outranks nothing runnable");
        o.report = Some(Err("disk full".into()));
        assert!(matches!(o.verdict(), Verdict::ReportNotWritten));
        o.history = Some(Err("damaged".into()));
        assert!(matches!(o.verdict(), Verdict::HistoryNotWritten));
        o.unfinished = Some(std::io::Error::other("read-only"));
        assert!(matches!(o.verdict(), Verdict::Unfinished(_)));
        assert_eq!(o.exit_code(), code::USAGE);
    }

    #[test]
    fn an_empty_corpus_is_nothing_runnable_and_every_other_error_is_usage() {
        assert_eq!(FarmError::NoMaxFiles("/c".into()).exit_code(), code::NOTHING_RUNNABLE);
        assert_eq!(FarmError::ResumeNoRunRecord.exit_code(), code::USAGE);
        assert_eq!(FarmError::NoMaxFiles("/c".into()).to_string(), "nothing runnable: no .max files under /c");
    }
}
