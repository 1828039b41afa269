//! `exporter-rule`: the written file follows a rule of the exporter pmfarm reproduces that
//! the reference's writer does not share, and the comparison agrees once that rule is
//! undone. The evidence is the comparison's own recount: every pose off agrees with the
//! rule undone (one pose explained is not enough). A rule is named here only with the
//! exporter text that shows it (docs/exporters.md, `anim`).

use super::{class, Detector, TriageInput, Triaged};
use crate::compare::nel_anim::{POSES_OFF_AGREEING_SCALED, SCALE_TANGENTS_KIND};
use serde_json::{json, Value};

/// One exporter rule: the fail kind that names it, the detail field counting the poses
/// that agree with it undone, the exporter, and the rule.
struct Rule {
    kind: &'static str,
    agreeing: &'static str,
    exporter: &'static str,
    rule: &'static str,
}

/// The rules, by fail kind.
const RULES: &[Rule] = &[Rule {
    kind: SCALE_TANGENTS_KIND,
    agreeing: POSES_OFF_AGREEING_SCALED,
    exporter: "NeL .anim (nel_mesh_lib export_anim, buildNelKey for Bezier Scale keys)",
    rule: "Bezier Scale tangents written per tick, unscaled, where NeL's runtime reads them per second \
           (Bezier Position tangents are scaled ×4800)",
}];

/// The detector.
pub struct ExporterRule;

impl Detector for ExporterRule {
    fn class(&self) -> &'static str {
        class::EXPORTER_RULE
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        let kind = input.fail_kind()?;
        let rule = RULES.iter().find(|r| r.kind == kind)?;
        let detail = input.detail?;
        let count = |k: &str| detail.get(k).and_then(Value::as_u64);
        let off = count("poses_off")?;
        let agreeing = count(rule.agreeing)?;
        (off > 0 && agreeing == off).then(|| Triaged {
            class: self.class(),
            message: format!("all {off} pose(s) off agree with the {} rule undone: {}", rule.exporter, rule.rule),
            evidence: json!({
                "exporter": rule.exporter,
                "rule": rule.rule,
                "poses_off": off,
                "poses_agreeing_with_the_rule_undone": agreeing,
                "first_difference": detail.get("first_difference"),
            }),
        })
    }
}
