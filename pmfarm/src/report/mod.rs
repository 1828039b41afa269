//! Reports: a self-contained static site (`index.html`, one `bucket-<slug>.html` per
//! bucket), the same content as JSON (`index.json`, `bucket-<slug>.json`), a JUnit file
//! for CI and a Markdown summary for a PR comment — all written from the one [`Report`]
//! model behind the one [`Exporter`] trait, so no format can say something another does
//! not (the hyperfine `src/export/` shape).
//!
//! [`render`] is the only entry point: it reads what a run wrote into its output folder
//! and writes `OUT/report/`. Nothing here reaches the network; templates, CSS and the
//! little plain JavaScript come from `reports/` and are compiled into the binary.

pub mod build;
pub mod diff;
pub mod escape;
pub mod history_entry;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod model;
pub mod sections;
pub mod svg;
pub mod triage;

pub use build::RunData;
pub use history_entry::record as record_history;
pub use model::Report;

use crate::results::{BaselineDiff, BaselineEntry, FileResult, Summary};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `pmfarm report` and the end of `pmfarm run` pass in.
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// Baseline to read per-file verdicts from for the readable diffs: a path to a
    /// `baselines/<name>.jsonl` file, or a bare name looked up as `<name>.jsonl` in
    /// [`ReportOptions::baselines_dir`]. Without it the name in `baseline-diff.json` is tried.
    pub baseline: Option<PathBuf>,
    /// Folder bare baseline names are looked up in: the same `baselines/` of the workspace
    /// that `run`, `merge` and `baseline` use (`None`: bare names are not looked up).
    pub baselines_dir: Option<PathBuf>,
    /// One JUnit test case per file instead of one per bucket.
    pub junit_per_file: bool,
    /// History file (`--history`) whose newest runs the index draws as trend charts.
    pub history: Option<PathBuf>,
}

/// What [`render`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReportIndex {
    /// `OUT/report`.
    pub dir: PathBuf,
    /// File names written into `dir`, in write order (`index.html` first).
    pub files: Vec<String>,
    /// Number of bucket pages.
    pub buckets: usize,
    /// Total bytes written.
    pub bytes: u64,
}

impl ReportIndex {
    /// `dir/index.html`.
    pub fn index_html(&self) -> PathBuf {
        self.dir.join(crate::run_files::INDEX_HTML)
    }
}

/// Why a report could not be rendered; each names the file involved.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// An input file could not be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// An input file is not what the farm writes.
    #[error("{path}:{line}: not a valid farm output record: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line (1 for whole-file JSON).
        line: usize,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// `--baseline` named something that is neither a file nor `baselines/<name>.jsonl`.
    #[error("baseline {0} not found (give a path to a .jsonl file or a name under the workspace's baselines/)")]
    BaselineNotFound(PathBuf),
    /// A report file could not be written.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The history file is damaged or unreadable.
    #[error(transparent)]
    History(#[from] crate::history::HistoryError),
    /// A model value could not be serialized (not expected; reported rather than panicking).
    #[error("cannot serialize {what}: {source}")]
    Serialize {
        /// Which artifact.
        what: String,
        /// The JSON error.
        source: serde_json::Error,
    },
}

/// One file an exporter produces, relative to `OUT/report/`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// File name (no directories).
    pub name: String,
    /// Its full contents.
    pub contents: String,
}

/// A report format. Each takes the whole model and returns the files it writes; the
/// caller decides where they go, so tests can check formats without touching disk.
pub trait Exporter {
    /// Format name for messages (`html`, `json`, `junit`, `markdown`).
    fn name(&self) -> &'static str;
    /// The files of this format.
    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError>;
}

/// Every format, in write order.
pub fn exporters(opts: &ReportOptions) -> Vec<Box<dyn Exporter>> {
    vec![
        Box::new(html::HtmlExporter),
        Box::new(json::JsonExporter),
        Box::new(junit::JunitExporter { per_file: opts.junit_per_file }),
        Box::new(markdown::MarkdownExporter),
    ]
}

/// Reads `results.jsonl`, `summary.json` and, when present, `baseline-diff.json` (and the
/// baseline it names) from `out_dir`, and writes `out_dir/report/`. The report is written
/// into a temporary folder and swapped in whole (`crate::output_set::swap_in_report`), so a
/// reader sees the old report or the new one, never a torn page or a bucket this run lacks;
/// on any error the temporary folder is removed and the error returned.
pub fn render(out_dir: &Path, opts: &ReportOptions) -> Result<ReportIndex, ReportError> {
    let data = load(out_dir, opts)?;
    let report = data.build();
    let dir = out_dir.join(crate::output_set::REPORT_DIR);
    let tmp = crate::output_set::report_tmp(out_dir);
    let _ = std::fs::remove_dir_all(&tmp);
    let written = write_into(&tmp, &report, opts).and_then(|mut index| {
        crate::output_set::swap_in_report(out_dir, &tmp)
            .map_err(|source| ReportError::Write { path: dir.clone(), source })?;
        index.dir = dir.clone();
        Ok(index)
    });
    if written.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    written
}

fn write_into(tmp: &Path, report: &Report, opts: &ReportOptions) -> Result<ReportIndex, ReportError> {
    std::fs::create_dir_all(tmp).map_err(|source| ReportError::Write { path: tmp.to_path_buf(), source })?;
    let mut index = ReportIndex { dir: tmp.to_path_buf(), buckets: report.buckets.len(), ..Default::default() };
    for exporter in exporters(opts) {
        for artifact in exporter.export(report)? {
            let path = tmp.join(&artifact.name);
            std::fs::write(&path, artifact.contents.as_bytes())
                .map_err(|source| ReportError::Write { path, source })?;
            index.bytes += artifact.contents.len() as u64;
            index.files.push(artifact.name);
        }
    }
    Ok(index)
}

fn read_text(path: &Path) -> Result<String, ReportError> {
    std::fs::read_to_string(path).map_err(|source| ReportError::Read { path: path.to_path_buf(), source })
}

fn parse_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, ReportError> {
    serde_json::from_str(&read_text(path)?).map_err(|source| ReportError::Parse {
        path: path.to_path_buf(),
        line: 1,
        source,
    })
}

fn parse_jsonl<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Vec<T>, ReportError> {
    read_text(path)?
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|source| ReportError::Parse {
                path: path.to_path_buf(),
                line: i + 1,
                source,
            })
        })
        .collect()
}

/// Parses a run's output folder into [`RunData`].
pub fn load(out_dir: &Path, opts: &ReportOptions) -> Result<RunData, ReportError> {
    let run = crate::run_files::RunDir::new(out_dir);
    let summary: Summary = parse_json(&run.summary())?;
    let results: Vec<FileResult> = parse_jsonl(&run.results())?;
    let diff_path = run.baseline_diff();
    let diff: Option<BaselineDiff> = if diff_path.is_file() { Some(parse_json(&diff_path)?) } else { None };
    let baseline_path = match (&opts.baseline, &diff) {
        (Some(given), _) => Some(
            resolve_baseline(given, opts.baselines_dir.as_deref())
                .ok_or_else(|| ReportError::BaselineNotFound(given.clone()))?,
        ),
        (None, Some(d)) => resolve_baseline(Path::new(&d.baseline), opts.baselines_dir.as_deref()),
        (None, None) => None,
    };
    let baseline = match baseline_path {
        Some(path) => {
            let entries: Vec<BaselineEntry> = parse_jsonl(&path)?;
            Some((
                path.display().to_string(),
                entries.into_iter().map(|e| (e.path.clone(), e)).collect::<BTreeMap<_, _>>(),
            ))
        }
        None => None,
    };
    let history = match &opts.history {
        Some(path) => crate::history::read(path)?,
        None => Vec::new(),
    };
    Ok(RunData { summary, results, diff, baseline, history })
}

/// A baseline file from a path or a bare name (`<baselines_dir>/<name>.jsonl`).
fn resolve_baseline(given: &Path, baselines_dir: Option<&Path>) -> Option<PathBuf> {
    if given.is_file() {
        return Some(given.to_path_buf());
    }
    let by_name = crate::baseline::path_of(baselines_dir?, &given.display().to_string());
    by_name.is_file().then_some(by_name)
}
