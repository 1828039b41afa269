//! The one report model every exporter writes from (HTML, JSON, JUnit, Markdown), so the
//! formats cannot drift apart. It is a *view* over the farm's output types in
//! [`crate::results`]: it adds nothing the run did not measure, it only groups, counts and
//! ranks. `index.json` and `bucket-<slug>.json` are this model serialized, and
//! `docs/report-schema.md` documents every field.

use crate::results::{Change, DiffClass, GateOutcome, Status, StatusCounts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of the report JSON; bumped when a field changes meaning or disappears.
pub const REPORT_SCHEMA: u32 = 1;

/// How many rows the ranked index tables (slowest files, largest RSS) keep. The table
/// caption always says "N of M" so the cut is never silent.
pub const RANKED_ROWS: usize = 20;

/// Status names in report order (pass first, then the bad ones), whatever map order says.
pub fn status_order(counts: &StatusCounts) -> Vec<(&str, u64)> {
    let mut out: Vec<(&str, u64)> =
        Status::ALL.iter().map(|s| (s.name(), counts.get(s.name()).copied().unwrap_or(0))).collect();
    out.extend(counts.iter().filter(|(k, _)| Status::from_name(k).is_none()).map(|(k, v)| (k.as_str(), *v)));
    out
}

/// The whole report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// [`REPORT_SCHEMA`].
    pub schema: u32,
    /// Which tool, corpus, options and limits produced the run.
    pub stamp: RunStamp,
    /// Enumerated files (= lines of `results.jsonl`).
    pub files: u64,
    /// Files per status, every status present.
    pub totals: StatusCounts,
    /// Pass rate per Max version × tier.
    pub pass_rates: Vec<PassRate>,
    /// The newest runs of the history file (`--history`), oldest first, at most
    /// [`crate::history::TREND_RUNS`]; empty without one.
    #[serde(default)]
    pub history: Vec<crate::history::HistoryEntry>,
    /// Comparison with the baseline, when the run had one.
    pub baseline: Option<BaselineView>,
    /// Every evaluated gate rule, with its numbers.
    pub gates: Vec<GateOutcome>,
    /// Why files did not pass, one entry per cause (status and what went wrong), most files
    /// first: the verdict's lines. Three workers that panicked the same way are one cause,
    /// however many gate rules and tiers they break.
    #[serde(default)]
    pub causes: Vec<Cause>,
    /// The slowest files by farm wall time, longest first ([`RANKED_ROWS`] of them at most).
    pub slowest: Vec<FileMetric>,
    /// The files with the largest peak RSS, largest first ([`RANKED_ROWS`] at most).
    pub largest_rss: Vec<FileMetric>,
    /// The dedicated lists the design's T3 caveats ask for.
    pub lists: Lists,
    /// T3 `summary/<section>` agreement over the run, one row per section, with the
    /// classes behind its skips and fails ranked by files affected.
    #[serde(default)]
    pub t3_sections: Vec<SectionRow>,
    /// T3 results per comparison by triage class.
    #[serde(default)]
    pub t3_triage: Vec<TriageRow>,
    /// Every `unexplained` T3 miss: listed first on the index.
    #[serde(default)]
    pub t3_unexplained: Vec<TriageMiss>,
    /// Every `era-mismatch` T3 miss with its evidence.
    #[serde(default)]
    pub t3_era_mismatch: Vec<TriageMiss>,
    /// One entry per bucket, sorted by slug.
    pub buckets: Vec<BucketReport>,
}

/// The run stamp: enough to tell two reports apart and to reproduce the run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunStamp {
    /// `pmfarm <version>` that ran the corpus.
    pub tool: String,
    /// `pmfarm <version>` that rendered this report.
    pub report_tool: String,
    /// Schema of the farm outputs read.
    pub results_schema: u32,
    /// Corpus root the paths are relative to.
    pub corpus_root: String,
    /// SHA-256 over the sorted `path\tsha256` lines: equal for runs over the same bytes.
    pub corpus_manifest_sha256: String,
    /// Options that change results.
    pub options: serde_json::Value,
    /// Limits applied to every worker.
    pub limits: serde_json::Value,
    /// Run-level timing from `summary.json` (informational), with its `run_id`: the report
    /// belongs to the results with the same id.
    pub timing: serde_json::Value,
}

/// Pass rate of one tier on the files of one Max version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PassRate {
    /// `Max 2016`, or `(no version: lfs-pointer)` for inputs without a Scene root.
    pub max_version: String,
    /// `t1`, `t2`, `t3`.
    pub tier: String,
    /// Files that count for this tier (see `docs/report-schema.md` for the rule).
    pub total: u64,
    /// Of which passed (no `fail` verdict in the tier, and the worker ended normally).
    pub passed: u64,
    /// `passed / total` (0 when nothing counted), kept in the model so every format
    /// prints the same number.
    pub rate: f64,
}

impl PassRate {
    /// A rate with its ratio computed.
    pub fn new(max_version: &str, tier: &str, passed: u64, total: u64) -> PassRate {
        let rate = if total == 0 { 0.0 } else { passed as f64 / total as f64 };
        PassRate { max_version: max_version.to_string(), tier: tier.to_string(), total, passed, rate }
    }
}

/// Files that did not pass for one reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Cause {
    /// Their status (`crash`, `fail`, `timeout`, …).
    pub status: String,
    /// What went wrong, without the file: the panic message, the signal, the first failing
    /// tier, stream and failure kind, the reason.
    pub what: String,
    /// The files, sorted.
    pub files: Vec<String>,
    /// Each file's home bucket (where its details are shown), in the order of `files`.
    pub homes: Vec<String>,
    /// How many of them regressed against the baseline.
    pub regressed: u64,
}

/// This run against the baseline.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BaselineView {
    /// Baseline name.
    pub name: String,
    /// Where the baseline entries were read from, when the file was found (the verdict
    /// diffs then come from it; otherwise they are rebuilt from `baseline-diff.json`).
    pub source: Option<String>,
    /// Files per diff class, every class present.
    pub counts: BTreeMap<String, u64>,
    /// Every file whose class is not `same`, regressions first, then by path.
    pub changed: Vec<ChangedFile>,
}

/// A file whose result changed against the baseline.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChangedFile {
    /// File path.
    pub path: String,
    /// Regressed, fixed, new, removed, spurious.
    pub class: DiffClass,
    /// Buckets of the file in this run (empty for `removed`).
    pub buckets: Vec<String>,
    /// What changed.
    pub changes: Vec<Change>,
    /// Status now (`absent` for a removed file).
    #[serde(default)]
    pub status: String,
    /// The changes in words, one line each, with every `tier:stream → absent` of a worker
    /// that ended abnormally folded into one line per tier ("worker crashed before t2").
    #[serde(default)]
    pub summary: Vec<String>,
    /// Where it went wrong: first failing verdict, or the crash breadcrumb.
    #[serde(default)]
    pub locator: Option<String>,
    /// Why, in the worker's or the farm's words: panic message, signal, first mismatch,
    /// skip reason.
    #[serde(default)]
    pub message: Option<String>,
}

/// One ranked measurement of one file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileMetric {
    /// File path.
    pub path: String,
    /// Its status.
    pub status: String,
    /// The most specific bucket page the file is shown on (its version bucket).
    pub bucket: String,
    /// Milliseconds or bytes, as the table says.
    pub value: u64,
}

/// The dedicated lists.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Lists {
    /// Map Extender asset list: one row per hit.
    pub mapext: Vec<MapExtRow>,
    /// NeL flare objects: one row per flare.
    pub flare: Vec<FlareRow>,
    /// Era-mismatch files (the farm's rule, or tagged), with their biped figure eras.
    pub era_mismatch: Vec<EraRow>,
    /// Git-LFS pointers (skipped, never passed or failed).
    pub lfs_pointer: Vec<LfsRow>,
    /// Classes that fell back to raw bytes, summed over the run.
    pub degraded_classes: Vec<DegradedClassRow>,
    /// Typed coverage of `Scene` per Max version.
    pub typed_coverage: Vec<CoverageRow>,
}

/// One Map Extender hit.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapExtRow {
    /// File path.
    pub path: String,
    /// Node whose modifier stack holds the modifier.
    pub node: String,
    /// DLL file name of the class entry.
    pub dll: String,
    /// Class display name.
    pub class_name: String,
}

/// One flare object.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlareRow {
    /// File path.
    pub path: String,
    /// Node name.
    pub node: String,
    /// `true`, `false` or `unread`.
    pub first_flare_keep_size: String,
}

/// One era-mismatch file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EraRow {
    /// File path.
    pub path: String,
    /// Max version.
    pub max_version: String,
    /// Biped systems in the file.
    pub biped_systems: u64,
    /// Figure era (chunk 0x0115) per system, `null` when absent.
    pub figure_era: Vec<Option<i64>>,
}

/// One LFS pointer.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LfsRow {
    /// File path.
    pub path: String,
    /// Pointer file size in bytes.
    pub bytes: u64,
    /// Status given (always `skip` in a correct run).
    pub status: String,
    /// Reason recorded by the farm.
    pub reason: String,
}

/// One degraded class over the run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DegradedClassRow {
    /// Class display name.
    pub name: String,
    /// `0xA-0xB/0xSUPER`, the same notation as failure signatures.
    pub class: String,
    /// DLL file name, when the inventory named it.
    pub dll: String,
    /// Files holding a degraded object of this class.
    pub files: u64,
    /// Degraded objects over the run (from the inventories; at least one per file).
    pub objects: u64,
    /// One reason the decoder gave (the first seen).
    pub reason: String,
    /// Paths of the first files (up to 10; `files` is the full count).
    pub examples: Vec<String>,
}

/// Typed coverage of one Max version.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CoverageRow {
    /// Max version.
    pub max_version: String,
    /// Files with an inventory.
    pub files: u64,
    /// Mean share of Scene bytes regenerated from typed state (0–1).
    pub mean: f64,
    /// Lowest share.
    pub min: f64,
    /// Highest share.
    pub max: f64,
    /// Scene objects decoded by an exact typed class.
    pub typed_objects: u64,
    /// Scene objects kept generic.
    pub generic_objects: u64,
    /// Scene objects degraded to raw.
    pub degraded_objects: u64,
}

/// One bucket and its files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BucketReport {
    /// Bucket slug as the farm wrote it.
    pub slug: String,
    /// File-name stem of the page showing this bucket: `bucket-<slug>` (made file-name safe
    /// and unique), or the page of the bucket named by `same_as`.
    pub page: String,
    /// Files in the bucket.
    pub files: u64,
    /// Their statuses, every status present.
    pub status_counts: StatusCounts,
    /// Files whose result changed against the baseline, per diff class.
    pub changes: BTreeMap<String, u64>,
    /// Every file of the bucket, sorted by path.
    pub entries: Vec<FileEntry>,
    /// When another bucket holds exactly the same files, its slug: this bucket is shown on
    /// that bucket's page (`page` is that page) and gets no page of its own.
    pub same_as: Option<String>,
    /// The buckets shown on this bucket's page because they hold the same files.
    pub aliases: Vec<String>,
    /// T3 `summary/<section>` agreement over the bucket's files (see [`Report::t3_sections`]),
    /// at most [`BUCKET_SECTION_CLASSES`] classes per section.
    #[serde(default)]
    pub t3_sections: Vec<SectionRow>,
    /// T3 results per comparison by triage class over the bucket's files.
    #[serde(default)]
    pub t3_triage: Vec<TriageRow>,
}

/// How many reason classes a section row keeps on the index ([`SectionRow::classes_total`]
/// says how many there were, so the cut is never silent).
pub const SECTION_CLASSES: usize = 10;
/// The same for a bucket document (kept smaller: a large run has hundreds of buckets).
pub const BUCKET_SECTION_CLASSES: usize = 3;

/// One T3 summary section over a set of files.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SectionRow {
    /// Result stream (`summary/materials`).
    pub stream: String,
    /// Files whose verdict passed.
    pub pass: u64,
    /// Files whose verdict failed.
    pub fail: u64,
    /// Files skipped because pmcore cannot derive the section yet (`unsupported: …`).
    pub skip: u64,
    /// Files that lack the section (`absent-in-file`): they carry no reference.
    pub absent: u64,
    /// `pass / (pass + fail + skip)`: pass ÷ files carrying the section (0 when none).
    pub rate: f64,
    /// Reason classes behind the fails and skips, most files first.
    pub classes: Vec<SectionClass>,
    /// How many classes there were before the cut.
    pub classes_total: u64,
}

/// One reason class of a section.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SectionClass {
    /// `fail` or `skip`.
    pub verdict: String,
    /// The class: what stops the derivation (`Edit Poly (0x79aa6e1d:0x71a075b7)`), or the
    /// kind of difference (`Vertices differ`).
    pub class: String,
    /// Files affected.
    pub files: u64,
    /// The first file affected (by path).
    pub example: String,
}

/// One comparison's T3 results by triage class (`docs/triage.md`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TriageRow {
    /// `pairs/geometry`, `summary/objects`, `nel-shape`, `skel` …
    pub comparison: String,
    /// T3 results of this comparison.
    pub results: u64,
    /// Of which passed.
    pub pass: u64,
    /// The others, per triage class name.
    pub classes: BTreeMap<String, u64>,
}

/// One T3 miss with its class, as listed on the index (unexplained, era-mismatch) and on
/// the file's bucket entry.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TriageMiss {
    /// The file.
    pub path: String,
    /// The T3 stream.
    pub stream: String,
    /// `fail` or `skip`.
    pub verdict: String,
    /// Triage class name.
    pub class: String,
    /// The result's own words (a fail's message, a skip's reason).
    pub result: String,
    /// The triage's message.
    pub message: String,
    /// The triage's evidence.
    pub evidence: serde_json::Value,
}

/// One file on a bucket page. Empty fields (`None`, `[]`) are left out of the JSON: a
/// large run lists every file on several bucket pages, and most entries are passes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileEntry {
    /// File path.
    pub path: String,
    /// Terminal status.
    pub status: String,
    /// Why (skip reason, first failure, signal, limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Max version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_version: Option<String>,
    /// Failure signatures.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub signatures: Vec<String>,
    /// Where it went wrong, in one line: first failing verdict, or crash breadcrumb.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub locator: Option<String>,
    /// Why, in words: the panic message, the killing signal, the first mismatch, the skip
    /// or failure reason (see [`crate::report::build::message_of`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The first failing verdict's hex window.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mismatch: Option<MismatchView>,
    /// Class against the baseline, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_class: Option<DiffClass>,
    /// Unified diff (`similar`) between the baseline's and this run's verdicts; only for
    /// changed files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_diff: Option<String>,
    /// T3 verdicts that carried a non-empty `detail` (skel field counters, ULP histogram,
    /// export digests).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub t3: Vec<T3Detail>,
    /// Every T3 miss of the file with its triage class (`docs/triage.md`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub t3_triage: Vec<TriageMiss>,
    /// Slug of the bucket whose page shows this file's details (hex window, diff, T3):
    /// its version bucket. Other bucket pages link there instead of repeating them, which
    /// keeps a large run's report from growing with every bucket a file belongs to.
    pub home: String,
    /// Farm wall time.
    pub wall_ms: u64,
    /// Peak RSS of the worker.
    pub peak_rss_bytes: u64,
}

/// The first mismatch of a file, with both hex windows.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MismatchView {
    /// Tier.
    pub tier: String,
    /// Stream or exporter.
    pub stream: String,
    /// Failure kind.
    pub kind: String,
    /// Chunk path.
    pub chunk_path: String,
    /// Offset of the first differing byte.
    pub offset: u64,
    /// Where both windows start.
    pub window_start: u64,
    /// Original bytes.
    pub expected_hex: String,
    /// Produced bytes.
    pub actual_hex: String,
    /// One-line description.
    pub message: String,
}

/// A T3 verdict with its counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct T3Detail {
    /// Exporter (`skel`, `obj`).
    pub exporter: String,
    /// Verdict name.
    pub verdict: String,
    /// Why, for a skip / normalized / fail verdict.
    pub note: Option<String>,
    /// The worker's `detail` object, verbatim (never empty: empty details are left out).
    pub detail: serde_json::Value,
}
