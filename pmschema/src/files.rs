//! The names of the files in a run folder (`pmfarm run --out OUT`), spelled here and
//! nowhere else: `pmfarm::run_files` reads and writes them, the integration tests find them
//! through these constants, and `docs/results.md`, `docs/report-schema.md` and
//! `docs/reliability.md` name them for everyone else (a test below pins the two together).

/// One line per enumerated file, sorted by path.
pub const RESULTS: &str = "results.jsonl";
/// The run at a glance.
pub const SUMMARY: &str = "summary.json";
/// Per-file comparison with the baseline (only with `--baseline`).
pub const BASELINE_DIFF: &str = "baseline-diff.json";
/// The append-only ledger `--resume` reads.
pub const JOURNAL: &str = "journal.jsonl";
/// The rendered report folder.
pub const REPORT: &str = "report";
/// Inside [`REPORT`]: the front page.
pub const INDEX_HTML: &str = "index.html";
/// Inside [`REPORT`]: the machine-readable index the bucket documents point back to.
pub const INDEX_JSON: &str = "index.json";
/// Inside [`REPORT`]: the JUnit file.
pub const JUNIT_XML: &str = "junit.xml";
/// Inside [`REPORT`]: the Markdown summary (PR comments).
pub const SUMMARY_MD: &str = "summary.md";
/// The in-progress mark (`pmfarm::output_set`): present from before the first deletion
/// until the outputs are complete.
pub const IN_PROGRESS: &str = "in-progress";
/// The lock one coordinator holds while it works in the folder (`pmfarm::lock`).
pub const LOCK: &str = "pmfarm.lock";

#[cfg(test)]
mod tests {
    use super::*;

    /// The names are spelled once in code, so nothing else in the code would notice a
    /// rename: they are pinned to the documentation readers of a run folder follow.
    #[test]
    fn every_file_name_is_the_documented_one() {
        let docs = env!("CARGO_MANIFEST_DIR").to_string() + "/../docs/";
        let text: String = ["results.md", "report-schema.md", "reliability.md", "farm.md"]
            .iter()
            .map(|f| std::fs::read_to_string(docs.clone() + f).unwrap())
            .collect();
        let names = [
            RESULTS,
            SUMMARY,
            BASELINE_DIFF,
            JOURNAL,
            INDEX_HTML,
            INDEX_JSON,
            JUNIT_XML,
            SUMMARY_MD,
            LOCK,
            IN_PROGRESS,
        ];
        for name in names {
            assert!(text.contains(&format!("{name}`")), "`{name}` is not the name docs/ gives");
        }
        assert!(text.contains(&format!("`{REPORT}/")), "`{REPORT}/` is not the folder docs/ names");
    }
}
