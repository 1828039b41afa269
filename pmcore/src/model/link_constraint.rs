//! Link Constraint (Class ID 0x873fe764:0xaabe8601), read-only: the node it links to and
//! the offset it applies there.
//!
//! Measured on the LD35 files (`wild/tae8838__player.max` …, Max 2013), whose `B_*` helpers
//! and `PositionLocator` carry one each: reference 0 = a Position/Rotation/Scale controller
//! (the offset: the node's transform in its target's frame), 1 empty, 2 = a ParamBlock2
//! whose references are the link target nodes (`B_Pelvis` → `Bip01 Pelvis`; `PositionLocator`
//! none), 3 = a LinkTimeControl. Each ParamBlock2 holds one link, at frame 0 (its int tab,
//! param 2). The node's world is `target world · offset` (Max's row-vector `offset ·
//! target`); without a target it is `parent world · offset`, an ordinary PRS.

use super::controllers::{has_class, ControllerError};
use super::scene_index::{SceneIndex, SceneObject};
use crate::classes::ids::LINK_CONSTRAINT;

/// A node's Link Constraint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LinkConstraint {
    /// The PRS controller that holds the offset: its `[position, rotation, scale]` slots.
    pub offset: [Option<usize>; 3],
    /// The link target node, when the constraint has one.
    pub target: Option<usize>,
}

/// The Link Constraint that drives `node` (its transform controller), `None` when the
/// controller is another class. More than one link target is refused (one link only is
/// measured, so when a second takes over is not known).
pub fn link_constraint(
    index: &SceneIndex<'_>,
    node: &SceneObject<'_>,
) -> Result<Option<LinkConstraint>, ControllerError> {
    let Some(ctrl) = node.reference(0).and_then(|c| index.get(c)) else { return Ok(None) };
    if !has_class(ctrl, LINK_CONSTRAINT) {
        return Ok(None);
    }
    let unsupported = |what: &str| ControllerError::Unsupported {
        object: ctrl.storage_index,
        class: format!("Link Constraint {what}"),
        role: "transform",
    };
    let prs = ctrl.reference(0).and_then(|p| index.get(p)).ok_or_else(|| unsupported("without its offset PRS"))?;
    if !has_class(prs, super::controllers::PRS) {
        return Err(unsupported("whose offset is not a Position/Rotation/Scale"));
    }
    let offset = [prs.reference(0), prs.reference(1), prs.reference(2)];
    let block = ctrl.reference(2).and_then(|b| index.get(b));
    let targets: Vec<usize> =
        block.map(|b| b.references().into_iter().filter_map(|(_, r)| r).collect()).unwrap_or_default();
    if targets.len() > 1 {
        return Err(unsupported(&format!("with {} link targets (one measured)", targets.len())));
    }
    Ok(Some(LinkConstraint { offset, target: targets.first().copied() }))
}
