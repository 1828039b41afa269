//! Per-file baselines: `baselines/<name>.jsonl` (one sorted line per file), saved from a
//! run, compared with a later run, and promoted by rewriting the file so the change is a
//! reviewable text diff.

use crate::results::{BaselineDiff, BaselineEntry, Change, DiffClass, DiffCounts, FileDiff, FileResult, Status};
use pmschema::Tier;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where baseline `name` lives.
pub fn path_of(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!("{name}.jsonl"))
}

/// A baseline name must be a slug, so it is also a safe file name.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty() && pmcore::slug(name) == name
}

/// Reads a baseline file and checks it before anything runs: every line parses with its
/// `path` and `status`, every status and verdict is one the farm writes, verdict keys are
/// `t1|t2|t3:stream`, and a path appears once. Errors name the file and line.
pub fn load(path: &Path) -> Result<Vec<BaselineEntry>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("baseline {}: {e}", path.display()))?;
    let mut entries: Vec<BaselineEntry> = Vec::new();
    let mut first_line: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let at = |msg: String| format!("{}:{}: {msg}", path.display(), n + 1);
        let e: BaselineEntry = serde_json::from_str(line).map_err(|e| at(e.to_string()))?;
        if e.path.is_empty() {
            return Err(at("empty `path`".into()));
        }
        if Status::from_name(&e.status).is_none() {
            let known: Vec<&str> = Status::ALL.iter().map(|s| s.name()).collect();
            return Err(at(format!("unknown status `{}` for {} (known: {})", e.status, e.path, known.join(", "))));
        }
        for (key, verdict) in &e.verdicts {
            let tier_ok = key.split_once(':').is_some_and(|(t, s)| t.parse::<Tier>().is_ok() && !s.is_empty());
            if !tier_ok {
                return Err(at(format!("verdict key `{key}` of {} is not `t1|t2|t3:stream`", e.path)));
            }
            if !pmschema::verdict::Verdict::NAMES.contains(&verdict.as_str()) {
                return Err(at(format!(
                    "unknown verdict `{verdict}` for {key} of {} (known: {})",
                    e.path,
                    pmschema::verdict::Verdict::NAMES.join(", ")
                )));
            }
        }
        for (key, class) in &e.triage {
            if class.parse::<pmschema::TriageClass>().is_err() {
                return Err(at(format!(
                    "unknown triage class `{class}` for {key} of {} (known: {})",
                    e.path,
                    pmschema::TriageClass::names()
                )));
            }
        }
        if let Some((line_no, index)) = first_line.get(&e.path) {
            let same = BaselineEntry { timing: Default::default(), ..entries[*index].clone() }
                == BaselineEntry { timing: Default::default(), ..e.clone() };
            let what = if same { "repeats" } else { "conflicts with" };
            return Err(at(format!("{} {what} its entry on line {line_no}", e.path)));
        }
        first_line.insert(e.path.clone(), (n + 1, entries.len()));
        entries.push(e);
    }
    Ok(entries)
}

/// Writes a baseline from results, one line per file sorted by path. With `previous`,
/// a file whose compared content is unchanged keeps its previous line byte for byte
/// (old `timing` included), so a promotion's text diff shows only real changes.
pub fn save(path: &Path, results: &[FileResult], previous: Option<&[BaselineEntry]>) -> std::io::Result<usize> {
    let old: BTreeMap<&str, &BaselineEntry> = previous.unwrap_or(&[]).iter().map(|e| (e.path.as_str(), e)).collect();
    let mut entries: Vec<BaselineEntry> = results
        .iter()
        .map(BaselineEntry::of)
        .map(|mut e| {
            if let Some(o) = old.get(e.path.as_str()) {
                if (BaselineEntry { timing: o.timing.clone(), ..e.clone() }) == **o {
                    e.timing = o.timing.clone();
                }
            }
            e
        })
        .collect();
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let mut text = String::new();
    for e in &entries {
        text.push_str(&serde_json::to_string(e).map_err(std::io::Error::other)?);
        text.push('\n');
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("jsonl.tmp");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)?;
    Ok(entries.len())
}

/// Every regression kind a diff names; gates can allow each (`allow_regressions`).
pub const REGRESSION_KINDS: [&str; 8] = [
    "to-fail",
    "to-abnormal",
    "to-skip",
    "to-absent",
    "pass-to-degraded",
    "pass-to-normalized",
    "degraded-classes-rise",
    "triage-class",
];

/// True for a verdict or status that means the tier (or file) ran and was judged.
fn ran(name: &str) -> bool {
    matches!(name, "pass" | "normalized" | "degraded" | "fail")
}

fn is_abnormal(name: &str) -> bool {
    Status::from_name(name).is_some_and(Status::is_abnormal)
}

/// The regression kind of one change `before → after`, if it makes things worse.
fn regression(before: &str, after: &str) -> Option<&'static str> {
    match (before, after) {
        (b, a) if b == a => None,
        (_, "fail") => Some("to-fail"),
        (b, a) if is_abnormal(a) && !is_abnormal(b) => Some("to-abnormal"),
        (b, "skip") if ran(b) => Some("to-skip"),
        (b, "absent") if ran(b) => Some("to-absent"),
        ("pass" | "normalized", "degraded") => Some("pass-to-degraded"),
        ("pass", "normalized") => Some("pass-to-normalized"),
        _ => None,
    }
}

/// Whether `before → after` is an improvement (the reverse of a regression).
fn improvement(before: &str, after: &str) -> bool {
    let rank = |n: &str| match n {
        "pass" => 5,
        "normalized" => 4,
        "degraded" => 3,
        "fail" => 1,
        _ => 0,
    };
    before != "absent" && rank(after) > rank(before)
}

/// Classifies one file against its baseline entry: every change is listed, and each one
/// that makes the file worse carries its regression kind.
pub fn classify(before: &BaselineEntry, after: &FileResult) -> FileDiff {
    let now = BaselineEntry::of(after);
    let mut changes = Vec::new();
    if before.status != now.status {
        changes.push(Change {
            tier: "file".into(),
            stream: String::new(),
            before: before.status.clone(),
            after: now.status.clone(),
            kind: regression(&before.status, &now.status).map(str::to_string),
        });
    }
    let keys: BTreeSet<&String> = before.verdicts.keys().chain(now.verdicts.keys()).collect();
    for key in keys {
        let b = before.verdicts.get(key).map_or("absent", String::as_str);
        let a = now.verdicts.get(key).map_or("absent", String::as_str);
        let (tier, stream) = key.split_once(':').unwrap_or((key, ""));
        if a == b {
            // The same verdict with another cause (`era-mismatch` → `unexplained`): a
            // regression whichever way it goes, since the cause is what a reader acts on.
            // A baseline without classes (saved before the triage step) says nothing.
            if let (Some(was), Some(is)) = (before.triage.get(key), now.triage.get(key)) {
                if was != is {
                    changes.push(Change {
                        tier: tier.into(),
                        stream: stream.into(),
                        before: format!("{b} ({was})"),
                        after: format!("{a} ({is})"),
                        kind: Some("triage-class".into()),
                    });
                }
            }
            let (was, is) = (before.degraded_classes.get(key), now.degraded_classes.get(key));
            if let (Some(was), Some(is)) = (was, is) {
                if is > was {
                    changes.push(Change {
                        tier: tier.into(),
                        stream: stream.into(),
                        before: format!("degraded ({was} classes)"),
                        after: format!("degraded ({is} classes)"),
                        kind: Some("degraded-classes-rise".into()),
                    });
                }
            }
            continue;
        }
        changes.push(Change {
            tier: tier.into(),
            stream: stream.into(),
            before: b.into(),
            after: a.into(),
            kind: regression(b, a).map(str::to_string),
        });
    }
    let better = changes.iter().any(|c| c.kind.is_none() && improvement(&c.before, &c.after));
    for (exporter, digest) in &before.exports {
        if now.exports.get(exporter) != Some(digest) {
            changes.push(Change {
                tier: "export".into(),
                stream: exporter.clone(),
                before: digest.clone(),
                after: now.exports.get(exporter).cloned().unwrap_or_else(|| "absent".into()),
                kind: None,
            });
        }
    }
    let class = if changes.iter().any(|c| c.kind.is_some()) {
        DiffClass::Regressed
    } else if better {
        DiffClass::Fixed
    } else {
        DiffClass::Same
    };
    FileDiff { path: after.path.clone(), class, changes }
}

/// Compares a run with a baseline. `rerun` is called for every file that would be
/// called regressed only because it timed out or hit an infra error: it re-runs the
/// file alone and returns the new result; if that no longer regresses the file is
/// `spurious` (and its result replaced).
pub fn compare(
    name: &str,
    baseline: &[BaselineEntry],
    results: &mut [FileResult],
    mut rerun: impl FnMut(&FileResult) -> Option<FileResult>,
) -> BaselineDiff {
    let before: BTreeMap<&str, &BaselineEntry> = baseline.iter().map(|e| (e.path.as_str(), e)).collect();
    let mut files = Vec::new();
    let mut seen = BTreeSet::new();
    for r in results.iter_mut() {
        seen.insert(r.path.clone());
        let Some(b) = before.get(r.path.as_str()) else {
            files.push(FileDiff { path: r.path.clone(), class: DiffClass::New, changes: Vec::new() });
            continue;
        };
        let mut diff = classify(b, r);
        if diff.class == DiffClass::Regressed && matches!(r.status, Status::Timeout | Status::InfraError) {
            if let Some(again) = rerun(r) {
                let second = classify(b, &again);
                if !matches!(again.status, Status::Timeout | Status::InfraError) && second.class != DiffClass::Regressed
                {
                    diff = FileDiff { class: DiffClass::Spurious, ..diff };
                    *r = again;
                }
            }
        }
        files.push(diff);
    }
    for e in baseline.iter().filter(|e| !seen.contains(&e.path)) {
        files.push(FileDiff { path: e.path.clone(), class: DiffClass::Removed, changes: Vec::new() });
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let mut counts: DiffCounts = DiffClass::ALL.iter().map(|c| (c.name().to_string(), 0)).collect();
    for f in &files {
        *counts.entry(f.class.name().to_string()).or_default() += 1;
    }
    BaselineDiff { baseline: name.to_string(), counts, files }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmschema::verdict::{Mismatch, Verdict};
    use pmworker::events::{Tier, TierResult};

    fn result(path: &str, status: Status, t1: Verdict) -> FileResult {
        FileResult {
            path: path.into(),
            status,
            results: vec![TierResult {
                tier: Tier::T1,
                stream: "Scene".into(),
                verdict: t1,
                detail: None,
                triage: None,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn classes() {
        let fail = Verdict::Fail(Mismatch { kind: "chunk-roundtrip".into(), ..Default::default() });
        let base = vec![
            BaselineEntry::of(&result("a", Status::Pass, Verdict::pass())),
            BaselineEntry::of(&result("b", Status::Fail, fail.clone())),
            BaselineEntry::of(&result("c", Status::Pass, Verdict::pass())),
            BaselineEntry::of(&result("gone", Status::Pass, Verdict::pass())),
            BaselineEntry::of(&result("t", Status::Pass, Verdict::pass())),
        ];
        let mut now = vec![
            result("a", Status::Fail, fail.clone()),
            result("b", Status::Pass, Verdict::pass()),
            result("c", Status::Pass, Verdict::pass()),
            result("new", Status::Pass, Verdict::pass()),
            FileResult { path: "t".into(), status: Status::Timeout, ..Default::default() },
        ];
        let diff = compare("x", &base, &mut now, |r| Some(result(&r.path, Status::Pass, Verdict::pass())));
        let class: BTreeMap<_, _> = diff.files.iter().map(|f| (f.path.as_str(), f.class)).collect();
        assert_eq!(class["a"], DiffClass::Regressed);
        assert_eq!(class["b"], DiffClass::Fixed);
        assert_eq!(class["c"], DiffClass::Same);
        assert_eq!(class["new"], DiffClass::New);
        assert_eq!(class["gone"], DiffClass::Removed);
        assert_eq!(class["t"], DiffClass::Spurious);
        assert_eq!(now[4].status, Status::Pass);
        assert_eq!(diff.counts["regressed"], 1);
    }

    fn kinds(before: &FileResult, after: &FileResult) -> Vec<String> {
        classify(&BaselineEntry::of(before), after).changes.into_iter().filter_map(|c| c.kind).collect()
    }

    #[test]
    fn regression_kinds() {
        use pmschema::verdict::DegradedClass;
        let pass = result("a", Status::Pass, Verdict::pass());
        let degraded = |n: u32| {
            let classes = (0..n)
                .map(|i| DegradedClass {
                    class_id: [i, 0],
                    superclass: 1,
                    name: "x".into(),
                    reason: "r".into(),
                    chunk_path: String::new(),
                })
                .collect();
            result("a", Status::Pass, Verdict::Degraded { classes })
        };
        assert_eq!(kinds(&pass, &degraded(1)), ["pass-to-degraded"]);
        assert_eq!(kinds(&degraded(1), &degraded(3)), ["degraded-classes-rise"]);
        assert_eq!(
            kinds(&pass, &result("a", Status::Pass, Verdict::Normalized { reason: "x".into() })),
            ["pass-to-normalized"]
        );
        assert_eq!(kinds(&pass, &result("a", Status::Pass, Verdict::Skip { reason: "x".into() })), ["to-skip"]);
        let gone = FileResult { path: "a".into(), status: Status::Crash, ..Default::default() };
        assert_eq!(kinds(&pass, &gone), ["to-abnormal", "to-absent"]);
        assert_eq!(classify(&BaselineEntry::of(&degraded(3)), &degraded(1)).class, DiffClass::Same);
        assert_eq!(classify(&BaselineEntry::of(&degraded(1)), &pass).class, DiffClass::Fixed);
    }

    /// One T3 result with a triage class.
    fn t3(verdict: Verdict, class: Option<pmschema::TriageClass>) -> FileResult {
        let status = if verdict.is_fail() { Status::Fail } else { Status::Pass };
        let triage = class.map(|class| pmschema::events::ResultTriage {
            class,
            evidence: serde_json::json!({}),
            message: String::new(),
        });
        FileResult {
            path: "a".into(),
            status,
            results: vec![TierResult {
                tier: Tier::T3,
                stream: "pairs/geometry/x.FBX".into(),
                verdict,
                detail: None,
                triage,
            }],
            ..Default::default()
        }
    }

    #[test]
    fn a_triage_class_that_changes_is_a_regression_whichever_way() {
        use pmschema::TriageClass::{EraMismatch, Tolerance, Unexplained};
        let fail = Verdict::Fail(Mismatch { kind: "t3-pairs-geometry".into(), ..Default::default() });
        assert_eq!(kinds(&t3(fail.clone(), Some(EraMismatch)), &t3(fail.clone(), Some(Unexplained))), ["triage-class"]);
        assert_eq!(kinds(&t3(fail.clone(), Some(Unexplained)), &t3(fail.clone(), Some(EraMismatch))), ["triage-class"]);
        // pass → tolerance: the file and its verdict turn `fail` (the class is new, not changed).
        assert_eq!(kinds(&t3(Verdict::pass(), None), &t3(fail.clone(), Some(Tolerance))), ["to-fail", "to-fail"]);
        assert!(kinds(&t3(fail.clone(), Some(Unexplained)), &t3(fail.clone(), Some(Unexplained))).is_empty());
        // A baseline saved before the triage step carries no class: nothing to compare.
        let mut old = BaselineEntry::of(&t3(fail.clone(), Some(EraMismatch)));
        old.triage.clear();
        assert_eq!(classify(&old, &t3(fail.clone(), Some(Unexplained))).class, DiffClass::Same);
        let change = &classify(&BaselineEntry::of(&t3(fail.clone(), Some(EraMismatch))), &t3(fail, Some(Unexplained)))
            .changes[0];
        assert_eq!((change.before.as_str(), change.after.as_str()), ("fail (era-mismatch)", "fail (unexplained)"));
    }

    #[test]
    fn malformed_baselines_are_refused_with_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("b.jsonl");
        for (text, want) in [
            ("{\"path\":\"a\",\"status\":\"wonderful\"}\n", ":1: unknown status `wonderful`"),
            ("{\"path\":\"a\"}\n", ":1: missing field `status`"),
            ("{\"path\":\"a\",\"status\":\"pass\",\"verdicts\":{\"t1:S\":\"great\"}}\n", "unknown verdict"),
            ("{\"path\":\"a\",\"status\":\"pass\",\"verdicts\":{\"t9:S\":\"pass\"}}\n", "is not `t1|t2|t3:stream`"),
            (
                "{\"path\":\"a\",\"status\":\"fail\",\"triage\":{\"t3:S\":\"bad-luck\"}}\n",
                "unknown triage class `bad-luck`",
            ),
            (
                "{\"path\":\"a\",\"status\":\"pass\"}\n\n{\"path\":\"a\",\"status\":\"fail\"}\n",
                ":3: a conflicts with its entry on line 1",
            ),
        ] {
            std::fs::write(&p, text).unwrap();
            let e = load(&p).unwrap_err();
            assert!(e.contains(want), "{text}: {e}");
        }
    }
}
