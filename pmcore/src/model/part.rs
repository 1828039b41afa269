//! The shape every typed model shares: a run of [`Part`]s, one per stored chunk, in
//! stored order. A part is either raw (a byte span of the source, copied verbatim at
//! build time) or typed (regenerated from decoded state). Because typed and raw parts
//! sit side by side in stored order, build re-emits every chunk at its original
//! position — there is no "typed first, leftovers after".
//!
//! Raw parts hold spans, not bytes: build takes the source buffer as an argument, so the
//! typed-owned spans (the [`Claims`]) can be scribbled between decode and build to prove
//! that typed bytes really are regenerated (T2 does so on every run, without a copy:
//! [`super::writer::Writer::scribbling`]).

pub(crate) use super::decode_state::{child_spans, Claims, Surprise};
pub use super::decode_state::{Ctx, Span};

use super::appdata::AppData;
use super::key_records::KeyTable;
use super::mesh_chunks::MeshArray;
use super::paramblock::{BlockLeaf, Param};
use super::references::References;
use super::value::{Kind, Value};
use super::writer::{BuildError, Writer};
use crate::chunk::{Chunk, HeaderWidth};

/// A typed leaf chunk: id, header width as read, decoded value.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypedLeaf {
    /// Chunk id.
    pub id: u16,
    /// Header width as read.
    pub width: HeaderWidth,
    /// Decoded payload.
    pub value: Value,
}

/// A container whose header is regenerated and whose children are parts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypedContainer {
    /// Chunk id.
    pub id: u16,
    /// Header width as read.
    pub width: HeaderWidth,
    /// Children in stored order.
    pub parts: Vec<Part>,
}

/// What a structured leaf payload decodes to: every byte is a decoded field, and the
/// payload is regenerated from them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Payload {
    /// A ParamBlock2 parameter record.
    Param(Param),
    /// A parameter-block header, table or name list.
    Block(BlockLeaf),
    /// A geometry array of an Editable Mesh / Editable Poly.
    Mesh(MeshArray),
    /// A keyframe controller's key table.
    Keys(KeyTable),
}

impl Payload {
    /// Appends the exact payload bytes.
    pub(crate) fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Payload::Param(p) => p.encode(out),
            Payload::Block(b) => b.encode(out),
            Payload::Mesh(m) => m.encode(out),
            Payload::Keys(k) => k.encode(out),
        }
    }
}

/// A leaf chunk whose payload is a [`Payload`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TypedPayload {
    /// Chunk id.
    pub id: u16,
    /// Header width as read.
    pub width: HeaderWidth,
    /// Decoded payload.
    pub body: Payload,
}

/// One stored chunk inside a typed model.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Part {
    /// Not understood (or kept on purpose): copied verbatim from the source buffer.
    Raw(Span),
    /// A documented leaf, regenerated from its value.
    Leaf(TypedLeaf),
    /// A documented container, header regenerated, children parts.
    Container(TypedContainer),
    /// Animatable AppData (0x2150).
    AppData(AppData),
    /// ReferenceMaker references (0x2034 flat or 0x2035 map).
    References(References),
    /// A structured leaf (parameter record, table, geometry array).
    Payload(TypedPayload),
}

impl Part {
    /// Chunk id of a typed part (`None` for raw).
    pub(crate) fn id(&self) -> Option<u16> {
        match self {
            Part::Raw(_) => None,
            Part::Leaf(l) => Some(l.id),
            Part::Container(c) => Some(c.id),
            Part::AppData(_) => Some(super::appdata::APPDATA),
            Part::References(r) => Some(r.id()),
            Part::Payload(p) => Some(p.id),
        }
    }

    /// Writes this part: raw spans from `source`, typed parts from their state.
    pub(crate) fn build(&self, source: &[u8], w: &mut Writer<'_>) -> Result<(), BuildError> {
        match self {
            Part::Raw(span) => w.raw(source, span.start, span.end),
            Part::Leaf(l) => w.leaf_with(l.id, l.width, |out| l.value.encode(out)),
            Part::Container(c) => {
                let open = w.open(c.id, c.width, true);
                build_parts(&c.parts, source, w)?;
                w.close(open)
            }
            Part::AppData(a) => a.build(w),
            Part::References(r) => r.build(w),
            Part::Payload(p) => w.leaf_with(p.id, p.width, |out| p.body.encode(out)),
        }
    }
}

/// Writes a run of parts in order.
pub(crate) fn build_parts(parts: &[Part], source: &[u8], w: &mut Writer<'_>) -> Result<(), BuildError> {
    parts.iter().try_for_each(|p| p.build(source, w))
}

/// The typed leaf with `id` in a run of parts.
pub(crate) fn leaf(parts: &[Part], id: u16) -> Option<&TypedLeaf> {
    parts.iter().find_map(|p| match p {
        Part::Leaf(l) if l.id == id => Some(l),
        _ => None,
    })
}

/// Mutable typed leaf with `id` in a run of parts.
pub(crate) fn leaf_mut(parts: &mut [Part], id: u16) -> Option<&mut TypedLeaf> {
    parts.iter_mut().find_map(|p| match p {
        Part::Leaf(l) if l.id == id => Some(l),
        _ => None,
    })
}

/// Decodes a leaf chunk as `kind`, claiming it; a container or a size that does not fit
/// is a surprise.
pub(crate) fn typed_leaf(c: &Chunk<'_>, span: Span, kind: Kind, ctx: &mut Ctx<'_>) -> Result<TypedLeaf, Surprise> {
    let Some(payload) = c.payload() else {
        return Err(ctx.surprise(format!("0x{:04x} is a container, expected a {kind:?} leaf", c.id)));
    };
    match Value::decode(kind, payload) {
        Some(value) => {
            ctx.claims.claim(span);
            Ok(TypedLeaf { id: c.id, width: c.width, value })
        }
        None => Err(ctx.surprise(format!("0x{:04x} has {} bytes, not a {kind:?}", c.id, payload.len()))),
    }
}

/// Decodes a leaf with `decode`; a container, or a payload `decode` refuses, stays raw in
/// place (an undocumented variant is not a reason to degrade the whole object).
pub(crate) fn payload_or_raw(
    c: &Chunk<'_>,
    span: Span,
    ctx: &mut Ctx<'_>,
    decode: impl FnOnce(&[u8]) -> Option<Payload>,
) -> Part {
    match c.payload().and_then(decode) {
        Some(body) => {
            ctx.claims.claim(span);
            Part::Payload(TypedPayload { id: c.id, width: c.width, body })
        }
        None => Part::Raw(span),
    }
}

/// A leaf typed as `kind` when its size fits, raw in place otherwise.
pub(crate) fn leaf_or_raw(c: &Chunk<'_>, span: Span, kind: Kind, ctx: &mut Ctx<'_>) -> Part {
    match c.payload().and_then(|p| Value::decode(kind, p)) {
        Some(value) => {
            ctx.claims.claim(span);
            Part::Leaf(TypedLeaf { id: c.id, width: c.width, value })
        }
        None => Part::Raw(span),
    }
}

/// A container whose header is regenerated and whose children are decoded by `child`
/// (which never fails: what it does not understand it keeps raw).
pub(crate) fn lenient_container(
    c: &Chunk<'_>,
    span: Span,
    ctx: &mut Ctx<'_>,
    child: &mut dyn FnMut(&Chunk<'_>, Span, &mut Ctx<'_>) -> Part,
) -> Part {
    let mut parts = Vec::with_capacity(c.children().len());
    for (i, k, kspan) in child_spans(c.children(), span.end) {
        parts.push(ctx.at(i, k.id, |ctx| child(k, kspan, ctx)));
    }
    ctx.claims.header(span, c.width);
    Part::Container(TypedContainer { id: c.id, width: c.width, parts })
}

/// Decodes a container whose children are typed by `kind_of(id)` (raw when `None`);
/// nested containers are typed by `nested` when it returns a decoder result.
pub(crate) fn typed_container(
    c: &Chunk<'_>,
    span: Span,
    ctx: &mut Ctx<'_>,
    kind_of: &dyn Fn(u16) -> Option<Kind>,
) -> Result<TypedContainer, Surprise> {
    let mark = ctx.claims.mark();
    let mut parts = Vec::with_capacity(c.children().len());
    for (i, child, cspan) in child_spans(c.children(), span.end) {
        let part = match kind_of(child.id) {
            Some(kind) => ctx.at(i, child.id, |ctx| typed_leaf(child, cspan, kind, ctx)).map(Part::Leaf),
            None => Ok(Part::Raw(cspan)),
        };
        match part {
            Ok(p) => parts.push(p),
            Err(s) => {
                ctx.claims.rollback(mark);
                return Err(s);
            }
        }
    }
    ctx.claims.header(span, c.width);
    Ok(TypedContainer { id: c.id, width: c.width, parts })
}
