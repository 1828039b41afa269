//! Issue 15 in a real browser: every page of a fixture report opened in headless
//! Chromium without console errors, a screenshot of the index, and the table script
//! driven the way a reader drives it (sort by a header, type into the filter, page on).
//!
//! Skips without `chromium` on PATH unless `PMFARM_REQUIRE_TOOLS=1`. The sort / filter /
//! page actions go through the page's test hook (`?table=…&sort=…&dir=…&filter=…&page=…`),
//! which calls the same functions as a click on the header and a keystroke in the box;
//! the DOM after the script ran is read back with `--dump-dom`. (Chromium cannot dump the
//! DOM with scripts disabled, so "every row readable with JavaScript off" is checked on the
//! HTML as written, in `report_fixture.rs`.)

mod report_support;

use pmfarm::report::{self, ReportOptions};
use report_support as fx;
use std::path::Path;

use pmtests::browser::Browser;

fn url(page: &Path, query: &str) -> String {
    format!("file://{}{query}", page.display())
}

fn rendered() -> (tempfile::TempDir, report::ReportIndex) {
    let tmp = tempfile::tempdir().unwrap();
    let fixture = fx::write(tmp.path(), true);
    let index = report::render(
        &fixture.out,
        &ReportOptions {
            baseline: Some(fixture.baseline.clone()),
            baselines_dir: None,
            junit_per_file: false,
            history: None,
        },
    )
    .unwrap();
    (tmp, index)
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"").replace("&#39;", "'").replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

/// `(path, visible)` of every file row of the `files` table, in DOM order.
fn file_rows(dom: &str) -> Vec<(String, bool)> {
    dom.split("<tr id=\"f-")
        .skip(1)
        .map(|chunk| {
            let tag = &chunk[..chunk.find('>').unwrap()];
            // The first cell is the path; its text is the path (a link's text when it links elsewhere).
            let open = chunk.find("<td").expect("a path cell");
            let cell = open + chunk[open..].find('>').unwrap() + 1;
            let html = &chunk[cell..cell + chunk[cell..].find("</td>").unwrap()];
            let text: String = html.split('<').map(|part| part.split_once('>').map_or(part, |(_, t)| t)).collect();
            let path = unescape(&text);
            (path, !tag.contains("hidden"))
        })
        .collect()
}

fn visible(rows: &[(String, bool)]) -> Vec<&str> {
    rows.iter().filter(|(_, v)| *v).map(|(p, _)| p.as_str()).collect()
}

/// The opening `<html …>` tag, where the script writes its sentinel.
fn html_tag(dom: &str) -> &str {
    let start = dom.find("<html").expect("an html element");
    &dom[start..start + dom[start..].find('>').unwrap()]
}

fn attr<'a>(dom: &'a str, table_id: &str, name: &str) -> &'a str {
    let start = dom.find(&format!("id=\"{table_id}\"")).unwrap_or_else(|| panic!("table {table_id}"));
    let tag_start = dom[..start].rfind("<table").unwrap();
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>').unwrap()];
    let key = format!("{name}=\"");
    let at = tag.find(&key).unwrap_or_else(|| panic!("{name} on {table_id}: {tag}")) + key.len();
    &tag[at..at + tag[at..].find('"').unwrap()]
}

#[test]
fn every_page_loads_without_console_errors_and_the_index_screenshot_is_saved() {
    let Some(browser) = Browser::new() else { return };
    let (_tmp, index) = rendered();
    let pages: Vec<&String> = index.files.iter().filter(|f| f.ends_with(".html")).collect();
    assert!(pages.len() >= 8, "index and bucket pages: {pages:?}");
    for page in &pages {
        let run = browser.dump(&url(&index.dir.join(page), ""), &[]);
        assert!(run.console.is_empty(), "{page}: console output {:#?}", run.console);
        let html_tag = html_tag(&run.dom);
        assert!(html_tag.contains("data-js=\"ready\""), "{page}: the script did not finish: {html_tag}");
        assert!(!html_tag.contains("data-js-errors"), "{page}: script error recorded: {html_tag}");
    }

    let shots = pmtests::workspace_root().join("target/report-chromium");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("index.png");
    let _ = std::fs::remove_file(&png);
    browser.command(
        &[format!("--screenshot={}", png.display()), "--window-size=1280,900".into()],
        &url(&index.index_html(), ""),
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(
        bytes.starts_with(b"\x89PNG\r\n\x1a\n") && bytes.len() > 10_000,
        "a real PNG of the page ({} bytes)",
        bytes.len()
    );
    eprintln!("index screenshot: {}", png.display());
}

#[test]
fn sorting_filtering_and_paging_change_rows_as_a_reader_expects() {
    let Some(browser) = Browser::new() else { return };
    let (_tmp, index) = rendered();
    let page = index.dir.join("bucket-max-2016.html");
    let total = fx::FILLER + 4;

    let initial = browser.dump(&url(&page, ""), &[]);
    let rows = file_rows(&initial.dom);
    assert_eq!(rows.len(), total);
    assert_eq!(visible(&rows).len(), 100, "first page of a long table");
    assert_eq!(visible(&rows)[0], "bulk/file_000.max");
    assert_eq!(attr(&initial.dom, "files", "data-visible-rows"), "100");
    assert!(initial.dom.contains(&format!("Rows 1–100 of {total} · page 1 of 2")), "the cut is stated");

    // Click on "File" twice: descending by path.
    let sorted = browser.dump(&url(&page, "?table=files&sort=path&dir=desc"), &[]);
    assert!(sorted.console.is_empty(), "{:#?}", sorted.console);
    let rows = file_rows(&sorted.dom);
    let mut expected: Vec<String> = rows.iter().map(|(p, _)| p.clone()).collect();
    expected.sort();
    expected.reverse();
    assert_eq!(rows.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>(), expected, "rows reordered by path, descending");
    assert_eq!(visible(&rows)[0], fx::DEGRADED, "scenes/vray_teapot.max sorts last by name");
    assert!(sorted.dom.contains("aria-sort=\"descending\""));

    // One click on "Wall ms": ascending by number, not by text (7 < 10 < 900).
    let by_wall = browser.dump(&url(&page, "?table=files&sort=wall"), &[]);
    let rows = file_rows(&by_wall.dom);
    assert_eq!(visible(&rows)[0], fx::FIXED, "7 ms is the smallest");
    assert_eq!(rows.last().unwrap().0, fx::REGRESSED, "900 ms is the largest");

    // Type "scenes" into the filter: three rows remain, all visible, no pagination.
    let filtered = browser.dump(&url(&page, "?table=files&filter=scenes"), &[]);
    let rows = file_rows(&filtered.dom);
    assert_eq!(visible(&rows), [fx::REGRESSED, fx::FIXED, fx::DEGRADED]);
    assert_eq!(attr(&filtered.dom, "files", "data-matching-rows"), "3");
    assert_eq!(attr(&filtered.dom, "files", "data-visible-rows"), "3");

    // Filter + sort + page 2 together.
    let paged = browser.dump(&url(&page, "?table=files&filter=bulk&sort=wall&dir=desc&page=2"), &[]);
    let rows = file_rows(&paged.dom);
    let shown = visible(&rows);
    assert_eq!(shown.len(), fx::FILLER - 100);
    assert_eq!(shown[0], format!("bulk/file_{:03}.max", fx::FILLER - 101), "page 2 continues the descending order");
    assert!(paged.dom.contains(&format!(
        "Rows 101–{} of {} matching ({total} in total) · page 2 of 2",
        fx::FILLER,
        fx::FILLER
    )));
}
