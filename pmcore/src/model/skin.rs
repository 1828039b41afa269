//! Read-only decoder of the Skin modifier's per-vertex weights, as a node's derived object
//! stores them (the modifier's per-node data, chunk 0x2500 of the OSM Derived object) — what
//! the pairs T3 `skin` comparison needs to check 3ds Max's exported clusters.
//!
//! Layout, measured on `wild/tae8838__blue.max` (Skin over six Point helpers, 156 vertices)
//! against its own `Blue.FBX`: inside 0x2500 the container 0x2512 holds the vertex count
//! (0x0040, `u32`) and the weight table 0x0490, one record per vertex in vertex order:
//! `u32 count, u32 flags`, then `count` entries of 11 dwords — `u32 bone` (index into the
//! Skin's bone list), `f32 influence`, and 9 dwords this decoder does not interpret (three
//! zeros, then two points of the envelope's cross-section cache). The influences are not
//! normalised: the weight a bone has on a vertex is its influence over the sum of the
//! vertex's influences (vertex 0: 0.034294873, 0.00034017322, 0.0067584775 for B_Root,
//! B_Body1, B_Body2 → 0.828508, 0.008218, 0.163274; the file's clusters hold 0.8285081,
//! 0.0082180, 0.1632738). 156 records fill the 14,008 bytes exactly.
//!
//! The same layout holds the weights of the `tae8838` Green characters (278 vertices, 11
//! bones): every weight their four FBX exports write agrees. A Skin whose 0x2512 held no
//! 0x0490 (none in the pairs) would store no weights — `Ok(None)`, never a guess from the
//! bone envelopes.

use crate::chunk::Chunk;

#[cfg(test)]
/// Per-node data of a modifier on its derived object.
pub(crate) const MOD_APP: u16 = 0x2500;
/// The Skin's local data inside [`MOD_APP`].
pub(crate) const SKIN_LOCAL_DATA: u16 = 0x2512;
/// Vertex count inside [`SKIN_LOCAL_DATA`] (`u32`).
pub(crate) const SKIN_VERTEX_COUNT: u16 = 0x0040;
/// Per-vertex weight table inside [`SKIN_LOCAL_DATA`].
pub(crate) const SKIN_WEIGHT_TABLE: u16 = 0x0490;
/// Bytes per weight entry (11 dwords).
pub(crate) const SKIN_ENTRY_BYTES: usize = 44;

/// The Skin modifier's bone count (`u32`), a chunk of the modifier object itself.
pub(crate) const SKIN_BONE_COUNT: u16 = 0x0020;
/// The reference slot of bone 0's node: the modifier's first 10 references are its own
/// (parameter blocks, gizmo points), then every bone owns a fixed run of slots.
pub(crate) const SKIN_FIRST_BONE_SLOT: usize = 10;

/// Why a Skin's bone table could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkinBonesError {
    /// The bone count chunk is absent or not 4 bytes.
    #[error("Skin modifier: no bone count (chunk 0x0020, u32)")]
    NoBoneCount,
    /// Two live bones own runs of different lengths, so where a removed bone's run ends is
    /// not known.
    #[error("Skin modifier: bone node at reference slot {slot} owns {run} slot(s), an earlier bone {stride}")]
    UnevenRuns {
        /// Reference slot of the bone node.
        slot: usize,
        /// Slots its run holds (the node and its envelope controllers).
        run: usize,
        /// Slots the earlier bones' runs hold.
        stride: usize,
    },
    /// A bone node sits off the grid of runs, or past the bone count.
    #[error(
        "Skin modifier: bone node at reference slot {slot} is not bone slot {first} + {stride} × k with k < {count}"
    )]
    OffGrid {
        /// Reference slot of the bone node.
        slot: usize,
        /// Slot of bone 0.
        first: usize,
        /// Slots per bone.
        stride: usize,
        /// Bone count of chunk 0x0020.
        count: usize,
    },
}

/// The Skin's bone table: for each bone index a stored weight can name, the object its node
/// reference points to — `None` for a bone removed from the Skin, whose index Max keeps (and
/// whose slots it leaves empty) so that the stored indices stay valid.
///
/// Layout, measured on `biped/rocketbox/…/Female_Adult_16.max` (Max 2015, 80 bones, 26 of
/// them removed) and `wild/tae8838__blue.max` (Max 2013, 6 bones): the modifier chunk 0x0020
/// holds the bone count; bone `k`'s node is reference slot `10 + 7k`, followed by its two
/// envelope end-point controllers and two cross-sections' inner and outer radius
/// controllers; a removed bone's seven slots are empty. Checked against each file's FBX:
/// FA16's stored bones 0, 1, 72, 76 on vertex 2 are the clusters `Bip01 Pelvis`, `Bip01
/// Spine`, `Bip01 L Thigh`, `Bip01 R Thigh` (slots 10, 17, 514, 542). Some Skins hold two
/// banks of `count` runs, the first with its node slots empty: `Construction_Male_02.max`,
/// `Female_Adult_06.max`, `Female_Adult_07.max` (81 bones, 1149 references: bone `k`'s node at
/// slot `10 + 7 · 81 + 7k`); every node must then sit in one bank. The run length is read
/// from the live bones (a node and the controllers after it), never assumed; runs of unequal
/// length, or a node off the grid, are an error rather than a guessed index.
pub fn bone_table(
    modifier: &Chunk<'_>,
    references: &[(usize, Option<usize>)],
    is_node: impl Fn(usize) -> bool,
) -> Result<Vec<Option<usize>>, SkinBonesError> {
    let count = modifier
        .child(SKIN_BONE_COUNT)
        .and_then(Chunk::payload)
        .and_then(|p| <[u8; 4]>::try_from(p).ok())
        .map(|b| u32::from_le_bytes(b) as usize)
        .ok_or(SkinBonesError::NoBoneCount)?;
    let target: std::collections::BTreeMap<usize, usize> =
        references.iter().filter_map(|&(slot, t)| t.map(|t| (slot, t))).collect();
    let nodes: Vec<(usize, usize)> = target
        .iter()
        .filter(|&(&slot, &t)| slot >= SKIN_FIRST_BONE_SLOT && is_node(t))
        .map(|(&s, &t)| (s, t))
        .collect();
    let mut stride = None;
    for &(slot, _) in &nodes {
        let run = 1 + (slot + 1..).take_while(|s| target.get(s).is_some_and(|&t| !is_node(t))).count();
        match stride {
            None => stride = Some(run),
            Some(s) if s != run => return Err(SkinBonesError::UnevenRuns { slot, run, stride: s }),
            Some(_) => {}
        }
    }
    let mut bones = vec![None; count.min(references.len())];
    let Some(stride) = stride else { return Ok(bones) };
    let bank_slots = (stride * bones.len()).max(1);
    let bank = nodes.first().map_or(0, |&(slot, _)| (slot - SKIN_FIRST_BONE_SLOT) / bank_slots);
    let first = SKIN_FIRST_BONE_SLOT + bank * bank_slots;
    for (slot, t) in nodes {
        let k = slot.checked_sub(first).map(|d| (d / stride, d % stride));
        match k {
            Some((k, 0)) if k < bones.len() => bones[k] = Some(t),
            _ => return Err(SkinBonesError::OffGrid { slot, first, stride, count }),
        }
    }
    Ok(bones)
}

/// Why a weight table could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SkinError {
    /// A record runs past the table's end.
    #[error("Skin weight table 0x0490: vertex {vertex} at byte {offset} needs {needed} byte(s), {left} left")]
    Truncated {
        /// Vertex index of the record.
        vertex: usize,
        /// Byte offset of the record in the table.
        offset: usize,
        /// Bytes the record needs.
        needed: usize,
        /// Bytes left in the table.
        left: usize,
    },
    /// The table holds another number of records than the vertex count says.
    #[error("Skin weight table 0x0490 holds {records} vertex record(s), the vertex count 0x0040 says {count}")]
    CountMismatch {
        /// Records read.
        records: usize,
        /// Declared vertex count.
        count: usize,
    },
}

/// One vertex's bone influences as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexInfluences {
    /// The record's flags word (0 on every vertex of the measured file).
    pub flags: u32,
    /// `(bone index, influence)` in stored order.
    pub influences: Vec<(u32, f32)>,
}

impl VertexInfluences {
    /// The normalised weights (`influence / Σ influences`), in stored order; empty when the
    /// influences sum to zero.
    pub fn weights(&self) -> Vec<(u32, f64)> {
        let sum: f64 = self.influences.iter().map(|&(_, w)| w as f64).sum();
        if sum <= 0.0 {
            return Vec::new();
        }
        self.influences.iter().map(|&(b, w)| (b, w as f64 / sum)).collect()
    }
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

/// The weight table of one Skin's per-node data (`mod_app`, a [`MOD_APP`] chunk): `None`
/// when it stores none. Bounded by the table's length; every record is checked.
pub fn vertex_influences(mod_app: &Chunk<'_>) -> Result<Option<Vec<VertexInfluences>>, SkinError> {
    let Some(local) = mod_app.child(SKIN_LOCAL_DATA) else { return Ok(None) };
    let Some(table) = local.child(SKIN_WEIGHT_TABLE).and_then(Chunk::payload) else { return Ok(None) };
    let mut vertices = Vec::new();
    let mut offset = 0;
    while offset < table.len() {
        let truncated =
            |needed: usize| SkinError::Truncated { vertex: vertices.len(), offset, needed, left: table.len() - offset };
        if table.len() - offset < 8 {
            return Err(truncated(8));
        }
        let count = u32_at(table, offset) as usize;
        let flags = u32_at(table, offset + 4);
        let needed = count.checked_mul(SKIN_ENTRY_BYTES).and_then(|n| n.checked_add(8)).unwrap_or(usize::MAX);
        if needed > table.len() - offset {
            return Err(truncated(needed));
        }
        let influences = (0..count)
            .map(|k| {
                let at = offset + 8 + k * SKIN_ENTRY_BYTES;
                (u32_at(table, at), f32::from_bits(u32_at(table, at + 4)))
            })
            .collect();
        vertices.push(VertexInfluences { flags, influences });
        offset += needed;
    }
    let declared = local.child(SKIN_VERTEX_COUNT).and_then(Chunk::payload).filter(|p| p.len() == 4);
    if let Some(count) = declared.map(|p| u32_at(p, 0) as usize) {
        if count != vertices.len() {
            return Err(SkinError::CountMismatch { records: vertices.len(), count });
        }
    }
    Ok(Some(vertices))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(entries: &[(u32, f32)]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend((entries.len() as u32).to_le_bytes());
        out.extend(0u32.to_le_bytes());
        for &(bone, w) in entries {
            out.extend(bone.to_le_bytes());
            out.extend(w.to_le_bytes());
            out.extend([0u8; 36]);
        }
        out
    }

    fn mod_app(table: Vec<u8>, count: u32) -> Chunk<'static> {
        Chunk::container(
            MOD_APP,
            vec![Chunk::container(
                SKIN_LOCAL_DATA,
                vec![
                    Chunk::leaf(SKIN_VERTEX_COUNT, count.to_le_bytes().to_vec()),
                    Chunk::leaf(SKIN_WEIGHT_TABLE, table),
                ],
            )],
        )
    }

    #[test]
    fn weights_are_influences_over_their_sum() {
        // Blue's vertex 0 as stored: 0.034294873 + 0.00034017322 + 0.0067584775 = 0.041393524,
        // so B_Root weighs 0.034294873 / 0.041393524 = 0.828508 (the file: 0.8285081).
        let mut table = record(&[(0, 0.034_294_873), (1, 0.000_340_173_22), (2, 0.006_758_477_5)]);
        table.extend(record(&[(3, 2.0)]));
        let v = vertex_influences(&mod_app(table, 2)).unwrap().unwrap();
        assert_eq!(v.len(), 2);
        let w = v[0].weights();
        assert_eq!(w.iter().map(|p| p.0).collect::<Vec<_>>(), [0, 1, 2]);
        assert!((w[0].1 - 0.828_508_1).abs() < 1e-6, "{w:?}");
        assert_eq!(v[1].weights(), [(3, 1.0)]);
    }

    #[test]
    fn a_short_table_or_a_wrong_count_is_an_error() {
        let mut table = record(&[(0, 1.0), (1, 1.0)]);
        table.truncate(table.len() - 1);
        assert!(matches!(vertex_influences(&mod_app(table, 1)), Err(SkinError::Truncated { vertex: 0, .. })));
        assert!(matches!(
            vertex_influences(&mod_app(record(&[(0, 1.0)]), 2)),
            Err(SkinError::CountMismatch { records: 1, count: 2 })
        ));
        let huge = [u32::MAX.to_le_bytes(), 0u32.to_le_bytes()].concat();
        assert!(matches!(vertex_influences(&mod_app(huge, 1)), Err(SkinError::Truncated { .. })));
    }

    proptest::proptest! {
        #[test]
        fn any_table_reads_or_is_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..400), count in 0u32..20) {
            // Never a panic, and a table that reads has exactly the declared vertex count.
            if let Ok(Some(v)) = vertex_influences(&mod_app(bytes, count)) {
                proptest::prop_assert_eq!(v.len(), count as usize);
            }
        }
    }

    #[test]
    fn no_table_is_none() {
        let empty = Chunk::container(MOD_APP, vec![Chunk::container(SKIN_LOCAL_DATA, vec![])]);
        assert_eq!(vertex_influences(&empty), Ok(None));
    }

    /// A Skin modifier chunk holding the bone count, and references in the measured layout:
    /// 10 own slots, then per bone a node and six controllers (objects 1000+), node objects
    /// are 1..=99. `removed` bones keep their slots empty.
    fn skin_refs(count: u32, removed: &[usize], bank: usize) -> (Chunk<'static>, Vec<(usize, Option<usize>)>) {
        let modifier = Chunk::container(0x0100, vec![Chunk::leaf(SKIN_BONE_COUNT, count.to_le_bytes().to_vec())]);
        let mut refs: Vec<(usize, Option<usize>)> = (0..10).map(|s| (s, Some(500 + s))).collect();
        let first = 10 + bank * 7 * count as usize;
        for k in 0..count as usize {
            let live = !removed.contains(&k);
            refs.push((first + 7 * k, live.then_some(k + 1)));
            refs.extend((1..7).map(|c| (first + 7 * k + c, live.then_some(1000 + 7 * k + c))));
        }
        (modifier, refs)
    }

    fn is_node(t: usize) -> bool {
        (1..100).contains(&t)
    }

    #[test]
    fn a_removed_bone_keeps_its_index() {
        // Female_Adult_16's shape in small: bone 1 removed, bone 2 is still index 2.
        let (modifier, refs) = skin_refs(3, &[1], 0);
        assert_eq!(bone_table(&modifier, &refs, is_node).unwrap(), [Some(1), None, Some(3)]);
    }

    #[test]
    fn the_nodes_may_sit_in_a_second_bank() {
        // Construction_Male_02's shape: the nodes after `count` runs of empty node slots.
        let (modifier, refs) = skin_refs(2, &[], 1);
        assert_eq!(bone_table(&modifier, &refs, is_node).unwrap(), [Some(1), Some(2)]);
    }

    #[test]
    fn an_uneven_layout_is_an_error_not_a_guess() {
        let (modifier, mut refs) = skin_refs(3, &[], 0);
        refs.retain(|&(slot, _)| slot != 16); // bone 0 loses a controller: a run of 6
        assert!(matches!(bone_table(&modifier, &refs, is_node), Err(SkinBonesError::UnevenRuns { slot: 17, .. })));
        let (modifier, mut refs) = skin_refs(3, &[], 0);
        refs.extend((31..38).map(|s| (s, Some(if s == 31 { 50 } else { 2000 + s })))); // a fourth bone of three
        assert!(matches!(bone_table(&modifier, &refs, is_node), Err(SkinBonesError::OffGrid { slot: 31, .. })));
        let no_count = Chunk::container(0x0100, vec![]);
        assert_eq!(bone_table(&no_count, &refs, is_node), Err(SkinBonesError::NoBoneCount));
    }
}
