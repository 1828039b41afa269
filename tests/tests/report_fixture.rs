//! Issue 15: the report rendered from a fixture run (written through the farm's own
//! types), checked format by format: counts, every dedicated list, the baseline diff,
//! internal links, JSON against the documented schema, JUnit and the Markdown cap.

mod report_support;

use pmfarm::report::{self, markdown, Exporter, ReportOptions};
use pmfarm::results::Status;
use report_support as fx;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn json(path: &Path) -> Value {
    serde_json::from_str(&read(path)).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn render(with_diff: bool, baseline: bool) -> (tempfile::TempDir, fx::Fixture, report::ReportIndex) {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = fx::write(tmp.path(), with_diff);
    let opts = ReportOptions {
        baseline: baseline.then(|| fixture.baseline.clone()),
        baselines_dir: None,
        junit_per_file: false,
        history: None,
    };
    let index = report::render(&fixture.out, &opts).expect("report renders");
    (tmp, fixture, index)
}

/// Values of `attr="…"` in `html`, with the five escapes undone.
fn attr_values(html: &str, attr: &str) -> Vec<String> {
    let needle = format!(" {attr}=\"");
    html.match_indices(&needle)
        .map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            let value = &rest[..rest.find('"').expect("closed attribute")];
            value
                .replace("&quot;", "\"")
                .replace("&#39;", "'")
                .replace("&lt;", "<")
                .replace("&gt;", ">")
                .replace("&amp;", "&")
        })
        .collect()
}

#[test]
fn writes_every_format_and_one_page_pair_per_distinct_bucket() {
    let (_tmp, fixture, index) = render(true, true);
    let slugs = fx::bucket_slugs(&fixture.results);
    assert_eq!(index.buckets, slugs.len());
    for name in [
        pmschema::files::INDEX_HTML,
        pmschema::files::INDEX_JSON,
        pmschema::files::JUNIT_XML,
        pmschema::files::SUMMARY_MD,
    ] {
        assert!(index.files.contains(&name.to_string()), "{name} missing from {:?}", index.files);
    }
    // Buckets with exactly the same files share a page.
    let file_sets: BTreeSet<Vec<&str>> = slugs
        .iter()
        .map(|s| fixture.results.iter().filter(|r| r.buckets.contains(s)).map(|r| r.path.as_str()).collect())
        .collect();
    assert!(file_sets.len() < slugs.len(), "the fixture has buckets that share a page");
    let html_pages = index.files.iter().filter(|f| f.starts_with("bucket-") && f.ends_with(".html")).count();
    let json_pages = index.files.iter().filter(|f| f.starts_with("bucket-") && f.ends_with(".json")).count();
    assert_eq!((html_pages, json_pages), (file_sets.len(), file_sets.len()));
    let on_disk: u64 = index.files.iter().map(|f| std::fs::metadata(index.dir.join(f)).unwrap().len()).sum();
    assert_eq!(on_disk, index.bytes);

    // Every bucket is reachable from the index and its page holds exactly its files.
    let index_doc = json(&index.dir.join(pmschema::files::INDEX_JSON));
    let listed = index_doc["buckets"].as_array().unwrap();
    assert_eq!(listed.len(), slugs.len());
    for b in listed {
        let slug = b["slug"].as_str().unwrap();
        let page = json(&index.dir.join(b["json"].as_str().unwrap()));
        assert!(index.dir.join(b["html"].as_str().unwrap()).is_file(), "{slug}");
        let expected: Vec<&str> =
            fixture.results.iter().filter(|r| r.buckets.iter().any(|x| x == slug)).map(|r| r.path.as_str()).collect();
        let shown: Vec<&str> =
            page["entries"].as_array().unwrap().iter().map(|e| e["path"].as_str().unwrap()).collect();
        assert_eq!(shown, expected, "{slug}: every file, none dropped, none extra");
        assert_eq!(b["files"], expected.len() as u64, "{slug}");
        match b["same_as"].as_str() {
            None => assert_eq!(page["slug"], slug),
            Some(owner) => {
                assert_eq!(page["slug"], owner);
                assert!(
                    page["aliases"].as_array().unwrap().iter().any(|a| a == slug),
                    "{slug} named on {owner}'s page"
                );
            }
        }
    }
    let version_page = read(&index.dir.join("bucket-max-2016.html"));
    assert!(version_page.contains("<title>Bucket max-2016 (same files as max-2016--t1)</title>"));
}

#[test]
fn index_counts_match_the_results() {
    let (_tmp, fixture, index) = render(true, true);
    let doc = json(&index.dir.join(pmschema::files::INDEX_JSON));
    assert_eq!(doc["files"], fixture.results.len() as u64);
    for status in Status::ALL {
        let expected = fixture.results.iter().filter(|r| r.status == status).count() as u64;
        assert_eq!(doc["totals"][status.name()], expected, "{status}");
    }
    assert_eq!(doc["totals"]["pass"], (fx::FILLER + 3) as u64);
    let rates: BTreeMap<(String, String), (u64, u64)> = doc["pass_rates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (r["max_version"].as_str().unwrap().into(), r["tier"].as_str().unwrap().into()),
                (r["passed"].as_u64().unwrap(), r["total"].as_u64().unwrap()),
            )
        })
        .collect();
    // 134 Max 2016 files, one with a T1 mismatch; on Max 9 the crash counts against every tier of the run.
    assert_eq!(rates[&("Max 2016".into(), "t1".into())], ((fx::FILLER + 3) as u64, (fx::FILLER + 4) as u64));
    assert_eq!(rates[&("Max 9".into(), "t1".into())], (1, 2));
    assert_eq!(rates[&("Max 9".into(), "t3".into())], (0, 2), "the ×1.2 skel T3 fails; the crash counts against it");
    assert_eq!(rates.len(), 3, "the skipped LFS pointer counts in no tier: {rates:?}");

    assert_eq!(doc["slowest"].as_array().unwrap().len(), 20);
    assert_eq!(doc["slowest"][0]["path"], fx::CRASHED);
    assert_eq!(doc["slowest"][0]["value"], 1500);
    assert_eq!(doc["largest_rss"][0]["path"], fx::CRASHED);
    assert_eq!(doc["gates"].as_array().unwrap().len(), 2);

    let html = read(&index.index_html());
    assert!(html.contains("<svg class=\"chart\""), "inline SVG chart");
    assert!(html.contains("Max 2016 t1: 133 of 134 passed (99.3%)"), "chart bars carry exact numbers");
    assert!(html.contains(r#"<table class="data" id="pass-rates""#), "and the same numbers as a table");
    assert!(html.contains("The 20 slowest files of 137 files"), "ranked tables say what they cut");
    assert!(html.contains("1 of 2 rules hold; 1 broken."));
    assert!(html.contains(&"ab".repeat(32)), "run stamp shows the corpus manifest hash");
    assert!(html.contains("memory_cap_bytes"), "run stamp shows the limits");
}

#[test]
fn every_dedicated_list_is_present_in_json_and_html() {
    let (_tmp, _fixture, index) = render(true, true);
    let doc = json(&index.dir.join(pmschema::files::INDEX_JSON));
    let lists = &doc["lists"];
    let mapext = lists["mapext"].as_array().unwrap();
    assert_eq!(mapext.len(), 2);
    assert_eq!(mapext[0]["path"], fx::RYZOM);
    assert_eq!(mapext[0]["node"], "Box01 <armor>");
    assert_eq!(mapext[0]["dll"], "mapext.dlm");
    assert_eq!(mapext[0]["class_name"], "Map Extender");
    assert_eq!(lists["flare"][0]["node"], "Flare_sun");
    assert_eq!(lists["flare"][0]["first_flare_keep_size"], "true");
    assert_eq!(lists["era_mismatch"].as_array().unwrap().len(), 1);
    assert_eq!(lists["era_mismatch"][0]["figure_era"], serde_json::json!([3]), "listed by the farm's scale rule");
    assert_eq!(lists["lfs_pointer"].as_array().unwrap().len(), 1);
    assert_eq!(lists["lfs_pointer"][0]["status"], "skip");
    let degraded = &lists["degraded_classes"][0];
    assert_eq!((degraded["name"].as_str(), degraded["class"].as_str()), (Some("VRayZDepth"), Some("0x1-0x2/0x1150")));
    assert_eq!((degraded["files"].as_u64(), degraded["objects"].as_u64()), (Some(1), Some(2)));
    assert_eq!(degraded["dll"], "vrender.dlr");
    assert_eq!(lists["typed_coverage"][0]["max_version"], "Max 2016");
    assert_eq!(lists["typed_coverage"][0]["mean"], 0.25);

    let html = read(&index.index_html());
    for (anchor, table, text) in [
        ("mapext", "mapext-table", "Box01 &lt;armor&gt;"),
        ("flare", "flare-table", "Flare_sun"),
        ("era-mismatch", "era-table", fx::RYZOM),
        ("lfs-pointer", "lfs-table", fx::LFS),
        ("degraded-classes", "degraded-table", "VRayZDepth"),
        ("typed-coverage", "coverage-table", "25.0%"),
    ] {
        let start = html.find(&format!("<h2 id=\"{anchor}\">")).unwrap_or_else(|| panic!("section #{anchor}"));
        let section = &html[start..];
        let section = &section[..section[4..].find("<h2 ").map_or(section.len(), |e| e + 4)];
        assert!(section.contains(&format!("id=\"{table}\"")), "#{anchor} has its table");
        assert!(section.contains(text), "#{anchor} lists {text}");
        assert!(html.contains(&format!("href=\"#{anchor}\"")), "#{anchor} is one click from the top");
    }
}

#[test]
fn bucket_pages_show_locator_hex_window_diff_and_t3_detail() {
    let (_tmp, _fixture, index) = render(true, true);
    let page = read(&index.dir.join("bucket-max-2016.html"));
    assert!(page.contains("t1 Scene Scene/0x2021/0x2034[3] @ 0x1a2"), "locator of the first mismatch");
    assert!(
        page.contains(r#"<span class="d at">0e</span>"#) && page.contains(r#"<span class="d at">0f</span>"#),
        "hex window marks the byte"
    );
    assert!(page.contains(r#"<span class="del">-t1:Scene = pass</span>"#), "similar diff, baseline side");
    assert!(page.contains(r#"<span class="add">+t1:Scene = fail</span>"#), "similar diff, this run");
    assert!(
        page.contains("+signature t1|Scene|-|0x2021/0x2034[*]|chunk-roundtrip"),
        "baseline file read: signatures compared"
    );
    assert!(page.contains(&format!("data-rows=\"{}\"", fx::FILLER + 4)), "every row is in the page");
    assert_eq!(page.matches("<tr id=\"f-").count(), fx::FILLER + 4, "no row dropped without JavaScript");
    let hidden_rows = page.split("<tr").skip(1).filter(|t| t[..t.find('>').unwrap()].contains("hidden")).count();
    assert_eq!(hidden_rows, 0, "with JavaScript off nothing is hidden: pagination is the script's job");
    assert!(page.contains("<html lang=\"en\" data-js=\"off\">"), "the sentinel starts off");

    // Other buckets of the same file link to its home page instead of repeating the details.
    let all = read(&index.dir.join("bucket-all.html"));
    assert!(all.contains(&format!(
        "t1 Scene Scene/0x2021/0x2034[3] @ 0x1a2 · <a href=\"bucket-max-2016.html#{}\">details on max-2016</a>",
        pmfarm::report::html::file_anchor(fx::REGRESSED)
    )));
    assert!(!all.contains("class=\"d at\""), "no hex window repeated on bucket-all");

    let bucket = json(&index.dir.join("bucket-max-2016.json"));
    let regressed = bucket["entries"].as_array().unwrap().iter().find(|e| e["path"] == fx::REGRESSED).unwrap();
    assert_eq!(regressed["diff_class"], "regressed");
    assert_eq!(regressed["mismatch"]["offset"], 0x1a2);

    let ryzom = read(&index.dir.join("bucket-max-9.html"));
    assert!(ryzom.contains("T3 skel"), "skel T3 block");
    assert!(ryzom.contains("<th>bones_paired</th><td>5</td>"), "field counters");
    assert!(ryzom.contains("<svg class=\"chart histogram\""), "ULP histogram as a chart");
    assert!(ryzom.contains("after t1 Scene 0x2021/0x0100; panic at pmcore/src/chunk/parse.rs:10:5"), "crash locator");
}

#[test]
fn without_the_baseline_file_the_diff_is_rebuilt_from_baseline_diff_json() {
    let (_tmp, _fixture, index) = render(true, false);
    let doc = json(&index.dir.join(pmschema::files::INDEX_JSON));
    // The fixture's baseline lives under <tmp>/baselines, not ./baselines, so it is not found.
    assert_eq!(doc["baseline"]["source"], Value::Null);
    assert_eq!(doc["baseline"]["counts"]["regressed"], 1);
    assert_eq!(doc["baseline"]["counts"]["removed"], 1);
    let classes: Vec<&str> =
        doc["baseline"]["changed"].as_array().unwrap().iter().map(|c| c["class"].as_str().unwrap()).collect();
    assert_eq!(classes, ["regressed", "fixed", "removed"], "regressions first");
    let bucket = json(&index.dir.join("bucket-max-2016.json"));
    let fixed = bucket["entries"].as_array().unwrap().iter().find(|e| e["path"] == fx::FIXED).unwrap();
    let diff = fixed["verdict_diff"].as_str().unwrap();
    assert!(diff.contains("-status = fail\n+status = pass\n"), "{diff}");
    assert!(!diff.contains("signature"), "signatures are not comparable without the baseline file: {diff}");
}

#[test]
fn a_run_without_baseline_says_so() {
    let (_tmp, _fixture, index) = render(false, false);
    let doc = json(&index.dir.join(pmschema::files::INDEX_JSON));
    assert_eq!(doc["baseline"], Value::Null);
    assert!(read(&index.index_html()).contains("was not compared with a baseline"));
    assert!(!read(&index.dir.join("bucket-all.html")).contains("data-key=\"baseline\""), "no empty baseline column");
}

#[test]
fn a_named_baseline_that_does_not_exist_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = fx::write(tmp.path(), true);
    let opts = ReportOptions {
        baseline: Some("no-such-baseline".into()),
        baselines_dir: None,
        junit_per_file: false,
        history: None,
    };
    let err = report::render(&fixture.out, &opts).unwrap_err().to_string();
    assert!(err.contains("no-such-baseline"), "{err}");
}

#[test]
fn every_internal_link_resolves_and_nothing_is_fetched() {
    let (_tmp, _fixture, index) = render(true, true);
    let mut ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let pages: Vec<String> = index.files.iter().filter(|f| f.ends_with(".html")).cloned().collect();
    for page in &pages {
        ids.insert(page.clone(), attr_values(&read(&index.dir.join(page)), "id").into_iter().collect());
    }
    let mut checked = 0;
    for page in &pages {
        let html = read(&index.dir.join(page));
        for raw in ["<script src", "<link ", "<img", "<iframe", "url(", "@import"] {
            assert!(!html.contains(raw), "{page} must not load anything ({raw})");
        }
        let without_svg_ns = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
        assert!(
            !without_svg_ns.contains("http://") && !without_svg_ns.contains("https://"),
            "{page} has no network URL"
        );
        for href in attr_values(&html, "href") {
            let (file, fragment) = match href.split_once('#') {
                Some((f, frag)) => (if f.is_empty() { page.as_str() } else { f }, Some(frag)),
                None => (href.as_str(), None),
            };
            assert!(!file.contains(':') && !file.contains('/'), "{page}: {href} stays inside the report folder");
            assert!(index.dir.join(file).is_file(), "{page}: {href} points at a missing file");
            if let Some(frag) = fragment {
                assert!(ids.get(file).is_some_and(|set| set.contains(frag)), "{page}: {href} has no target id");
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "links were actually checked: {checked}");
}

#[test]
fn run_provided_text_is_escaped_everywhere() {
    let (_tmp, _fixture, index) = render(true, true);
    for f in index.files.iter().filter(|f| !f.ends_with(".json")) {
        let text = read(&index.dir.join(f));
        assert!(!text.contains("<img src=x"), "{f} carries the hostile name unescaped");
        assert!(!text.contains("<b>not bold</b>"), "{f} carries the hostile reason unescaped");
    }
    let page = read(&index.dir.join("bucket-max-2016.html"));
    assert!(page.contains("evil/&lt;img src=x onerror=alert(1)&gt;&amp;&quot;&#39;.max"));
    let doc = json(&index.dir.join("bucket-max-2016.json"));
    assert!(doc["entries"].as_array().unwrap().iter().any(|e| e["path"] == fx::EVIL), "JSON keeps the name verbatim");
}

#[test]
fn json_documents_validate_against_the_documented_schema() {
    let schema = fx::documented_schema();
    let validator = jsonschema::validator_for(&schema).expect("the documented schema compiles");
    for (with_diff, baseline) in [(true, true), (true, false), (false, false)] {
        let (_tmp, _fixture, index) = render(with_diff, baseline);
        let mut checked = 0;
        for f in index.files.iter().filter(|f| f.ends_with(".json")) {
            let doc = json(&index.dir.join(f));
            let errors: Vec<String> =
                validator.iter_errors(&doc).map(|e| format!("{} at {}", e, e.instance_path)).collect();
            assert!(errors.is_empty(), "{f}: {errors:#?}");
            checked += 1;
        }
        assert!(checked >= 8, "{checked} documents");
    }
    // The schema is strict: an unknown field or a wrong status fails, so it cannot silently drift.
    let (_tmp, _fixture, index) = render(true, true);
    let mut doc = json(&index.dir.join(pmschema::files::INDEX_JSON));
    doc["surprise"] = Value::Bool(true);
    assert!(!validator.is_valid(&doc));
    let mut bucket = json(&index.dir.join("bucket-all.json"));
    bucket["entries"][0]["status"] = "passed".into();
    assert!(!validator.is_valid(&bucket));
}

#[test]
fn junit_has_one_case_per_bucket_or_per_file_plus_gates() {
    let (_tmp, fixture, index) = render(true, true);
    let slugs = fx::bucket_slugs(&fixture.results);
    let xml = read(&index.dir.join(pmschema::files::JUNIT_XML));
    assert!(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
    assert_eq!(xml.matches("<testcase ").count(), slugs.len() + 2);
    let failing_buckets = slugs
        .iter()
        .filter(|s| {
            fixture.results.iter().any(|r| r.buckets.contains(s) && !matches!(r.status, Status::Pass | Status::Skip))
        })
        .count();
    assert!(
        xml.contains(&format!(
            "<testsuites name=\"pmfarm\" tests=\"{}\" failures=\"{}\"",
            slugs.len() + 2,
            failing_buckets + 1
        )),
        "{xml}"
    );
    assert!(xml.contains("<testcase classname=\"pmfarm.bucket\" name=\"lfs-pointer\""), "an all-skip bucket");
    assert!(xml.contains("<skipped message=\"all 1 files skipped\"/>"));
    assert!(!xml.contains("<img"), "escaped");

    let tmp = tempfile::tempdir().unwrap();
    let fixture = fx::write(tmp.path(), true);
    let index = report::render(
        &fixture.out,
        &ReportOptions { baseline: None, baselines_dir: None, junit_per_file: true, history: None },
    )
    .unwrap();
    let xml = read(&index.dir.join(pmschema::files::JUNIT_XML));
    assert_eq!(xml.matches("<testcase ").count(), fixture.results.len() + 2);
    assert_eq!(xml.matches("<failure ").count(), 3, "the T1 failure, the skel T3 failure and the broken gate");
    assert_eq!(xml.matches("<error ").count(), 1, "the crash reached no verdict: a JUnit error");
    assert!(
        xml.contains(&format!("tests=\"{}\" failures=\"3\" errors=\"1\" skipped=\"1\"", fixture.results.len() + 2)),
        "{xml}"
    );
    assert!(xml.contains("locator: t1 Scene Scene/0x2021/0x2034[3] @ 0x1a2"));
    assert_eq!(xml.matches("<skipped ").count(), 1);
}

#[test]
fn markdown_summary_stays_within_sixty_lines_and_says_what_it_cut() {
    let (_tmp, fixture, index) = render(true, true);
    let md = read(&index.dir.join(pmschema::files::SUMMARY_MD));
    assert!(md.lines().count() <= markdown::MAX_LINES, "{md}");
    assert!(md.contains("## pmfarm report — 137 files"));
    assert!(md.contains("**Verdict:** ❌ gates broken — 1 cause:"), "{md}");
    assert!(md.contains("- `default/t1 (min_pass_rate)`: min\\_pass\\_rate = 0.9851 (threshold 1) on `all`"), "{md}");
    assert!(
        md.contains("regressed `scenes/broken_scene.max` (fail): pass → fail; t1:Scene pass → fail — t1 Scene: "),
        "{md}"
    );
    assert!(md.contains("MapExt 2 hits, flare 1, era-mismatch 1, LFS pointers 1, degraded classes 1"), "{md}");

    // Make every file fail: long sections are cut with an explicit count, and the whole stays ≤ 60 lines.
    let mut data = report::load(&fixture.out, &ReportOptions::default()).unwrap();
    for r in &mut data.results {
        r.status = Status::Fail;
    }
    let many = markdown::MarkdownExporter.export(&data.build()).unwrap().remove(0).contents;
    assert!(many.lines().count() <= markdown::MAX_LINES, "{many}");
    assert!(many.contains("**Files not passing:** 137."), "{many}");
    assert!(many.contains("… 127 more files in `report/index.html`."), "{many}");
}

#[test]
fn a_second_render_removes_bucket_pages_of_the_first() {
    let (_tmp, fixture, index) = render(true, true);
    let stale = index.dir.join("bucket-gone-since.html");
    std::fs::write(&stale, "old").unwrap();
    report::render(&fixture.out, &ReportOptions::default()).unwrap();
    assert!(!stale.exists());
    assert!(index.dir.join("bucket-all.html").is_file());
}
