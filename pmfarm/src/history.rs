//! Nightly history: one JSON line of headline numbers per run, appended to a file the user
//! keeps (`--history FILE`), so nights become a trend. The file is append-only and belongs
//! to the user: a run without `--history` writes nothing, a run that did not finish writes
//! nothing (a resumed run appends once, when it finishes), and a merge of shards appends one
//! line for the merged run. The report draws the last [`TREND_RUNS`] lines as small charts
//! and `pmfarm history FILE` prints them.
//!
//! Every number is computed from the same report model the pages show
//! (`report/history_entry.rs` makes an entry from it), so a trend point and the report of
//! its night cannot disagree. This module owns only the file: its lines, appending, reading.
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Version of one history line; bumped when a field changes meaning or disappears.
pub const HISTORY_SCHEMA: u32 = 1;

/// How many of the newest runs the report's trend charts show.
pub const TREND_RUNS: usize = 60;

/// Stream prefix of the T3 results of the `summary` exporter (3ds Max's own account of the
/// scene, compared section by section).
pub(crate) const SUMMARY_STREAM_PREFIX: &str = "summary/";

/// One run's headline numbers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// [`HISTORY_SCHEMA`].
    pub schema: u32,
    /// When the line was appended, UTC, `YYYY-MM-DDTHH:MM:SSZ`.
    pub date: String,
    /// `pmfarm <version>` (with the commit it was built from, when known).
    pub tool: String,
    /// Corpus root the run checked.
    pub corpus_root: String,
    /// Enumerated files.
    pub files: u64,
    /// Input bytes over all files.
    pub bytes: u64,
    /// Wall time of the run (of its last part, for a resumed run; of the slowest shard for
    /// a merge), milliseconds.
    pub wall_ms: u64,
    /// Files per status.
    pub status_counts: BTreeMap<String, u64>,
    /// Files that passed ÷ files that were not skipped (0 when every file was skipped).
    pub pass_rate: f64,
    /// Pass rate per `Max version` → tier, as the report's chart shows it.
    pub tier_pass_rates: BTreeMap<String, BTreeMap<String, TierRate>>,
    /// Mean T2 typed coverage over the files that reported an inventory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub typed_coverage: Option<f64>,
    /// T3 `summary/*` results that passed ÷ all `summary/*` results (a skip lowers it);
    /// absent when the run had none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t3_summary_agreement: Option<f64>,
    /// Baseline the run was compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<String>,
    /// Files that regressed against that baseline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regressions: Option<u64>,
    /// Gate rules that failed.
    pub gates_failed: u64,
}

/// Passed and counted files of one tier.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TierRate {
    /// Files that passed the tier.
    pub passed: u64,
    /// Files counted for the tier.
    pub total: u64,
}

/// Why a history file could not be read or written; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    /// Reading or appending failed.
    #[error("history {path}: {source}")]
    Io {
        /// The history file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A complete line (not the torn last one) is not a history entry.
    #[error("history {path}, line {line}: not a history entry: {message}")]
    Damaged {
        /// The history file.
        path: PathBuf,
        /// 1-based line number.
        line: usize,
        /// The parser's message.
        message: String,
    },
}

/// The tool stamp: version, and the commit when the build knew it.
pub fn tool_stamp() -> String {
    match option_env!("PMFARM_GIT_COMMIT") {
        Some(commit) if !commit.is_empty() => format!("pmfarm {} ({commit})", env!("CARGO_PKG_VERSION")),
        _ => format!("pmfarm {}", env!("CARGO_PKG_VERSION")),
    }
}

/// Appends one entry as one line. The line goes out in a single `write` on a file opened
/// for appending, then is synced: two runs appending to one file never interleave bytes, and
/// a crash leaves at most a torn last line, which [`read`] ignores.
pub fn append(path: &Path, entry: &HistoryEntry) -> Result<(), HistoryError> {
    let io = |source| HistoryError::Io { path: path.to_path_buf(), source };
    let mut line = serde_json::to_string(entry).map_err(|e| io(std::io::Error::other(e)))?;
    line.push('\n');
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).map_err(io)?;
    // A torn last line left by a crash would glue onto this one: start on a fresh line.
    let len = file.metadata().map_err(io)?.len();
    if len > 0 && !ends_with_newline(path)? {
        line.insert(0, '\n');
    }
    file.write_all(line.as_bytes()).map_err(io)?;
    file.sync_data().map_err(io)
}

fn ends_with_newline(path: &Path) -> Result<bool, HistoryError> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| HistoryError::Io { path: path.to_path_buf(), source };
    let mut f = std::fs::File::open(path).map_err(io)?;
    f.seek(SeekFrom::End(-1)).map_err(io)?;
    let mut last = [0u8; 1];
    f.read_exact(&mut last).map_err(io)?;
    Ok(last[0] == b'\n')
}

/// Every entry of a history file, oldest first. A missing file is an empty history; a torn
/// last line (no newline: a crash while appending) is ignored; any other line that is not
/// an entry is an error naming it, so a damaged history is never silently shortened.
pub fn read(path: &Path) -> Result<Vec<HistoryEntry>, HistoryError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(HistoryError::Io { path: path.to_path_buf(), source }),
    };
    let complete = text.ends_with('\n');
    let lines: Vec<&str> = text.lines().collect();
    let mut entries = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<HistoryEntry>(line) {
            Ok(e) => entries.push(e),
            Err(_) if i + 1 == lines.len() && !complete => {}
            Err(e) => {
                return Err(HistoryError::Damaged { path: path.to_path_buf(), line: i + 1, message: e.to_string() })
            }
        }
    }
    Ok(entries)
}

/// The last `n` entries.
pub fn newest(entries: &[HistoryEntry], n: usize) -> &[HistoryEntry] {
    &entries[entries.len().saturating_sub(n)..]
}

/// Now, UTC, as `YYYY-MM-DDTHH:MM:SSZ` (the one clock format of the farm, [`crate::lock::utc_now`]).
pub fn utc_now() -> String {
    crate::lock::utc_now()
}

/// A plain-text table of the entries (for `pmfarm history FILE`), newest last.
pub fn table(entries: &[HistoryEntry]) -> String {
    let pct = |v: Option<f64>| v.map(|v| format!("{:.1}%", v * 100.0)).unwrap_or_else(|| "-".into());
    let mut rows = vec![[
        "date".to_string(),
        "files".into(),
        "pass".into(),
        "typed".into(),
        "t3 summary".into(),
        "wall".into(),
        "regressed".into(),
        "gates failed".into(),
        "tool".into(),
    ]];
    for e in entries {
        rows.push([
            e.date.clone(),
            e.files.to_string(),
            pct(Some(e.pass_rate)),
            pct(e.typed_coverage),
            pct(e.t3_summary_agreement),
            format!("{:.1} s", e.wall_ms as f64 / 1000.0),
            e.regressions.map(|n| n.to_string()).unwrap_or_else(|| "-".into()),
            e.gates_failed.to_string(),
            e.tool.clone(),
        ]);
    }
    let widths: Vec<usize> = (0..9).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row.iter().zip(&widths).map(|(c, w)| format!("{c:<w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(files: u64) -> HistoryEntry {
        HistoryEntry { schema: HISTORY_SCHEMA, date: "2026-12-01T00:00:00Z".into(), files, ..Default::default() }
    }

    #[test]
    fn appends_one_line_per_run_and_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nightly/history.jsonl");
        append(&path, &entry(1)).unwrap();
        append(&path, &entry(2)).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), 2);
        assert_eq!(read(&path).unwrap().iter().map(|e| e.files).collect::<Vec<_>>(), [1, 2]);
    }

    #[test]
    fn a_torn_last_line_is_ignored_and_the_next_append_starts_a_fresh_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        append(&path, &entry(1)).unwrap();
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"schema\":1,\"da").unwrap();
        assert_eq!(read(&path).unwrap().len(), 1);
        append(&path, &entry(3)).unwrap();
        // The torn line is now complete garbage in the middle: that is damage, named.
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
    }

    #[test]
    fn a_damaged_middle_line_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("h.jsonl");
        std::fs::write(&path, "not json\n").unwrap();
        append(&path, &entry(1)).unwrap();
        let err = read(&path).unwrap_err().to_string();
        assert!(err.contains("line 1") && err.contains("h.jsonl"), "{err}");
    }

    #[test]
    fn a_missing_file_is_an_empty_history() {
        assert!(read(Path::new("/nonexistent/history.jsonl")).unwrap().is_empty());
    }

    #[test]
    fn newest_keeps_the_last_n() {
        let all: Vec<HistoryEntry> = (0..70).map(entry).collect();
        let last = newest(&all, TREND_RUNS);
        assert_eq!(last.len(), 60);
        assert_eq!(last[0].files, 10);
    }

    #[test]
    fn the_table_has_a_header_and_a_row_per_entry() {
        let t = table(&[entry(5)]);
        assert_eq!(t.lines().count(), 2);
        assert!(t.lines().next().unwrap().starts_with("date"));
        assert!(t.contains("2026-12-01T00:00:00Z  5"), "{t}");
    }
}
