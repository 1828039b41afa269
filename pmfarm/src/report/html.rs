//! The static HTML site: `index.html` and one `bucket-<page>.html` per bucket. Every page
//! is self-contained (template, CSS and script from `reports/` are compiled in and inlined;
//! a Content-Security-Policy forbids any fetch), so it opens from a CI artifact over
//! `file://`. Tables are plain `<table class="data">`: readable with JavaScript off, and
//! sortable / filterable / paginated by `reports/report.js` when it runs.

use super::escape::escape;
use super::model::*;
use super::svg;
use super::{Artifact, Exporter, ReportError};
use crate::results::GateOutcome;
use crate::run_files::{INDEX_HTML, INDEX_JSON, JUNIT_XML, SUMMARY_MD};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::fmt::Write;

const TEMPLATE: &str = include_str!("../../../reports/page.html");
const CSS: &str = include_str!("../../../reports/report.css");
const JS: &str = include_str!("../../../reports/report.js");

/// Rows per page of a paginated table (the script shows the rest on later pages).
pub const PAGE_SIZE: usize = 100;

/// Writes the HTML pages.
pub struct HtmlExporter;

/// Fills `{{name}}` placeholders of the template in one pass, so text inserted for one
/// placeholder is never scanned for another.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len() + values.iter().map(|(_, v)| v.len()).sum::<usize>());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        match after.find("}}").and_then(|end| values.iter().find(|(k, _)| *k == &after[..end]).map(|(_, v)| (end, v))) {
            Some((end, value)) => {
                out.push_str(value);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Stable, URL-safe anchor of a file on a bucket page.
pub fn file_anchor(path: &str) -> String {
    let digest = Sha256::digest(path.as_bytes());
    format!("f-{}", digest.iter().take(6).map(|b| format!("{b:02x}")).collect::<String>())
}

/// Percent-encodes a file name for an `href` (the stems are ASCII-safe already; this keeps
/// the rule in one place).
fn href(name: &str) -> String {
    name.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'#' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn badge(word: &str) -> String {
    format!(r#"<span class="badge {}">{}</span>"#, escape(word), escape(word))
}

fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["B", "KiB", "MiB", "GiB"];
    let mut v = n as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit < UNITS.len() - 1 {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// A worker that died before its `end` event reported no peak RSS: say so rather than
/// showing `0 B`.
fn rss_shown(n: u64) -> String {
    if n == 0 {
        "not measured".to_string()
    } else {
        human_bytes(n)
    }
}

/// One cell: its HTML, an optional sort key, and whether it is numeric (right-aligned).
struct Cell {
    html: String,
    sort: Option<String>,
    class: &'static str,
}

impl Cell {
    fn text(t: &str) -> Cell {
        Cell { html: escape(t), sort: None, class: "" }
    }
    fn html(h: String) -> Cell {
        Cell { html: h, sort: None, class: "" }
    }
    fn num(n: u64) -> Cell {
        Cell { html: n.to_string(), sort: None, class: "num" }
    }
    fn num_shown(n: f64, shown: String) -> Cell {
        Cell { html: escape(&shown), sort: Some(format!("{n}")), class: "num" }
    }
    fn path(p: &str, link: Option<String>) -> Cell {
        let html = match link {
            Some(l) => format!(r#"<a href="{}">{}</a>"#, escape(&l), escape(p)),
            None => escape(p),
        };
        // No sort key: the script sorts by the cell's text, which is the path.
        Cell { html, sort: None, class: "path" }
    }
}

/// A column: sort key, label, `num` or `text`.
type Column<'a> = (&'a str, &'a str, &'a str);

/// The declarations `report.css` gives `td.num` / `td.path`, for a whole column.
fn column_style(class: &str) -> &'static str {
    match class {
        "num" => "text-align:right;font-variant-numeric:tabular-nums",
        "path" => "overflow-wrap:anywhere;min-width:14rem",
        _ => "",
    }
}

/// A table id usable in a CSS selector (ids are ASCII words here; anything else is escaped).
fn css_ident(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c.to_string()
            } else {
                format!("\\{:x} ", c as u32)
            }
        })
        .collect()
}

/// A sortable, filterable data table; its caption always states the row count.
fn table(out: &mut String, id: &str, caption: &str, columns: &[Column], rows: Vec<(Option<String>, Vec<Cell>)>) {
    // Alignment and wrapping go by column, in one rule per table, instead of a class on
    // every cell: a large run's bucket pages hold tens of thousands of rows.
    let styled: Vec<(usize, &str)> = rows
        .first()
        .map(|(_, cells)| {
            cells.iter().enumerate().filter(|(_, c)| !c.class.is_empty()).map(|(i, c)| (i + 1, c.class)).collect()
        })
        .unwrap_or_default();
    if !styled.is_empty() {
        let rules: Vec<String> = styled
            .iter()
            .map(|(n, class)| format!("#{} td:nth-child({n}){{{}}}", css_ident(id), column_style(class)))
            .collect();
        let _ = write!(out, "<style>{}</style>", rules.join(""));
    }
    let _ = write!(
        out,
        r#"<table class="data" id="{}" data-page-size="{PAGE_SIZE}" data-rows="{}"><caption>{} ({} rows)</caption><thead><tr>"#,
        escape(id),
        rows.len(),
        escape(caption),
        rows.len()
    );
    for (key, label, kind) in columns {
        let class = if *kind == "num" { r#" class="num""# } else { "" };
        let _ =
            write!(out, r#"<th data-key="{}" data-type="{}"{class}>{}</th>"#, escape(key), escape(kind), escape(label));
    }
    out.push_str("</tr></thead><tbody>\n");
    for (row_id, cells) in rows {
        match row_id {
            Some(rid) => {
                let _ = write!(out, r#"<tr id="{}">"#, escape(&rid));
            }
            None => out.push_str("<tr>"),
        }
        for (i, c) in cells.into_iter().enumerate() {
            out.push_str("<td");
            if !c.class.is_empty() && !styled.contains(&(i + 1, c.class)) {
                let _ = write!(out, r#" class="{}""#, c.class);
            }
            // An empty key sorts like the empty text the cell shows.
            if let Some(s) = c.sort.as_ref().filter(|s| !s.is_empty() || !c.html.is_empty()) {
                let _ = write!(out, r#" data-sort="{}""#, escape(s));
            }
            let _ = write!(out, ">{}</td>", c.html);
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table>\n");
}

/// A list section: heading with anchor, a short note, then the table or an explicit "none".
fn section(out: &mut String, id: &str, title: &str, note: &str) {
    let _ = write!(out, r#"<h2 id="{}">{}</h2>"#, escape(id), escape(title));
    if !note.is_empty() {
        let _ = write!(out, "<p>{}</p>", escape(note));
    }
}

/// Trend charts of the newest runs of the history file (`--history`).
fn history_section(b: &mut String, history: &[crate::history::HistoryEntry]) {
    if history.is_empty() {
        section(b, "history", "History", "");
        b.push_str(r#"<p class="empty">No history file: run with <code>--history FILE</code> to keep one line of headline numbers per night and see trends here.</p>"#);
        return;
    }
    section(
        b,
        "history",
        &format!("History: the last {} run(s)", history.len()),
        "One point per run, oldest left; hover a point for its date and value.",
    );
    let pct = |v: f64| format!("{:.1}%", v * 100.0);
    let secs = |v: f64| format!("{:.1} s", v / 1000.0);
    let count = |v: f64| format!("{v:.0}");
    let series = |f: &dyn Fn(&crate::history::HistoryEntry) -> Option<f64>| -> Vec<svg::TrendPoint> {
        history.iter().map(|e| svg::TrendPoint { label: e.date.clone(), value: f(e) }).collect()
    };
    b.push_str(r#"<div class="trends">"#);
    b.push_str(&svg::trend_chart("trend-pass-rate", "Pass rate", &series(&|e| Some(e.pass_rate)), &pct));
    b.push_str(&svg::trend_chart("trend-typed-coverage", "T2 typed coverage", &series(&|e| e.typed_coverage), &pct));
    b.push_str(&svg::trend_chart(
        "trend-t3-summary",
        "T3 summary agreement",
        &series(&|e| e.t3_summary_agreement),
        &pct,
    ));
    b.push_str(&svg::trend_chart(
        "trend-regressions",
        "Regressions",
        &series(&|e| e.regressions.map(|n| n as f64)),
        &count,
    ));
    b.push_str(&svg::trend_chart("trend-wall", "Sweep wall time", &series(&|e| Some(e.wall_ms as f64)), &secs));
    b.push_str(&svg::trend_chart("trend-files", "Files", &series(&|e| Some(e.files as f64)), &count));
    b.push_str("</div>\n");
}

fn none(out: &mut String, what: &str) {
    let _ = write!(out, r#"<p class="empty">None in this run: 0 {}.</p>"#, escape(what));
}

/// Where each bucket's page is, and the page a file is best shown on.
struct Pages<'a> {
    by_slug: BTreeMap<&'a str, &'a str>,
}

impl<'a> Pages<'a> {
    fn new(report: &'a Report) -> Self {
        Pages { by_slug: report.buckets.iter().map(|b| (b.slug.as_str(), b.page.as_str())).collect() }
    }

    fn bucket(&self, slug: &str) -> Option<String> {
        self.by_slug.get(slug).map(|p| format!("{p}.html"))
    }

    fn file(&self, slug: &str, path: &str) -> Option<String> {
        self.bucket(slug).map(|page| format!("{page}#{}", file_anchor(path)))
    }

    /// Link to a file on its version bucket (or `all`, or the first bucket that has it).
    fn file_home(&self, buckets: &[String], path: &str) -> Option<String> {
        let home = buckets
            .iter()
            .find(|b| b.starts_with("max-") && !b.contains("--"))
            .or_else(|| buckets.iter().find(|b| *b == "all"))
            .or_else(|| buckets.first())?;
        self.file(home, path)
    }

    fn bucket_link(&self, slug: &str) -> String {
        match self.bucket(slug) {
            Some(page) => format!(r#"<a href="{}">{}</a>"#, escape(&href(&page)), escape(slug)),
            None => escape(slug),
        }
    }
}

fn page(title: &str, nav: &str, body: &str, report: &Report) -> String {
    let footer = format!(
        "Rendered by {} from results of {} (results schema {}, report schema {}). Self-contained: no network access.",
        escape(&report.stamp.report_tool),
        escape(&report.stamp.tool),
        report.stamp.results_schema,
        report.schema
    );
    fill(
        TEMPLATE,
        &[
            ("generator", &escape(&report.stamp.report_tool)),
            ("title", &escape(title)),
            ("css", CSS),
            ("nav", nav),
            ("body", body),
            ("footer", &footer),
            ("js", JS),
        ],
    )
}

const INDEX_SECTIONS: [(&str, &str); 22] = [
    ("stamp", "Run"),
    ("verdict", "Verdict"),
    ("t3-unexplained", "Unexplained T3"),
    ("baseline", "Changes"),
    ("totals", "Totals"),
    ("pass-rate", "Pass rate"),
    ("history", "History"),
    ("gates", "Gates"),
    ("t3-summary", "T3 summary"),
    ("t3-triage", "T3 triage"),
    ("slowest", "Slowest"),
    ("rss", "Peak RSS"),
    ("buckets", "Buckets"),
    ("mapext", "MapExt assets"),
    ("flare", "Flares"),
    ("era-mismatch", "Era mismatch"),
    ("lfs-pointer", "LFS pointers"),
    ("degraded-classes", "Degraded classes"),
    ("typed-coverage", "Typed coverage"),
    ("index-json", "JSON"),
    ("junit", "JUnit"),
    ("summary-md", "Markdown"),
];

fn index_nav() -> String {
    INDEX_SECTIONS
        .iter()
        .map(|(id, label)| match *id {
            "index-json" => format!(r#"<a href="{INDEX_JSON}">{INDEX_JSON}</a>"#),
            "junit" => format!(r#"<a href="{JUNIT_XML}">{JUNIT_XML}</a>"#),
            "summary-md" => format!(r#"<a href="{SUMMARY_MD}">{SUMMARY_MD}</a>"#),
            _ => format!(r##"<a href="#{id}">{label}</a>"##),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn json_pre(v: &serde_json::Value) -> String {
    format!("<pre>{}</pre>", escape(&serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())))
}

/// One-line JSON for the run stamp, so the stamp stays a few lines tall.
fn json_inline(v: &serde_json::Value) -> String {
    format!("<code>{}</code>", escape(&v.to_string()))
}

/// The run in one sentence: files, bytes, corpus, duration, when, tool, baseline.
fn stamp_sentence(r: &Report) -> String {
    let timing = &r.stamp.timing;
    let bytes = timing.get("bytes").and_then(|v| v.as_u64()).unwrap_or(0);
    let wall = timing.get("wall_ms").and_then(|v| v.as_u64()).map(|ms| format!("{:.1} s", ms as f64 / 1000.0));
    let finished = timing.get("finished").and_then(|v| v.as_str());
    let baseline = match &r.baseline {
        Some(base) => format!("compared with baseline <code>{}</code>", escape(&base.name)),
        None => "not compared with a baseline".to_string(),
    };
    format!(
        "{} files ({}) under <code>{}</code>{}{}, checked by {}; {baseline}.",
        r.files,
        human_bytes(bytes),
        escape(&r.stamp.corpus_root),
        wall.map(|w| format!(" in {w}")).unwrap_or_default(),
        finished.map(|f| format!(", finished {}", escape(f))).unwrap_or_default(),
        escape(&r.stamp.tool),
    )
}

/// How many file names a cause line shows before "and N more".
const CAUSE_FILES: usize = 4;

fn verdict_section(b: &mut String, pages: &Pages, r: &Report) {
    section(b, "verdict", "Verdict", "");
    let broken: Vec<&GateOutcome> = r.gates.iter().filter(|g| !g.passed).collect();
    if r.gates.is_empty() {
        b.push_str(r#"<p class="verdict none"><strong>No gate rule was evaluated.</strong> This run checks nothing by itself.</p>"#);
    } else if broken.is_empty() {
        let _ = write!(b, r#"<p class="verdict held">{} Gates held: all {} rules.</p>"#, badge("held"), r.gates.len());
    } else {
        let mut rules: Vec<&str> = broken.iter().map(|g| g.name.as_str()).collect();
        rules.dedup();
        let _ = write!(
            b,
            r#"<p class="verdict broken">{} Gates broken: {} of {} rules ({}).</p>"#,
            badge("broken"),
            broken.len(),
            r.gates.len(),
            escape(&rules.join(", "))
        );
    }
    if !r.causes.is_empty() {
        let _ = write!(
            b,
            r#"<p class="causes-head">{} cause{} of files not passing:</p><ul class="causes">"#,
            r.causes.len(),
            if r.causes.len() == 1 { "" } else { "s" }
        );
        for c in &r.causes {
            let shown: Vec<String> = c
                .files
                .iter()
                .zip(&c.homes)
                .take(CAUSE_FILES)
                .map(|(f, home)| match pages.file(home, f) {
                    Some(link) => format!(r#"<a href="{}">{}</a>"#, escape(&link), escape(f)),
                    None => escape(f),
                })
                .collect();
            let more = c.files.len().saturating_sub(CAUSE_FILES);
            let _ = write!(
                b,
                "<li>{} <strong>{} file{}</strong>{}: <span class=\"message\">{}</span> — {}{}</li>",
                badge(&c.status),
                c.files.len(),
                if c.files.len() == 1 { "" } else { "s" },
                if c.regressed > 0 { format!(" ({} regressed)", c.regressed) } else { String::new() },
                escape(&c.what),
                shown.join(", "),
                if more > 0 { format!(" and {more} more") } else { String::new() }
            );
        }
        b.push_str("</ul>");
    }
}

fn changes_section(b: &mut String, pages: &Pages, r: &Report) {
    section(b, "baseline", "What changed since the baseline", "");
    let Some(base) = &r.baseline else {
        b.push_str(r#"<p class="empty">This run was not compared with a baseline (run with <code>--baseline NAME</code>).</p>"#);
        return;
    };
    let counts: Vec<String> = base.counts.iter().map(|(c, n)| format!("{} {n}", badge(c))).collect();
    let _ = write!(
        b,
        r#"<p>Baseline <code>{}</code>{}: {}</p>"#,
        escape(&base.name),
        base.source.as_ref().map(|s| format!(" (read from <code>{}</code>)", escape(s))).unwrap_or_default(),
        counts.join(" · ")
    );
    if base.changed.is_empty() {
        none(b, "changed files");
        return;
    }
    let rows = base
        .changed
        .iter()
        .map(|c| {
            (
                None,
                vec![
                    Cell { html: badge(c.class.name()), sort: Some(c.class.name().into()), class: "" },
                    Cell::path(&c.path, pages.file_home(&c.buckets, &c.path)),
                    Cell { html: badge(&c.status), sort: Some(c.status.clone()), class: "" },
                    Cell::html(c.summary.iter().map(|l| escape(l)).collect::<Vec<_>>().join("<br>")),
                    Cell::text(c.locator.as_deref().unwrap_or("")),
                    Cell::html(format!(
                        r#"<span class="message">{}</span>"#,
                        escape(c.message.as_deref().unwrap_or(""))
                    )),
                ],
            )
        })
        .collect();
    table(
        b,
        "changed",
        "Files whose result changed, regressions first",
        &[
            ("class", "Change", "text"),
            ("path", "File", "text"),
            ("status", "Now", "text"),
            ("what", "What changed", "text"),
            ("where", "Where", "text"),
            ("message", "Message", "text"),
        ],
        rows,
    );
}

fn index_page(r: &Report) -> String {
    let pages = Pages::new(r);
    let mut b = String::new();

    // First screen: what ran, whether the gates held (one line per cause), and what
    // changed since the baseline with the message behind each change.
    section(&mut b, "stamp", "Run", "");
    let _ = write!(b, r#"<p class="stamp-line">{}</p>"#, stamp_sentence(r));
    let _ = write!(
        b,
        r#"<details class="stamp"><summary>Options, limits and corpus hash</summary><dl class="stamp"><dt>Tool</dt><dd>{}</dd><dt>Report</dt><dd>{}</dd><dt>Results schema</dt><dd>{}</dd><dt>Corpus root</dt><dd><code>{}</code></dd><dt>Corpus manifest SHA-256</dt><dd><code>{}</code></dd><dt>Files</dt><dd>{}</dd><dt>Options</dt><dd>{}</dd><dt>Limits</dt><dd>{}</dd><dt>Run timing</dt><dd>{}</dd></dl></details>"#,
        escape(&r.stamp.tool),
        escape(&r.stamp.report_tool),
        r.stamp.results_schema,
        escape(&r.stamp.corpus_root),
        escape(&r.stamp.corpus_manifest_sha256),
        r.files,
        json_inline(&r.stamp.options),
        json_inline(&r.stamp.limits),
        json_inline(&r.stamp.timing),
    );

    verdict_section(&mut b, &pages, r);
    t3_unexplained_section(&mut b, &pages, r);
    changes_section(&mut b, &pages, r);

    section(&mut b, "totals", "Totals per status", "Every enumerated file has exactly one status.");
    b.push_str(r#"<div class="cards" id="totals-cards">"#);
    for (status, n) in status_order(&r.totals) {
        let bad = n > 0 && !matches!(status, "pass" | "skip");
        let label = match pages.bucket(&format!("status-{status}")) {
            Some(page) => format!(r#"<a href="{}">{}</a>"#, escape(&href(&page)), escape(status)),
            None => escape(status),
        };
        let _ = write!(
            b,
            r#"<div class="card{}" data-status="{}"><span class="n">{n}</span>{label}</div>"#,
            if bad { " bad" } else { "" },
            escape(status)
        );
    }
    b.push_str("</div>\n");

    section(
        &mut b,
        "pass-rate",
        "Pass rate per Max version × tier",
        "A file counts for a tier when it has a non-skip verdict there and passes when none is fail; a worker that crashed, timed out, ran out of memory or could not run counts as failing every tier of the run. Skipped files count nowhere.",
    );
    if r.pass_rates.is_empty() {
        none(&mut b, "version × tier rows");
    } else {
        b.push_str(&svg::pass_rate_chart(&r.pass_rates));
        b.push_str("<details><summary>The same numbers as a table</summary>");
        let rows = r
            .pass_rates
            .iter()
            .map(|p| {
                (
                    None,
                    vec![
                        Cell::text(&p.max_version),
                        Cell::text(&p.tier),
                        Cell::num(p.passed),
                        Cell::num(p.total),
                        Cell::num_shown(p.rate, format!("{:.1}%", p.rate * 100.0)),
                    ],
                )
            })
            .collect();
        table(
            &mut b,
            "pass-rates",
            "Pass rate per Max version and tier",
            &[
                ("version", "Max version", "text"),
                ("tier", "Tier", "text"),
                ("passed", "Passed", "num"),
                ("total", "Files", "num"),
                ("rate", "Rate", "num"),
            ],
            rows,
        );
        b.push_str("</details>");
    }

    history_section(&mut b, &r.history);

    section(&mut b, "gates", "Gate rules", "Every evaluated rule with its numbers.");
    if r.gates.is_empty() {
        none(&mut b, "gate rules evaluated");
    } else {
        let failed = r.gates.iter().filter(|g| !g.passed).count();
        let _ = write!(b, "<p>{} of {} rules hold; {failed} broken.</p>", r.gates.len() - failed, r.gates.len());
        let rows = r
            .gates
            .iter()
            .map(|g| {
                (
                    None,
                    vec![
                        Cell {
                            html: badge(if g.passed { "held" } else { "broken" }),
                            sort: Some(if g.passed { "1" } else { "0" }.into()),
                            class: "",
                        },
                        Cell::text(&g.name),
                        Cell::html(pages.bucket_link(&g.bucket)),
                        Cell::text(&g.tier),
                        Cell::text(&g.metric),
                        Cell::num_shown(g.value, format!("{}", g.value)),
                        Cell::num_shown(g.threshold, format!("{}", g.threshold)),
                        Cell::text(&g.detail),
                    ],
                )
            })
            .collect();
        table(
            &mut b,
            "gate-table",
            "Gate rules",
            &[
                ("verdict", "Verdict", "text"),
                ("name", "Rule", "text"),
                ("bucket", "Bucket", "text"),
                ("tier", "Tier", "text"),
                ("metric", "Metric", "text"),
                ("value", "Measured", "num"),
                ("threshold", "Threshold", "num"),
                ("detail", "Detail", "text"),
            ],
            rows,
        );
    }

    t3_summary_section(&mut b, &r.t3_sections);
    t3_triage_section(&mut b, &pages, r);

    ranked(&mut b, &pages, "slowest", "Slowest files", &r.slowest, r.files, "Wall time", |v| format!("{v} ms"));
    ranked(&mut b, &pages, "rss", "Largest peak RSS", &r.largest_rss, r.files, "Peak RSS", rss_shown);

    section(&mut b, "buckets", "Buckets", "Each file belongs to several buckets (its version, input class, tiers, triage classes, non-pass status, and their combinations). Buckets holding exactly the same files are one row, listing the other names.");
    let bucket_rows = r
        .buckets
        .iter()
        .filter(|bk| bk.same_as.is_none()) // shown once, under the first name, with its aliases
        .map(|bk| {
            let mut cells = vec![
                Cell { html: pages.bucket_link(&bk.slug), sort: Some(bk.slug.clone()), class: "" },
                Cell::num(bk.files),
            ];
            for (_, n) in status_order(&bk.status_counts) {
                cells.push(Cell::num(n));
            }
            let changed: Vec<String> = bk.changes.iter().map(|(c, n)| format!("{n} {c}")).collect();
            cells.push(Cell::text(&changed.join(", ")));
            cells.push(Cell::text(&bk.aliases.join(", ")));
            (None, cells)
        })
        .collect();
    let status_names: Vec<&str> = status_order(&r.totals).into_iter().map(|(s, _)| s).collect();
    let mut columns: Vec<Column> = vec![("bucket", "Bucket", "text"), ("files", "Files", "num")];
    columns.extend(status_names.iter().map(|s| (*s, *s, "num")));
    columns.push(("changes", "Changes vs baseline", "text"));
    columns.push(("aliases", "Same files as", "text"));
    table(&mut b, "bucket-table", "Buckets", &columns, bucket_rows);

    lists(&mut b, &pages, r);

    page("pmfarm report", &index_nav(), &b, r)
}

/// The T3 summary agreement table: one row per section, its reason classes ranked by
/// files affected in one cell (compact: the report never repeats it per file).
fn t3_summary_section(b: &mut String, rows: &[SectionRow]) {
    section(
        b,
        "t3-summary",
        "T3 summary per section",
        "Each section of Max's own document summary against pmcore's account. Rate = pass ÷ files carrying the section (a skip as unsupported lowers it; files lacking the section are counted apart). Classes behind the fails and skips, most files first.",
    );
    if rows.is_empty() {
        none(b, "summary sections");
        return;
    }
    let cells = rows
        .iter()
        .map(|row| {
            let mut classes: Vec<String> = row
                .classes
                .iter()
                .map(|c| format!("{} {} ({})", escape(&c.verdict), escape(&c.class), c.files))
                .collect();
            if row.classes_total > row.classes.len() as u64 {
                classes.push(format!("… {} more", row.classes_total - row.classes.len() as u64));
            }
            (
                Some(format!("t3-{}", row.stream.replace('/', "-"))),
                vec![
                    Cell::text(&row.stream),
                    Cell::num(row.pass),
                    Cell::num(row.fail),
                    Cell::num(row.skip),
                    Cell::num(row.absent),
                    Cell::num_shown(row.rate, format!("{:.1}%", row.rate * 100.0)),
                    Cell::html(classes.join("<br>")),
                ],
            )
        })
        .collect();
    table(
        b,
        "t3-summary-table",
        "T3 summary sections",
        &[
            ("section", "Section", "text"),
            ("pass", "Pass", "num"),
            ("fail", "Fail", "num"),
            ("skip", "Skip (unsupported)", "num"),
            ("absent", "Absent in file", "num"),
            ("rate", "Rate", "num"),
            ("classes", "Classes behind fails and skips (files)", "text"),
        ],
        cells,
    );
}

/// Rows of T3 misses: file (linked to its entry), stream, class, what the result says and
/// the triage's message; with `evidence`, the evidence too.
fn triage_miss_rows(
    pages: &Pages,
    r: &Report,
    misses: &[TriageMiss],
    evidence: bool,
) -> Vec<(Option<String>, Vec<Cell>)> {
    let homes: BTreeMap<&str, &str> =
        r.buckets.iter().flat_map(|bk| bk.entries.iter().map(|e| (e.path.as_str(), e.home.as_str()))).collect();
    misses
        .iter()
        .map(|m| {
            let link = homes.get(m.path.as_str()).and_then(|home| pages.file(home, &m.path));
            let mut cells = vec![
                Cell::path(&m.path, link),
                Cell::text(&m.stream),
                Cell::html(badge(&m.verdict)),
                Cell::html(format!(r#"<span class="message">{}</span>"#, escape(&m.result))),
                Cell::text(&m.message),
            ];
            if evidence {
                cells.push(Cell::html(json_pre(&m.evidence)));
            }
            (None, cells)
        })
        .collect()
}

/// The first table after the verdict: every T3 miss no detector explains.
fn t3_unexplained_section(b: &mut String, pages: &Pages, r: &Report) {
    if r.t3_triage.is_empty() {
        return; // no T3 ran: nothing to say on the first screen
    }
    let results: u64 = r.t3_triage.iter().map(|row| row.results).sum();
    if r.t3_unexplained.is_empty() {
        // One line: the first screen keeps its room for the regressions below.
        let _ = write!(
            b,
            r##"<p id="t3-unexplained" class="stamp-line">Unexplained T3 misses: none of {results} T3 results (<a href="#t3-triage">T3 triage</a>).</p>"##
        );
        return;
    }
    section(
        b,
        "t3-unexplained",
        &format!("Unexplained T3 misses: {} of {results} T3 results", r.t3_unexplained.len()),
        "T3 fails and skips that no triage rule explains (docs/triage.md): look at these first.",
    );
    table(
        b,
        "t3-unexplained-table",
        "Unexplained T3 misses",
        &[
            ("path", "File", "text"),
            ("stream", "Stream", "text"),
            ("verdict", "Verdict", "text"),
            ("result", "Result", "text"),
            ("message", "Triage", "text"),
        ],
        triage_miss_rows(pages, r, &r.t3_unexplained, false),
    );
}

/// Per comparison, T3 results by triage class; then every era mismatch with its evidence.
fn t3_triage_section(b: &mut String, pages: &Pages, r: &Report) {
    section(
        b,
        "t3-triage",
        "T3 triage per comparison",
        "Every T3 result that is not a pass carries a cause class (docs/triage.md). Era mismatches need evidence from the files; unexplained is what is left.",
    );
    if r.t3_triage.is_empty() {
        none(b, "T3 results");
        return;
    }
    let classes: Vec<&str> = pmschema::TriageClass::ALL.iter().map(|c| c.name()).collect();
    let rows = r
        .t3_triage
        .iter()
        .map(|row| {
            let mut cells = vec![Cell::text(&row.comparison), Cell::num(row.results), Cell::num(row.pass)];
            cells.extend(classes.iter().map(|c| Cell::num(row.classes.get(*c).copied().unwrap_or(0))));
            (Some(format!("triage-{}", row.comparison.replace('/', "-"))), cells)
        })
        .collect();
    let mut columns: Vec<Column> =
        vec![("comparison", "Comparison", "text"), ("results", "Results", "num"), ("pass", "Pass", "num")];
    columns.extend(classes.iter().map(|c| (*c, *c, "num")));
    table(b, "t3-triage-table", "T3 results per comparison and triage class", &columns, rows);
    let _ =
        write!(b, "<h3 id=\"t3-era-mismatch\">Era mismatches with their evidence ({})</h3>", r.t3_era_mismatch.len());
    if r.t3_era_mismatch.is_empty() {
        none(b, "era-mismatch T3 misses");
        return;
    }
    table(
        b,
        "t3-era-table",
        "Era-mismatch T3 misses and their evidence",
        &[
            ("path", "File", "text"),
            ("stream", "Stream", "text"),
            ("verdict", "Verdict", "text"),
            ("result", "Result", "text"),
            ("message", "Triage", "text"),
            ("evidence", "Evidence", "text"),
        ],
        triage_miss_rows(pages, r, &r.t3_era_mismatch, true),
    );
}

#[allow(clippy::too_many_arguments)]
fn ranked(
    b: &mut String,
    pages: &Pages,
    id: &str,
    title: &str,
    rows: &[FileMetric],
    files: u64,
    label: &str,
    show: impl Fn(u64) -> String,
) {
    section(b, id, title, "");
    if rows.is_empty() {
        none(b, "files");
        return;
    }
    let caption = format!("The {} {} of {files} files", rows.len(), title.to_lowercase());
    let cells = rows
        .iter()
        .map(|m| {
            (
                None,
                vec![
                    Cell::path(&m.path, pages.file(&m.bucket, &m.path)),
                    Cell { html: badge(&m.status), sort: Some(m.status.clone()), class: "" },
                    Cell::num_shown(m.value as f64, show(m.value)),
                ],
            )
        })
        .collect();
    table(
        b,
        &format!("{id}-table"),
        &caption,
        &[("path", "File", "text"), ("status", "Status", "text"), ("value", label, "num")],
        cells,
    );
}

fn lists(b: &mut String, pages: &Pages, r: &Report) {
    let l = &r.lists;
    let link = |path: &str| {
        pages.file("all", path).or_else(|| {
            r.buckets
                .iter()
                .find(|bk| bk.entries.iter().any(|e| e.path == path))
                .map(|bk| format!("{}.html#{}", bk.page, file_anchor(path)))
        })
    };

    section(b, "mapext", "MapExt asset list", "Files using the non-standard Map Extender UVW modifier: their reference UVs are not trustworthy, so they are listed here instead of counting silently in T3 statistics.");
    if l.mapext.is_empty() {
        none(b, "MapExt hits");
    } else {
        let rows = l
            .mapext
            .iter()
            .map(|m| {
                (
                    None,
                    vec![
                        Cell::path(&m.path, link(&m.path)),
                        Cell::text(&m.node),
                        Cell::text(&m.dll),
                        Cell::text(&m.class_name),
                    ],
                )
            })
            .collect();
        table(
            b,
            "mapext-table",
            "Map Extender hits (file, node, modifier DLL and class)",
            &[
                ("path", "File", "text"),
                ("node", "Node", "text"),
                ("dll", "Modifier DLL", "text"),
                ("class", "Class", "text"),
            ],
            rows,
        );
    }

    section(b, "flare", "Flare-flag list", "NeL flare objects and their stored _FirstFlareKeepSize flag: the max file is authoritative where it disagrees with the reference.");
    if l.flare.is_empty() {
        none(b, "flare objects");
    } else {
        let rows = l
            .flare
            .iter()
            .map(|f| {
                (
                    None,
                    vec![Cell::path(&f.path, link(&f.path)), Cell::text(&f.node), Cell::text(&f.first_flare_keep_size)],
                )
            })
            .collect();
        table(
            b,
            "flare-table",
            "Flare objects",
            &[("path", "File", "text"), ("node", "Node", "text"), ("flag", "_FirstFlareKeepSize", "text")],
            rows,
        );
    }

    section(b, "era-mismatch", "Era-mismatch list", "Files whose skel T3 differences the era rule explains (a fresh-era figure, or a uniform ×1.2 / ×0.8 scale): their reference exports predate the current max sources, so the differences are expected by design.");
    if l.era_mismatch.is_empty() {
        none(b, "era-mismatch files");
    } else {
        let rows = l
            .era_mismatch
            .iter()
            .map(|e| {
                let eras: Vec<String> =
                    e.figure_era.iter().map(|v| v.map_or("absent".to_string(), |n| n.to_string())).collect();
                (
                    None,
                    vec![
                        Cell::path(&e.path, link(&e.path)),
                        Cell::text(&e.max_version),
                        Cell::num(e.biped_systems),
                        Cell::text(&eras.join(", ")),
                    ],
                )
            })
            .collect();
        table(
            b,
            "era-table",
            "Era-mismatch files",
            &[
                ("path", "File", "text"),
                ("version", "Max version", "text"),
                ("systems", "Biped systems", "num"),
                ("era", "Figure era (0x0115)", "text"),
            ],
            rows,
        );
    }

    section(
        b,
        "lfs-pointer",
        "LFS-pointer list",
        "Git-LFS pointer files: skipped with a reason, never passed or failed.",
    );
    if l.lfs_pointer.is_empty() {
        none(b, "LFS pointers");
    } else {
        let rows = l
            .lfs_pointer
            .iter()
            .map(|p| {
                (
                    None,
                    vec![
                        Cell::path(&p.path, link(&p.path)),
                        Cell::num(p.bytes),
                        Cell { html: badge(&p.status), sort: Some(p.status.clone()), class: "" },
                        Cell::text(&p.reason),
                    ],
                )
            })
            .collect();
        table(
            b,
            "lfs-table",
            "LFS pointers",
            &[
                ("path", "File", "text"),
                ("bytes", "Bytes", "num"),
                ("status", "Status", "text"),
                ("reason", "Reason", "text"),
            ],
            rows,
        );
    }

    section(
        b,
        "degraded-classes",
        "Degraded classes",
        "Classes whose objects fell back to raw bytes (bytes still identical), with how many files and objects.",
    );
    if l.degraded_classes.is_empty() {
        none(b, "degraded classes");
    } else {
        let rows = l
            .degraded_classes
            .iter()
            .map(|d| {
                let examples: Vec<String> = d
                    .examples
                    .iter()
                    .map(|p| match link(p) {
                        Some(h) => format!(r#"<a href="{}">{}</a>"#, escape(&h), escape(p)),
                        None => escape(p),
                    })
                    .collect();
                (
                    None,
                    vec![
                        Cell::text(&d.name),
                        Cell::text(&d.class),
                        Cell::text(&d.dll),
                        Cell::num(d.files),
                        Cell::num(d.objects),
                        Cell::text(&d.reason),
                        Cell::html(examples.join("<br>")),
                    ],
                )
            })
            .collect();
        table(
            b,
            "degraded-table",
            "Degraded classes",
            &[
                ("name", "Class", "text"),
                ("class", "ClassId/Super", "text"),
                ("dll", "DLL", "text"),
                ("files", "Files", "num"),
                ("objects", "Objects", "num"),
                ("reason", "A reason", "text"),
                ("examples", "Files (first 10)", "text"),
            ],
            rows,
        );
    }

    section(
        b,
        "typed-coverage",
        "Typed coverage per version",
        "Share of Scene bytes regenerated from typed state, and objects by how they were decoded.",
    );
    if l.typed_coverage.is_empty() {
        none(b, "inventories");
    } else {
        let pct = |v: f64| Cell::num_shown(v, format!("{:.1}%", v * 100.0));
        let rows = l
            .typed_coverage
            .iter()
            .map(|c| {
                (
                    None,
                    vec![
                        Cell::text(&c.max_version),
                        Cell::num(c.files),
                        pct(c.mean),
                        pct(c.min),
                        pct(c.max),
                        Cell::num(c.typed_objects),
                        Cell::num(c.generic_objects),
                        Cell::num(c.degraded_objects),
                    ],
                )
            })
            .collect();
        table(
            b,
            "coverage-table",
            "Typed coverage per Max version",
            &[
                ("version", "Max version", "text"),
                ("files", "Files", "num"),
                ("mean", "Mean", "num"),
                ("min", "Min", "num"),
                ("max", "Max", "num"),
                ("typed", "Typed objects", "num"),
                ("generic", "Generic", "num"),
                ("degraded", "Degraded", "num"),
            ],
            rows,
        );
    }
}

/// Two hex rows with the differing bytes marked and the first difference outlined.
fn hex_window(m: &MismatchView) -> String {
    let expected: Vec<&str> = m.expected_hex.split_whitespace().collect();
    let actual: Vec<&str> = m.actual_hex.split_whitespace().collect();
    let at = m.offset.saturating_sub(m.window_start) as usize;
    let row = |mine: &[&str], other: &[&str]| -> String {
        mine.iter()
            .enumerate()
            .map(|(i, byte)| {
                let mut class = String::new();
                if other.get(i) != Some(byte) {
                    class.push('d');
                }
                if i == at {
                    class.push_str(if class.is_empty() { "at" } else { " at" });
                }
                if class.is_empty() {
                    format!("<span>{}</span>", escape(byte))
                } else {
                    format!(r#"<span class="{class}">{}</span>"#, escape(byte))
                }
            })
            .collect()
    };
    format!(
        r#"<table class="hex mono"><tr><th>expected @{:#x}</th><td>{}</td></tr><tr><th>actual @{:#x}</th><td>{}</td></tr></table><p>{} <code>{}</code>: {}</p>"#,
        m.window_start,
        row(&expected, &actual),
        m.window_start,
        row(&actual, &expected),
        escape(&m.kind),
        escape(&m.chunk_path),
        escape(&m.message)
    )
}

fn diff_block(diff: &str) -> String {
    let mut out = String::from(r#"<pre class="diff">"#);
    for line in diff.lines() {
        let class = if line.starts_with("+++") || line.starts_with("---") || line.starts_with("@@") {
            "hunk"
        } else if line.starts_with('+') {
            "add"
        } else if line.starts_with('-') {
            "del"
        } else {
            ""
        };
        if class.is_empty() {
            let _ = writeln!(out, "{}", escape(line));
        } else {
            let _ = write!(out, r#"<span class="{class}">{}</span>"#, escape(line));
        }
    }
    out.push_str("</pre>");
    out
}

/// A T3 `detail`: scalar counters as a table, anything named like a ULP histogram as a
/// chart, other nested values as pretty JSON.
fn t3_block(t: &T3Detail) -> String {
    let mut out = format!("<h3>T3 {} — {}</h3>", escape(&t.exporter), badge(&t.verdict));
    if let Some(note) = &t.note {
        let _ = write!(out, "<p>{}</p>", escape(note));
    }
    let Some(obj) = t.detail.as_object() else {
        return out + &json_pre(&t.detail);
    };
    let mut counters = String::new();
    let mut extra = String::new();
    for (key, value) in obj {
        let histogram_bins: Option<Vec<(String, u64)>> =
            if key.to_lowercase().contains("ulp") || key.to_lowercase().contains("histogram") {
                match value {
                    serde_json::Value::Object(m) => m.iter().map(|(k, v)| v.as_u64().map(|n| (k.clone(), n))).collect(),
                    serde_json::Value::Array(a) => {
                        a.iter().enumerate().map(|(i, v)| v.as_u64().map(|n| (i.to_string(), n))).collect()
                    }
                    _ => None,
                }
            } else {
                None
            };
        match (value, histogram_bins) {
            (_, Some(bins)) => {
                let _ = write!(extra, "<h4>{}</h4>{}", escape(key), svg::histogram(key, &bins));
            }
            (serde_json::Value::Object(m), None) if m.values().all(|v| !v.is_object() && !v.is_array()) => {
                let _ = write!(extra, r#"<table class="hex"><caption>{}</caption>"#, escape(key));
                for (k, v) in m {
                    let _ = write!(extra, "<tr><th>{}</th><td>{}</td></tr>", escape(k), escape(&scalar(v)));
                }
                extra.push_str("</table>");
            }
            (serde_json::Value::Object(_) | serde_json::Value::Array(_), None) => {
                let _ = write!(extra, "<h4>{}</h4>{}", escape(key), json_pre(value));
            }
            (v, None) => {
                let _ = write!(counters, "<tr><th>{}</th><td>{}</td></tr>", escape(key), escape(&scalar(v)));
            }
        }
    }
    if !counters.is_empty() {
        let _ = write!(out, r#"<table class="hex"><caption>Field counters</caption>{counters}</table>"#);
    }
    out + &extra
}

fn scalar(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn bucket_page(r: &Report, bk: &BucketReport) -> String {
    let pages = Pages::new(r);
    let mut b = String::new();
    let _ = write!(b, r#"<p>{} files · "#, bk.files);
    let counts: Vec<String> = status_order(&bk.status_counts)
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{} {n}", badge(s)))
        .collect();
    b.push_str(&counts.join(" · "));
    if !bk.changes.is_empty() {
        let changed: Vec<String> = bk.changes.iter().map(|(c, n)| format!("{} {n}", badge(c))).collect();
        let _ = write!(b, " · against the baseline: {}", changed.join(" · "));
    }
    let _ = write!(b, r#" · <a href="{}.json">{}.json</a></p>"#, escape(&href(&bk.page)), escape(&bk.page));
    let has_baseline = r.baseline.is_some();
    let rows = bk
        .entries
        .iter()
        .map(|e| {
            let mut details = String::new();
            if let Some(m) = &e.mismatch {
                details.push_str(&hex_window(m));
            }
            if let Some(d) = e.verdict_diff.as_deref().filter(|d| !d.is_empty()) {
                details.push_str("<h3>Baseline → this run</h3>");
                details.push_str(&diff_block(d));
            }
            for t in &e.t3 {
                details.push_str(&t3_block(t));
            }
            if !e.t3_triage.is_empty() {
                details.push_str("<h3>T3 triage</h3><ul class=\"triage\">");
                for m in &e.t3_triage {
                    let _ = write!(
                        details,
                        "<li><code>{}</code> {} <strong>{}</strong>: {}{}</li>",
                        escape(&m.stream),
                        badge(&m.verdict),
                        escape(&m.class),
                        escape(&m.message),
                        if m.class == "era-mismatch" { json_pre(&m.evidence) } else { String::new() }
                    );
                }
                details.push_str("</ul>");
            }
            let locator_text = e.locator.clone().or_else(|| e.reason.clone()).unwrap_or_default();
            let shown_here = e.home == bk.slug || bk.aliases.contains(&e.home);
            let elsewhere = if shown_here { None } else { pages.file(&e.home, &e.path) };
            let locator = if details.is_empty() {
                escape(&locator_text)
            } else if let Some(link) = elsewhere {
                let sep = if locator_text.is_empty() { "" } else { " · " };
                format!(
                    r#"{}{sep}<a href="{}">details on {}</a>"#,
                    escape(&locator_text),
                    escape(&link),
                    escape(&e.home)
                )
            } else {
                let summary = if !locator_text.is_empty() {
                    locator_text.clone()
                } else if !e.t3.is_empty() {
                    e.t3.iter().map(|t| format!("T3 {} {}", t.exporter, t.verdict)).collect::<Vec<_>>().join(", ")
                } else {
                    "details".to_string()
                };
                format!("<details><summary>{}</summary>{details}</details>", escape(&summary))
            };
            let mut cells = vec![
                Cell::path(&e.path, None),
                Cell::html(badge(&e.status)),
                Cell::text(e.max_version.as_deref().unwrap_or("")),
                Cell::html(
                    e.signatures.iter().map(|s| format!("<code>{}</code>", escape(s))).collect::<Vec<_>>().join("<br>"),
                ),
                Cell { html: locator, sort: Some(locator_text), class: "" },
            ];
            if has_baseline {
                let class = e.diff_class.map(|c| c.name()).unwrap_or("");
                cells.push(Cell {
                    html: if class.is_empty() { String::new() } else { badge(class) },
                    sort: Some(class.to_string()),
                    class: "",
                });
            }
            cells.push(Cell::num(e.wall_ms));
            cells.push(Cell::num_shown(e.peak_rss_bytes as f64, rss_shown(e.peak_rss_bytes)));
            (Some(file_anchor(&e.path)), cells)
        })
        .collect();
    let mut columns: Vec<Column> = vec![
        ("path", "File", "text"),
        ("status", "Status", "text"),
        ("version", "Max version", "text"),
        ("signature", "Signatures", "text"),
        ("locator", "Locator (click for hex window, diff, T3)", "text"),
    ];
    if has_baseline {
        columns.push(("baseline", "Baseline", "text"));
    }
    columns.push(("wall", "Wall ms", "num"));
    columns.push(("rss", "Peak RSS", "num"));
    table(&mut b, "files", &format!("Files in bucket {}", bk.slug), &columns, rows);
    let nav = format!(
        r#"<a href="{INDEX_HTML}">← index</a> <a href="{INDEX_HTML}#buckets">all buckets</a> <a href="{}.json">{}.json</a>"#,
        escape(&href(&bk.page)),
        escape(&bk.page)
    );
    let title = if bk.aliases.is_empty() {
        format!("Bucket {}", bk.slug)
    } else {
        format!("Bucket {} (same files as {})", bk.slug, bk.aliases.join(", "))
    };
    page(&title, &nav, &b, r)
}

impl Exporter for HtmlExporter {
    fn name(&self) -> &'static str {
        "html"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut out = vec![Artifact { name: INDEX_HTML.into(), contents: index_page(report) }];
        for bk in report.buckets.iter().filter(|b| b.same_as.is_none()) {
            out.push(Artifact { name: format!("{}.html", bk.page), contents: bucket_page(report, bk) });
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_is_single_pass() {
        let t = "<t>{{title}}</t>{{body}}{{unknown}}";
        assert_eq!(fill(t, &[("title", "{{body}}"), ("body", "B")]), "<t>{{body}}</t>B{{unknown}}");
    }

    #[test]
    fn anchors_are_stable_and_distinct() {
        assert_eq!(file_anchor("a.max"), file_anchor("a.max"));
        assert_ne!(file_anchor("a.max"), file_anchor("b.max"));
        assert!(file_anchor("кубик.max").chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    }

    #[test]
    fn hex_window_marks_differences() {
        let m = MismatchView {
            offset: 2,
            window_start: 0,
            expected_hex: "61 62 63".into(),
            actual_hex: "61 62 58".into(),
            ..Default::default()
        };
        let h = hex_window(&m);
        assert!(h.contains(r#"<span class="d at">63</span>"#) && h.contains(r#"<span class="d at">58</span>"#), "{h}");
        assert_eq!(h.matches("<span>61</span>").count(), 2);
    }
}
