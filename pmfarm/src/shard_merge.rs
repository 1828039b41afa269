//! `pmfarm merge OUT... --out M`: combines the output folders of shard runs
//! (`pmfarm run --shard K/N`) into one run folder, as if one machine had checked the whole
//! corpus.
//!
//! Contract: `M/results.jsonl` equals the single-machine run's line for line except
//! fields under `timing`; `M/summary.json` equals it except `timing` (wall time is the
//! slowest shard's, bytes the sum); the report rendered from `M` equals the
//! single-machine report except its timing-derived sections (slowest files, largest RSS,
//! run timing, per-file wall time and RSS). Everything else is recomputed from the merged results exactly the way
//! `pmfarm run` computes it: status counts, buckets, the corpus manifest hash, the gates
//! and the baseline comparison (a file one shard calls `removed` because another shard
//! ran it is not removed).

use crate::gates::GateSource;
use crate::results::{BaselineDiff, DiffClass, FileDiff, FileResult, Summary};
use crate::run_files::{RunDir, RunDirError};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Why shard outputs could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    /// No input folders.
    #[error("nothing to merge: give at least one shard output folder")]
    NoInputs,
    /// An input file is missing or unreadable.
    #[error("{path}: {message}")]
    Read {
        /// File.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The shards did not run the same thing (schema, work options or corpus root).
    #[error("{first} and {other} differ in {what}; only shards of one run can be merged")]
    Mismatch {
        /// First input.
        first: PathBuf,
        /// Disagreeing input.
        other: PathBuf,
        /// Which field.
        what: &'static str,
    },
    /// Two shards both checked a file: overlapping shards, or the same folder twice.
    #[error("{path} was checked by both {first} and {second}")]
    Overlap {
        /// File.
        path: String,
        /// One input.
        first: PathBuf,
        /// The other.
        second: PathBuf,
    },
    /// Gate files could not be read.
    #[error("gate configuration: {0}")]
    Gates(String),
    /// Writing the merged folder failed.
    #[error("{path}: {source}")]
    Write {
        /// File.
        path: PathBuf,
        /// I/O error.
        source: std::io::Error,
    },
}

/// One shard's outputs.
#[derive(Clone, Debug)]
pub struct ShardOutput {
    /// Its folder.
    pub dir: PathBuf,
    /// `summary.json`.
    pub summary: Summary,
    /// `results.jsonl`.
    pub results: Vec<FileResult>,
    /// `baseline-diff.json`, when the shard compared with a baseline.
    pub diff: Option<BaselineDiff>,
}

impl ShardOutput {
    /// Reads a finished run folder.
    pub fn read(dir: &Path) -> Result<ShardOutput, MergeError> {
        let run = RunDir::new(dir);
        let err = |e: RunDirError| match e {
            RunDirError::Io { path, source } => MergeError::Read { path, message: source.to_string() },
            RunDirError::Parse { path, line, source } => {
                MergeError::Read { path, message: format!("line {line}: {source}") }
            }
        };
        let summary = run.read_summary().map_err(err)?;
        let results = run.read_results().map_err(err)?;
        let diff = run.read_baseline_diff().map_err(err)?;
        Ok(ShardOutput { dir: dir.to_path_buf(), summary, results, diff })
    }
}

/// The merged run.
#[derive(Clone, Debug)]
pub struct Merged {
    /// Results sorted by path.
    pub results: Vec<FileResult>,
    /// Recomputed summary.
    pub summary: Summary,
    /// Merged baseline comparison, when the shards made one.
    pub diff: Option<BaselineDiff>,
    /// Whether gate rules were applied (a gated merge that checked nothing fails).
    pub gated: bool,
}

/// Merges shard outputs. `gates` overrides the gates the shards recorded in
/// `summary.options.gates_dir` (a folder, or `null` for `--no-gates`).
pub fn merge(shards: &[ShardOutput], gates: Option<&GateSource>) -> Result<Merged, MergeError> {
    let first = shards.first().ok_or(MergeError::NoInputs)?;
    for s in &shards[1..] {
        let mismatch = |what| MergeError::Mismatch { first: first.dir.clone(), other: s.dir.clone(), what };
        if s.summary.schema != first.summary.schema {
            return Err(mismatch("results schema"));
        }
        if s.summary.options.get("work") != first.summary.options.get("work") {
            return Err(mismatch("work options (tiers, exports, reference)"));
        }
        if s.summary.corpus_root != first.summary.corpus_root {
            return Err(mismatch("corpus root"));
        }
        if s.diff.as_ref().map(|d| &d.baseline) != first.diff.as_ref().map(|d| &d.baseline) {
            return Err(mismatch("baseline"));
        }
    }
    let mut by_path: BTreeMap<String, (usize, FileResult)> = BTreeMap::new();
    for (i, s) in shards.iter().enumerate() {
        for r in &s.results {
            if let Some((j, _)) = by_path.get(&r.path) {
                return Err(MergeError::Overlap {
                    path: r.path.clone(),
                    first: shards[*j].dir.clone(),
                    second: s.dir.clone(),
                });
            }
            by_path.insert(r.path.clone(), (i, r.clone()));
        }
    }
    let results: Vec<FileResult> = by_path.into_values().map(|(_, r)| r).collect();
    let diff = merge_diffs(shards, &results);
    let source = match gates {
        Some(g) => g.clone(),
        None => match first.summary.options.get("gates_dir").and_then(|v| v.as_str()) {
            Some(dir) => GateSource::Dir(PathBuf::from(dir)),
            None => GateSource::Disabled,
        },
    };
    let rules = crate::gates::load(&source).map_err(|e| {
        MergeError::Gates(match &source {
            GateSource::Dir(d) if gates.is_none() => format!("the shards were gated by {}: {e}", d.display()),
            _ => e,
        })
    })?;
    let tiers: Vec<pmworker::events::Tier> = first
        .summary
        .options
        .get("work")
        .and_then(|w| w.get("tiers"))
        .and_then(|t| serde_json::from_value(t.clone()).ok())
        .unwrap_or_default();
    let ctx = crate::gates::Context { diff: diff.as_ref().map(|d| d.files.as_slice()), tiers: &tiers, complete: true };
    let outcomes = crate::gates::evaluate(&rules, &results, ctx);
    let gated = !rules.is_empty();
    let summary = summarize(first, shards, &results, outcomes, diff.as_ref());
    Ok(Merged { results, summary, diff, gated })
}

/// Per-file diffs from the shard that ran each file; `removed` only for baseline files
/// no shard ran.
fn merge_diffs(shards: &[ShardOutput], results: &[FileResult]) -> Option<BaselineDiff> {
    let name = shards.first()?.diff.as_ref()?.baseline.clone();
    let ran: BTreeSet<&str> = results.iter().map(|r| r.path.as_str()).collect();
    let mut files: BTreeMap<String, FileDiff> = BTreeMap::new();
    for d in shards.iter().filter_map(|s| s.diff.as_ref()) {
        for f in &d.files {
            let keep = if ran.contains(f.path.as_str()) {
                f.class != DiffClass::Removed
            } else {
                f.class == DiffClass::Removed
            };
            if keep {
                files.insert(f.path.clone(), f.clone());
            }
        }
    }
    let files: Vec<FileDiff> = files.into_values().collect();
    let mut counts: crate::results::DiffCounts = DiffClass::ALL.iter().map(|c| (c.name().to_string(), 0)).collect();
    for f in &files {
        *counts.entry(f.class.name().to_string()).or_default() += 1;
    }
    Some(BaselineDiff { baseline: name, counts, files })
}

/// The summary `pmfarm run` writes, recomputed over the merged results
/// ([`crate::run_summary`]); `timing` holds the slowest shard's wall time, the byte total
/// and the shard count.
fn summarize(
    first: &ShardOutput,
    shards: &[ShardOutput],
    results: &[FileResult],
    gates: Vec<crate::results::GateOutcome>,
    diff: Option<&BaselineDiff>,
) -> Summary {
    let wall_ms = shards.iter().filter_map(|s| s.summary.timing.get("wall_ms").and_then(|v| v.as_u64())).max();
    let header = crate::run_summary::RunHeader {
        tool: first.summary.tool.clone(),
        schema: first.summary.schema,
        options: first.summary.options.clone(),
        limits: first.summary.limits.clone(),
        corpus_root: first.summary.corpus_root.clone(),
        shard: None,
    };
    let timing = crate::run_summary::RunTiming { wall_ms: wall_ms.unwrap_or(0), shards: Some(shards.len()) };
    crate::run_summary::summarize(header, results, gates, diff, timing)
}

/// Writes `results.jsonl`, `summary.json` and (when merged) `baseline-diff.json` into
/// `out`, each through a temporary file and a rename.
pub fn write(out: &Path, merged: &Merged) -> Result<(), MergeError> {
    std::fs::create_dir_all(out).map_err(|source| MergeError::Write { path: out.to_path_buf(), source })?;
    RunDir::new(out).write_outputs(&merged.results, &merged.summary, merged.diff.as_ref()).map_err(|e| match e {
        RunDirError::Io { path, source } => MergeError::Write { path, source },
        RunDirError::Parse { path, source, .. } => MergeError::Write { path, source: std::io::Error::other(source) },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Status;

    fn result(path: &str, status: Status, wall_ms: u64) -> FileResult {
        FileResult {
            path: path.into(),
            status,
            buckets: vec!["all".into()],
            bytes: 10,
            timing: crate::results::FileTiming { wall_ms, ..Default::default() },
            ..Default::default()
        }
    }

    fn shard(dir: &str, results: Vec<FileResult>, diff: Option<Vec<(&str, DiffClass)>>) -> ShardOutput {
        let summary = Summary {
            schema: 1,
            options: serde_json::json!({ "work": { "tiers": ["t1"] }, "gates_dir": null }),
            corpus_root: "/corpus".into(),
            timing: serde_json::json!({ "wall_ms": results.len() as u64 * 100 }),
            ..Default::default()
        };
        let diff = diff.map(|files| BaselineDiff {
            baseline: "nightly".into(),
            counts: Default::default(),
            files: files
                .into_iter()
                .map(|(p, class)| FileDiff { path: p.into(), class, changes: Vec::new() })
                .collect(),
        });
        ShardOutput { dir: PathBuf::from(dir), summary, results, diff }
    }

    #[test]
    fn merged_results_are_sorted_and_counted() {
        let a = shard("a", vec![result("b.max", Status::Pass, 5), result("d.max", Status::Fail, 7)], None);
        let b = shard("b", vec![result("a.max", Status::Skip, 1), result("c.max", Status::Pass, 9)], None);
        let m = merge(&[a, b], None).unwrap();
        let paths: Vec<&str> = m.results.iter().map(|r| r.path.as_str()).collect();
        assert_eq!(paths, ["a.max", "b.max", "c.max", "d.max"]);
        assert_eq!(m.summary.files, 4);
        assert_eq!(m.summary.status_counts["pass"], 2);
        assert_eq!(m.summary.status_counts["fail"], 1);
        assert_eq!(m.summary.buckets["all"].files, 4);
        assert_eq!(m.summary.timing["wall_ms"], 200);
        assert_eq!(m.summary.timing["bytes"], 40);
        assert!(m.diff.is_none());
    }

    #[test]
    fn a_file_another_shard_ran_is_not_removed() {
        let a = shard(
            "a",
            vec![result("a.max", Status::Pass, 1)],
            Some(vec![("a.max", DiffClass::Same), ("b.max", DiffClass::Removed), ("gone.max", DiffClass::Removed)]),
        );
        let b = shard(
            "b",
            vec![result("b.max", Status::Pass, 1)],
            Some(vec![("a.max", DiffClass::Removed), ("b.max", DiffClass::New), ("gone.max", DiffClass::Removed)]),
        );
        let m = merge(&[a, b], None).unwrap();
        let d = m.diff.unwrap();
        let classes: Vec<(&str, DiffClass)> = d.files.iter().map(|f| (f.path.as_str(), f.class)).collect();
        assert_eq!(classes, [("a.max", DiffClass::Same), ("b.max", DiffClass::New), ("gone.max", DiffClass::Removed)]);
        assert_eq!(d.counts["removed"], 1);
        assert_eq!(m.summary.baseline.unwrap().counts["new"], 1);
    }

    #[test]
    fn overlaps_and_mismatches_are_refused() {
        let mut a = shard("a", vec![result("a.max", Status::Pass, 1)], None);
        let twice = merge(&[a.clone(), a.clone()], None).unwrap_err();
        assert!(matches!(twice, MergeError::Overlap { .. }), "{twice}");
        let mut other = shard("b", vec![result("b.max", Status::Pass, 1)], None);
        other.summary.options["work"] = serde_json::json!({ "tiers": ["t1", "t2"] });
        assert!(matches!(merge(&[a.clone(), other], None), Err(MergeError::Mismatch { .. })));
        let mut gated = shard("c", vec![result("c.max", Status::Pass, 1)], None);
        gated.summary.gates.push(crate::results::GateOutcome {
            name: "g/r".into(),
            bucket: "all".into(),
            tier: "t1".into(),
            metric: "min_pass_rate".into(),
            threshold: 1.0,
            value: 1.0,
            passed: true,
            checked: true,
            detail: String::new(),
        });
        gated.summary.options["gates_dir"] = serde_json::json!("/nonexistent/gates");
        a.summary.options["gates_dir"] = serde_json::json!("/nonexistent/gates");
        assert!(matches!(merge(&[a, gated], None), Err(MergeError::Gates(_))));
        assert!(matches!(merge(&[], None), Err(MergeError::NoInputs)));
    }
}
