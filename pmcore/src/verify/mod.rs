//! Tier verdicts. T1 = chunk layer and envelope round trip; T2 (typed model) and T3
//! (exports) produce the same [`Verdict`] shape so the worker reports them uniformly.

pub(crate) mod diff;
pub mod t1;
pub mod t2;

pub(crate) use diff::{first_mismatch, hex_window};

/// The outcome of one tier on one stream (or exporter).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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

/// A verdict for one stream (or exporter) of one tier.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StreamVerdict {
    /// Stream name; `@clsid` for the root CLSID, `@streams` for the stream list.
    pub stream: String,
    /// The outcome.
    #[serde(flatten)]
    pub verdict: Verdict,
}
