//! The modifiers the comparisons look for, found by Class ID through the class catalogue: the
//! Skin, and the modifiers that move vertices which `pmcore::eval` passes through (a geometry
//! difference under one is not comparable, not a failure).
use crate::scene::Format;
use pmcore::classes::{self, ids};
use pmcore::model::scene_index::SceneIndex;

/// Skin modifier Class ID, as the pairs corpus stores it (`(0x0095c723, 0x00015666)`;
/// the payload-format notes give `0x0095c6a3`, the real files win).
pub use pmcore::classes::ids::SKIN as SKIN_CLASS_ID;

/// The first modifier of a node's stack (base upward) that moves vertices and that `pmcore::eval`
/// applies as topology pass-through (or whose output it does not compute: Cloth) — the class
/// catalogue's `moves_vertices` effect — with its Class ID and a name for the message: a node under
/// one has Max's counts but not Max's positions. Mapping, selection, material and normal
/// modifiers are not among them.
pub(super) fn moving_modifier(
    index: &SceneIndex<'_>,
    node: &pmcore::model::scene_index::SceneObject<'_>,
    format: &Format,
) -> Option<([u32; 2], String)> {
    let (_, modifiers) = pmcore::eval::stack::stack_with_data(index, node)?;
    modifiers.iter().rev().find_map(|m| {
        let id = m.object.class.as_ref()?.class_id;
        // The FBX exporter writes a skinned mesh as it is below the Skin (the bind pose) and
        // the pose in the clusters and bones: `Green@Run.FBX`'s 278 vertices equal the
        // Editable Poly under Green's Skin while, at the file's start frame, its bones stand
        // off their bind matrices (B-Root 10.9 units lower). The Skin moves nothing there.
        if id == SKIN_CLASS_ID && matches!(format, Format::Fbx(_)) {
            return None;
        }
        // A Cloth whose saved simulation state `pmcore::eval::cloth` reads is applied too
        // (when its vertex count differs, evaluation keeps the input and this stays a skip).
        if id == ids::CLOTH && pmcore::eval::cloth::simulated_positions(m.mod_app).is_some() {
            return None;
        }
        classes::moves_vertices(id).map(|c| (c.id, c.name.to_string()))
    })
}
