//! Typed chunk-layer errors. Each one names the stream, the chunk path and the byte
//! offset so a failure on one file of thousands can be found without a debugger.

use super::ChunkPath;

/// Why a stream is not a well-formed chunk tree.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ChunkErrorKind {
    /// Fewer bytes remain in the parent than a header needs.
    #[error("truncated header: {needed} bytes needed, {available} available")]
    TruncatedHeader { needed: u64, available: u64 },
    /// The size field is smaller than the header that carries it.
    #[error("size {size} is smaller than its {header}-byte header")]
    SizeSmallerThanHeader { size: u64, header: u64 },
    /// The chunk claims to end after its parent (or the stream) ends.
    #[error("chunk ends at {end}, past its parent's end {parent_end}")]
    SizePastParentEnd { end: u128, parent_end: u64 },
    /// Nesting deeper than [`super::MAX_DEPTH`].
    #[error("nesting deeper than {limit} levels")]
    TooDeep { limit: usize },
}

impl ChunkErrorKind {}

/// A parse error with its locator.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{stream}: {path} at offset {offset}: {kind}")]
pub struct ChunkError {
    /// Stream name (e.g. `Scene`).
    pub stream: String,
    /// Chunk path of the offending chunk (or of the parent whose run is broken).
    pub(crate) path: ChunkPath,
    /// Byte offset in the (decompressed) stream.
    pub offset: u64,
    /// What is wrong.
    pub kind: ChunkErrorKind,
}

/// Why a tree cannot be written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// Content grew past what a 6-byte header can express; a writer must not silently
    /// widen a header (that would change bytes nobody asked to change).
    #[error("{path}: size {size} does not fit a 6-byte header")]
    ShortHeaderOverflow { path: ChunkPath, size: u64 },
    /// Content past 2^63 bytes cannot be written at all.
    #[error("{path}: size {size} does not fit a 14-byte header")]
    LongHeaderOverflow { path: ChunkPath, size: u64 },
    /// A run-to-end header form on a chunk that is not the last top-level container of
    /// its stream: read back, it would swallow what follows it.
    #[error("{path}: a run-to-end header must be the last top-level container of its stream")]
    MisplacedToEnd { path: ChunkPath },
}
