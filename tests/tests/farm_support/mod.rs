//! Helpers shared by the `farm_*` integration tests: a small builder around the real
//! `pmfarm` binary, the demo corpus in a temporary folder, and readers for what a run
//! writes. Every test drives the built binaries; nothing here fakes a result.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The demo corpus file every fault test breaks.
pub const VICTIM: &str = "max2016_box.max";

pub use pmtests::harness::{assert_exit, Farm, RunDirReader};

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
    RunDirReader::new(out).results()
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
    RunDirReader::new(out).summary()
}

/// Journal lines as JSON (unparsable lines skipped, as `--resume` does).
pub fn journal(out: &Path) -> Vec<Value> {
    RunDirReader::new(out).journal()
}

/// Stringified path.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
