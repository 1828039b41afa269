//! File facts for bucketing: format version, saving release, stream inventory with
//! compression and header counts, CLSID.

pub mod doc_summary;
pub mod property_set;
pub mod version;

use crate::compression::Compression;
use crate::maxfile::{MaxFile, StreamKind};

pub(crate) use version::version_label;
pub use version::version_slug;

/// Facts about one stream.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct StreamFacts {
    /// Stream name.
    pub name: String,
    /// Stored bytes.
    pub bytes: u64,
    /// Bytes after decompression.
    pub decoded_bytes: u64,
    /// Compression scheme name (`none`, `gzip`, `zstd`).
    pub compression: String,
    /// `chunks`, `opaque` or `empty`.
    pub kind: StreamKind,
    /// 6-byte headers in the tree.
    pub headers_6: u64,
    /// 14-byte headers in the tree.
    pub headers_14: u64,
    /// Deepest level of the tree.
    pub max_depth: usize,
    /// Why the stream is not a chunk tree (or could not be inflated), if it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Facts about one `.max` file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileFacts {
    /// Scene root chunk id.
    pub root_id: Option<u16>,
    /// Version label: the release name for `root_id`, narrowed by `saved_as` where one id
    /// covers two releases (`Max 2019` for 0x2023 saved as 21.00; `Max 2018/2019` without).
    pub max_version: Option<String>,
    /// Release that wrote the file (`3ds Max Version`, with a decimal point: `22.00`).
    pub saving_release: Option<String>,
    /// Release whose format the file was written in (`Saved As Version`, `22.00`).
    #[serde(default)]
    pub saved_as: Option<String>,
    /// Build string as written (`22.0.0.757`, `M100 SC 01`).
    #[serde(default)]
    pub build: Option<String>,
    /// Root CLSID.
    pub clsid: String,
    /// Streams in directory order.
    pub streams: Vec<StreamFacts>,
    /// 6-byte headers over all chunk streams.
    pub headers_6: u64,
    /// 14-byte headers over all chunk streams.
    pub headers_14: u64,
    /// Containers mixing both header widths among direct children.
    pub mixed_width_containers: u64,
    /// Distinct compression schemes used by any stream.
    pub compression: Vec<String>,
}

impl FileFacts {
    /// Gathers the facts of an opened file.
    pub fn of(file: &MaxFile) -> Self {
        let mut streams = Vec::with_capacity(file.streams.len());
        let (mut h6, mut h14, mut mixed) = (0, 0, 0);
        let mut compression: Vec<String> = Vec::new();
        for (i, s) in file.streams.iter().enumerate() {
            let stored = file.ole.streams[i].bytes.len() as u64;
            let decoded = file.data(i).map(|d| d.len() as u64).unwrap_or(0);
            h6 += s.stats.headers_6;
            h14 += s.stats.headers_14;
            mixed += s.stats.mixed_containers;
            if s.compression != Compression::None && !compression.iter().any(|c| c == s.compression.name()) {
                compression.push(s.compression.name().to_string());
            }
            let note = s.decompress_error().map(|e| e.to_string()).or_else(|| {
                (s.kind == StreamKind::Opaque).then(|| s.parse_error.as_ref().map(|e| e.to_string())).flatten()
            });
            streams.push(StreamFacts {
                name: s.name.clone(),
                bytes: stored,
                decoded_bytes: decoded,
                compression: s.compression.name().to_string(),
                kind: s.kind,
                headers_6: s.stats.headers_6,
                headers_14: s.stats.headers_14,
                max_depth: s.stats.max_depth,
                note,
            });
        }
        if compression.is_empty() {
            compression.push("none".to_string());
        }
        let root_id = file.root_id();
        let general = doc_summary(file).and_then(|s| s.general).unwrap_or_default();
        FileFacts {
            root_id,
            max_version: root_id.map(|id| version_label(id, general.saved_as.as_deref())),
            saving_release: general.release,
            saved_as: general.saved_as,
            build: general.build,
            clsid: file.ole.clsid_string(),
            streams,
            headers_6: h6,
            headers_14: h14,
            mixed_width_containers: mixed,
            compression,
        }
    }

    /// Number of streams parsed as chunk trees.
    pub fn chunk_streams(&self) -> usize {
        self.streams.iter().filter(|s| s.kind == StreamKind::Chunks).count()
    }
}

/// Max's document summary of a file (`\x05DocumentSummaryInformation`), typed; `None` when
/// the stream is absent or is not a readable property set.
pub fn doc_summary(file: &MaxFile) -> Option<doc_summary::DocSummary> {
    let stream = file.ole.stream("\u{5}DocumentSummaryInformation")?;
    let sections = property_set::parse(&stream.bytes).ok()?;
    Some(doc_summary::DocSummary::from_sections(&sections))
}
