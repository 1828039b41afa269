//! Lossless chunk layer: a tree that records, per chunk, exactly what is needed to
//! reproduce its bytes — id, header width, container bit, payload or children.
//!
//! Every `.max` stream (after decompression) is a flat run of top-level chunks. A
//! chunk header is either 6 bytes (`u16 id`, `u32 size`) or 14 bytes (`u16 id`,
//! `u32 0`, `u64 size`); the size counts header plus payload and its top bit marks a
//! container. Real files mix both widths among siblings, so the width is kept per chunk.
//!
//! Max 2024+ "Compressed" files (zstd, written by a streaming writer that cannot seek back)
//! add two forms whose length is unknown, both measured on real files and both kept per
//! chunk: the Scene root as `u16 id`, `u32 1`, `u64 0xFFFF_FFFF_FFFF_FFFF`, and an extra
//! root chunk around every other stream as `u16 id`, `u32 0xFFFF_FFFF`. Such a container
//! runs to the end of its stream; the parser accepts the forms only at the top level,
//! where nothing follows them.

mod error;
mod parse;
mod path;
mod stats;
mod write;

pub use error::{ChunkError, ChunkErrorKind, WriteError};
pub use parse::{parse_stream, scan_stream};
pub use path::mask_positions;
pub(crate) use path::{locate_offset, ChunkPath};
pub(crate) use stats::TreeStats;
pub(crate) use write::write_stream_into;
pub use write::{compare_stream, encoded_len, write_stream};

use std::borrow::Cow;

/// Deepest nesting the parser follows before it reports [`ChunkErrorKind::TooDeep`].
/// The deepest real tree is 11 levels (`Config`); 64 leaves ample room while keeping
/// recursion bounded on hostile input.
pub(crate) const MAX_DEPTH: usize = 64;

/// Header form of one chunk; kept per chunk because files mix both widths (and Max 2024+
/// zstd streams add the two run-to-end forms).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum HeaderWidth {
    /// `u16 id`, `u32 size` (bit 31 = container).
    Short,
    /// `u16 id`, `u32 0`, `u64 size` (bit 63 = container).
    Long,
    /// `u16 id`, `u32 0xFFFF_FFFF`: a top-level container running to the end of the stream
    /// (the extra root of every non-Scene stream of a Max 2024+ zstd file).
    ShortToEnd,
    /// `u16 id`, `u32 1`, `u64 0xFFFF_FFFF_FFFF_FFFF`: a top-level container running to the
    /// end of the stream (the Scene root of a Max 2024+ zstd file).
    LongToEnd,
}

impl HeaderWidth {
    /// Number of header bytes this form occupies.
    pub const fn bytes(self) -> u64 {
        match self {
            HeaderWidth::Short | HeaderWidth::ShortToEnd => 6,
            HeaderWidth::Long | HeaderWidth::LongToEnd => 14,
        }
    }

    /// True for the forms whose size field says "to the end of the stream".
    pub(crate) const fn runs_to_end(self) -> bool {
        matches!(self, HeaderWidth::ShortToEnd | HeaderWidth::LongToEnd)
    }
}

/// The content of a stream's top-level run: the children of a sole run-to-end 6-byte
/// wrapper root (Max 2024+ zstd streams), else the run itself. Readers of directories,
/// classes and typed models look here; T1 keeps the whole tree.
pub(crate) fn content<'c, 'a>(run: &'c [Chunk<'a>]) -> &'c [Chunk<'a>] {
    match run {
        [only] if only.width == HeaderWidth::ShortToEnd => only.children(),
        _ => run,
    }
}

/// Owned version of [`content`]: unwraps a sole run-to-end wrapper root.
pub(crate) fn into_content(mut run: Vec<Chunk<'_>>) -> Vec<Chunk<'_>> {
    if run.len() == 1 && run[0].width == HeaderWidth::ShortToEnd {
        if let Some(Chunk { body: Body::Container(children), .. }) = run.pop() {
            return children;
        }
    }
    run
}

/// What a chunk carries: opaque payload bytes (container bit clear) or child chunks
/// (container bit set). A 0-byte leaf and an empty container are distinct and both real.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Body<'a> {
    /// Payload bytes, borrowed from the stream buffer until something replaces them.
    Leaf(Cow<'a, [u8]>),
    /// Child chunks in stored order.
    Container(Vec<Chunk<'a>>),
}

/// One chunk of a stream: enough to write its bytes back exactly.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk<'a> {
    /// Chunk id as stored.
    pub id: u16,
    /// Header form as stored.
    pub width: HeaderWidth,
    /// Offset of the header in the (decompressed) stream it was read from; `None` for
    /// chunks built in memory. Used only for locators, never for writing.
    pub offset: Option<u64>,
    /// Payload or children.
    pub body: Body<'a>,
}

impl<'a> Chunk<'a> {
    /// A leaf chunk built in memory (6-byte header).
    pub(crate) fn leaf(id: u16, payload: impl Into<Cow<'a, [u8]>>) -> Self {
        Chunk { id, width: HeaderWidth::Short, offset: None, body: Body::Leaf(payload.into()) }
    }

    /// A container chunk built in memory (6-byte header).
    pub fn container(id: u16, children: Vec<Chunk<'a>>) -> Self {
        Chunk { id, width: HeaderWidth::Short, offset: None, body: Body::Container(children) }
    }

    /// Same chunk with another header width.
    pub(crate) fn with_width(mut self, width: HeaderWidth) -> Self {
        self.width = width;
        self
    }

    /// True when the container bit is set.
    pub fn is_container(&self) -> bool {
        matches!(self.body, Body::Container(_))
    }

    /// Children of a container, empty for a leaf.
    pub fn children(&self) -> &[Chunk<'a>] {
        match &self.body {
            Body::Container(c) => c,
            Body::Leaf(_) => &[],
        }
    }

    /// Payload of a leaf, `None` for a container.
    pub fn payload(&self) -> Option<&[u8]> {
        match &self.body {
            Body::Leaf(p) => Some(p),
            Body::Container(_) => None,
        }
    }

    /// First direct child with `id`.
    pub fn child(&self, id: u16) -> Option<&Chunk<'a>> {
        self.children().iter().find(|c| c.id == id)
    }
}
