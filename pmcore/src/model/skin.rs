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
}
