//! The own chunks of the classes typed beyond their overlays — ParamBlock2, old
//! ParamBlock, Editable Poly, Editable Mesh — turned into parts in stored order. A chunk
//! whose payload does not fit its layout stays raw in place (the object is not degraded:
//! the layouts are measured, not exhaustive); chunks without a known layout stay raw.

use super::key_records::{words_per_key, KeyTable};
use super::mesh_chunks::{self, MeshArray};
use super::paramblock::{ids, BlockLeaf, Param};
use super::part::{leaf_or_raw, lenient_container, payload_or_raw, Ctx, Part, Payload, Span};
use super::value::Kind;
use crate::chunk::Chunk;

/// A ParamBlock2 child.
pub(crate) fn param_block2(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Part {
    match c.id {
        ids::PARAM_000A | ids::PARAM_000E | ids::PARAM_100E | ids::PARAM_200E => {
            payload_or_raw(c, span, ctx, |p| Param::decode(c.id, p).map(Payload::Param))
        }
        ids::HEADER
        | ids::HEADER_OWNER
        | ids::TABLE_000C
        | ids::TABLE_0012
        | ids::TABLE_0013
        | ids::NAMES_WIDE
        | ids::NAMES_NARROW => payload_or_raw(c, span, ctx, |p| BlockLeaf::decode(c.id, p).map(Payload::Block)),
        ids::BYTE_0011 => leaf_or_raw(c, span, Kind::U8, ctx),
        ids::PAIR_0004 => leaf_or_raw(c, span, Kind::U32x2, ctx),
        ids::MARK_0007 => match c.payload().map(<[u8]>::len) {
            Some(0) => leaf_or_raw(c, span, Kind::Empty, ctx),
            _ => leaf_or_raw(c, span, Kind::U8, ctx),
        },
        ids::GUID_000F if c.is_container() => lenient_container(c, span, ctx, &mut |k, kspan, ctx| match k.id {
            0x0002 => leaf_or_raw(k, kspan, Kind::U32x4, ctx),
            _ => Part::Raw(kspan),
        }),
        _ => Part::Raw(span),
    }
}

/// Kind of a value chunk inside an old ParamBlock parameter.
fn old_param_kind(id: u16) -> Option<Kind> {
    Some(match id {
        ids::OLD_INDEX => Kind::U32,
        ids::OLD_MARK => Kind::Empty,
        ids::OLD_FLOAT => Kind::F32,
        ids::OLD_INT | ids::OLD_BOOL => Kind::I32,
        ids::OLD_POINT3 | ids::OLD_COLOR => Kind::F32x3,
        0x0200..=0x02ff => Kind::Empty,
        _ => return None,
    })
}

/// An old ParamBlock child.
pub(crate) fn param_block(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Part {
    match c.id {
        ids::OLD_COUNT => leaf_or_raw(c, span, Kind::U32, ctx),
        ids::OLD_0005 => leaf_or_raw(c, span, Kind::U16, ctx),
        ids::OLD_PARAM if c.is_container() => {
            lenient_container(c, span, ctx, &mut |k, kspan, ctx| match old_param_kind(k.id) {
                Some(kind) => leaf_or_raw(k, kspan, kind, ctx),
                None => Part::Raw(kspan),
            })
        }
        _ => Part::Raw(span),
    }
}

/// The wrapper newer files put float controllers' chunks in.
const WRAPPER: u16 = 0x7127;

/// Kind of a keyframe controller's value chunk of `len` bytes (`None`: kept raw).
fn value_kind(id: u16, len: usize) -> Option<Kind> {
    Some(match (id, len) {
        (0x2501 | 0x2503, 4) => Kind::F32,
        (0x2501 | 0x2503, 12) => Kind::F32x3,
        (0x2504, 16) => Kind::U32x4,
        (0x2500 | 0x3003, 8) => Kind::U32x2,
        (0x3002 | 0x3005, 4) => Kind::I32,
        (0x2535, 4) => Kind::U32,
        (0x2532..=0x2534 | 0x7230, 0) => Kind::Empty,
        _ => return None,
    })
}

/// Containers among a keyframe controller's chunks: the 0x7127 wrapper, and 0x2532 –
/// 0x2534 (a 0x2700 bit array each when the table holds keys — its bits stay raw).
fn is_container_id(id: u16) -> bool {
    matches!(id, WRAPPER | 0x2532..=0x2534)
}

/// A keyframe controller's own chunk as a part: key tables, value chunks, the containers
/// above (header regenerated, children typed the same way); anything else raw in place.
pub(crate) fn keyframer(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Part {
    if c.is_container() {
        return match is_container_id(c.id) {
            true => lenient_container(c, span, ctx, &mut |k, kspan, ctx| keyframer(k, kspan, ctx)),
            false => Part::Raw(span),
        };
    }
    if words_per_key(c.id).is_some() {
        return payload_or_raw(c, span, ctx, |p| KeyTable::decode(c.id, p).map(Payload::Keys));
    }
    match c.payload().and_then(|p| value_kind(c.id, p.len())) {
        Some(kind) => leaf_or_raw(c, span, kind, ctx),
        None => Part::Raw(span),
    }
}

/// Small counters under a geometry object's 0x08fe (number of map channels etc.), typed
/// as the `u32`s they are stored as.
const GEOM_U32: &[u16] = &[0x0120, 0x0124, 0x0130, 0x0140, 0x0150, 0x0320];

/// An Editable Poly (`poly`) or Editable Mesh child.
pub(crate) fn geometry(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>, poly: bool) -> Part {
    if c.id != crate::model::geometry::GEOM_BUFFERS || !c.is_container() {
        return Part::Raw(span);
    }
    lenient_container(c, span, ctx, &mut |k, kspan, ctx| {
        let layout = if poly { mesh_chunks::poly_layout(k.id) } else { mesh_chunks::tri_layout(k.id) };
        match layout {
            Some(layout) => payload_or_raw(k, kspan, ctx, |p| MeshArray::decode(layout, p).map(Payload::Mesh)),
            None if GEOM_U32.contains(&k.id) && poly => leaf_or_raw(k, kspan, Kind::U32, ctx),
            None if k.is_container() && k.id == if poly { POLY_MAP_CHANNEL } else { TRI_MAP_CHANNEL } => {
                map_channel(k, kspan, ctx, poly)
            }
            None => Part::Raw(kspan),
        }
    })
}

/// A per-face map channel container under an Editable Poly's 0x08fe.
const POLY_MAP_CHANNEL: u16 = 0x0300;
/// A per-face map channel container under an Editable Mesh's 0x08fe.
const TRI_MAP_CHANNEL: u16 = 0x23a0;

/// A map channel stored face by face (poly 0x0300, tri 0x23a0): `u32` counters
/// (0x0100, 0x0120, 0x0130), map vertices 0x0110 (`u32 n` + n × 3×`f32`), then per face a
/// 0x0124 face index (`u32`) and a 0x0128 container holding the map face 0x0200 (poly:
/// `u32` degree + corners; tri: 3×`u32`) and 0x0210 (tri: `u32`; poly: a container kept
/// raw). Anything else stays raw in place.
fn map_channel(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>, poly: bool) -> Part {
    lenient_container(c, span, ctx, &mut |k, kspan, ctx| match k.id {
        0x0110 => {
            payload_or_raw(k, kspan, ctx, |p| MeshArray::decode(mesh_chunks::Layout::Points, p).map(Payload::Mesh))
        }
        0x0100 | 0x0120 | 0x0124 | 0x0130 => leaf_or_raw(k, kspan, Kind::U32, ctx),
        0x0128 if k.is_container() => lenient_container(k, kspan, ctx, &mut |f, fspan, ctx| match f.id {
            0x0200 if poly => {
                payload_or_raw(f, fspan, ctx, |p| MeshArray::decode(mesh_chunks::Layout::Lists, p).map(Payload::Mesh))
            }
            0x0200 => leaf_or_raw(f, fspan, Kind::U32x3, ctx),
            0x0210 if !poly => leaf_or_raw(f, fspan, Kind::U32, ctx),
            _ => Part::Raw(fspan),
        }),
        _ => Part::Raw(kspan),
    })
}

#[cfg(test)]
/// Reads a ParamBlock2 back from typed parts (the records, in stored order).
pub(crate) fn param_block2_of(parts: &[Part]) -> super::paramblock::ParamBlock2 {
    super::paramblock::ParamBlock2::from_params(
        parts
            .iter()
            .filter_map(|p| match p {
                Part::Payload(t) => match &t.body {
                    Payload::Param(param) => Some(param.clone()),
                    _ => None,
                },
                _ => None,
            })
            .collect(),
    )
}
