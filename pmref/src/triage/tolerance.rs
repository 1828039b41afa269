//! `tolerance`: a numeric miss just beyond the comparison's tolerance — every error the
//! comparison measured is within [`NEAR`] × its tolerance and one exceeds it. The worst
//! delta, its tolerance and where it is are the evidence. A miss further out (an edited
//! vertex, a moved node) is not a tolerance question.

use super::{class, Detector, TriageInput, Triaged};
use crate::compare::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use pmcore::verify::Verdict;
use serde_json::{json, Value};

/// How far beyond its tolerance a miss may be and still count as a near miss: one decimal
/// digit (f32 roundings accumulate by factors, an edit by orders of magnitude).
pub const NEAR: f64 = 10.0;

/// `(error field, tolerance)` pairs the pairs comparisons report, by comparison.
fn measured(comparison: &str, detail: &Value) -> Vec<(&'static str, f64, f64)> {
    let num = |k: &str| detail.get(k).and_then(Value::as_f64);
    let tol = |k: &str, default: f64| {
        detail.get("tolerance").and_then(|t| t.get(k)).and_then(Value::as_f64).unwrap_or(default)
    };
    let mut out = Vec::new();
    match comparison {
        "transforms" | "animation" => {
            if let Some(e) = num("max_translation_error") {
                out.push(("max_translation_error", e, tol("translation_relative", POSITION_TOLERANCE)));
            }
            if let Some(e) = num("max_linear_error") {
                out.push(("max_linear_error", e, tol("rotation_scale", LINEAR_TOLERANCE)));
            }
        }
        "geometry" => {
            if let Some(e) = num("max_position_error") {
                out.push(("max_position_error", e, num("tolerance_relative").unwrap_or(POSITION_TOLERANCE)));
            }
        }
        _ => {}
    }
    out
}

/// The detector.
pub struct Tolerance;

impl Detector for Tolerance {
    fn class(&self) -> &'static str {
        class::TOLERANCE
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        let Verdict::Fail(m) = input.verdict else { return None };
        let errors = measured(input.comparison(), input.detail?);
        let over: Vec<_> = errors.iter().filter(|(_, e, t)| e > t).collect();
        let near = !over.is_empty() && errors.iter().all(|(_, e, t)| e.is_finite() && *e <= NEAR * t);
        if !near {
            return None;
        }
        let (field, worst, tolerance) = over.iter().max_by(|a, b| (a.1 / a.2).total_cmp(&(b.1 / b.2)))?;
        Some(Triaged {
            class: self.class(),
            message: format!("{field} {worst:.3e} against a tolerance of {tolerance:.1e}, at {}", m.chunk_path),
            evidence: json!({ "worst_delta": worst, "field": field, "tolerance": tolerance, "at": m.chunk_path, "offset": m.offset }),
        })
    }
}
