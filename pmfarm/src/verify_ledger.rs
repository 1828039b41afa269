//! `pmfarm verify-ledger OUT`: proves, from the files alone, that a run directory lost
//! nothing and ran nothing twice. A farm that can silently drop or duplicate a result is
//! worse than none, so this check is independent of the code that wrote the files and
//! usable in CI after any run (fresh, resumed, killed).
//!
//! What is checked (each failure is one line naming the file, path or journal line):
//! - the journal: every complete line is a record; the first is a fresh `run`, each later
//!   `run` a resumption of the same files, root and options; every `started`/`result`
//!   names an enumerated file; no file is started again or gets a second result once it
//!   has one (nothing ran twice); every result follows its `started`; no `pass` carries
//!   a signal, a panic or a non-zero exit; `finished` counts the results and closes its
//!   segment. A torn last line (no newline: a kill in the middle
//!   of a write) is tolerated, as `--resume` tolerates it, and reported.
//! - completeness: every enumerated file has exactly one result, and the last segment
//!   finished (unless `--partial`, for a run that was interrupted and not yet resumed).
//! - `results.jsonl` equals the journal replay, line for line, sorted by path; the only
//!   allowed difference is a file `baseline-diff.json` calls `spurious`, whose re-run
//!   result replaced a journaled timeout or infra error.
//! - `summary.json`: file count, status counts and bucket counts recomputed from
//!   `results.jsonl`; corpus root as journaled; baseline counts as in `baseline-diff.json`.
//!
//! Exit codes: 0 consistent, 1 inconsistent, 2 usage (OUT is not a folder).

use crate::results::{empty_status_counts, BaselineDiff, DiffClass, FileResult, JournalRecord, Status, Summary};
use crate::run_files::{BASELINE_DIFF, INDEX_JSON, JOURNAL, REPORT, RESULTS, SUMMARY};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// How strict the check is.
#[derive(Clone, Copy, Debug, Default)]
pub struct VerifyOptions {
    /// Accept a run that was interrupted and not yet resumed: files without a result and
    /// a last segment without `finished` are notes, not problems. Everything journaled must
    /// still be consistent.
    pub partial: bool,
}

/// What the check found; `problems` empty means consistent.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct LedgerReport {
    /// The run directory.
    pub out: PathBuf,
    /// Complete journal records read.
    pub records: u64,
    /// `run` records: 1 + the number of resumptions.
    pub segments: u64,
    /// Files the first `run` record enumerated.
    pub files: u64,
    /// Enumerated files with exactly one journaled result.
    pub results: u64,
    /// Enumerated files without a journaled result, sorted.
    pub missing: Vec<String>,
    /// The last segment ended with a `finished` record.
    pub finished: bool,
    /// Bytes of a torn last journal line (0 when the journal ends with a newline).
    pub torn_bytes: u64,
    /// Files whose `results.jsonl` line is a baseline re-run of a journaled timeout or infra error.
    pub spurious_reruns: Vec<String>,
    /// Journaled results per status.
    pub status_counts: BTreeMap<String, u64>,
    /// Observations that do not make the ledger inconsistent.
    pub notes: Vec<String>,
    /// Inconsistencies; empty means the ledger is consistent.
    pub problems: Vec<String>,
}

impl LedgerReport {
    /// True when no problem was found.
    pub fn consistent(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Why the check could not run at all (a usage error, exit 2).
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// OUT does not exist or is not a folder.
    #[error("{0} is not a run directory (no such folder)")]
    NotADirectory(PathBuf),
}

/// The journal, cut into complete records and a torn tail.
struct ParsedJournal {
    records: Vec<(usize, JournalRecord)>,
    torn_bytes: u64,
}

fn parse_journal(bytes: &[u8], problems: &mut Vec<String>) -> ParsedJournal {
    let complete = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    let torn_bytes = (bytes.len() - complete) as u64;
    let mut records = Vec::new();
    // Complete lines: everything up to the last newline, that newline dropped.
    let body = &bytes[..complete.saturating_sub(1)];
    let lines: Vec<&[u8]> = if complete == 0 { Vec::new() } else { body.split(|b| *b == b'\n').collect() };
    let count = lines.len();
    let mut torn_bytes = torn_bytes;
    for (n, line) in lines.into_iter().enumerate() {
        let line_no = n + 1;
        match std::str::from_utf8(line)
            .map_err(|e| e.to_string())
            .and_then(|l| serde_json::from_str::<JournalRecord>(l).map_err(|e| e.to_string()))
        {
            Ok(r) => records.push((line_no, r)),
            // A garbled last line is what a kill inside a write can leave: `--resume` cuts it.
            Err(_) if line_no == count && torn_bytes == 0 => torn_bytes = line.len() as u64 + 1,
            Err(e) => problems.push(format!("{JOURNAL}:{line_no}: not a journal record ({e})")),
        }
    }
    ParsedJournal { records, torn_bytes }
}

/// Checks the run directory `out`.
pub fn verify(out: &Path, opts: VerifyOptions) -> Result<LedgerReport, VerifyError> {
    if !out.is_dir() {
        return Err(VerifyError::NotADirectory(out.to_path_buf()));
    }
    let mut rep = LedgerReport { out: out.to_path_buf(), ..Default::default() };
    let bytes = match std::fs::read(out.join(JOURNAL)) {
        Ok(b) => b,
        Err(e) => {
            rep.problems.push(format!("{JOURNAL}: {e}"));
            return Ok(rep);
        }
    };
    let journal = parse_journal(&bytes, &mut rep.problems);
    rep.records = journal.records.len() as u64;
    rep.torn_bytes = journal.torn_bytes;
    if journal.torn_bytes > 0 {
        rep.notes.push(format!(
            "{JOURNAL}: torn last line ({} bytes cut short or garbled), ignored as --resume ignores it",
            journal.torn_bytes
        ));
    }
    let in_progress = crate::output_set::in_progress(out);
    if in_progress {
        let line = format!(
            "`{}` is present: a run is writing this folder or was interrupted (complete it with `pmfarm run --resume OUT`)",
            crate::output_set::IN_PROGRESS
        );
        if opts.partial {
            rep.notes.push(line);
        } else {
            rep.problems.push(line);
        }
    }
    check_report(out, &mut rep);
    let Some(replayed) = replay(&journal.records, &mut rep) else { return Ok(rep) };

    let results_path = out.join(RESULTS);
    if results_path.exists() {
        check_results(out, &replayed, &mut rep);
    } else if rep.finished {
        rep.problems.push(format!("{RESULTS} is missing although the run finished"));
    }
    if !rep.missing.is_empty() {
        let shown: Vec<&str> = rep.missing.iter().take(10).map(String::as_str).collect();
        let more = if rep.missing.len() > 10 { format!(" and {} more", rep.missing.len() - 10) } else { String::new() };
        let line = format!("{} file(s) without a result: {}{more}", rep.missing.len(), shown.join(", "));
        if opts.partial && !rep.finished {
            rep.notes.push(line);
        } else {
            rep.problems.push(line);
        }
    }
    if !rep.finished {
        let line = "the last run segment has no `finished` record: the run was interrupted \
                    (complete it with `pmfarm run --resume OUT`)"
            .to_string();
        if opts.partial {
            rep.notes.push(line);
        } else {
            rep.problems.push(line);
        }
    }
    Ok(rep)
}

/// The journal replayed: enumerated files, corpus root, result per path.
struct Replayed {
    corpus_root: String,
    files: Vec<String>,
    results: BTreeMap<String, FileResult>,
}

/// Walks the records, checking the ledger rules, and returns what they add up to
/// (`None` when there is no first `run` record to check against).
fn replay(records: &[(usize, JournalRecord)], rep: &mut LedgerReport) -> Option<Replayed> {
    let Some((_, JournalRecord::Run { schema, corpus_root, files, options, resumed, shard })) = records.first() else {
        rep.problems.push(format!("{JOURNAL}: the first record is not a `run` record"));
        return None;
    };
    if *resumed {
        rep.problems.push(format!("{JOURNAL}:1: the first `run` record is marked as a resumption"));
    }
    let enumerated: BTreeSet<&String> = files.iter().collect();
    if enumerated.len() != files.len() {
        rep.problems.push(format!("{JOURNAL}:1: the enumerated files hold duplicates"));
    }
    rep.files = enumerated.len() as u64;
    rep.segments = 1;
    let mut results: BTreeMap<String, FileResult> = BTreeMap::new();
    let mut result_segment: BTreeMap<String, u64> = BTreeMap::new();
    let mut running: BTreeSet<String> = BTreeSet::new(); // started in this segment, no result yet
    let mut finished_at: Option<usize> = None;
    for (line, record) in &records[1..] {
        if let Some(f) = finished_at {
            if !matches!(record, JournalRecord::Run { .. }) {
                rep.problems
                    .push(format!("{JOURNAL}:{line}: a record after `finished` (line {f}) in the same segment"));
            }
        }
        match record {
            JournalRecord::Run { schema: s, corpus_root: c, files: f, options: o, resumed: r, shard: k } => {
                rep.segments += 1;
                finished_at = None;
                running.clear();
                if !r {
                    rep.problems.push(format!("{JOURNAL}:{line}: a second fresh `run` record (not a resumption)"));
                }
                if (s, c, f, o, k) != (schema, corpus_root, files, options, shard) {
                    rep.problems.push(format!(
                        "{JOURNAL}:{line}: the resumption differs from the first run in schema, corpus root, \
                         files, options or shard"
                    ));
                }
            }
            JournalRecord::Started { path } => {
                // A resumption runs an earlier segment's infra error again (the farm could
                // not run the file then); the new result replaces it.
                let retried = results.get(path).is_some_and(|r| r.status == Status::InfraError)
                    && result_segment.get(path).is_some_and(|s| *s < rep.segments);
                if retried {
                    results.remove(path);
                    rep.notes.push(format!("{JOURNAL}:{line}: `{path}` (infra-error) run again by a resumption"));
                }
                if !enumerated.contains(path) {
                    rep.problems.push(format!("{JOURNAL}:{line}: `{path}` started but was never enumerated"));
                } else if results.contains_key(path) {
                    rep.problems.push(format!("{JOURNAL}:{line}: `{path}` started again after its result (ran twice)"));
                } else if !running.insert(path.clone()) {
                    rep.problems.push(format!("{JOURNAL}:{line}: `{path}` started twice in one segment"));
                }
            }
            JournalRecord::Result(r) => {
                if !enumerated.contains(&r.path) {
                    rep.problems.push(format!("{JOURNAL}:{line}: result for `{}`, never enumerated", r.path));
                } else if results.contains_key(&r.path) {
                    rep.problems.push(format!("{JOURNAL}:{line}: a second result for `{}` (ran twice)", r.path));
                } else {
                    if !running.remove(&r.path) {
                        rep.problems.push(format!("{JOURNAL}:{line}: result for `{}` without `started`", r.path));
                    }
                    if let Some(why) = crash_read_as_pass(r) {
                        rep.problems.push(format!("{JOURNAL}:{line}: `{}` is a pass, yet {why}", r.path));
                    }
                    results.insert(r.path.clone(), (**r).clone());
                    result_segment.insert(r.path.clone(), rep.segments);
                }
            }
            JournalRecord::Finished { files: n } => {
                finished_at = Some(*line);
                if *n != results.len() as u64 {
                    rep.problems.push(format!(
                        "{JOURNAL}:{line}: `finished` counts {n} files, the journal holds {} results",
                        results.len()
                    ));
                }
            }
        }
    }
    rep.finished = finished_at.is_some();
    rep.results = results.len() as u64;
    rep.missing = files.iter().filter(|f| !results.contains_key(*f)).cloned().collect();
    rep.missing.sort();
    rep.missing.dedup();
    let mut counts = empty_status_counts();
    for r in results.values() {
        *counts.entry(r.status.name().to_string()).or_default() += 1;
    }
    rep.status_counts = counts;
    Some(Replayed { corpus_root: corpus_root.clone(), files: files.clone(), results })
}

/// Why a `pass` result contradicts how its worker ended (a crash must never read as a
/// pass); `None` when it does not. In-process results have no exit code.
fn crash_read_as_pass(r: &FileResult) -> Option<String> {
    if r.status != Status::Pass {
        return None;
    }
    if let Some(sig) = &r.signal {
        return Some(format!("the worker was killed by {sig}"));
    }
    if r.panic.is_some() {
        return Some("the worker panicked".into());
    }
    match r.exit_code {
        Some(code) if code != 0 => Some(format!("the worker exited {code}")),
        _ => None,
    }
}

fn read_lines<T: serde::de::DeserializeOwned>(path: &Path, rep: &mut LedgerReport) -> Option<Vec<T>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            rep.problems.push(format!("{}: {e}", path.display()));
            return None;
        }
    };
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        match serde_json::from_str(line) {
            Ok(v) => out.push(v),
            Err(e) => {
                rep.problems.push(format!("{}:{}: {e}", file_name(path), n + 1));
                return None;
            }
        }
    }
    Some(out)
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path, rep: &mut LedgerReport) -> Option<T> {
    let parsed = std::fs::read_to_string(path)
        .map_err(|e| e.to_string())
        .and_then(|t| serde_json::from_str(&t).map_err(|e| e.to_string()));
    match parsed {
        Ok(v) => Some(v),
        Err(e) => {
            rep.problems.push(format!("{}: {e}", file_name(path)));
            None
        }
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// `results.jsonl` against the replay, then `summary.json` against `results.jsonl`.
fn check_results(out: &Path, replayed: &Replayed, rep: &mut LedgerReport) {
    let Some(lines) = read_lines::<FileResult>(&out.join(RESULTS), rep) else { return };
    let diff: Option<BaselineDiff> =
        out.join(BASELINE_DIFF).exists().then(|| read_json(&out.join(BASELINE_DIFF), rep)).flatten();
    results_against_journal(&lines, replayed, diff.as_ref(), rep);
    summary_against_results(out, &lines, replayed, diff.as_ref(), rep);
}

/// Each line of `results.jsonl` is an enumerated file's journaled result (or, for a file the
/// baseline comparison re-ran as spurious, its re-run), and no journaled file is missing.
fn results_against_journal(
    lines: &[FileResult],
    replayed: &Replayed,
    diff: Option<&BaselineDiff>,
    rep: &mut LedgerReport,
) {
    let spurious: BTreeSet<&str> = diff
        .into_iter()
        .flat_map(|d| d.files.iter())
        .filter(|f| f.class == DiffClass::Spurious)
        .map(|f| f.path.as_str())
        .collect();
    if lines.windows(2).any(|w| w[0].path >= w[1].path) {
        rep.problems.push(format!("{RESULTS} is not sorted by path with one line per file"));
    }
    let enumerated: BTreeSet<&String> = replayed.files.iter().collect();
    let mut seen = BTreeSet::new();
    for r in lines {
        seen.insert(r.path.as_str());
        if !enumerated.contains(&r.path) {
            rep.problems.push(format!("{RESULTS}: `{}` was never enumerated", r.path));
            continue;
        }
        let Some(journaled) = replayed.results.get(&r.path) else {
            rep.problems.push(format!("{RESULTS}: `{}` has no result in the journal", r.path));
            continue;
        };
        if journaled == r {
            continue;
        }
        let rerun = spurious.contains(r.path.as_str())
            && matches!(journaled.status, Status::Timeout | Status::InfraError)
            && !matches!(r.status, Status::Timeout | Status::InfraError);
        if rerun {
            rep.spurious_reruns.push(r.path.clone());
        } else {
            rep.problems.push(format!(
                "{RESULTS}: `{}` differs from its journaled result (status {} there, {} here)",
                r.path, journaled.status, r.status
            ));
        }
    }
    for path in replayed.results.keys().filter(|p| !seen.contains(p.as_str())) {
        rep.problems.push(format!("{RESULTS}: `{path}` is journaled but missing"));
    }
    if !rep.spurious_reruns.is_empty() {
        rep.notes.push(format!(
            "{} spurious file(s) carry the result of their baseline re-run, not the journaled one: {}",
            rep.spurious_reruns.len(),
            rep.spurious_reruns.join(", ")
        ));
    }
}

/// `summary.json` counts what `results.jsonl` holds: files, statuses, buckets, baseline.
fn summary_against_results(
    out: &Path,
    lines: &[FileResult],
    replayed: &Replayed,
    diff: Option<&BaselineDiff>,
    rep: &mut LedgerReport,
) {
    let summary_path = out.join(SUMMARY);
    if !summary_path.exists() {
        // Both files are renamed into place one after the other; a run killed between the
        // two renames has not journaled `finished` yet, and `--resume` rewrites both.
        if rep.finished {
            rep.problems.push(format!("{SUMMARY} is missing beside {RESULTS}"));
        } else {
            rep.notes.push(format!("{SUMMARY} not written yet (interrupted between {RESULTS} and {SUMMARY})"));
        }
        return;
    }
    let Some(summary) = read_json::<Summary>(&summary_path, rep) else { return };
    if summary.files != lines.len() as u64 {
        rep.problems.push(format!("{SUMMARY}: files = {}, {RESULTS} has {} lines", summary.files, lines.len()));
    }
    if summary.corpus_root != replayed.corpus_root {
        rep.problems.push(format!(
            "{SUMMARY}: corpus root {} differs from the journal's {}",
            summary.corpus_root, replayed.corpus_root
        ));
    }
    let mut counts = empty_status_counts();
    let mut buckets: BTreeMap<&str, BTreeMap<String, u64>> = BTreeMap::new();
    for r in lines {
        *counts.entry(r.status.name().to_string()).or_default() += 1;
        for b in &r.buckets {
            let e = buckets.entry(b.as_str()).or_insert_with(empty_status_counts);
            *e.entry(r.status.name().to_string()).or_default() += 1;
        }
    }
    if summary.status_counts != counts {
        rep.problems
            .push(format!("{SUMMARY}: status counts {:?} differ from {RESULTS}'s {:?}", summary.status_counts, counts));
    }
    let summary_buckets: BTreeMap<&str, &BTreeMap<String, u64>> =
        summary.buckets.iter().map(|(k, v)| (k.as_str(), &v.status_counts)).collect();
    let recomputed: BTreeMap<&str, &BTreeMap<String, u64>> = buckets.iter().map(|(k, v)| (*k, v)).collect();
    if summary_buckets != recomputed {
        let differing: Vec<&str> = summary_buckets
            .keys()
            .chain(recomputed.keys())
            .filter(|k| summary_buckets.get(*k) != recomputed.get(*k))
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        rep.problems.push(format!("{SUMMARY}: bucket counts differ from {RESULTS} in {}", differing.join(", ")));
    }
    match (&summary.baseline, diff) {
        (Some(b), Some(d)) if b.counts != d.counts => {
            rep.problems.push(format!("{SUMMARY}: baseline counts differ from {BASELINE_DIFF}"))
        }
        (Some(_), None) => rep.problems.push(format!("{SUMMARY} names a baseline but {BASELINE_DIFF} is missing")),
        (None, Some(_)) => rep.problems.push(format!("{BASELINE_DIFF} is present but {SUMMARY} names no baseline")),
        _ => {}
    }
}

/// The report belongs to the results: `report/index.json` carries the run id of
/// `summary.json` (`stamp.timing.run_id` = `timing.run_id`); a report without results, or from another output set, is stale.
fn check_report(out: &Path, rep: &mut LedgerReport) {
    let leftovers: Vec<String> = std::fs::read_dir(out)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(crate::output_set::REPORT_TMP_PREFIX))
        .collect();
    if !leftovers.is_empty() {
        rep.notes.push(format!("unfinished report render(s) left: {}", leftovers.join(", ")));
    }
    let report = out.join(REPORT);
    if !report.exists() {
        return;
    }
    let summary_id = std::fs::read_to_string(out.join(SUMMARY))
        .ok()
        .and_then(|t| serde_json::from_str::<Summary>(&t).ok())
        .map(|s| s.run_id().to_string());
    let index = std::fs::read_to_string(report.join(INDEX_JSON))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    // A report written before run ids existed has none, like its summary.
    let report_id = index.map(|v| v["stamp"]["timing"]["run_id"].as_str().unwrap_or_default().to_string());
    match (summary_id, report_id) {
        (None, _) => rep.problems.push(format!("{REPORT}/ is present without {SUMMARY}: a stale report")),
        (Some(_), None) => rep.problems.push(format!("{REPORT}/{INDEX_JSON} is missing or unreadable: a torn report")),
        (Some(s), Some(r)) if s != r => rep.problems.push(format!(
            "{REPORT}/ belongs to run {r}, the results to run {s}: a stale report (re-render it with `pmfarm report OUT`)"
        )),
        _ => {}
    }
}

/// Human-readable lines for the terminal.
pub fn render(rep: &LedgerReport) -> String {
    let mut s = format!("pmfarm: verify-ledger {}\n", crate::display::path(&rep.out));
    s.push_str(&format!(
        "  journal: {} records in {} segment(s) ({} resumption(s)), {}, torn last line: {}\n",
        rep.records,
        rep.segments,
        rep.segments.saturating_sub(1),
        if rep.finished { "finished" } else { "not finished" },
        if rep.torn_bytes > 0 { format!("{} bytes (tolerated)", rep.torn_bytes) } else { "none".into() }
    ));
    let counts: Vec<String> =
        rep.status_counts.iter().filter(|(_, n)| **n > 0).map(|(k, n)| format!("{n} {k}")).collect();
    s.push_str(&format!(
        "  files: {} enumerated, {} with exactly one result ({}), {} without\n",
        rep.files,
        rep.results,
        counts.join(", "),
        rep.missing.len()
    ));
    use crate::display::escape_controls as esc;
    for n in &rep.notes {
        s.push_str(&format!("  note: {}\n", esc(n)));
    }
    for p in &rep.problems {
        s.push_str(&format!("  INCONSISTENT: {}\n", esc(p)));
    }
    if rep.consistent() {
        s.push_str("pmfarm: ledger consistent\n");
    } else {
        s.push_str(&format!("pmfarm: ledger INCONSISTENT ({} problem(s))\n", rep.problems.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;
    use crate::results::{BucketSummary, Summary};
    use std::io::Write;

    fn result(path: &str, status: Status) -> FileResult {
        FileResult { path: path.into(), status, buckets: vec!["all".into()], ..Default::default() }
    }

    fn run_record(files: &[&str], resumed: bool) -> JournalRecord {
        JournalRecord::Run {
            schema: 1,
            corpus_root: "/corpus".into(),
            files: files.iter().map(|f| f.to_string()).collect(),
            options: serde_json::json!({"tiers": ["t1"]}),
            resumed,
            shard: None,
        }
    }

    /// Writes `records` as the journal, and results.jsonl + summary.json from `outputs`.
    fn run_dir(records: &[JournalRecord], outputs: Option<&[FileResult]>) -> tempfile::TempDir {
        let t = tempfile::tempdir().unwrap();
        let mut j = Journal::create(t.path()).unwrap();
        for r in records {
            j.append(r).unwrap();
        }
        if let Some(results) = outputs {
            let lines: String = results.iter().map(|r| serde_json::to_string(r).unwrap() + "\n").collect();
            std::fs::write(t.path().join(RESULTS), lines).unwrap();
            let mut counts = empty_status_counts();
            for r in results {
                *counts.get_mut(r.status.name()).unwrap() += 1;
            }
            let summary = Summary {
                corpus_root: "/corpus".into(),
                files: results.len() as u64,
                status_counts: counts.clone(),
                buckets: [("all".to_string(), BucketSummary { files: results.len() as u64, status_counts: counts })]
                    .into(),
                ..Default::default()
            };
            std::fs::write(t.path().join(SUMMARY), serde_json::to_string(&summary).unwrap()).unwrap();
        }
        t
    }

    fn started(p: &str) -> JournalRecord {
        JournalRecord::Started { path: p.into() }
    }

    fn done(r: &FileResult) -> JournalRecord {
        JournalRecord::Result(Box::new(r.clone()))
    }

    fn check(dir: &tempfile::TempDir, partial: bool) -> LedgerReport {
        verify(dir.path(), VerifyOptions { partial }).unwrap()
    }

    fn complete_run() -> (Vec<JournalRecord>, Vec<FileResult>) {
        let (a, b) = (result("a.max", Status::Pass), result("b.max", Status::Crash));
        let records = vec![
            run_record(&["a.max", "b.max"], false),
            started("a.max"),
            started("b.max"),
            done(&b),
            done(&a),
            JournalRecord::Finished { files: 2 },
        ];
        (records, vec![a, b])
    }

    #[test]
    fn a_complete_run_is_consistent() {
        let (records, results) = complete_run();
        let rep = check(&run_dir(&records, Some(&results)), false);
        assert!(rep.consistent(), "{}", render(&rep));
        assert_eq!((rep.files, rep.results, rep.segments, rep.finished), (2, 2, 1, true));
        assert_eq!(rep.status_counts["crash"], 1);
    }

    #[test]
    fn a_torn_last_line_is_tolerated_and_reported() {
        let (records, results) = complete_run();
        let dir = run_dir(&records, Some(&results));
        let mut f = std::fs::OpenOptions::new().append(true).open(dir.path().join(JOURNAL)).unwrap();
        f.write_all(b"{\"record\":\"started\",\"pa").unwrap();
        let rep = check(&dir, false);
        assert!(rep.consistent(), "{}", render(&rep));
        assert_eq!(rep.torn_bytes, 23);
        assert!(rep.notes.iter().any(|n| n.contains("torn")));
    }

    #[test]
    fn an_unparsable_line_inside_the_journal_is_a_problem() {
        let (records, results) = complete_run();
        let dir = run_dir(&records, Some(&results));
        // Line 3 garbled after the fact (reopen would cut it only as the last line).
        let path = dir.path().join(JOURNAL);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        lines.insert(2, "{\"record\":\"res");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let rep = check(&dir, false);
        assert!(rep.problems.iter().any(|p| p.contains(":3: not a journal record")), "{}", render(&rep));
        // The same garbling on the last line is a torn write, tolerated as `--resume` tolerates it.
        lines.remove(2);
        lines.push("{\"record\":\"res");
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        let rep = check(&dir, false);
        assert!(rep.consistent(), "{}", render(&rep));
        assert_eq!(rep.torn_bytes, 15);
    }

    #[test]
    fn a_second_result_or_a_restart_after_a_result_is_running_twice() {
        let (mut records, results) = complete_run();
        records.insert(5, started("a.max"));
        records.insert(6, done(&results[0]));
        let rep = check(&run_dir(&records, Some(&results)), false);
        assert!(rep.problems.iter().any(|p| p.contains("`a.max` started again after its result")), "{rep:?}");
        assert!(rep.problems.iter().any(|p| p.contains("a second result for `a.max`")), "{rep:?}");
        assert!(rep.problems.iter().any(|p| p.contains("`finished` counts 2")) || rep.problems.len() >= 2);
    }

    #[test]
    fn a_pass_with_a_signal_or_a_panic_or_a_bad_exit_is_a_problem() {
        let (mut records, mut results) = complete_run();
        results[0].signal = Some("SIGSEGV".into());
        records[4] = done(&results[0]);
        let rep = check(&run_dir(&records, Some(&results)), false);
        assert!(rep.problems.iter().any(|p| p.contains("`a.max` is a pass, yet the worker was killed by SIGSEGV")));
        results[0].signal = None;
        results[0].exit_code = Some(1);
        records[4] = done(&results[0]);
        let rep = check(&run_dir(&records, Some(&results)), false);
        assert!(rep.problems.iter().any(|p| p.contains("yet the worker exited 1")), "{rep:?}");
        results[0].exit_code = Some(0);
        records[4] = done(&results[0]);
        assert!(check(&run_dir(&records, Some(&results)), false).consistent());
    }

    #[test]
    fn an_interrupted_run_is_incomplete_unless_partial() {
        let (records, _) = complete_run();
        let dir = run_dir(&records[..4], None);
        let strict = check(&dir, false);
        assert!(strict.problems.iter().any(|p| p.contains("without a result: a.max")), "{strict:?}");
        assert!(strict.problems.iter().any(|p| p.contains("interrupted")), "{strict:?}");
        let partial = check(&dir, true);
        assert!(partial.consistent(), "{}", render(&partial));
        assert_eq!(partial.missing, ["a.max"]);
    }

    #[test]
    fn a_resumption_completes_the_run_and_must_repeat_its_files_and_options() {
        let (records, results) = complete_run();
        let mut resumed = records[..4].to_vec();
        resumed.extend([
            run_record(&["a.max", "b.max"], true),
            started("a.max"),
            done(&results[0]),
            JournalRecord::Finished { files: 2 },
        ]);
        let rep = check(&run_dir(&resumed, Some(&results)), false);
        assert!(rep.consistent(), "{}", render(&rep));
        assert_eq!(rep.segments, 2);
        resumed[4] = run_record(&["a.max"], true);
        let rep = check(&run_dir(&resumed, Some(&results)), false);
        assert!(rep.problems.iter().any(|p| p.contains("resumption differs")), "{rep:?}");
    }

    #[test]
    fn results_and_summary_must_equal_the_replay() {
        let (records, mut results) = complete_run();
        results[1].status = Status::Pass; // a crash that reads as a pass
        let rep = check(&run_dir(&records, Some(&results)), false);
        assert!(
            rep.problems.iter().any(|p| p.contains("`b.max` differs from its journaled result (status crash there")),
            "{rep:?}"
        );
        let (records, results) = complete_run();
        let dir = run_dir(&records, Some(&results[..1]));
        let rep = check(&dir, false);
        assert!(rep.problems.iter().any(|p| p.contains("`b.max` is journaled but missing")), "{rep:?}");
    }

    #[test]
    fn summary_counts_are_recomputed() {
        let (records, results) = complete_run();
        let dir = run_dir(&records, Some(&results));
        let path = dir.path().join(SUMMARY);
        let mut s: Summary = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        *s.status_counts.get_mut("crash").unwrap() = 0;
        *s.status_counts.get_mut("pass").unwrap() = 2;
        std::fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
        let rep = check(&dir, false);
        assert!(rep.problems.iter().any(|p| p.starts_with("summary.json: status counts")), "{rep:?}");
        s.buckets.get_mut("all").unwrap().status_counts = s.status_counts.clone();
        std::fs::write(&path, serde_json::to_string(&s).unwrap()).unwrap();
        let rep = check(&dir, false);
        assert!(rep.problems.iter().any(|p| p.contains("bucket counts differ from results.jsonl in all")), "{rep:?}");
    }

    #[test]
    fn a_spurious_baseline_rerun_may_replace_a_journaled_timeout_and_nothing_else() {
        use crate::results::{BaselineSummary, FileDiff};
        let (mut records, results) = complete_run();
        let timed_out = result("b.max", Status::Timeout);
        records[3] = done(&timed_out);
        let rerun = result("b.max", Status::Pass);
        let dir = run_dir(&records, Some(&[results[0].clone(), rerun]));
        let diff = |class| BaselineDiff {
            baseline: "base".into(),
            counts: [(DiffClass::Spurious.name().to_string(), 1)].into(),
            files: vec![FileDiff { path: "b.max".into(), class, changes: Vec::new() }],
        };
        std::fs::write(dir.path().join(BASELINE_DIFF), serde_json::to_string(&diff(DiffClass::Spurious)).unwrap())
            .unwrap();
        let summary_path = dir.path().join(SUMMARY);
        let mut s: Summary = serde_json::from_str(&std::fs::read_to_string(&summary_path).unwrap()).unwrap();
        s.baseline = Some(BaselineSummary { name: "base".into(), counts: diff(DiffClass::Spurious).counts });
        std::fs::write(&summary_path, serde_json::to_string(&s).unwrap()).unwrap();
        let rep = check(&dir, false);
        assert!(rep.consistent(), "{}", render(&rep));
        assert_eq!(rep.spurious_reruns, ["b.max"]);
        // The same replacement without the `spurious` classification is a lost result.
        let mut same = diff(DiffClass::Same);
        same.counts = diff(DiffClass::Spurious).counts;
        std::fs::write(dir.path().join(BASELINE_DIFF), serde_json::to_string(&same).unwrap()).unwrap();
        let rep = check(&dir, false);
        assert!(rep.problems.iter().any(|p| p.contains("`b.max` differs from its journaled result")), "{rep:?}");
    }

    #[test]
    fn a_missing_journal_is_inconsistent_and_a_missing_folder_a_usage_error() {
        let t = tempfile::tempdir().unwrap();
        assert!(!check(&t, true).consistent());
        assert!(verify(&t.path().join("nope"), VerifyOptions::default()).is_err());
    }
}
