//! Typed leaf values: what a documented leaf chunk holds, decoded, and the exact bytes
//! it encodes back to. A payload whose size does not fit its documented layout is not
//! a value (the caller degrades); nothing is ever truncated or padded.

/// The documented layout of a leaf payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Zero bytes (presence is the information).
    Empty,
    /// One byte.
    U8,
    /// `u16`.
    U16,
    /// `u32`.
    U32,
    /// `s32`.
    I32,
    /// `s64`.
    I64,
    /// `f32`.
    F32,
    /// Two `u32` (a ClassId, or node parent + flags).
    U32x2,
    /// Three `u32` (ClassData / ConfigScript headers).
    U32x3,
    /// Four `u32` (ClassDirectory3 entry header).
    U32x4,
    /// Three `f32` (a colour).
    F32x3,
    /// UTF-16LE code units, no terminator; payload length even.
    Utf16,
    /// `u32 length` counting a terminating NUL, the bytes, then that NUL (Config meta strings).
    LenString,
}

/// A decoded leaf payload. Floats are kept as values whose bit patterns round-trip
/// exactly (`to_bits`/`from_bits`); strings keep their code units, so unpaired
/// surrogates survive.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Value {
    /// No payload.
    Empty,
    /// One byte.
    U8(u8),
    /// `u16`.
    U16(u16),
    /// `u32`.
    U32(u32),
    /// `s32`.
    I32(i32),
    /// `s64`.
    I64(i64),
    /// `f32`.
    F32(f32),
    /// Two `u32`.
    U32x2([u32; 2]),
    /// Three `u32`.
    U32x3([u32; 3]),
    /// Four `u32`.
    U32x4([u32; 4]),
    /// Three `f32`.
    F32x3([f32; 3]),
    /// UTF-16LE code units.
    Utf16(Vec<u16>),
    /// Bytes of a length-prefixed NUL-terminated string, without prefix and NUL.
    LenString(Vec<u8>),
}

fn u32_at(p: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]])
}

fn u32s<const N: usize>(p: &[u8]) -> [u32; N] {
    std::array::from_fn(|i| u32_at(p, 4 * i))
}

impl Value {
    /// Decodes `payload` as `kind`; `None` when the size does not fit the layout.
    pub(crate) fn decode(kind: Kind, payload: &[u8]) -> Option<Value> {
        let n = payload.len();
        Some(match kind {
            Kind::Empty if n == 0 => Value::Empty,
            Kind::U8 if n == 1 => Value::U8(payload[0]),
            Kind::U16 if n == 2 => Value::U16(u16::from_le_bytes([payload[0], payload[1]])),
            Kind::U32 if n == 4 => Value::U32(u32_at(payload, 0)),
            Kind::I32 if n == 4 => Value::I32(u32_at(payload, 0) as i32),
            Kind::F32 if n == 4 => Value::F32(f32::from_bits(u32_at(payload, 0))),
            Kind::I64 if n == 8 => Value::I64(i64::from_le_bytes(payload.try_into().ok()?)),
            Kind::U32x2 if n == 8 => Value::U32x2(u32s(payload)),
            Kind::U32x3 if n == 12 => Value::U32x3(u32s(payload)),
            Kind::U32x4 if n == 16 => Value::U32x4(u32s(payload)),
            Kind::F32x3 if n == 12 => Value::F32x3(u32s::<3>(payload).map(f32::from_bits)),
            Kind::Utf16 if n.is_multiple_of(2) => {
                Value::Utf16(payload.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect())
            }
            Kind::LenString if n >= 5 => {
                let len = u32_at(payload, 0) as usize;
                if len != n - 4 || payload[n - 1] != 0 {
                    return None;
                }
                Value::LenString(payload[4..n - 1].to_vec())
            }
            _ => return None,
        })
    }

    /// Appends the exact payload bytes of this value.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Value::Empty => {}
            Value::U8(v) => out.push(*v),
            Value::U16(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::U32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I32(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::I64(v) => out.extend_from_slice(&v.to_le_bytes()),
            Value::F32(v) => out.extend_from_slice(&v.to_bits().to_le_bytes()),
            Value::U32x2(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Value::U32x3(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Value::U32x4(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes())),
            Value::F32x3(v) => v.iter().for_each(|x| out.extend_from_slice(&x.to_bits().to_le_bytes())),
            Value::Utf16(units) => units.iter().for_each(|u| out.extend_from_slice(&u.to_le_bytes())),
            Value::LenString(bytes) => {
                out.extend_from_slice(&(bytes.len() as u32 + 1).to_le_bytes());
                out.extend_from_slice(bytes);
                out.push(0);
            }
        }
    }

    /// The text of a UTF-16 value (lossy), `None` for other kinds.
    pub(crate) fn text(&self) -> Option<String> {
        match self {
            Value::Utf16(units) => Some(String::from_utf16_lossy(units)),
            Value::LenString(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
            _ => None,
        }
    }

    /// A UTF-16 value holding `text`.
    pub(crate) fn utf16(text: &str) -> Value {
        Value::Utf16(text.encode_utf16().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_and_rejects_wrong_sizes() {
        let cases: &[(Kind, &[u8])] = &[
            (Kind::Empty, &[]),
            (Kind::U8, &[0x2E]),
            (Kind::U16, &[0x02, 0x00]),
            (Kind::U32, &[1, 2, 3, 4]),
            (Kind::I32, &[0xFF, 0xFF, 0xFF, 0xFF]),
            (Kind::I64, &[1, 0, 0, 0, 0, 0, 0, 0x80]),
            (Kind::F32, &[0x01, 0x00, 0xC0, 0x7F]), // a NaN with payload keeps its bits
            (Kind::U32x2, &[1, 0, 0, 0, 2, 0, 0, 0]),
            (Kind::U32x3, &[0; 12]),
            (Kind::U32x4, &[9; 16]),
            (Kind::F32x3, &[0, 0, 0x80, 0x3F, 0, 0, 0, 0x80, 0, 0, 0, 0]),
            (Kind::Utf16, &[0x00, 0xD8, 0x41, 0x00]), // unpaired surrogate survives
            (Kind::LenString, &[3, 0, 0, 0, b'a', b'b', 0]),
        ];
        for (kind, bytes) in cases {
            let v = Value::decode(*kind, bytes).unwrap_or_else(|| panic!("{kind:?}"));
            let mut out = Vec::new();
            v.encode(&mut out);
            assert_eq!(&out, bytes, "{kind:?}");
            let mut longer = bytes.to_vec();
            longer.push(0);
            if *kind != Kind::Utf16 {
                assert_eq!(Value::decode(*kind, &longer), None, "{kind:?} accepts a wrong size");
            }
        }
        assert_eq!(Value::decode(Kind::Utf16, &[1, 2, 3]), None);
        assert_eq!(Value::decode(Kind::LenString, &[4, 0, 0, 0, b'a', b'b', 0]), None, "length disagrees");
        assert_eq!(Value::decode(Kind::LenString, &[3, 0, 0, 0, b'a', b'b', 1]), None, "no terminator");
    }

    #[test]
    fn text_and_utf16() {
        assert_eq!(Value::utf16("Box01").text().unwrap(), "Box01");
    }
}
