//! The T3 triage step: every T3 verdict that is not a pass — a fail or a skip — gets its
//! cause class and evidence (`pmref::triage`, `docs/triage.md`) before it is emitted. The
//! `.max`'s streams and Scene index are read only when some verdict needs a class.

use crate::events::{ResultTriage, TriageClass};
use crate::exporter::ExportVerdict;
use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::Verdict;
use pmcore::MaxFile;
use pmref::triage::{classify, MaxText, OtherResult, TriageInput, Triaged};

/// One triage per verdict, in order; `None` for the passing ones.
pub fn triage(file: &MaxFile, verdicts: &[ExportVerdict]) -> Vec<Option<ResultTriage>> {
    let misses = |v: &ExportVerdict| matches!(v.verdict, Verdict::Fail(_) | Verdict::Skip { .. });
    if !verdicts.iter().any(misses) {
        return verdicts.iter().map(|_| None).collect();
    }
    let text = MaxText::of(file);
    let trees = SceneTrees::of(file);
    let index = trees.as_ref().and_then(|t| t.index());
    let others: Vec<OtherResult<'_>> = verdicts
        .iter()
        .map(|v| OtherResult {
            stream: &v.stream,
            verdict: &v.verdict,
            reference: v.reference.as_deref(),
            detail: v.detail.as_ref(),
        })
        .collect();
    verdicts
        .iter()
        .map(|v| {
            let input = TriageInput {
                stream: &v.stream,
                verdict: &v.verdict,
                detail: v.detail.as_ref(),
                reference: v.reference.as_deref(),
                index: index.as_ref(),
                text: &text,
                others: &others,
            };
            classify(&input).map(to_wire)
        })
        .collect()
}

/// The contract's form of a decided class (a class name the contract does not know is
/// `unexplained`, so nothing reads as explained by mistake).
fn to_wire(t: Triaged) -> ResultTriage {
    ResultTriage {
        class: t.class.parse().unwrap_or(TriageClass::Unexplained),
        evidence: t.evidence,
        message: t.message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_class_pmref_decides_is_a_contract_class() {
        use pmref::triage::class::*;
        for name in [
            ERA_MISMATCH,
            UNSUPPORTED,
            IK,
            EXPORTER_RULE,
            REFERENCE_UNREADABLE,
            NOT_APPLICABLE,
            REFERENCE_ABSENT,
            TOLERANCE,
            UNEXPLAINED,
        ] {
            let class: TriageClass = name.parse().unwrap_or_else(|_| panic!("{name} is not a TriageClass"));
            assert_eq!(class.name(), name);
        }
        for d in pmref::triage::REGISTRY {
            assert!(d.class().parse::<TriageClass>().is_ok(), "{}", d.class());
        }
        assert_eq!(TriageClass::ALL.len(), 9);
    }
}
