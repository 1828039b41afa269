//! What every exporter of the worker shares: the [`Exporter`] trait, the T3 verdict it
//! returns and how it writes its output. `export.rs` holds the registry and the
//! single-output exporters (OBJ, skel); `summary.rs`, `shape.rs` and `pairs.rs` are
//! exporters of their own; all of them import this module, none imports another.

use crate::emit::Sink;
use crate::events::{Breadcrumb, Export, ExportKind, ExportStatus};
use crate::options::Options;
use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::Verdict;
use pmcore::MaxFile;
use pmref::scene::RefScene;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What an exporter is given: the file, the name it was read as, and the worker's options.
pub struct ExportInput<'a> {
    /// The input's path as the worker shows it.
    pub source: &'a str,
    /// The input's file stem: outputs are named after it.
    pub stem: &'a str,
    /// The opened file.
    pub file: &'a MaxFile,
    /// Its Scene trees, parsed once for every exporter (`None`: Scene is not a chunk tree).
    pub scene: Option<&'a SceneTrees<'a>>,
    /// Outputs folder, references, …
    pub opts: &'a Options,
}

/// One worker exporter (`--export NAME`): writes its output (an `export` event) and compares
/// it with its reference (T3 verdicts). Adding one is its module, its name in
/// `pmschema::ExportKind`, and one line in `export::REGISTRY`.
pub trait Exporter: Sync {
    /// The name `--export` takes.
    fn kind(&self) -> ExportKind;
    /// Runs the export and its comparison; one verdict per comparison made.
    fn run(&self, input: &ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict>;
}

/// A T3 verdict for one exporter, with its counters.
pub struct ExportVerdict {
    /// Exporter name (`obj`, `skel`): the `stream` of the T3 result.
    pub stream: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Field counters and other detail for the `result` event.
    pub detail: Option<serde_json::Value>,
    /// The reference as read (pairs comparisons), kept for the triage step: its node names
    /// and curves are the evidence of a reference written from another scene state.
    pub reference: Option<Arc<RefScene>>,
}

impl ExportVerdict {
    /// A verdict with its detail and no reference kept.
    pub fn new(stream: impl Into<String>, verdict: Verdict, detail: Option<serde_json::Value>) -> Self {
        ExportVerdict { stream: stream.into(), verdict, detail, reference: None }
    }
}

/// Starts exporter `name`: its breadcrumb, and its `export` event, an error until the
/// exporter has written its output (so one that stops early reports the error it has).
pub fn begin(name: &str, sink: &mut dyn Sink) -> Export {
    sink.breadcrumb(Breadcrumb { tier: "export".into(), stream: name.into(), ..Default::default() });
    Export { exporter: name.into(), status: ExportStatus::Error, files: Vec::new(), sha256: None, summary: Value::Null }
}

/// Writes `bytes` as `name` under `out`, or under a fresh temporary folder that is removed
/// once written (the digest in the `export` event is what stays).
pub fn write_output(out: Option<&Path>, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    match out {
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            std::fs::write(dir.join(name), bytes)
        }
        None => {
            let dir = tempfile::tempdir()?;
            let path: PathBuf = dir.path().join(name);
            std::fs::write(path, bytes)
        }
    }
}
