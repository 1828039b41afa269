//! The Link Constraint helpers of a Biped rig: nodes outside the skeleton (the LD35 `B_*`
//! helpers, `wild/tae8838__player.max` …) whose transform is a Link Constraint
//! ([`crate::model::link_constraint`]) to a bone of the exported set. 3ds Max places such a
//! helper at `target world · offset`, so an FBX that binds the helpers instead of the Biped
//! bones (LD35's BindPose holds only `B_*`) still says where the bones were: T3 composes
//! each bone's figure-mode world with the offset read here and compares it with the helper's
//! bind matrix (`pmref::biped_skel`, part (d)).
//!
//! The offset is the offset PRS at tick 0: the one link of each measured constraint starts
//! at frame 0 (its ParamBlock2 link-time tab), the skin was bound in figure mode with the
//! helper linked there, and the LD35 offsets carry no keys (a keyed offset would make the
//! time matter; such a helper is refused, never guessed).

use crate::model::keys::{key_count, prs_local_at};
use crate::model::link_constraint::link_constraint;
use crate::model::scene_index::SceneIndex;
use glam::DMat4;

/// A helper Link-Constrained to a bone of the skeleton.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct HelperLink {
    /// The helper node's name (its name in the FBX).
    pub helper: String,
    /// The bone it links to (index in the skeleton).
    pub bone: usize,
    /// The Link Constraint's offset in the bone's frame, Max axes (tick 0).
    #[serde(skip)]
    pub offset: DMat4,
}

/// The helpers whose Link Constraint targets one of `bone_nodes` (storage index per bone),
/// in storage order; helpers whose offset is keyed or cannot be read are left out and
/// named in the second list with the reason.
pub(crate) fn helper_links(index: &SceneIndex<'_>, bone_nodes: &[usize]) -> (Vec<HelperLink>, Vec<String>) {
    let (mut links, mut refused) = (Vec::new(), Vec::new());
    for node in index.objects.iter().filter(|o| o.is_node() && !bone_nodes.contains(&o.storage_index)) {
        let Ok(Some(link)) = link_constraint(index, node) else { continue };
        let Some(bone) = link.target.and_then(|t| bone_nodes.iter().position(|&b| b == t)) else { continue };
        let helper = node.node_name().unwrap_or_default();
        if link.offset.iter().flatten().any(|&slot| keyed(index, slot)) {
            refused.push(format!("{helper}: keyed Link Constraint offset"));
            continue;
        }
        match prs_local_at(index, link.offset, 0.0) {
            Ok(local) => {
                let offset = DMat4::from_cols_array(&local.matrix().to_cols_array().map(f64::from));
                links.push(HelperLink { helper, bone, offset });
            }
            Err(e) => refused.push(format!("{helper}: {e}")),
        }
    }
    (links, refused)
}

/// Does the controller at `slot` (or one of its first three sub-controllers, the XYZ floats)
/// hold keys?
fn keyed(index: &SceneIndex<'_>, slot: usize) -> bool {
    let Some(o) = index.get(slot) else { return false };
    let counts = |o: &crate::model::scene_index::SceneObject<'_>| key_count(o).is_some_and(|(_, n)| n > 0);
    counts(o) || (0..3).any(|s| o.reference(s).and_then(|r| index.get(r)).is_some_and(counts))
}
