//! The bodies of the `cargo fuzz` targets, kept here so that CI replays the committed
//! regression corpus (`fuzz/regressions/<target>/`) through exactly the same code on the
//! stable toolchain. Each function must never panic on any input; properties that must
//! hold on valid input are asserted.

use pmcore::chunk::{parse_stream, write_stream};
use pmworker::emit::VecSink;
use pmworker::events::{Event, ExportKind, Tier, Timing};
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
        Options::asked(&[Tier::T1, Tier::T2], &[ExportKind::Obj, ExportKind::Skel, ExportKind::Summary], Vec::new());
    let mut sink = VecSink::default();
    run_bytes("fuzz.max", data, &opts, &mut sink, Timing::default());
    assert!(matches!(sink.events.last(), Some(Event::End(_))), "no end event");
}

/// Parameter-block and geometry-array decoders (ParamBlock2 records, headers, tables,
/// name lists; old ParamBlock; Editable Poly / Mesh arrays): never panic, and whatever
/// decodes re-encodes to exactly the input (the writer/reader pair of the typed model).
/// Parsed chunk trees go through the read-only block views and the Skin weight table
/// reader too.
pub fn param_block(data: &[u8]) {
    use pmcore::model::mesh_chunks::{Layout, MeshArray};
    use pmcore::model::paramblock::{ids, BlockLeaf, Param, ParamBlock, ParamBlock2};
    let same = |encode: &dyn Fn(&mut Vec<u8>), what: &str| {
        let mut out = Vec::new();
        encode(&mut out);
        assert_eq!(out, data, "{what}: decode → encode is not the identity");
    };
    for form in [ids::PARAM_000A, ids::PARAM_000E, ids::PARAM_100E, ids::PARAM_200E] {
        if let Some(p) = Param::decode(form, data) {
            same(&|o| p.encode(o), "param record");
        }
    }
    for id in [
        ids::HEADER,
        ids::HEADER_OWNER,
        ids::TABLE_000C,
        ids::TABLE_0012,
        ids::TABLE_0013,
        ids::NAMES_WIDE,
        ids::NAMES_NARROW,
    ] {
        if let Some(b) = BlockLeaf::decode(id, data) {
            same(&|o| b.encode(o), "block leaf");
        }
    }
    for layout in [
        Layout::Points,
        Layout::TriFaces,
        Layout::Triples,
        Layout::PolyVerts,
        Layout::PolyEdges,
        Layout::PolyFaces,
        Layout::Lists,
    ] {
        if let Some(m) = MeshArray::decode(layout, data) {
            same(&|o| m.encode(o), "mesh array");
        }
    }
    if let Ok(tree) = parse_stream("fuzz", data) {
        for c in &tree {
            let _ = ParamBlock2::of_object(c);
            let _ = ParamBlock::of_object(c);
            // The Skin weight table reader on any modifier data (never a panic).
            let _ = pmcore::model::skin::vertex_influences(c);
        }
    }
}

/// OLE property-set parser and the typed document summary on any bytes: never panics;
/// whatever parses types into sections without panicking either, and the summary T3 of a
/// file-less account skips every section rather than passing it.
pub fn property_set(data: &[u8]) {
    use pmcore::export::summary::{compare, SectionOutcome, SummaryError};
    if let Ok(sections) = pmcore::facts::property_set::parse(data) {
        let summary = pmcore::facts::doc_summary::DocSummary::from_sections(&sections);
        for v in compare(&summary, Err(&SummaryError::NoScene)) {
            assert!(matches!(v.outcome, SectionOutcome::Skip { .. }), "{v:?}");
        }
    }
}

/// `ase_reader`: any text after `*3DSMAX_ASCIIEXPORT ` through the ASE reader
/// (`pmref::ase`): a scene or a typed error, never a panic; a scene's rotation tracks hold
/// unit quaternions and every track as many values as key times. The same bytes as a glTF
/// document whose every buffer is those bytes exercise the glTF reader's accessor bounds, and
/// the `.3ds` keyframer reader takes them as they are.
pub fn ase_reader(data: &[u8]) {
    let mut bytes = b"*3DSMAX_ASCIIEXPORT ".to_vec();
    bytes.extend_from_slice(data);
    if let Ok(scene) = pmref::ase::read_scene(&bytes) {
        for t in scene.sampled.iter().flat_map(|s| &s.tracks) {
            assert_eq!(t.times.len(), t.values.len(), "a track with {} times", t.times.len());
            if t.path == pmref::scene::TrackPath::Rotation {
                for q in &t.values {
                    let n: f64 = q.iter().map(|v| v * v).sum();
                    assert!((n - 1.0).abs() < 1e-6 || !n.is_finite(), "rotation {q:?} not unit");
                }
            }
        }
    }
    let _ = pmref::gltf_file::read_scene(data, &|_| Some(data.to_vec()));
    let _ = pmref::three_ds::read_scene(data);
}

/// The reference readers (`pmref`: binary FBX records and scene, OBJ, `.x`): never panic;
/// the first byte picks the reader so one corpus reaches all three. FBX records that read
/// must write and read back to the same records.
pub fn reference_readers(data: &[u8]) {
    let Some((&which, rest)) = data.split_first() else { return };
    match which % 3 {
        0 => {
            let mut bytes = pmref::fbx::binary::MAGIC.to_vec();
            bytes.extend_from_slice(rest);
            if let Ok(doc) = pmref::fbx::binary::read(&bytes) {
                let again = pmref::fbx::binary::read(&pmref::fbx::binary::write(&doc)).expect("written records read");
                assert_eq!(again.nodes.len(), doc.nodes.len(), "record count changed through write");
                if let Ok(scene) = pmref::fbx::scene::scene_of(&doc) {
                    // The animation comparison's reads of the scene: poses at key times.
                    for i in 0..scene.nodes.len().min(8) {
                        for t in scene.key_times(i).into_iter().take(4) {
                            let _ = scene.matrix_at(i, t);
                        }
                    }
                }
            }
        }
        1 => {
            let _ = pmref::read_reference("obj", rest);
        }
        _ => {
            let mut bytes = b"xof 0303bin 0032".to_vec();
            bytes.extend_from_slice(rest);
            let _ = pmref::read_reference("x", &bytes);
        }
    }
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
/// Edit Mesh's MeshDelta replay (`pmcore::eval::edit_mesh`) over a 2 × 2 × 2-segment box:
/// the input parses as the records of a `0x2500 → 0x2512 → 0x4000` container. Never
/// panics; whatever applies indexes only its own vertices.
pub fn edit_mesh_delta(data: &[u8]) {
    use pmcore::chunk::Chunk;
    use pmcore::eval::edit_mesh::{apply, LOCAL_DATA, MESH_DELTA};
    use pmcore::eval::primitives::{box_mesh, BoxParams};
    let Ok(records) = parse_stream("fuzz", data) else { return };
    let app = Chunk::container(0x2500, vec![Chunk::container(LOCAL_DATA, vec![Chunk::container(MESH_DELTA, records)])]);
    let input =
        box_mesh(&BoxParams { length: 1.0, width: 1.0, height: 1.0, length_segs: 2, width_segs: 2, height_segs: 2 })
            .expect("a 2 × 2 × 2 box builds");
    if let Ok(out) = apply(Some(&app), input, true) {
        let n = out.positions.len() as u32;
        for p in &out.polygons {
            assert!(p.corners.iter().chain(p.triangles.iter().flatten()).all(|&v| v < n), "index past the vertices");
        }
    }
}

/// Biped system decoder (`pmcore::model::biped`) and figure-mode evaluator
/// (`pmcore::eval::biped`): the input parses as the leaf chunks of a 0x9155 object. Never
/// panics; a system that decodes places or refuses every bone slot it names, and each
/// placed bone is a rotation (orthonormal within float error) whenever its inputs are finite.
pub fn biped_system(data: &[u8]) {
    use pmcore::chunk::Chunk;
    use pmcore::eval::biped::FigurePose;
    use pmcore::model::biped::{BipedSystem, ObjectAt};
    let Ok(records) = parse_stream("fuzz", data) else { return };
    let object = Chunk::container(0x0014, records);
    let Ok(system) = BipedSystem::decode(&object, ObjectAt { root_id: 0x2017, storage_index: 1 }) else { return };
    let pose = FigurePose::new(&system);
    let slots = system.node_table.iter().map(|(slot, _)| *slot);
    let xtras = (0..system.xtras.len() as i32).flat_map(|k| [(200 + k, 0), (400 + k, 0)]);
    for (id, link) in slots.chain(xtras).chain([(12, 0), (11, 0), (8, 0), (16, 0), (10, 0)]) {
        let _ = system.node_of(id, link);
        if let Ok(r) = pose.bone(id, link).rotation {
            let cols = r.to_cols_array();
            if cols.iter().all(|v| v.is_finite()) {
                assert!(cols.iter().all(|v| v.abs() <= 1.0 + 1e-6), "bone ({id}, {link}) is not a rotation: {r:?}");
            }
        }
    }
}

/// The Biped keytrack decoder and the keyed evaluator: `data` is a 0x9155 object's chunk
/// list (seeds: `fuzz/regressions/biped_keytracks/`, a hand-made figure with keyed COM,
/// pelvis, right leg and spine). Any keytrack bytes decode or are refused with a typed error,
/// and every keyed bone placed is a rotation, at key times, between keys and outside them,
/// with and without the TCB in-between model.
pub fn biped_keytracks(data: &[u8]) {
    use pmcore::chunk::Chunk;
    use pmcore::eval::biped_keys::{keyed_bone, InBetween};
    use pmcore::model::biped::{BipedSystem, ObjectAt};
    let Ok(records) = parse_stream("fuzz", data) else { return };
    let object = Chunk::container(0x0014, records);
    let Ok(system) = BipedSystem::decode(&object, ObjectAt { root_id: 0x2017, storage_index: 1 }) else { return };
    let Ok(tracks) = system.keytracks.as_ref() else { return };
    let mut ticks: Vec<f64> = vec![-160.0, 0.0, 1e9];
    for t in tracks.tracks.iter().flat_map(|t| t.times.iter()) {
        ticks.extend([f64::from(t.tick), f64::from(t.tick) + 80.0]);
    }
    ticks.truncate(64);
    let bones = [(12, 0), (11, 0), (8, 0), (16, 0), (10, 0), (4, 0), (4, 1), (4, 2), (5, 0), (0, 1), (1, 2)];
    for tick in ticks {
        for mode in [InBetween::Refuse, InBetween::Tcb] {
            for bone in bones {
                let Ok(pose) = keyed_bone(&system, tick, bone, mode) else { continue };
                if let Ok(r) = pose.rotation {
                    let cols = r.to_cols_array();
                    if cols.iter().all(|v| v.is_finite()) {
                        assert!(cols.iter().all(|v| v.abs() <= 1.0 + 1e-6), "bone {bone:?} at {tick}: {r:?}");
                    }
                }
            }
        }
    }
}

pub const TARGETS: &[(&str, Body)] = &[
    ("chunk_parse", chunk_parse),
    ("header_forms", header_forms),
    ("ole_open", ole_open),
    ("typed_pipeline", typed_pipeline),
    ("param_block", param_block),
    ("property_set", property_set),
    ("reference_readers", reference_readers),
    ("ase_reader", ase_reader),
    ("nel_skel", nel_skel),
    ("nel_mesh", nel_mesh),
    ("nel_mesh_mrm_skinned", nel_mesh_mrm_skinned),
    ("nel_anim", nel_anim),
    ("nel_ig", nel_ig),
    ("edit_mesh_delta", edit_mesh_delta),
    ("biped_system", biped_system),
    ("biped_keytracks", biped_keytracks),
];
