//! Issue 24 (and 25's ranking of the classes behind the misses): a farm run over three real
//! files writes one T3 summary agreement table — per `summary/<section>` pass / fail /
//! skip / absent, the rate over the files carrying the section, the classes behind fails
//! and skips ranked by files — into `index.json`, each bucket document and the HTML
//! index. The files are linked (not copied) into a temporary corpus; the shared folder
//! stays read-only.

mod report_support;

use report_support as fx;
use serde_json::Value;
use std::path::Path;

/// Three public files whose summary verdicts are known (docs/exporters.md): Max 3 without
/// Render Data and without an asset table; Max 2010 with an empty asset table; Max 2017 whose
/// dependency `UV_Checker.png` is in use by an Unwrap UVW.
const FILES: [&str; 3] = ["dakahler__room.max", "dimapetrinko__lection_1.max", "splitzy__bed.max"];

fn json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn row<'a>(rows: &'a Value, stream: &str) -> &'a Value {
    rows.as_array().unwrap().iter().find(|r| r["stream"] == stream).unwrap_or_else(|| panic!("{stream} row"))
}

fn counts(r: &Value) -> [u64; 4] {
    ["pass", "fail", "skip", "absent"].map(|k| r[k].as_u64().unwrap())
}

#[test]
fn the_report_carries_one_t3_summary_table_with_ranked_classes() {
    let Some(public) = pmtests::public_corpus() else { return };
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    for f in FILES {
        std::os::unix::fs::symlink(public.join(f), corpus.join(f)).unwrap();
    }
    let out = dir.path().join("out");
    let run =
        pmtests::harness::Farm::new(&["run", &corpus.to_string_lossy(), "--out", &out.to_string_lossy()]).output();
    assert!(run.status.code().is_some_and(|c| c <= 1), "{}", String::from_utf8_lossy(&run.stderr));

    let index = json(&out.join(pmschema::files::REPORT).join(pmschema::files::INDEX_JSON));
    let rows = &index["t3_sections"];
    let streams: Vec<&str> = rows.as_array().unwrap().iter().map(|r| r["stream"].as_str().unwrap()).collect();
    assert_eq!(streams.len(), 7, "{streams:?}");
    for r in rows.as_array().unwrap() {
        let [p, f, s, a] = counts(r);
        assert_eq!(p + f + s + a, 3, "every file has one verdict per section: {r}");
        let carrying = (p + f + s) as f64;
        let rate = r["rate"].as_f64().unwrap();
        assert!((rate - if carrying == 0.0 { 0.0 } else { p as f64 / carrying }).abs() < 1e-12, "{r}");
        let listed: u64 = r["classes"].as_array().unwrap().iter().map(|c| c["files"].as_u64().unwrap()).sum();
        assert!(listed >= f + s, "every fail and skip has a class: {r}");
    }
    // Known verdicts: all three list the materials Max lists; room has no asset table
    // (unsupported, its class named) and no Render Data (absent, not counted in the rate).
    assert_eq!(counts(row(rows, "summary/materials")), [3, 0, 0, 0]);
    let deps = row(rows, "summary/dependencies");
    assert_eq!(counts(deps), [2, 0, 1, 0]);
    assert_eq!(deps["classes"][0]["class"], "no asset table (Max 2009 and older)");
    assert_eq!(deps["classes"][0]["verdict"], "skip");
    assert!(deps["classes"][0]["example"].as_str().unwrap().ends_with("dakahler__room.max"));
    let render = row(rows, "summary/render");
    assert_eq!(counts(render)[3], 1, "room has no Render Data: {render}");
    assert!((render["rate"].as_f64().unwrap() - 1.0).abs() < 1e-12, "an absent section does not lower the rate");

    // Each bucket document carries the table over its own files.
    let all = index["buckets"].as_array().unwrap().iter().find(|b| b["slug"] == "all").expect("bucket all");
    let bucket = json(&out.join(pmschema::files::REPORT).join(all["json"].as_str().unwrap()));
    assert_eq!(counts(row(&bucket["t3_sections"], "summary/dependencies")), [2, 0, 1, 0]);

    // Both documents, with real rows, follow the documented schema.
    let schema = fx::documented_schema();
    let validator = jsonschema::validator_for(&schema).expect("the documented schema compiles");
    for doc in [&index, &bucket] {
        let errors: Vec<String> = validator.iter_errors(doc).map(|e| format!("{e} at {}", e.instance_path)).collect();
        assert!(errors.is_empty(), "{errors:#?}");
    }

    // One table on the HTML index, none per file.
    let html = std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::INDEX_HTML)).unwrap();
    assert_eq!(html.matches(r#"id="t3-summary-table""#).count(), 1);
    assert!(html.contains(r#"<tr id="t3-summary-dependencies">"#), "row per section");
    assert!(html.contains("skip no asset table (Max 2009 and older) (1)"), "classes with their file counts");
    let md = std::fs::read_to_string(out.join(pmschema::files::REPORT).join(pmschema::files::SUMMARY_MD)).unwrap();
    assert!(md.contains("**T3 summary**") && md.contains("dependencies 2/3 (66.7%"), "{md}");
}
