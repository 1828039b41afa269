//! The farm's output data model: one place that `results.jsonl`, `summary.json`,
//! `baseline-diff.json`, the journal and the baselines are read and written through.
//! Reports (HTML, JSON, JUnit, Markdown) build on these types; `docs/results.md`
//! documents every field. Worker data is carried in [`crate::events`] types, never
//! redefined here; `pmfarm::results` re-exports this module.
//!
//! Rule shared with the worker contract: everything that varies from run to run sits
//! under a `timing` object, so two runs of the same tool on the same files compare equal
//! once `timing` is dropped.

use crate::events::{Breadcrumb, Export, Inventory, PanicReport, Tier, TierResult, Triage};
pub use crate::names::Status;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the farm output formats; bumped when a field changes meaning or disappears.
pub const RESULTS_SCHEMA: u32 = 1;

/// Run-to-run varying measurements of one file; never compared by baselines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileTiming {
    /// Wall time from spawn to reap, as the farm saw it.
    pub wall_ms: u64,
    /// The worker's own phase durations (`read`, `open`, `t1`, `t2`, `triage`, `export`).
    #[serde(default)]
    pub durations_ms: BTreeMap<String, u64>,
    /// Peak RSS of the worker (from its `end` event, else from `wait4`'s rusage).
    #[serde(default)]
    pub peak_rss_bytes: u64,
}

/// One line of `results.jsonl`: everything the farm learnt about one file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileResult {
    /// Path relative to its corpus root with `/` separators (the key everywhere).
    pub path: String,
    /// Terminal status.
    pub status: Status,
    /// Why: skip reason, first failure, killing signal, time limit hit, …
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Distinct failure kinds from the worker's `end`, sorted.
    #[serde(default)]
    pub fail_kinds: Vec<String>,
    /// Failure signatures `tier|stream|class|masked-chunk-path|kind` (see [`crate::signature`]).
    #[serde(default)]
    pub signatures: Vec<String>,
    /// Bucket slugs this file belongs to, sorted.
    #[serde(default)]
    pub buckets: Vec<String>,
    /// SHA-256 of the file (from the worker's `start`, else computed by the farm).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// File size in bytes.
    #[serde(default)]
    pub bytes: u64,
    /// Input class (`ole`, `lfs-pointer`, `empty`, `not-ole`, `corrupt-ole`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<String>,
    /// `Max 2016`, `unknown (0x….)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_version: Option<String>,
    /// Scene root chunk id, `0x2021`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_id: Option<String>,
    /// Saving release from the document summary.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saving_release: Option<String>,
    /// The worker's `triage` event body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triage: Option<Triage>,
    /// The worker's `result` events, in emission order.
    #[serde(default)]
    pub results: Vec<TierResult>,
    /// The worker's `inventory` event body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inventory: Option<Inventory>,
    /// The worker's `export` events.
    #[serde(default)]
    pub exports: Vec<Export>,
    /// Last breadcrumb seen (kept for every non-clean end; the crash locator).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_breadcrumb: Option<Breadcrumb>,
    /// The worker's `panic` event, when it panicked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub panic: Option<PanicReport>,
    /// Last lines of the worker's stderr (bounded), when it wrote any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
    /// Worker exit code, when it exited normally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// Signal that ended the worker (`SIGSEGV`, `SIGKILL`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Run-to-run varying measurements.
    #[serde(default)]
    pub timing: FileTiming,
}

impl FileResult {
    /// Verdict name per `tier:stream` (`t1:Scene` → `pass`), the unit baselines compare.
    pub fn verdicts(&self) -> BTreeMap<String, String> {
        self.results.iter().map(|r| (verdict_key(r.tier, &r.stream), r.verdict.name().to_string())).collect()
    }
}

/// Key of one tier × stream verdict: `t1:Scene`, `t3:skel`.
pub fn verdict_key(tier: Tier, stream: &str) -> String {
    format!("{}:{stream}", tier.name())
}

/// The T3 comparison a result stream reports: `pairs/geometry` for
/// `pairs/geometry/<export>`, else the stream itself (`summary/objects`, `nel-shape`,
/// `skel`, `pairs`). Report tables and gate globs (`t3_floor`) name comparisons this way.
pub fn t3_comparison(stream: &str) -> String {
    match stream.strip_prefix("pairs/").and_then(|rest| rest.split_once('/')) {
        Some((comparison, _)) => format!("pairs/{comparison}"),
        None => stream.to_string(),
    }
}

/// Count of files per status name (every status present, zeros included).
pub type StatusCounts = BTreeMap<String, u64>;

/// Zeroed counts for every status.
pub fn empty_status_counts() -> StatusCounts {
    Status::ALL.iter().map(|s| (s.name().to_string(), 0)).collect()
}

/// One bucket in `summary.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BucketSummary {
    /// Files in the bucket.
    pub files: u64,
    /// Their statuses.
    pub status_counts: StatusCounts,
}

/// The outcome of one gate rule on one bucket × tier.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateOutcome {
    /// Gate name (`<file stem>/<rule name>`).
    pub name: String,
    /// Bucket slug the numbers are about (a glob's match, or `all`).
    pub bucket: String,
    /// Tier (`t1`, `t2`, `t3`) or `file` for status-level rules.
    pub tier: String,
    /// `min_pass_rate`, `max_regressions`, `max_degraded_classes`, `t3:<field>`, `normalization`.
    pub metric: String,
    /// The threshold from the gate file.
    pub threshold: f64,
    /// The measured value.
    pub value: f64,
    /// Whether the rule holds.
    pub passed: bool,
    /// Whether the metric judged anything: `false` when no file of the bucket reached what
    /// it measures (nothing ran the tier, the tier was not requested, a shard saw no
    /// matching bucket). A run whose rules all checked nothing is an error.
    #[serde(default = "yes")]
    pub checked: bool,
    /// One-line explanation printed when it fails.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub detail: String,
}

fn yes() -> bool {
    true
}

/// How one file compares to the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DiffClass {
    /// No status or verdict changed.
    Same,
    /// Something got worse: a change with a regression kind (see [`Change::kind`]).
    Regressed,
    /// Something got better (the reverse).
    Fixed,
    /// In this run, not in the baseline.
    New,
    /// In the baseline, not in this run.
    Removed,
    /// A timeout or infra error that did not repeat when re-run alone.
    Spurious,
}

impl DiffClass {
    /// Every class, in report order.
    pub const ALL: [DiffClass; 6] = [
        DiffClass::Same,
        DiffClass::Regressed,
        DiffClass::Fixed,
        DiffClass::New,
        DiffClass::Removed,
        DiffClass::Spurious,
    ];

    /// Stable name.
    pub fn name(self) -> &'static str {
        match self {
            DiffClass::Same => "same",
            DiffClass::Regressed => "regressed",
            DiffClass::Fixed => "fixed",
            DiffClass::New => "new",
            DiffClass::Removed => "removed",
            DiffClass::Spurious => "spurious",
        }
    }
}

/// Counts per [`DiffClass`] name.
pub type DiffCounts = BTreeMap<String, u64>;

/// `summary.json` → `baseline`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineSummary {
    /// Baseline name (`baselines/<name>.jsonl`).
    pub name: String,
    /// Files per class (every class present, zeros included).
    pub counts: DiffCounts,
}

/// One changed unit of a file: the file status (`tier = "file"`) or one tier × stream verdict.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// `file`, `t1`, `t2`, `t3`.
    pub tier: String,
    /// Stream or exporter; empty for `file`.
    pub stream: String,
    /// Status or verdict in the baseline (`absent` when missing).
    pub before: String,
    /// Status or verdict now (`absent` when missing).
    pub after: String,
    /// The regression kind when this change makes the file worse (`to-fail`, `to-abnormal`,
    /// `to-skip`, `to-absent`, `pass-to-degraded`, `pass-to-normalized`,
    /// `degraded-classes-rise`; see `docs/results.md`); gates may allow kinds one by one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// One entry of `baseline-diff.json`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDiff {
    /// File path (relative to the corpus root).
    pub path: String,
    /// Classification.
    pub class: DiffClass,
    /// What changed (empty for `same`).
    pub changes: Vec<Change>,
}

/// `baseline-diff.json`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineDiff {
    /// Baseline name.
    pub baseline: String,
    /// Counts per class.
    pub counts: DiffCounts,
    /// One entry per file in either side, sorted by path.
    pub files: Vec<FileDiff>,
}

/// One line of `baselines/<name>.jsonl`: what a later run is compared against.
/// Sorted by path; `timing` is kept for reference and never compared.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BaselineEntry {
    /// Path relative to the corpus root.
    pub path: String,
    /// SHA-256 of the file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Terminal status name.
    pub status: String,
    /// Verdict per `tier:stream`.
    #[serde(default)]
    pub verdicts: BTreeMap<String, String>,
    /// Distinct degraded classes per `tier:stream` with a `degraded` verdict.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub degraded_classes: BTreeMap<String, u64>,
    /// Triage class per T3 `tier:stream` that did not pass (`docs/triage.md`): a class
    /// that changes from one run to the next is a regression (`triage-class`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub triage: BTreeMap<String, String>,
    /// Failure signatures.
    #[serde(default)]
    pub signatures: Vec<String>,
    /// Export digest per exporter (`sha256` of the written files, or the export status).
    #[serde(default)]
    pub exports: BTreeMap<String, String>,
    /// Run-to-run varying measurements (informational).
    #[serde(default)]
    pub timing: FileTiming,
}

impl BaselineEntry {
    /// The baseline view of a result.
    pub fn of(r: &FileResult) -> BaselineEntry {
        BaselineEntry {
            path: r.path.clone(),
            sha256: r.sha256.clone(),
            status: r.status.name().to_string(),
            verdicts: r.verdicts(),
            degraded_classes: r
                .results
                .iter()
                .filter_map(|t| match &t.verdict {
                    crate::verdict::Verdict::Degraded { classes } => {
                        let distinct: std::collections::BTreeSet<_> =
                            classes.iter().map(|c| (c.class_id, c.superclass)).collect();
                        Some((verdict_key(t.tier, &t.stream), distinct.len() as u64))
                    }
                    _ => None,
                })
                .collect(),
            triage: r
                .results
                .iter()
                .filter_map(|t| t.triage.as_ref().map(|c| (verdict_key(t.tier, &t.stream), c.class.name().to_string())))
                .collect(),
            signatures: r.signatures.clone(),
            exports: r
                .exports
                .iter()
                .map(|e| (e.exporter.clone(), e.sha256.clone().unwrap_or_else(|| e.status.to_string())))
                .collect(),
            timing: r.timing.clone(),
        }
    }
}

/// `summary.json`: the run at a glance.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// `pmfarm <version>`.
    pub tool: String,
    /// [`RESULTS_SCHEMA`].
    pub schema: u32,
    /// Options that change results (tiers, exports, reference folder, worker path).
    pub options: serde_json::Value,
    /// Limits applied to every worker (jobs, timeouts, memory cap, output bounds).
    pub limits: serde_json::Value,
    /// Corpus root the paths are relative to.
    pub corpus_root: String,
    /// SHA-256 over the sorted `path\tsha256` lines of every enumerated file.
    pub corpus_manifest_sha256: String,
    /// Number of enumerated files (= lines of `results.jsonl`).
    pub files: u64,
    /// Files per status (every status present).
    pub status_counts: StatusCounts,
    /// Every non-empty bucket.
    pub buckets: BTreeMap<String, BucketSummary>,
    /// Every evaluated gate rule.
    pub gates: Vec<GateOutcome>,
    /// Baseline comparison, when `--baseline` was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineSummary>,
    /// `K/N` (1-based) for one shard of a sharded run (`--shard`, `--shard-from-env`);
    /// absent for a whole run and for a merged one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
    /// Run-to-run varying measurements (`wall_ms`, `worker_cpu_ms`, `bytes`, `resumed`,
    /// `run_id`).
    pub timing: serde_json::Value,
}

impl Summary {
    /// `timing.run_id`: the id of this output set, fresh at every write; the report carries
    /// the same id in its stamp, so a report left from another run is told apart
    /// (`crate::run_folder`). Empty for outputs written before run ids existed.
    pub fn run_id(&self) -> &str {
        self.timing.get("run_id").and_then(serde_json::Value::as_str).unwrap_or_default()
    }
}

/// One line of `journal.jsonl`, the append-only ledger that makes `--resume` possible.
/// Written and flushed as things happen; a torn last line is ignored on reading.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "kebab-case")]
pub enum JournalRecord {
    /// First line of a run (and of each resumption): what was enumerated, with which options.
    Run {
        /// [`RESULTS_SCHEMA`].
        schema: u32,
        /// Corpus root.
        corpus_root: String,
        /// Enumerated paths (relative), sorted.
        files: Vec<String>,
        /// The options of [`Summary::options`]; a resumption must use the same.
        options: serde_json::Value,
        /// `true` for a resumption.
        resumed: bool,
        /// `K/N` when the run checks one shard; a resumption checks the same shard.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        shard: Option<String>,
    },
    /// A worker was spawned for this path.
    Started {
        /// Relative path.
        path: String,
    },
    /// A terminal result for this path.
    Result(Box<FileResult>),
    /// The run finished and wrote its outputs.
    Finished {
        /// Files with a result.
        files: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_by_name() {
        for s in Status::ALL {
            assert_eq!(Status::from_name(s.name()), Some(s));
            assert_eq!(serde_json::to_string(&s).unwrap(), format!("\"{}\"", s.name()));
        }
    }

    #[test]
    fn journal_result_line_is_flat() {
        let r = FileResult { path: "a/b.max".into(), status: Status::Skip, ..Default::default() };
        let line = serde_json::to_string(&JournalRecord::Result(Box::new(r.clone()))).unwrap();
        assert!(line.starts_with("{\"record\":\"result\",\"path\":\"a/b.max\""), "{line}");
        let back: JournalRecord = serde_json::from_str(&line).unwrap();
        assert_eq!(back, JournalRecord::Result(Box::new(r)));
    }
}
