//! `summary.json`, built in one place for `pmfarm run` and `pmfarm merge`: what the run
//! was (copied as it is), what its results count ([`crate::tally`]), its gates and baseline
//! comparison, and its timing with a fresh run id. A merged run's summary then cannot
//! differ from an unsharded one's but where the contract lets it (`docs/results.md`).

use crate::results::{BaselineDiff, BaselineSummary, FileResult, GateOutcome, Summary};
use crate::tally::{tally, Tally};

/// What the run was: the fields a summary copies as they are.
pub struct RunHeader {
    /// `pmfarm <version>`.
    pub tool: String,
    /// The results schema.
    pub schema: u32,
    /// The work, worker, baseline and gates options.
    pub options: serde_json::Value,
    /// The limits.
    pub limits: serde_json::Value,
    /// The corpus root.
    pub corpus_root: String,
    /// `K/N` for a shard run.
    pub shard: Option<String>,
}

/// How long the run took: its wall time, and for a merge the number of shards merged.
pub struct RunTiming {
    /// Wall time in milliseconds (a merge: its slowest shard's).
    pub wall_ms: u64,
    /// The number of shards a merge combined; `None` for a run.
    pub shards: Option<usize>,
}

/// The summary of `results` (sorted by path) with their gate outcomes and baseline
/// comparison; `timing` gains the input byte total, a fresh run id and the finish time.
pub fn summarize(
    header: RunHeader,
    results: &[FileResult],
    gates: Vec<GateOutcome>,
    diff: Option<&BaselineDiff>,
    timing: RunTiming,
) -> Summary {
    let Tally { status_counts, buckets, corpus_manifest_sha256, bytes } = tally(results);
    let RunHeader { tool, schema, options, limits, corpus_root, shard } = header;
    let mut time = serde_json::json!({
        "wall_ms": timing.wall_ms,
        "bytes": bytes,
        "run_id": crate::output_set::new_run_id(),
        "finished": crate::history::utc_now(),
    });
    if let Some(shards) = timing.shards {
        time["shards"] = shards.into();
    }
    Summary {
        tool,
        schema,
        options,
        limits,
        corpus_root,
        corpus_manifest_sha256,
        files: results.len() as u64,
        status_counts,
        buckets,
        gates,
        baseline: diff.map(|d| BaselineSummary { name: d.baseline.clone(), counts: d.counts.clone() }),
        shard,
        timing: time,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> RunHeader {
        RunHeader {
            tool: "pmfarm test".into(),
            schema: 1,
            options: serde_json::json!({}),
            limits: serde_json::json!({}),
            corpus_root: "/corpus".into(),
            shard: None,
        }
    }

    #[test]
    fn a_run_and_a_merge_differ_only_in_the_shard_count() {
        let results = [FileResult { path: "a.max".into(), bytes: 7, ..Default::default() }];
        let run = summarize(header(), &results, Vec::new(), None, RunTiming { wall_ms: 5, shards: None });
        let merged = summarize(header(), &results, Vec::new(), None, RunTiming { wall_ms: 5, shards: Some(2) });
        assert_eq!((run.files, run.timing["bytes"].as_u64(), run.timing.get("shards")), (1, Some(7), None));
        assert_eq!(merged.timing["shards"], 2);
        assert!(!run.run_id().is_empty() && !merged.run_id().is_empty(), "each gets a run id");
        assert_eq!(run.corpus_manifest_sha256, merged.corpus_manifest_sha256);
    }
}
