//! Chunk writer for typed builds: headers are written with a placeholder size and
//! patched when the chunk closes, so a build is one forward pass with no measuring
//! pass and no per-chunk allocation. Each chunk keeps the header width it was read with.

use super::decode_state::Span;
use crate::chunk::HeaderWidth;

const SHORT_MAX: u64 = 0x7FFF_FFFF;
const LONG_MAX: u64 = 0x7FFF_FFFF_FFFF_FFFF;

/// Why a typed build could not write its bytes.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Content grew past what the chunk's 6-byte header can express; widening it silently
    /// would change bytes nobody asked to change.
    #[error("{stream}: chunk 0x{id:04x} at output offset {offset}: size {size} does not fit a 6-byte header")]
    ShortHeaderOverflow {
        /// Stream being built.
        stream: String,
        /// Chunk id.
        id: u16,
        /// Offset of the chunk header in the output.
        offset: u64,
        /// Size that did not fit.
        size: u64,
    },
    /// Content past 2^63 bytes.
    #[error("{stream}: chunk 0x{id:04x} at output offset {offset}: size {size} does not fit a 14-byte header")]
    LongHeaderOverflow {
        /// Stream being built.
        stream: String,
        /// Chunk id.
        id: u16,
        /// Offset of the chunk header in the output.
        offset: u64,
        /// Size that did not fit.
        size: u64,
    },
    /// A raw span points outside the source buffer handed to build (wrong buffer).
    #[error("{stream}: raw chunk at source offset {start} (+{len}) is outside the {buffer}-byte source buffer")]
    SpanOutsideSource {
        /// Stream being built.
        stream: String,
        /// Span start in the source.
        start: u64,
        /// Span length.
        len: u64,
        /// Source buffer length.
        buffer: u64,
    },
}

/// A chunk whose header is written and whose size is patched by [`Writer::close`].
#[must_use = "an opened chunk must be closed"]
pub(crate) struct Open {
    start: usize,
    id: u16,
    width: HeaderWidth,
    container: bool,
}

/// Where a build's bytes go.
enum Out<'o> {
    /// Appended to a buffer: the bytes are wanted (save, diagnostics of a mismatch).
    Buffer(&'o mut Vec<u8>),
    /// Compared with the bytes the stream was decoded from as they are produced, none kept:
    /// T2's normal pass needs no second copy of the stream.
    Compare(Compare<'o>),
}

/// State of a comparing build.
struct Compare<'o> {
    expected: &'o [u8],
    /// Output position.
    pos: usize,
    /// Some produced byte differs from `expected` (or lies past its end).
    differs: bool,
    /// Reused payload buffer for `leaf_with` and scribbled spans.
    scratch: Vec<u8>,
}

impl Compare<'_> {
    fn put(&mut self, bytes: &[u8]) {
        self.check(self.pos, bytes);
        self.pos += bytes.len();
    }

    fn check(&mut self, at: usize, bytes: &[u8]) {
        if !self.differs && self.expected.get(at..at + bytes.len()) != Some(bytes) {
            self.differs = true;
        }
    }
}

/// Output of a typed build plus the whitelisted normalizations it applied.
pub struct Writer<'o> {
    /// Stream name, for error messages only.
    pub stream: &'o str,
    out: Out<'o>,
    /// Typed-owned spans of the source, sorted and disjoint: with the regeneration proof,
    /// [`Writer::raw`] emits every byte inside them inverted, exactly as if build read a
    /// scribbled copy of the source, without making that copy.
    scribble: &'o [Span],
    /// Whitelisted normalizations applied (see [`super::normalize`]), with counts.
    pub normalizations: Vec<(&'static str, u64)>,
}

impl<'o> Writer<'o> {
    /// A writer appending to `out`.
    pub fn new(stream: &'o str, out: &'o mut Vec<u8>) -> Self {
        Writer { stream, out: Out::Buffer(out), scribble: &[], normalizations: Vec::new() }
    }

    /// A writer that keeps nothing and compares what it produces with `expected`; read the
    /// answer with [`Writer::matched`].
    pub(crate) fn comparing(stream: &'o str, expected: &'o [u8]) -> Self {
        let compare = Compare { expected, pos: 0, differs: false, scratch: Vec::new() };
        Writer { stream, out: Out::Compare(compare), scribble: &[], normalizations: Vec::new() }
    }

    /// Applies the regeneration proof: raw copies of any byte inside `spans` (sorted by
    /// start, disjoint — [`super::part::Claims::spans`] after decode) come out inverted.
    pub(crate) fn scribbling(mut self, spans: &'o [Span]) -> Self {
        self.scribble = spans;
        self
    }

    /// For a comparing writer: every byte produced equals `expected`, and all of it was
    /// produced. Always false for a buffer writer.
    pub(crate) fn matched(&self) -> bool {
        match &self.out {
            Out::Compare(c) => !c.differs && c.pos == c.expected.len(),
            Out::Buffer(_) => false,
        }
    }

    /// Records one application of a whitelisted normalization.
    pub(crate) fn normalized(&mut self, reason: &'static str) {
        match self.normalizations.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => self.normalizations.push((reason, 1)),
        }
    }

    fn len(&self) -> usize {
        match &self.out {
            Out::Buffer(b) => b.len(),
            Out::Compare(c) => c.pos,
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        match &mut self.out {
            Out::Buffer(b) => b.extend_from_slice(bytes),
            Out::Compare(c) => c.put(bytes),
        }
    }

    /// A size field [`Writer::close`] fills in: a buffer holds the placeholder, a comparing
    /// writer checks the field when it is patched.
    fn placeholder(&mut self, bytes: &[u8]) {
        match &mut self.out {
            Out::Buffer(b) => b.extend_from_slice(bytes),
            Out::Compare(c) => c.pos += bytes.len(),
        }
    }

    fn patch(&mut self, at: usize, bytes: &[u8]) {
        match &mut self.out {
            Out::Buffer(b) => b[at..at + bytes.len()].copy_from_slice(bytes),
            Out::Compare(c) => c.check(at, bytes),
        }
    }

    /// Writes a header with a placeholder size.
    pub(crate) fn open(&mut self, id: u16, width: HeaderWidth, container: bool) -> Open {
        let start = self.len();
        self.put(&id.to_le_bytes());
        match width {
            HeaderWidth::Short => self.placeholder(&[0xFF; 4]),
            // Run-to-end forms carry no size: written as read, never patched.
            HeaderWidth::ShortToEnd => self.put(&[0xFF; 4]),
            HeaderWidth::Long => {
                self.put(&[0; 4]);
                self.placeholder(&[0xFF; 8]);
            }
            HeaderWidth::LongToEnd => {
                self.put(&1u32.to_le_bytes());
                self.put(&[0xFF; 8]);
            }
        }
        Open { start, id, width, container }
    }

    /// Patches the size (header included) and container bit of an opened chunk.
    pub(crate) fn close(&mut self, open: Open) -> Result<(), BuildError> {
        let size = (self.len() - open.start) as u64;
        match open.width {
            HeaderWidth::ShortToEnd | HeaderWidth::LongToEnd => {}
            HeaderWidth::Short => {
                if size > SHORT_MAX {
                    return Err(BuildError::ShortHeaderOverflow {
                        stream: self.stream.to_string(),
                        id: open.id,
                        offset: open.start as u64,
                        size,
                    });
                }
                let field = size as u32 | if open.container { 0x8000_0000 } else { 0 };
                self.patch(open.start + 2, &field.to_le_bytes());
            }
            HeaderWidth::Long => {
                if size > LONG_MAX {
                    return Err(BuildError::LongHeaderOverflow {
                        stream: self.stream.to_string(),
                        id: open.id,
                        offset: open.start as u64,
                        size,
                    });
                }
                let field = size | if open.container { 0x8000_0000_0000_0000 } else { 0 };
                self.patch(open.start + 6, &field.to_le_bytes());
            }
        }
        Ok(())
    }

    /// Writes a leaf chunk whose payload `fill` appends.
    pub(crate) fn leaf_with(
        &mut self,
        id: u16,
        width: HeaderWidth,
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), BuildError> {
        let open = self.open(id, width, false);
        match &mut self.out {
            Out::Buffer(b) => fill(b),
            Out::Compare(c) => {
                let mut payload = std::mem::take(&mut c.scratch);
                payload.clear();
                fill(&mut payload);
                c.put(&payload);
                c.scratch = payload;
            }
        }
        self.close(open)
    }

    /// Copies a chunk verbatim (header included) from the source buffer.
    pub(crate) fn raw(&mut self, source: &[u8], start: u64, end: u64) -> Result<(), BuildError> {
        let Some(bytes) = source.get(start as usize..end as usize) else {
            return Err(BuildError::SpanOutsideSource {
                stream: self.stream.to_string(),
                start,
                len: end.saturating_sub(start),
                buffer: source.len() as u64,
            });
        };
        // Owned spans overlapping this copy (none unless a build reads bytes it claimed).
        let first = self.scribble.partition_point(|s| s.end <= start);
        let owned = &self.scribble[first..];
        if owned.first().is_none_or(|s| s.start >= end) {
            self.put(bytes);
            return Ok(());
        }
        let mut at = start;
        for span in owned.iter().take_while(|s| s.start < end) {
            let (lo, hi) = (span.start.max(at), span.end.min(end));
            if hi <= lo {
                continue; // spans not sealed (unsorted): never slice backwards
            }
            self.put(&source[at as usize..lo as usize]);
            let inverted: Vec<u8> = source[lo as usize..hi as usize].iter().map(|b| !b).collect();
            self.put(&inverted);
            at = hi;
        }
        self.put(&source[at as usize..end as usize]);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patches_short_and_long_headers_with_container_bits() {
        let mut out = Vec::new();
        let mut w = Writer::new("S", &mut out);
        let outer = w.open(0x2012, HeaderWidth::Long, true);
        w.leaf_with(0x0001, HeaderWidth::Short, |o| o.extend_from_slice(&[1, 2])).unwrap();
        w.close(outer).unwrap();
        let mut expected = vec![0x12, 0x20, 0, 0, 0, 0];
        expected.extend_from_slice(&(22u64 | 1 << 63).to_le_bytes());
        expected.extend_from_slice(&[0x01, 0x00, 8, 0, 0, 0, 1, 2]);
        assert_eq!(out, expected);
    }

    #[test]
    fn raw_outside_source_is_an_error() {
        let mut out = Vec::new();
        let mut w = Writer::new("S", &mut out);
        assert!(matches!(w.raw(&[1, 2, 3], 2, 9), Err(BuildError::SpanOutsideSource { .. })));
    }

    #[test]
    fn run_to_end_forms_are_written_as_read() {
        // Bytes as the Max 2024 zstd files store them (wild/README.md): no size to patch.
        let mut out = Vec::new();
        let mut w = Writer::new("S", &mut out);
        let outer = w.open(0x2204, HeaderWidth::ShortToEnd, true);
        w.leaf_with(0x0001, HeaderWidth::Short, |o| o.push(7)).unwrap();
        w.close(outer).unwrap();
        assert_eq!(out, [0x04, 0x22, 0xFF, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 7, 0, 0, 0, 7]);
        let mut out = Vec::new();
        let mut w = Writer::new("S", &mut out);
        let root = w.open(0x2029, HeaderWidth::LongToEnd, true);
        w.close(root).unwrap();
        assert_eq!(out, [0x29, 0x20, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]);
    }
}
