//! What the two skeleton builders share (non-biped rigs in [`super::rig`], Biped rigs in
//! [`super::biped_rig`]): the node order NeL's `buildSkeleton` walks, the bone LOD distance
//! from a node's AppData, and the counts reported with a built skeleton.

use super::skel::Bone;
use crate::model::scene_index::{SceneIndex, SceneObject};

/// AppData SubId of the bone LOD distance (`NEL3D_APPDATA_BONE_LOD_DISTANCE`).
pub(crate) const BONE_LOD_DISTANCE_SUBID: u32 = 1423062615;
/// ClassId of the MAXScript utility class that owns NeL AppData.
pub(crate) use crate::classes::ids::MAXSCRIPT_UTILITY as MAXSCRIPT_UTILITY_CLASS;
/// SuperClass id of utilities.
pub(crate) const UTILITY_SUPERCLASS: u32 = 0x1020;

/// Counts reported with a built skeleton.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct RigSummary {
    /// Bones written.
    pub bones: usize,
    /// Bones whose LOD distance came from AppData.
    pub lod_from_appdata: usize,
    /// LOD AppData entries that were present but not a readable number (distance 0 used).
    pub lod_unreadable: usize,
    /// Names that were repeated and got `_Second`.
    pub renamed_duplicates: usize,
    /// LODs in the file.
    pub lods: usize,
}

/// The nodes of the subtree at `root` in depth-first pre-order, children in scene order,
/// each with its father's position in the list (−1 for the root): `buildSkeleton`'s order.
pub(crate) fn pre_order(index: &SceneIndex<'_>, root: usize) -> Vec<(usize, i32)> {
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); index.objects.len()];
    for o in index.objects.iter().filter(|o| o.is_node()) {
        if let Some(p) = o.node_parent().filter(|&p| p < children.len() && p != o.storage_index) {
            children[p].push(o.storage_index);
        }
    }
    let mut out = Vec::new();
    let mut seen = vec![false; index.objects.len()];
    // (node, father position); explicit stack, children pushed in reverse for scene order.
    let mut todo: Vec<(usize, i32)> = vec![(root, -1)];
    while let Some((node, father)) = todo.pop() {
        if node >= seen.len() || std::mem::replace(&mut seen[node], true) {
            continue;
        }
        let id = out.len() as i32;
        out.push((node, father));
        todo.extend(children[node].iter().rev().filter(|&&c| !seen[c]).map(|&c| (c, id)));
    }
    out
}

/// Sets the bone's LOD disable distance from the node's AppData, counting what was found.
pub(crate) fn set_lod_distance(bone: &mut Bone, node: &SceneObject<'_>, summary: &mut RigSummary) {
    match lod_distance(node) {
        Some(Some(d)) => {
            summary.lod_from_appdata += 1;
            bone.lod_disable_distance = d.max(0.0);
        }
        Some(None) => summary.lod_unreadable += 1,
        None => {}
    }
}

/// The bone-LOD AppData value of a node: `None` when absent, `Some(None)` when present but
/// not a number.
pub(crate) fn lod_distance(node: &SceneObject<'_>) -> Option<Option<f32>> {
    let value = appdata_value(node, MAXSCRIPT_UTILITY_CLASS, UTILITY_SUPERCLASS, BONE_LOD_DISTANCE_SUBID)?;
    let text: String = value.iter().take_while(|&&b| b != 0).map(|&b| b as char).collect();
    Some(text.trim().parse::<f32>().ok().filter(|d| d.is_finite()))
}

/// Raw value bytes of the AppData entry keyed (class, superclass, sub id) on `object`
/// (chunk 0x2150: entries 0x0110 = key 0x0120 `u32 class a, b, superclass, sub id, size` +
/// value 0x0130).
pub(crate) fn appdata_value<'a>(
    object: &'a SceneObject<'a>,
    class: [u32; 2],
    superclass: u32,
    sub_id: u32,
) -> Option<&'a [u8]> {
    let appdata = object.chunk.child(0x2150)?;
    appdata.children().iter().filter(|e| e.id == 0x0110).find_map(|entry| {
        let key = entry.child(0x0120)?.payload()?;
        let words = crate::model::i32s(key.get(..16)?)?;
        let matches =
            [words[0] as u32, words[1] as u32] == class && words[2] as u32 == superclass && words[3] as u32 == sub_id;
        matches.then(|| entry.child(0x0130)?.payload()).flatten()
    })
}
