//! What the pipeline is asked to run on a file: the options the worker's command line
//! and the farm's in-process mode both build.

use crate::events::{ExportKind, Tier};
use std::path::PathBuf;

/// What to run on a file.
#[derive(Clone, Debug)]
pub struct Options {
    /// Tiers to run.
    pub tiers: Vec<Tier>,
    /// Exporters to run (none: with T3, [`ExportKind::DEFAULT_SET`]).
    pub exports: Vec<ExportKind>,
    /// Folders of reference outputs for T3, searched in order (same names as the exports;
    /// pairs folders for `pairs`).
    pub reference: Vec<PathBuf>,
    /// Folder for export outputs (a temporary folder per exporter when absent).
    pub out: Option<PathBuf>,
    /// Called once the file is open, with its decoded stream bytes: the worker binary tunes
    /// its allocator there (a gzip file's decoded size is known only now; see
    /// [`crate::memory::between_phases`]). `None` in process.
    pub on_decoded: Option<fn(u64)>,
    /// True in a worker process: an allocation failure while inflating ends the process the
    /// way any failed allocation does (`memory allocation of N bytes failed`, abort), so the
    /// farm records `oom` rather than a verdict on the file. False in process.
    pub abort_on_oom: bool,
}

impl Options {
    /// True when T3 runs: asked for with `t3`, or implied by any `--export` (an exporter's
    /// output is only worth writing with its T3 verdict, so naming one turns T3 on).
    pub fn runs_t3(&self) -> bool {
        self.tiers.contains(&Tier::T3) || !self.exports.is_empty()
    }
}

/// The tiers that run for `tiers` and `exports`: `--export` implies `t3` (added at the
/// end when absent), so what is recorded and gated matches the results the worker emits.
pub fn effective_tiers(tiers: &[Tier], exports: &[ExportKind]) -> Vec<Tier> {
    let mut out = tiers.to_vec();
    if !exports.is_empty() && !out.contains(&Tier::T3) {
        out.push(Tier::T3);
    }
    out
}

impl Default for Options {
    fn default() -> Self {
        Options {
            tiers: vec![Tier::T1, Tier::T2],
            exports: Vec::new(),
            reference: Vec::new(),
            out: None,
            on_decoded: None,
            abort_on_oom: false,
        }
    }
}
