//! The T3 summary agreement table: per `summary/<section>` stream, how many files pass,
//! fail, are skipped as unsupported or lack the section, the rate over the files that carry
//! it, and the reason classes behind the fails and skips ranked by files affected (the
//! classes that stop the mesh evaluation for `summary/mesh-totals`, issue #25). The classes
//! come from the worker's verdict detail (`classes`), else from the skip reason or the
//! failure kind, so an older worker's results still rank.

use super::model::{SectionClass, SectionRow};
use crate::results::FileResult;
use pmschema::verdict::Verdict;
use pmworker::events::Tier;
use std::collections::{BTreeMap, BTreeSet};

/// Result streams of the summary exporter's T3 start with this.
pub const SUMMARY_PREFIX: &str = "summary/";
/// The skip reason (and class) of a section the file lacks.
pub const ABSENT_IN_FILE: &str = pmcore::export::summary::ABSENT_IN_FILE;

#[derive(Default)]
struct Tally {
    pass: u64,
    fail: u64,
    skip: u64,
    absent: u64,
    /// (verdict, class) → files, sorted.
    classes: BTreeMap<(String, String), BTreeSet<String>>,
}

fn classes_of(detail: Option<&serde_json::Value>) -> Vec<String> {
    detail
        .and_then(|d| d.get("classes"))
        .and_then(|c| c.as_array())
        .map(|a| a.iter().filter_map(|c| c.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

/// The table over `files`, keeping at most `max_classes` classes per section.
pub fn section_rows<'a>(files: impl IntoIterator<Item = &'a FileResult>, max_classes: usize) -> Vec<SectionRow> {
    let files: Vec<&FileResult> = files.into_iter().collect();
    let streams: BTreeSet<&str> = files
        .iter()
        .flat_map(|r| r.results.iter())
        .filter(|t| t.tier == Tier::T3 && t.stream.starts_with(SUMMARY_PREFIX))
        .map(|t| t.stream.as_str())
        .collect();
    let mut tallies: BTreeMap<&str, Tally> = streams.iter().map(|s| (*s, Tally::default())).collect();
    for r in &files {
        for (stream, tally) in tallies.iter_mut() {
            let result = r.results.iter().find(|t| t.tier == Tier::T3 && t.stream == *stream);
            let (verdict, classes) = match result.map(|t| (&t.verdict, t.detail.as_ref())) {
                None if r.status.is_abnormal() => {
                    // A worker that ended abnormally never reads as a pass or a skip.
                    tally.fail += 1;
                    ("fail", vec![format!("worker ended: {}", r.status.name())])
                }
                None => continue,
                Some((Verdict::Fail(m), detail)) => {
                    tally.fail += 1;
                    let c = classes_of(detail);
                    ("fail", if c.is_empty() { vec![m.kind.clone()] } else { c })
                }
                Some((Verdict::Skip { reason }, _)) if reason == ABSENT_IN_FILE => {
                    tally.absent += 1;
                    continue;
                }
                Some((Verdict::Skip { reason }, detail)) => {
                    tally.skip += 1;
                    let c = classes_of(detail);
                    ("skip", if c.is_empty() { vec![reason.clone()] } else { c })
                }
                Some(_) => {
                    tally.pass += 1;
                    continue;
                }
            };
            for class in classes {
                tally.classes.entry((verdict.to_string(), class)).or_default().insert(r.path.clone());
            }
        }
    }
    // Rows in Max's section order (objects, scene totals, …), unknown sections last.
    let order = |stream: &str| {
        let section = stream.trim_start_matches(SUMMARY_PREFIX);
        pmcore::export::summary::SECTIONS.iter().position(|s| *s == section).unwrap_or(usize::MAX)
    };
    let mut tallies: Vec<(&str, Tally)> = tallies.into_iter().collect();
    tallies.sort_by_key(|(stream, _)| (order(stream), stream.to_string()));
    tallies
        .into_iter()
        .map(|(stream, t)| {
            let carrying = t.pass + t.fail + t.skip;
            let mut classes: Vec<SectionClass> = t
                .classes
                .into_iter()
                .map(|((verdict, class), files)| SectionClass {
                    verdict,
                    class,
                    files: files.len() as u64,
                    example: files.into_iter().next().unwrap_or_default(),
                })
                .collect();
            classes.sort_by(|a, b| {
                b.files.cmp(&a.files).then_with(|| (&a.verdict, &a.class).cmp(&(&b.verdict, &b.class)))
            });
            let classes_total = classes.len() as u64;
            classes.truncate(max_classes);
            SectionRow {
                stream: stream.to_string(),
                pass: t.pass,
                fail: t.fail,
                skip: t.skip,
                absent: t.absent,
                rate: if carrying == 0 { 0.0 } else { t.pass as f64 / carrying as f64 },
                classes,
                classes_total,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Status;
    use pmschema::verdict::Mismatch;
    use pmworker::events::TierResult;
    use serde_json::json;

    fn t3(stream: &str, verdict: Verdict, detail: Option<serde_json::Value>) -> TierResult {
        TierResult { tier: Tier::T3, stream: stream.into(), verdict, detail, triage: None }
    }

    fn file(path: &str, status: Status, results: Vec<TierResult>) -> FileResult {
        FileResult { path: path.into(), status, results, ..Default::default() }
    }

    #[test]
    fn counts_rate_and_ranks_classes_by_files() {
        let skip = |r: &str| Verdict::Skip { reason: r.into() };
        let stopped = |c: &[&str]| Some(json!({ "classes": c }));
        let fail = Verdict::Fail(Mismatch { kind: "t3-summary-mesh-totals".into(), ..Default::default() });
        let files = vec![
            file("a.max", Status::Pass, vec![t3("summary/mesh-totals", Verdict::pass(), None)]),
            file(
                "b.max",
                Status::Pass,
                vec![t3("summary/mesh-totals", skip("unsupported: x"), stopped(&["Edit Poly", "Lathe"]))],
            ),
            file(
                "c.max",
                Status::Pass,
                vec![t3("summary/mesh-totals", skip("unsupported: x"), stopped(&["Edit Poly"]))],
            ),
            file("d.max", Status::Fail, vec![t3("summary/mesh-totals", fail, stopped(&["Vertices differ"]))]),
            file(
                "e.max",
                Status::Pass,
                vec![t3("summary/mesh-totals", skip(ABSENT_IN_FILE), stopped(&[ABSENT_IN_FILE]))],
            ),
            // Crashed before T3: a fail, never a pass or a skip.
            file("f.max", Status::Crash, vec![]),
            // Older worker: no classes in the detail, the skip reason is the class.
            file("g.max", Status::Pass, vec![t3("summary/mesh-totals", skip("unsupported: Biped"), None)]),
        ];
        let rows = section_rows(&files, 3);
        assert_eq!(rows.len(), 1);
        let row = &rows[0];
        assert_eq!((row.pass, row.fail, row.skip, row.absent), (1, 2, 3, 1));
        assert!((row.rate - 1.0 / 6.0).abs() < 1e-12, "pass ÷ files carrying the section");
        let ranked: Vec<(&str, &str, u64)> =
            row.classes.iter().map(|c| (c.verdict.as_str(), c.class.as_str(), c.files)).collect();
        assert_eq!(
            ranked,
            [("skip", "Edit Poly", 2), ("fail", "Vertices differ", 1), ("fail", "worker ended: crash", 1)],
            "most files first, then by verdict and name; cut at 3"
        );
        assert_eq!(row.classes_total, 5, "Lathe and Biped were cut, and the count says so");
        assert_eq!(row.classes[0].example, "b.max");
    }

    #[test]
    fn rows_follow_maxs_section_order() {
        let files = vec![file(
            "a.max",
            Status::Pass,
            ["summary/render", "summary/objects", "summary/zz-new", "summary/materials"]
                .iter()
                .map(|s| t3(s, Verdict::pass(), None))
                .collect(),
        )];
        let streams: Vec<String> = section_rows(&files, 3).into_iter().map(|r| r.stream).collect();
        assert_eq!(streams, ["summary/objects", "summary/materials", "summary/render", "summary/zz-new"]);
    }

    #[test]
    fn runs_without_summary_results_have_no_rows() {
        let files = vec![file("a.max", Status::Crash, vec![]), file("b.max", Status::Pass, vec![])];
        assert!(section_rows(&files, 10).is_empty());
    }
}
