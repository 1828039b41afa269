//! The bodies of the `cargo fuzz` targets, kept here so that CI replays the committed
//! regression corpus (`fuzz/regressions/<target>/`) through exactly the same code on the
//! stable toolchain. Each function must never panic on any input; properties that must
//! hold on valid input are asserted.

use pmcore::chunk::{parse_stream, write_stream};
use pmworker::emit::VecSink;
use pmworker::events::{Event, Tier, Timing};
use pmworker::pipeline::{run_bytes, Options};

/// Chunk-tree parse: whatever parses must write back to exactly the same bytes.
pub fn chunk_parse(data: &[u8]) {
    if let Ok(tree) = parse_stream("fuzz", data) {
        let out = write_stream(&tree).expect("a parsed tree always fits its own headers");
        assert_eq!(out, data, "parse → write is not the identity");
    }
}

/// The run-to-end header forms of Max 2024+ zstd streams: `data[0]` picks the form (Scene
/// root `u32 1` + `u64` all ones, or a 6-byte wrapper root of size `0xFFFF_FFFF`), the rest
/// follows the header. Whatever parses writes back to the same bytes, and the typed model
/// of a wrapped stream rebuilds them too.
pub fn header_forms(data: &[u8]) {
    use pmcore::model::part::Ctx;
    use pmcore::model::streams::{RunModel, StreamType};
    use pmcore::model::writer::Writer;
    let Some((&pick, rest)) = data.split_first() else { return };
    let (name, mut stream) = if pick & 1 == 0 {
        let mut h = vec![0x29, 0x20, 1, 0, 0, 0];
        h.extend_from_slice(&[0xFF; 8]);
        ("Scene_Compressed", h)
    } else {
        ("ClassDirectory3_Compressed", vec![0x04, 0x22, 0xFF, 0xFF, 0xFF, 0xFF])
    };
    stream.extend_from_slice(rest);
    let Ok(tree) = parse_stream(name, &stream) else { return };
    assert_eq!(write_stream(&tree).expect("a parsed tree writes"), stream, "parse → write is not the identity");
    let mut ctx = Ctx::new(name, true);
    let model = RunModel::decode(StreamType::of(name), &tree, stream.len() as u64, &mut ctx);
    let mut out = Vec::new();
    model.build(&stream, &mut Writer::new(name, &mut out)).expect("a decoded run builds");
    assert_eq!(out, stream, "typed rebuild of a wrapped stream differs");
}

/// OLE open + classify + facts + T1: never panics; T1 of a file whose streams all parse
/// must pass.
pub fn ole_open(data: &[u8]) {
    if let pmcore::Input::Ole(ole) = pmcore::classify(data) {
        let file = pmcore::MaxFile::new(ole);
        let _ = pmcore::facts::FileFacts::of(&file);
        let verdicts = pmcore::verify::t1::run(&file, |_| {});
        for v in verdicts {
            if let pmcore::verify::Verdict::Fail(m) = &v.verdict {
                assert!(
                    matches!(m.kind.as_str(), "chunk-parse" | "decompress" | "inflation-limit"),
                    "T1 round trip failed on a readable stream: {} {m:?}",
                    v.stream
                );
            }
        }
    }
}

/// The whole worker pipeline in process (T1, T2, triage, exports): never panics and
/// always ends with an `end` event.
pub fn typed_pipeline(data: &[u8]) {
    let opts =
        Options { tiers: vec![Tier::T1, Tier::T2], exports: vec!["obj".into(), "skel".into()], ..Options::default() };
    let mut sink = VecSink::default();
    run_bytes("fuzz.max", data, &opts, &mut sink, Timing::default());
    assert!(matches!(sink.events.last(), Some(Event::End(_))), "no end event");
}

/// NeL reader on `data` after `head`: never panics; whatever it reads (typed fields plus
/// opaque runs) writes back to exactly the same bytes.
fn nel_round_trip(head: &[u8], data: &[u8]) {
    let mut bytes = head.to_vec();
    bytes.extend_from_slice(data);
    if let Ok(parsed) = pmcore::nel::read(&bytes) {
        assert_eq!(pmcore::nel::write(&parsed.file), bytes, "NeL read → write is not the identity");
    }
}

/// A shape-stream head: `SHAP`, poly-pointer id 1, class name.
fn shape_head(class: &str) -> Vec<u8> {
    let mut head = b"SHAP".to_vec();
    head.extend_from_slice(&1u64.to_le_bytes());
    head.extend_from_slice(&(class.len() as u32).to_le_bytes());
    head.extend_from_slice(class.as_bytes());
    head
}

/// `CSkeletonShape` reader (and the strict `.skel` reader T3 uses).
pub fn nel_skel(data: &[u8]) {
    let head = shape_head("CSkeletonShape");
    nel_round_trip(&head, data);
    let mut bytes = head;
    bytes.extend_from_slice(data);
    if let Ok(s) = pmcore::nel::skel::read(&bytes) {
        assert_eq!(pmcore::nel::skel::write(&s), bytes, "strict skel read → write is not the identity");
    }
}

/// `CMesh` reader.
pub fn nel_mesh(data: &[u8]) {
    nel_round_trip(&shape_head("CMesh"), data);
}

/// `CMeshMRMSkinned` reader.
pub fn nel_mesh_mrm_skinned(data: &[u8]) {
    nel_round_trip(&shape_head("CMeshMRMSkinned"), data);
}

/// `CAnimation` reader.
pub fn nel_anim(data: &[u8]) {
    nel_round_trip(&pmcore::nel::anim::MAGIC, data);
}

/// `CInstanceGroup` reader.
pub fn nel_ig(data: &[u8]) {
    nel_round_trip(&pmcore::nel::ig::MAGIC, data);
}

/// A fuzz target body.
pub type Body = fn(&[u8]);

/// Target name → body, for the regression replay.
pub const TARGETS: &[(&str, Body)] = &[
    ("chunk_parse", chunk_parse),
    ("header_forms", header_forms),
    ("ole_open", ole_open),
    ("typed_pipeline", typed_pipeline),
    ("nel_skel", nel_skel),
    ("nel_mesh", nel_mesh),
    ("nel_mesh_mrm_skinned", nel_mesh_mrm_skinned),
    ("nel_anim", nel_anim),
    ("nel_ig", nel_ig),
];
