//! Bucket slugs of one file: Max version × tier × triage class, plus input class and
//! abnormal status. Slugs are `[a-z0-9-]` (`pmcore::slug`); composites join their parts
//! with `--`. Gates and report pages name buckets by these slugs (globs allowed).

use crate::results::{FileResult, Status};
use pmcore::slug;
use std::collections::BTreeSet;

/// Bucket that holds every file.
pub const ALL: &str = "all";

/// Relative scale factors that explain a skel T3 difference by the figure era
/// (design §10): ×1.2 or ×0.8, within ±0.1 %.
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
    for tier in &tiers {
        out.insert(tier.to_string());
        out.insert(format!("{version}--{tier}"));
        for class in &triage {
            out.insert(format!("{version}--{tier}--{class}"));
        }
    }
    out.into_iter().collect()
}

/// `max-2016`, `max-unknown-0x2a01`, `max-none` when the worker never said, or `nel` for
/// a NeL file (its format and class are triage classes: `nel-skel`, `nel-cmesh`).
pub fn version_bucket(r: &FileResult) -> String {
    if r.input.as_deref() == Some("nel") {
        return "nel".into();
    }
    let root = r.root_id.as_deref().and_then(|s| s.strip_prefix("0x")).and_then(|h| u16::from_str_radix(h, 16).ok());
    pmcore::facts::version_slug(root)
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

/// Era mismatch: skel T3 differences explained by a uniform scale of ×1.2 or ×0.8
/// (±0.1 %), or any skel T3 difference on a file whose figure era is 0.
pub fn era_mismatch(r: &FileResult) -> bool {
    let skel_differs: Vec<_> = r
        .results
        .iter()
        .filter(|t| t.tier.name() == "t3" && t.stream == "skel" && t.verdict.name() != "pass")
        .collect();
    if skel_differs.is_empty() {
        return false;
    }
    let fresh_era = r.triage.as_ref().and_then(|t| t.biped.as_ref()).is_some_and(|b| b.figure_era.contains(&Some(0)));
    if fresh_era {
        return true;
    }
    skel_differs.iter().any(|t| {
        let scale = t.detail.as_ref().and_then(|d| d.get("scale_factor")).and_then(|v| v.as_f64());
        scale.is_some_and(|s| ERA_SCALES.iter().any(|e| ((s - e) / e).abs() <= 0.001))
    })
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
    use pmworker::events::{Tier, TierResult, Triage};

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
                verdict: pmcore::verify::Verdict::pass(),
                detail: None,
            }],
            ..Default::default()
        };
        let b = buckets_of(&r);
        for want in ["all", "max-2016", "input-ole", "t2", "max-2016--t2", "max-2016--t2--mapext", "mapext"] {
            assert!(b.contains(&want.to_string()), "{want} in {b:?}");
        }
        assert!(b.iter().all(|s| s.bytes().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-')));
    }

    #[test]
    fn globs() {
        assert!(glob_match("max-20*--t1", "max-2016--t1"));
        assert!(!glob_match("max-20*--t1", "max-2016--t2"));
        assert!(glob_match("*", "anything"));
        assert!(glob_match("max-201?", "max-2016"));
    }
}
