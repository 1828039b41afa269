//! Typed models of the non-Scene chunk streams, all as runs of [`Part`]s in stored
//! order: DllDirectory and ClassDirectory3 entries (the entry run stays where it was
//! among other chunks), ClassData headers, and Config as far as the digest documents it
//! (§3.4). An entry whose shape surprises its decoder stays raw and is reported as
//! degraded under the entry's name; unknown chunks stay raw.

use super::part::{child_spans, typed_container, typed_leaf, Ctx, Part, Span, Surprise, TypedContainer};
use super::value::Kind;
use super::writer::{BuildError, Writer};
use crate::chunk::{Chunk, HeaderWidth};

/// Which decoder a stream gets, by its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StreamType {
    /// `Scene`.
    Scene,
    /// `DllDirectory`.
    DllDirectory,
    /// `ClassDirectory3` (or `ClassDirectory`/`ClassDirectory2`).
    ClassDirectory,
    /// `ClassData`.
    ClassData,
    /// `Config`.
    Config,
    /// Anything else: every chunk raw.
    Generic,
}

impl StreamType {
    /// Decoder for a stream name (stored or logical: `ClassData_Compressed` is `ClassData`).
    pub fn of(name: &str) -> StreamType {
        match crate::maxfile::logical_name(name) {
            "Scene" => StreamType::Scene,
            "DllDirectory" => StreamType::DllDirectory,
            "ClassDirectory3" | "ClassDirectory2" | "ClassDirectory" => StreamType::ClassDirectory,
            "ClassData" => StreamType::ClassData,
            "Config" => StreamType::Config,
            _ => StreamType::Generic,
        }
    }
}

/// A degraded entry of a non-Scene stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DegradedEntry {
    /// What kind of entry (`DllEntry`, `ClassEntry`, `Config entry`, …).
    pub name: &'static str,
    /// What surprised the decoder, where.
    pub surprise: Surprise,
}

/// A decoded non-Scene chunk stream.
#[derive(Clone, Debug, PartialEq)]
pub struct RunModel {
    /// Top-level chunks in stored order.
    pub(crate) parts: Vec<Part>,
    /// Entries kept raw after a surprise.
    pub degraded: Vec<DegradedEntry>,
}

/// DllDirectory header leaf (`u32`).
pub(crate) const DLL_HEADER: u16 = 0x21C0;

impl RunModel {
    /// Decodes a top-level run with the decoder of `kind` (not `Scene`). A sole run-to-end
    /// wrapper root (Max 2024+ zstd streams) becomes a typed container whose children are
    /// decoded as the stream's entries.
    pub fn decode(kind: StreamType, tree: &[Chunk<'_>], stream_len: u64, ctx: &mut Ctx<'_>) -> RunModel {
        let mut model = RunModel { parts: Vec::with_capacity(tree.len()), degraded: Vec::new() };
        if let [wrapper] = tree {
            if wrapper.width == HeaderWidth::ShortToEnd {
                let span = Span { start: wrapper.offset.unwrap_or(0), end: stream_len };
                let parts = ctx.at(0, wrapper.id, |ctx| {
                    decode_run(kind, wrapper.children(), stream_len, ctx, &mut model.degraded)
                });
                ctx.claims.header(span, wrapper.width);
                model.parts.push(Part::Container(TypedContainer { id: wrapper.id, width: wrapper.width, parts }));
                return model;
            }
        }
        model.parts = decode_run(kind, tree, stream_len, ctx, &mut model.degraded);
        model
    }

    #[cfg(test)]
    /// The stream's entry parts: below a run-to-end wrapper root, else the top level.
    pub(crate) fn entries(&self) -> &[Part] {
        match self.parts.as_slice() {
            [Part::Container(c)] if c.width == HeaderWidth::ShortToEnd => &c.parts,
            parts => parts,
        }
    }

    #[cfg(test)]
    /// Number of typed entries with chunk id `id` (at the top level, or below a wrapper root).
    pub(crate) fn typed_count(&self, id: u16) -> usize {
        self.entries().iter().filter(|p| p.id() == Some(id)).count()
    }

    /// Writes the stream.
    pub fn build(&self, source: &[u8], w: &mut Writer<'_>) -> Result<(), BuildError> {
        super::part::build_parts(&self.parts, source, w)
    }
}

/// Decodes a run of entries ending at `end`, each with the decoder of `kind`.
fn decode_run(
    kind: StreamType,
    run: &[Chunk<'_>],
    end: u64,
    ctx: &mut Ctx<'_>,
    degraded: &mut Vec<DegradedEntry>,
) -> Vec<Part> {
    let mut parts = Vec::with_capacity(run.len());
    for (i, c, span) in child_spans(run, end) {
        let decoded = ctx.at(i, c.id, |ctx| top_level(kind, c, span, ctx, degraded));
        let part = match decoded {
            None => Part::Raw(span),
            Some((_, Ok(p))) => p,
            Some((name, Err(surprise))) => {
                degraded.push(DegradedEntry { name, surprise });
                Part::Raw(span)
            }
        };
        parts.push(part);
    }
    parts
}

type Decoded = Option<(&'static str, Result<Part, Surprise>)>;

fn top_level(
    kind: StreamType,
    c: &Chunk<'_>,
    span: Span,
    ctx: &mut Ctx<'_>,
    degraded: &mut Vec<DegradedEntry>,
) -> Decoded {
    use super::directory::ids;
    let leaf = |ctx: &mut Ctx<'_>, name, k| Some((name, typed_leaf(c, span, k, ctx).map(Part::Leaf)));
    match (kind, c.id) {
        (StreamType::DllDirectory, DLL_HEADER) => leaf(ctx, "DllDirectory header", Kind::U32),
        (StreamType::DllDirectory, ids::DLL_ENTRY) => Some((
            "DllEntry",
            exact_pair(c, span, ctx, [(ids::DLL_DESCRIPTION, Kind::Utf16), (ids::DLL_FILE, Kind::Utf16)]),
        )),
        (StreamType::ClassDirectory, ids::CLASS_ENTRY) => Some((
            "ClassEntry",
            exact_pair(c, span, ctx, [(ids::CLASS_HEADER, Kind::U32x4), (ids::CLASS_NAME, Kind::Utf16)]),
        )),
        (StreamType::ClassData, 0x2100) => {
            Some(("ClassData entry", container(c, span, ctx, &|id| (id == 0x2110).then_some(Kind::U32x3))))
        }
        (StreamType::Config, 0x2090) => leaf(ctx, "Config 0x2090", Kind::I32),
        (StreamType::Config, 0x20a0) => Some(("Config entry table", config_table(c, span, ctx))),
        // Five public files store an empty ConfigScript as a 0-byte leaf: keep that form.
        (StreamType::Config, 0x2180) if !c.is_container() => leaf(ctx, "ConfigScript", Kind::Empty),
        (StreamType::Config, 0x2180) => Some(("ConfigScript", config_script(c, span, ctx, degraded))),
        _ => None,
    }
}

fn container(
    c: &Chunk<'_>,
    span: Span,
    ctx: &mut Ctx<'_>,
    kind_of: &dyn Fn(u16) -> Option<Kind>,
) -> Result<Part, Surprise> {
    if !c.is_container() {
        return Err(ctx.surprise(format!("0x{:04x} is a leaf, expected a container", c.id)));
    }
    typed_container(c, span, ctx, kind_of).map(Part::Container)
}

/// A container that must hold exactly two leaves with these ids and layouts.
fn exact_pair(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>, expected: [(u16, Kind); 2]) -> Result<Part, Surprise> {
    let ids: Vec<u16> = c.children().iter().map(|k| k.id).collect();
    if !c.is_container() || ids != [expected[0].0, expected[1].0] {
        return Err(ctx.surprise(format!(
            "entry 0x{:04x} holds {ids:04x?}, expected [0x{:04x}, 0x{:04x}]",
            c.id, expected[0].0, expected[1].0
        )));
    }
    typed_container(c, span, ctx, &|id| expected.iter().find(|(e, _)| *e == id).map(|(_, k)| *k)).map(Part::Container)
}

/// Config 0x20a0 entry fields (digest §3.4).
fn config_entry_kind(id: u16) -> Option<Kind> {
    match id {
        0x0100 | 0x0110 | 0x0120 | 0x0130 | 0x0140 | 0x0150 | 0x0160 | 0x0161 | 0x0170 | 0x0180 | 0x0190 | 0x0200
        | 0x0210 | 0x0220 | 0x0230 | 0x0240 | 0x0250 | 0x0270 | 0x0280 | 0x0310 | 0x0320 => Some(Kind::I32),
        0x0260 => Some(Kind::I64),
        0x0290 | 0x0390 => Some(Kind::Utf16),
        _ => None,
    }
}

/// 0x20a0: 0x0100 `s32` count, then 0x0110 entry containers; the count must match.
fn config_table(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Result<Part, Surprise> {
    if !c.is_container() {
        return Err(ctx.surprise("Config 0x20a0 is a leaf"));
    }
    let mark = ctx.claims.mark();
    let result = (|| {
        let mut parts = Vec::with_capacity(c.children().len());
        for (i, child, cspan) in child_spans(c.children(), span.end) {
            let part = ctx.at(i, child.id, |ctx| match child.id {
                0x0100 => typed_leaf(child, cspan, Kind::I32, ctx).map(Part::Leaf),
                0x0110 => container(child, cspan, ctx, &config_entry_kind),
                _ => Ok(Part::Raw(cspan)),
            })?;
            parts.push(part);
        }
        let entries = parts.iter().filter(|p| p.id() == Some(0x0110)).count();
        match super::part::leaf(&parts, 0x0100).map(|l| &l.value) {
            Some(super::value::Value::I32(n)) if *n as usize != entries => {
                Err(ctx.surprise(format!("Config 0x20a0 count {n} disagrees with {entries} entries")))
            }
            _ => Ok(parts),
        }
    })();
    match result {
        Ok(parts) => {
            ctx.claims.header(span, c.width);
            Ok(Part::Container(TypedContainer { id: c.id, width: c.width, parts }))
        }
        Err(s) => {
            ctx.claims.rollback(mark);
            Err(s)
        }
    }
}

/// 0x2180 ConfigScript: 0x0040 entries of [0x0050 header (`u32` SuperClassID, ClassId),
/// 0x0007 meta container]. Each entry degrades on its own ("ConfigScript entry").
fn config_script(
    c: &Chunk<'_>,
    span: Span,
    ctx: &mut Ctx<'_>,
    degraded: &mut Vec<DegradedEntry>,
) -> Result<Part, Surprise> {
    if !c.is_container() {
        return Err(ctx.surprise("ConfigScript 0x2180 is a non-empty leaf"));
    }
    let entry: &ChildDecoder<'_> = &|k, kspan, ctx| match k.id {
        0x0050 => Some(typed_leaf(k, kspan, Kind::U32x3, ctx).map(Part::Leaf)),
        0x0007 => Some(meta(k, kspan, ctx)),
        _ => None,
    };
    let mut parts = Vec::with_capacity(c.children().len());
    for (i, child, cspan) in child_spans(c.children(), span.end) {
        if child.id != 0x0040 {
            parts.push(Part::Raw(cspan));
            continue;
        }
        match ctx.at(i, child.id, |ctx| nested(child, cspan, ctx, entry)) {
            Ok(p) => parts.push(p),
            Err(surprise) => {
                degraded.push(DegradedEntry { name: "ConfigScript entry", surprise });
                parts.push(Part::Raw(cspan));
            }
        }
    }
    ctx.claims.header(span, c.width);
    Ok(Part::Container(TypedContainer { id: c.id, width: c.width, parts }))
}

/// 0x0007 meta container: typed values, nested meta containers (depth bounded by the
/// chunk parser's limit), unknown ids raw.
fn meta(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Result<Part, Surprise> {
    nested(c, span, ctx, &|child, cspan, ctx| {
        let kind = match child.id {
            0x0007 => return Some(meta(child, cspan, ctx)),
            0x0060 | 0x0001 => Kind::U32,
            0x0003 => Kind::I32,
            0x0004 => Kind::F32,
            0x0005 | 0x0006 => Kind::LenString,
            0x0008 => Kind::F32x3,
            _ => return None,
        };
        Some(typed_leaf(child, cspan, kind, ctx).map(Part::Leaf))
    })
}

type ChildDecoder<'f> = dyn Fn(&Chunk<'_>, Span, &mut Ctx<'_>) -> Option<Result<Part, Surprise>> + 'f;

/// A container whose children `decode` types (raw when it returns `None`).
fn nested(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>, decode: &ChildDecoder<'_>) -> Result<Part, Surprise> {
    if !c.is_container() {
        return Err(ctx.surprise(format!("0x{:04x} is a leaf, expected a container", c.id)));
    }
    let mark = ctx.claims.mark();
    let mut parts = Vec::with_capacity(c.children().len());
    for (i, child, cspan) in child_spans(c.children(), span.end) {
        match ctx.at(i, child.id, |ctx| decode(child, cspan, ctx)) {
            None => parts.push(Part::Raw(cspan)),
            Some(Ok(p)) => parts.push(p),
            Some(Err(s)) => {
                ctx.claims.rollback(mark);
                return Err(s);
            }
        }
    }
    ctx.claims.header(span, c.width);
    Ok(Part::Container(TypedContainer { id: c.id, width: c.width, parts }))
}
