//! Helpers shared by the `farm_*` integration tests: a small builder around the real
//! `pmfarm` binary, the demo corpus in a temporary folder, and readers for what a run
//! writes. Every test drives the built binaries; nothing here fakes a result.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The demo corpus file every fault test breaks.
pub const VICTIM: &str = "max2016_box.max";

/// A `pmfarm` invocation.
pub struct Farm {
    cmd: Command,
}

impl Farm {
    /// `pmfarm <args…>` with the fault hook cleared unless a test sets it.
    pub fn new(args: &[&str]) -> Farm {
        let mut cmd = Command::new(pmtests::binary("pmfarm"));
        cmd.args(args).env_remove("PMWORKER_FAULT").env_remove("PMWORKER_FAULT_FILE");
        Farm { cmd }
    }

    /// Adds arguments.
    pub fn args<I: IntoIterator<Item = S>, S: AsRef<std::ffi::OsStr>>(mut self, args: I) -> Farm {
        self.cmd.args(args);
        self
    }

    /// Arms the worker fault hook for the one file whose path contains `file`.
    pub fn fault(mut self, action: &str, file: &str) -> Farm {
        self.cmd.env("PMWORKER_FAULT", action).env("PMWORKER_FAULT_FILE", file);
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

/// Writes the embedded demo corpus into `dir/demo` with `pmfarm demo` and returns it.
pub fn demo_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("demo");
    let out = Farm::new(&["demo", corpus.to_str().unwrap()]).output();
    assert_exit(&out, 0);
    corpus
}

/// A gates folder holding only the rules a test writes. An empty `toml` means "no rule
/// that can fail": a gates folder without rules is a configuration error, so it holds one
/// rule that tolerates any number of abnormal ends (and so checks every run).
pub fn gates_dir(dir: &Path, toml: &str) -> PathBuf {
    let g = dir.join("gates");
    std::fs::create_dir_all(&g).unwrap();
    let toml = if toml.is_empty() { UNGATED } else { toml };
    std::fs::write(g.join("test.toml"), toml).unwrap();
    g
}

/// The rule [`gates_dir`] writes for "no gate that can fail".
pub const UNGATED: &str = "[[gate]]\nname = \"tolerate-anything\"\ntier = \"file\"\nmax_abnormal = 1000000000\n";

/// `results.jsonl` as JSON values keyed by path.
pub fn results(out: &Path) -> BTreeMap<String, Value> {
    let text = std::fs::read_to_string(out.join("results.jsonl")).expect("results.jsonl");
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("result line parses"))
        .map(|v| (v["path"].as_str().unwrap().to_string(), v))
        .collect()
}

/// Status per path.
pub fn statuses(out: &Path) -> BTreeMap<String, String> {
    results(out).into_iter().map(|(k, v)| (k, v["status"].as_str().unwrap().to_string())).collect()
}

/// A result with every run-to-run varying part removed (`timing`, stderr, the worker's
/// own path echo), for comparing two runs.
pub fn stable(mut v: Value) -> Value {
    if let Some(o) = v.as_object_mut() {
        o.remove("timing");
        o.remove("stderr_tail");
    }
    v
}

/// `summary.json`.
pub fn summary(out: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).expect("summary.json")).unwrap()
}

/// Journal lines as JSON (unparsable lines skipped, as `--resume` does).
pub fn journal(out: &Path) -> Vec<Value> {
    std::fs::read_to_string(out.join("journal.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Stringified path.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
