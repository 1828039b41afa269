//! `pmfarm merge OUT... --out M`, end to end: read the shard folders, merge them
//! ([`crate::shard_merge`]), write the merged run folder under its lock, append the history line,
//! render the report. Prints nothing: the CLI renders the [`Outcome`].

use crate::engine::{FarmError, Outcome};
use crate::gates::GateSource;
use crate::run_files::RunDir;
use crate::shard_merge::{merge, write, ShardOutput};
use std::path::{Path, PathBuf};

/// `pmfarm merge OUT... --out M [--gates DIR] [--baselines DIR] [--no-report]`: merge,
/// write, append the history line, render the report (its readable diffs from
/// `baselines_dir/<name>.jsonl`, as `pmfarm run` does). The [`Outcome`]'s exit code is read
/// as for `pmfarm run`: 0 gates pass, 1 a gate failed, 2 something asked for not written,
/// 77 nothing runnable; a [`FarmError`] when the inputs could not be merged or written.
pub fn merge_into(
    inputs: &[PathBuf],
    out: &Path,
    gates: Option<&GateSource>,
    baselines_dir: &Path,
    report: bool,
    history: Option<&Path>,
) -> Result<Outcome, FarmError> {
    let shards: Vec<ShardOutput> = inputs.iter().map(|d| ShardOutput::read(d)).collect::<Result<_, _>>()?;
    let merged = merge(&shards, gates)?;
    std::fs::create_dir_all(out).map_err(|source| FarmError::CreateOut { out: out.to_path_buf(), source })?;
    let _lock = crate::lock::RunLock::acquire(out)?;
    crate::output_set::begin(out, "merge")
        .map_err(|source| FarmError::ClearEarlierOutputs { out: out.to_path_buf(), source })?;
    write(out, &merged)?;
    let mut outcome = Outcome {
        out: out.to_path_buf(),
        results_file: RunDir::new(out).results(),
        summary: merged.summary.clone(),
        history: None,
        report: None,
        unfinished: None,
        missing: Vec::new(),
        skip_reasons: crate::tally::skip_reasons(&merged.results),
        gate_failures: crate::gates::failures(&merged.summary.gates, merged.gated),
    };
    if let Some(h) = history {
        let appended = crate::report::record_history(out, h).map(|_| h.to_path_buf());
        let failed = appended.is_err();
        outcome.history = Some(appended);
        if failed {
            let _ = crate::output_set::finish(out); // the merged results are complete
            return Ok(outcome);
        }
    }
    if report {
        let baseline =
            merged.diff.as_ref().map(|d| crate::baseline::path_of(baselines_dir, &d.baseline)).filter(|p| p.is_file());
        let opts = crate::report::ReportOptions {
            baseline,
            baselines_dir: Some(baselines_dir.to_path_buf()),
            junit_per_file: true,
            history: history.map(Path::to_path_buf),
        };
        let rendered = crate::report::render(out, &opts).map(|index| index.index_html()).map_err(|e| e.to_string());
        let failed = rendered.is_err();
        outcome.report = Some(rendered);
        if failed {
            let _ = crate::output_set::finish(out); // the merged results are complete
            return Ok(outcome);
        }
    }
    outcome.unfinished = crate::output_set::finish(out).err();
    Ok(outcome)
}
