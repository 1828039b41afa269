//! Binary FBX node records, every version 3ds Max wrote (6.0 to 7.5).
//!
//! The layout is the same throughout: the 23-byte magic `Kaydara FBX Binary  \0\x1a\0`, a
//! `u32` version, then node records. A record is `end offset, property count, property
//! bytes` (`u32` each before 7.5, `u64` from 7500 on), a `u8` name length, the name, the
//! properties, the nested records and a null record closing the nest. Properties are one
//! type byte and a value: `Y C I F D L` scalars, `S R` length-prefixed bytes, `f d l i b`
//! arrays (`count, encoding, byte length`, zlib when encoding is 1).
//!
//! Why our own reader rather than `fbxcel-dom`: the crate refuses FBX 6.x outright (12 of
//! the 103 exports) and its document layer expects the 7.4 object model; this reader is
//! one small module for all versions, bounded (lengths checked against the bytes left,
//! array sizes against the bytes they decompress to, nesting depth capped) and never
//! panics. See docs/exporters.md for the measurement.

use flate2::read::ZlibDecoder;
use std::io::Read;

/// The 21 bytes that open every binary FBX file (`Kaydara FBX Binary  \0`).
pub const MAGIC: &[u8; 21] = b"Kaydara FBX Binary  \0";
/// Deepest node nesting accepted (real files use fewer than 10 levels).
pub const MAX_DEPTH: usize = 64;
/// Largest decoded array accepted, in bytes (bounded memory on hostile input).
pub const MAX_ARRAY_BYTES: usize = 1 << 30;

/// Why a binary FBX could not be read; `offset` is the byte offset in the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FbxError {
    /// Not a binary FBX (ASCII FBX starts with `; FBX`).
    #[error("not a binary FBX (magic missing){}", if *.ascii { ": ASCII FBX is not read" } else { "" })]
    NotBinary {
        /// The file looks like ASCII FBX.
        ascii: bool,
    },
    /// A record, property or array runs past the end of its parent.
    #[error("{what} at offset {offset} runs past the end ({end})")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Where it starts.
        offset: u64,
        /// The end it must stay within.
        end: u64,
    },
    /// A property type byte this format does not define.
    #[error("unknown property type {code:#04x} at offset {offset}")]
    UnknownType {
        /// The type byte.
        code: u8,
        /// Where it is.
        offset: u64,
    },
    /// An array whose encoding or decompressed size is wrong.
    #[error("array at offset {offset}: {what}")]
    BadArray {
        /// Where the array property starts.
        offset: u64,
        /// What was wrong.
        what: String,
    },
    /// Nesting deeper than [`MAX_DEPTH`].
    #[error("nesting deeper than {MAX_DEPTH} at offset {offset}")]
    TooDeep {
        /// Where the record starts.
        offset: u64,
    },
}

/// One property value.
#[derive(Clone, Debug, PartialEq)]
pub enum Property {
    /// `Y`.
    I16(i16),
    /// `C`: a boolean in 7.x, a key-type letter in 6.x takes (`L`, `C` …), so the byte is kept.
    Char(u8),
    /// `I`.
    I32(i32),
    /// `F`.
    F32(f32),
    /// `D`.
    F64(f64),
    /// `L`.
    I64(i64),
    /// `S` (bytes: names hold `\0\x01` class separators).
    String(Vec<u8>),
    /// `R`.
    Raw(Vec<u8>),
    /// `f`.
    F32s(Vec<f32>),
    /// `d`.
    F64s(Vec<f64>),
    /// `l`.
    I64s(Vec<i64>),
    /// `i`.
    I32s(Vec<i32>),
    /// `b`.
    Bools(Vec<bool>),
}

impl Property {
    /// Numeric scalar as `f64`.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match self {
            Property::I16(v) => *v as f64,
            Property::Char(v) => *v as f64,
            Property::I32(v) => *v as f64,
            Property::F32(v) => *v as f64,
            Property::F64(v) => *v,
            Property::I64(v) => *v as f64,
            _ => return None,
        })
    }

    /// Integer scalar as `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        Some(match self {
            Property::I16(v) => *v as i64,
            Property::Char(v) => *v as i64,
            Property::I32(v) => *v as i64,
            Property::I64(v) => *v,
            _ => return None,
        })
    }

    /// String bytes.
    pub fn as_bytes(&self) -> Option<&[u8]> {
        match self {
            Property::String(s) | Property::Raw(s) => Some(s),
            _ => None,
        }
    }

    /// String as text (lossy UTF-8).
    pub fn as_text(&self) -> Option<String> {
        self.as_bytes().map(|b| String::from_utf8_lossy(b).into_owned())
    }

    /// Numeric array (or scalar) as `f64`s.
    pub fn as_f64s(&self) -> Option<Vec<f64>> {
        Some(match self {
            Property::F32s(v) => v.iter().map(|&x| x as f64).collect(),
            Property::F64s(v) => v.clone(),
            Property::I64s(v) => v.iter().map(|&x| x as f64).collect(),
            Property::I32s(v) => v.iter().map(|&x| x as f64).collect(),
            Property::Bools(v) => v.iter().map(|&x| x as u8 as f64).collect(),
            other => vec![other.as_f64()?],
        })
    }

    /// Integer array (or scalar) as `i64`s.
    pub fn as_i64s(&self) -> Option<Vec<i64>> {
        Some(match self {
            Property::I64s(v) => v.clone(),
            Property::I32s(v) => v.iter().map(|&x| x as i64).collect(),
            other => vec![other.as_i64()?],
        })
    }
}

/// One node record.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Record name (`Objects`, `Model`, `P` …).
    pub name: String,
    /// Its properties in order.
    pub properties: Vec<Property>,
    /// Nested records.
    pub children: Vec<Node>,
    /// Byte offset of the record in the file (its locator).
    pub offset: u64,
}

impl Node {
    /// First child named `name`.
    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    /// Children named `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// All numbers of the properties (FBX 6 spells arrays as many scalar properties).
    pub fn numbers(&self) -> Vec<f64> {
        self.properties.iter().filter_map(Property::as_f64s).flatten().collect()
    }

    /// All integers of the properties.
    pub fn integers(&self) -> Vec<i64> {
        self.properties.iter().filter_map(Property::as_i64s).flatten().collect()
    }
}

/// A read binary FBX document.
#[derive(Clone, Debug, PartialEq)]
pub struct Document {
    /// Version from the header (6100, 7400 …).
    pub version: u32,
    /// Top-level records.
    pub nodes: Vec<Node>,
}

impl Document {
    /// First top-level record named `name`.
    pub fn node(&self, name: &str) -> Option<&Node> {
        self.nodes.iter().find(|c| c.name == name)
    }
}

/// True when `bytes` open like a binary FBX.
pub fn is_binary_fbx(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Reads a binary FBX document.
pub fn read(bytes: &[u8]) -> Result<Document, FbxError> {
    if !is_binary_fbx(bytes) || bytes.len() < 27 {
        let ascii = bytes.iter().take(2048).all(|b| b.is_ascii()) && bytes.windows(3).take(2048).any(|w| w == b"FBX");
        return Err(FbxError::NotBinary { ascii });
    }
    let version = u32::from_le_bytes([bytes[23], bytes[24], bytes[25], bytes[26]]);
    let mut reader = Reader { bytes, wide: version >= 7500 };
    let mut nodes = Vec::new();
    let mut pos = 27usize;
    let end = bytes.len();
    while pos + reader.null_len() <= end {
        match reader.node(pos, end, 0)? {
            Some((node, next)) => {
                nodes.push(node);
                pos = next;
            }
            None => break, // the null record ending the top level; the footer follows
        }
    }
    Ok(Document { version, nodes })
}

struct Reader<'a> {
    bytes: &'a [u8],
    wide: bool,
}

impl Reader<'_> {
    fn null_len(&self) -> usize {
        if self.wide {
            25
        } else {
            13
        }
    }

    fn take(&self, pos: usize, len: usize, end: usize, what: &'static str) -> Result<&[u8], FbxError> {
        match pos.checked_add(len) {
            Some(stop) if stop <= end => Ok(&self.bytes[pos..stop]),
            _ => Err(FbxError::Truncated { what, offset: pos as u64, end: end as u64 }),
        }
    }

    fn uint(&self, pos: usize, wide: bool, end: usize, what: &'static str) -> Result<u64, FbxError> {
        Ok(if wide {
            let b = self.take(pos, 8, end, what)?;
            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        } else {
            let b = self.take(pos, 4, end, what)?;
            u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as u64
        })
    }

    /// Reads the record at `pos` within `end`: `None` for a null record.
    fn node(&mut self, pos: usize, end: usize, depth: usize) -> Result<Option<(Node, usize)>, FbxError> {
        if depth > MAX_DEPTH {
            return Err(FbxError::TooDeep { offset: pos as u64 });
        }
        let w = if self.wide { 8 } else { 4 };
        let record_end = self.uint(pos, self.wide, end, "record header")?;
        let count = self.uint(pos + w, self.wide, end, "record header")?;
        let list_len = self.uint(pos + 2 * w, self.wide, end, "record header")?;
        let name_len = self.take(pos + 3 * w, 1, end, "record header")?[0] as usize;
        if record_end == 0 {
            return Ok(None);
        }
        let record_end = usize::try_from(record_end)
            .ok()
            .filter(|&e| e <= end && e > pos)
            .ok_or(FbxError::Truncated { what: "record", offset: pos as u64, end: end as u64 })?;
        let name_at = pos + 3 * w + 1;
        let name = String::from_utf8_lossy(self.take(name_at, name_len, record_end, "record name")?).into_owned();
        let props_at = name_at + name_len;
        let props_end =
            usize::try_from(list_len).ok().and_then(|l| props_at.checked_add(l)).filter(|&e| e <= record_end).ok_or(
                FbxError::Truncated { what: "property list", offset: props_at as u64, end: record_end as u64 },
            )?;
        let mut properties = Vec::new();
        let mut p = props_at;
        for _ in 0..count {
            if p >= props_end {
                return Err(FbxError::Truncated { what: "property", offset: p as u64, end: props_end as u64 });
            }
            let (prop, next) = self.property(p, props_end)?;
            properties.push(prop);
            p = next;
        }
        let mut children = Vec::new();
        let mut c = props_end;
        while c < record_end {
            match self.node(c, record_end, depth + 1)? {
                Some((child, next)) => {
                    children.push(child);
                    c = next;
                }
                None => break,
            }
        }
        Ok(Some((Node { name, properties, children, offset: pos as u64 }, record_end)))
    }

    fn property(&self, pos: usize, end: usize) -> Result<(Property, usize), FbxError> {
        let code = self.take(pos, 1, end, "property")?[0];
        let at = pos + 1;
        let fixed = |n: usize| self.take(at, n, end, "property");
        Ok(match code {
            b'Y' => {
                let b = fixed(2)?;
                (Property::I16(i16::from_le_bytes([b[0], b[1]])), at + 2)
            }
            b'C' => (Property::Char(fixed(1)?[0]), at + 1),
            b'I' => {
                let b = fixed(4)?;
                (Property::I32(i32::from_le_bytes([b[0], b[1], b[2], b[3]])), at + 4)
            }
            b'F' => {
                let b = fixed(4)?;
                (Property::F32(f32::from_le_bytes([b[0], b[1], b[2], b[3]])), at + 4)
            }
            b'D' => {
                let b = fixed(8)?;
                (Property::F64(f64::from_le_bytes(b.try_into().expect("8 bytes"))), at + 8)
            }
            b'L' => {
                let b = fixed(8)?;
                (Property::I64(i64::from_le_bytes(b.try_into().expect("8 bytes"))), at + 8)
            }
            b'S' | b'R' => {
                let len = self.uint(at, false, end, "string length")? as usize;
                let data = self.take(at + 4, len, end, "string")?.to_vec();
                let p = if code == b'S' { Property::String(data) } else { Property::Raw(data) };
                (p, at + 4 + len)
            }
            b'f' | b'd' | b'l' | b'i' | b'b' => self.array(code, pos, end)?,
            other => return Err(FbxError::UnknownType { code: other, offset: pos as u64 }),
        })
    }

    fn array(&self, code: u8, pos: usize, end: usize) -> Result<(Property, usize), FbxError> {
        let at = pos + 1;
        let count = self.uint(at, false, end, "array header")? as usize;
        let encoding = self.uint(at + 4, false, end, "array header")?;
        let stored = self.uint(at + 8, false, end, "array header")? as usize;
        let data = self.take(at + 12, stored, end, "array data")?;
        let size = match code {
            b'f' | b'i' => 4,
            b'd' | b'l' => 8,
            _ => 1,
        };
        let bad = |what: String| FbxError::BadArray { offset: pos as u64, what };
        let wanted = count
            .checked_mul(size)
            .filter(|&n| n <= MAX_ARRAY_BYTES)
            .ok_or_else(|| bad(format!("{count} elements is too many")))?;
        let decoded: Vec<u8> = match encoding {
            0 => data.to_vec(),
            1 => {
                let mut out = Vec::with_capacity(wanted.min(stored.saturating_mul(64)).min(MAX_ARRAY_BYTES));
                ZlibDecoder::new(data)
                    .take(wanted as u64 + 1)
                    .read_to_end(&mut out)
                    .map_err(|e| bad(format!("zlib: {e}")))?;
                out
            }
            other => return Err(bad(format!("unknown encoding {other}"))),
        };
        if decoded.len() != wanted {
            return Err(bad(format!("{} bytes for {count} elements of {size}", decoded.len())));
        }
        let chunks = decoded.chunks_exact(size);
        let prop = match code {
            b'f' => Property::F32s(chunks.map(|c| f32::from_le_bytes(c.try_into().expect("4"))).collect()),
            b'i' => Property::I32s(chunks.map(|c| i32::from_le_bytes(c.try_into().expect("4"))).collect()),
            b'd' => Property::F64s(chunks.map(|c| f64::from_le_bytes(c.try_into().expect("8"))).collect()),
            b'l' => Property::I64s(chunks.map(|c| i64::from_le_bytes(c.try_into().expect("8"))).collect()),
            _ => Property::Bools(decoded.iter().map(|&b| b != 0).collect()),
        };
        Ok((prop, at + 12 + stored))
    }
}

/// Writes a document in the binary layout (uncompressed arrays): the tests' and fuzz
/// seeds' way of making files, and the other half of the write/read property test.
pub fn write(doc: &Document) -> Vec<u8> {
    let wide = doc.version >= 7500;
    let mut out = Vec::new();
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[0x1a, 0]);
    out.extend_from_slice(&doc.version.to_le_bytes());
    for n in &doc.nodes {
        write_node(&mut out, n, wide);
    }
    out.extend(std::iter::repeat_n(0u8, if wide { 25 } else { 13 }));
    out
}

fn put_uint(out: &mut [u8], at: usize, v: u64, wide: bool) {
    if wide {
        out[at..at + 8].copy_from_slice(&v.to_le_bytes());
    } else {
        out[at..at + 4].copy_from_slice(&(v as u32).to_le_bytes());
    }
}

fn write_node(out: &mut Vec<u8>, n: &Node, wide: bool) {
    let w = if wide { 8 } else { 4 };
    let start = out.len();
    out.extend(std::iter::repeat_n(0u8, 3 * w));
    out.push(n.name.len() as u8);
    out.extend_from_slice(n.name.as_bytes());
    let props_at = out.len();
    for p in &n.properties {
        write_property(out, p);
    }
    let list_len = (out.len() - props_at) as u64;
    if !n.children.is_empty() {
        for c in &n.children {
            write_node(out, c, wide);
        }
        out.extend(std::iter::repeat_n(0u8, 3 * w + 1));
    }
    let end = out.len() as u64;
    put_uint(out, start, end, wide);
    put_uint(out, start + w, n.properties.len() as u64, wide);
    put_uint(out, start + 2 * w, list_len, wide);
}

fn write_property(out: &mut Vec<u8>, p: &Property) {
    fn array<T: Copy>(out: &mut Vec<u8>, code: u8, v: &[T], bytes: impl Fn(T) -> Vec<u8>) {
        out.push(code);
        let data: Vec<u8> = v.iter().flat_map(|&x| bytes(x)).collect();
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(data.len() as u32).to_le_bytes());
        out.extend_from_slice(&data);
    }
    match p {
        Property::I16(v) => {
            out.push(b'Y');
            out.extend_from_slice(&v.to_le_bytes());
        }
        Property::Char(v) => out.extend_from_slice(&[b'C', *v]),
        Property::I32(v) => {
            out.push(b'I');
            out.extend_from_slice(&v.to_le_bytes());
        }
        Property::F32(v) => {
            out.push(b'F');
            out.extend_from_slice(&v.to_le_bytes());
        }
        Property::F64(v) => {
            out.push(b'D');
            out.extend_from_slice(&v.to_le_bytes());
        }
        Property::I64(v) => {
            out.push(b'L');
            out.extend_from_slice(&v.to_le_bytes());
        }
        Property::String(s) | Property::Raw(s) => {
            out.push(if matches!(p, Property::String(_)) { b'S' } else { b'R' });
            out.extend_from_slice(&(s.len() as u32).to_le_bytes());
            out.extend_from_slice(s);
        }
        Property::F32s(v) => array(out, b'f', v, |x| x.to_le_bytes().to_vec()),
        Property::F64s(v) => array(out, b'd', v, |x| x.to_le_bytes().to_vec()),
        Property::I64s(v) => array(out, b'l', v, |x| x.to_le_bytes().to_vec()),
        Property::I32s(v) => array(out, b'i', v, |x| x.to_le_bytes().to_vec()),
        Property::Bools(v) => array(out, b'b', v, |x| vec![x as u8]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn leaf(name: &str, properties: Vec<Property>) -> Node {
        Node { name: name.into(), properties, children: Vec::new(), offset: 0 }
    }

    /// Offsets are positions in the written bytes; compare without them.
    fn strip(mut nodes: Vec<Node>) -> Vec<Node> {
        for n in &mut nodes {
            n.offset = 0;
            n.children = strip(std::mem::take(&mut n.children));
        }
        nodes
    }

    #[test]
    fn hand_written_record_reads_as_laid_out() {
        // FBX 7.4 record "A" with one `I` property 7 and no children, then the null record:
        // end = 27 + 13 + 1 + 5 = 46; count 1; list length 5; name length 1.
        let mut bytes = MAGIC.to_vec();
        bytes.extend_from_slice(&[0x1a, 0]);
        bytes.extend_from_slice(&7400u32.to_le_bytes());
        bytes.extend_from_slice(&46u32.to_le_bytes());
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&5u32.to_le_bytes());
        bytes.extend_from_slice(&[1, b'A', b'I', 7, 0, 0, 0]);
        bytes.extend_from_slice(&[0; 13]);
        let doc = read(&bytes).unwrap();
        assert_eq!(doc.version, 7400);
        assert_eq!(
            doc.nodes,
            vec![Node { name: "A".into(), properties: vec![Property::I32(7)], children: vec![], offset: 27 }]
        );
    }

    #[test]
    fn zlib_arrays_decode_and_sizes_are_checked() {
        use flate2::{write::ZlibEncoder, Compression};
        use std::io::Write;
        let values = [1.5f64, -2.0, 3.25];
        let raw: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::default());
        enc.write_all(&raw).unwrap();
        let packed = enc.finish().unwrap();
        let mut prop = vec![b'd'];
        prop.extend_from_slice(&3u32.to_le_bytes());
        prop.extend_from_slice(&1u32.to_le_bytes());
        prop.extend_from_slice(&(packed.len() as u32).to_le_bytes());
        prop.extend_from_slice(&packed);
        let reader = Reader { bytes: &prop, wide: false };
        assert_eq!(reader.property(0, prop.len()).unwrap().0, Property::F64s(values.to_vec()));
        // The same data announced as 4 elements is refused, not padded.
        prop[1..5].copy_from_slice(&4u32.to_le_bytes());
        let reader = Reader { bytes: &prop, wide: false };
        assert!(matches!(reader.property(0, prop.len()), Err(FbxError::BadArray { .. })));
    }

    #[test]
    fn truncated_and_foreign_inputs_are_typed_errors() {
        assert!(matches!(read(b"; FBX 7.3.0 project file\n"), Err(FbxError::NotBinary { ascii: true })));
        let doc = Document {
            version: 7400,
            nodes: vec![leaf(
                "Objects",
                vec![Property::String(b"x\0\x01Model".to_vec()), Property::F64s(vec![1.0; 4])],
            )],
        };
        let bytes = write(&doc);
        for cut in 27..bytes.len() - 13 {
            assert!(read(&bytes[..cut]).is_err() || read(&bytes[..cut]).unwrap().nodes.is_empty(), "cut {cut}");
        }
    }

    fn property() -> impl Strategy<Value = Property> {
        prop_oneof![
            any::<i16>().prop_map(Property::I16),
            any::<u8>().prop_map(Property::Char),
            any::<i32>().prop_map(Property::I32),
            any::<i64>().prop_map(Property::I64),
            (-1e6f32..1e6).prop_map(Property::F32),
            (-1e12f64..1e12).prop_map(Property::F64),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Property::String),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Property::Raw),
            proptest::collection::vec(-1e6f32..1e6, 0..6).prop_map(Property::F32s),
            proptest::collection::vec(-1e9f64..1e9, 0..6).prop_map(Property::F64s),
            proptest::collection::vec(any::<i64>(), 0..6).prop_map(Property::I64s),
            proptest::collection::vec(any::<i32>(), 0..6).prop_map(Property::I32s),
            proptest::collection::vec(any::<bool>(), 0..6).prop_map(Property::Bools),
        ]
    }

    fn node() -> impl Strategy<Value = Node> {
        let leaf = ("[A-Za-z]{1,10}", proptest::collection::vec(property(), 0..4))
            .prop_map(|(name, properties)| Node { name, properties, children: vec![], offset: 0 });
        leaf.prop_recursive(3, 24, 4, |inner| {
            ("[A-Za-z]{1,10}", proptest::collection::vec(property(), 0..3), proptest::collection::vec(inner, 1..4))
                .prop_map(|(name, properties, children)| Node { name, properties, children, offset: 0 })
        })
    }

    proptest! {
        #[test]
        fn write_then_read_is_identity(nodes in proptest::collection::vec(node(), 0..4), wide in any::<bool>()) {
            let doc = Document { version: if wide { 7500 } else { 7400 }, nodes };
            let back = read(&write(&doc)).unwrap();
            prop_assert_eq!(back.version, doc.version);
            prop_assert_eq!(strip(back.nodes), doc.nodes);
        }

        #[test]
        fn any_bytes_after_the_header_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..256)) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend_from_slice(&[0x1a, 0, 0x1c, 0x1d, 0, 0]);
            bytes.extend_from_slice(&tail);
            let _ = read(&bytes);
        }
    }
}
