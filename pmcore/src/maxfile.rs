//! An opened `.max` file: the container plus each stream decoded (decompressed where the
//! content says so) and classified as chunk tree, opaque bytes or empty.

use crate::chunk::{self, Chunk, ChunkError, TreeStats};
use crate::compression::{self, Compression, DecompressError};
use crate::container::OleFile;

/// Streams that Max always writes as chunk trees. Kind is still decided by content; a
/// stream with one of these names that does not parse is reported as a T1 failure
/// rather than quietly compared as opaque bytes.
pub(crate) const CHUNK_STREAM_NAMES: &[&str] = &[
    "Scene",
    "DllDirectory",
    "ClassDirectory",
    "ClassDirectory2",
    "ClassDirectory3",
    "ClassData",
    "Config",
    "VideoPostQueue",
    "ScriptedCustAttribDefs",
    "SaveConfigData",
];

/// Name a stream is known by. Max 2024+ "Compressed" files store every chunk stream as
/// `<Name>_Compressed`, except `ScriptedCustAttribDefs`, stored as
/// `Scripted_CA_Defs_Compressed` (measured on the real files, `wild/README.md`); readers
/// look streams up by this name so they find both spellings.
pub fn logical_name(stored: &str) -> &str {
    match stored.strip_suffix("_Compressed") {
        Some("Scripted_CA_Defs") => "ScriptedCustAttribDefs",
        Some(base) => base,
        None => stored,
    }
}

/// How a stream's content is understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamKind {
    /// Parses completely as a chunk tree.
    Chunks,
    /// Compared byte for byte through the container.
    Opaque,
    /// Zero bytes after decoding: valid, passes trivially.
    Empty,
}

/// One stream, decoded.
#[derive(Debug)]
pub struct DecodedStream {
    /// Stream name in the container.
    pub name: String,
    /// Compression recognised from the stored bytes.
    pub compression: Compression,
    /// Inflated bytes for compressed streams (`None` for uncompressed: borrow the stored bytes).
    inflated: Option<Result<Vec<u8>, DecompressError>>,
    /// Content kind.
    pub kind: StreamKind,
    /// Shape of the chunk tree when `kind == Chunks`.
    pub stats: TreeStats,
    /// Why the content is not a chunk tree, when it is not.
    pub parse_error: Option<ChunkError>,
}

/// A `.max` file opened for verification.
#[derive(Debug)]
pub struct MaxFile {
    /// The container as read.
    pub ole: OleFile,
    /// Decoded view of `ole.streams`, same order.
    pub streams: Vec<DecodedStream>,
}

impl MaxFile {
    /// Decodes and classifies every stream of `ole` under the inflation budget of a file of
    /// its size with no memory cap ([`compression::file_budget`]).
    pub fn new(ole: OleFile) -> Self {
        let stored: u64 = ole.streams.iter().map(|s| s.bytes.len() as u64).sum();
        MaxFile::with_budget(ole, compression::Budget::for_input(stored))
    }

    /// Decodes and classifies every stream of `ole`; the compressed streams share `budget`
    /// (one budget per file, all streams together).
    pub fn with_budget(ole: OleFile, mut budget: compression::Budget) -> Self {
        let streams = ole
            .streams
            .iter()
            .map(|s| {
                let compression = compression::detect(&s.bytes);
                let inflated = if compression == Compression::None {
                    None
                } else {
                    Some(compression::decompress(&s.bytes, compression, &mut budget))
                };
                let mut d = DecodedStream {
                    name: s.name.clone(),
                    compression,
                    inflated,
                    kind: StreamKind::Opaque,
                    stats: TreeStats::default(),
                    parse_error: None,
                };
                if let Ok(data) = d.data(&s.bytes) {
                    if data.is_empty() {
                        d.kind = StreamKind::Empty;
                    } else {
                        match chunk::scan_stream(&s.name, data) {
                            Ok(stats) => {
                                d.stats = stats;
                                d.kind = StreamKind::Chunks;
                            }
                            Err(e) => d.parse_error = Some(e),
                        }
                    }
                }
                d
            })
            .collect();
        MaxFile { ole, streams }
    }

    /// Decoded bytes of stream `index`.
    pub fn data(&self, index: usize) -> Result<&[u8], &DecompressError> {
        self.streams[index].data(&self.ole.streams[index].bytes)
    }

    /// Index of the stream called `name`, stored under that name or, failing that, under
    /// a name whose [`logical_name`] it is (`Scene` finds `Scene_Compressed`).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.streams
            .iter()
            .position(|s| s.name == name)
            .or_else(|| self.streams.iter().position(|s| logical_name(&s.name) == name))
    }

    /// Parsed tree of stream `index`, when it is a chunk stream.
    pub fn tree(&self, index: usize) -> Option<Vec<Chunk<'_>>> {
        if self.streams[index].kind != StreamKind::Chunks {
            return None;
        }
        let data = self.data(index).ok()?;
        chunk::parse_stream(&self.streams[index].name, data).ok()
    }

    /// Content of the stream called `name` for the directory, class and model readers: its
    /// top-level run, or the children of its run-to-end wrapper root (Max 2024+ zstd
    /// streams, [`chunk::content`]). T1 works on the whole tree ([`MaxFile::tree`]).
    pub fn tree_of(&self, name: &str) -> Option<Vec<Chunk<'_>>> {
        self.tree(self.index_of(name)?).map(chunk::into_content)
    }

    /// Root chunk id of `Scene`: the format version.
    pub fn root_id(&self) -> Option<u16> {
        let i = self.index_of("Scene")?;
        let data = self.data(i).ok()?;
        (data.len() >= 2).then(|| u16::from_le_bytes([data[0], data[1]]))
    }

    /// Total decoded bytes over all streams (what the parsing tiers actually read).
    pub fn decoded_bytes(&self) -> u64 {
        (0..self.streams.len()).map(|i| self.data(i).map(|d| d.len() as u64).unwrap_or(0)).sum()
    }
}

impl DecodedStream {
    /// Decoded bytes, given the stored bytes of the same stream.
    pub(crate) fn data<'a>(&'a self, stored: &'a [u8]) -> Result<&'a [u8], &'a DecompressError> {
        match &self.inflated {
            None => Ok(stored),
            Some(Ok(v)) => Ok(v),
            Some(Err(e)) => Err(e),
        }
    }

    /// Error from inflating, if any.
    pub fn decompress_error(&self) -> Option<&DecompressError> {
        match &self.inflated {
            Some(Err(e)) => Some(e),
            _ => None,
        }
    }

    /// True when Max always writes this stream as a chunk tree.
    pub(crate) fn expected_chunks(&self) -> bool {
        CHUNK_STREAM_NAMES.contains(&logical_name(&self.name))
    }
}
