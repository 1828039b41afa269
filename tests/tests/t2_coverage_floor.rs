//! Coverage floor of the typed model on every public file: every DllDirectory and
//! ClassDirectory3 entry, every AppData container, every 0x2034/0x2035 reference chunk,
//! every NodeImpl version/parent/name chunk, every ParamBlock2 parameter record and old
//! ParamBlock parameter, and every Editable Poly / Editable Mesh geometry array (vertices,
//! edges, faces, per-vertex lists, map vertices and faces) is owned by the typed model — its whole
//! byte span lies inside the spans the model claims, so the regeneration proof
//! overwrites it and build must regenerate it. The expected set is tallied here by
//! walking the raw chunk tree and reading ClassDirectory3 by hand, not by the model.

use pmcore::chunk::{encoded_len, parse_stream, Chunk};
use pmcore::model::file::TypedFile;
use pmcore::model::part::Span;
use pmcore::{classify, Input, MaxFile};
use std::collections::BTreeMap;

/// Span of a chunk in its stream.
fn span_of(c: &Chunk<'_>) -> Span {
    let start = c.offset.expect("parsed chunks carry offsets");
    Span { start, end: start + encoded_len(std::slice::from_ref(c)) }
}

/// True when `span` lies inside the union of `claims` (disjoint, sorted by start).
fn covered(claims: &[Span], span: Span) -> bool {
    let first = claims.partition_point(|c| c.end <= span.start);
    let mut at = span.start;
    for c in claims[first..].iter().take_while(|c| c.start < span.end) {
        if c.start > at {
            return false;
        }
        at = at.max(c.end);
        if at >= span.end {
            return true;
        }
    }
    at >= span.end
}

/// (ClassId, SuperClassId) per ClassDirectory3 index, read straight from the bytes.
fn classes_by_hand(file: &MaxFile) -> Vec<([u32; 2], u32)> {
    let tree = file.tree_of("ClassDirectory3").expect("every public file has ClassDirectory3");
    tree.iter()
        .filter(|c| c.id == 0x2040)
        .map(|e| {
            let h = e.child(0x2060).and_then(|h| h.payload()).expect("entry header");
            let u = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap());
            ([u(4), u(8)], u(12))
        })
        .collect()
}

#[test]
fn every_directory_entry_appdata_reference_and_node_chunk_is_typed_and_regenerated() {
    let Some(corpus) = pmtests::public_corpus() else {
        return;
    };
    let mut totals: BTreeMap<&str, u64> = BTreeMap::new();
    let mut missing = Vec::new();
    for path in pmtests::corpus_files(&corpus) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&path).unwrap();
        let Input::Ole(ole) = classify(&data) else { continue };
        let file = MaxFile::new(ole);
        let typed = TypedFile::decode(&file, true, |_, _, _| {});
        let classes = classes_by_hand(&file);
        // (stream, kind, chunk) to check, tallied from the raw trees.
        let mut expected: Vec<(&str, &'static str, Span)> = Vec::new();
        let trees: Vec<(&str, Vec<Chunk<'_>>)> = ["DllDirectory", "ClassDirectory3", "Scene"]
            .into_iter()
            .map(|s| (s, parse_stream(s, file.data(file.index_of(s).unwrap()).unwrap()).unwrap()))
            .collect();
        for (stream, tree) in &trees {
            match *stream {
                "DllDirectory" => tree
                    .iter()
                    .filter(|c| c.id == 0x2038)
                    .for_each(|c| expected.push((stream, "dll entry", span_of(c)))),
                "ClassDirectory3" => tree
                    .iter()
                    .filter(|c| c.id == 0x2040)
                    .for_each(|c| expected.push((stream, "class entry", span_of(c)))),
                _ => {
                    for object in tree[0].children() {
                        let class = classes.get(object.id as usize);
                        let is_node = class == Some(&([1, 0], 1));
                        let is_pb2 = class == Some(&([0x82, 0], 0x82));
                        let is_pb = class == Some(&([8, 0], 8));
                        let is_poly = class == Some(&([0x1bf8_338d, 0x192f_6098], 0x10));
                        let is_tri = class == Some(&([0xe44f_10b3, 0], 0x10));
                        for c in object.children() {
                            let kind = match c.id {
                                0x2150 => "appdata",
                                0x2034 => "refs 0x2034",
                                0x2035 => "refs 0x2035",
                                0x09ce if is_node => "node version",
                                0x0960 if is_node => "node parent",
                                0x0962 if is_node => "node name",
                                0x000a | 0x000e | 0x100e | 0x200e if is_pb2 => "pb2 record",
                                0x0009 | 0x000b if is_pb2 => "pb2 header",
                                0x0002 if is_pb => "paramblock parameter",
                                0x08fe if is_poly || is_tri => {
                                    let arrays: &[u16] = if is_poly {
                                        &[0x0100, 0x010a, 0x011a, 0x0310, 0x012b, 0x0128]
                                    } else {
                                        &[0x0914, 0x0912, 0x2394, 0x2396]
                                    };
                                    let kind = if is_poly { "poly array" } else { "tri array" };
                                    c.children()
                                        .iter()
                                        .filter(|a| arrays.contains(&a.id))
                                        .for_each(|a| expected.push((stream, kind, span_of(a))));
                                    continue;
                                }
                                _ => continue,
                            };
                            expected.push((stream, kind, span_of(c)));
                        }
                    }
                }
            }
        }
        let claims_of = |stream: &str| {
            let mut claims = typed.stream(stream).expect("decoded").claims.spans().to_vec();
            claims.sort_by_key(|s| s.start);
            claims
        };
        let claims: BTreeMap<&str, Vec<Span>> = trees.iter().map(|(s, _)| (*s, claims_of(s))).collect();
        for (stream, kind, span) in expected {
            *totals.entry(kind).or_default() += 1;
            if !covered(&claims[stream], span) {
                missing.push(format!("{name}: {stream} {kind} at {}..{} is not typed-owned", span.start, span.end));
            }
        }
    }
    println!("coverage floor, chunks checked over the public corpus: {totals:?}");
    assert!(missing.is_empty(), "{} chunks not typed-owned:\n{}", missing.len(), missing.join("\n"));
    for kind in [
        "dll entry",
        "class entry",
        "appdata",
        "refs 0x2034",
        "refs 0x2035",
        "node name",
        "pb2 record",
        "pb2 header",
        "paramblock parameter",
        "poly array",
        "tri array",
    ] {
        assert!(totals.get(kind).copied().unwrap_or(0) > 0, "the corpus holds {kind} chunks; the tally found none");
    }
}
