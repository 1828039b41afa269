//! `reference-unreadable`: the reference was found but could not be read (the
//! comparison fails with kind `t3-reference-unreadable`, naming the reader's error), or it
//! is of a kind no reader takes yet (a skip `reference not read: …`, the `.3ds` beside each
//! ASE of `../anim`).

use super::{class, first_line, Detector, TriageInput, Triaged};
use serde_json::json;

/// The detector.
pub struct ReferenceUnreadable;

impl Detector for ReferenceUnreadable {
    fn class(&self) -> &'static str {
        class::REFERENCE_UNREADABLE
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        if let Some(reason) = input.skip_reason().filter(|r| r.starts_with("reference not read:")) {
            return Some(Triaged {
                class: self.class(),
                evidence: json!({ "reason": reason }),
                message: format!("no reader for the reference: {}", first_line(reason)),
            });
        }
        (input.fail_kind()? == "t3-reference-unreadable").then(|| Triaged {
            class: self.class(),
            evidence: json!({ "error": input.words() }),
            message: format!("the reference does not read: {}", first_line(input.words())),
        })
    }
}
