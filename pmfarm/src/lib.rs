//! pmfarm: the coordinator. Enumerates `.max` files, runs one isolated `pmworker` per
//! file, keeps an append-only journal, sorts results into buckets, compares them with a
//! stored baseline and enforces gates. `docs/farm.md` describes the whole flow and
//! `docs/results.md` every output format.

pub mod baseline;
pub mod buckets;
pub mod demo;
pub mod enumerate;
pub mod gates;
pub mod journal;
pub mod limits;
pub mod outcome;
pub mod progress;
pub mod results;
pub mod run;
pub mod supervise;
pub mod workspace;

use std::path::Path;

/// Reads `OUT/results.jsonl`.
pub fn read_results(out: &Path) -> Result<Vec<results::FileResult>, String> {
    let path = out.join("results.jsonl");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1)))
        .collect()
}

/// `pmfarm report OUT [--baseline NAME]`: renders the report of a finished run.
pub fn report_cmd(out: &Path, _baseline: Option<&str>) -> i32 {
    eprintln!("pmfarm: the report renderer is not wired in yet; outputs are in {}", out.display());
    run::code::USAGE
}
