//! What a comparison reports: its [`Comparison`] and the failing verdict located in the
//! reference file, shared so every comparison writes the same kind of locator.

use crate::scene::RefNode;
use pmcore::verify::{Mismatch, Verdict};
use serde_json::Value;

/// One comparison's outcome.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// `hierarchy`, `transforms`, …
    pub name: &'static str,
    /// Verdict; failures are located as `@reference/<name>/<node>` at the record's offset.
    pub verdict: Verdict,
    /// Counters and the first difference.
    pub detail: Value,
}

/// A failing verdict of `kind` at the reference record `offset`.
pub(super) fn fail(kind: &str, message: String, locator: String, offset: u64) -> Verdict {
    Verdict::Fail(Mismatch { kind: kind.into(), message, chunk_path: locator, offset, ..Default::default() })
}

/// `@reference/<file>/<node>`: where a failure of `node` sits.
pub(super) fn locator(reference_name: &str, node: &RefNode) -> String {
    format!("@reference/{reference_name}/{}", node.name)
}
