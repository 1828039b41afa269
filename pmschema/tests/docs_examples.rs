//! Keeps docs/events.md honest: every example line in its `json` blocks parses as a
//! schema-1 event and serializes back to the same JSON value (no unknown or misspelt
//! field), and every event kind has at least one example.

use pmschema::events::Event;
use std::collections::BTreeSet;

fn example_lines() -> Vec<String> {
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/events.md");
    let text = std::fs::read_to_string(&docs).expect("docs/events.md");
    let mut out = Vec::new();
    let mut in_json = false;
    for line in text.lines() {
        match line.trim() {
            "```json" => in_json = true,
            "```" => in_json = false,
            l if in_json && !l.is_empty() => out.push(l.to_string()),
            _ => {}
        }
    }
    out
}

#[test]
fn every_documented_example_is_a_valid_event() {
    let lines = example_lines();
    let mut kinds = BTreeSet::new();
    for line in &lines {
        let event = Event::from_line(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let general: Event = serde_json::from_str(line).unwrap();
        assert_eq!(event, general, "the tagged-line shortcut reads what serde's general path reads: {line}");
        // As the worker writes it (tag first): the shortcut's own input.
        assert_eq!(Event::from_line(&event.to_line()).unwrap(), general, "{line}");
        let written: serde_json::Value = serde_json::from_str(&event.to_line()).unwrap();
        let documented: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(written, documented, "the example has a field the schema does not keep: {line}");
        kinds.insert(documented["event"].as_str().unwrap().to_string());
    }
    let all = ["start", "facts", "breadcrumb", "result", "inventory", "triage", "export", "end", "panic"];
    for kind in all {
        assert!(kinds.contains(kind), "docs/events.md has no `{kind}` example");
    }
    println!("{} documented example lines parse, {} event kinds", lines.len(), kinds.len());
}

/// docs/results.md: every one-line `results.jsonl` example parses as a `FileResult` and
/// writes back the same JSON; one of them shows a T3 miss with its `triage`.
#[test]
fn every_one_line_results_example_is_a_valid_file_result() {
    use pmschema::results::FileResult;
    let docs = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/results.md");
    let text = std::fs::read_to_string(&docs).expect("docs/results.md");
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("{\"path\"") && l.ends_with('}')).collect();
    assert!(!lines.is_empty(), "docs/results.md has no one-line FileResult example");
    let mut triaged = 0;
    for line in lines {
        let r: FileResult = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
        let written = serde_json::to_value(&r).unwrap();
        let documented: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(written, documented, "the example has a field the schema does not keep: {line}");
        triaged += r.results.iter().filter(|t| t.triage.is_some()).count();
    }
    assert!(triaged > 0, "no documented result carries a triage");
}
