//! Chunk writer for typed builds: headers are written with a placeholder size and
//! patched when the chunk closes, so a build is one forward pass with no measuring
//! pass and no per-chunk allocation. Each chunk keeps the header width it was read with.

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
pub struct Open {
    start: usize,
    id: u16,
    width: HeaderWidth,
    container: bool,
}

/// Output of a typed build plus the whitelisted normalizations it applied.
pub struct Writer<'o> {
    /// Stream name, for error messages only.
    pub stream: &'o str,
    /// Output buffer.
    pub out: &'o mut Vec<u8>,
    /// Whitelisted normalizations applied (see [`super::normalize`]), with counts.
    pub normalizations: Vec<(&'static str, u64)>,
}

impl<'o> Writer<'o> {
    /// A writer appending to `out`.
    pub fn new(stream: &'o str, out: &'o mut Vec<u8>) -> Self {
        Writer { stream, out, normalizations: Vec::new() }
    }

    /// Records one application of a whitelisted normalization.
    pub fn normalized(&mut self, reason: &'static str) {
        match self.normalizations.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, n)) => *n += 1,
            None => self.normalizations.push((reason, 1)),
        }
    }

    /// Writes a header with a placeholder size.
    pub fn open(&mut self, id: u16, width: HeaderWidth, container: bool) -> Open {
        let start = self.out.len();
        self.out.extend_from_slice(&id.to_le_bytes());
        match width {
            // Run-to-end forms carry no size: written as read, never patched.
            HeaderWidth::Short | HeaderWidth::ShortToEnd => self.out.extend_from_slice(&[0xFF; 4]),
            HeaderWidth::Long => {
                self.out.extend_from_slice(&[0; 4]);
                self.out.extend_from_slice(&[0xFF; 8]);
            }
            HeaderWidth::LongToEnd => {
                self.out.extend_from_slice(&1u32.to_le_bytes());
                self.out.extend_from_slice(&[0xFF; 8]);
            }
        }
        Open { start, id, width, container }
    }

    /// Patches the size (header included) and container bit of an opened chunk.
    pub fn close(&mut self, open: Open) -> Result<(), BuildError> {
        let size = (self.out.len() - open.start) as u64;
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
                self.out[open.start + 2..open.start + 6].copy_from_slice(&field.to_le_bytes());
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
                self.out[open.start + 6..open.start + 14].copy_from_slice(&field.to_le_bytes());
            }
        }
        Ok(())
    }

    /// Writes a leaf chunk whose payload `fill` appends.
    pub fn leaf_with(
        &mut self,
        id: u16,
        width: HeaderWidth,
        fill: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), BuildError> {
        let open = self.open(id, width, false);
        fill(self.out);
        self.close(open)
    }

    /// Copies a chunk verbatim (header included) from the source buffer.
    pub fn raw(&mut self, source: &[u8], start: u64, end: u64) -> Result<(), BuildError> {
        match source.get(start as usize..end as usize) {
            Some(bytes) => {
                self.out.extend_from_slice(bytes);
                Ok(())
            }
            None => Err(BuildError::SpanOutsideSource {
                stream: self.stream.to_string(),
                start,
                len: end.saturating_sub(start),
                buffer: source.len() as u64,
            }),
        }
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
