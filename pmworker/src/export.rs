//! Exporters inside the worker (OBJ, NeL .skel) and their T3 comparisons.

use crate::emit::Sink;
use crate::pipeline::Options;
use pmcore::verify::Verdict;
use pmcore::MaxFile;

/// A T3 verdict for one exporter, with its counters.
pub struct ExportVerdict {
    /// Exporter name (`obj`, `skel`): the `stream` of the T3 result.
    pub stream: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Field counters and other detail for the `result` event.
    pub detail: Option<serde_json::Value>,
}

/// Runs the requested exporters; not built yet, so each reports `skip` with that reason.
pub fn run(_file: &MaxFile, opts: &Options, _sink: &mut dyn Sink) -> Vec<ExportVerdict> {
    opts.exports
        .iter()
        .map(|e| ExportVerdict {
            stream: e.clone(),
            verdict: Verdict::Skip { reason: "exporter not built".into() },
            detail: None,
        })
        .collect()
}
