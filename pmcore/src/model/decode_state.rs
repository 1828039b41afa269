//! The state every decoder of one stream shares — byte spans, claims (the typed-owned
//! bytes), the current chunk's locator steps and surprises — apart from [`super::part`],
//! so the part decoders (`appdata`, `references`, …) use it without importing the
//! `Part` type that holds their results.

use crate::chunk::{Chunk, ChunkPath, HeaderWidth};

/// A byte range `[start, end)` of the decoded stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// First byte.
    pub start: u64,
    /// One past the last byte.
    pub end: u64,
}

impl Span {
    /// Number of bytes.
    pub fn len(&self) -> u64 {
        self.end - self.start
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// What surprised a decoder, and where: the object (or entry) degrades to raw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Surprise {
    /// What did not match the documented layout.
    pub reason: String,
    /// Chunk path of the surprising chunk.
    pub chunk_path: String,
}

/// The byte spans a decode took ownership of (so build must regenerate them) and their
/// total. Spans are kept only when asked for (the regeneration proof); the total always.
#[derive(Clone, Debug, Default)]
pub struct Claims {
    spans: Option<Vec<Span>>,
    bytes: u64,
}

/// A point to roll claims back to when a decode degrades.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClaimMark {
    spans: usize,
    bytes: u64,
}

impl Claims {
    /// Claims that record spans when `record` (for the regeneration proof).
    pub(crate) fn new(record: bool) -> Self {
        Claims { spans: record.then(Vec::new), bytes: 0 }
    }

    /// Claims `span`.
    pub(crate) fn claim(&mut self, span: Span) {
        self.bytes += span.len();
        if let Some(s) = &mut self.spans {
            s.push(span);
        }
    }

    /// Claims only the header of a container whose children are handled separately.
    pub(crate) fn header(&mut self, span: Span, width: HeaderWidth) {
        self.claim(Span { start: span.start, end: span.start + width.bytes() });
    }

    /// Current position, for [`Claims::rollback`].
    pub(crate) fn mark(&self) -> ClaimMark {
        ClaimMark { spans: self.spans.as_ref().map_or(0, Vec::len), bytes: self.bytes }
    }

    /// Forgets every claim made after `mark` (the decode degraded to raw).
    pub(crate) fn rollback(&mut self, mark: ClaimMark) {
        self.bytes = mark.bytes;
        if let Some(s) = &mut self.spans {
            s.truncate(mark.spans);
        }
    }

    /// Total claimed bytes.
    pub(crate) fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Sorts the recorded spans by start and merges the overlapping and touching ones, so
    /// the regeneration proof can look them up by position: called once decode is done.
    pub(crate) fn seal(&mut self) {
        let Some(spans) = &mut self.spans else { return };
        spans.sort_unstable_by_key(|s| s.start);
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for s in spans.drain(..).filter(|s| !s.is_empty()) {
            match merged.last_mut() {
                Some(last) if s.start <= last.end => last.end = last.end.max(s.end),
                _ => merged.push(s),
            }
        }
        merged.shrink_to_fit();
        *spans = merged;
    }

    /// Recorded spans (empty unless recording; sorted and disjoint once sealed).
    pub fn spans(&self) -> &[Span] {
        self.spans.as_deref().unwrap_or(&[])
    }
}

/// Decode state shared by every decoder of one stream: the stream name and the
/// (position, id) steps of the current chunk, for locators built only on surprise.
pub struct Ctx<'s> {
    /// Stream name.
    pub stream: &'s str,
    /// Locator steps of the chunk being decoded.
    pub steps: Vec<(usize, u16)>,
    /// Typed-owned spans.
    pub claims: Claims,
}

impl<'s> Ctx<'s> {
    /// A context for `stream`.
    pub fn new(stream: &'s str, record_claims: bool) -> Self {
        Ctx { stream, steps: Vec::with_capacity(16), claims: Claims::new(record_claims) }
    }

    /// A surprise located at the current steps.
    pub(crate) fn surprise(&self, reason: impl Into<String>) -> Surprise {
        Surprise { reason: reason.into(), chunk_path: self.path() }
    }

    /// Chunk path of the current steps.
    pub(crate) fn path(&self) -> String {
        ChunkPath::from_steps(self.stream, &self.steps).0
    }

    /// Runs `f` with `(pos, id)` pushed on the steps.
    pub(crate) fn at<T>(&mut self, pos: usize, id: u16, f: impl FnOnce(&mut Self) -> T) -> T {
        self.steps.push((pos, id));
        let out = f(self);
        self.steps.pop();
        out
    }
}

/// Span of each child of a run that ends at `end` (the next sibling's offset, or `end`).
pub(crate) fn child_spans<'c, 'a>(
    children: &'c [Chunk<'a>],
    end: u64,
) -> impl Iterator<Item = (usize, &'c Chunk<'a>, Span)> + 'c {
    children.iter().enumerate().map(move |(i, c)| {
        let start = c.offset.unwrap_or(0);
        let stop = children.get(i + 1).and_then(|n| n.offset).unwrap_or(end);
        (i, c, Span { start, end: stop })
    })
}
