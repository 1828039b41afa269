//! The Edit Poly modifier: which of its recorded operations leave the topology alone.
//!
//! Each node's copy of the modifier keeps, in its per-node data (the derived object's
//! 0x2500 → 0x2512 container), one `0x0230` (operation id, u32) → `0x0234` (settings) →
//! optional `0x0238` (data) triple per committed operation, in application order
//! (`max_payload_formats.txt`); the operation still being edited is the modifier's
//! parameter 0 (`currentOperation`, 0 = none). Operation ids are the SDK's
//! `epolyModButtonOp` enumeration (`iEPolyMod.h`). Replaying operations that change the
//! topology (extrude, chamfer, attach, delete …) is not implemented: such a modifier stops
//! the node, naming the operations. A modifier whose operations only move vertices or
//! change selections, materials, smoothing or triangulation outputs its input as a poly
//! object with the same counts.

use crate::chunk::Chunk;

/// Edit Poly operation ids that keep vertex and polygon counts, with their SDK names.
pub const COUNT_NEUTRAL_OPERATIONS: &[(u32, &str)] = &[
    (0, "null"),
    (1, "hide vertex"),
    (2, "hide face"),
    (3, "unhide vertex"),
    (4, "unhide face"),
    (5, "hide unselected vertex"),
    (6, "hide unselected face"),
    (7, "named selection copy"),
    (8, "named selection paste"),
    (19, "reset plane"),
    (24, "create shape"),
    (25, "make planar"),
    (29, "retriangulate"),
    (30, "flip face"),
    (31, "flip element"),
    (36, "grow selection"),
    (37, "shrink selection"),
    (46, "select ring"),
    (47, "select loop"),
    (48, "remove isolated map vertices"),
    (51, "outline"),
    (52, "toggle shaded faces"),
    (53, "transform"),
    (57, "align"),
    (61, "edit triangulation"),
    (68, "autosmooth"),
    (69, "smooth"),
    (70, "set material"),
    (71, "select by smoothing"),
    (72, "select by material"),
    (73, "get stack selection"),
    (76, "make planar X"),
    (77, "make planar Y"),
    (78, "make planar Z"),
    (79, "turn edge"),
    (80, "relax"),
    (81, "paint deform"),
    (83, "preserve UV settings"),
];

/// Per-node data container inside the modifier's 0x2500 chunk.
pub const LOCAL_DATA: u16 = 0x2512;
/// Operation id chunk (u32), one per committed operation.
pub const OPERATION_ID: u16 = 0x0230;

/// The committed operation ids stored in a node's Edit Poly data, in application order;
/// `None` when the data is missing or an id chunk is not 4 bytes.
pub fn committed_operations(mod_app: Option<&Chunk<'_>>) -> Option<Vec<u32>> {
    let local = mod_app?.child(LOCAL_DATA)?;
    local
        .children()
        .iter()
        .filter(|c| c.id == OPERATION_ID)
        .map(|c| {
            let p = c.payload()?;
            (p.len() == 4).then(|| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
        })
        .collect()
}

/// The operations among `ops` that change counts (empty: the modifier passes counts through).
pub fn topology_operations(ops: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> =
        ops.iter().copied().filter(|op| !COUNT_NEUTRAL_OPERATIONS.iter().any(|(id, _)| id == op)).collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(id: u32) -> Chunk<'static> {
        Chunk::leaf(OPERATION_ID, id.to_le_bytes().to_vec())
    }

    #[test]
    fn reads_operation_ids_in_order_and_names_the_topology_ones() {
        // Two transforms (53), a chamfer (34), an extrude (41), a transform: as a
        // `0x2500 → 0x2512` tree laid out like `wild/michaeldonalgallagher__…` files.
        let local = Chunk::container(
            LOCAL_DATA,
            vec![
                Chunk::leaf(0x0240, Vec::new()),
                op(53),
                Chunk::container(0x0234, vec![]),
                op(53),
                op(34),
                op(41),
                op(53),
            ],
        );
        let app = Chunk::container(0x2500, vec![Chunk::leaf(0x2510, vec![0; 52]), local]);
        let ops = committed_operations(Some(&app)).unwrap();
        assert_eq!(ops, vec![53, 53, 34, 41, 53]);
        assert_eq!(topology_operations(&ops), vec![34, 41]);
        assert!(topology_operations(&[53, 53, 70, 0]).is_empty());
    }

    #[test]
    fn a_short_id_chunk_is_unreadable_not_guessed() {
        let local = Chunk::container(LOCAL_DATA, vec![Chunk::leaf(OPERATION_ID, vec![1, 2])]);
        let app = Chunk::container(0x2500, vec![local]);
        assert_eq!(committed_operations(Some(&app)), None);
        assert_eq!(committed_operations(None), None);
    }
}
