//! One run folder's files: their names (from `pmschema::files`, the only place that spells
//! them) and how the outputs are read and written, for `run`, `merge`, `report`, `verify-ledger` and `baseline`.
//! The write-order and in-progress rules live in [`crate::output_set`]; the formats in
//! `pmschema::results` (`docs/results.md`).

use crate::results::{BaselineDiff, FileResult, Summary};
use std::path::{Path, PathBuf};

/// The file names, spelled once in the contract crate (`pmschema::files`).
pub use pmschema::files::{
    BASELINE_DIFF, INDEX_HTML, INDEX_JSON, IN_PROGRESS, JOURNAL, JUNIT_XML, LOCK, REPORT, RESULTS, SUMMARY, SUMMARY_MD,
};

/// Why a run folder file could not be read or written; names the file (and line).
#[derive(Debug, thiserror::Error)]
pub enum RunDirError {
    /// Reading or writing failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A line or document does not parse.
    #[error("{}:{line}: {source}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line (1 for a whole-file JSON document).
        line: usize,
        /// The JSON error.
        source: serde_json::Error,
    },
}

impl RunDirError {
    /// The file the error is about.
    pub fn path(&self) -> &Path {
        match self {
            RunDirError::Io { path, .. } | RunDirError::Parse { path, .. } => path,
        }
    }
}

/// A run output folder (`--out`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunDir {
    path: PathBuf,
}

impl RunDir {
    /// The folder at `path`.
    pub fn new(path: impl Into<PathBuf>) -> RunDir {
        RunDir { path: path.into() }
    }

    /// The folder itself.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `results.jsonl`.
    pub fn results(&self) -> PathBuf {
        self.path.join(RESULTS)
    }

    /// `summary.json`.
    pub fn summary(&self) -> PathBuf {
        self.path.join(SUMMARY)
    }

    /// `baseline-diff.json`.
    pub fn baseline_diff(&self) -> PathBuf {
        self.path.join(BASELINE_DIFF)
    }

    /// `journal.jsonl`.
    pub fn journal(&self) -> PathBuf {
        self.path.join(JOURNAL)
    }

    /// `report/`.
    pub fn report(&self) -> PathBuf {
        self.path.join(REPORT)
    }

    /// Reads `results.jsonl` (blank lines ignored).
    pub fn read_results(&self) -> Result<Vec<FileResult>, RunDirError> {
        let path = self.results();
        let text = read(&path)?;
        text.lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(n, l)| {
                serde_json::from_str(l).map_err(|source| RunDirError::Parse { path: path.clone(), line: n + 1, source })
            })
            .collect()
    }

    /// Reads `summary.json`.
    pub fn read_summary(&self) -> Result<Summary, RunDirError> {
        let path = self.summary();
        let text = read(&path)?;
        serde_json::from_str(&text).map_err(|source| RunDirError::Parse { path, line: 1, source })
    }

    /// Reads `baseline-diff.json`, `None` when the run made no comparison.
    pub fn read_baseline_diff(&self) -> Result<Option<BaselineDiff>, RunDirError> {
        let path = self.baseline_diff();
        if !path.is_file() {
            return Ok(None);
        }
        let text = read(&path)?;
        serde_json::from_str(&text).map(Some).map_err(|source| RunDirError::Parse { path, line: 1, source })
    }

    /// Writes `results.jsonl`, `summary.json` and `baseline-diff.json` (removed when there
    /// is no comparison, so no stale one is left), each through a temporary file and a rename.
    pub fn write_outputs(
        &self,
        results: &[FileResult],
        summary: &Summary,
        diff: Option<&BaselineDiff>,
    ) -> Result<(), RunDirError> {
        let mut lines = String::new();
        for r in results {
            lines.push_str(&serde_json::to_string(r).map_err(|e| io(self.results(), std::io::Error::other(e)))?);
            lines.push('\n');
        }
        write_atomic(&self.results(), lines.as_bytes())?;
        let json = serde_json::to_string_pretty(summary).map_err(|e| io(self.summary(), std::io::Error::other(e)))?;
        write_atomic(&self.summary(), json.as_bytes())?;
        let diff_path = self.baseline_diff();
        match diff {
            Some(d) => {
                let json =
                    serde_json::to_string_pretty(d).map_err(|e| io(diff_path.clone(), std::io::Error::other(e)))?;
                write_atomic(&diff_path, json.as_bytes())?;
            }
            None => {
                let _ = std::fs::remove_file(diff_path); // never leave a stale comparison behind
            }
        }
        Ok(())
    }
}

fn io(path: PathBuf, source: std::io::Error) -> RunDirError {
    RunDirError::Io { path, source }
}

fn read(path: &Path) -> Result<String, RunDirError> {
    std::fs::read_to_string(path).map_err(|source| io(path.to_path_buf(), source))
}

/// Writes through `<name>.tmp` and a rename, so a reader sees the old file or the new one.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), RunDirError> {
    let tmp = path.with_extension("tmp");
    let written = std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp); // no half-written temporary left behind
    }
    written.map_err(|source| io(path.to_path_buf(), source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_written_are_read_back_and_a_missing_diff_is_none() {
        let t = tempfile::tempdir().unwrap();
        let dir = RunDir::new(t.path());
        let results = vec![FileResult { path: "a.max".into(), ..Default::default() }];
        let summary = Summary { files: 1, ..Default::default() };
        dir.write_outputs(&results, &summary, None).unwrap();
        assert_eq!(dir.read_results().unwrap(), results);
        assert_eq!(dir.read_summary().unwrap(), summary);
        assert!(dir.read_baseline_diff().unwrap().is_none());
        std::fs::write(dir.results(), "{\"path\":\"a.max\",\"status\":\"pass\"}\nnot json\n").unwrap();
        let err = dir.read_results().unwrap_err();
        assert!(matches!(err, RunDirError::Parse { line: 2, .. }), "{err}");
        assert_eq!(err.path(), dir.results());
    }
}
