//! `pmfarm synth`: writes a synthetic corpus shaped after a manifest. pmcore plans and
//! builds each file in memory (`pmcore::synth::corpus`, no I/O); this module reads the
//! manifest and writes the files, so the reader crate never touches the file system.

use pmcore::synth::corpus::{build_file, plan, read_manifest, CorpusError, PlannedFile};
use std::path::{Path, PathBuf};

/// Why a synthetic corpus could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// Planning or building a file failed.
    #[error(transparent)]
    Corpus(#[from] CorpusError),
    /// Reading the manifest or writing to the output folder failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or folder.
        path: PathBuf,
        /// I/O error.
        source: std::io::Error,
    },
}

/// Totals of a written corpus.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// Files written.
    pub files: u64,
    /// Bytes on disk.
    pub bytes: u64,
}

/// Builds and writes every planned file under `out` (rayon, one file per task), plus
/// `out/synth-manifest.tsv` (path, bytes, kind, headers, compression, seed). Files are
/// independent: the result does not depend on the thread count.
pub fn write_corpus(files: &[PlannedFile], out: &Path) -> Result<Written, SynthError> {
    use rayon::prelude::*;
    let io = |path: PathBuf| move |source| SynthError::Io { path: path.clone(), source };
    std::fs::create_dir_all(out).map_err(io(out.to_path_buf()))?;
    let sizes: Vec<u64> = files
        .par_iter()
        .map(|f| {
            let bytes = build_file(f)
                .map_err(|source| SynthError::from(CorpusError::Build { path: f.path.clone(), source }))?;
            let dest = out.join(&f.path);
            if let Some(dir) = dest.parent() {
                std::fs::create_dir_all(dir).map_err(io(dir.to_path_buf()))?;
            }
            std::fs::write(&dest, &bytes).map_err(io(dest.clone()))?;
            Ok(bytes.len() as u64)
        })
        .collect::<Result<_, SynthError>>()?;
    let mut tsv = String::from("path\tbytes\tkind\theaders\tcompression\troot_id\tseed\n");
    for (f, size) in files.iter().zip(&sizes) {
        tsv.push_str(&format!(
            "{}\t{size}\t{:?}\t{:?}\t{}\t0x{:04X}\t{}\n",
            f.path,
            f.kind,
            f.headers,
            if f.gzip { "gzip" } else { "none" },
            f.root_id,
            f.seed
        ));
    }
    let manifest = out.join("synth-manifest.tsv");
    std::fs::write(&manifest, tsv).map_err(io(manifest.clone()))?;
    Ok(Written { files: files.len() as u64, bytes: sizes.iter().sum() })
}

/// `pmfarm synth --like MANIFEST --scale F --out DIR --seed N`: reads the manifest,
/// plans, writes. Returns the plan's totals.
pub fn synthesize(manifest: &Path, scale: f64, seed: u64, out: &Path) -> Result<Written, SynthError> {
    let text =
        std::fs::read_to_string(manifest).map_err(|source| SynthError::Io { path: manifest.to_path_buf(), source })?;
    write_corpus(&plan(&read_manifest(&text)?, scale, seed), out)
}
