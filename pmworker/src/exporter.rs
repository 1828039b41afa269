//! What every exporter of the worker shares: the T3 verdict it returns and how it writes
//! its output. `export.rs` runs the exporters; `summary.rs` and `pairs.rs` are exporters
//! of their own; all of them import this module, none imports another.

use pmcore::verify::Verdict;
use std::path::{Path, PathBuf};

/// A T3 verdict for one exporter, with its counters.
pub struct ExportVerdict {
    /// Exporter name (`obj`, `skel`): the `stream` of the T3 result.
    pub stream: String,
    /// The verdict.
    pub verdict: Verdict,
    /// Field counters and other detail for the `result` event.
    pub detail: Option<serde_json::Value>,
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
