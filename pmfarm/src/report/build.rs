//! Builds the one [`Report`] model from a run's outputs. Every number in every format
//! is computed here, once; exporters only lay it out.

use super::diff::verdict_diff;
use super::model::*;
use crate::results::{
    empty_status_counts, BaselineDiff, BaselineEntry, DiffClass, FileResult, Status, StatusCounts, Summary,
};
use pmschema::verdict::Verdict;
use pmworker::events::Tier;
use std::collections::{BTreeMap, BTreeSet};

/// Everything a report is built from, already parsed.
#[derive(Clone, Debug, Default)]
pub struct RunData {
    /// `summary.json`.
    pub summary: Summary,
    /// `results.jsonl`, one per enumerated file.
    pub results: Vec<FileResult>,
    /// `baseline-diff.json`, when the run compared against a baseline.
    pub diff: Option<BaselineDiff>,
    /// The baseline entries by path and where they came from, when the file was found.
    pub baseline: Option<(String, BTreeMap<String, BaselineEntry>)>,
    /// Entries of the history file, oldest first (empty without `--history`).
    pub history: Vec<crate::history::HistoryEntry>,
}

/// Display name of a file's version: the Max version, else what the input is.
pub fn version_label(r: &FileResult) -> String {
    match (&r.max_version, &r.input) {
        (Some(v), _) => v.clone(),
        (None, Some(input)) => format!("(no version: {input})"),
        (None, None) => "(no version)".to_string(),
    }
}

/// The era-mismatch rule is the farm's ([`crate::buckets::era_mismatch`]); a file the
/// farm bucketed or the worker tagged `era-mismatch` is listed too, so the list and the
/// `era-mismatch` bucket page always agree.
fn is_era_mismatch(r: &FileResult) -> bool {
    crate::buckets::era_mismatch(r)
        || r.buckets.iter().any(|b| b == "era-mismatch")
        || r.triage.as_ref().is_some_and(|t| t.classes.iter().any(|c| c == "era-mismatch"))
}

/// Orders version labels by release (`Max 3` < `Max 9` < `Max 2016`), labels without a
/// number last, so tables read chronologically rather than alphabetically.
pub fn version_order(label: &str) -> (u64, String) {
    let digits: String = label.chars().skip_while(|c| !c.is_ascii_digit()).take_while(|c| c.is_ascii_digit()).collect();
    (digits.parse().unwrap_or(u64::MAX), label.to_string())
}

/// `0xA-0xB/0xSUPER`, the class notation of failure signatures.
pub fn class_notation(class_id: [u32; 2], superclass: u32) -> String {
    format!("{:#x}-{:#x}/{:#x}", class_id[0], class_id[1], superclass)
}

/// A bucket slug made safe as a file-name part (the farm's slugs already are; this
/// guards the report against a slug from a future farm).
fn page_stem(slug: &str) -> String {
    let safe: String =
        slug.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' }).collect();
    format!("bucket-{}", if safe.is_empty() { "unnamed".to_string() } else { safe })
}

/// The bucket a file is best shown on: its version bucket (`max-…` without `--`), else `all`.
fn home_bucket(r: &FileResult) -> String {
    r.buckets
        .iter()
        .find(|b| b.starts_with("max-") && !b.contains("--"))
        .or_else(|| r.buckets.first())
        .cloned()
        .unwrap_or_else(|| "all".to_string())
}

/// Why a file ended as it did, in words, most telling first: the panic message (with its
/// location), the killing signal with the farm's reason, the first mismatch, the reason.
pub fn message_of(r: &FileResult) -> Option<String> {
    if let Some(p) = &r.panic {
        // The panic's location is in the locator, shown beside the message.
        return Some(format!("panic: {}", p.message));
    }
    if let Some(sig) = &r.signal {
        return Some(match &r.reason {
            Some(reason) if !reason.contains(sig.as_str()) => format!("{sig}: {reason}"),
            Some(reason) => reason.clone(),
            None => sig.clone(),
        });
    }
    let first_fail = r.results.iter().find_map(|t| match &t.verdict {
        Verdict::Fail(m) => Some(format!("{} {}: {}", t.tier.name(), t.stream, m.message)),
        _ => None,
    });
    first_fail.or_else(|| r.reason.clone())
}

/// What went wrong in a file, without naming the file, so files that failed the same way
/// share one cause: the panic message, the signal, the first failing verdict's tier, stream
/// and kind, else the reason.
pub fn cause_of(r: &FileResult) -> String {
    if let Some(p) = &r.panic {
        return format!("panic: {}", p.message);
    }
    if let Some(sig) = &r.signal {
        return format!("killed by {sig}");
    }
    if let Some((t, m)) = r.results.iter().find_map(|t| match &t.verdict {
        Verdict::Fail(m) => Some((t, m)),
        _ => None,
    }) {
        return format!("{} {}: {}", t.tier.name(), t.stream, m.kind);
    }
    r.reason.clone().unwrap_or_else(|| r.status.name().to_string())
}

/// The changes of one file in words. A file that stopped early (a crash, or an input that
/// could not be opened) loses every verdict after the point it reached; those
/// `tier:stream → absent` lines say one thing, so they are folded into one line per tier.
fn change_lines(changes: &[crate::results::Change], status: Option<Status>) -> Vec<String> {
    let mut lines = Vec::new();
    let mut folded: BTreeMap<&str, usize> = BTreeMap::new();
    for c in changes {
        if c.after == "absent" && c.tier != "file" && status.is_some() {
            *folded.entry(c.tier.as_str()).or_default() += 1;
            continue;
        }
        if c.tier == "file" {
            lines.push(format!("{} → {}", c.before, c.after));
        } else {
            lines.push(format!("{}:{} {} → {}", c.tier, c.stream, c.before, c.after));
        }
    }
    let stopped = match status.map(|s| s.name()) {
        Some("crash") => "worker crashed",
        Some("timeout") => "worker timed out",
        Some("oom") => "worker ran out of memory",
        Some("infra-error") => "worker could not run",
        _ => "file stopped",
    };
    if !folded.is_empty() {
        let n: usize = folded.values().sum();
        let tiers: Vec<&str> = folded.keys().copied().collect();
        lines.push(format!("{stopped}: {n} {} verdict{} absent", tiers.join("+"), if n == 1 { "" } else { "s" }));
    }
    lines
}

/// Where a file went wrong, in one line: the first failing verdict's locator, else (for a
/// worker that ended abnormally) its last breadcrumb and panic location.
pub fn locator_of(r: &FileResult) -> Option<String> {
    if let Some((t, m)) = r.results.iter().find_map(|t| match &t.verdict {
        Verdict::Fail(m) => Some((t, m)),
        _ => None,
    }) {
        return Some(format!("{} {} {} @ {:#x}", t.tier.name(), t.stream, m.chunk_path, m.offset));
    }
    if !r.status.is_abnormal() {
        return None;
    }
    let crumb = r.last_breadcrumb.as_ref().map(|b| {
        let mut s = format!("{} {}", b.tier, b.stream);
        if let Some(p) = &b.chunk_path {
            s.push_str(&format!(" {p}"));
        }
        if let Some(c) = &b.class {
            s.push_str(&format!(" ({c})"));
        }
        s
    });
    let panic = r.panic.as_ref().and_then(|p| p.location.clone());
    match (crumb, panic) {
        (Some(c), Some(p)) => Some(format!("after {c}; panic at {p}")),
        (Some(c), None) => Some(format!("after {c}")),
        (None, Some(p)) => Some(format!("panic at {p}")),
        (None, None) => None,
    }
}

impl RunData {
    /// The report model.
    pub fn build(&self) -> Report {
        let diff_by_path: BTreeMap<&str, &crate::results::FileDiff> =
            self.diff.iter().flat_map(|d| d.files.iter()).map(|f| (f.path.as_str(), f)).collect();
        let mut totals = empty_status_counts();
        for r in &self.results {
            *totals.entry(r.status.name().to_string()).or_default() += 1;
        }
        let summary = &self.summary;
        Report {
            schema: REPORT_SCHEMA,
            stamp: RunStamp {
                tool: summary.tool.clone(),
                report_tool: format!("pmfarm {}", env!("CARGO_PKG_VERSION")),
                results_schema: summary.schema,
                corpus_root: summary.corpus_root.clone(),
                corpus_manifest_sha256: summary.corpus_manifest_sha256.clone(),
                options: summary.options.clone(),
                limits: summary.limits.clone(),
                timing: summary.timing.clone(),
            },
            files: self.results.len() as u64,
            totals,
            pass_rates: self.pass_rates(),
            history: crate::history::newest(&self.history, crate::history::TREND_RUNS).to_vec(),
            baseline: self.baseline_view(),
            gates: summary.gates.clone(),
            causes: self.causes(),
            slowest: self.ranked(|r| r.timing.wall_ms),
            largest_rss: self.ranked(|r| r.timing.peak_rss_bytes),
            lists: self.lists(),
            t3_sections: super::sections::section_rows(&self.results, SECTION_CLASSES),
            t3_triage: super::triage::triage_rows(&self.results),
            t3_unexplained: super::triage::misses(&self.results, pmschema::TriageClass::Unexplained),
            t3_era_mismatch: super::triage::misses(&self.results, pmschema::TriageClass::EraMismatch),
            buckets: self.buckets(&diff_by_path),
        }
    }

    /// Pass rate per version × tier. A file counts for a tier when it has a non-skip
    /// verdict there and passes when none is `fail`; a worker that did not end normally
    /// (crash, timeout, oom, infra-error) counts as not passing every tier of the run, so
    /// a crash never reads as a pass. Skipped files count nowhere.
    fn pass_rates(&self) -> Vec<PassRate> {
        let run_tiers: BTreeSet<Tier> = self
            .results
            .iter()
            .flat_map(|r| r.results.iter())
            .filter(|t| !matches!(t.verdict, Verdict::Skip { .. }))
            .map(|t| t.tier)
            .collect();
        let mut counts: BTreeMap<(String, Tier), (u64, u64)> = BTreeMap::new();
        for r in self.results.iter().filter(|r| r.status != Status::Skip) {
            let version = version_label(r);
            let tiers: Vec<(Tier, bool)> = if r.status.is_abnormal() {
                run_tiers.iter().map(|t| (*t, false)).collect()
            } else {
                let mut seen: BTreeMap<Tier, bool> = BTreeMap::new();
                for t in r.results.iter().filter(|t| !matches!(t.verdict, Verdict::Skip { .. })) {
                    let ok = seen.entry(t.tier).or_insert(true);
                    *ok &= !t.verdict.is_fail();
                }
                seen.into_iter().collect()
            };
            for (tier, passed) in tiers {
                let (p, t) = counts.entry((version.clone(), tier)).or_insert((0, 0));
                *p += u64::from(passed);
                *t += 1;
            }
        }
        let mut rates: Vec<PassRate> =
            counts.into_iter().map(|((version, tier), (p, t))| PassRate::new(&version, tier.name(), p, t)).collect();
        rates.sort_by_cached_key(|r| (version_order(&r.max_version), r.tier.clone()));
        rates
    }

    /// Files that did not pass, grouped by status and what went wrong (see [`cause_of`]).
    fn causes(&self) -> Vec<Cause> {
        let regressed: BTreeSet<&str> = self
            .diff
            .iter()
            .flat_map(|d| d.files.iter())
            .filter(|f| f.class == DiffClass::Regressed)
            .map(|f| f.path.as_str())
            .collect();
        let mut by_cause: BTreeMap<(String, String), Cause> = BTreeMap::new();
        for r in self.results.iter().filter(|r| !matches!(r.status, Status::Pass | Status::Skip)) {
            let what = cause_of(r);
            let c = by_cause.entry((r.status.name().to_string(), what.clone())).or_insert_with(|| Cause {
                status: r.status.name().to_string(),
                what,
                ..Default::default()
            });
            c.files.push(r.path.clone());
            c.homes.push(home_bucket(r));
            c.regressed += u64::from(regressed.contains(r.path.as_str()));
        }
        let mut causes: Vec<Cause> = by_cause.into_values().collect();
        causes.sort_by(|a, b| {
            b.files.len().cmp(&a.files.len()).then_with(|| (&a.status, &a.what).cmp(&(&b.status, &b.what)))
        });
        causes
    }

    fn baseline_view(&self) -> Option<BaselineView> {
        let diff = self.diff.as_ref()?;
        let by_path: BTreeMap<&str, &FileResult> = self.results.iter().map(|r| (r.path.as_str(), r)).collect();
        let mut counts: BTreeMap<String, u64> = DiffClass::ALL.iter().map(|c| (c.name().to_string(), 0)).collect();
        for f in &diff.files {
            *counts.entry(f.class.name().to_string()).or_default() += 1;
        }
        let mut changed: Vec<ChangedFile> = diff
            .files
            .iter()
            .filter(|f| f.class != DiffClass::Same)
            .map(|f| {
                let r = by_path.get(f.path.as_str()).copied();
                ChangedFile {
                    path: f.path.clone(),
                    class: f.class,
                    buckets: r.map(|r| r.buckets.clone()).unwrap_or_default(),
                    changes: f.changes.clone(),
                    status: r.map(|r| r.status.name().to_string()).unwrap_or_else(|| "absent".into()),
                    summary: change_lines(&f.changes, r.map(|r| r.status)),
                    locator: r.and_then(locator_of),
                    message: r.and_then(message_of),
                }
            })
            .collect();
        changed.sort_by(|a, b| (a.class, &a.path).cmp(&(b.class, &b.path)));
        Some(BaselineView {
            name: diff.baseline.clone(),
            source: self.baseline.as_ref().map(|(source, _)| source.clone()),
            counts,
            changed,
        })
    }

    fn ranked(&self, metric: impl Fn(&FileResult) -> u64) -> Vec<FileMetric> {
        let mut rows: Vec<FileMetric> = self
            .results
            .iter()
            .map(|r| FileMetric {
                path: r.path.clone(),
                status: r.status.name().to_string(),
                bucket: home_bucket(r),
                value: metric(r),
            })
            .collect();
        rows.sort_by(|a, b| b.value.cmp(&a.value).then_with(|| a.path.cmp(&b.path)));
        rows.truncate(RANKED_ROWS);
        rows
    }

    fn lists(&self) -> Lists {
        let mut lists = Lists::default();
        let mut degraded: BTreeMap<String, DegradedClassRow> = BTreeMap::new();
        let mut coverage: BTreeMap<String, (CoverageRow, f64)> = BTreeMap::new();
        for r in &self.results {
            if let Some(triage) = &r.triage {
                for hit in &triage.mapext {
                    lists.mapext.push(MapExtRow {
                        path: r.path.clone(),
                        node: hit.node.clone(),
                        dll: hit.dll.clone(),
                        class_name: hit.class_name.clone(),
                    });
                }
                for flare in &triage.flare {
                    let flag = match &flare.first_flare_keep_size {
                        serde_json::Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    lists.flare.push(FlareRow {
                        path: r.path.clone(),
                        node: flare.node.clone(),
                        first_flare_keep_size: flag,
                    });
                }
                if is_era_mismatch(r) {
                    lists.era_mismatch.push(EraRow {
                        path: r.path.clone(),
                        max_version: version_label(r),
                        biped_systems: triage.biped.as_ref().map_or(0, |b| b.systems),
                        figure_era: triage.biped.as_ref().map(|b| b.figure_era.clone()).unwrap_or_default(),
                    });
                }
            }
            let is_lfs = r.input.as_deref() == Some("lfs-pointer")
                || r.triage.as_ref().is_some_and(|t| t.classes.iter().any(|c| c == "lfs-pointer"));
            if is_lfs {
                lists.lfs_pointer.push(LfsRow {
                    path: r.path.clone(),
                    bytes: r.bytes,
                    status: r.status.name().to_string(),
                    reason: r.reason.clone().unwrap_or_default(),
                });
            }
            self.collect_degraded(r, &mut degraded);
            if let Some(inv) = &r.inventory {
                let version = version_label(r);
                let (row, sum) = coverage.entry(version.clone()).or_insert_with(|| {
                    (CoverageRow { max_version: version, min: f64::INFINITY, ..Default::default() }, 0.0)
                });
                row.files += 1;
                *sum += inv.typed_coverage;
                row.min = row.min.min(inv.typed_coverage);
                row.max = row.max.max(inv.typed_coverage);
                for c in &inv.classes {
                    row.typed_objects += c.typed;
                    row.generic_objects += c.generic;
                    row.degraded_objects += c.degraded;
                }
            }
        }
        lists.degraded_classes = degraded.into_values().collect();
        lists.degraded_classes.sort_by(|a, b| b.files.cmp(&a.files).then_with(|| a.name.cmp(&b.name)));
        lists.typed_coverage = coverage
            .into_values()
            .map(|(mut row, sum)| {
                row.mean = sum / row.files as f64;
                row
            })
            .collect();
        lists.typed_coverage.sort_by_cached_key(|c| version_order(&c.max_version));
        lists
    }

    /// Degraded classes of one file, from its inventory and its `degraded` verdicts
    /// (one file counts once per class however many verdicts name it).
    fn collect_degraded(&self, r: &FileResult, out: &mut BTreeMap<String, DegradedClassRow>) {
        let mut in_file: BTreeMap<String, (String, String, String, u64, String)> = BTreeMap::new();
        for c in r.inventory.iter().flat_map(|i| i.classes.iter()).filter(|c| c.degraded > 0) {
            let key = class_notation(c.class_id, c.superclass);
            let e = in_file.entry(key.clone()).or_insert((c.name.clone(), key, c.dll.clone(), 0, String::new()));
            e.3 += c.degraded;
        }
        for t in &r.results {
            if let Verdict::Degraded { classes } = &t.verdict {
                for c in classes {
                    let key = class_notation(c.class_id, c.superclass);
                    let e =
                        in_file.entry(key.clone()).or_insert((c.name.clone(), key, String::new(), 0, String::new()));
                    if e.4.is_empty() {
                        e.4 = format!("{} at {} {}", c.reason, t.stream, c.chunk_path);
                    }
                }
            }
        }
        for (key, (name, class, dll, objects, reason)) in in_file {
            let row = out.entry(key).or_insert_with(|| DegradedClassRow { name, class, dll, ..Default::default() });
            row.files += 1;
            row.objects += objects.max(1);
            if row.reason.is_empty() {
                row.reason = reason;
            }
            if row.examples.len() < 10 {
                row.examples.push(r.path.clone());
            }
        }
    }

    fn buckets(&self, diff_by_path: &BTreeMap<&str, &crate::results::FileDiff>) -> Vec<BucketReport> {
        let mut by_slug: BTreeMap<&str, Vec<&FileResult>> = BTreeMap::new();
        for r in &self.results {
            for b in &r.buckets {
                by_slug.entry(b.as_str()).or_default().push(r);
            }
        }
        let mut used_stems: BTreeSet<String> = BTreeSet::new();
        let mut reports: Vec<BucketReport> = by_slug
            .into_iter()
            .map(|(slug, mut files)| {
                files.sort_by(|a, b| a.path.cmp(&b.path));
                let mut page = page_stem(slug);
                let mut n = 2;
                while !used_stems.insert(page.clone()) {
                    page = format!("{}-{n}", page_stem(slug));
                    n += 1;
                }
                let mut status_counts: StatusCounts = empty_status_counts();
                let mut changes: BTreeMap<String, u64> = BTreeMap::new();
                for r in &files {
                    *status_counts.entry(r.status.name().to_string()).or_default() += 1;
                    if let Some(d) = diff_by_path.get(r.path.as_str()).filter(|d| d.class != DiffClass::Same) {
                        *changes.entry(d.class.name().to_string()).or_default() += 1;
                    }
                }
                BucketReport {
                    slug: slug.to_string(),
                    page,
                    files: files.len() as u64,
                    status_counts,
                    changes,
                    entries: files.iter().map(|r| self.entry(r, diff_by_path.get(r.path.as_str()).copied())).collect(),
                    same_as: None,
                    aliases: Vec::new(),
                    t3_sections: super::sections::section_rows(files.iter().copied(), BUCKET_SECTION_CLASSES),
                    t3_triage: super::triage::triage_rows(files.iter().copied()),
                }
            })
            .collect();
        share_pages(&mut reports);
        reports
    }

    fn entry(&self, r: &FileResult, diff: Option<&crate::results::FileDiff>) -> FileEntry {
        let first_fail = r.results.iter().find_map(|t| match &t.verdict {
            Verdict::Fail(m) => Some((t, m)),
            _ => None,
        });
        let mismatch = first_fail.map(|(t, m)| MismatchView {
            tier: t.tier.name().to_string(),
            stream: t.stream.clone(),
            kind: m.kind.clone(),
            chunk_path: m.chunk_path.clone(),
            offset: m.offset,
            window_start: m.window_start,
            expected_hex: m.expected_hex.clone(),
            actual_hex: m.actual_hex.clone(),
            message: m.message.clone(),
        });
        let locator = locator_of(r);
        let verdict_diff = diff.filter(|d| d.class != DiffClass::Same).map(|d| {
            let (before, after) = match self.baseline.as_ref().and_then(|(_, b)| b.get(&r.path)) {
                Some(entry) => (verdict_lines_of_entry(entry), verdict_lines(r)),
                None => (rebuilt_baseline_lines(r, &d.changes), status_verdict_lines(r.status.name(), &r.verdicts())),
            };
            verdict_diff(&before, &after)
        });
        FileEntry {
            path: r.path.clone(),
            status: r.status.name().to_string(),
            reason: r.reason.clone(),
            max_version: r.max_version.clone(),
            signatures: r.signatures.clone(),
            locator,
            message: message_of(r),
            mismatch,
            diff_class: diff.map(|d| d.class),
            verdict_diff,
            t3: r
                .results
                .iter()
                .filter(|t| t.tier == Tier::T3)
                .filter(|t| {
                    t.detail.as_ref().is_some_and(|d| !d.is_null() && !matches!(d.as_object(), Some(o) if o.is_empty()))
                })
                // A skip's reason is its note, and a passing summary section's two accounts
                // are equal: their details add nothing a reader needs, and on a large run
                // they were most of the report's bytes (7 sections per file).
                .filter(|t| match &t.verdict {
                    Verdict::Skip { .. } => false,
                    Verdict::Pass { .. } => !t.stream.starts_with("summary/"),
                    _ => true,
                })
                .map(|t| T3Detail {
                    exporter: t.stream.clone(),
                    verdict: t.verdict.name().to_string(),
                    note: match &t.verdict {
                        Verdict::Skip { reason } | Verdict::Normalized { reason } => Some(reason.clone()),
                        Verdict::Fail(m) => Some(m.message.clone()),
                        _ => None,
                    },
                    detail: t.detail.clone().unwrap_or_default(),
                })
                .collect(),
            t3_triage: r
                .results
                .iter()
                .filter(|t| t.tier == Tier::T3 && super::triage::class_of(t).is_some())
                .map(|t| super::triage::miss(&r.path, t))
                .collect(),
            home: home_bucket(r),
            wall_ms: r.timing.wall_ms,
            peak_rss_bytes: r.timing.peak_rss_bytes,
        }
    }
}

/// Buckets holding exactly the same files (`max-2016` and `max-2016--t1` when every
/// file has T1 verdicts) share one page: the slug with the fewest `--` parts, then the
/// shortest, then the first by name, owns it and lists the others as aliases. Without this
/// the same rows would be written once per alias, which multiplies a large run's report
/// size for no extra information.
fn share_pages(reports: &mut [BucketReport]) {
    let mut groups: BTreeMap<Vec<&str>, Vec<usize>> = BTreeMap::new();
    for (i, b) in reports.iter().enumerate() {
        groups.entry(b.entries.iter().map(|e| e.path.as_str()).collect()).or_default().push(i);
    }
    let groups: Vec<Vec<usize>> = groups.into_values().filter(|g| g.len() > 1).collect();
    for group in groups {
        let owner = *group
            .iter()
            .min_by_key(|&&i| (reports[i].slug.matches("--").count(), reports[i].slug.len(), reports[i].slug.clone()))
            .expect("groups are not empty");
        let (owner_slug, owner_page) = (reports[owner].slug.clone(), reports[owner].page.clone());
        let mut aliases = Vec::new();
        for &i in group.iter().filter(|&&i| i != owner) {
            reports[i].same_as = Some(owner_slug.clone());
            reports[i].page = owner_page.clone();
            aliases.push(reports[i].slug.clone());
        }
        aliases.sort();
        reports[owner].aliases = aliases;
    }
}

/// The comparable text of one result: status, verdicts, signatures, export digests; one
/// line each so a line diff reads as "what changed".
pub fn verdict_lines(r: &FileResult) -> String {
    verdict_lines_of_entry(&BaselineEntry::of(r))
}

fn verdict_lines_of_entry(e: &BaselineEntry) -> String {
    let mut out = status_verdict_lines(&e.status, &e.verdicts);
    for s in &e.signatures {
        out.push_str(&format!("signature {s}\n"));
    }
    for (k, v) in &e.exports {
        out.push_str(&format!("export {k} = {v}\n"));
    }
    out
}

/// Without the baseline file, the baseline side is this run with every recorded change
/// undone (`before` values); signatures and export digests are then not comparable and
/// are left out of both sides.
fn rebuilt_baseline_lines(r: &FileResult, changes: &[crate::results::Change]) -> String {
    let mut status = r.status.name().to_string();
    let mut verdicts = r.verdicts();
    for c in changes {
        let value = (c.before != "absent").then(|| c.before.clone());
        if c.tier == "file" {
            status = value.unwrap_or_else(|| "absent".to_string());
        } else {
            let key = format!("{}:{}", c.tier, c.stream);
            match value {
                Some(v) => verdicts.insert(key, v),
                None => verdicts.remove(&key),
            };
        }
    }
    status_verdict_lines(&status, &verdicts)
}

fn status_verdict_lines(status: &str, verdicts: &BTreeMap<String, String>) -> String {
    let mut out = format!("status = {status}\n");
    for (k, v) in verdicts {
        out.push_str(&format!("{k} = {v}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmworker::events::TierResult;

    fn file(path: &str, status: Status, verdicts: &[(Tier, Verdict)]) -> FileResult {
        FileResult {
            path: path.into(),
            status,
            max_version: Some("Max 9".into()),
            buckets: vec!["all".into(), "max-9".into()],
            results: verdicts
                .iter()
                .map(|(tier, v)| TierResult {
                    tier: *tier,
                    stream: "Scene".into(),
                    verdict: v.clone(),
                    detail: None,
                    triage: None,
                })
                .collect(),
            ..Default::default()
        }
    }

    #[test]
    fn a_crash_never_counts_as_a_pass_and_skips_count_nowhere() {
        let fail = Verdict::Fail(Default::default());
        let data = RunData {
            results: vec![
                file(
                    "a.max",
                    Status::Pass,
                    &[(Tier::T1, Verdict::pass()), (Tier::T2, Verdict::Normalized { reason: "x".into() })],
                ),
                file("b.max", Status::Fail, &[(Tier::T1, Verdict::pass()), (Tier::T2, fail)]),
                // Crashed after a passing T1 verdict: still failing in every tier of the run.
                file("c.max", Status::Crash, &[(Tier::T1, Verdict::pass())]),
                file("d.max", Status::Skip, &[]),
                file(
                    "e.max",
                    Status::Pass,
                    &[(Tier::T1, Verdict::pass()), (Tier::T2, Verdict::Skip { reason: "n/a".into() })],
                ),
            ],
            ..Default::default()
        };
        let report = data.build();
        let rates: Vec<(String, u64, u64)> =
            report.pass_rates.iter().map(|r| (r.tier.clone(), r.passed, r.total)).collect();
        assert_eq!(rates, [("t1".to_string(), 3, 4), ("t2".to_string(), 1, 3)]);
        assert_eq!(report.totals["crash"], 1);
        assert_eq!(report.totals["infra-error"], 0, "every status is present");
    }

    #[test]
    fn buckets_with_the_same_files_share_the_shortest_slugs_page() {
        let mut a = file("a.max", Status::Pass, &[]);
        a.buckets = vec!["all".into(), "max-9".into(), "max-9--t1".into()];
        let mut b = file("b.max", Status::Pass, &[]);
        b.buckets = vec!["all".into(), "max-9".into(), "max-9--t1".into(), "mapext".into()];
        let report = RunData { results: vec![a, b], ..Default::default() }.build();
        let by_slug: BTreeMap<&str, &BucketReport> = report.buckets.iter().map(|b| (b.slug.as_str(), b)).collect();
        assert_eq!(by_slug["all"].aliases, ["max-9", "max-9--t1"]);
        assert_eq!(by_slug["max-9--t1"].same_as.as_deref(), Some("all"));
        assert_eq!(by_slug["max-9--t1"].page, "bucket-all");
        assert_eq!(by_slug["mapext"].same_as, None);
    }

    #[test]
    fn versions_sort_by_release_then_label() {
        let mut v = vec!["Max 2016", "(no version: empty)", "Max 9", "Max 2018/2019", "Max 3"];
        v.sort_by_key(|l| version_order(l));
        assert_eq!(v, ["Max 3", "Max 9", "Max 2016", "Max 2018/2019", "(no version: empty)"]);
    }
}
