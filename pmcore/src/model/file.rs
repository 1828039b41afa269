//! A whole file through the typed model: every chunk stream decoded by its stream's
//! decoder, each rebuilt from typed state plus raw spans of a source buffer.

use super::directory::{Directories, CLASS_DIRECTORY_STREAMS};
use super::part::{Claims, Ctx, Span};
use super::scene::SceneModel;
use super::streams::{RunModel, StreamType};
use super::writer::{BuildError, Writer};
use crate::maxfile::{MaxFile, StreamKind};
use crate::parsed::ParsedStreams;

/// The typed model of one stream.
#[derive(Clone, Debug, PartialEq)]
pub enum StreamModel {
    /// `Scene`.
    Scene(SceneModel),
    /// Every other chunk stream.
    Run(RunModel),
}

/// One decoded chunk stream.
#[derive(Clone, Debug)]
pub struct TypedStream {
    /// Index in [`MaxFile::streams`].
    pub index: usize,
    /// Stream name.
    pub name: String,
    /// Decoded bytes length.
    pub len: u64,
    /// The model.
    pub model: StreamModel,
    /// Spans the model owns (regenerates).
    pub claims: Claims,
}

/// Every chunk stream of a file, decoded.
#[derive(Clone, Debug, Default)]
pub struct TypedFile {
    /// Chunk streams in file order.
    pub streams: Vec<TypedStream>,
}

/// Result of building one stream.
pub struct Built {
    /// The bytes.
    pub bytes: Vec<u8>,
    /// Whitelisted normalizations applied, with counts.
    pub normalizations: Vec<(&'static str, u64)>,
}

impl TypedFile {
    /// Decodes every chunk stream of `file`. `record_claims` keeps the owned spans (for
    /// the regeneration proof). `on_step(stream, chunk path, class)` runs before each
    /// stream and before each Scene object.
    pub fn decode(
        file: &MaxFile,
        record_claims: bool,
        on_step: impl FnMut(&str, Option<&str>, Option<&str>),
    ) -> TypedFile {
        TypedFile::decode_parsed(file, &ParsedStreams::default(), record_claims, on_step)
    }

    /// [`TypedFile::decode`] from the trees T1 kept ([`ParsedStreams`]; a stream without
    /// one is parsed here, as `decode` does for all).
    pub fn decode_parsed<'f>(
        file: &'f MaxFile,
        parsed: &ParsedStreams<'f>,
        record_claims: bool,
        mut on_step: impl FnMut(&str, Option<&str>, Option<&str>),
    ) -> TypedFile {
        let dll = parsed.content_of(file, "DllDirectory").unwrap_or_default();
        let class = CLASS_DIRECTORY_STREAMS.iter().find_map(|n| parsed.content_of(file, n)).unwrap_or_default();
        let dirs = Directories::read(&dll, &class);
        let saved_by = saving_release_major(file);
        let mut out = TypedFile::default();
        for (index, s) in file.streams.iter().enumerate() {
            if s.kind != StreamKind::Chunks {
                continue;
            }
            on_step(&s.name, None, None);
            let Ok(data) = file.data(index) else { continue };
            let Some(tree) = parsed.tree(file, index) else { continue };
            let mut ctx = Ctx::new(&s.name, record_claims);
            let len = data.len() as u64;
            let model = match StreamType::of(&s.name) {
                StreamType::Scene => {
                    let name = s.name.as_str();
                    StreamModel::Scene(SceneModel::decode(&tree, len, &dirs, saved_by, &mut ctx, |path, class| {
                        on_step(name, Some(path), Some(class))
                    }))
                }
                kind => StreamModel::Run(RunModel::decode(kind, &tree, len, &mut ctx)),
            };
            let mut claims = ctx.claims;
            claims.seal();
            out.streams.push(TypedStream { index, name: s.name.clone(), len, model, claims });
        }
        out
    }

    /// The Scene model.
    pub fn scene(&self) -> Option<&SceneModel> {
        self.streams.iter().find_map(|s| match &s.model {
            StreamModel::Scene(m) => Some(m),
            _ => None,
        })
    }

    /// The Scene model, mutable.
    pub fn scene_mut(&mut self) -> Option<&mut SceneModel> {
        self.streams.iter_mut().find_map(|s| match &mut s.model {
            StreamModel::Scene(m) => Some(m),
            _ => None,
        })
    }

    /// The stream called `name`.
    pub fn stream(&self, name: &str) -> Option<&TypedStream> {
        self.streams.iter().find(|s| s.name == name)
    }
}

impl TypedStream {
    /// Builds the stream from its typed state and the raw spans of `source` (the
    /// decoded bytes it was decoded from, or a copy with owned spans overwritten).
    pub fn build(&self, source: &[u8]) -> Result<Built, BuildError> {
        self.build_into(source, false)
    }

    /// Builds the stream as [`TypedStream::build`] would from [`TypedStream::scribbled`]
    /// `source`, without the copy: raw copies of owned bytes come out inverted. Needs the
    /// claims recorded at decode.
    pub(crate) fn build_proving(&self, source: &[u8]) -> Result<Built, BuildError> {
        self.build_into(source, true)
    }

    fn build_into(&self, source: &[u8], proof: bool) -> Result<Built, BuildError> {
        let mut bytes = Vec::with_capacity(source.len());
        let mut w = Writer::new(&self.name, &mut bytes);
        if proof {
            w = w.scribbling(self.claims.spans());
        }
        self.write(source, &mut w)?;
        let normalizations = std::mem::take(&mut w.normalizations);
        Ok(Built { bytes, normalizations })
    }

    /// True when the build from `source` (scribbled when `proof`, see
    /// [`TypedStream::build_proving`]) equals `source` byte for byte. Compares while it
    /// builds and keeps no output: the common case of T2 costs no copy of the stream.
    pub(crate) fn rebuilds_exactly(&self, source: &[u8], proof: bool) -> Result<bool, BuildError> {
        let mut w = Writer::comparing(&self.name, source);
        if proof {
            w = w.scribbling(self.claims.spans());
        }
        self.write(source, &mut w)?;
        Ok(w.matched())
    }

    fn write(&self, source: &[u8], w: &mut Writer<'_>) -> Result<(), BuildError> {
        match &self.model {
            StreamModel::Scene(m) => m.build(source, w),
            StreamModel::Run(m) => m.build(source, w),
        }
    }

    /// `source` with every owned span overwritten (each byte inverted, so none survives):
    /// what build must still turn back into the original bytes.
    pub fn scribbled(&self, source: &[u8]) -> Vec<u8> {
        let mut copy = source.to_vec();
        for Span { start, end } in self.claims.spans() {
            if let Some(bytes) = copy.get_mut(*start as usize..*end as usize) {
                bytes.iter_mut().for_each(|b| *b = !*b);
            }
        }
        copy
    }

    /// Share of this stream's bytes regenerated from typed state (0–1).
    pub(crate) fn coverage(&self) -> f64 {
        if self.len == 0 {
            0.0
        } else {
            self.claims.bytes() as f64 / self.len as f64
        }
    }
}

/// The saving release's major number from Max's document summary (`15.00` → 15), when the
/// summary is readable: the SceneImpl layout follows the Max that wrote the file.
fn saving_release_major(file: &MaxFile) -> Option<u32> {
    let release = crate::facts::doc_summary(file)?.general?.release?;
    release.split(['.', ',']).next()?.trim().parse().ok()
}
