//! Per-file baselines: `baselines/<name>.jsonl` (one sorted line per file), saved from a
//! run, compared with a later run, and promoted by rewriting the file so the change is a
//! reviewable text diff.

use crate::results::{BaselineDiff, BaselineEntry, Change, DiffClass, DiffCounts, FileDiff, FileResult, Status};
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

/// Reads a baseline file.
pub fn load(path: &Path) -> Result<Vec<BaselineEntry>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("baseline {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(n, l)| serde_json::from_str(l).map_err(|e| format!("{}:{}: {e}", path.display(), n + 1)))
        .collect()
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

/// Rank of a status or verdict: higher is better. Regressed = rank went down.
fn rank(name: &str) -> u8 {
    match name {
        "pass" | "normalized" | "degraded" => 3,
        "skip" => 2,
        "fail" => 1,
        _ => 0, // crash, timeout, oom, infra-error, absent
    }
}

/// Classifies one file against its baseline entry.
pub fn classify(before: &BaselineEntry, after: &FileResult) -> FileDiff {
    let now = BaselineEntry::of(after);
    let mut changes = Vec::new();
    let (mut worse, mut better) = (false, false);
    if before.status != now.status {
        changes.push(Change {
            tier: "file".into(),
            stream: String::new(),
            before: before.status.clone(),
            after: now.status.clone(),
        });
        let (b, a) = (rank(&before.status), rank(&now.status));
        worse |= a < b;
        better |= a > b;
    }
    let keys: BTreeSet<&String> = before.verdicts.keys().chain(now.verdicts.keys()).collect();
    for key in keys {
        let b = before.verdicts.get(key).map_or("absent", String::as_str);
        let a = now.verdicts.get(key).map_or("absent", String::as_str);
        if a == b {
            continue;
        }
        let (tier, stream) = key.split_once(':').unwrap_or((key, ""));
        changes.push(Change { tier: tier.into(), stream: stream.into(), before: b.into(), after: a.into() });
        // pass/normalized/degraded → fail is a regression; the reverse a fix. A verdict that
        // disappears because the whole file crashed is already counted by the status.
        if a == "fail" && rank(b) > 1 {
            worse = true;
        } else if b == "fail" && rank(a) > 1 {
            better = true;
        }
    }
    for (exporter, digest) in &before.exports {
        if now.exports.get(exporter) != Some(digest) {
            changes.push(Change {
                tier: "export".into(),
                stream: exporter.clone(),
                before: digest.clone(),
                after: now.exports.get(exporter).cloned().unwrap_or_else(|| "absent".into()),
            });
        }
    }
    let class = if worse {
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
    use pmcore::verify::{Mismatch, Verdict};
    use pmworker::events::{Tier, TierResult};

    fn result(path: &str, status: Status, t1: Verdict) -> FileResult {
        FileResult {
            path: path.into(),
            status,
            results: vec![TierResult { tier: Tier::T1, stream: "Scene".into(), verdict: t1, detail: None }],
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
}
