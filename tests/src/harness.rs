//! The one way integration tests drive the built binaries (the shape of ripgrep's
//! `tests/util.rs`): [`Farm`] and [`Worker`] builders around `pmfarm` and `pmworker`, a
//! [`RunDirReader`] for what a run wrote, and [`demo_run`] for tests that need any finished
//! run. Nothing here fakes a result: every helper runs the real binary.

use pmworker::events::Event;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Environment variables of the worker fault hook, cleared unless a test arms them.
const FAULT_VARS: [&str; 2] = ["PMWORKER_FAULT", "PMWORKER_FAULT_FILE"];

/// A `pmfarm` invocation.
pub struct Farm {
    cmd: Command,
}

impl Farm {
    /// `pmfarm <args…>` with the fault hook cleared unless a test sets it.
    pub fn new(args: &[&str]) -> Farm {
        Farm::at(&crate::binary("pmfarm"), args)
    }

    /// Another `pmfarm` executable (an installed copy outside the workspace) with `args`,
    /// fault hook cleared.
    pub fn at(program: &Path, args: &[&str]) -> Farm {
        let mut cmd = Command::new(program);
        cmd.args(args).stdin(Stdio::null());
        for v in FAULT_VARS {
            cmd.env_remove(v);
        }
        Farm { cmd }
    }

    /// The same invocation run through `wrapper wrapper_args… pmfarm args…` (e.g. `setpriv`
    /// to run as another user); environment and current folder are kept.
    pub fn wrapped_in(self, wrapper: &Path, wrapper_args: &[&str]) -> Farm {
        let inner = self.cmd;
        let mut cmd = Command::new(wrapper);
        cmd.args(wrapper_args).arg(inner.get_program()).args(inner.get_args()).stdin(Stdio::null());
        for (key, value) in inner.get_envs() {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        if let Some(dir) = inner.get_current_dir() {
            cmd.current_dir(dir);
        }
        Farm { cmd }
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Farm {
        self.cmd.args(args);
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Farm {
        self.cmd.env(key, value);
        self
    }

    /// Removes an environment variable the test process has.
    pub fn env_remove(mut self, key: &str) -> Farm {
        self.cmd.env_remove(key);
        self
    }

    /// Runs in `dir` instead of the test's current folder.
    pub fn current_dir(mut self, dir: &Path) -> Farm {
        self.cmd.current_dir(dir);
        self
    }

    /// Arms the worker fault hook for the one file whose path contains `file`.
    pub fn fault(mut self, action: &str, file: &str) -> Farm {
        self.cmd.env(FAULT_VARS[0], action).env(FAULT_VARS[1], file);
        self
    }

    /// Runs to completion.
    pub fn output(mut self) -> Output {
        self.cmd.output().expect("pmfarm starts")
    }

    /// The command, for tests that spawn and kill it.
    pub fn command(self) -> Command {
        self.cmd
    }
}

/// A `pmworker` invocation, on one file or on the arguments given.
pub struct Worker {
    cmd: Command,
    file: Option<PathBuf>,
}

/// What a worker run said: exit code, its events, and its stderr.
pub struct WorkerRun {
    /// Exit code, `None` when killed by a signal.
    pub code: Option<i32>,
    /// Every stdout line parsed as an event (a line that does not parse fails the test).
    pub events: Vec<Event>,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

impl Worker {
    /// `pmworker [args…] FILE`, fault hook cleared.
    pub fn new(file: &Path) -> Worker {
        Worker { file: Some(file.to_path_buf()), ..Worker::at(&crate::binary("pmworker")) }
    }

    /// A worker executable run with only the arguments the test adds (the file among
    /// them, or none: usage errors, `--help`), fault hook cleared.
    pub fn at(program: &Path) -> Worker {
        let mut cmd = Command::new(program);
        cmd.stdin(Stdio::null());
        for v in FAULT_VARS {
            cmd.env_remove(v);
        }
        Worker { cmd, file: None }
    }

    /// Adds arguments (placed before the file).
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<OsStr>>(mut self, args: I) -> Worker {
        self.cmd.args(args);
        self
    }

    /// Sets an environment variable.
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Worker {
        self.cmd.env(key, value);
        self
    }

    /// Runs to completion; stdout as it came (faults write garbage on purpose).
    pub fn output(mut self) -> Output {
        if let Some(file) = &self.file {
            self.cmd.arg(file);
        }
        self.cmd.output().expect("pmworker starts")
    }

    /// Runs to completion and parses its events.
    pub fn run(self) -> WorkerRun {
        let out = self.output();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let events = stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| Event::from_line(l).unwrap_or_else(|e| panic!("not an event ({e}): {l}")))
            .collect();
        WorkerRun { code: out.status.code(), events, stderr: String::from_utf8_lossy(&out.stderr).into_owned() }
    }
}

/// Exit code, with stdout/stderr in the panic message when it differs.
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(
        out.status.code(),
        Some(code),
        "exit status {:?}\nstdout:\n{}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Reads what a run wrote into its output folder (file names as `pmfarm::run_files` spells them).
pub struct RunDirReader {
    dir: PathBuf,
}

impl RunDirReader {
    /// The run folder `dir`.
    pub fn new(dir: &Path) -> RunDirReader {
        RunDirReader { dir: dir.to_path_buf() }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// `results.jsonl` as JSON values keyed by path.
    pub fn results(&self) -> BTreeMap<String, Value> {
        let path = self.dir.join(pmschema::files::RESULTS);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str::<Value>(l).expect("result line parses"))
            .map(|v| (v["path"].as_str().unwrap().to_string(), v))
            .collect()
    }

    /// `summary.json`.
    pub fn summary(&self) -> Value {
        self.json(pmschema::files::SUMMARY)
    }

    /// A JSON document of the folder (`summary.json`, `baseline-diff.json`, `report/index.json`, …).
    pub fn json(&self, name: &str) -> Value {
        let path = self.dir.join(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// Journal lines as JSON (unparsable lines skipped, as `--resume` does).
    pub fn journal(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join(pmschema::files::JOURNAL))
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }
}

/// A finished ungated run of the embedded demo corpus (`pmfarm demo`, then `pmfarm run
/// --no-gates --no-report`) in a fresh temporary folder: the folder (kept alive by the
/// caller) and the run's output folder.
pub fn demo_run(extra: &[&str]) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().expect("temporary folder");
    let corpus = t.path().join("demo");
    assert_exit(&Farm::new(&["demo"]).args([&corpus]).output(), 0);
    let out = t.path().join("out");
    let run = Farm::new(&["run"])
        .args([&corpus])
        .args(["--out"])
        .args([&out])
        .args(["--no-gates", "--no-report", "-j", "2"])
        .args(extra)
        .output();
    assert_exit(&run, 0);
    (t, out)
}
