//! Bucket slugs of one file: Max version × tier × triage class, plus input class and
//! abnormal status. Slugs are `[a-z0-9-]` (`pmcore::slug`); composites join their parts
//! with `--`. Gates and report pages name buckets by these slugs (globs allowed).

use crate::results::{FileResult, Status};
use pmcore::export::t3::SkelComparison;
use pmcore::slug;
use pmschema::verdict::Verdict;
use pmworker::events::Tier;
use std::collections::BTreeSet;

/// Bucket that holds every file.
pub const ALL: &str = "all";

/// Uniform offset scales that explain a skel T3 difference by the reference era
/// (design §10: `_big/_small` rigs rescaled ±20 % after the references): ×1.2 or ×0.8, ±0.1 %.
const ERA_SCALES: [f64; 2] = [1.2, 0.8];

/// Every bucket `r` belongs to, sorted.
pub fn buckets_of(r: &FileResult) -> Vec<String> {
    let mut out = BTreeSet::new();
    out.insert(ALL.to_string());
    let version = version_bucket(r);
    out.insert(version.clone());
    out.insert(format!("input-{}", slug(r.input.as_deref().unwrap_or("unknown"))));
    if r.status != Status::Pass {
        out.insert(format!("status-{}", r.status.name()));
    }
    let triage = triage_classes(r);
    let tiers: BTreeSet<&str> = r.results.iter().map(|t| t.tier.name()).collect();
    for class in &triage {
        out.insert(class.clone());
        out.insert(format!("{version}--{class}"));
    }
    // T3 triage classes (docs/triage.md): one bucket per class a T3 miss of the file has,
    // so a class's files are one page (`t3-unexplained`, `t3-era-mismatch` …).
    for class in t3_triage_classes(r) {
        out.insert(format!("t3-{class}"));
    }
    for tier in &tiers {
        out.insert(tier.to_string());
        out.insert(format!("{version}--{tier}"));
        for class in &triage {
            out.insert(format!("{version}--{tier}--{class}"));
        }
    }
    out.into_iter().collect()
}

/// `max-2016`, `max-2019` (0x2023 saved as 21.00: the worker's label follows `Saved As
/// Version`), `max-unknown-0x2a01`, `max-none` when the worker never said, or `nel` for a
/// NeL file (its format and class are triage classes: `nel-skel`, `nel-cmesh`).
pub fn version_bucket(r: &FileResult) -> String {
    if r.input.as_deref() == Some("nel") {
        return "nel".into();
    }
    let root = r.root_id.as_deref().and_then(|s| s.strip_prefix("0x")).and_then(|h| u16::from_str_radix(h, 16).ok());
    match (root, r.max_version.as_deref()) {
        (Some(_), Some(label)) if label.starts_with("Max ") => slug(label),
        _ => pmcore::facts::version_slug(root),
    }
}

/// The triage classes of a file's T3 misses (a miss without a triage object is
/// `unexplained`), sorted.
pub fn t3_triage_classes(r: &FileResult) -> BTreeSet<&'static str> {
    r.results
        .iter()
        .filter(|t| t.tier == Tier::T3 && matches!(t.verdict, Verdict::Fail(_) | Verdict::Skip { .. }))
        .map(|t| t.triage.as_ref().map_or(pmschema::TriageClass::Unexplained, |c| c.class).name())
        .collect()
}

/// Triage class slugs of a file, with `era-mismatch` added when the era rule applies.
pub fn triage_classes(r: &FileResult) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = r.triage.iter().flat_map(|t| t.classes.iter().map(|c| slug(c))).collect();
    if era_mismatch(r) {
        out.insert("era-mismatch".into());
    }
    out.retain(|c| !c.is_empty());
    out
}

/// Era mismatch (design §10 "Reference-era mismatches"): a skel T3 comparison that ran and
/// differs, where the offsets match the reference only after a uniform ×1.2 / ×0.8 scale
/// (the worker's `offset_scale`, ±0.1 %), or where the file's biped figure marker (0x0115 =
/// 0, a figure created fresh) disagrees with the legacy era the references were exported
/// in. A skip (no reference, exporter not implemented) never ran, so it is never a mismatch.
/// The detail is read through the producer's own type ([`SkelComparison`]).
pub fn era_mismatch(r: &FileResult) -> bool {
    let compared: Vec<SkelComparison> = r
        .results
        .iter()
        .filter(|t| t.tier == Tier::T3 && t.stream == "skel")
        .filter(|t| !matches!(t.verdict, Verdict::Pass { .. } | Verdict::Skip { .. }))
        .filter_map(|t| serde_json::from_value(t.detail.clone()?).ok())
        .collect();
    if compared.is_empty() {
        return false;
    }
    let fresh_figure =
        r.triage.as_ref().and_then(|t| t.biped.as_ref()).is_some_and(|b| b.figure_era.contains(&Some(0)));
    fresh_figure
        || compared
            .iter()
            .any(|c| c.offset_scale.is_some_and(|s| ERA_SCALES.iter().any(|e| ((s - e) / e).abs() <= 0.001)))
}

/// Whether `bucket` matches a glob (`*` any run, `?` one character).
pub fn glob_match(pattern: &str, bucket: &str) -> bool {
    fn go(p: &[u8], s: &[u8]) -> bool {
        match (p.first(), s.first()) {
            (None, None) => true,
            (Some(b'*'), _) => go(&p[1..], s) || (!s.is_empty() && go(p, &s[1..])),
            (Some(b'?'), Some(_)) => go(&p[1..], &s[1..]),
            (Some(a), Some(b)) if a == b => go(&p[1..], &s[1..]),
            _ => false,
        }
    }
    go(pattern.as_bytes(), bucket.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmworker::events::{TierResult, Triage};

    #[test]
    fn composite_slugs() {
        let r = FileResult {
            path: "a.max".into(),
            status: Status::Pass,
            root_id: Some("0x2021".into()),
            input: Some("ole".into()),
            triage: Some(Triage { classes: vec!["mapext".into()], ..Default::default() }),
            results: vec![TierResult {
                tier: Tier::T2,
                stream: "Scene".into(),
                verdict: pmschema::verdict::Verdict::pass(),
                detail: None,
                triage: None,
            }],
            ..Default::default()
        };
        let b = buckets_of(&r);
        for want in ["all", "max-2016", "input-ole", "t2", "max-2016--t2", "max-2016--t2--mapext", "mapext"] {
            assert!(b.contains(&want.to_string()), "{want} in {b:?}");
        }
        assert!(b.iter().all(|s| s.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')));
    }

    fn skel_t3(verdict: pmschema::verdict::Verdict, offset_scale: Option<f64>) -> TierResult {
        let detail = SkelComparison { bones_paired: 2, offset_scale, ..Default::default() };
        TierResult {
            tier: Tier::T3,
            stream: "skel".into(),
            verdict,
            detail: Some(serde_json::to_value(detail).unwrap()),
            triage: None,
        }
    }

    #[test]
    fn a_t3_miss_puts_its_file_in_the_bucket_of_its_triage_class() {
        use pmschema::events::ResultTriage;
        use pmschema::verdict::{Mismatch, Verdict};
        let t3 = |verdict: Verdict, class: Option<pmschema::TriageClass>| TierResult {
            tier: Tier::T3,
            stream: "pairs/geometry/a.FBX".into(),
            verdict,
            detail: None,
            triage: class.map(|class| ResultTriage { class, evidence: serde_json::json!({}), message: String::new() }),
        };
        let fail = Verdict::Fail(Mismatch { kind: "t3-pairs-geometry".into(), ..Default::default() });
        let r = FileResult {
            results: vec![
                t3(Verdict::pass(), None),
                t3(fail.clone(), Some(pmschema::TriageClass::EraMismatch)),
                t3(fail, None),
            ],
            ..Default::default()
        };
        let b = buckets_of(&r);
        assert!(b.contains(&"t3-era-mismatch".to_string()) && b.contains(&"t3-unexplained".to_string()), "{b:?}");
        assert!(!b.iter().any(|s| s == "t3-pass"), "{b:?}");
    }

    #[test]
    fn era_mismatch_follows_the_design_and_a_skip_is_never_one() {
        use pmschema::verdict::{Mismatch, Verdict};
        use pmworker::events::BipedInfo;
        let fail = Verdict::Fail(Mismatch { kind: "t3-skel".into(), ..Default::default() });
        let with = |t: TierResult, era: Option<i64>| FileResult {
            results: vec![t],
            triage: Some(Triage { biped: Some(BipedInfo { systems: 1, figure_era: vec![era] }), ..Default::default() }),
            ..Default::default()
        };
        assert!(era_mismatch(&with(skel_t3(fail.clone(), Some(1.2)), Some(3))));
        assert!(era_mismatch(&with(skel_t3(fail.clone(), Some(0.8004)), Some(3))));
        assert!(!era_mismatch(&with(skel_t3(fail.clone(), Some(1.1)), Some(3))));
        assert!(era_mismatch(&with(skel_t3(fail.clone(), Some(1.0)), Some(0))), "fresh figure vs legacy reference");
        assert!(!era_mismatch(&with(skel_t3(Verdict::pass(), Some(1.2)), Some(0))));
        let skip = TierResult {
            tier: Tier::T3,
            stream: "skel".into(),
            verdict: Verdict::Skip { reason: "not-implemented: biped".into() },
            detail: Some(serde_json::json!({ "figure_era": [0] })),
            triage: None,
        };
        assert!(!era_mismatch(&with(skip, Some(0))), "a skip never ran, so it is never a mismatch");
    }

    #[test]
    fn globs() {
        assert!(glob_match("max-20*--t1", "max-2016--t1"));
        assert!(!glob_match("max-20*--t1", "max-2016--t2"));
        assert!(glob_match("*", "anything"));
        assert!(glob_match("max-201?", "max-2016"));
    }
}
