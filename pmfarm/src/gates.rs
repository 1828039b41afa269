//! Gates: `gates/*.toml` rules evaluated per bucket (globs) and tier. A rule can set a
//! minimum pass rate, a maximum of regressions (default 0 when a baseline is compared),
//! a maximum of degraded classes, T3 floors on exporter counters (in the spirit of the
//! reference `--gate-t3`, digest §6.3) and the normalization whitelist.
//!
//! ```toml
//! [[gate]]
//! name = "t1-byte-exact"
//! buckets = ["all"]          # globs over bucket slugs
//! tier = "t1"                # t1 | t2 | t3 | file
//! min_pass_rate = 1.0
//! max_regressions = 0
//! max_abnormal = 0           # crash, timeout, oom, infra-error
//! max_degraded_classes = 5
//! normalizations = ["…"]     # reasons a `normalized` verdict may carry
//! [gate.t3_min]              # floors on numeric fields of T3 result `detail`
//! drot_exact_ratio = 0.97
//! ```

use crate::buckets::glob_match;
use crate::results::{FileDiff, FileResult, GateOutcome, Status};
use pmcore::verify::Verdict;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// One gate file.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateFile {
    /// Its rules.
    #[serde(default)]
    pub gate: Vec<Rule>,
}

/// One rule.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// Rule name (reported as `<file stem>/<name>`).
    pub name: String,
    /// Bucket globs; default `["all"]`.
    #[serde(default = "default_buckets")]
    pub buckets: Vec<String>,
    /// `t1`, `t2`, `t3` or `file` (file status).
    #[serde(default = "default_tier")]
    pub tier: String,
    /// Minimum share of runnable files that pass this tier (0–1).
    pub min_pass_rate: Option<f64>,
    /// Maximum files regressed against the baseline (0 unless set; only with a baseline).
    pub max_regressions: Option<u64>,
    /// Maximum files that ended abnormally (crash, timeout, oom, infra-error).
    pub max_abnormal: Option<u64>,
    /// Maximum distinct degraded classes (ClassId + superclass) in this tier.
    pub max_degraded_classes: Option<u64>,
    /// Whitelisted normalization reasons; any other reason fails the rule.
    pub normalizations: Option<Vec<String>>,
    /// Floors on numeric T3 `detail` fields (minimum over the bucket's T3 results).
    #[serde(default)]
    pub t3_min: BTreeMap<String, f64>,
}

fn default_buckets() -> Vec<String> {
    vec![crate::buckets::ALL.to_string()]
}

fn default_tier() -> String {
    "file".to_string()
}

/// Loads every `*.toml` in `dir` (sorted); a missing folder means no gates.
pub fn load_dir(dir: &Path) -> Result<Vec<(String, GateFile)>, String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(Vec::new()) };
    let mut paths: Vec<_> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    paths.sort();
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let file: GateFile = toml::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        for r in &file.gate {
            if !["t1", "t2", "t3", "file"].contains(&r.tier.as_str()) {
                return Err(format!("{}: gate `{}`: tier must be t1, t2, t3 or file", p.display(), r.name));
            }
            if r.min_pass_rate.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Err(format!("{}: gate `{}`: min_pass_rate must be within 0..1", p.display(), r.name));
            }
        }
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        out.push((stem, file));
    }
    Ok(out)
}

/// Does `r` pass `tier`? `None` when the tier says nothing about the file (skipped, or
/// no verdicts of that tier without an abnormal end).
fn tier_pass(r: &FileResult, tier: &str) -> Option<bool> {
    if r.status == Status::Skip {
        return None;
    }
    if tier == "file" {
        return Some(r.status == Status::Pass);
    }
    if r.status.is_abnormal() {
        return Some(false); // a crash fails every tier it may have hidden
    }
    let verdicts: Vec<&Verdict> = r.results.iter().filter(|t| t.tier.name() == tier).map(|t| &t.verdict).collect();
    if verdicts.is_empty() {
        return None;
    }
    Some(verdicts.iter().all(|v| !v.is_fail()))
}

/// Evaluates every rule. `diff` is the baseline comparison when one was made.
pub fn evaluate(files: &[(String, GateFile)], results: &[FileResult], diff: Option<&[FileDiff]>) -> Vec<GateOutcome> {
    let all_buckets: BTreeSet<&str> = results.iter().flat_map(|r| r.buckets.iter().map(String::as_str)).collect();
    let regressed: BTreeSet<&str> = diff
        .unwrap_or(&[])
        .iter()
        .filter(|d| d.class == crate::results::DiffClass::Regressed)
        .map(|d| d.path.as_str())
        .collect();
    let mut out = Vec::new();
    for (stem, file) in files {
        for rule in &file.gate {
            let name = format!("{stem}/{}", rule.name);
            let mut matched: Vec<&str> =
                all_buckets.iter().copied().filter(|b| rule.buckets.iter().any(|g| glob_match(g, b))).collect();
            matched.sort();
            for bucket in matched {
                let members: Vec<&FileResult> =
                    results.iter().filter(|r| r.buckets.iter().any(|b| b == bucket)).collect();
                let mut push = |metric: &str, threshold: f64, value: f64, passed: bool, detail: String| {
                    out.push(GateOutcome {
                        name: name.clone(),
                        bucket: bucket.to_string(),
                        tier: rule.tier.clone(),
                        metric: metric.to_string(),
                        threshold,
                        value,
                        passed,
                        detail,
                    })
                };
                if let Some(min) = rule.min_pass_rate {
                    let judged: Vec<bool> = members.iter().filter_map(|r| tier_pass(r, &rule.tier)).collect();
                    let passing = judged.iter().filter(|p| **p).count();
                    let rate = if judged.is_empty() { 1.0 } else { passing as f64 / judged.len() as f64 };
                    let failing: Vec<&str> = members
                        .iter()
                        .filter(|r| tier_pass(r, &rule.tier) == Some(false))
                        .map(|r| r.path.as_str())
                        .take(5)
                        .collect();
                    push(
                        "min_pass_rate",
                        min,
                        rate,
                        rate >= min,
                        format!("{passing}/{} files pass; failing: {}", judged.len(), failing.join(", ")),
                    );
                }
                if let Some(max) = rule.max_abnormal {
                    let bad: Vec<String> = members
                        .iter()
                        .filter(|r| r.status.is_abnormal())
                        .map(|r| format!("{} ({})", r.path, r.status))
                        .collect();
                    push(
                        "max_abnormal",
                        max as f64,
                        bad.len() as f64,
                        bad.len() as u64 <= max,
                        bad.iter().take(5).cloned().collect::<Vec<_>>().join(", "),
                    );
                }
                if diff.is_some() {
                    let max = rule.max_regressions.unwrap_or(0);
                    let n: Vec<&str> =
                        members.iter().map(|r| r.path.as_str()).filter(|p| regressed.contains(p)).collect();
                    push(
                        "max_regressions",
                        max as f64,
                        n.len() as f64,
                        n.len() as u64 <= max,
                        format!("regressed: {}", n.iter().take(5).copied().collect::<Vec<_>>().join(", ")),
                    );
                }
                let tier_results = || {
                    members
                        .iter()
                        .flat_map(|r| r.results.iter())
                        .filter(|t| rule.tier == "file" || t.tier.name() == rule.tier)
                };
                if let Some(max) = rule.max_degraded_classes {
                    let classes: BTreeSet<(u32, u32, u32)> = tier_results()
                        .flat_map(|t| match &t.verdict {
                            Verdict::Degraded { classes } => {
                                classes.iter().map(|c| (c.class_id[0], c.class_id[1], c.superclass)).collect()
                            }
                            _ => Vec::new(),
                        })
                        .collect();
                    push(
                        "max_degraded_classes",
                        max as f64,
                        classes.len() as f64,
                        classes.len() as u64 <= max,
                        String::new(),
                    );
                }
                if let Some(allowed) = &rule.normalizations {
                    let bad: BTreeSet<&str> = tier_results()
                        .filter_map(|t| match &t.verdict {
                            Verdict::Normalized { reason } if !allowed.contains(reason) => Some(reason.as_str()),
                            _ => None,
                        })
                        .collect();
                    push(
                        "normalization",
                        0.0,
                        bad.len() as f64,
                        bad.is_empty(),
                        format!("not whitelisted: {}", bad.into_iter().collect::<Vec<_>>().join(", ")),
                    );
                }
                for (field, floor) in &rule.t3_min {
                    let values: Vec<f64> = members
                        .iter()
                        .flat_map(|r| r.results.iter())
                        .filter(|t| t.tier.name() == "t3")
                        .filter_map(|t| t.detail.as_ref()?.get(field)?.as_f64())
                        .collect();
                    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
                    let value = if values.is_empty() { f64::NAN } else { min };
                    push(
                        &format!("t3:{field}"),
                        *floor,
                        if value.is_nan() { 0.0 } else { value },
                        !values.is_empty() && min >= *floor,
                        if values.is_empty() { "no T3 result carries this field".into() } else { String::new() },
                    );
                }
            }
        }
    }
    out
}
