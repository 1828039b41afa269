//! What the pipeline is asked to run on a file: the options the worker's command line
//! and the farm's in-process mode both build.

use crate::events::{ExportKind, Tier};
use pmschema::work::{Checks, Invocation, ReferenceFolders};
use std::path::{Path, PathBuf};

/// What to run on a file.
#[derive(Clone, Debug)]
pub struct Options {
    /// Tiers and exporters, decided once by [`Checks::asked`] (an exporter implies `t3`; T3
    /// without one runs the default set).
    pub checks: Checks,
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
    /// What the worker's command line asks for: `tiers` and `exports` as given (`--tiers`,
    /// `--export`) and the `reference` folders, with the worker's default exporters for
    /// what those folders hold. The farm's in-process mode builds its options here too, so
    /// it runs what the worker would on the same command line.
    pub fn asked(tiers: &[Tier], exports: &[ExportKind], reference: Vec<PathBuf>) -> Options {
        let invocation = Invocation::Worker(reference_folders(&reference));
        Options { checks: Checks::asked(tiers, exports, invocation), reference, ..Options::default() }
    }
}

/// What `folders` hold for the worker's default exporters: a `manifest.tsv` (pairs, or a
/// NeL corpus when a `shape/` folder is beside it).
fn reference_folders(folders: &[PathBuf]) -> ReferenceFolders {
    let manifest = |r: &Path| r.join("manifest.tsv").is_file();
    ReferenceFolders {
        manifest: folders.iter().any(|r| manifest(r)),
        nel_corpus: folders.iter().any(|r| manifest(r) && r.join("shape").is_dir()),
    }
}

impl Default for Options {
    /// T1 and T2, nothing exported, no reference: the worker's command line without flags.
    fn default() -> Self {
        Options {
            checks: Checks::asked(&[Tier::T1, Tier::T2], &[], Invocation::Worker(ReferenceFolders::default())),
            reference: Vec::new(),
            out: None,
            on_decoded: None,
            abort_on_oom: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_exporters_follow_what_the_reference_folders_hold() {
        let dir = tempfile::tempdir().unwrap();
        let (pairs, nel) = (dir.path().join("pairs"), dir.path().join("nel"));
        for folder in [&pairs, &nel] {
            std::fs::create_dir_all(folder).unwrap();
            std::fs::write(folder.join("manifest.tsv"), "").unwrap();
        }
        std::fs::create_dir(nel.join("shape")).unwrap();
        let exports = |reference: Vec<PathBuf>| Options::asked(&[Tier::T3], &[], reference).checks.exports().to_vec();
        use ExportKind::*;
        assert_eq!(exports(vec![]), [Obj, Skel, Summary]);
        assert_eq!(exports(vec![dir.path().into()]), [Obj, Skel, Summary], "no manifest");
        assert_eq!(exports(vec![pairs.clone()]), [Obj, Skel, Summary, Pairs]);
        assert_eq!(exports(vec![pairs, nel]), [Obj, Skel, Summary, Shape, Pairs]);
    }
}
