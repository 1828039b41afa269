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

/// The shared data folder: `PMFARM_SHARED` when set (a copy with more real files, to check
/// that the tests follow the data), else `../shared` beside the workspace root.
pub fn shared_root() -> PathBuf {
    match std::env::var_os("PMFARM_SHARED") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => workspace_root().join("../shared"),
    }
}

/// `<shared>/corpus/<name>` (`public`, `wild`, `pairs`, …), or `None` after telling why the
/// caller skips. Panics (fails the test) when `PMFARM_REQUIRE_SHARED=1` and it is missing.
pub fn shared_corpus(name: &str) -> Option<PathBuf> {
    let dir = shared_root().join("corpus").join(name);
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

/// One row of a corpus `manifest.tsv`, by column name.
pub type ManifestRow = BTreeMap<String, String>;

/// Every row of a tab-separated manifest with a header line, in file order.
pub fn read_tsv(path: &Path) -> Vec<ManifestRow> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{} is not readable: {e}", path.display()));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
    lines
        .filter(|l| !l.trim().is_empty())
        .map(|l| header.iter().zip(l.split('\t')).map(|(k, v)| (k.to_string(), v.to_string())).collect())
        .collect()
}

/// The column naming the file a row describes: `file` (public, wild, nel) or `max` (pairs,
/// biped, anim).
fn file_column(row: &ManifestRow) -> &str {
    ["file", "max"]
        .into_iter()
        .find(|c| row.contains_key(*c))
        .unwrap_or_else(|| panic!("a manifest row without a `file` or `max` column: {row:?}"))
}

/// A corpus manifest keyed by the file each row describes (its path relative to the corpus
/// folder; the first row of a file wins, as pairs repeats a `.max` once per export).
pub fn manifest(corpus: &Path) -> BTreeMap<String, ManifestRow> {
    let mut out = BTreeMap::new();
    for row in read_tsv(&corpus.join("manifest.tsv")) {
        out.entry(row[file_column(&row)].clone()).or_insert(row);
    }
    out
}

/// The `.max` files a corpus manifest lists, sorted, each checked to exist: the list comes
/// from the manifest (the corpora grow; no test pins a count), and a row without its file
/// fails naming it. Rows naming a file of another corpus (`../wild/…`) are left to that
/// corpus. Files on disk that no row lists are named in a notice, not checked.
pub fn corpus_files(corpus: &Path) -> Vec<PathBuf> {
    manifest_files(corpus, |name| name.to_ascii_lowercase().ends_with(".max"))
}

/// The files a corpus manifest lists whose relative name `keep` accepts, sorted, each
/// checked to exist (see [`corpus_files`]).
pub fn manifest_files(corpus: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let listed: Vec<String> = manifest(corpus).into_keys().filter(|n| !n.starts_with("../") && keep(n)).collect();
    let missing: Vec<&String> = listed.iter().filter(|n| !corpus.join(n).is_file()).collect();
    assert!(missing.is_empty(), "{}: manifest rows without their file: {missing:?}", corpus.display());
    let unlisted: Vec<String> = std::fs::read_dir(corpus)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| keep(n) && !listed.contains(n))
        .collect();
    if !unlisted.is_empty() {
        notice(&format!(
            "NOTE: {} holds files its manifest does not list (not checked): {unlisted:?}",
            corpus.display()
        ));
    }
    let mut files: Vec<PathBuf> = listed.iter().map(|n| corpus.join(n)).collect();
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

/// Real Biped rigs read with pmcore.
pub mod biped;
/// Hostile inputs derived from real files at test time.
pub mod fixtures;
pub mod hostile;
pub mod rigs;

/// Bodies of the fuzz targets, shared with the regression replay.
pub mod fuzz_targets;
