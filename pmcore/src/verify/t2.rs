//! T2: the typed-model round trip of every chunk stream. Each stream is decoded into the
//! typed model and rebuilt from typed state (plus raw spans of what the model did not
//! type); the result must equal the decoded stream byte for byte, or differ only by a
//! whitelisted normalization ([`crate::model::normalize`]).
//!
//! The regeneration proof ([`Options::regeneration_proof`], for tests): between decode
//! and build every byte the model owns is overwritten in a copy of the stream, and build
//! reads raw spans from that copy — so a pass cannot come from re-emitting the original
//! bytes of a typed chunk.

use super::{first_mismatch, DegradedClass, Mismatch, StreamVerdict, Verdict};
use crate::chunk::{parse_stream, write_stream};
use crate::model::file::{StreamModel, TypedFile, TypedStream};
use crate::model::normalize;
use crate::model::scene::{ClassTally, TypedCounts};
use crate::MaxFile;

/// How to run T2.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Overwrite typed-owned bytes between decode and build (test-only proof).
    pub regeneration_proof: bool,
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

/// Runs T2 with default options (no regeneration proof).
pub fn run(file: &MaxFile, on_step: impl FnMut(&str, Option<&str>, Option<&str>)) -> T2Report {
    run_with(file, Options::default(), on_step)
}

/// Runs T2. `on_step(stream, chunk path, class)` runs before each stream and each Scene
/// object (the worker's breadcrumbs).
pub fn run_with(file: &MaxFile, opts: Options, on_step: impl FnMut(&str, Option<&str>, Option<&str>)) -> T2Report {
    let typed = TypedFile::decode(file, opts.regeneration_proof, on_step);
    report(file, &typed, opts)
}

/// Verdicts and inventory for a decoded file.
pub fn report(file: &MaxFile, typed: &TypedFile, opts: Options) -> T2Report {
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
    report
}

/// Counts of typed-owned chunks the coverage floor checks (Scene only).
pub fn typed_counts(typed: &TypedFile) -> TypedCounts {
    typed.scene().map(|s| s.typed_counts()).unwrap_or_default()
}

fn verify_stream(file: &MaxFile, s: &TypedStream, opts: Options) -> Verdict {
    let Ok(data) = file.data(s.index) else {
        return Verdict::Fail(Mismatch { kind: "decompress".into(), chunk_path: s.name.clone(), ..Default::default() });
    };
    let scribbled;
    let source: &[u8] = if opts.regeneration_proof {
        scribbled = s.scribbled(data);
        &scribbled
    } else {
        data
    };
    let built = match s.build(source) {
        Ok(b) => b,
        Err(e) => {
            return Verdict::Fail(Mismatch {
                kind: "typed-build".into(),
                chunk_path: s.name.clone(),
                message: e.to_string(),
                ..Default::default()
            })
        }
    };
    let degraded = degraded_classes(s);
    if built.bytes == data {
        return if degraded.is_empty() { Verdict::pass() } else { Verdict::Degraded { classes: degraded } };
    }
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
