//! T1: the chunk-layer round trip of every stream, then the envelope round trip of the
//! whole file (new compound file with the same names and CLSID, reopened, compared).
//!
//! A chunk stream is parsed and re-written from the tree and must reproduce its decoded
//! bytes exactly; the rewritten bytes (not the originals) go into the new envelope, so
//! the envelope check also covers the writer. Compressed streams keep their stored
//! compressed bytes in the envelope: re-compression is not guaranteed to be identical.

use super::{first_mismatch, Mismatch, StreamVerdict, Verdict};
use crate::chunk::{parse_stream, write_stream};
use crate::compression::Compression;
use crate::container;
use crate::maxfile::{MaxFile, StreamKind};
use std::borrow::Cow;

/// Pseudo-stream name of the root CLSID verdict.
pub const CLSID_STREAM: &str = "@clsid";
/// Pseudo-stream name of the stream-list verdict (names and order).
pub const STREAM_LIST: &str = "@streams";

/// Runs T1 on every stream, then the envelope; one verdict per stream plus `@clsid` and
/// `@streams`. `on_stream` is called before each stream (the worker's breadcrumb).
pub fn run(file: &MaxFile, mut on_stream: impl FnMut(&str)) -> Vec<StreamVerdict> {
    let mut verdicts = Vec::with_capacity(file.streams.len() + 2);
    let mut rewritten: Vec<Cow<'_, [u8]>> = Vec::with_capacity(file.streams.len());
    for (i, s) in file.streams.iter().enumerate() {
        on_stream(&s.name);
        let stored = &file.ole.streams[i].bytes;
        let (verdict, bytes) = chunk_round_trip(file, i);
        // Compressed streams go back as stored; others as the writer produced them.
        rewritten.push(if s.compression != Compression::None { Cow::Borrowed(stored.as_slice()) } else { bytes });
        verdicts.push(StreamVerdict { stream: s.name.clone(), verdict });
    }
    on_stream("@envelope");
    envelope_round_trip(file, &rewritten, &mut verdicts);
    verdicts
}

/// Parse → write → compare for stream `i`; returns the verdict and the bytes to put in
/// the new envelope.
fn chunk_round_trip(file: &MaxFile, i: usize) -> (Verdict, Cow<'_, [u8]>) {
    let s = &file.streams[i];
    let stored = file.ole.streams[i].bytes.as_slice();
    let data = match file.data(i) {
        Ok(d) => d,
        Err(e) => {
            let m = Mismatch {
                kind: "decompress".into(),
                chunk_path: s.name.clone(),
                message: format!("{}: {e}", s.name),
                ..Default::default()
            };
            return (Verdict::Fail(m), Cow::Borrowed(stored));
        }
    };
    match s.kind {
        StreamKind::Empty => (Verdict::Pass { note: Some("empty stream".into()) }, Cow::Borrowed(stored)),
        StreamKind::Opaque => {
            if s.expected_chunks() {
                let e = s.parse_error.as_ref().expect("opaque non-empty stream has a parse error");
                let m = Mismatch {
                    kind: "chunk-parse".into(),
                    chunk_path: e.path.0.clone(),
                    offset: e.offset,
                    message: format!("{e} (Max writes {} as a chunk tree)", s.name),
                    ..Default::default()
                };
                (Verdict::Fail(m), Cow::Borrowed(stored))
            } else {
                (
                    Verdict::Pass { note: Some("opaque stream, compared through the envelope".into()) },
                    Cow::Borrowed(stored),
                )
            }
        }
        StreamKind::Chunks => {
            let tree = match parse_stream(&s.name, data) {
                Ok(t) => t,
                Err(e) => {
                    let m = Mismatch {
                        kind: "chunk-parse".into(),
                        chunk_path: e.path.0.clone(),
                        offset: e.offset,
                        message: e.to_string(),
                        ..Default::default()
                    };
                    return (Verdict::Fail(m), Cow::Borrowed(stored));
                }
            };
            match write_stream(&tree) {
                Ok(out) => match first_mismatch(&s.name, "chunk-roundtrip", data, &out, Some(&tree)) {
                    None => (Verdict::pass(), Cow::Owned(out)),
                    Some(m) => (Verdict::Fail(m), Cow::Owned(out)),
                },
                Err(e) => {
                    let m = Mismatch {
                        kind: "chunk-write".into(),
                        chunk_path: s.name.clone(),
                        message: e.to_string(),
                        ..Default::default()
                    };
                    (Verdict::Fail(m), Cow::Borrowed(stored))
                }
            }
        }
    }
}

fn envelope_round_trip(file: &MaxFile, rewritten: &[Cow<'_, [u8]>], verdicts: &mut Vec<StreamVerdict>) {
    let names: Vec<&str> = file.ole.streams.iter().map(|s| s.name.as_str()).collect();
    let fail_all = |verdicts: &mut Vec<StreamVerdict>, kind: &str, message: String| {
        let m = Mismatch { kind: kind.into(), chunk_path: "@envelope".into(), message, ..Default::default() };
        verdicts.push(StreamVerdict { stream: CLSID_STREAM.into(), verdict: Verdict::Fail(m.clone()) });
        verdicts.push(StreamVerdict { stream: STREAM_LIST.into(), verdict: Verdict::Fail(m) });
    };
    let bytes = match container::write(&file.ole.clsid, names.iter().copied().zip(rewritten.iter().map(|b| b.as_ref())))
    {
        Ok(b) => b,
        Err(e) => return fail_all(verdicts, "envelope-write", e.to_string()),
    };
    let reopened = match container::open(&bytes) {
        Ok(f) => f,
        Err(e) => return fail_all(verdicts, "envelope-reopen", e.to_string()),
    };
    for (i, original) in file.ole.streams.iter().enumerate() {
        let found = reopened.stream(&original.name);
        let problem = match found {
            None => Some(Mismatch {
                kind: "envelope".into(),
                chunk_path: original.name.clone(),
                message: format!("{}: missing after the envelope rewrite", original.name),
                ..Default::default()
            }),
            Some(s) => first_mismatch(&original.name, "envelope", &original.bytes, &s.bytes, None),
        };
        if let Some(m) = problem {
            if !verdicts[i].verdict.is_fail() {
                verdicts[i].verdict = Verdict::Fail(m);
            }
        }
    }
    let clsid = if reopened.clsid == file.ole.clsid {
        Verdict::pass()
    } else {
        Verdict::Fail(Mismatch {
            kind: "envelope".into(),
            chunk_path: CLSID_STREAM.into(),
            expected_hex: super::hex_window(&file.ole.clsid, 0, 16),
            actual_hex: super::hex_window(&reopened.clsid, 0, 16),
            message: "root CLSID differs after the envelope rewrite".into(),
            ..Default::default()
        })
    };
    verdicts.push(StreamVerdict { stream: CLSID_STREAM.into(), verdict: clsid });
    let after: Vec<&str> = reopened.streams.iter().map(|s| s.name.as_str()).collect();
    let list = if after == names {
        Verdict::pass()
    } else {
        Verdict::Fail(Mismatch {
            kind: "envelope".into(),
            chunk_path: STREAM_LIST.into(),
            message: format!("stream list differs: {names:?} became {after:?}"),
            ..Default::default()
        })
    };
    verdicts.push(StreamVerdict { stream: STREAM_LIST.into(), verdict: list });
}
