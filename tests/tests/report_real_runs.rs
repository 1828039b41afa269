//! Issue 15 on real runs: the built `pmfarm` checks the public corpus and the embedded
//! demo corpus and writes its report at the end; the report must agree with the run's
//! own `summary.json` / `results.jsonl`, validate against the documented schema, link
//! every bucket, stay under 20 MB, and show the baseline comparison of a second run.

mod report_support;

use serde_json::Value;
use std::path::Path;

/// The size bound for a report of the public and the demo corpus.
const MAX_REPORT_BYTES: u64 = 20 * 1024 * 1024;

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn pmfarm(args: &[&str]) -> std::process::Output {
    let out = pmtests::harness::Farm::new(args).output();
    assert!(
        out.status.code().is_some_and(|c| c == 0 || c == 1),
        "pmfarm {args:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Checks a rendered report against the run that produced it; returns its size in bytes.
fn check_report(out: &Path) -> u64 {
    let report = out.join(pmschema::files::REPORT);
    let summary = json(&out.join(pmschema::files::SUMMARY));
    let results: Vec<Value> = std::fs::read_to_string(out.join(pmschema::files::RESULTS))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let index = json(&report.join(pmschema::files::INDEX_JSON));
    assert_eq!(index["files"], results.len() as u64);
    assert_eq!(index["totals"], summary["status_counts"], "totals agree with summary.json");
    assert_eq!(index["gates"].as_array().unwrap().len(), summary["gates"].as_array().unwrap().len());
    assert_eq!(index["stamp"]["corpus_manifest_sha256"], summary["corpus_manifest_sha256"]);

    let buckets = summary["buckets"].as_object().unwrap();
    let listed = index["buckets"].as_array().unwrap();
    assert_eq!(listed.len(), buckets.len(), "every bucket of the run is in the report");
    for b in listed {
        let slug = b["slug"].as_str().unwrap();
        assert_eq!(b["files"], buckets[slug]["files"], "{slug}");
        assert_eq!(b["status_counts"], buckets[slug]["status_counts"], "{slug}");
        assert!(report.join(b["html"].as_str().unwrap()).is_file(), "{slug} page");
        let page = json(&report.join(b["json"].as_str().unwrap()));
        let shown = page["entries"].as_array().unwrap().len() as u64;
        assert_eq!(Some(shown), b["files"].as_u64(), "{slug}: every file on its page");
    }

    let lfs: Vec<&str> =
        results.iter().filter(|r| r["input"] == "lfs-pointer").map(|r| r["path"].as_str().unwrap()).collect();
    let listed_lfs: Vec<&str> =
        index["lists"]["lfs_pointer"].as_array().unwrap().iter().map(|r| r["path"].as_str().unwrap()).collect();
    assert_eq!(listed_lfs, lfs, "LFS-pointer list");

    let validator = jsonschema::validator_for(&report_support::documented_schema()).unwrap();
    let mut bytes = 0;
    for entry in std::fs::read_dir(&report).unwrap() {
        let path = entry.unwrap().path();
        bytes += std::fs::metadata(&path).unwrap().len();
        if path.extension().is_some_and(|e| e == "json") {
            let doc = json(&path);
            let errors: Vec<String> =
                validator.iter_errors(&doc).map(|e| format!("{e} at {}", e.instance_path)).collect();
            assert!(errors.is_empty(), "{}: {errors:#?}", path.display());
        }
    }
    let md = std::fs::read_to_string(report.join(pmschema::files::SUMMARY_MD)).unwrap();
    assert!(md.lines().count() <= 60);
    assert!(std::fs::read_to_string(report.join(pmschema::files::JUNIT_XML))
        .unwrap()
        .contains("<testsuites name=\"pmfarm\""));
    assert!(bytes < MAX_REPORT_BYTES, "report is {bytes} bytes");
    eprintln!("report of {}: {} files, {bytes} bytes", out.display(), std::fs::read_dir(&report).unwrap().count());
    bytes
}

#[test]
fn public_corpus_report_agrees_with_the_run_and_shows_the_baseline() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (first, second, baselines) =
        (tmp.path().join("first"), tmp.path().join("second"), tmp.path().join("baselines"));
    let s = |p: &Path| p.to_str().unwrap().to_string();
    pmfarm(&["run", &s(&corpus), "--out", &s(&first), "--baselines", &s(&baselines)]);
    check_report(&first);
    let index = json(&first.join(pmschema::files::REPORT).join(pmschema::files::INDEX_JSON));
    assert!(index["lists"]["lfs_pointer"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["path"] == "lfs_pointer__cp_fy_hof_species.max"));
    assert_eq!(index["baseline"], Value::Null);

    pmfarm(&["baseline", "save", &s(&first), "public", "--baselines", &s(&baselines)]);
    pmfarm(&["run", &s(&corpus), "--out", &s(&second), "--baselines", &s(&baselines), "--baseline", "public"]);
    check_report(&second);
    let index = json(&second.join(pmschema::files::REPORT).join(pmschema::files::INDEX_JSON));
    let files = index["files"].as_u64().unwrap();
    assert_eq!(index["baseline"]["name"], "public");
    assert_eq!(index["baseline"]["counts"]["same"], files, "an unchanged corpus is all `same`");
    assert!(
        index["baseline"]["source"].as_str().is_some_and(|p| p.ends_with("public.jsonl")),
        "read the baseline file"
    );
    assert!(std::fs::read_to_string(second.join(pmschema::files::REPORT).join(pmschema::files::SUMMARY_MD))
        .unwrap()
        .contains("**Since baseline `public`:**"));
}

#[test]
fn demo_corpus_report_agrees_with_the_run() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("demo");
    pmfarm(&["run", "--out", out.to_str().unwrap()]);
    check_report(&out);
    let index = json(&out.join(pmschema::files::REPORT).join(pmschema::files::INDEX_JSON));
    assert!(index["totals"]["fail"].as_u64().unwrap() >= 1, "the demo corpus holds a failing file");
    let failing =
        index["buckets"].as_array().unwrap().iter().find(|b| b["slug"] == "status-fail").expect("status-fail bucket");
    let page =
        std::fs::read_to_string(out.join(pmschema::files::REPORT).join(failing["html"].as_str().unwrap())).unwrap();
    assert!(page.contains("class=\"badge fail\""), "the failing file is on its bucket page");
}

/// Issue 27: at the Ryzom corpus's scale the report stays under 20 MB and its index page
/// under 1 MB. The run is the public corpus's own results copied 247 times (8,645 files,
/// each copy under its own folder, so every path is distinct), rendered by `pmfarm report`.
#[test]
fn report_of_an_8645_file_run_stays_under_20_mb() {
    if !pmtests::long_tests() {
        pmtests::notice("SKIP: report size at 8,645 files is a long test (set PMFARM_LONG_TESTS=1)");
        return;
    }
    let Some(corpus) = pmtests::public_corpus() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let (small, big) = (tmp.path().join("public"), tmp.path().join("x247"));
    pmfarm(&["run", corpus.to_str().unwrap(), "--out", small.to_str().unwrap()]);
    let lines: Vec<Value> = std::fs::read_to_string(small.join(pmschema::files::RESULTS))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    std::fs::create_dir_all(&big).unwrap();
    std::fs::copy(small.join(pmschema::files::SUMMARY), big.join(pmschema::files::SUMMARY)).unwrap();
    let mut copied = String::new();
    for copy in 0..247 {
        for line in &lines {
            let mut line = line.clone();
            line["path"] = Value::from(format!("copy-{copy:03}/{}", line["path"].as_str().unwrap()));
            copied.push_str(&line.to_string());
            copied.push('\n');
        }
    }
    std::fs::write(big.join(pmschema::files::RESULTS), copied).unwrap();
    pmfarm(&["report", big.to_str().unwrap()]);

    let report = big.join(pmschema::files::REPORT);
    let index = json(&report.join(pmschema::files::INDEX_JSON));
    assert_eq!(index["files"], (lines.len() * 247) as u64);
    let mut total = 0;
    for entry in std::fs::read_dir(&report).unwrap() {
        let entry = entry.unwrap();
        total += entry.metadata().unwrap().len();
    }
    let index_html = std::fs::metadata(report.join(pmschema::files::INDEX_HTML)).unwrap().len();
    pmtests::notice(&format!("report of {} files: {total} bytes, index.html {index_html} bytes", lines.len() * 247));
    assert!(total < 20_000_000, "report is {total} bytes (bound: 20 MB)");
    assert!(index_html < 1_000_000, "index.html is {index_html} bytes (bound: 1 MB)");
}
