//! The pairs comparisons inside the worker: find what 3ds Max itself exported from this
//! file (`--reference` pairs folders, `pmref::pairs`), read each export (`pmref`), and
//! compare it with the model (`pmref::compare`). One result per comparison and export,
//! stream `pairs/<comparison>/<export path relative to the pairs folder>`; a missing or
//! ambiguous reference is one `pairs` skip with its reason.

use crate::emit::Sink;
use crate::events::Breadcrumb;
use crate::exporter::ExportVerdict;
use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::{Mismatch, Verdict};
use pmcore::MaxFile;
use pmref::compare::{compare_all_in_range, COMPARISONS};
use pmref::pairs::{lookup, Lookup};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn skip(reason: String, lookup: &str) -> Vec<ExportVerdict> {
    vec![ExportVerdict::new("pairs", Verdict::Skip { reason }, Some(json!({ "lookup": lookup })))]
}

fn fail_all(name: &str, kind: &str, message: String, chunk_path: String) -> Vec<ExportVerdict> {
    COMPARISONS
        .iter()
        .map(|c| {
            let mismatch = Mismatch {
                kind: kind.into(),
                message: message.clone(),
                chunk_path: chunk_path.clone(),
                ..Default::default()
            };
            ExportVerdict::new(format!("pairs/{c}/{name}"), Verdict::Fail(mismatch), None)
        })
        .collect()
}

/// Runs the pairs comparisons of the file at `source` against the references in `folders`.
pub fn run(source: &str, file: &MaxFile, folders: &[PathBuf], sink: &mut dyn Sink) -> Vec<ExportVerdict> {
    sink.breadcrumb(Breadcrumb { tier: "t3".into(), stream: "pairs".into(), ..Default::default() });
    if folders.is_empty() {
        return skip("no reference folder given (--reference)".into(), "no-folder");
    }
    let (files, how) = match lookup(Path::new(source), folders) {
        Lookup::Found(files, how) => (files, how),
        Lookup::Missing(reason) => return skip(format!("missing reference: {reason}"), "missing"),
        Lookup::Ambiguous(reason) => return skip(format!("ambiguous reference: {reason}"), "ambiguous"),
    };
    let trees = SceneTrees::of(file);
    let index = trees.as_ref().and_then(|t| t.index());
    let mut out = Vec::new();
    for reference in files {
        sink.breadcrumb(Breadcrumb {
            tier: "t3".into(),
            stream: format!("pairs/{}", reference.name),
            ..Default::default()
        });
        let Some(index) = index.as_ref() else {
            out.extend(fail_all(
                &reference.name,
                "t3-pairs-scene",
                "Scene is not a readable chunk tree".into(),
                "Scene".into(),
            ));
            continue;
        };
        let scene = match pmref::pairs::read(&reference) {
            Ok(s) => Arc::new(s),
            Err(pmref::ReadError::NotRead(reason)) => {
                out.extend(COMPARISONS.iter().map(|c| {
                    let verdict = Verdict::Skip { reason: format!("reference not read: {reason}") };
                    ExportVerdict::new(format!("pairs/{c}/{}", reference.name), verdict, Some(json!({ "lookup": how })))
                }));
                continue;
            }
            Err(e) => {
                let message = format!("{}: {e}", reference.path.display());
                out.extend(fail_all(
                    &reference.name,
                    "t3-reference-unreadable",
                    message,
                    format!("@reference/{}", reference.name),
                ));
                continue;
            }
        };
        let time = pmcore::model::time_config::TimeConfig::of(file).ok();
        for c in compare_all_in_range(index, &scene, &reference.name, time) {
            let mut detail = c.detail;
            if let serde_json::Value::Object(map) = &mut detail {
                map.insert("lookup".into(), json!(how));
                map.insert("format".into(), json!(scene.format));
            }
            out.push(ExportVerdict {
                stream: format!("pairs/{}/{}", c.name, reference.name),
                verdict: c.verdict,
                detail: Some(detail),
                reference: Some(Arc::clone(&scene)),
            });
        }
    }
    out
}

/// The `pairs` comparisons in the registry.
pub struct PairsExporter;

impl crate::exporter::Exporter for PairsExporter {
    fn kind(&self) -> crate::events::ExportKind {
        crate::events::ExportKind::Pairs
    }
    fn run(&self, input: &crate::exporter::ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
        run(input.source, input.file, &input.opts.reference, sink)
    }
}
