//! The Class IDs the comparisons know: the Skin modifier, and the modifiers that move
//! vertices which `pmcore::eval` passes through (a geometry difference under one is not
//! comparable, not a failure).

use crate::scene::Format;
use pmcore::model::scene_index::SceneIndex;

/// Skin modifier Class ID, as the pairs corpus stores it (`(0x0095c723, 0x00015666)`;
/// the payload-format notes give `0x0095c6a3`, the real files win).
pub const SKIN_CLASS_ID: [u32; 2] = [0x0095_c723, 0x0001_5666];

/// Modifiers that move vertices and that `pmcore::eval` applies as topology pass-through (or
/// whose output it does not compute: Cloth), by Class ID: a node under one has Max's counts
/// but not Max's positions. Mapping, selection, material and normal modifiers are not here.
pub const MOVES_VERTICES: &[([u32; 2], &str)] = &[
    ([0x0095_c723, 0x0001_5666], "Skin"),
    ([0xf997_b124, 0], "Noise"),
    ([0x2132_5596, 0x2cd1_0bd8], "FFD 4x4x4"),
    ([0x2521_5824, 0], "XForm"),
    ([0x0000_0047, 0], "Wave"),
    ([0x0000_0090, 0], "Twist"),
    ([0x0000_0064, 0x0000_7f9e], "Relax"),
    ([0x0001_00b0, 0x00bc_2d21], "Stretch"),
    ([0xde17_a34e, 0x8a41_e2a0], "Spherify"),
    ([0x36d0_4fa5, 0x5007_27b3], "Melt"),
    ([0x0000_0b00, 0x57da_4442], "Conform"),
    ([0x0001_10b4, 0x0000_7f9e], "PathDeform (WSM)"),
    ([0x67c1_cd47, 0x7782_f878], "Cloth"),
];

/// The first modifier of a node's stack (base upward) that moves vertices (above), with its
/// Class ID and a name for the message.
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
        if id == [0x67c1_cd47, 0x7782_f878] && pmcore::eval::cloth::simulated_positions(m.mod_app).is_some() {
            return None;
        }
        MOVES_VERTICES.iter().find(|(c, _)| *c == id).map(|(c, name)| (*c, (*name).to_string()))
    })
}
