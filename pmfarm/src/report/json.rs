//! `index.json` and one `bucket-<slug>.json` per bucket: the report model as data, for
//! scripts and dashboards. The shape is documented (with a JSON Schema) in
//! `docs/report-schema.md`; `kind` tells the two documents apart.

use super::model::*;
use super::{Artifact, Exporter, ReportError};
use crate::results::{GateOutcome, StatusCounts};
use crate::run_files::INDEX_JSON;
use serde::Serialize;
use std::collections::BTreeMap;

/// Writes the JSON documents.
pub struct JsonExporter;

/// A bucket as the index lists it: counts and where its pages are.
#[derive(Serialize)]
struct BucketLink<'a> {
    slug: &'a str,
    html: String,
    json: String,
    files: u64,
    status_counts: &'a StatusCounts,
    changes: &'a BTreeMap<String, u64>,
    same_as: &'a Option<String>,
}

#[derive(Serialize)]
struct IndexDoc<'a> {
    schema: u32,
    kind: &'static str,
    stamp: &'a RunStamp,
    files: u64,
    totals: &'a StatusCounts,
    pass_rates: &'a [PassRate],
    history: &'a [crate::history::HistoryEntry],
    baseline: &'a Option<BaselineView>,
    gates: &'a [GateOutcome],
    slowest: &'a [FileMetric],
    largest_rss: &'a [FileMetric],
    lists: &'a Lists,
    t3_sections: &'a [SectionRow],
    t3_triage: &'a [TriageRow],
    t3_unexplained: &'a [TriageMiss],
    t3_era_mismatch: &'a [TriageMiss],
    buckets: Vec<BucketLink<'a>>,
}

#[derive(Serialize)]
struct BucketDoc<'a> {
    schema: u32,
    kind: &'static str,
    index: &'static str,
    slug: &'a str,
    page: &'a str,
    files: u64,
    status_counts: &'a StatusCounts,
    changes: &'a BTreeMap<String, u64>,
    entries: Vec<EntryDoc<'a>>,
    same_as: &'a Option<String>,
    aliases: &'a [String],
    t3_sections: &'a [SectionRow],
    t3_triage: &'a [TriageRow],
}

/// A bucket document's file: the whole entry in the file's home bucket; elsewhere what it
/// is and where that entry is. Each file is written in full once, as on the HTML pages, so
/// a large run's report does not grow with every bucket a file belongs to.
#[derive(Serialize)]
#[serde(untagged)]
enum EntryDoc<'a> {
    Full(&'a FileEntry),
    Elsewhere {
        path: &'a str,
        status: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<&'a str>,
        home: &'a str,
    },
}

impl<'a> EntryDoc<'a> {
    fn of(entry: &'a FileEntry, bucket: &BucketReport) -> EntryDoc<'a> {
        if entry.home == bucket.slug || bucket.aliases.contains(&entry.home) {
            EntryDoc::Full(entry)
        } else {
            EntryDoc::Elsewhere {
                path: &entry.path,
                status: &entry.status,
                reason: entry.reason.as_deref(),
                home: &entry.home,
            }
        }
    }
}

/// Pretty JSON for the index (read by people), one line for bucket documents (read by
/// programs; in a large run they are the bulk of the report).
fn to_json<T: Serialize>(what: &str, value: &T, pretty: bool) -> Result<String, ReportError> {
    let text = if pretty { serde_json::to_string_pretty(value) } else { serde_json::to_string(value) };
    let mut text = text.map_err(|source| ReportError::Serialize { what: what.to_string(), source })?;
    text.push('\n');
    Ok(text)
}

impl Exporter for JsonExporter {
    fn name(&self) -> &'static str {
        "json"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let index = IndexDoc {
            schema: report.schema,
            kind: "index",
            stamp: &report.stamp,
            files: report.files,
            totals: &report.totals,
            pass_rates: &report.pass_rates,
            history: &report.history,
            baseline: &report.baseline,
            gates: &report.gates,
            slowest: &report.slowest,
            largest_rss: &report.largest_rss,
            lists: &report.lists,
            t3_sections: &report.t3_sections,
            t3_triage: &report.t3_triage,
            t3_unexplained: &report.t3_unexplained,
            t3_era_mismatch: &report.t3_era_mismatch,
            buckets: report
                .buckets
                .iter()
                .map(|b| BucketLink {
                    slug: &b.slug,
                    html: format!("{}.html", b.page),
                    json: format!("{}.json", b.page),
                    files: b.files,
                    status_counts: &b.status_counts,
                    changes: &b.changes,
                    same_as: &b.same_as,
                })
                .collect(),
        };
        let mut out = vec![Artifact { name: INDEX_JSON.into(), contents: to_json(INDEX_JSON, &index, true)? }];
        for b in report.buckets.iter().filter(|b| b.same_as.is_none()) {
            let name = format!("{}.json", b.page);
            let doc = BucketDoc {
                schema: report.schema,
                kind: "bucket",
                index: INDEX_JSON,
                slug: &b.slug,
                page: &b.page,
                files: b.files,
                status_counts: &b.status_counts,
                changes: &b.changes,
                entries: b.entries.iter().map(|e| EntryDoc::of(e, b)).collect(),
                same_as: &b.same_as,
                aliases: &b.aliases,
                t3_sections: &b.t3_sections,
                t3_triage: &b.t3_triage,
            };
            out.push(Artifact { contents: to_json(&name, &doc, false)?, name });
        }
        Ok(out)
    }
}
