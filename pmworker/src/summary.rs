//! The `summary` exporter in the worker: derives the scene account from pmcore's typed
//! model, writes it as `<stem>.summary.json`, and runs its T3 against the reference every
//! `.max` carries — Max's own document summary — one result per section
//! (`summary/objects`, `summary/scene-totals`, …). A section the file lacks is
//! `skip: absent-in-file`; one pmcore cannot derive yet is `skip: unsupported: <classes>`.
//! Skips are counted as skips by the tally, never as passes.

use crate::emit::Sink;
use crate::events::{Breadcrumb, Event, ExportKind, ExportStatus};
use crate::exporter::{write_output, ExportVerdict};
use crate::options::Options;
use pmcore::export::summary::{self, SectionOutcome, SummaryError};
use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::{Mismatch, Verdict};
use pmcore::MaxFile;
use pmschema::hex;
use serde_json::json;
use sha2::{Digest, Sha256};

/// Exporter name.
pub const NAME: &str = ExportKind::Summary.name();

/// Runs the exporter and its per-section T3.
pub fn run(
    stem: &str,
    file: &MaxFile,
    scene: Option<&SceneTrees<'_>>,
    opts: &Options,
    sink: &mut dyn Sink,
) -> Vec<ExportVerdict> {
    let mut event = crate::exporter::begin(NAME, sink);
    let account = scene.ok_or(SummaryError::NoScene).and_then(|trees| summary::account_with(file, trees));
    match &account {
        Ok(a) => {
            let bytes = serde_json::to_vec_pretty(a).unwrap_or_default();
            let name = format!("{stem}.summary.json");
            match write_output(opts.out.as_deref(), &name, &bytes) {
                Ok(()) => {
                    event.status = ExportStatus::Ok;
                    event.sha256 = Some(hex(&Sha256::digest(&bytes)));
                    event.files = vec![name];
                    event.summary = json!({ "objects": a.objects.len(), "plugins": a.plugins.len() });
                }
                Err(e) => {
                    event.status = ExportStatus::Error;
                    event.summary = json!({ "error": format!("cannot write {name}: {e}") });
                }
            }
        }
        Err(e) => {
            event.status = ExportStatus::Error;
            event.summary = json!({ "error": e.to_string(), "chunk_path": "Scene" });
        }
    }
    sink.emit(Event::Export(event));
    sink.breadcrumb(Breadcrumb { tier: "t3".into(), stream: NAME.into(), ..Default::default() });
    let reference = pmcore::facts::doc_summary(file).unwrap_or_default();
    summary::compare(&reference, account.as_ref())
        .into_iter()
        .map(|v| {
            let stream = format!("{NAME}/{}", v.section);
            let verdict = match &v.outcome {
                SectionOutcome::Pass => Verdict::pass(),
                SectionOutcome::Skip { reason } => Verdict::Skip { reason: reason.clone() },
                SectionOutcome::Fail { first_difference } => Verdict::Fail(Mismatch {
                    kind: format!("t3-summary-{}", v.section),
                    message: format!("{}: {first_difference}", v.section),
                    chunk_path: "\u{5}DocumentSummaryInformation".into(),
                    ..Default::default()
                }),
            };
            ExportVerdict::new(stream, verdict, serde_json::to_value(&v).ok())
        })
        .collect()
}

/// The `summary` exporter in the registry.
pub struct SummaryExporter;

impl crate::exporter::Exporter for SummaryExporter {
    fn kind(&self) -> ExportKind {
        ExportKind::Summary
    }
    fn run(&self, input: &crate::exporter::ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
        run(input.stem, input.file, input.scene, input.opts, sink)
    }
}
