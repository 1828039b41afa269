//! `not-applicable`: a skip because the reference does not carry what the comparison
//! checks — an OBJ has no hierarchy, an FBX without curves no animation, one without a
//! skin deformer no weights, an FBX 6.0 no declared axes, a summary section the file does
//! not hold — or the exporter does not apply to this scene (no `Bip01` for `skel`).

use super::{class, first_line, Detector, TriageInput, Triaged};
use serde_json::json;

/// Skip reasons (their leading words) that say the comparison has nothing to check.
const NOTHING_TO_CHECK: [&str; 8] = [
    "not-applicable",
    "reference carries no",
    "format carries no",
    "the reference has no",
    "the reference holds no",
    "absent-in-file",
    "the file declares neither",
    "no reference mesh",
];

/// The detector.
pub struct NotApplicable;

impl Detector for NotApplicable {
    fn class(&self) -> &'static str {
        class::NOT_APPLICABLE
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        let reason = input.skip_reason()?;
        NOTHING_TO_CHECK.iter().any(|p| reason.starts_with(p)).then(|| Triaged {
            class: self.class(),
            evidence: json!({ "reason": reason, "format": input.detail.and_then(|d| d.get("format")).cloned() }),
            message: format!("nothing to compare: {}", first_line(reason)),
        })
    }
}
