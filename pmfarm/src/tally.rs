//! Counting per-file results: what `summary.json` counts, and why files were skipped. One
//! module for `pmfarm run` and for `pmfarm merge`, so a merged run cannot count
//! differently from an unsharded one.

use crate::results::{empty_status_counts, BucketSummary, FileResult, Status};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// What `summary.json` counts from the per-file results: one function for a run and for a
/// merge of shards, so a merged run cannot count differently from an unsharded one.
pub struct Tally {
    /// Files per status (every status present, zeros included).
    pub status_counts: BTreeMap<String, u64>,
    /// Files and statuses per bucket.
    pub buckets: BTreeMap<String, BucketSummary>,
    /// SHA-256 of the `path\tsha256` lines, in result order.
    pub corpus_manifest_sha256: String,
    /// Input bytes over all files.
    pub bytes: u64,
}

/// Counts `results` (sorted by path) for the summary.
pub fn tally(results: &[FileResult]) -> Tally {
    let mut status_counts = empty_status_counts();
    let mut buckets: BTreeMap<String, BucketSummary> = BTreeMap::new();
    let mut manifest = String::new();
    let mut bytes = 0u64;
    for r in results {
        *status_counts.entry(r.status.name().to_string()).or_default() += 1;
        for b in &r.buckets {
            let e = buckets
                .entry(b.clone())
                .or_insert_with(|| BucketSummary { files: 0, status_counts: empty_status_counts() });
            e.files += 1;
            *e.status_counts.entry(r.status.name().to_string()).or_default() += 1;
        }
        manifest.push_str(&format!("{}\t{}\n", r.path, r.sha256.as_deref().unwrap_or("-")));
        bytes += r.bytes;
    }
    let corpus_manifest_sha256 = pmschema::hex(&Sha256::digest(manifest.as_bytes()));
    Tally { status_counts, buckets, corpus_manifest_sha256, bytes }
}

/// Skipped files per reason.
pub fn skip_reasons(results: &[FileResult]) -> BTreeMap<String, u64> {
    let mut reasons: BTreeMap<String, u64> = BTreeMap::new();
    for r in results.iter().filter(|r| r.status == Status::Skip) {
        *reasons.entry(r.reason.clone().unwrap_or_else(|| "skip".into())).or_default() += 1;
    }
    reasons
}
