//! What the farm tells the person running it *while* it works (a run can take hours, so a
//! warning must show when it happens, not with the final summary): each notice is a value,
//! sent through a [`Notifier`] the caller owns. The library never prints; `main.rs` prints
//! every notice as `pmfarm: <notice>` on stderr, and tests or other callers may collect or
//! drop them. What a finished run reports is not a notice but part of its
//! [`crate::engine::Outcome`].

use crate::results::Status;
use std::path::PathBuf;
use std::sync::Arc;

/// One thing worth telling while the farm works; `Display` is the line the CLI prints
/// (without its `pmfarm: ` prefix).
#[derive(Debug)]
pub enum Notice {
    /// `--workspace`: a listed source directory does not exist (the build pipeline finds
    /// nothing there either, so the run goes on without it).
    SourceDirectoryMissing {
        /// The directory, joined to the graphics root.
        dir: PathBuf,
        /// The entry as `directories.py` lists it.
        entry: String,
        /// Why it could not be listed.
        error: std::io::Error,
    },
    /// `--workspace`: a `directories.py` statement failed that assigns a variable the
    /// chosen process does not read.
    UnneededAssignmentFailed {
        /// The failure, as `file:line: message` (text, so this module stays below
        /// `workspace`, which sends it).
        error: String,
        /// The variable the statement assigns.
        variable: String,
        /// The `--process` given.
        process: String,
    },
    /// `run --resume`: what the journal already holds.
    Resuming {
        /// The run folder.
        out: PathBuf,
        /// Files with a kept result.
        done: usize,
        /// Files the run enumerated.
        files: usize,
        /// Journaled infra errors run again.
        retried: usize,
        /// The journal's last line was torn (and ignored).
        torn_line: bool,
    },
    /// A file that timed out or hit an infra error is run again alone before it is
    /// compared with the baseline.
    RerunningAlone {
        /// The file (relative path).
        path: String,
        /// Its status in the run.
        status: Status,
    },
    /// The coordinator ran short of descriptors, processes or memory starting workers and
    /// runs fewer at once from now on.
    FewerWorkers {
        /// The error starting a worker gave.
        why: String,
        /// Workers at once from now on.
        now: usize,
    },
    /// The worker zygote could not be started, or is gone: workers are started as programs
    /// of their own from now on (the files its workers were checking run again).
    ZygoteLost {
        /// What happened to it.
        why: String,
    },
    /// A file's `started` record could not be journaled (its result still is, or the run
    /// stops when that fails).
    JournalStart(std::io::Error),
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        use crate::display::{escape_controls, path};
        match self {
            Notice::SourceDirectoryMissing { dir, entry, error } => {
                write!(f, "warning: source directory {} ({entry}): {error}", dir.display())
            }
            Notice::UnneededAssignmentFailed { error, variable, process } => {
                write!(f, "note: {error} (assigns `{variable}`, not needed for --process {process})")
            }
            Notice::Resuming { out, done, files, retried, torn_line } => write!(
                f,
                "resuming {}: {done} of {files} files already done{}{}",
                path(out),
                if *retried == 0 { String::new() } else { format!(", {retried} infra error(s) run again") },
                if *torn_line { " (torn last line ignored)" } else { "" }
            ),
            Notice::RerunningAlone { path, status } => {
                write!(f, "re-running {} alone ({status})", escape_controls(path))
            }
            Notice::FewerWorkers { why, now } => write!(f, "{why}: {now} worker(s) at once from now on"),
            Notice::ZygoteLost { why } => {
                write!(f, "worker zygote: {why}; each worker is started as a program of its own from now on")
            }
            Notice::JournalStart(e) => write!(f, "journal: {e}"),
        }
    }
}

/// Where notices go: a function the caller supplies, callable from any worker thread.
#[derive(Clone)]
pub struct Notifier(Arc<dyn Fn(Notice) + Send + Sync>);

impl Notifier {
    /// Sends every notice to `f`.
    pub fn new(f: impl Fn(Notice) + Send + Sync + 'static) -> Notifier {
        Notifier(Arc::new(f))
    }

    /// Drops every notice (unit tests, callers that only want the outcome).
    pub fn silent() -> Notifier {
        Notifier::new(|_| {})
    }

    /// Hands `notice` to the caller's function.
    pub fn send(&self, notice: Notice) {
        (self.0)(notice)
    }
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Notifier")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn notices_reach_the_callers_function_in_order() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = seen.clone();
        let n = Notifier::new(move |notice| sink.lock().unwrap().push(notice.to_string()));
        n.send(Notice::FewerWorkers { why: "EMFILE".into(), now: 3 });
        n.clone().send(Notice::RerunningAlone { path: "a\u{1b}.max".into(), status: Status::Timeout });
        assert_eq!(
            *seen.lock().unwrap(),
            ["EMFILE: 3 worker(s) at once from now on", "re-running a\\x1b.max alone (timeout)"]
        );
    }

    #[test]
    fn resuming_names_retries_and_a_torn_line_only_when_there_are_any() {
        let base = |retried, torn_line| Notice::Resuming { out: "/o".into(), done: 2, files: 5, retried, torn_line };
        assert_eq!(base(0, false).to_string(), "resuming /o: 2 of 5 files already done");
        assert_eq!(
            base(1, true).to_string(),
            "resuming /o: 2 of 5 files already done, 1 infra error(s) run again (torn last line ignored)"
        );
    }
}
