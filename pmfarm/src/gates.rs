//! Gates: `gates/*.toml` rules evaluated per bucket (globs) and tier. Every rule is
//! validated before the first worker starts (a rule without a metric, an empty file or an
//! empty folder is a configuration error), and a rule that ends up checking nothing says
//! so instead of reading as green: skips are never passes.
//!
//! ```toml
//! [[gate]]
//! name = "t1-byte-exact"
//! buckets = ["all"]          # globs over bucket slugs; default ["all"]
//! tier = "t1"                # t1 | t2 | t3 | file
//! min_pass_rate = 1.0        # over files that ran the tier (skips and not-run excluded)
//! max_skip_rate = 0.0        # skipped / (ran + skipped)
//! min_ran = 1                # files that ran the tier
//! max_regressions = 0        # only with a baseline; `allow_regressions` lists kinds not counted
//! max_abnormal = 0           # crash, timeout, oom, infra-error
//! max_degraded_classes = 5
//! normalizations = ["…"]     # reasons a `normalized` verdict may carry
//! expected_skips = ["lfs-pointer"]   # skip reason classes that are expected
//! [gate.t3_min]              # floors on T3 `detail` values addressed by path
//! "fields.default_rot_quat.bit_exact" = 1
//! [gate.t3_share_min]        # share of counters among their siblings, summed over files
//! "fields.default_rot_quat.bit_exact" = 0.97
//! ```
//!
//! `docs/gates.md` documents every metric and what pass/fail/skip/degraded/not-run mean for it.

use crate::buckets::glob_match;
use crate::results::{FileDiff, FileResult, GateOutcome, Status};
use pmschema::results::t3_comparison as comparison_of;
use pmschema::verdict::Verdict;
use pmschema::TriageClass;
use pmworker::events::Tier;

/// The `tier` of a rule about file statuses rather than one tier's verdicts.
pub const FILE_SCOPE: &str = "file";
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

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
    /// `t1`, `t2`, `t3` or `file` (file status). A tier rule applies only when its tier
    /// was requested for the run.
    #[serde(default = "default_tier")]
    pub tier: String,
    /// Minimum share of the files that ran the tier (pass or fail) that pass it (0–1).
    pub min_pass_rate: Option<f64>,
    /// Maximum share of skipped among the files that reached the tier (0–1).
    pub max_skip_rate: Option<f64>,
    /// Minimum number of files that ran the tier.
    pub min_ran: Option<u64>,
    /// Maximum files regressed against the baseline (0 unless set; only with a baseline).
    pub max_regressions: Option<u64>,
    /// Regression kinds (`docs/results.md`) this rule does not count.
    #[serde(default)]
    pub allow_regressions: Vec<String>,
    /// Maximum files that ended abnormally (crash, timeout, oom, infra-error).
    pub max_abnormal: Option<u64>,
    /// Maximum distinct degraded classes (ClassId + superclass) in this tier.
    pub max_degraded_classes: Option<u64>,
    /// Whitelisted normalization reasons; any other reason fails the rule.
    pub normalizations: Option<Vec<String>>,
    /// Skip reason classes that are expected; a skip of any other class fails the rule.
    pub expected_skips: Option<Vec<String>>,
    /// Failure kinds that are expected (`corrupt-input`: the file itself is broken; globs
    /// allowed: `t3-*` leaves T3 misses to the triage rules); a file whose status is `fail`
    /// with any other kind fails the rule.
    pub expected_fails: Option<Vec<String>>,
    /// Floors on numeric T3 `detail` values addressed by a dotted path (the minimum over
    /// the bucket's T3 results carrying the path must reach it). An array counts its items.
    #[serde(default)]
    pub t3_min: BTreeMap<String, f64>,
    /// Ceilings on T3 `detail` values (the maximum over the bucket's T3 results).
    #[serde(default)]
    pub t3_max: BTreeMap<String, f64>,
    /// Floors on shares: `a.b.c` (or `a.b.c+d`) is the sum of counter `c` (and `d`) over the
    /// bucket's T3 results divided by the sum of every numeric sibling in `a.b`.
    #[serde(default)]
    pub t3_share_min: BTreeMap<String, f64>,
    /// Floors per T3 comparison (a glob over `pairs/hierarchy`, `summary/objects`,
    /// `nel-shape` …): passing results ÷ the results that compared, less the evidenced
    /// `era-mismatch` ones (`docs/triage.md`). A skip the reference or the file could not
    /// give anything to (`not-applicable`, `reference-absent`) never compared.
    #[serde(default)]
    pub t3_floor: BTreeMap<String, f64>,
    /// Maximum `unexplained` T3 results over every comparison of the bucket.
    pub max_unexplained: Option<u64>,
    /// Maximum `unexplained` T3 results per comparison glob.
    #[serde(default)]
    pub t3_max_unexplained: BTreeMap<String, u64>,
}

fn default_buckets() -> Vec<String> {
    vec![crate::buckets::ALL.to_string()]
}

fn default_tier() -> String {
    FILE_SCOPE.to_string()
}

impl Rule {
    /// True when the rule sets at least one metric.
    fn has_metric(&self) -> bool {
        self.min_pass_rate.is_some()
            || self.max_skip_rate.is_some()
            || self.min_ran.is_some()
            || self.max_regressions.is_some()
            || self.max_abnormal.is_some()
            || self.max_degraded_classes.is_some()
            || self.normalizations.is_some()
            || self.expected_skips.is_some()
            || self.expected_fails.is_some()
            || !self.t3_min.is_empty()
            || !self.t3_max.is_empty()
            || !self.t3_share_min.is_empty()
            || !self.t3_floor.is_empty()
            || self.max_unexplained.is_some()
            || !self.t3_max_unexplained.is_empty()
    }

    /// What is wrong with the rule, if anything.
    fn problem(&self) -> Option<String> {
        if self.name.trim().is_empty() {
            return Some("a rule has an empty name".into());
        }
        if self.tier != FILE_SCOPE && self.tier.parse::<Tier>().is_err() {
            return Some(format!("tier must be {} or {FILE_SCOPE}", Tier::names()));
        }
        if self.expected_fails.is_some() && self.tier != FILE_SCOPE {
            return Some("expected_fails judges file statuses: it needs tier = \"file\"".into());
        }
        if !self.has_metric() {
            return Some(
                "no metric (set min_pass_rate, max_skip_rate, min_ran, max_regressions, max_abnormal, \
                 max_degraded_classes, normalizations, expected_skips, expected_fails, t3_min, t3_max, t3_share_min, \
                 t3_floor, max_unexplained or t3_max_unexplained)"
                    .into(),
            );
        }
        if self.buckets.is_empty() || self.buckets.iter().any(|b| b.trim().is_empty()) {
            return Some("buckets must list at least one non-empty glob".into());
        }
        for (key, v) in [("min_pass_rate", self.min_pass_rate), ("max_skip_rate", self.max_skip_rate)] {
            if v.is_some_and(|v| !(0.0..=1.0).contains(&v)) {
                return Some(format!("{key} must be within 0..1"));
            }
        }
        let t3_paths = self.t3_min.keys().chain(self.t3_max.keys()).chain(self.t3_share_min.keys());
        for path in t3_paths {
            if self.tier != Tier::T3.name() {
                return Some(format!("`{path}`: T3 detail metrics need tier = \"t3\""));
            }
            if path.split('.').any(|s| s.is_empty()) {
                return Some(format!("`{path}`: empty segment in the detail path"));
            }
        }
        if self.t3_share_min.values().any(|v| !(0.0..=1.0).contains(v)) {
            return Some("t3_share_min values must be within 0..1".into());
        }
        let triage_metrics =
            !self.t3_floor.is_empty() || self.max_unexplained.is_some() || !self.t3_max_unexplained.is_empty();
        if triage_metrics && self.tier != Tier::T3.name() {
            return Some(
                "t3_floor, max_unexplained and t3_max_unexplained judge T3 results: they need tier = \"t3\"".into(),
            );
        }
        if self.t3_floor.values().any(|v| !(0.0..=1.0).contains(v)) {
            return Some("t3_floor values must be within 0..1".into());
        }
        if self.t3_floor.keys().chain(self.t3_max_unexplained.keys()).any(|k| k.trim().is_empty()) {
            return Some("t3_floor / t3_max_unexplained: empty comparison glob".into());
        }
        for kind in &self.allow_regressions {
            if !crate::baseline::REGRESSION_KINDS.contains(&kind.as_str()) {
                return Some(format!(
                    "allow_regressions: unknown kind `{kind}` (known: {})",
                    crate::baseline::REGRESSION_KINDS.join(", ")
                ));
            }
        }
        None
    }
}

/// The loaded rules: `(file stem, file)` per gate file, sorted.
pub type Rules = Vec<(String, GateFile)>;

/// Where the gates come from: a folder, or none (`--no-gates`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GateSource {
    /// `--no-gates`: the run is not gated.
    Disabled,
    /// The rules in this folder.
    Dir(PathBuf),
}

/// Loads every `*.toml` in `dir` (sorted) and validates every rule. A missing folder, a
/// folder without rule files, a file without rules, a rule without a metric, an empty
/// bucket list or a repeated rule name is an error naming the file.
pub fn load_dir(dir: &Path) -> Result<Rules, String> {
    let entries = std::fs::read_dir(dir).map_err(|e| {
        format!("gates folder {}: {e} (pass --gates DIR, or --no-gates to run without gates)", dir.display())
    })?;
    let mut paths: Vec<_> =
        entries.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|e| e == "toml")).collect();
    paths.sort();
    if paths.is_empty() {
        return Err(format!(
            "gates folder {} holds no *.toml rule file (pass --gates DIR, or --no-gates to run without gates)",
            dir.display()
        ));
    }
    let mut out = Vec::new();
    for p in paths {
        let text = std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        let file: GateFile = toml::from_str(&text).map_err(|e| format!("{}: {e}", p.display()))?;
        if file.gate.is_empty() {
            return Err(format!("{}: no [[gate]] rule (a gate file that checks nothing is an error)", p.display()));
        }
        let mut names = BTreeSet::new();
        for r in &file.gate {
            if let Some(problem) = r.problem() {
                return Err(format!("{}: gate `{}`: {problem}", p.display(), r.name));
            }
            if !names.insert(r.name.as_str()) {
                return Err(format!("{}: gate `{}` is defined twice", p.display(), r.name));
            }
        }
        let stem = p.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        out.push((stem, file));
    }
    Ok(out)
}

/// Loads the rules of a source (none for [`GateSource::Disabled`]).
pub fn load(source: &GateSource) -> Result<Rules, String> {
    match source {
        GateSource::Disabled => Ok(Vec::new()),
        GateSource::Dir(d) => load_dir(d),
    }
}

/// How one file stands for one tier of a rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TierOutcome {
    /// Ran the tier and nothing failed (normalized and degraded included).
    Pass,
    /// Ran the tier and a verdict failed (or, for `file`, the file's status is `fail`).
    Fail,
    /// Reached the tier but every verdict of it is a skip; the reason of the first.
    Skip(String),
    /// No verdict of the tier: the worker ended abnormally before it, or the input was
    /// not checkable at that tier (counted once, by the abnormal-end or file-status rule).
    NotRun,
}

/// The class of a skip reason: the text before the first `:`, as a slug
/// (`not-implemented: biped rig` → `not-implemented`, `lfs-pointer` → `lfs-pointer`).
pub fn skip_class(reason: &str) -> String {
    pmcore::slug(reason.split(':').next().unwrap_or(reason).trim())
}

/// How `r` stands for `tier` (`t1`, `t2`, `t3` or `file`).
pub fn tier_outcome(r: &FileResult, tier: &str) -> TierOutcome {
    if r.status == Status::Skip {
        return TierOutcome::Skip(r.reason.clone().unwrap_or_else(|| "skip".into()));
    }
    if tier == FILE_SCOPE {
        return match r.status {
            Status::Pass => TierOutcome::Pass,
            Status::Fail => TierOutcome::Fail,
            _ => TierOutcome::NotRun,
        };
    }
    let verdicts: Vec<&Verdict> = r.results.iter().filter(|t| t.tier.name() == tier).map(|t| &t.verdict).collect();
    if verdicts.is_empty() {
        return TierOutcome::NotRun;
    }
    if verdicts.iter().any(|v| v.is_fail()) {
        return TierOutcome::Fail;
    }
    let ran = verdicts.iter().any(|v| !matches!(v, Verdict::Skip { .. }));
    if ran {
        return TierOutcome::Pass;
    }
    let reason = verdicts
        .iter()
        .find_map(|v| match v {
            Verdict::Skip { reason } => Some(reason.clone()),
            _ => None,
        })
        .unwrap_or_default();
    TierOutcome::Skip(reason)
}

/// The value at a dotted path inside a JSON value: a number, or an array's length.
pub fn detail_value(detail: &serde_json::Value, path: &str) -> Option<f64> {
    let mut v = detail;
    for seg in path.split('.') {
        v = v.get(seg)?;
    }
    match v {
        serde_json::Value::Array(a) => Some(a.len() as f64),
        other => other.as_f64(),
    }
}

/// `(selected, total)` of a share path: the counters named by the last segment (`a+b`)
/// and the sum of every numeric sibling, or `None` when the parent object is absent.
fn share_parts(detail: &serde_json::Value, path: &str) -> Option<(f64, f64)> {
    let (parent, last) = path.rsplit_once('.').unwrap_or(("", path));
    let mut v = detail;
    if !parent.is_empty() {
        for seg in parent.split('.') {
            v = v.get(seg)?;
        }
    }
    let obj = v.as_object()?;
    let total: f64 = obj.values().filter_map(|x| x.as_f64()).sum();
    let mut selected = 0.0;
    for name in last.split('+') {
        selected += obj.get(name.trim())?.as_f64()?;
    }
    Some((selected, total))
}

/// Bucket slugs closest to `glob` (edit distance), for the "matched no bucket" error.
pub fn closest_buckets<'a>(glob: &str, buckets: &BTreeSet<&'a str>, n: usize) -> Vec<&'a str> {
    let mut ranked: Vec<(usize, &str)> = buckets.iter().map(|b| (edit_distance(glob, b), *b)).collect();
    ranked.sort();
    ranked.into_iter().take(n).map(|(_, b)| b).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

/// What a rule is evaluated against besides the results.
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    /// Baseline comparison, when one was made.
    pub diff: Option<&'a [FileDiff]>,
    /// Tiers the run requested (a tier rule applies only to a requested tier).
    pub tiers: &'a [Tier],
    /// `false` for one shard of a sharded run: the "rule matched no bucket" check then waits
    /// for `pmfarm merge`, which sees every file.
    pub complete: bool,
}

/// Evaluates every rule.
pub fn evaluate(files: &[(String, GateFile)], results: &[FileResult], ctx: Context<'_>) -> Vec<GateOutcome> {
    let all_buckets: BTreeSet<&str> = results.iter().flat_map(|r| r.buckets.iter().map(String::as_str)).collect();
    let mut out = Vec::new();
    for (stem, file) in files {
        for rule in &file.gate {
            let name = format!("{stem}/{}", rule.name);
            let outcome = |bucket: &str, metric: &str| GateOutcome {
                name: name.clone(),
                bucket: bucket.to_string(),
                tier: rule.tier.clone(),
                metric: metric.to_string(),
                threshold: 0.0,
                value: 0.0,
                passed: true,
                checked: true,
                detail: String::new(),
            };
            let requested = rule.tier == FILE_SCOPE || ctx.tiers.iter().any(|t| t.name() == rule.tier);
            if !requested {
                out.push(GateOutcome {
                    checked: false,
                    detail: format!("not applicable: tier {} was not requested for this run", rule.tier),
                    ..outcome(&rule.buckets.join(","), "applies")
                });
                continue;
            }
            let matched: Vec<&str> =
                all_buckets.iter().copied().filter(|b| rule.buckets.iter().any(|g| glob_match(g, b))).collect();
            if matched.is_empty() {
                if ctx.complete {
                    let near: Vec<&str> =
                        rule.buckets.iter().flat_map(|g| closest_buckets(g, &all_buckets, 3)).collect();
                    out.push(GateOutcome {
                        passed: false,
                        value: 0.0,
                        detail: format!(
                            "bucket glob(s) {} matched no bucket of this run; closest bucket names: {}",
                            rule.buckets.join(", "),
                            near.join(", ")
                        ),
                        ..outcome(&rule.buckets.join(","), "buckets")
                    });
                } else {
                    out.push(GateOutcome {
                        checked: false,
                        detail: "no bucket of this shard matches; checked again by `pmfarm merge`".into(),
                        ..outcome(&rule.buckets.join(","), "buckets")
                    });
                }
                continue;
            }
            for bucket in matched {
                let members: Vec<&FileResult> =
                    results.iter().filter(|r| r.buckets.iter().any(|b| b == bucket)).collect();
                evaluate_bucket(rule, &members, ctx, &mut |metric, threshold, value, passed, checked, detail| {
                    out.push(GateOutcome { threshold, value, passed, checked, detail, ..outcome(bucket, metric) })
                });
            }
        }
    }
    out
}

/// The lines a run prints when its gates do not hold: one per failing metric, or the
/// error that gates were configured but no rule checked anything. Empty = gates hold.
pub fn failures(outcomes: &[GateOutcome], gated: bool) -> Vec<String> {
    let mut out: Vec<String> = outcomes
        .iter()
        .filter(|g| !g.passed)
        .map(|g| {
            format!(
                "GATE FAILED {} [bucket {}, tier {}]: {} = {} (threshold {}){}",
                g.name,
                g.bucket,
                g.tier,
                g.metric,
                trim_float(g.value),
                trim_float(g.threshold),
                if g.detail.is_empty() { String::new() } else { format!(" — {}", g.detail) }
            )
        })
        .collect();
    if gated && out.is_empty() && !outcomes.iter().any(|g| g.checked) {
        out.push(format!(
            "GATES CHECKED NOTHING: {} rule outcome(s), none judged a file ({})",
            outcomes.len(),
            outcomes.iter().map(|g| g.detail.as_str()).take(3).collect::<Vec<_>>().join("; ")
        ));
    }
    out
}

fn trim_float(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.4}")
    }
}

/// `metric, threshold, value, passed, checked, detail`.
type Push<'a> = dyn FnMut(&str, f64, f64, bool, bool, String) + 'a;

fn first_paths(files: &[&FileResult]) -> String {
    let v: Vec<&str> = files.iter().map(|r| r.path.as_str()).take(5).collect();
    v.join(", ")
}

/// What a rule's checks see of one bucket: its files and their outcome in the rule's tier.
struct Tally<'a> {
    /// The rule's tier (`file` for whole-file rules).
    tier: &'a str,
    members: &'a [&'a FileResult],
    passed: Vec<&'a FileResult>,
    failed: Vec<&'a FileResult>,
    skipped: Vec<(&'a FileResult, String)>,
    /// Files that passed or failed the tier (a skip never counts as a run).
    ran: usize,
    /// `N pass, N fail, N skip, N not run (of N files)`, for the details.
    counts: String,
}

impl<'a> Tally<'a> {
    fn of(members: &'a [&'a FileResult], tier: &'a str) -> Tally<'a> {
        let (mut passed, mut failed, mut skipped, mut not_run) = (Vec::new(), Vec::new(), Vec::new(), 0);
        for r in members {
            match tier_outcome(r, tier) {
                TierOutcome::Pass => passed.push(*r),
                TierOutcome::Fail => failed.push(*r),
                TierOutcome::Skip(reason) => skipped.push((*r, reason)),
                TierOutcome::NotRun => not_run += 1,
            }
        }
        let counts = format!(
            "{} pass, {} fail, {} skip, {not_run} not run (of {} files)",
            passed.len(),
            failed.len(),
            skipped.len(),
            members.len()
        );
        let ran = passed.len() + failed.len();
        Tally { tier, members, passed, failed, skipped, ran, counts }
    }

    /// The verdicts of the rule's tier (every tier for whole-file rules).
    fn tier_results(&self) -> impl Iterator<Item = &'a pmworker::events::TierResult> + '_ {
        let tier = self.tier;
        self.members.iter().flat_map(|r| r.results.iter()).filter(move |t| tier == FILE_SCOPE || t.tier.name() == tier)
    }

    /// The `detail` objects of the T3 verdicts.
    fn t3_details(&self) -> impl Iterator<Item = &'a serde_json::Value> + '_ {
        self.tier_results().filter(|t| t.tier == Tier::T3).filter_map(|t| t.detail.as_ref())
    }
}

/// One gate kind: judges a rule on one bucket and pushes its outcomes (nothing when the
/// rule does not set the kind's key).
type Check = fn(&Rule, &Tally<'_>, Context<'_>, &mut Push<'_>);

/// Every gate kind, in the order their outcomes are listed. Adding a kind is its key in
/// [`Rule`] (read from TOML, named in [`Rule::has_metric`]) and one function here.
const CHECKS: &[Check] = &[
    min_pass_rate,
    max_skip_rate,
    min_ran,
    expected_skips,
    expected_fails,
    max_abnormal,
    max_regressions,
    max_degraded_classes,
    normalizations,
    t3_min,
    t3_max,
    t3_share_min,
    t3_floor,
    max_unexplained,
];

fn evaluate_bucket(rule: &Rule, members: &[&FileResult], ctx: Context<'_>, push: &mut Push<'_>) {
    let tally = Tally::of(members, rule.tier.as_str());
    for check in CHECKS {
        check(rule, &tally, ctx, push);
    }
}

fn min_pass_rate(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(min) = rule.min_pass_rate else { return };
    if t.ran == 0 {
        push("min_pass_rate", min, 0.0, true, false, format!("no file ran {}: {}", t.tier, t.counts));
        return;
    }
    let rate = t.passed.len() as f64 / t.ran as f64;
    let mut detail = format!("{}/{} files that ran {} pass; {}", t.passed.len(), t.ran, t.tier, t.counts);
    if !t.failed.is_empty() {
        detail.push_str(&format!("; failing: {}", first_paths(&t.failed)));
    }
    push("min_pass_rate", min, rate, rate >= min, true, detail);
}

fn max_skip_rate(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(max) = rule.max_skip_rate else { return };
    let reached = t.ran + t.skipped.len();
    let rate = if reached == 0 { 0.0 } else { t.skipped.len() as f64 / reached as f64 };
    let mut classes: BTreeMap<String, u64> = BTreeMap::new();
    for (_, reason) in &t.skipped {
        *classes.entry(skip_class(reason)).or_default() += 1;
    }
    let by_class: Vec<String> = classes.iter().map(|(c, n)| format!("{n} {c}")).collect();
    let detail = format!("{}/{reached} skipped ({}); {}", t.skipped.len(), by_class.join(", "), t.counts);
    push("max_skip_rate", max, rate, rate <= max, reached > 0, detail);
}

fn min_ran(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(min) = rule.min_ran else { return };
    let detail = format!("{} files ran {}; {}", t.ran, t.tier, t.counts);
    push("min_ran", min as f64, t.ran as f64, t.ran as u64 >= min, true, detail);
}

fn expected_skips(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(allowed) = &rule.expected_skips else { return };
    let unexpected: Vec<String> = t
        .skipped
        .iter()
        .filter(|(_, reason)| !allowed.contains(&skip_class(reason)))
        .map(|(r, reason)| format!("{} ({reason})", r.path))
        .collect();
    let detail = if unexpected.is_empty() {
        format!("{} skips, all of an expected class", t.skipped.len())
    } else {
        format!("unexpected skips: {}", unexpected.iter().take(5).cloned().collect::<Vec<_>>().join(", "))
    };
    push("expected_skips", 0.0, unexpected.len() as f64, unexpected.is_empty(), !t.members.is_empty(), detail);
}

fn expected_fails(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(allowed) = &rule.expected_fails else { return };
    let unexpected: Vec<String> = t
        .members
        .iter()
        .filter(|r| r.status == Status::Fail && !r.fail_kinds.iter().all(|k| allowed.iter().any(|a| glob_match(a, k))))
        .map(|r| format!("{} ({})", r.path, r.fail_kinds.join(", ")))
        .collect();
    let expected = t.failed.len() - unexpected.len().min(t.failed.len());
    let detail = if unexpected.is_empty() {
        format!("{expected} fails, all of an expected kind")
    } else {
        format!("unexpected fails: {}", unexpected.iter().take(5).cloned().collect::<Vec<_>>().join(", "))
    };
    push("expected_fails", 0.0, unexpected.len() as f64, unexpected.is_empty(), !t.members.is_empty(), detail);
}

fn max_abnormal(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(max) = rule.max_abnormal else { return };
    let bad: Vec<String> =
        t.members.iter().filter(|r| r.status.is_abnormal()).map(|r| format!("{} ({})", r.path, r.status)).collect();
    let detail = bad.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    push("max_abnormal", max as f64, bad.len() as f64, bad.len() as u64 <= max, !t.members.is_empty(), detail);
}

/// Judged whenever a baseline was compared (a rule without the key allows none); without
/// one, a rule that sets it says it checked nothing.
fn max_regressions(rule: &Rule, t: &Tally<'_>, ctx: Context<'_>, push: &mut Push<'_>) {
    let Some(diff) = ctx.diff else {
        if let Some(max) = rule.max_regressions {
            let detail = "no baseline compared (pass --baseline NAME)".to_string();
            push("max_regressions", max as f64, 0.0, true, false, detail);
        }
        return;
    };
    let max = rule.max_regressions.unwrap_or(0);
    let regressed: BTreeMap<&str, Vec<&str>> = diff
        .iter()
        .filter_map(|d| {
            let kinds: Vec<&str> = d
                .changes
                .iter()
                .filter_map(|c| c.kind.as_deref())
                .filter(|k| !rule.allow_regressions.iter().any(|a| a == k))
                .collect();
            (!kinds.is_empty()).then_some((d.path.as_str(), kinds))
        })
        .collect();
    let n: Vec<String> = t
        .members
        .iter()
        .filter_map(|r| regressed.get(r.path.as_str()).map(|k| format!("{} ({})", r.path, k.join(", "))))
        .collect();
    let detail = format!("regressed: {}", n.iter().take(5).cloned().collect::<Vec<_>>().join(", "));
    push("max_regressions", max as f64, n.len() as f64, n.len() as u64 <= max, !t.members.is_empty(), detail);
}

fn max_degraded_classes(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(max) = rule.max_degraded_classes else { return };
    let classes: BTreeSet<(u32, u32, u32)> = t
        .tier_results()
        .flat_map(|r| match &r.verdict {
            Verdict::Degraded { classes } => {
                classes.iter().map(|c| (c.class_id[0], c.class_id[1], c.superclass)).collect()
            }
            _ => Vec::new(),
        })
        .collect();
    let n = classes.len();
    push("max_degraded_classes", max as f64, n as f64, n as u64 <= max, t.ran > 0, String::new());
}

fn normalizations(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let Some(allowed) = &rule.normalizations else { return };
    let bad: BTreeSet<&str> = t
        .tier_results()
        .filter_map(|r| match &r.verdict {
            Verdict::Normalized { reason } if !allowed.contains(reason) => Some(reason.as_str()),
            _ => None,
        })
        .collect();
    let detail = format!("not whitelisted: {}", bad.iter().copied().collect::<Vec<_>>().join(", "));
    push("normalization", 0.0, bad.len() as f64, bad.is_empty(), t.ran > 0, detail);
}

/// A missing measurement is never green: a path no T3 result carries fails.
fn missing(path: &str) -> String {
    format!("no T3 result carries `{path}` (a missing measurement is never green)")
}

fn t3_min(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    for (path, floor) in &rule.t3_min {
        let values: Vec<f64> = t.t3_details().filter_map(|d| detail_value(d, path)).collect();
        let min = values.iter().copied().fold(f64::INFINITY, f64::min);
        let (value, passed, detail) = if values.is_empty() {
            (0.0, false, missing(path))
        } else {
            (min, min >= *floor, format!("minimum over {} T3 results", values.len()))
        };
        push(&format!("t3_min:{path}"), *floor, value, passed, true, detail);
    }
}

fn t3_max(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    for (path, ceiling) in &rule.t3_max {
        let values: Vec<f64> = t.t3_details().filter_map(|d| detail_value(d, path)).collect();
        let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (value, passed, detail) = if values.is_empty() {
            (0.0, false, missing(path))
        } else {
            (max, max <= *ceiling, format!("maximum over {} T3 results", values.len()))
        };
        push(&format!("t3_max:{path}"), *ceiling, value, passed, true, detail);
    }
}

fn t3_share_min(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    for (path, floor) in &rule.t3_share_min {
        let parts: Vec<(f64, f64)> = t.t3_details().filter_map(|d| share_parts(d, path)).collect();
        let (sel, total) = parts.iter().fold((0.0, 0.0), |(a, b), (x, y)| (a + x, b + y));
        let (value, passed, detail) = if total <= 0.0 {
            (0.0, false, format!("no T3 result carries counters at `{path}` (a missing measurement is never green)"))
        } else {
            let share = sel / total;
            (share, share >= *floor, format!("{sel}/{total} over {} T3 results", parts.len()))
        };
        push(&format!("t3_share_min:{path}"), *floor, value, passed, true, detail);
    }
}

/// How the bucket's T3 results of the comparisons matching `glob` stand, by triage
/// (`docs/triage.md`): passes, evidenced era mismatches, skips that never compared
/// (`not-applicable`, `reference-absent`), unexplained misses (a miss without a triage
/// object counts as one), and every result.
#[derive(Default)]
struct TriageTally {
    results: usize,
    pass: usize,
    era: usize,
    not_compared: usize,
    unexplained: Vec<String>,
    others: Vec<String>,
}

/// An `era-mismatch` with one of the evidence kinds `docs/triage.md` lists.
fn evidenced(t: &pmschema::events::ResultTriage) -> bool {
    const KINDS: [&str; 7] = [
        "missing_nodes",
        "keys_absent",
        "take_beyond_keys",
        "other_export",
        "turned_as_one",
        "other_revision",
        "figure_era",
    ];
    t.class == TriageClass::EraMismatch && KINDS.iter().any(|k| t.evidence.get(k).is_some_and(|v| !v.is_null()))
}

fn triage_tally(t: &Tally<'_>, glob: &str) -> TriageTally {
    let mut out = TriageTally::default();
    for r in t.members {
        for result in r.results.iter().filter(|x| x.tier == Tier::T3) {
            if !glob_match(glob, &comparison_of(&result.stream)) {
                continue;
            }
            out.results += 1;
            let at = || format!("{} {}", r.path, result.stream);
            match (&result.verdict, &result.triage) {
                (Verdict::Fail(_) | Verdict::Skip { .. }, None) => out.unexplained.push(at()),
                (Verdict::Fail(_) | Verdict::Skip { .. }, Some(c)) => match c.class {
                    TriageClass::Unexplained => out.unexplained.push(at()),
                    TriageClass::NotApplicable | TriageClass::ReferenceAbsent => out.not_compared += 1,
                    _ if evidenced(c) => out.era += 1,
                    _ => out.others.push(format!("{} ({})", at(), c.class)),
                },
                _ => out.pass += 1,
            }
        }
    }
    out
}

fn t3_floor(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    for (glob, floor) in &rule.t3_floor {
        let n = triage_tally(t, glob);
        let metric = format!("t3_floor:{glob}");
        if n.results == 0 {
            push(&metric, *floor, 0.0, true, false, format!("no T3 result of a comparison matching `{glob}`"));
            continue;
        }
        let compared = n.results - n.not_compared - n.era;
        let rate = if compared == 0 { 1.0 } else { n.pass as f64 / compared as f64 };
        let missed: Vec<&String> = n.unexplained.iter().chain(&n.others).take(5).collect();
        let detail = format!(
            "{} pass of {compared} compared ({} results, {} evidenced era-mismatch, {} not compared){}",
            n.pass,
            n.results,
            n.era,
            n.not_compared,
            if missed.is_empty() {
                String::new()
            } else {
                format!("; missing: {}", missed.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "))
            }
        );
        push(&metric, *floor, rate, rate >= *floor, true, detail);
    }
}

fn max_unexplained(rule: &Rule, t: &Tally<'_>, _: Context<'_>, push: &mut Push<'_>) {
    let all = rule.max_unexplained.map(|max| ("*".to_string(), max));
    for (glob, max) in all.into_iter().chain(rule.t3_max_unexplained.iter().map(|(g, m)| (g.clone(), *m))) {
        let n = triage_tally(t, &glob);
        let metric = if glob == "*" && rule.max_unexplained.is_some() && !rule.t3_max_unexplained.contains_key("*") {
            "max_unexplained".to_string()
        } else {
            format!("t3_max_unexplained:{glob}")
        };
        let count = n.unexplained.len();
        let detail = format!(
            "{count} unexplained of {} T3 results{}",
            n.results,
            if count == 0 {
                String::new()
            } else {
                format!(": {}", n.unexplained.iter().take(5).cloned().collect::<Vec<_>>().join(", "))
            }
        );
        push(&metric, max as f64, count as f64, count as u64 <= max, n.results > 0, detail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmworker::events::TierResult;

    fn result(path: &str, status: Status, verdicts: Vec<(Tier, Verdict)>) -> FileResult {
        let mut r = FileResult {
            path: path.into(),
            status,
            results: verdicts
                .into_iter()
                .map(|(tier, verdict)| TierResult { tier, stream: "s".into(), verdict, detail: None, triage: None })
                .collect(),
            ..Default::default()
        };
        r.buckets = crate::buckets::buckets_of(&r);
        r
    }

    fn rules(toml: &str) -> Vec<(String, GateFile)> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("g.toml"), toml).unwrap();
        load_dir(dir.path()).unwrap()
    }

    fn ctx(tiers: &[Tier]) -> Context<'_> {
        Context { diff: None, tiers, complete: true }
    }

    /// A file with one T3 result per `(stream, verdict, class, evidence)`.
    fn t3_file(path: &str, results: &[(&str, bool, Option<TriageClass>, serde_json::Value)]) -> FileResult {
        let results = results
            .iter()
            .map(|(stream, passed, class, evidence)| TierResult {
                tier: Tier::T3,
                stream: stream.to_string(),
                verdict: if *passed {
                    Verdict::pass()
                } else {
                    Verdict::Fail(pmschema::verdict::Mismatch { kind: "t3-pairs".into(), ..Default::default() })
                },
                detail: None,
                triage: class.map(|class| pmschema::events::ResultTriage {
                    class,
                    evidence: evidence.clone(),
                    message: String::new(),
                }),
            })
            .collect();
        let mut r = FileResult { path: path.into(), status: Status::Fail, results, ..Default::default() };
        r.buckets = crate::buckets::buckets_of(&r);
        r
    }

    #[test]
    fn the_floor_leaves_out_evidenced_era_mismatches_and_unexplained_misses_are_capped() {
        use serde_json::json;
        let evidence = json!({ "missing_nodes": ["chair"] });
        let files = vec![
            t3_file(
                "a.max",
                &[
                    ("pairs/hierarchy/a.FBX", true, None, json!(null)),
                    ("pairs/geometry/a.FBX", true, None, json!(null)),
                ],
            ),
            t3_file("b.max", &[("pairs/hierarchy/b.FBX", false, Some(TriageClass::EraMismatch), evidence.clone())]),
            // Claimed era-mismatch without evidence: never left out of the floor.
            t3_file("c.max", &[("pairs/hierarchy/c.FBX", false, Some(TriageClass::EraMismatch), json!({}))]),
            t3_file(
                "d.max",
                &[
                    ("pairs/geometry/d.FBX", false, Some(TriageClass::Unexplained), json!({})),
                    ("pairs/skin/d.FBX", false, None, json!(null)),
                ],
            ),
        ];
        let g = rules(
            "[[gate]]\nname = \"t\"\ntier = \"t3\"\nmax_unexplained = 1\n[gate.t3_floor]\n\"pairs/hierarchy\" = 1.0\n\"pairs/*\" = 0.5\n\"nel-shape\" = 1.0\n[gate.t3_max_unexplained]\n\"pairs/geometry\" = 1\n",
        );
        let out = evaluate(&g, &files, ctx(&[Tier::T3]));
        let get = |m: &str| {
            out.iter().find(|o| o.metric == m && o.bucket == "all").unwrap_or_else(|| panic!("{m}: {out:#?}"))
        };
        let hierarchy = get("t3_floor:pairs/hierarchy");
        assert_eq!((hierarchy.value, hierarchy.passed), (0.5, false), "{}", hierarchy.detail);
        assert!(hierarchy.detail.contains("1 evidenced era-mismatch"), "{}", hierarchy.detail);
        let all = get("t3_floor:pairs/*");
        assert_eq!((all.value, all.passed), (2.0 / 5.0, false), "a, a / c, d, d compared: {}", all.detail);
        assert!(!get("t3_floor:nel-shape").checked, "no nel-shape result: not checked, never a pass");
        let unexplained = get("max_unexplained");
        assert_eq!((unexplained.value, unexplained.passed), (2.0, false), "a miss without triage is unexplained");
        assert!(get("t3_max_unexplained:pairs/geometry").passed);
        let bad = |toml: &str| {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("g.toml"), toml).unwrap();
            load_dir(dir.path()).unwrap_err()
        };
        assert!(bad("[[gate]]\nname = \"t\"\ntier = \"t1\"\nmax_unexplained = 0\n").contains("need tier = \"t3\""));
        assert!(
            bad("[[gate]]\nname = \"t\"\ntier = \"t3\"\n[gate.t3_floor]\n\"pairs/*\" = 2.0\n").contains("within 0..1")
        );
    }

    #[test]
    fn skips_are_not_passes_and_abnormal_ends_count_once() {
        let skip = Verdict::Skip { reason: "no-reference: none given".into() };
        let results = vec![
            result("a", Status::Pass, vec![(Tier::T3, skip.clone())]),
            result("b", Status::Pass, vec![(Tier::T3, skip)]),
            result("c", Status::Crash, vec![]),
        ];
        let g = rules(
            "[[gate]]\nname='t3'\ntier='t3'\nmin_pass_rate=1.0\nmin_ran=1\nmax_skip_rate=0.5\n\
             [[gate]]\nname='ab'\nmax_abnormal=0\n",
        );
        let out = evaluate(&g, &results, ctx(&[Tier::T1, Tier::T3]));
        let by: BTreeMap<&str, &GateOutcome> = out.iter().map(|o| (o.metric.as_str(), o)).collect();
        assert!(!by["min_pass_rate"].checked, "nothing ran: not checked, never a silent pass");
        assert!(!by["min_ran"].passed);
        assert!(!by["max_skip_rate"].passed && by["max_skip_rate"].value == 1.0);
        assert!(by["max_skip_rate"].detail.contains("2 no-reference"), "{}", by["max_skip_rate"].detail);
        assert!(!by["max_abnormal"].passed);
    }

    #[test]
    fn tier_rules_apply_only_to_requested_tiers() {
        let results = vec![result("a", Status::Pass, vec![(Tier::T1, Verdict::pass())])];
        let g = rules("[[gate]]\nname='t3'\ntier='t3'\nmin_ran=1\n");
        let out = evaluate(&g, &results, ctx(&[Tier::T1]));
        assert_eq!(out.len(), 1);
        assert!(!out[0].checked && out[0].passed && out[0].detail.contains("not requested"));
    }

    #[test]
    fn unmatched_glob_names_the_closest_buckets() {
        let results = vec![result("a", Status::Pass, vec![(Tier::T1, Verdict::pass())])];
        let g = rules("[[gate]]\nname='x'\nbuckets=['alll']\ntier='t1'\nmin_pass_rate=1.0\n");
        let out = evaluate(&g, &results, ctx(&[Tier::T1]));
        assert!(!out[0].passed);
        assert!(out[0].detail.contains("closest bucket names: all"), "{}", out[0].detail);
        let shard = evaluate(&g, &results, Context { complete: false, ..ctx(&[Tier::T1]) });
        assert!(shard[0].passed && !shard[0].checked);
    }

    #[test]
    fn detail_paths_and_shares() {
        let d = serde_json::json!({"fields": {"q": {"bit_exact": 3, "close": 1, "off": 0}}, "list": [1, 2]});
        assert_eq!(detail_value(&d, "fields.q.bit_exact"), Some(3.0));
        assert_eq!(detail_value(&d, "list"), Some(2.0));
        assert_eq!(detail_value(&d, "fields.x.bit_exact"), None);
        assert_eq!(share_parts(&d, "fields.q.bit_exact"), Some((3.0, 4.0)));
        assert_eq!(share_parts(&d, "fields.q.bit_exact+close"), Some((4.0, 4.0)));
    }

    #[test]
    fn malformed_rules_are_refused() {
        for (toml, want) in [
            ("", "no [[gate]] rule"),
            ("[[gate]]\nname='a'\n", "no metric"),
            ("[[gate]]\nname='a'\nbuckets=[]\nmax_abnormal=0\n", "at least one"),
            ("[[gate]]\nname='a'\nmax_abnormal=0\n[[gate]]\nname='a'\nmax_abnormal=0\n", "defined twice"),
            ("[[gate]]\nname='a'\ntier='t1'\n[gate.t3_min]\n'x.y'=1\n", "tier = \"t3\""),
            ("[[gate]]\nname='a'\nmax_regressions=0\nallow_regressions=['nice']\n", "unknown kind"),
        ] {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("g.toml"), toml).unwrap();
            let e = load_dir(dir.path()).unwrap_err();
            assert!(e.contains(want), "{toml:?}: {e}");
        }
        let empty = tempfile::tempdir().unwrap();
        assert!(load_dir(empty.path()).unwrap_err().contains("no *.toml"));
        assert!(load_dir(&empty.path().join("nope")).unwrap_err().contains("--no-gates"));
    }
}
