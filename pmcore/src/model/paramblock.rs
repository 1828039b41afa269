//! Parameter blocks: ParamBlock2 (class 0x82:0, superclass 0x82) and the old ParamBlock
//! (class 8:0, superclass 8) — the values primitives, modifiers and materials keep their
//! settings in. Decoded here once, used twice: read-only by evaluation (`ParamBlock2::
//! of_object` / `ParamBlock::of_object` over a chunk) and by the typed model (T2), which
//! keeps every record as a [`Param`] and regenerates its bytes with [`Param::encode`].
//!
//! Layouts, as measured on the 236 parseable real files of public, wild and pairs (every
//! record of every block decodes and re-encodes to its exact bytes; see
//! `docs/typed-model.md`):
//!
//! * **parameter record** — chunk 0x000a, 0x000e, 0x100e or 0x200e, one per stored
//!   parameter, in stored order: `u16` param id, `u16` type (the `ParamType2` number, bit
//!   0x800 = a Tab), `u16 word4`, `u16 word6`, `u16 flags`, then 0 (0x000a), 1 (0x000e,
//!   0x100e) or 2 (0x200e) `u32` words, then a tag byte, then the value. Tag bit 0x40 =
//!   an inline value follows; a record without it keeps its value in a controller.
//!   The meaning of word4/word6/flags/extra words is not identified; they are kept as
//!   decoded integers and regenerated.
//! * **value by type**: float-like (float 0, angle 5, percent 6, world 7, colour channel
//!   0xb) `f32`; int-like (int 1, time 0xc, radio index 0xd, index 0x13, enum 0x18) `s32`;
//!   bool 4 `s32`; rgba 2 / point3 3 / hsv 0xa 3×`f32`; point4 0x16 / frgba 0x17 4×`f32`;
//!   matrix3 0x14 4×3 `f32` + `u32`; string 8 / filename 9 `s32` byte length then the
//!   bytes (negative lengths −1/−2 carry no bytes); bitmap 0x10 one byte; reference types
//!   (mtl 0xe, texmap 0xf, node 0x11, reftarg 0x12, pblock2 0x15) an `s32` **or nothing**.
//!   A non-Tab record's value is whatever follows the tag (possibly nothing; type 0x19,
//!   whose value layout is unknown, occurs only so).
//! * **Tab** (type | 0x800): tag byte, `u32` count, then per element a tag byte and — for
//!   value types when the element tag has bit 0x40 — its value. Elements of reference
//!   types carry either no value each or one `s32` each (uniform within a Tab).
//! * **controller references**: the k-th non-Tab, non-reference record without an inline
//!   value owns reference slot k of the block (all 2,309 such records in the corpus point
//!   at a live slot); in the old ParamBlock the k-th animated parameter owns slot k (all
//!   1,428 live, and live slots = animated parameters in all 9,212 blocks).
//! * **old ParamBlock**: 0x0001 `u32` parameter count, 0x0005 `u16`, then per parameter a
//!   0x0002 container [0x0003 `u32` index, optional 0x0004 empty marker, one value chunk:
//!   0x0100 `f32`, 0x0101 `s32`, 0x0102 / 0x0103 3×`f32`, 0x0104 `s32`, or an empty
//!   0x0200–0x0204 = animated (value in the controller)].
//!
//! Nothing here guesses: a payload that does not fit its layout is `None` (the T2 model
//! then keeps that chunk raw in place, the view reports an error).

use crate::chunk::Chunk;

/// Chunk ids of the parameter blocks.
pub mod ids {
    /// ParamBlock2 record without extra words.
    pub const PARAM_000A: u16 = 0x000a;
    /// ParamBlock2 record with one extra word.
    pub const PARAM_000E: u16 = 0x000e;
    /// ParamBlock2 record with one extra word (newer files).
    pub const PARAM_100E: u16 = 0x100e;
    /// ParamBlock2 record with two extra words.
    pub const PARAM_200E: u16 = 0x200e;
    /// ParamBlock2 header: block id + descriptor words (16 bytes).
    pub const HEADER: u16 = 0x0009;
    /// ParamBlock2 header of an owner-described block: owner ClassId + SuperClassId + descriptor words (24 bytes).
    pub const HEADER_OWNER: u16 = 0x000b;
    /// Name table, UTF-16 names.
    pub const NAMES_WIDE: u16 = 0x1005;
    /// Name table, 8-bit names.
    pub const NAMES_NARROW: u16 = 0x0005;
    /// Counted table of (`u32`, `u16`) entries.
    pub const TABLE_000C: u16 = 0x000c;
    /// Counted table of (`u32`, `u16`) entries.
    pub const TABLE_0013: u16 = 0x0013;
    /// Counted table of (`u32`, `u32`) entries.
    pub const TABLE_0012: u16 = 0x0012;
    /// One byte.
    pub(crate) const BYTE_0011: u16 = 0x0011;
    /// Two `u32`.
    pub(crate) const PAIR_0004: u16 = 0x0004;
    /// Empty or one byte.
    pub(crate) const MARK_0007: u16 = 0x0007;
    /// Container of one 16-byte id (0x0002).
    pub(crate) const GUID_000F: u16 = 0x000f;
    /// Old ParamBlock: parameter count.
    pub(crate) const OLD_COUNT: u16 = 0x0001;
    /// Old ParamBlock: `u16` after the count.
    pub(crate) const OLD_0005: u16 = 0x0005;
    /// Old ParamBlock: one parameter (container).
    pub(crate) const OLD_PARAM: u16 = 0x0002;
    /// Old ParamBlock: parameter index.
    pub(crate) const OLD_INDEX: u16 = 0x0003;
    /// Old ParamBlock: empty marker before some values.
    pub(crate) const OLD_MARK: u16 = 0x0004;
    /// Old ParamBlock: float value.
    pub(crate) const OLD_FLOAT: u16 = 0x0100;
    /// Old ParamBlock: int value.
    pub(crate) const OLD_INT: u16 = 0x0101;
    /// Old ParamBlock: point3 value.
    pub(crate) const OLD_POINT3: u16 = 0x0102;
    /// Old ParamBlock: colour value.
    pub(crate) const OLD_COLOR: u16 = 0x0103;
    /// Old ParamBlock: bool value.
    pub(crate) const OLD_BOOL: u16 = 0x0104;
}

/// Bit of the type word marking a Tab (array) parameter.
pub(crate) const TAB: u16 = 0x800;
/// Tag bit: an inline value follows.
pub(crate) const TAG_VALUE: u8 = 0x40;

/// How a value of a base type is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    F32,
    I32,
    Bool,
    P3,
    P4,
    M3,
    Str,
    Ref,
    Byte,
}

fn shape(base: u16) -> Option<Shape> {
    Some(match base {
        0 | 5 | 6 | 7 | 0xb => Shape::F32,
        1 | 0xc | 0xd | 0x13 | 0x18 => Shape::I32,
        4 => Shape::Bool,
        2 | 3 | 0xa => Shape::P3,
        0x16 | 0x17 => Shape::P4,
        0x14 => Shape::M3,
        8 | 9 => Shape::Str,
        0xe | 0xf | 0x11 | 0x12 | 0x15 => Shape::Ref,
        0x10 => Shape::Byte,
        _ => return None,
    })
}

/// A stored string value: the bytes (encoding as written, NUL included), or a negative
/// length that carries no bytes (−1 = none; −2 seen on filenames).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PbString {
    /// Negative stored length, no bytes.
    Marker(i32),
    /// The stored bytes (length regenerated from them).
    Bytes(Vec<u8>),
}

impl PbString {}

/// One element of a Tab parameter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TabItem {
    /// Element tag (bit 0x40 = inline value).
    pub tag: u8,
    /// Its value ([`ParamValue::None`] when none is stored).
    pub value: ParamValue,
}

/// A decoded parameter value, in the shape it is stored.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum ParamValue {
    /// No inline value: the value lives in a controller, or a reference is unset.
    None,
    /// `f32` (float, angle in radians, percent fraction, world units, colour channel).
    Float(f32),
    /// `s32` (int, time, radio index, index, enum).
    Int(i32),
    /// Bool stored as `s32` (kept as stored; non-zero = true).
    Bool(i32),
    /// 3×`f32` (point3, rgba without alpha, hsv).
    Point3([f32; 3]),
    /// 4×`f32` (point4, frgba).
    Point4([f32; 4]),
    /// 4×3 `f32` rows and a flags word.
    Matrix3 {
        /// Rows (x, y, z axes, translation).
        rows: [[f32; 3]; 4],
        /// Flags word.
        flags: u32,
    },
    /// String or filename.
    Str(PbString),
    /// A reference-type value as stored (`s32`, −1 = none).
    Ref(i32),
    /// Bitmap parameter byte.
    Bitmap(u8),
    /// Tab elements.
    Tab(Vec<TabItem>),
}

impl ParamValue {
    #[cfg(test)]
    /// As `f32` (floats; ints converted).
    pub(crate) fn as_f32(&self) -> Option<f32> {
        match *self {
            ParamValue::Float(f) => Some(f),
            ParamValue::Int(i) | ParamValue::Bool(i) => Some(i as f32),
            _ => None,
        }
    }

    #[cfg(test)]
    /// As `i32` (ints and bools; floats are not truncated silently).
    pub(crate) fn as_i32(&self) -> Option<i32> {
        match *self {
            ParamValue::Int(i) | ParamValue::Bool(i) => Some(i),
            _ => None,
        }
    }

    #[cfg(test)]
    /// As a point3 / colour.
    pub(crate) fn as_point3(&self) -> Option<[f32; 3]> {
        match *self {
            ParamValue::Point3(p) => Some(p),
            ParamValue::Point4([a, b, c, _]) => Some([a, b, c]),
            _ => None,
        }
    }
}

/// One stored ParamBlock2 parameter record, every field decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// Record chunk id (0x000a / 0x000e / 0x100e / 0x200e): decides the extra words.
    pub form: u16,
    /// Parameter id.
    pub id: u16,
    /// `ParamType2` number, bit 0x800 = Tab.
    pub param_type: u16,
    /// Bytes 4–5 (not identified).
    pub word4: u16,
    /// Bytes 6–7 (not identified).
    pub word6: u16,
    /// Bytes 8–9 (descriptor flags; bits not identified).
    pub flags: u16,
    /// Extra words of the 0x000e/0x100e (1) and 0x200e (2) forms.
    pub extra: [u32; 2],
    /// Tag byte (bit 0x40 = inline value).
    pub tag: u8,
    /// The value.
    pub(crate) value: ParamValue,
}

/// Number of extra `u32` words a record form carries.
pub(crate) fn extra_words(form: u16) -> Option<usize> {
    match form {
        ids::PARAM_000A => Some(0),
        ids::PARAM_000E | ids::PARAM_100E => Some(1),
        ids::PARAM_200E => Some(2),
        _ => None,
    }
}

/// Bounded little-endian reader; every read is checked.
struct Rd<'a> {
    p: &'a [u8],
    at: usize,
}

impl<'a> Rd<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.p.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i32(&mut self) -> Option<i32> {
        self.u32().map(|v| v as i32)
    }
    fn f32(&mut self) -> Option<f32> {
        self.u32().map(f32::from_bits)
    }
    fn f32s<const N: usize>(&mut self) -> Option<[f32; N]> {
        let mut out = [0f32; N];
        for v in &mut out {
            *v = self.f32()?;
        }
        Some(out)
    }
    fn left(&self) -> usize {
        self.p.len() - self.at
    }
}

fn read_value(shape: Shape, r: &mut Rd<'_>) -> Option<ParamValue> {
    Some(match shape {
        Shape::F32 => ParamValue::Float(r.f32()?),
        Shape::I32 => ParamValue::Int(r.i32()?),
        Shape::Bool => ParamValue::Bool(r.i32()?),
        Shape::P3 => ParamValue::Point3(r.f32s::<3>()?),
        Shape::P4 => ParamValue::Point4(r.f32s::<4>()?),
        Shape::M3 => {
            let rows = [r.f32s::<3>()?, r.f32s::<3>()?, r.f32s::<3>()?, r.f32s::<3>()?];
            ParamValue::Matrix3 { rows, flags: r.u32()? }
        }
        Shape::Str => {
            let len = r.i32()?;
            if len < 0 {
                ParamValue::Str(PbString::Marker(len))
            } else {
                ParamValue::Str(PbString::Bytes(r.take(len as usize)?.to_vec()))
            }
        }
        Shape::Ref => ParamValue::Ref(r.i32()?),
        Shape::Byte => ParamValue::Bitmap(r.u8()?),
    })
}

fn write_value(v: &ParamValue, out: &mut Vec<u8>) {
    let f = |out: &mut Vec<u8>, x: f32| out.extend_from_slice(&x.to_bits().to_le_bytes());
    match v {
        ParamValue::None => {}
        ParamValue::Float(x) => f(out, *x),
        ParamValue::Int(i) | ParamValue::Bool(i) | ParamValue::Ref(i) => out.extend_from_slice(&i.to_le_bytes()),
        ParamValue::Point3(p) => p.iter().for_each(|x| f(out, *x)),
        ParamValue::Point4(p) => p.iter().for_each(|x| f(out, *x)),
        ParamValue::Matrix3 { rows, flags } => {
            rows.iter().flatten().for_each(|x| f(out, *x));
            out.extend_from_slice(&flags.to_le_bytes());
        }
        ParamValue::Str(PbString::Marker(m)) => out.extend_from_slice(&m.to_le_bytes()),
        ParamValue::Str(PbString::Bytes(b)) => {
            out.extend_from_slice(&(b.len() as u32).to_le_bytes());
            out.extend_from_slice(b);
        }
        ParamValue::Bitmap(b) => out.push(*b),
        ParamValue::Tab(items) => {
            out.extend_from_slice(&(items.len() as u32).to_le_bytes());
            for item in items {
                out.push(item.tag);
                write_value(&item.value, out);
            }
        }
    }
}

fn read_tab(shape: Shape, r: &mut Rd<'_>) -> Option<Vec<TabItem>> {
    let n = r.u32()? as usize;
    // Every element takes at least its tag byte: a hostile count cannot allocate.
    if n > r.left() {
        return None;
    }
    let mut items = Vec::with_capacity(n);
    if shape == Shape::Ref {
        // Reference elements: all bare tags, or all tag + `s32` (uniform per Tab).
        let with_values = match r.left() {
            l if l == n => false,
            l if Some(l) == n.checked_mul(5) => true,
            _ => return None,
        };
        for _ in 0..n {
            let tag = r.u8()?;
            let value = if with_values { ParamValue::Ref(r.i32()?) } else { ParamValue::None };
            items.push(TabItem { tag, value });
        }
        return Some(items);
    }
    for _ in 0..n {
        let tag = r.u8()?;
        let value = if tag & TAG_VALUE != 0 { read_value(shape, r)? } else { ParamValue::None };
        items.push(TabItem { tag, value });
    }
    Some(items)
}

impl Param {
    /// Decodes a record chunk payload; `None` unless the whole payload fits the layout.
    pub fn decode(form: u16, payload: &[u8]) -> Option<Param> {
        let extra_n = extra_words(form)?;
        let mut r = Rd { p: payload, at: 0 };
        let id = r.u16()?;
        let param_type = r.u16()?;
        let word4 = r.u16()?;
        let word6 = r.u16()?;
        let flags = r.u16()?;
        let mut extra = [0u32; 2];
        for e in extra.iter_mut().take(extra_n) {
            *e = r.u32()?;
        }
        let tag = r.u8()?;
        // A record without value bytes needs no layout for its type (type 0x19 occurs so).
        let value = if param_type & TAB != 0 {
            ParamValue::Tab(read_tab(shape(param_type & !TAB)?, &mut r)?)
        } else if r.left() == 0 {
            ParamValue::None
        } else {
            read_value(shape(param_type)?, &mut r)?
        };
        (r.left() == 0).then_some(Param { form, id, param_type, word4, word6, flags, extra, tag, value })
    }

    /// Appends the exact payload bytes of this record.
    pub fn encode(&self, out: &mut Vec<u8>) {
        for w in [self.id, self.param_type, self.word4, self.word6, self.flags] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for e in self.extra.iter().take(extra_words(self.form).unwrap_or(0)) {
            out.extend_from_slice(&e.to_le_bytes());
        }
        out.push(self.tag);
        write_value(&self.value, out);
    }

    /// True for a Tab parameter.
    pub(crate) fn is_tab(&self) -> bool {
        self.param_type & TAB != 0
    }

    /// True for a reference-typed parameter (material, texmap, node, reference target…),
    /// which the block holds as one of its references.
    pub(crate) fn holds_reference(&self) -> bool {
        !self.is_tab() && shape(self.param_type) == Some(Shape::Ref)
    }

    /// True when the value lives in a controller: a non-Tab value type stored without an
    /// inline value.
    pub(crate) fn is_controller_backed(&self) -> bool {
        !self.is_tab()
            && self.tag & TAG_VALUE == 0
            && shape(self.param_type).is_some_and(|s| s != Shape::Ref)
            && self.value == ParamValue::None
    }
}

/// The descriptor words every ParamBlock2 header ends with: `u16`, `u32`, `u16` record
/// count (equal to the number of parameter records in every corpus block), `u32`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DescriptorTail {
    /// First `u16` (not identified).
    pub word0: u16,
    /// `u32` (not identified; constant per descriptor).
    pub stamp: u32,
    /// Number of parameter records that follow.
    pub count: u16,
    /// Last `u32` (not identified).
    pub last: u32,
}

/// One entry of a name table: a name, a kind word and an index.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameEntry {
    /// Name bytes as stored (UTF-16 in 0x1005, 8-bit in 0x0005), NUL included.
    pub name: Vec<u8>,
    /// `u16` after the name (0/1/2 on the standard material's map names).
    pub kind: u16,
    /// `u32` after the kind (the map slot on the standard material).
    pub index: u32,
}

/// The non-record leaves of a ParamBlock2, decoded.
#[derive(Clone, Debug, PartialEq)]
pub enum BlockLeaf {
    /// 0x0009: `u32` block id, then the descriptor words.
    Header {
        /// Block id.
        block_id: u32,
        /// Descriptor words.
        tail: DescriptorTail,
    },
    /// 0x000b: owner ClassId and SuperClassId, then the descriptor words.
    OwnerHeader {
        /// Owner ClassId.
        owner_class: [u32; 2],
        /// Owner SuperClassId.
        owner_superclass: u32,
        /// Descriptor words.
        tail: DescriptorTail,
    },
    /// 0x000c / 0x0013: `u32` count, then (`u32`, `u16`) entries.
    Table6(Vec<(u32, u16)>),
    /// 0x0012: `u32` count, then (`u32`, `u32`) entries.
    Table8(Vec<(u32, u32)>),
    /// 0x1005 / 0x0005: a stored `u32` (the entry count, or 0xffdc in some 8-bit
    /// tables), then entries (`u32` byte length, the bytes, `u16` kind, `u32` index) to the end.
    Names {
        /// The stored leading word.
        count: u32,
        /// Entries in stored order.
        entries: Vec<NameEntry>,
    },
}

fn read_tail(r: &mut Rd<'_>) -> Option<DescriptorTail> {
    Some(DescriptorTail { word0: r.u16()?, stamp: r.u32()?, count: r.u16()?, last: r.u32()? })
}

impl BlockLeaf {
    /// Decodes the leaf `id` of a ParamBlock2; `None` unless the payload fits exactly.
    pub fn decode(id: u16, payload: &[u8]) -> Option<BlockLeaf> {
        let mut r = Rd { p: payload, at: 0 };
        let leaf = match id {
            ids::HEADER => BlockLeaf::Header { block_id: r.u32()?, tail: read_tail(&mut r)? },
            ids::HEADER_OWNER => BlockLeaf::OwnerHeader {
                owner_class: [r.u32()?, r.u32()?],
                owner_superclass: r.u32()?,
                tail: read_tail(&mut r)?,
            },
            ids::TABLE_000C | ids::TABLE_0013 | ids::TABLE_0012 => {
                let n = r.u32()? as usize;
                let wide = id == ids::TABLE_0012;
                if Some(r.left()) != n.checked_mul(if wide { 8 } else { 6 }) {
                    return None;
                }
                if wide {
                    BlockLeaf::Table8((0..n).map(|_| Some((r.u32()?, r.u32()?))).collect::<Option<_>>()?)
                } else {
                    BlockLeaf::Table6((0..n).map(|_| Some((r.u32()?, r.u16()?))).collect::<Option<_>>()?)
                }
            }
            ids::NAMES_WIDE | ids::NAMES_NARROW => {
                let count = r.u32()?;
                let mut entries = Vec::new();
                while r.left() > 0 {
                    let len = r.u32()? as usize;
                    let name = r.take(len)?.to_vec();
                    entries.push(NameEntry { name, kind: r.u16()?, index: r.u32()? });
                }
                BlockLeaf::Names { count, entries }
            }
            _ => return None,
        };
        (r.left() == 0).then_some(leaf)
    }

    /// Appends the exact payload bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let tail = |out: &mut Vec<u8>, t: &DescriptorTail| {
            out.extend_from_slice(&t.word0.to_le_bytes());
            out.extend_from_slice(&t.stamp.to_le_bytes());
            out.extend_from_slice(&t.count.to_le_bytes());
            out.extend_from_slice(&t.last.to_le_bytes());
        };
        match self {
            BlockLeaf::Header { block_id, tail: t } => {
                out.extend_from_slice(&block_id.to_le_bytes());
                tail(out, t);
            }
            BlockLeaf::OwnerHeader { owner_class, owner_superclass, tail: t } => {
                for w in [owner_class[0], owner_class[1], *owner_superclass] {
                    out.extend_from_slice(&w.to_le_bytes());
                }
                tail(out, t);
            }
            BlockLeaf::Table6(entries) => {
                out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
                for (a, b) in entries {
                    out.extend_from_slice(&a.to_le_bytes());
                    out.extend_from_slice(&b.to_le_bytes());
                }
            }
            BlockLeaf::Table8(entries) => {
                out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
                for (a, b) in entries {
                    out.extend_from_slice(&a.to_le_bytes());
                    out.extend_from_slice(&b.to_le_bytes());
                }
            }
            BlockLeaf::Names { count, entries } => {
                out.extend_from_slice(&count.to_le_bytes());
                for e in entries {
                    out.extend_from_slice(&(e.name.len() as u32).to_le_bytes());
                    out.extend_from_slice(&e.name);
                    out.extend_from_slice(&e.kind.to_le_bytes());
                    out.extend_from_slice(&e.index.to_le_bytes());
                }
            }
        }
    }
}

/// Why a parameter block could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamBlockError {
    /// The object is stored as a leaf.
    #[error("parameter block object 0x{id:04x} is a leaf, expected a container")]
    NotAContainer {
        /// Object chunk id.
        id: u16,
    },
    /// A record does not fit its layout.
    #[error("parameter record 0x{id:04x} (stream offset {stream_offset:?}, child {index}) does not fit its layout")]
    Malformed {
        /// Record chunk id.
        id: u16,
        /// Child position in the object.
        index: usize,
        /// Stream offset of the record, when known.
        stream_offset: Option<u64>,
    },
}

/// A ParamBlock2's parameters, in stored order, with the reference slot each
/// controller-backed parameter owns.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamBlock2 {
    /// Parameters in stored order.
    pub params: Vec<Param>,
    /// Per parameter: the reference slot of its controller (controller-backed only).
    pub controller_slots: Vec<Option<usize>>,
}

impl ParamBlock2 {
    /// From records in stored order.
    pub(crate) fn from_params(params: Vec<Param>) -> Self {
        let mut next = 0;
        let controller_slots = params
            .iter()
            .map(|p| {
                p.is_controller_backed().then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        ParamBlock2 { params, controller_slots }
    }

    /// Reads the records of a ParamBlock2 object chunk (read-only view, for evaluation).
    pub fn of_object(object: &Chunk<'_>) -> Result<ParamBlock2, ParamBlockError> {
        if !object.is_container() {
            return Err(ParamBlockError::NotAContainer { id: object.id });
        }
        let mut params = Vec::new();
        for (index, c) in object.children().iter().enumerate() {
            if extra_words(c.id).is_none() {
                continue;
            }
            let p = c.payload().and_then(|p| Param::decode(c.id, p));
            params.push(p.ok_or(ParamBlockError::Malformed { id: c.id, index, stream_offset: c.offset })?);
        }
        Ok(ParamBlock2::from_params(params))
    }

    #[cfg(test)]
    /// The stored record of parameter `id`.
    pub(crate) fn get(&self, id: u16) -> Option<&Param> {
        self.params.iter().find(|p| p.id == id)
    }

    #[cfg(test)]
    /// The value of parameter `id` ([`ParamValue::None`] when it lives in a controller).
    pub(crate) fn param(&self, id: u16) -> Option<&ParamValue> {
        self.get(id).map(|p| &p.value)
    }

    #[cfg(test)]
    /// Reference slot of the controller of parameter `id`, when controller-backed.
    pub(crate) fn controller_slot(&self, id: u16) -> Option<usize> {
        let i = self.params.iter().position(|p| p.id == id)?;
        self.controller_slots[i]
    }

    #[cfg(test)]
    /// `f32` value of parameter `id`.
    pub(crate) fn float(&self, id: u16) -> Option<f32> {
        self.param(id)?.as_f32()
    }
}

/// One parameter of an old ParamBlock.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct OldParam {
    /// Parameter index (0x0003).
    pub index: u32,
    /// The value; [`ParamValue::None`] when animated.
    pub value: ParamValue,
    /// Value chunk id (0x0100…0x0104 inline; 0x0200…0x0204 animated).
    pub value_chunk: u16,
    /// Reference slot of its controller, when animated.
    pub controller_slot: Option<usize>,
}

/// An old ParamBlock's parameters, in stored order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ParamBlock {
    /// Parameters in stored order.
    pub(crate) params: Vec<OldParam>,
}

/// Decodes an old ParamBlock value chunk (`None` when its size does not fit).
pub(crate) fn old_value(id: u16, payload: &[u8]) -> Option<ParamValue> {
    let mut r = Rd { p: payload, at: 0 };
    let v = match id {
        ids::OLD_FLOAT => ParamValue::Float(r.f32()?),
        ids::OLD_INT => ParamValue::Int(r.i32()?),
        ids::OLD_BOOL => ParamValue::Bool(r.i32()?),
        ids::OLD_POINT3 | ids::OLD_COLOR => ParamValue::Point3(r.f32s::<3>()?),
        0x0200..=0x02ff => ParamValue::None,
        _ => return None,
    };
    (r.left() == 0).then_some(v)
}

impl ParamBlock {
    /// Reads an old ParamBlock object chunk (read-only view, for evaluation).
    pub fn of_object(object: &Chunk<'_>) -> Result<ParamBlock, ParamBlockError> {
        if !object.is_container() {
            return Err(ParamBlockError::NotAContainer { id: object.id });
        }
        let mut params = Vec::new();
        let mut next_slot = 0;
        for (index, c) in object.children().iter().enumerate().filter(|(_, c)| c.id == ids::OLD_PARAM) {
            let bad = || ParamBlockError::Malformed { id: c.id, index, stream_offset: c.offset };
            let idx = c.child(ids::OLD_INDEX).and_then(|i| i.payload()).filter(|p| p.len() == 4).ok_or_else(bad)?;
            let v = c.children().iter().find(|k| k.id >= ids::OLD_FLOAT).ok_or_else(bad)?;
            let value = v.payload().and_then(|p| old_value(v.id, p)).ok_or_else(bad)?;
            let controller_slot = (v.id >= 0x0200).then(|| {
                next_slot += 1;
                next_slot - 1
            });
            params.push(OldParam {
                index: u32::from_le_bytes([idx[0], idx[1], idx[2], idx[3]]),
                value,
                value_chunk: v.id,
                controller_slot,
            });
        }
        Ok(ParamBlock { params })
    }

    #[cfg(test)]
    /// The value of parameter `index`.
    pub(crate) fn param(&self, index: u32) -> Option<&ParamValue> {
        self.params.iter().find(|p| p.index == index).map(|p| &p.value)
    }

    #[cfg(test)]
    /// `f32` value of parameter `index`.
    pub(crate) fn float(&self, index: u32) -> Option<f32> {
        self.param(index)?.as_f32()
    }

    #[cfg(test)]
    /// `i32` value of parameter `index`.
    pub(crate) fn int(&self, index: u32) -> Option<i32> {
        self.param(index)?.as_i32()
    }

    #[cfg(test)]
    /// Reference slot of the controller of parameter `index`, when animated.
    pub(crate) fn controller_slot(&self, index: u32) -> Option<usize> {
        self.params.iter().find(|p| p.index == index)?.controller_slot
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    fn round_trip(form: u16, h: &str) -> Param {
        let bytes = hex(h);
        let p = Param::decode(form, &bytes).unwrap_or_else(|| panic!("{h} does not decode"));
        let mut out = Vec::new();
        p.encode(&mut out);
        assert_eq!(out, bytes, "{h}");
        p
    }

    /// Records copied from real files (public corpus); values worked out by hand.
    #[test]
    fn real_records_decode_to_their_values_and_re_encode_exactly() {
        // Box PB2 (fhqht12331__box.max): id 0, TYPE_BOOL, inline 0.
        let p = round_trip(0x100e, "00000400000000008200000000004000000000");
        assert_eq!((p.id, p.param_type, p.tag, p.value.clone()), (0, 4, 0x40, ParamValue::Bool(0)));
        // id 11, TYPE_FLOAT 0x3dcccccd = 0.1.
        let p = round_trip(0x100e, "0b00000000000100920000000000c0cdcccc3d");
        assert_eq!(p.value, ParamValue::Float(0.1));
        // TYPE_RGBA: 0x3f169697 ≈ 0.588 three times.
        let p = round_trip(0x100e, "0000020000000100820000000000c09796163f9796163f9796163f");
        assert_eq!(p.value.as_point3(), Some([f32::from_bits(0x3f16_9697); 3]));
        // TYPE_STRING, length −1 (none).
        let p = round_trip(0x100e, "050008000000000080000000000040ffffffff");
        assert_eq!(p.value, ParamValue::Str(PbString::Marker(-1)));
        // TYPE_TEXMAP without a stored value (15 bytes) and with −1.
        assert_eq!(round_trip(0x100e, "64000f000000000081100000000040").value, ParamValue::None);
        assert_eq!(round_trip(0x100e, "03000f000000000381180000000040ffffffff").value, ParamValue::Ref(-1));
        // Type 0x19 (no value layout known) stored without a value (splitzy__bed.max).
        assert_eq!(round_trip(0x100e, "ee0019000000000080000000000040").value, ParamValue::None);
        // Controller-backed float: tag 0x80, no value.
        let p = round_trip(0x100e, "030000000000030080000000000080");
        assert!(p.is_controller_backed());
        // 0x000a form (no extra word): TYPE_RGBA.
        let p = round_trip(0x000a, "00000200000001008200c09561373edada853ddada853d");
        assert_eq!(p.value.as_point3().map(|c| c[1]), Some(f32::from_bits(0x3d85_dada)));
        // 0x200e form (two extra words): TYPE_FILENAME with length −2.
        let p = round_trip(0x200e, "10000900000002008000000002000100000040ffffffff");
        assert_eq!((p.id, p.extra, p.value.clone()), (0x10, [0x0002_0000, 1], ParamValue::Str(PbString::Marker(-1))));
        // 0x100e filename with length −2 (nekidaem__01-teapot_no_cams_vray.max).
        assert_eq!(
            round_trip(0x100e, "100009000000020080000000020040feffffff").value,
            ParamValue::Str(PbString::Marker(-2))
        );
    }

    #[test]
    fn tabs_of_values_and_of_references() {
        // Tab<bool> of 2 elements, tags 0x40, values 0 and 1.
        let p = round_trip(0x100e, "0000040800000000820000000000000200000040000000004001000000");
        assert_eq!(
            p.value,
            ParamValue::Tab(vec![
                TabItem { tag: 0x40, value: ParamValue::Bool(0) },
                TabItem { tag: 0x40, value: ParamValue::Bool(1) }
            ])
        );
        // Tab<reftarg> of 3 bare tags; Tab<texmap> of 2 with −1 each.
        let p = round_trip(0x100e, "00001208000000008100000000000003000000404040");
        assert!(matches!(&p.value, ParamValue::Tab(items) if items.len() == 3));
        round_trip(0x100e, "01000f0800000001810000000000000200000040ffffffff4005000000");
    }

    #[test]
    fn wrong_sizes_and_hostile_counts_are_refused() {
        for h in [
            "0000040000000000820000000000400000",         // value cut short
            "000004000000000082000000000040000000000000", // trailing bytes
            "00000408000000008200000000000000ffffff",     // Tab count past the end
            "0000ff00000000008200000000004000000000",     // unknown type
        ] {
            assert_eq!(Param::decode(0x100e, &hex(h)), None, "{h}");
        }
        assert_eq!(Param::decode(0x0001, &hex("00000400000000008200000000004000000000")), None);
    }

    #[test]
    fn block_view_finds_values_and_controller_slots() {
        let recs = [
            "00000000000001009200000000004000002041", // id 0 float 10.0
            "010000000000030080000000000080",         // id 1 controller-backed
        ];
        let a = Param::decode(0x100e, &hex(recs[0])).unwrap();
        let b = Param::decode(0x100e, &hex(recs[1])).unwrap();
        let pb = ParamBlock2::from_params(vec![a, b]);
        assert_eq!(pb.float(0), Some(10.0));
        assert_eq!(pb.controller_slot(0), None);
        assert_eq!(pb.controller_slot(1), Some(0));
        assert_eq!(pb.param(1), Some(&ParamValue::None));
        assert_eq!(pb.param(7), None);
    }

    #[test]
    fn block_leaves_round_trip() {
        let cases: &[(u16, &str)] = &[
            (ids::HEADER, "050000000000003ea8610c0007000000"),
            (ids::HEADER_OWNER, "3c29065a1e0c4230601100000000003ea861040003000000"),
            (ids::TABLE_000C, "01000000010000001100"),
            (ids::TABLE_0013, "03000000060000000100070000000200080000000300"),
            (ids::TABLE_0012, "03000000020000000200000003000000030001000d00000004000000"),
            (ids::NAMES_NARROW, "dcff00000b000000616d6269656e744d617000010000000000"),
        ];
        for (id, h) in cases {
            let bytes = hex(h);
            let leaf = BlockLeaf::decode(*id, &bytes).unwrap_or_else(|| panic!("{id:04x} {h}"));
            let mut out = Vec::new();
            leaf.encode(&mut out);
            assert_eq!(out, bytes, "{id:04x}");
        }
        // The 0x0009 header's record count is the u16 at byte 10: 12 records.
        let BlockLeaf::Header { block_id, tail } = BlockLeaf::decode(ids::HEADER, &hex(cases[0].1)).unwrap() else {
            panic!()
        };
        assert_eq!((block_id, tail.count), (5, 12));
        assert_eq!(BlockLeaf::decode(ids::TABLE_000C, &hex("0200000001000000110000")), None);
    }

    #[test]
    fn old_param_block_view() {
        use crate::chunk::Chunk;
        let param = |i: u32, id: u16, v: Vec<u8>| {
            Chunk::container(2, vec![Chunk::leaf(3, i.to_le_bytes().to_vec()), Chunk::leaf(id, v)])
        };
        let obj = Chunk::container(
            6,
            vec![
                Chunk::leaf(1, 3u32.to_le_bytes().to_vec()),
                param(0, 0x0100, 0.5f32.to_le_bytes().to_vec()),
                param(1, 0x0200, vec![]),
                param(2, 0x0101, 7i32.to_le_bytes().to_vec()),
            ],
        );
        let pb = ParamBlock::of_object(&obj).unwrap();
        assert_eq!(pb.float(0), Some(0.5));
        assert_eq!(pb.param(1), Some(&ParamValue::None));
        assert_eq!(pb.controller_slot(1), Some(0));
        assert_eq!(pb.int(2), Some(7));
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        /// Base types with their shapes (one per shape, plus aliases).
        const TYPES: &[u16] = &[0, 1, 2, 4, 5, 8, 9, 0xf, 0x10, 0x12, 0x14, 0x17];

        fn value(base: u16) -> BoxedStrategy<ParamValue> {
            let f = || any::<u32>().prop_map(f32::from_bits);
            match shape(base).unwrap() {
                Shape::F32 => f().prop_map(ParamValue::Float).boxed(),
                Shape::I32 => any::<i32>().prop_map(ParamValue::Int).boxed(),
                Shape::Bool => any::<i32>().prop_map(ParamValue::Bool).boxed(),
                Shape::P3 => [f(), f(), f()].prop_map(ParamValue::Point3).boxed(),
                Shape::P4 => [f(), f(), f(), f()].prop_map(ParamValue::Point4).boxed(),
                Shape::M3 => ([[f(), f(), f()], [f(), f(), f()], [f(), f(), f()], [f(), f(), f()]], any::<u32>())
                    .prop_map(|(rows, flags)| ParamValue::Matrix3 { rows, flags })
                    .boxed(),
                Shape::Str => prop_oneof![
                    (i32::MIN..0).prop_map(|m| ParamValue::Str(PbString::Marker(m))),
                    proptest::collection::vec(any::<u8>(), 0..24).prop_map(|b| ParamValue::Str(PbString::Bytes(b))),
                ]
                .boxed(),
                Shape::Ref => any::<i32>().prop_map(ParamValue::Ref).boxed(),
                Shape::Byte => any::<u8>().prop_map(ParamValue::Bitmap).boxed(),
            }
        }

        fn param() -> impl Strategy<Value = Param> {
            let forms = prop_oneof![Just(0x000au16), Just(0x000e), Just(0x100e), Just(0x200e)];
            (forms, proptest::sample::select(TYPES), any::<bool>(), any::<[u16; 4]>(), any::<[u32; 2]>(), any::<u8>())
                .prop_flat_map(|(form, base, tab, words, extra, tag)| {
                    let n = extra_words(form).unwrap();
                    let extra = [if n > 0 { extra[0] } else { 0 }, if n > 1 { extra[1] } else { 0 }];
                    let is_ref = shape(base) == Some(Shape::Ref);
                    let value = if tab {
                        let item = (any::<u8>(), value(base)).prop_map(move |(tag, v)| {
                            if tag & TAG_VALUE != 0 {
                                TabItem { tag, value: v }
                            } else {
                                TabItem { tag, value: ParamValue::None }
                            }
                        });
                        if is_ref {
                            (proptest::collection::vec((any::<u8>(), any::<i32>()), 0..6), any::<bool>())
                                .prop_map(|(items, with)| {
                                    ParamValue::Tab(
                                        items
                                            .into_iter()
                                            .map(|(tag, r)| TabItem {
                                                tag,
                                                value: if with { ParamValue::Ref(r) } else { ParamValue::None },
                                            })
                                            .collect(),
                                    )
                                })
                                .boxed()
                        } else {
                            proptest::collection::vec(item, 0..6).prop_map(ParamValue::Tab).boxed()
                        }
                    } else {
                        prop_oneof![Just(ParamValue::None), value(base)].boxed()
                    };
                    value.prop_map(move |value| Param {
                        form,
                        id: words[0],
                        param_type: base | if tab { TAB } else { 0 },
                        word4: words[1],
                        word6: words[2],
                        flags: words[3],
                        extra,
                        tag,
                        value,
                    })
                })
        }

        proptest! {
            /// Writer/reader pair: what the writer emits, the reader decodes back to the
            /// same record (compared through its bytes, so NaN payloads count too).
            #[test]
            fn param_records_written_then_read_are_the_same(p in param()) {
                let mut bytes = Vec::new();
                p.encode(&mut bytes);
                let back = Param::decode(p.form, &bytes).expect("a written record decodes");
                let mut again = Vec::new();
                back.encode(&mut again);
                prop_assert_eq!(&again, &bytes);
                prop_assert_eq!((back.id, back.param_type, back.tag), (p.id, p.param_type, p.tag));
            }

            #[test]
            fn tables_and_name_lists_written_then_read_are_the_same(
                t6 in proptest::collection::vec((any::<u32>(), any::<u16>()), 0..8),
                t8 in proptest::collection::vec((any::<u32>(), any::<u32>()), 0..8),
                names in proptest::collection::vec((proptest::collection::vec(any::<u8>(), 0..12), any::<u16>(), any::<u32>()), 0..6),
                count in any::<u32>(),
            ) {
                let leaves = [
                    (ids::TABLE_000C, BlockLeaf::Table6(t6)),
                    (ids::TABLE_0012, BlockLeaf::Table8(t8)),
                    (ids::NAMES_WIDE, BlockLeaf::Names {
                        count,
                        entries: names.into_iter().map(|(name, kind, index)| NameEntry { name, kind, index }).collect(),
                    }),
                ];
                for (id, leaf) in leaves {
                    let mut bytes = Vec::new();
                    leaf.encode(&mut bytes);
                    prop_assert_eq!(BlockLeaf::decode(id, &bytes), Some(leaf));
                }
            }

            /// Arbitrary bytes: decode never panics, and what decodes re-encodes exactly.
            #[test]
            fn arbitrary_bytes_decode_or_refuse_without_panicking(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
                for form in [0x000a, 0x000e, 0x100e, 0x200e] {
                    if let Some(p) = Param::decode(form, &bytes) {
                        let mut out = Vec::new();
                        p.encode(&mut out);
                        prop_assert_eq!(&out, &bytes);
                    }
                }
            }
        }
    }
}
