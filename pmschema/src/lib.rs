//! pmschema: the contract between `pmworker` and `pmfarm`, and between `pmfarm` and whoever
//! reads its run folders. Everything both sides (and the tests) must agree on lives here
//! and nowhere else:
//!
//! - [`events`]: the worker's JSON Lines events (`docs/events.md`, schema
//!   [`events::SCHEMA_VERSION`]);
//! - [`results`]: `results.jsonl`, `summary.json`, `baseline-diff.json`, baselines and the
//!   journal (`docs/results.md`, schema [`results::RESULTS_SCHEMA`]);
//! - [`names`]: tiers, exporters and statuses, each with one table of stable names that serde,
//!   clap and `FromStr` share;
//! - [`work`]: what a worker checks on each file ([`work::Checks`]: tiers and exporters,
//!   with "an exporter implies `t3`" and the default exporters decided there once);
//! - [`verdict`]: the verdict of a tier on a stream, as `result` events and results carry it;
//! - [`exit`]: the exit codes of both binaries;
//! - [`files`]: the file names of a run folder.
//!
//! A leaf: it depends on no workspace crate (a test in `tests/tests/workspace_deps.rs` keeps
//! it so). The worker maps pmcore's verdicts and facts to these types at its edge
//! (`pmworker::wire`), and pmcore knows nothing of farms or exit codes.

pub mod events;
pub mod exit;
pub mod files;
pub mod names;
pub mod results;
pub mod verdict;
pub mod work;

pub use names::{EndStatus, ExportKind, ExportStatus, Status, Tier, TriageClass, UnknownName};
pub use work::{Checks, Invocation, ReferenceFolders};

/// Lower-case hex, the form of every digest field of the contract (`start.sha256`,
/// `export.sha256`, `corpus_manifest_sha256`, …).
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
