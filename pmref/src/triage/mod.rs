//! Triage of T3 misses: every T3 result that is not a pass — a fail or a skip — gets one
//! cause class and the evidence that decided it (`docs/triage.md`). A registry of
//! detectors, each reading the comparison's verdict and detail, the reference as read
//! and the `.max` itself; the first that recognises the miss decides, and a miss none
//! recognises is `unexplained` — the class that means "look at this".
//!
//! Evidence must be checkable against the files: `missing_nodes` are names the reference
//! holds that occur in no stream of the `.max` (ASCII and UTF-16LE), `keys_absent` nodes the
//! reference animates while the `.max` holds no key for them; with no evidence a miss is
//! never `era-mismatch`. Classes are matched by Class ID, never by display name.

mod absent;
mod beyond_keys;
mod era;
mod exporter_rule;
mod ik;
pub mod max_text;
mod not_applicable;
mod objects;
pub(crate) mod other_export;
mod tolerance;
mod turned;
mod unreadable;
mod unsupported;

use crate::scene::RefScene;
pub use max_text::MaxText;
use pmcore::model::scene_index::SceneIndex;
use pmcore::verify::Verdict;
use serde_json::{json, Value};

/// Cause classes, by their stable names (`pmschema::TriageClass` carries the same names).
pub mod class {
    /// The reference was written from another state of the scene (with evidence).
    pub const ERA_MISMATCH: &str = "era-mismatch";
    /// Under a class pmcore does not evaluate (named with its Class ID).
    pub const UNSUPPORTED: &str = "unsupported";
    /// Driven by an IK solve that is not implemented.
    pub const IK: &str = "ik";
    /// The written file follows a rule of the exporter pmfarm reproduces, and agrees with
    /// the reference once that rule is undone.
    pub const EXPORTER_RULE: &str = "exporter-rule";
    /// The reference could not be read.
    pub const REFERENCE_UNREADABLE: &str = "reference-unreadable";
    /// A skip: the reference does not carry what the comparison checks.
    pub const NOT_APPLICABLE: &str = "not-applicable";
    /// A skip: no reference was found.
    pub const REFERENCE_ABSENT: &str = "reference-absent";
    /// A numeric miss just beyond the comparison's tolerance.
    pub const TOLERANCE: &str = "tolerance";
    /// Everything else.
    pub const UNEXPLAINED: &str = "unexplained";
}

/// What a detector is given about one T3 result.
pub struct TriageInput<'a, 'i> {
    /// The result's stream (`pairs/geometry/<export>`, `summary/objects`, `nel-shape`, `skel`).
    pub stream: &'a str,
    /// Its verdict.
    pub verdict: &'a Verdict,
    /// Its detail (counters, misses).
    pub detail: Option<&'a Value>,
    /// The reference as read, for the pairs comparisons.
    pub reference: Option<&'a RefScene>,
    /// The `.max`'s Scene index, when its Scene reads.
    pub index: Option<&'a SceneIndex<'i>>,
    /// The `.max`'s decoded streams, searchable.
    pub text: &'a MaxText<'a>,
    /// The other T3 results of the same `.max` (the other exports the manifest pairs it
    /// with), for the `other_export` evidence; empty when not known.
    pub others: &'a [OtherResult<'a>],
}

/// Another T3 result of the same `.max`, as the triage sees it.
pub struct OtherResult<'a> {
    /// Its stream (`pairs/geometry/<export>`).
    pub stream: &'a str,
    /// Its verdict.
    pub verdict: &'a Verdict,
    /// Its reference as read.
    pub reference: Option<&'a RefScene>,
    /// Its detail.
    pub detail: Option<&'a Value>,
}

impl TriageInput<'_, '_> {
    /// Does this export's own `hierarchy` comparison pass (same node names and links as the
    /// `.max`)? The evidence that compares a reference's nodes node by node needs it: a
    /// node renamed to another name the `.max` holds fails it, and stays unexplained.
    pub fn hierarchy_passes(&self) -> bool {
        let Some(export) = self.stream.strip_prefix("pairs/").and_then(|s| s.split_once('/')).map(|(_, e)| e) else {
            return false;
        };
        let own = format!("pairs/hierarchy/{export}");
        self.others.iter().any(|o| o.stream == own && matches!(o.verdict, Verdict::Pass { .. }))
    }

    /// The comparison name: `geometry` of `pairs/geometry/<export>`, else the stream's first part.
    pub fn comparison(&self) -> &str {
        match self.stream.strip_prefix("pairs/") {
            Some(rest) => rest.split('/').next().unwrap_or(rest),
            None => self.stream,
        }
    }

    /// A fail's kind, `None` for any other verdict.
    pub fn fail_kind(&self) -> Option<&str> {
        match self.verdict {
            Verdict::Fail(m) => Some(&m.kind),
            _ => None,
        }
    }

    /// A skip's reason, `None` for any other verdict.
    pub fn skip_reason(&self) -> Option<&str> {
        match self.verdict {
            Verdict::Skip { reason } => Some(reason),
            _ => None,
        }
    }

    /// The verdict's own words: a fail's message, a skip's reason.
    pub fn words(&self) -> &str {
        match self.verdict {
            Verdict::Fail(m) => &m.message,
            Verdict::Skip { reason } => reason,
            _ => "",
        }
    }
}

/// One decided class.
#[derive(Clone, Debug, PartialEq)]
pub struct Triaged {
    /// The class name ([`class`]).
    pub class: &'static str,
    /// The evidence (an object).
    pub evidence: Value,
    /// One line saying why.
    pub message: String,
}

/// One detector: recognises the misses of its class and returns the evidence.
pub trait Detector: Sync {
    /// The class it decides.
    fn class(&self) -> &'static str;
    /// The evidence, when this detector recognises the miss.
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged>;
}

/// The detectors in the order they are asked: what the reference lacks first (no
/// reference, unreadable, nothing to compare), then the reference's own state (era), then
/// what pmcore lacks (IK, classes not evaluated), then near misses.
pub const REGISTRY: &[&dyn Detector] = &[
    &absent::ReferenceAbsent,
    &unreadable::ReferenceUnreadable,
    &not_applicable::NotApplicable,
    &era::EraMismatch,
    &exporter_rule::ExporterRule,
    &ik::Ik,
    &unsupported::Unsupported,
    &tolerance::Tolerance,
];

/// The class of one T3 result; `None` for a pass (and the other passing verdicts).
pub fn classify(input: &TriageInput<'_, '_>) -> Option<Triaged> {
    if !matches!(input.verdict, Verdict::Fail(_) | Verdict::Skip { .. }) {
        return None;
    }
    let decided = REGISTRY.iter().find_map(|d| d.detect(input));
    Some(decided.unwrap_or_else(|| Triaged {
        class: class::UNEXPLAINED,
        evidence: json!({}),
        message: format!("no detector explains it: {}", first_line(input.words())),
    }))
}

/// The first 200 characters of `text`'s first line.
pub(crate) fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").chars().take(200).collect()
}

#[cfg(test)]
mod tests;
