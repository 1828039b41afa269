//! A history line made from the report model (`crate::history` owns the file; the
//! report draws its lines): the same numbers the pages show.

use crate::history::{append, tool_stamp, utc_now, HistoryEntry, TierRate, HISTORY_SCHEMA, SUMMARY_STREAM_PREFIX};
use crate::report::model::Report;
use crate::results::{FileResult, Status};
use pmschema::verdict::Verdict;
use pmworker::events::Tier;
use std::collections::BTreeMap;
use std::path::Path;

impl HistoryEntry {
    /// The headline numbers of a run, from its report model and per-file results.
    pub fn of_run(report: &Report, results: &[FileResult], date: String) -> HistoryEntry {
        let ran = results.iter().filter(|r| r.status != Status::Skip).count() as u64;
        let passed = results.iter().filter(|r| r.status == Status::Pass).count() as u64;
        let mut tier_pass_rates: BTreeMap<String, BTreeMap<String, TierRate>> = BTreeMap::new();
        for r in &report.pass_rates {
            tier_pass_rates
                .entry(r.max_version.clone())
                .or_default()
                .insert(r.tier.clone(), TierRate { passed: r.passed, total: r.total });
        }
        let coverages: Vec<f64> =
            results.iter().filter_map(|r| r.inventory.as_ref().map(|i| i.typed_coverage)).collect();
        let typed_coverage = (!coverages.is_empty()).then(|| coverages.iter().sum::<f64>() / coverages.len() as f64);
        let summary_results: Vec<&Verdict> = results
            .iter()
            .flat_map(|r| r.results.iter())
            .filter(|t| t.tier == Tier::T3 && t.stream.starts_with(SUMMARY_STREAM_PREFIX))
            .map(|t| &t.verdict)
            .collect();
        let t3_summary_agreement = (!summary_results.is_empty()).then(|| {
            summary_results.iter().filter(|v| matches!(v, Verdict::Pass { .. })).count() as f64
                / summary_results.len() as f64
        });
        let wall_ms = report.stamp.timing.get("wall_ms").and_then(|v| v.as_u64()).unwrap_or(0);
        let bytes = report.stamp.timing.get("bytes").and_then(|v| v.as_u64()).unwrap_or(0);
        HistoryEntry {
            schema: HISTORY_SCHEMA,
            date,
            tool: tool_stamp(),
            corpus_root: report.stamp.corpus_root.clone(),
            files: report.files,
            bytes,
            wall_ms,
            status_counts: report.totals.clone(),
            pass_rate: if ran == 0 { 0.0 } else { passed as f64 / ran as f64 },
            tier_pass_rates,
            typed_coverage,
            t3_summary_agreement,
            baseline: report.baseline.as_ref().map(|b| b.name.clone()),
            regressions: report.baseline.as_ref().map(|b| b.counts.get("regressed").copied().unwrap_or(0)),
            gates_failed: report.gates.iter().filter(|g| !g.passed).count() as u64,
        }
    }
}

/// Loads the run in `out_dir` the way the report does and appends its entry to `history`.
pub fn record(out_dir: &Path, history: &Path) -> Result<HistoryEntry, String> {
    let data = super::load(out_dir, &super::ReportOptions::default()).map_err(|e| e.to_string())?;
    let report = data.build();
    let entry = HistoryEntry::of_run(&report, &data.results, utc_now());
    append(history, &entry).map_err(|e| e.to_string())?;
    Ok(entry)
}
