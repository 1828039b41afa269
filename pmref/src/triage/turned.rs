//! `era-mismatch` by `turned_as_one`: every pose the `animation` comparison compared is a
//! root's, of two nodes or more, and one and the same rotation and scale carries each of
//! Max's poses onto the file's (`detail.one_turn_and_scale_off_every_pose`, written by
//! `compare::animation`), by an angle that is not a multiple of 90°. Axis and unit
//! conversions only ever turn by multiples of 90° (and scale by the unit factor, which the
//! comparison applies already), so a common turn of another angle is the model turned —
//! and rescaled — as a whole after the export. Shown by `Zombie.max` against
//! `Walking Zombie.FBX`: 163.58° about the file's up axis and × 4.4443 on all 21 poses of
//! its 6 nodes (its X and Y Euler keys equal the `.max`'s; every Z key is 163.58° more).
//!
//! It explains that export's `animation` fail, and its `transforms` fail on an animated
//! node (the start-frame pose is one of the poses compared), when its `hierarchy` passes.

use super::{class, TriageInput, Triaged};
use crate::scene::RefScene;
use serde_json::{json, Value};

/// Angles within this of a multiple of 90° are what a conversion could do: not evidence.
const RIGHT_ANGLE_SLACK_DEG: f64 = 0.01;

/// The evidence, when this export shows it (asked by the `era-mismatch` detector).
pub(super) fn detect(input: &TriageInput<'_, '_>) -> Option<Triaged> {
    input.fail_kind()?;
    if !input.hierarchy_passes() {
        return None;
    }
    let common = match input.comparison() {
        "animation" => turn(input.detail?)?,
        "transforms" => {
            let node = input.detail?.pointer("/first_difference/node")?.as_str()?;
            let reference: &RefScene = input.reference?;
            if !reference.node_by_name(node).is_some_and(|i| reference.is_animated(i)) {
                return None;
            }
            let export = input.stream.strip_prefix("pairs/transforms/")?;
            let own = format!("pairs/animation/{export}");
            let animation = input.others.iter().find(|o| o.stream == own)?;
            turn(animation.detail?)?
        }
        _ => return None,
    };
    let angle = common["rotation_deg"].as_f64()?;
    Some(Triaged {
        class: class::ERA_MISMATCH,
        message: format!(
            "one turn of {angle:.2}° (not a multiple of 90°) and one scale carry every one of Max's {} poses onto the file's: the model was turned as a whole after the export",
            common["poses"]
        ),
        evidence: json!({ "turned_as_one": common }),
    })
}

/// The comparison's common turn, when its angle is no multiple of 90°.
fn turn(detail: &Value) -> Option<Value> {
    let common = detail.get("one_turn_and_scale_off_every_pose")?;
    let angle = common.get("rotation_deg")?.as_f64()?;
    let off_right_angle = (angle - 90.0 * (angle / 90.0).round()).abs();
    (off_right_angle > RIGHT_ANGLE_SLACK_DEG).then(|| common.clone())
}
