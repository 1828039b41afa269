//! T3 triage in the report: per comparison, how many results pass and how many fall in
//! each triage class (`docs/triage.md`), the `unexplained` misses (listed first on the
//! index: they are the ones to look at) and the `era-mismatch` misses with their evidence.
//! Read from each result's `triage` object; a T3 miss without one (a worker older than the
//! triage step) counts as `unexplained`, so nothing reads as explained by default.

use super::model::{TriageMiss, TriageRow};
use crate::results::FileResult;
use pmschema::verdict::Verdict;
use pmschema::TriageClass;
use pmworker::events::{Tier, TierResult};
use std::collections::BTreeMap;

pub use pmschema::results::t3_comparison as comparison_of;

/// A T3 result's class: `None` for a pass (pass, normalized, degraded); a miss without a
/// `triage` object is `unexplained`.
pub fn class_of(t: &TierResult) -> Option<TriageClass> {
    match t.verdict {
        Verdict::Fail(_) | Verdict::Skip { .. } => {
            Some(t.triage.as_ref().map_or(TriageClass::Unexplained, |triage| triage.class))
        }
        _ => None,
    }
}

fn t3<'a>(files: &'a [&'a FileResult]) -> impl Iterator<Item = (&'a FileResult, &'a TierResult)> + 'a {
    files.iter().flat_map(|r| r.results.iter().filter(|t| t.tier == Tier::T3).map(move |t| (*r, t)))
}

/// Per comparison: passes and results per class, comparisons sorted by name.
pub fn triage_rows<'a>(files: impl IntoIterator<Item = &'a FileResult>) -> Vec<TriageRow> {
    let files: Vec<&FileResult> = files.into_iter().collect();
    let mut rows: BTreeMap<String, TriageRow> = BTreeMap::new();
    for (_, t) in t3(&files) {
        let comparison = comparison_of(&t.stream);
        let row = rows.entry(comparison.clone()).or_insert_with(|| TriageRow { comparison, ..Default::default() });
        row.results += 1;
        match class_of(t) {
            None => row.pass += 1,
            Some(class) => *row.classes.entry(class.name().to_string()).or_default() += 1,
        }
    }
    rows.into_values().collect()
}

/// Every T3 miss of `class`, by path then stream.
pub fn misses<'a>(files: impl IntoIterator<Item = &'a FileResult>, class: TriageClass) -> Vec<TriageMiss> {
    let files: Vec<&FileResult> = files.into_iter().collect();
    t3(&files).filter(|(_, t)| class_of(t) == Some(class)).map(|(r, t)| miss(&r.path, t)).collect()
}

/// One miss as the report shows it.
pub fn miss(path: &str, t: &TierResult) -> TriageMiss {
    let (message, evidence) = match &t.triage {
        Some(triage) => (triage.message.clone(), triage.evidence.clone()),
        None => ("no triage in this result (a worker without the triage step)".into(), serde_json::json!({})),
    };
    let words = match &t.verdict {
        Verdict::Fail(m) => m.message.clone(),
        Verdict::Skip { reason } => reason.clone(),
        _ => String::new(),
    };
    TriageMiss {
        path: path.to_string(),
        stream: t.stream.clone(),
        verdict: t.verdict.name().to_string(),
        class: class_of(t).map_or("pass", |c| c.name()).to_string(),
        result: words,
        message,
        evidence,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmschema::events::ResultTriage;
    use pmschema::verdict::Mismatch;

    fn result(stream: &str, verdict: Verdict, class: Option<TriageClass>) -> TierResult {
        TierResult {
            tier: Tier::T3,
            stream: stream.into(),
            verdict,
            detail: None,
            triage: class.map(|class| ResultTriage { class, evidence: serde_json::json!({}), message: "m".into() }),
        }
    }

    #[test]
    fn rows_count_passes_and_classes_per_comparison_and_a_miss_without_triage_is_unexplained() {
        let fail = Verdict::Fail(Mismatch { kind: "t3-pairs-geometry".into(), ..Default::default() });
        let r = FileResult {
            path: "a.max".into(),
            results: vec![
                result("pairs/geometry/x/a.FBX", Verdict::pass(), None),
                result("pairs/geometry/x/b.FBX", fail.clone(), Some(TriageClass::EraMismatch)),
                result("pairs/hierarchy/x/b.FBX", fail.clone(), None),
                result(
                    "summary/objects",
                    Verdict::Skip { reason: "absent-in-file".into() },
                    Some(TriageClass::NotApplicable),
                ),
            ],
            ..Default::default()
        };
        let rows = triage_rows([&r]);
        let geometry = rows.iter().find(|r| r.comparison == "pairs/geometry").unwrap();
        assert_eq!((geometry.results, geometry.pass, geometry.classes["era-mismatch"]), (2, 1, 1));
        let hierarchy = rows.iter().find(|r| r.comparison == "pairs/hierarchy").unwrap();
        assert_eq!(hierarchy.classes["unexplained"], 1, "no triage object: unexplained");
        assert_eq!(misses([&r], TriageClass::Unexplained).len(), 1);
        assert_eq!(misses([&r], TriageClass::EraMismatch)[0].stream, "pairs/geometry/x/b.FBX");
        assert_eq!(comparison_of("nel-shape"), "nel-shape");
        assert_eq!(comparison_of("pairs"), "pairs");
    }
}
