//! The report's first screen in a real browser, on real runs: the demo corpus saved as a
//! baseline, then run again with three workers made to panic and one file corrupted. At
//! 1400×900 the first viewport of `index.html` must show the gate verdict and every
//! regressed file with its message (the panic text, the first mismatch). The screenshot is
//! left in `target/report-chromium/first-screen.png` (`docs/report-first-screen.png` is a
//! copy). Skips without `chromium` unless `PMFARM_REQUIRE_TOOLS=1`.

mod farm_support;
use farm_support::*;
use pmtests::browser::Browser;
use std::path::Path;

/// Files whose names carry this marker panic in the second run (the fault hook fires in
/// every worker whose path contains it).
const CRASH_MARK: &str = "crashes-";

/// `data-bottom` of the first element of `dom` whose opening tag contains `needle`.
fn bottom_of(dom: &str, needle: &str) -> Option<u32> {
    let at = dom.find(needle)?;
    let tag_start = dom[..at].rfind('<')?;
    let tag = &dom[tag_start..tag_start + dom[tag_start..].find('>')?];
    let key = "data-bottom=\"";
    let v = tag.find(key)? + key.len();
    tag[v..v + tag[v..].find('"')?].parse().ok()
}

/// Every `<tr …>` of the change table with its `data-bottom` and its text.
fn change_rows(dom: &str) -> Vec<(u32, String)> {
    let Some(start) = dom.find("id=\"changed\"") else { return Vec::new() };
    let table = &dom[start..start + dom[start..].find("</table>").unwrap()];
    let body = &table[table.find("<tbody>").unwrap()..];
    body.split("<tr")
        .skip(1)
        .map(|row| {
            let tag = &row[..row.find('>').unwrap()];
            let v = tag.find("data-bottom=\"").map(|i| i + "data-bottom=\"".len()).expect("probed row");
            let bottom = tag[v..v + tag[v..].find('"').unwrap()].parse().unwrap();
            (bottom, row.to_string())
        })
        .collect()
}

fn copy_corpus(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (i, e) in std::fs::read_dir(from).unwrap().map(|e| e.unwrap()).enumerate() {
        let name = e.file_name().to_string_lossy().into_owned();
        // Three OLE scenes get the crash marker in both runs, so the baseline knows them.
        let name = if ["max2010_box.max", "max2015_flare.max", "max9_box.max"].contains(&name.as_str()) {
            format!("{CRASH_MARK}{i}-{name}")
        } else {
            name
        };
        std::fs::copy(e.path(), to.join(name)).unwrap();
    }
}

#[test]
fn the_first_viewport_shows_the_verdict_and_every_regressed_file_with_its_message() {
    let Some(browser) = Browser::new() else { return };
    let t = tempfile::tempdir().unwrap();
    let demo = demo_corpus(t.path());
    let corpus = t.path().join("corpus");
    copy_corpus(&demo, &corpus);
    let gates = pmtests::workspace_root().join("gates");
    let baselines = t.path().join("baselines");

    let first = t.path().join("first");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&first), "--gates", s(&gates), "--no-report"]).output();
    assert_exit(&run, 0);
    assert_exit(&Farm::new(&["baseline", "save", s(&first), "night-1", "--baselines", s(&baselines)]).output(), 0);

    // Night 2: one file corrupted, three workers panic.
    std::fs::copy(demo.join("corrupt.max"), corpus.join(VICTIM)).unwrap();
    let second = t.path().join("second");
    let run = Farm::new(&["run", s(&corpus), "--out", s(&second), "--gates", s(&gates)])
        .args(["--baseline", "night-1", "--baselines", s(&baselines)])
        .fault("panic", CRASH_MARK)
        .output();
    assert_exit(&run, 1);
    let statuses = statuses(&second);
    assert_eq!(statuses.values().filter(|s| *s == "crash").count(), 3, "{statuses:?}");

    let index = second.join(pmschema::files::REPORT).join(pmschema::files::INDEX_HTML);
    // The screenshot first, so a failing layout check leaves the picture to look at.
    let shots = pmtests::workspace_root().join("target/report-chromium");
    std::fs::create_dir_all(&shots).unwrap();
    let png = shots.join("first-screen.png");
    let _ = std::fs::remove_file(&png);
    browser.command(
        &[format!("--screenshot={}", png.display()), "--window-size=1400,900".into()],
        &format!("file://{}", index.display()),
    );
    let bytes = std::fs::read(&png).expect("screenshot written");
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    eprintln!("first-screen screenshot: {}", png.display());
    let url = format!("file://{}?probe=layout", index.display());
    let page = browser.dump(&url, &["--window-size=1400,900"]);
    assert!(page.console.is_empty(), "console output {:#?}", page.console);
    let viewport = 900;

    let verdict = bottom_of(&page.dom, "class=\"verdict").expect("a probed verdict line");
    assert!(verdict <= viewport, "the gate verdict ends at {verdict} px, below the first screen");
    assert!(page.dom.contains("Gates broken"), "the verdict says the gates broke");

    let rows = change_rows(&page.dom);
    let regressed: Vec<&(u32, String)> = rows.iter().filter(|(_, r)| r.contains("badge regressed")).collect();
    assert_eq!(regressed.len(), 4, "three crashes and one corrupted file regressed: {rows:#?}");
    for (bottom, row) in &regressed {
        assert!(*bottom <= viewport, "a regressed row ends at {bottom} px, below the first screen: {row}");
        if row.contains(CRASH_MARK) {
            assert!(row.contains("panic: fault hook: injected panic"), "the panic text is shown: {row}");
            assert!(row.contains("worker crashed:"), "per-stream → absent lines are folded: {row}");
        } else {
            assert!(row.contains(VICTIM) && row.contains("class=\"message\">"), "{row}");
        }
    }
}
