//! `reference-absent`: a skip because no reference was found for this file (no folder
//! given, no manifest row or same-named output, or a base name several rows share).

use super::{class, first_line, Detector, TriageInput, Triaged};
use serde_json::json;

/// Skip reasons that say no reference was found, by their leading words.
const ABSENT: [&str; 4] = ["no-reference", "missing reference", "ambiguous reference", "no reference folder"];

/// The detector.
pub struct ReferenceAbsent;

impl Detector for ReferenceAbsent {
    fn class(&self) -> &'static str {
        class::REFERENCE_ABSENT
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        let reason = input.skip_reason()?;
        let lookup = input.detail.and_then(|d| d.get("lookup")).cloned();
        ABSENT.iter().any(|p| reason.starts_with(p)).then(|| Triaged {
            class: self.class(),
            evidence: json!({ "reason": reason, "lookup": lookup }),
            message: format!("no reference for this file: {}", first_line(reason)),
        })
    }
}
