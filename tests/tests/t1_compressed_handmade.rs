//! Compression variants no real file shows, on files the test builds by hand: a
//! `Scene_Compressed` stream of `FF FF` + zstd frame whose Scene root has an *ordinary*
//! 6-byte header (the real Max 2024 files use the run-to-end form, checked on the real files
//! in `real_corpus_wild_pairs.rs`), a `Config` stored as a bare zstd frame (no `FF FF`; no
//! real file has one), and a gzip `Scene` (the Max 8/9 form, real ones are in the public
//! corpus). The kind and scheme are recognised by content, T1 compares the decompressed
//! content, and the rewritten envelope keeps the stored compressed bytes.

use pmcore::compression::{compress, Compression};
use pmcore::verify::{t1, Verdict};
use pmcore::{classify, facts::FileFacts, Input, MaxFile, StreamKind};

/// A small chunk tree written byte by byte (6-byte headers), not by pmcore's writer.
fn scene_bytes() -> Vec<u8> {
    let mut leaf = vec![0x62, 0x09, 12, 0, 0, 0]; // 0x0962 leaf, 6 + 6 bytes
    leaf.extend_from_slice(&[b'B', 0, b'o', 0, b'x', 0]);
    let mut object = vec![0x05, 0x00];
    object.extend_from_slice(&((6 + leaf.len()) as u32 | 0x8000_0000).to_le_bytes());
    object.extend(leaf);
    let mut root = vec![0x12, 0x20];
    root.extend_from_slice(&((6 + object.len()) as u32 | 0x8000_0000).to_le_bytes());
    root.extend(object);
    root
}

fn file_with(streams: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let clsid = [0x7B, 0x8C, 0xDD, 0x1C, 0xC0, 0x81, 0xA0, 0x45, 0x9F, 0xED, 0x04, 0x14, 0x31, 0x44, 0xCC, 0x1E];
    pmcore::container::write(&clsid, streams.iter().map(|(n, b)| (*n, b.as_slice()))).unwrap()
}

#[test]
fn zstd_and_gzip_streams_are_recognised_by_content_and_pass_t1() {
    let scene = scene_bytes();
    let cases = [
        ("Scene_Compressed", Compression::Zstd { offset: 2 }, "zstd"),
        ("Config", Compression::Zstd { offset: 0 }, "zstd"),
        ("Scene", Compression::Gzip, "gzip"),
    ];
    for (name, scheme, label) in cases {
        let stored = compress(&scene, scheme);
        let bytes = file_with(&[(name, stored.clone()), ("\u{5}SummaryInformation", b"opaque".to_vec())]);
        let Input::Ole(ole) = classify(&bytes) else { panic!("{name}: not OLE") };
        let file = MaxFile::new(ole);
        let i = file.index_of(name).unwrap();
        assert_eq!(file.streams[i].compression, scheme, "{name}");
        assert_eq!(file.streams[i].kind, StreamKind::Chunks, "{name}");
        assert_eq!(file.data(i).unwrap(), scene.as_slice(), "{name}: decompressed content");
        let facts = FileFacts::of(&file);
        assert_eq!(facts.compression, vec![label.to_string()], "{name}");
        assert_eq!(facts.streams[i].decoded_bytes, scene.len() as u64);
        let verdicts = t1::run(&file, |_| {});
        for v in &verdicts {
            assert!(matches!(v.verdict, Verdict::Pass { .. }), "{name}: {} {:?}", v.stream, v.verdict);
        }
        // The file rewrite keeps the original compressed bytes.
        let rewritten = pmcore::container::write_file(&file.ole).unwrap();
        let again = pmcore::container::open(&rewritten).unwrap();
        assert_eq!(again.stream(name).unwrap().bytes, stored, "{name}: stored bytes kept");
    }
}

#[test]
fn corrupt_zstd_frame_fails_t1_with_decompress_kind() {
    let mut stored = compress(&scene_bytes(), Compression::Zstd { offset: 2 });
    stored.truncate(stored.len() - 4);
    let bytes = file_with(&[("Scene_Compressed", stored)]);
    let Input::Ole(ole) = classify(&bytes) else { panic!("not OLE") };
    let file = MaxFile::new(ole);
    let verdicts = t1::run(&file, |_| {});
    let v = verdicts.iter().find(|v| v.stream == "Scene_Compressed").unwrap();
    match &v.verdict {
        Verdict::Fail(m) => {
            assert_eq!(m.kind, "decompress");
            assert_eq!(m.chunk_path, "Scene_Compressed");
        }
        other => panic!("expected a decompress failure, got {other:?}"),
    }
}
