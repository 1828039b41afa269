//! `summary.md`: the run in at most [`MAX_LINES`] lines, for a PR comment. Long sections
//! are cut with an explicit "… N more" line pointing at the HTML report, never silently.

use super::model::Report;
use super::{Artifact, Exporter, ReportError};
use crate::run_files::{INDEX_HTML, REPORT, SUMMARY_MD};

/// Hard cap on the summary's length (a PR comment people still read).
pub const MAX_LINES: usize = 60;

/// Rows per list section before it says "… N more".
const SECTION_ROWS: usize = 10;

/// Writes `summary.md`.
pub struct MarkdownExporter;

/// Text for inside a code span or table cell: a backtick would end the span, so it becomes
/// `'`; pipes are escaped for tables; newlines flattened; other control characters (an
/// escape sequence in a file name) written as visible escapes. Markup inside code spans is inert.
fn md(text: &str) -> String {
    let flat = text.replace('`', "'").replace('|', "\\|").replace(['\n', '\r'], " ");
    crate::display::escape_controls(&flat).into_owned()
}

/// Plain Markdown text from a run: also neutralises inline HTML and emphasis.
fn md_text(text: &str) -> String {
    md(text).replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('*', "\\*").replace('_', "\\_")
}

/// Appends `rows` with at most [`SECTION_ROWS`] shown and a trailing count of the rest.
fn capped(out: &mut Vec<String>, rows: Vec<String>, rest_hint: &str) {
    let total = rows.len();
    out.extend(rows.into_iter().take(SECTION_ROWS));
    if total > SECTION_ROWS {
        out.push(format!("\n… {} more {rest_hint} in `{REPORT}/{INDEX_HTML}`.", total - SECTION_ROWS));
    }
}

/// The summary's lines (before the cap). The first screen is the HTML index's: the run in
/// words, the gate verdict one line per cause, what changed since the baseline with the
/// message behind each change; then the counts.
fn lines(r: &Report) -> Vec<String> {
    let mut out = Vec::new();
    out.push(format!("## pmfarm report — {} files ({})", r.files, md_text(&r.stamp.tool)));
    out.push(String::new());
    let timing = &r.stamp.timing;
    let wall = timing.get("wall_ms").and_then(|v| v.as_u64()).map(|ms| format!(" in {:.1} s", ms as f64 / 1000.0));
    let finished = timing.get("finished").and_then(|v| v.as_str()).map(|f| format!(", finished {}", md_text(f)));
    let sha = &r.stamp.corpus_manifest_sha256;
    let run = match r.stamp.timing.get("run_id").and_then(serde_json::Value::as_str) {
        Some(id) => format!(", run `{}`", md(id)),
        None => String::new(),
    };
    out.push(format!(
        "Corpus `{}` (manifest `{}`){}{}; {}. Rendered by {}{run}.",
        md(&r.stamp.corpus_root),
        md(&sha.chars().take(16).collect::<String>()),
        wall.unwrap_or_default(),
        finished.unwrap_or_default(),
        match &r.baseline {
            Some(b) => format!("baseline `{}`", md(&b.name)),
            None => "no baseline".to_string(),
        },
        md_text(&r.stamp.report_tool)
    ));
    out.push(String::new());

    // Verdict: one line per cause (a rule failing on several buckets is one cause).
    let mut causes: Vec<(String, Vec<&crate::results::GateOutcome>)> = Vec::new();
    for g in r.gates.iter().filter(|g| !g.passed) {
        let key = format!("{} ({})", g.name, g.metric);
        match causes.iter_mut().find(|(k, _)| *k == key) {
            Some((_, gs)) => gs.push(g),
            None => causes.push((key, vec![g])),
        }
    }
    if r.gates.is_empty() {
        out.push("**Verdict:** no gate rule was evaluated — this run checks nothing by itself.".into());
    } else if causes.is_empty() {
        out.push(format!("**Verdict:** ✅ gates held (all {} rules).", r.gates.len()));
    } else {
        out.push(format!(
            "**Verdict:** ❌ gates broken — {} cause{}:",
            causes.len(),
            if causes.len() == 1 { "" } else { "s" }
        ));
        capped(
            &mut out,
            causes
                .iter()
                .map(|(cause, gates)| {
                    let g = gates[0];
                    let buckets: Vec<String> = gates.iter().map(|g| format!("`{}`", md(&g.bucket))).collect();
                    format!(
                        "- `{}`: {} = {} (threshold {}) on {}",
                        md(cause),
                        md_text(&g.metric),
                        g.value,
                        g.threshold,
                        buckets.join(", ")
                    )
                })
                .collect(),
            "causes",
        );
    }
    out.push(String::new());

    if let Some(b) = &r.baseline {
        let counts: Vec<String> = b.counts.iter().filter(|(_, n)| **n > 0).map(|(c, n)| format!("{n} {c}")).collect();
        out.push(format!(
            "**Since baseline `{}`:** {}.",
            md(&b.name),
            if counts.is_empty() { "no files".into() } else { counts.join(", ") }
        ));
        capped(
            &mut out,
            b.changed
                .iter()
                .map(|c| {
                    let mut line = format!(
                        "- {} `{}` ({}): {}",
                        c.class.name(),
                        md(&c.path),
                        md_text(&c.status),
                        md_text(&c.summary.join("; "))
                    );
                    if let Some(m) = &c.message {
                        line.push_str(&format!(" — {}", md_text(m)));
                    }
                    line
                })
                .collect(),
            "changed files",
        );
        out.push(String::new());
    }

    let statuses = super::model::status_order(&r.totals);
    out.push(format!("| {} |", statuses.iter().map(|(s, _)| md_text(s)).collect::<Vec<_>>().join(" | ")));
    out.push(format!("|{}", "---:|".repeat(statuses.len())));
    out.push(format!("| {} |", statuses.iter().map(|(_, n)| n.to_string()).collect::<Vec<_>>().join(" | ")));
    out.push(String::new());

    out.push("**Pass rate** (passed/files per Max version × tier):".into());
    out.push(String::new());
    let tiers: std::collections::BTreeSet<&str> = r.pass_rates.iter().map(|p| p.tier.as_str()).collect();
    out.push(format!("| Max version | {} |", tiers.iter().copied().collect::<Vec<_>>().join(" | ")));
    out.push(format!("|---|{}", "---:|".repeat(tiers.len())));
    let mut by_version: Vec<(&str, Vec<String>)> = Vec::new();
    for p in &r.pass_rates {
        if by_version.last().map(|(v, _)| *v) != Some(p.max_version.as_str()) {
            by_version.push((&p.max_version, tiers.iter().map(|_| "–".to_string()).collect()));
        }
        let column = tiers.iter().position(|t| *t == p.tier).unwrap_or(0);
        if let Some((_, cells)) = by_version.last_mut() {
            cells[column] = format!("{}/{} ({:.1}%)", p.passed, p.total, p.rate * 100.0);
        }
    }
    capped(
        &mut out,
        by_version.into_iter().map(|(v, cells)| format!("| {} | {} |", md_text(v), cells.join(" | "))).collect(),
        "Max versions",
    );
    out.push(String::new());

    let l = &r.lists;
    out.push(format!(
        "**Lists:** MapExt {} hits, flare {}, era-mismatch {}, LFS pointers {}, degraded classes {}.",
        l.mapext.len(),
        l.flare.len(),
        l.era_mismatch.len(),
        l.lfs_pointer.len(),
        l.degraded_classes.len()
    ));
    out.push(String::new());
    if !r.t3_triage.is_empty() {
        // One line: unexplained first, then the totals per class (the tables are on the HTML index).
        let results: u64 = r.t3_triage.iter().map(|row| row.results).sum();
        let pass: u64 = r.t3_triage.iter().map(|row| row.pass).sum();
        let mut per_class: std::collections::BTreeMap<&str, u64> = std::collections::BTreeMap::new();
        for row in &r.t3_triage {
            for (c, n) in &row.classes {
                *per_class.entry(c.as_str()).or_default() += n;
            }
        }
        let classes: Vec<String> = per_class.iter().map(|(c, n)| format!("{} {n}", md_text(c))).collect();
        out.push(format!(
            "**T3 triage:** unexplained {} of {results} T3 results; pass {pass}; {}.",
            r.t3_unexplained.len(),
            classes.join(", ")
        ));
        out.push(String::new());
    }
    if !r.t3_sections.is_empty() {
        // One line: the full table with its ranked classes is on the HTML index.
        let sections: Vec<String> = r
            .t3_sections
            .iter()
            .map(|s| {
                let top = s.classes.first().map(|c| format!(", top: {} ({})", md_text(&c.class), c.files));
                format!(
                    "{} {}/{} ({:.1}%{})",
                    md_text(s.stream.trim_start_matches("summary/")),
                    s.pass,
                    s.pass + s.fail + s.skip,
                    s.rate * 100.0,
                    top.unwrap_or_default()
                )
            })
            .collect();
        out.push(format!("**T3 summary** (pass/files carrying the section): {}.", sections.join("; ")));
        out.push(String::new());
    }
    let not_passing: Vec<String> = r
        .buckets
        .iter()
        .flat_map(|b| b.entries.iter())
        .filter(|e| !matches!(e.status.as_str(), "pass" | "skip"))
        .map(|e| e.path.as_str())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .map(|p| format!("- `{}`", md(p)))
        .collect();
    out.push(format!("**Files not passing:** {}.", not_passing.len()));
    capped(&mut out, not_passing, "files");
    out
}

impl Exporter for MarkdownExporter {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn export(&self, report: &Report) -> Result<Vec<Artifact>, ReportError> {
        let mut all = lines(report).join("\n").lines().map(str::to_string).collect::<Vec<_>>();
        if all.len() > MAX_LINES {
            let cut = all.len() - (MAX_LINES - 1);
            all.truncate(MAX_LINES - 1);
            all.push(format!("… summary cut at {MAX_LINES} lines ({cut} more); see `{REPORT}/{INDEX_HTML}`."));
        }
        let mut text = all.join("\n");
        text.push('\n');
        Ok(vec![Artifact { name: SUMMARY_MD.into(), contents: text }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_text_cannot_inject_markup_or_break_tables() {
        assert_eq!(md("a|b`c\nd"), "a\\|b'c d");
        assert_eq!(md_text("<img src=x> *x* _y_ & z"), "&lt;img src=x&gt; \\*x\\* \\_y\\_ &amp; z");
    }
}
