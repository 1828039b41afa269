//! `junit.xml` for CI dashboards: one test case per file by default (a file with several
//! failing tiers is one failure listing every signature), one per bucket with
//! `--junit-per-bucket` (a bucket fails when any file in it did not pass or skip), plus one
//! test case per gate rule. Jenkins-flavoured JUnit, the shape nextest writes.

use super::escape::escape;
use super::model::{FileEntry, Report};
use super::{Artifact, Exporter, ReportError};
use std::collections::BTreeMap;
use std::fmt::Write;

/// Writes `junit.xml`.
pub struct JunitExporter {
    /// One case per file instead of per bucket.
    pub per_file: bool,
}

/// A test case before it is written.
struct Case {
    classname: String,
    name: String,
    seconds: f64,
    /// `("failure" | "error", type, message, body)` or `("skipped", …)`; `error` is a
    /// worker that reached no verdict (crash, timeout, oom, infra-error).
    outcome: Option<(&'static str, String, String, String)>,
}

fn is_failing(status: &str) -> bool {
    !matches!(status, "pass" | "skip")
}

fn file_body(e: &FileEntry) -> String {
    let mut body = String::new();
    if let Some(r) = &e.reason {
        let _ = writeln!(body, "reason: {r}");
    }
    if let Some(l) = &e.locator {
        let _ = writeln!(body, "locator: {l}");
    }
    for s in &e.signatures {
        let _ = writeln!(body, "signature: {s}");
    }
    if let Some(m) = &e.mismatch {
        let _ = writeln!(
            body,
            "expected @{:#x}: {}\nactual   @{:#x}: {}",
            m.window_start, m.expected_hex, m.window_start, m.actual_hex
        );
    }
    body
}

fn bucket_cases(report: &Report) -> Vec<Case> {
    report
        .buckets
        .iter()
        .map(|b| {
            let failing: Vec<&FileEntry> = b.entries.iter().filter(|e| is_failing(&e.status)).collect();
            let counts: Vec<String> =
                b.status_counts.iter().filter(|(_, n)| **n > 0).map(|(s, n)| format!("{n} {s}")).collect();
            let outcome = if !failing.is_empty() {
                let mut body = String::new();
                for e in &failing {
                    let _ = writeln!(
                        body,
                        "{} [{}] {}",
                        e.path,
                        e.status,
                        e.locator.as_deref().or(e.reason.as_deref()).unwrap_or("")
                    );
                }
                Some((
                    "failure",
                    "bucket".to_string(),
                    format!("{} of {} files did not pass ({})", failing.len(), b.files, counts.join(", ")),
                    body,
                ))
            } else if b.files > 0 && b.status_counts.get("skip") == Some(&b.files) {
                Some(("skipped", String::new(), format!("all {} files skipped", b.files), String::new()))
            } else {
                None
            };
            Case {
                classname: "pmfarm.bucket".into(),
                name: b.slug.clone(),
                seconds: b.entries.iter().map(|e| e.wall_ms).sum::<u64>() as f64 / 1000.0,
                outcome,
            }
        })
        .collect()
}

fn file_cases(report: &Report) -> Vec<Case> {
    let mut files: BTreeMap<&str, &FileEntry> = BTreeMap::new();
    for e in report.buckets.iter().flat_map(|b| b.entries.iter()) {
        files.entry(e.path.as_str()).or_insert(e);
    }
    files
        .values()
        .map(|e| {
            let outcome = if is_failing(&e.status) {
                let message = e.reason.clone().or_else(|| e.locator.clone()).unwrap_or_else(|| e.status.clone());
                let tag = if matches!(e.status.as_str(), "fail") { "failure" } else { "error" };
                Some((tag, e.status.clone(), message, file_body(e)))
            } else if e.status == "skip" {
                Some(("skipped", String::new(), e.reason.clone().unwrap_or_default(), String::new()))
            } else {
                None
            };
            Case {
                classname: format!("pmfarm.file.{}", e.max_version.as_deref().unwrap_or("none")),
                name: e.path.clone(),
                seconds: e.wall_ms as f64 / 1000.0,
                outcome,
            }
        })
        .collect()
}

fn gate_cases(report: &Report) -> Vec<Case> {
    report
        .gates
        .iter()
        .map(|g| Case {
            classname: "pmfarm.gate".into(),
            name: format!("{} [{} {} {}]", g.name, g.bucket, g.tier, g.metric),
            seconds: 0.0,
            outcome: (!g.passed).then(|| {
                (
                    "failure",
                    "gate".to_string(),
                    format!("{} = {} against threshold {}", g.metric, g.value, g.threshold),
                    g.detail.clone(),
                )
            }),
        })
        .collect()
}

fn write_suite(out: &mut String, name: &str, cases: &[Case]) {
    let failures = cases.iter().filter(|c| matches!(c.outcome, Some(("failure", ..)))).count();
    let errors = cases.iter().filter(|c| matches!(c.outcome, Some(("error", ..)))).count();
    let skipped = cases.iter().filter(|c| matches!(c.outcome, Some(("skipped", ..)))).count();
    let time: f64 = cases.iter().map(|c| c.seconds).sum();
    let _ = writeln!(
        out,
        r#"  <testsuite name="{}" tests="{}" failures="{failures}" errors="{errors}" skipped="{skipped}" time="{time:.3}">"#,
        escape(name),
        cases.len()
    );
    for c in cases {
        let _ = write!(
            out,
            r#"    <testcase classname="{}" name="{}" time="{:.3}""#,
            escape(&c.classname),
            escape(&c.name),
            c.seconds
        );
        match &c.outcome {
            None => out.push_str("/>\n"),
            Some(("skipped", _, message, _)) => {
                let _ = writeln!(out, ">\n      <skipped message=\"{}\"/>\n    </testcase>", escape(message));
            }
            Some((tag, kind, message, body)) => {
                let _ = writeln!(
                    out,
                    ">\n      <{tag} type=\"{}\" message=\"{}\">{}</{tag}>\n    </testcase>",
                    escape(kind),
                    escape(message),
                    escape(body)
                );
            }
        }
    }
    out.push_str("  </testsuite>\n");
}

impl Exporter for JunitExporter {
    fn name(&self) -> &'static str {
        "junit"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let (suite, cases) =
            if self.per_file { ("pmfarm.files", file_cases(report)) } else { ("pmfarm.buckets", bucket_cases(report)) };
        let gates = gate_cases(report);
        let all = cases.iter().chain(gates.iter());
        let tests = cases.len() + gates.len();
        let failures = all.clone().filter(|c| matches!(c.outcome, Some(("failure", ..)))).count();
        let errors = all.clone().filter(|c| matches!(c.outcome, Some(("error", ..)))).count();
        let skipped = all.filter(|c| matches!(c.outcome, Some(("skipped", ..)))).count();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = writeln!(
            out,
            r#"<testsuites name="pmfarm" tests="{tests}" failures="{failures}" errors="{errors}" skipped="{skipped}">"#
        );
        write_suite(&mut out, suite, &cases);
        write_suite(&mut out, "pmfarm.gates", &gates);
        out.push_str("</testsuites>\n");
        Ok(vec![Artifact { name: crate::run_files::JUNIT_XML.into(), contents: out }])
    }
}
