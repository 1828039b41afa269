//! T1: the chunk-layer round trip of every stream, then the envelope round trip of the
//! whole file (new compound file with the same names and CLSID, reopened, compared).
//!
//! A chunk stream is parsed and re-written from the tree and must reproduce its decoded
//! bytes exactly (compressed streams: their decompressed content). The envelope is then
//! written from the stored bytes — equal to the rewritten ones wherever the chunk round
//! trip passed — and compressed streams keep their compressed bytes, since re-compression
//! is not guaranteed to be identical.

use super::{first_mismatch, Mismatch, StreamVerdict, Verdict};
use crate::chunk::{compare_stream, parse_stream, write_stream_into, Chunk, WriteError};
use crate::container::{self, StreamCheck};
use crate::maxfile::{MaxFile, StreamKind};
use crate::model::normalize;
use crate::parsed::ParsedStreams;

/// Pseudo-stream name of the root CLSID verdict.
pub(crate) const CLSID_STREAM: &str = "@clsid";
/// Pseudo-stream name of the stream-list verdict (names and order).
pub(crate) const STREAM_LIST: &str = "@streams";

/// Runs T1 on every stream, then the envelope; one verdict per stream plus `@clsid` and
/// `@streams`. `on_stream` is called before each stream (the worker's breadcrumb).
///
/// The envelope is written from the stored bytes: where the chunk round trip passed, the
/// rewritten bytes are equal to them, so this is the same input without keeping a second
/// copy of every stream; where it failed, the stream is already a failure.
pub fn run(file: &MaxFile, on_stream: impl FnMut(&str)) -> Vec<StreamVerdict> {
    run_inner(file, on_stream, None)
}

/// [`run`], keeping the tree of every stream that parsed, for T2 and the exporters to use
/// instead of parsing again ([`crate::parsed`]).
pub fn run_keeping_trees(file: &MaxFile, on_stream: impl FnMut(&str)) -> (Vec<StreamVerdict>, ParsedStreams<'_>) {
    let mut parsed = ParsedStreams::default();
    let verdicts = run_inner(file, on_stream, Some(&mut parsed));
    (verdicts, parsed)
}

fn run_inner<'f>(
    file: &'f MaxFile,
    mut on_stream: impl FnMut(&str),
    mut keep: Option<&mut ParsedStreams<'f>>,
) -> Vec<StreamVerdict> {
    let mut verdicts = Vec::with_capacity(file.streams.len() + 2);
    for (i, s) in file.streams.iter().enumerate() {
        on_stream(&s.name);
        verdicts
            .push(StreamVerdict { stream: s.name.clone(), verdict: chunk_round_trip(file, i, keep.as_deref_mut()) });
    }
    on_stream("@envelope");
    envelope_round_trip(file, &mut verdicts);
    verdicts
}

/// Parse → write → compare for stream `i`. The writer compares as it writes
/// ([`compare_stream`]): no second copy of the stream is held; only a mismatch is written
/// out, to report its hex window.
fn chunk_round_trip<'f>(file: &'f MaxFile, i: usize, keep: Option<&mut ParsedStreams<'f>>) -> Verdict {
    let s = &file.streams[i];
    let data = match file.data(i) {
        Ok(d) => d,
        Err(e) => {
            return Verdict::Fail(Mismatch {
                kind: e.kind().into(),
                chunk_path: s.name.clone(),
                message: format!("{}: {e}", s.name),
                ..Default::default()
            });
        }
    };
    match s.kind {
        StreamKind::Empty => Verdict::Pass { note: Some("empty stream".into()) },
        StreamKind::Opaque => {
            if s.expected_chunks() {
                let e = s.parse_error.as_ref().expect("opaque non-empty stream has a parse error");
                Verdict::Fail(Mismatch {
                    kind: "chunk-parse".into(),
                    chunk_path: e.path.0.clone(),
                    offset: e.offset,
                    message: format!("{e} (Max writes {} as a chunk tree)", s.name),
                    ..Default::default()
                })
            } else {
                Verdict::Pass { note: Some("opaque stream, compared through the envelope".into()) }
            }
        }
        StreamKind::Chunks => {
            let tree = match parse_stream(&s.name, data) {
                Ok(t) => t,
                Err(e) => {
                    return Verdict::Fail(Mismatch {
                        kind: "chunk-parse".into(),
                        chunk_path: e.path.0.clone(),
                        offset: e.offset,
                        message: e.to_string(),
                        ..Default::default()
                    });
                }
            };
            let written = match compare_stream(&s.name, &tree, data) {
                Ok(None) => None,
                Ok(Some(_)) => {
                    let mut out = Vec::new();
                    Some(write_stream_into(&s.name, &tree, &mut out).map(|()| out))
                }
                Err(e) => Some(Err(e)),
            };
            let verdict = match written {
                None => Verdict::pass(),
                Some(written) => round_trip_failure(&s.name, data, written, &tree),
            };
            if let Some(keep) = keep {
                keep.keep(i, tree);
            }
            verdict
        }
    }
}

/// The verdict of a chunk round trip that did not compare equal (or could not be written).
fn round_trip_failure(name: &str, data: &[u8], written: Result<Vec<u8>, WriteError>, tree: &[Chunk<'_>]) -> Verdict {
    match written {
        Ok(out) => match first_mismatch(name, "chunk-roundtrip", data, &out, Some(tree)) {
            None => Verdict::pass(),
            Some(m) => Verdict::Fail(m),
        },
        Err(e) => Verdict::Fail(Mismatch {
            kind: "chunk-write".into(),
            chunk_path: name.to_string(),
            message: e.to_string(),
            ..Default::default()
        }),
    }
}

fn envelope_round_trip(file: &MaxFile, verdicts: &mut Vec<StreamVerdict>) {
    let expected: Vec<(&str, &[u8])> = file.ole.streams.iter().map(|s| (s.name.as_str(), s.bytes.as_slice())).collect();
    let names: Vec<&str> = expected.iter().map(|(n, _)| *n).collect();
    let fail_all = |verdicts: &mut Vec<StreamVerdict>, kind: &str, message: String| {
        let m = Mismatch { kind: kind.into(), chunk_path: "@envelope".into(), message, ..Default::default() };
        verdicts.push(StreamVerdict { stream: CLSID_STREAM.into(), verdict: Verdict::Fail(m.clone()) });
        verdicts.push(StreamVerdict { stream: STREAM_LIST.into(), verdict: Verdict::Fail(m) });
    };
    let bytes = match container::write(&file.ole.clsid, expected.iter().copied()) {
        Ok(b) => b,
        Err(e) => return fail_all(verdicts, "envelope-write", e.to_string()),
    };
    let container::Reopened { clsid, checks, names: after } = match container::reopen_and_compare(&bytes, &expected) {
        Ok(r) => r,
        Err(e) => return fail_all(verdicts, "envelope-reopen", e.to_string()),
    };
    for (i, check) in checks.into_iter().enumerate() {
        let (name, original) = expected[i];
        let problem = match check {
            StreamCheck::Same => None,
            StreamCheck::Missing => Some(Mismatch {
                kind: "envelope".into(),
                chunk_path: name.to_string(),
                message: format!("{name}: missing after the envelope rewrite"),
                ..Default::default()
            }),
            StreamCheck::Differs(got) => first_mismatch(name, "envelope", original, &got, None),
        };
        if let Some(m) = problem {
            if !verdicts[i].verdict.is_fail() {
                verdicts[i].verdict = Verdict::Fail(m);
            }
        }
    }
    let clsid_verdict = if clsid == file.ole.clsid {
        Verdict::pass()
    } else {
        Verdict::Fail(Mismatch {
            kind: "envelope".into(),
            chunk_path: CLSID_STREAM.into(),
            expected_hex: super::hex_window(&file.ole.clsid, 0, 16),
            actual_hex: super::hex_window(&clsid, 0, 16),
            message: "root CLSID differs after the envelope rewrite".into(),
            ..Default::default()
        })
    };
    verdicts.push(StreamVerdict { stream: CLSID_STREAM.into(), verdict: clsid_verdict });
    let list = if after == names {
        Verdict::pass()
    } else if same_set(&names, &after) && !normalize::in_cfb_order(&names) {
        Verdict::Normalized { reason: normalize::DIRECTORY_RESORTED.to_string() }
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

/// Same names, ignoring order.
fn same_set(a: &[&str], b: &[String]) -> bool {
    let mut x: Vec<&str> = a.to_vec();
    let mut y: Vec<&str> = b.iter().map(String::as_str).collect();
    x.sort_unstable();
    y.sort_unstable();
    x == y
}

#[cfg(test)]
mod tests {
    use crate::model::normalize::in_cfb_order;

    #[test]
    fn cfb_order_is_length_then_upper_case() {
        assert!(in_cfb_order(&["Scene", "Config", "ClassData", "DllDirectory", "ClassDirectory3"]));
        assert!(!in_cfb_order(&["Scene", "Config", "ClassData", "DllDirectory\0\0\0", "SaveConfigData"]));
        assert!(in_cfb_order(&["abc", "ABD"]));
    }
}
