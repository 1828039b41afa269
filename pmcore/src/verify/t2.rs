//! T2: the typed-model round trip of every chunk stream. Each stream is decoded into the
//! typed model and rebuilt from typed state (plus raw spans of what the model did not
//! type); the result must equal the decoded stream byte for byte, or differ only by a
//! whitelisted normalization ([`crate::model::normalize`]).
//!
//! The regeneration proof ([`Options::regeneration_proof`], on by default): every byte the
//! model owns reads as inverted when build copies raw spans of the source — as if build
//! read a scribbled copy of the stream, without the copy — so a pass cannot come from
//! re-emitting the original bytes of a typed chunk.
//!
//! The rebuild is compared with the decoded stream while it is produced
//! ([`TypedStream::rebuilds_exactly`]); only a stream that differs is built again into a
//! buffer, for the normalization check and the first mismatch.

use super::{first_mismatch, DegradedClass, Mismatch, StreamVerdict, Verdict};
use crate::chunk::{parse_stream, write_stream};
use crate::model::file::{StreamModel, TypedFile, TypedStream};
use crate::model::normalize;
use crate::model::scene::ClassTally;
use crate::parsed::ParsedStreams;
use crate::MaxFile;

/// How to run T2.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Typed-owned bytes read as scribbled during build (the regeneration proof). On by
    /// default; off only to measure what the proof costs.
    pub regeneration_proof: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { regeneration_proof: true }
    }
}

/// Typed coverage of one stream.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StreamCoverage {
    /// Stream name.
    pub stream: String,
    /// Bytes regenerated from typed state.
    pub typed_bytes: u64,
    /// Decoded stream bytes.
    pub bytes: u64,
}

/// Everything T2 learned about a file.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct T2Report {
    /// One verdict per chunk stream.
    pub streams: Vec<StreamVerdict>,
    /// Scene classes with typed / generic / degraded counts.
    pub inventory: Vec<ClassTally>,
    /// Share of Scene bytes regenerated from typed state (0–1).
    pub typed_coverage: f64,
    /// Coverage per chunk stream.
    pub coverage: Vec<StreamCoverage>,
    /// Scene objects decoded / kept generic / degraded.
    pub objects: ObjectCounts,
    /// Non-fatal observations about the Scene.
    pub notes: Vec<String>,
}

/// Object totals over the Scene.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ObjectCounts {
    /// Decoded objects.
    pub typed: u64,
    /// Generic (raw) objects.
    pub generic: u64,
    /// Degraded objects.
    pub degraded: u64,
}

/// Runs T2 with default options (regeneration proof on).
pub fn run(file: &MaxFile, on_step: impl FnMut(&str, Option<&str>, Option<&str>)) -> T2Report {
    run_with(file, Options::default(), on_step)
}

/// Runs T2. `on_step(stream, chunk path, class)` runs before each stream and each Scene
/// object (the worker's breadcrumbs).
pub fn run_with(file: &MaxFile, opts: Options, on_step: impl FnMut(&str, Option<&str>, Option<&str>)) -> T2Report {
    run_parsed(file, &ParsedStreams::default(), opts, on_step)
}

/// [`run_with`] on the trees T1 kept ([`crate::verify::t1::run_keeping_trees`]): each
/// stream is decoded from its tree instead of being parsed again.
pub fn run_parsed<'f>(
    file: &'f MaxFile,
    parsed: &ParsedStreams<'f>,
    opts: Options,
    on_step: impl FnMut(&str, Option<&str>, Option<&str>),
) -> T2Report {
    let typed = TypedFile::decode_parsed(file, parsed, opts.regeneration_proof, on_step);
    report(file, &typed, opts)
}

/// Verdicts and inventory for a decoded file.
pub(crate) fn report(file: &MaxFile, typed: &TypedFile, opts: Options) -> T2Report {
    let mut report = T2Report::default();
    for s in &typed.streams {
        let verdict = verify_stream(file, s, opts);
        report.streams.push(StreamVerdict { stream: s.name.clone(), verdict });
        report.coverage.push(StreamCoverage { stream: s.name.clone(), typed_bytes: s.claims.bytes(), bytes: s.len });
        if let StreamModel::Scene(scene) = &s.model {
            report.inventory = scene.inventory();
            report.typed_coverage = s.coverage();
            report.notes = scene.notes.clone();
            for t in &report.inventory {
                report.objects.typed += t.typed;
                report.objects.generic += t.generic;
                report.objects.degraded += t.degraded;
            }
        }
    }
    // A chunk stream that decode could not open still gets a verdict.
    for (i, s) in file.streams.iter().enumerate() {
        if s.kind == crate::StreamKind::Chunks && !typed.streams.iter().any(|t| t.index == i) {
            let m = Mismatch {
                kind: "typed-decode".into(),
                chunk_path: s.name.clone(),
                message: format!("{}: the chunk stream could not be read again for T2", s.name),
                ..Default::default()
            };
            report.streams.push(StreamVerdict { stream: s.name.clone(), verdict: Verdict::Fail(m) });
        }
    }
    // A `.max` whose Scene is missing, empty or not a chunk tree has nothing for the typed
    // model to prove: that is a T2 failure, never a quiet pass over the other streams.
    if !typed.streams.iter().any(|s| matches!(s.model, StreamModel::Scene(_))) {
        let (kind, message) = match file.index_of("Scene") {
            None => ("missing-scene", "the file has no Scene stream".to_string()),
            Some(i) => match file.streams[i].kind {
                crate::StreamKind::Empty => ("missing-scene", "the Scene stream is empty".to_string()),
                _ => (
                    "missing-scene",
                    "the Scene stream has no typed scene (not a chunk tree with a root container)".to_string(),
                ),
            },
        };
        if !report.streams.iter().any(|v| v.stream == "Scene" && v.verdict.is_fail()) {
            report.streams.retain(|v| v.stream != "Scene");
            let m = Mismatch { kind: kind.into(), chunk_path: "Scene".into(), message, ..Default::default() };
            report.streams.push(StreamVerdict { stream: "Scene".into(), verdict: Verdict::Fail(m) });
        }
    }
    report
}

fn verify_stream(file: &MaxFile, s: &TypedStream, opts: Options) -> Verdict {
    let data = match file.data(s.index) {
        Ok(data) => data,
        Err(e) => {
            return Verdict::Fail(Mismatch { kind: e.kind().into(), chunk_path: s.name.clone(), ..Default::default() })
        }
    };
    let build_failed = |e: crate::model::writer::BuildError| {
        Verdict::Fail(Mismatch {
            kind: "typed-build".into(),
            chunk_path: s.name.clone(),
            message: e.to_string(),
            ..Default::default()
        })
    };
    let proof = opts.regeneration_proof;
    match s.rebuilds_exactly(data, proof) {
        Ok(true) => {
            let degraded = degraded_classes(s);
            return if degraded.is_empty() { Verdict::pass() } else { Verdict::Degraded { classes: degraded } };
        }
        Ok(false) => {}
        Err(e) => return build_failed(e),
    }
    // It differs: build it for the normalization check and the first mismatch.
    let built = match if proof { s.build_proving(data) } else { s.build(data) } {
        Ok(b) => b,
        Err(e) => return build_failed(e),
    };
    let tree = parse_stream(&s.name, data).ok();
    if !built.normalizations.is_empty() && built.normalizations.iter().all(|(r, _)| normalize::WHITELIST.contains(r)) {
        let expected = tree.as_deref().map(normalize::expected_scene).and_then(|t| write_stream(&t).ok());
        if expected.as_deref() == Some(built.bytes.as_slice()) {
            let reason = built.normalizations.iter().map(|(r, n)| format!("{r} (×{n})")).collect::<Vec<_>>().join("; ");
            return Verdict::Normalized { reason };
        }
    }
    Verdict::Fail(first_mismatch(&s.name, "typed-roundtrip", data, &built.bytes, tree.as_deref()).unwrap_or_default())
}

fn degraded_classes(s: &TypedStream) -> Vec<DegradedClass> {
    match &s.model {
        StreamModel::Scene(scene) => scene
            .degraded()
            .map(|(c, surprise)| DegradedClass {
                class_id: c.resolved.as_ref().map_or([0, 0], |r| r.class_id),
                superclass: c.resolved.as_ref().map_or(0, |r| r.superclass),
                name: c.name(),
                reason: surprise.reason.clone(),
                chunk_path: surprise.chunk_path.clone(),
            })
            .collect(),
        StreamModel::Run(run) => run
            .degraded
            .iter()
            .map(|d| DegradedClass {
                class_id: [0, 0],
                superclass: 0,
                name: d.name.to_string(),
                reason: d.surprise.reason.clone(),
                chunk_path: d.surprise.chunk_path.clone(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::container;

    fn leaf(id: u16, payload: &[u8]) -> Vec<u8> {
        let mut v = id.to_le_bytes().to_vec();
        v.extend_from_slice(&(6 + payload.len() as u32).to_le_bytes());
        v.extend_from_slice(payload);
        v
    }

    fn cont(id: u16, children: &[Vec<u8>]) -> Vec<u8> {
        let body = children.concat();
        let mut v = id.to_le_bytes().to_vec();
        v.extend_from_slice(&((6 + body.len() as u32) | 0x8000_0000).to_le_bytes());
        v.extend(body);
        v
    }

    fn file_with_scene(scene: &[u8]) -> MaxFile {
        let header: Vec<u8> = [u32::MAX, 0x2007, 0, 0x9003].iter().flat_map(|v| v.to_le_bytes()).collect();
        let classes = cont(0x2040, &[leaf(0x2060, &header), leaf(0x2042, &[0x42, 0])]);
        let streams: [(&str, &[u8]); 2] = [("Scene", scene), ("ClassDirectory3", &classes)];
        let bytes = container::write(&[0; 16], streams).unwrap();
        MaxFile::new(container::open(&bytes).unwrap())
    }

    #[test]
    fn empty_appdata_gives_normalized_with_its_reason() {
        let empty = cont(0x2150, &[leaf(0x0100, &[0; 4])]);
        let file = file_with_scene(&cont(0x2012, &[cont(0x0000, &[leaf(0x2034, &[]), empty])]));
        let report = run_with(&file, Options { regeneration_proof: true }, |_, _, _| {});
        let scene = report.streams.iter().find(|v| v.stream == "Scene").unwrap();
        assert_eq!(scene.verdict, Verdict::Normalized { reason: format!("{} (×1)", normalize::EMPTY_APPDATA_DROPPED) });
        assert_eq!(report.streams.iter().find(|v| v.stream == "ClassDirectory3").unwrap().verdict, Verdict::pass());
        assert_eq!(report.inventory[0].name, "B");
        assert_eq!((report.objects.typed, report.objects.generic, report.objects.degraded), (1, 0, 0));
    }

    #[test]
    fn decoding_from_the_trees_t1_kept_reports_what_parsing_again_does() {
        let empty = cont(0x2150, &[leaf(0x0100, &[0; 4])]);
        let file = file_with_scene(&cont(0x2012, &[cont(0x0000, &[leaf(0x2034, &[]), empty]), leaf(0x0001, &[9])]));
        let (t1, parsed) = crate::verify::t1::run_keeping_trees(&file, |_| {});
        assert_eq!(t1, crate::verify::t1::run(&file, |_| {}));
        assert_eq!(parsed.len(), 2, "Scene and ClassDirectory3");
        let mut steps = (Vec::new(), Vec::new());
        let again = run_with(&file, Options::default(), |s, p, _| steps.0.push((s.to_string(), p.map(str::to_string))));
        let kept = run_parsed(&file, &parsed, Options::default(), |s, p, _| {
            steps.1.push((s.to_string(), p.map(str::to_string)))
        });
        assert_eq!(kept, again);
        assert_eq!(steps.0, steps.1);
        let scene = crate::model::scene_index::SceneTrees::from_parsed(&file, parsed).expect("Scene is a tree");
        assert_eq!(scene.index().map(|i| i.objects.len()), Some(2));
    }

    #[test]
    fn a_degraded_object_gives_degraded_with_class_reason_and_path() {
        let file = file_with_scene(&cont(0x2012, &[cont(0x0000, &[leaf(0x2034, &[1, 2])])]));
        let report = run(&file, |_, _, _| {});
        let scene = report.streams.iter().find(|v| v.stream == "Scene").unwrap();
        let Verdict::Degraded { classes } = &scene.verdict else { panic!("{:?}", scene.verdict) };
        assert_eq!(classes.len(), 1);
        assert_eq!((classes[0].class_id, classes[0].superclass, classes[0].name.as_str()), ([0x2007, 0], 0x9003, "B"));
        assert_eq!(classes[0].chunk_path, "Scene/0x2012/[0]0x0000/[0]0x2034");
        assert!(classes[0].reason.contains("2 bytes"), "{}", classes[0].reason);
    }
}
