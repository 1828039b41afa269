//! The key-table codec of the round-trip model (T2): a Linear, Bezier or TCB controller's key
//! table decoded into its fields and encoded back byte for byte. The controller's other
//! chunks are turned into parts by `object_parts::keyframer`.
//!
//! A key table is a leaf of `n` fixed-size records with no count (design §10b; the record
//! size per key-table chunk id, measured to divide every instance of the real corpora):
//! `time` (`i32` ticks), `flags` (`u32`), then the record's values as `f32`, in stored
//! order. The values are kept by their bits (`f32::from_bits`), so NaN payloads and
//! negative zeros survive. A table whose size is not a whole number of records stays raw
//! in place (never read partly). Reading a table's meaning — tangents, TCB parameters,
//! caches — is the sampling code's job (`model::keys`); this module only owns the bytes.
//!
//! The controller's other chunks, by id and size as the real corpora store them: 0x2501 /
//! 0x2503 the default value (`f32`, or 3×`f32` for a position or point), 0x2504 a default
//! rotation (4 words), 0x2500 (two words), 0x3002 and 0x3005 (`i32`), 0x3003 the time range
//! (two `i32` ticks, kept as two words), 0x2535 (a `u32` whose meaning is not established —
//! typed by its size, like every word here), and the empty leaves 0x2532 – 0x2534 and
//! 0x7230. Float controllers of newer files wrap them in a 0x7127 container; 0x2532 – 0x2534
//! are containers of one 0x2700 bit array when the table holds keys. A chunk of another
//! size stays raw in place. Measured over the 241 real files of public, wild and pairs
//! (42,625 Bezier Float objects, 36,135 of them wrapped).

use super::keys::{BEZIER_FLOAT_KEYS, BEZIER_FLOAT_KEY_BYTES, BEZIER_SCALE_KEYS, BEZIER_SCALE_KEY_BYTES};
use super::keys_linear::{BEZIER_POSITION_KEYS, LINEAR_POSITION_KEYS, LINEAR_ROTATION_KEYS, LINEAR_SCALE_KEYS};
use super::keys_tcb::{TCB_POSITION_KEYS, TCB_ROTATION_KEYS, TCB_SCALE_KEYS};

/// Words per key of each key-table chunk id (design §10b): Linear Position, Rotation,
/// Scale; TCB Position, Rotation, Scale; Bezier Float, Position, Scale.
const KEY_TABLES: &[(u16, usize)] = &[
    (LINEAR_POSITION_KEYS, 5),
    (LINEAR_ROTATION_KEYS, 6),
    (LINEAR_SCALE_KEYS, 9),
    (TCB_POSITION_KEYS, 16),
    (TCB_ROTATION_KEYS, 23),
    (TCB_SCALE_KEYS, 28),
    (BEZIER_FLOAT_KEYS, BEZIER_FLOAT_KEY_BYTES / 4),
    (BEZIER_POSITION_KEYS, 20),
    (BEZIER_SCALE_KEYS, BEZIER_SCALE_KEY_BYTES / 4),
];
/// Words per key of a key-table chunk id.
pub(crate) fn words_per_key(id: u16) -> Option<usize> {
    KEY_TABLES.iter().find(|(k, _)| *k == id).map(|(_, w)| *w)
}

/// A key table: per key its time, flags and values, in stored order.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct KeyTable {
    /// Words per record (time and flags included).
    words: usize,
    /// Key times in ticks.
    times: Vec<i32>,
    /// Key flags.
    flags: Vec<u32>,
    /// The values of every key, `words − 2` per key.
    values: Vec<f32>,
}

impl KeyTable {
    /// Decodes the table of chunk `id`; `None` when `id` is no key table or the size is
    /// not a whole number of records.
    pub(crate) fn decode(id: u16, payload: &[u8]) -> Option<KeyTable> {
        let words = words_per_key(id)?;
        let record = words * 4;
        if !payload.len().is_multiple_of(record) {
            return None;
        }
        let n = payload.len() / record;
        let mut table =
            KeyTable { words, times: Vec::with_capacity(n), flags: Vec::with_capacity(n), values: Vec::new() };
        table.values.reserve(n * (words - 2));
        for r in payload.chunks_exact(record) {
            let mut w = r.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            table.times.push(w.next()? as i32);
            table.flags.push(w.next()?);
            table.values.extend(w.map(f32::from_bits));
        }
        Some(table)
    }

    /// Appends the exact payload bytes.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        let per_key = self.words - 2;
        out.reserve(self.times.len() * self.words * 4);
        for (k, (time, flags)) in self.times.iter().zip(&self.flags).enumerate() {
            out.extend_from_slice(&time.to_le_bytes());
            out.extend_from_slice(&flags.to_le_bytes());
            for v in &self.values[k * per_key..(k + 1) * per_key] {
                out.extend_from_slice(&v.to_bits().to_le_bytes());
            }
        }
    }

    /// Number of keys.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.times.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Two Bezier Float keys worked out by hand: (tick 0, value 1) and (tick 160, value
    /// −0.0, a NaN tangent with a payload) — the bytes come back exactly.
    #[test]
    fn a_bezier_float_table_round_trips_negative_zero_and_nan_payloads() {
        let mut bytes = Vec::new();
        for w in [0u32, 0x80, 1.0f32.to_bits(), 0, 0, 0x3eaa_aaab, 0x3eaa_aaab] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        for w in [160u32, 0x480, (-0.0f32).to_bits(), 0x7fc0_0001, 0, 0xbf80_0000, 0x3eaa_aaab] {
            bytes.extend_from_slice(&w.to_le_bytes());
        }
        let table = KeyTable::decode(0x2525, &bytes).expect("two whole records");
        assert_eq!((table.len(), table.times.clone(), table.flags.clone()), (2, vec![0, 160], vec![0x80, 0x480]));
        assert_eq!(table.values[0], 1.0);
        let mut out = Vec::new();
        table.encode(&mut out);
        assert_eq!(out, bytes);
    }

    #[test]
    fn a_partial_record_or_an_unknown_chunk_is_not_a_table() {
        assert_eq!(KeyTable::decode(0x2525, &[0; 27]), None);
        assert_eq!(KeyTable::decode(0x2524, &[0; 28]), None);
        assert!(KeyTable::decode(0x2525, &[]).is_some_and(|t| t.len() == 0));
    }

    proptest! {
        /// Any whole number of records of any table kind re-encodes to the same bytes.
        #[test]
        fn every_whole_table_re_encodes_exactly(kind in 0..KEY_TABLES.len(), keys in 0usize..6, seed in any::<u64>()) {
            let (id, words) = KEY_TABLES[kind];
            let mut x = seed | 1;
            let bytes: Vec<u8> = (0..keys * words * 4)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let table = KeyTable::decode(id, &bytes).expect("whole records");
            let mut out = Vec::new();
            table.encode(&mut out);
            prop_assert_eq!(out, bytes);
        }
    }
}
