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
pub mod locate;
pub mod merge;
pub mod outcome;
pub mod progress;
pub mod report;
pub mod results;
pub mod run;
pub mod shard;
pub mod supervise;
pub mod verify_ledger;
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

/// `pmfarm report OUT [--baseline NAME]`: renders the report of a finished run. NAME is
/// a path to a baseline file or a bare name (`baselines/<name>.jsonl`).
pub fn report_cmd(out: &Path, baseline: Option<&Path>, junit_per_file: bool) -> i32 {
    let opts = report::ReportOptions { baseline: baseline.map(Path::to_path_buf), junit_per_file };
    match report::render(out, &opts) {
        Ok(index) => {
            println!("pmfarm: report: {}", index.index_html().display());
            run::code::OK
        }
        Err(e) => {
            eprintln!("pmfarm: report: {e}");
            run::code::USAGE
        }
    }
}
