//! The verdict of one tier on one stream (or exporter), as the `result` event and
//! `results.jsonl` carry it. pmcore has a verdict type of its own; the worker maps it to this
//! one at its edge (`pmworker::wire`), so the wire form is defined here and nowhere else and
//! this crate depends on no workspace crate.

use serde::{Deserialize, Serialize};

/// The outcome of one tier on one stream (or exporter): `verdict` and its fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "verdict", rename_all = "kebab-case")]
pub enum Verdict {
    /// Bytes identical.
    Pass {
        /// Why a pass needed no work (e.g. `empty stream`), when that is worth saying.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// Bytes differ, or the tier could not run on this input.
    Fail(Mismatch),
    /// Differs only by a whitelisted normalization.
    Normalized {
        /// Whitelist entry that explains the difference.
        reason: String,
    },
    /// Bytes identical, but some objects fell back to raw chunks.
    Degraded {
        /// The classes that fell back, with why and where.
        classes: Vec<DegradedClass>,
    },
    /// Not run, with why.
    Skip {
        /// Reason (e.g. `no reference output`).
        reason: String,
    },
}

impl Verdict {
    /// Every stable name [`Verdict::name`] returns.
    pub const NAMES: [&'static str; 5] = ["pass", "fail", "normalized", "degraded", "skip"];

    /// A plain pass.
    pub fn pass() -> Self {
        Verdict::Pass { note: None }
    }

    /// Stable name (`pass`, `fail`, `normalized`, `degraded`, `skip`).
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Pass { .. } => "pass",
            Verdict::Fail(_) => "fail",
            Verdict::Normalized { .. } => "normalized",
            Verdict::Degraded { .. } => "degraded",
            Verdict::Skip { .. } => "skip",
        }
    }

    /// True for `fail`.
    pub fn is_fail(&self) -> bool {
        matches!(self, Verdict::Fail(_))
    }
}

/// Where and how a round trip (or a tier) failed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// Failure kind (`chunk-roundtrip`, `chunk-parse`, `envelope`, `decompress`, …).
    pub kind: String,
    /// Chunk path of the first differing byte (or of the parse error).
    pub chunk_path: String,
    /// Offset of the first differing byte in the (decoded) stream.
    pub offset: u64,
    /// Hex of the original bytes around `offset` (from `window_start`).
    pub expected_hex: String,
    /// Hex of the produced bytes around `offset` (from `window_start`).
    pub actual_hex: String,
    /// Offset where both hex windows start.
    pub window_start: u64,
    /// One-line human description.
    pub message: String,
}

/// An object class that fell back to raw bytes in this file.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DegradedClass {
    /// ClassId pair (a, b).
    pub class_id: [u32; 2],
    /// SuperClass id.
    pub superclass: u32,
    /// Display name from ClassDirectory3.
    pub name: String,
    /// What surprised the decoder.
    pub reason: String,
    /// Where.
    pub chunk_path: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_verdict_has_its_name_as_its_tag() {
        let all = [
            Verdict::pass(),
            Verdict::Fail(Mismatch::default()),
            Verdict::Normalized { reason: "r".into() },
            Verdict::Degraded { classes: Vec::new() },
            Verdict::Skip { reason: "r".into() },
        ];
        let names: Vec<&str> = all.iter().map(Verdict::name).collect();
        assert_eq!(names, Verdict::NAMES);
        for v in &all {
            let json = serde_json::to_value(v).unwrap();
            assert_eq!(json["verdict"], v.name());
            assert_eq!(serde_json::from_value::<Verdict>(json).unwrap(), *v);
        }
        assert!(all[1].is_fail() && !all[0].is_fail());
    }
}
