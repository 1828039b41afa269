//! The readable "baseline vs this run" diff of one file's verdicts, via `similar`.

use similar::TextDiff;

/// Unified diff (3 lines of context) from `before` to `after`, with `baseline` / `this run`
/// headers; empty when both sides are equal.
pub fn verdict_diff(before: &str, after: &str) -> String {
    if before == after {
        return String::new();
    }
    TextDiff::from_lines(before, after).unified_diff().context_radius(3).header("baseline", "this run").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_names_both_sides_and_the_changed_line() {
        let d = verdict_diff("status = pass\nt1:Scene = pass\n", "status = fail\nt1:Scene = fail\n");
        assert!(d.starts_with("--- baseline\n+++ this run\n"), "{d}");
        assert!(d.contains("-t1:Scene = pass\n") && d.contains("+t1:Scene = fail\n"), "{d}");
        assert_eq!(verdict_diff("a\n", "a\n"), "");
    }
}
