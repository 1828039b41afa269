//! Shared helpers for the integration tests: where the shared corpus is, what its
//! manifest says, and where the built binaries are.
//!
//! The shared folder is `../shared` beside the workspace root. Without it a test skips
//! with a clear message; with `PMFARM_REQUIRE_SHARED=1` (set by `.ci/run`) its absence
//! fails the test instead. Tests never write into it.

pub mod browser;
pub mod harness;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Workspace root (the folder holding the root `Cargo.toml`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ sits in the workspace").to_path_buf()
}

fn required(var: &str) -> bool {
    std::env::var(var).is_ok_and(|v| v == "1")
}

/// `../shared/corpus/public`, or `None` after printing why the caller skips.
/// Panics (fails the test) when `PMFARM_REQUIRE_SHARED=1` and the folder is missing.
pub fn public_corpus() -> Option<PathBuf> {
    shared_corpus("public")
}

/// `../shared/corpus/<name>` (`public`, `wild`, `pairs`), or `None` after telling why the
/// caller skips. Panics (fails the test) when `PMFARM_REQUIRE_SHARED=1` and it is missing.
pub fn shared_corpus(name: &str) -> Option<PathBuf> {
    let dir = workspace_root().join("../shared/corpus").join(name);
    if dir.is_dir() {
        return Some(dir);
    }
    if required("PMFARM_REQUIRE_SHARED") {
        panic!("PMFARM_REQUIRE_SHARED=1 but {} is missing", dir.display());
    }
    notice(&format!("SKIP: {} is missing (set PMFARM_REQUIRE_SHARED=1 to make this a failure)", dir.display()));
    None
}

/// `../shared/corpus/nel` (real NeL files), or `None` after telling why the caller skips.
pub fn nel_corpus() -> Option<PathBuf> {
    shared_corpus("nel")
}

/// Writes a line straight to the process's stderr: libtest captures `println!` and
/// `eprintln!` of passing tests, so a skip said that way would never be seen.
pub fn notice(line: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// True when `PMFARM_LONG_TESTS=1` (set by `.ci/run`): long sweeps run in full.
pub fn long_tests() -> bool {
    required("PMFARM_LONG_TESTS")
}

/// Path to a system tool, or `None` after printing why the caller skips. Panics when
/// `PMFARM_REQUIRE_TOOLS=1` and the tool is missing.
pub fn system_tool(name: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .and_then(|paths| std::env::split_paths(&paths).map(|p| p.join(name)).find(|p| p.is_file()));
    if found.is_none() {
        if required("PMFARM_REQUIRE_TOOLS") {
            panic!("PMFARM_REQUIRE_TOOLS=1 but `{name}` is not on PATH");
        }
        eprintln!("SKIP: `{name}` is not on PATH (set PMFARM_REQUIRE_TOOLS=1 to make this a failure)");
    }
    found
}

/// One row of the corpus `manifest.tsv`, by column name.
pub type ManifestRow = BTreeMap<String, String>;

/// The public corpus manifest, keyed by file name.
pub fn manifest(corpus: &Path) -> BTreeMap<String, ManifestRow> {
    let text = std::fs::read_to_string(corpus.join("manifest.tsv")).expect("manifest.tsv is readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let row: ManifestRow =
                header.iter().zip(l.split('\t')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
            (row["file"].clone(), row)
        })
        .collect()
}

/// Every `.max` file of the corpus, sorted by name.
pub fn corpus_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus)
        .expect("corpus is readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("max")))
        .collect();
    files.sort();
    files
}

/// Every file of `corpus` (not recursive) that `pmfarm run` checks: `*.max` and NeL files.
pub fn farm_checked_files(corpus: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus)
        .expect("corpus is readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| e.eq_ignore_ascii_case("max"))
                || p.file_name().is_some_and(|n| pmcore::nel::is_nel_name(&n.to_string_lossy()))
        })
        .collect();
    files.sort();
    files
}

/// Path of a binary built in this workspace (`pmworker`, `pmfarm`).
pub fn binary(name: &str) -> PathBuf {
    let exe = std::env::current_exe().expect("test executable path");
    let dir = exe.parent().and_then(|d| d.parent()).expect("target/<profile>/deps/..");
    let path = dir.join(name);
    assert!(path.is_file(), "{} is not built; run `cargo test --workspace`", path.display());
    path
}

/// Hostile inputs derived from real files at test time.
pub mod fixtures;
pub mod hostile;
pub mod rigs;

/// Bodies of the fuzz targets, shared with the regression replay.
pub mod fuzz_targets;
