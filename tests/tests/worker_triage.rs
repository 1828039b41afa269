//! Triage detectors through the real worker binary: on files assembled by hand from the
//! documented layouts (tests/src/fixtures.rs, never pmcore's writer), and a negative
//! check on every public file (none holds a Ryzom triage class; a DLL name alone must
//! not trigger one).

use pmtests::fixtures::{self, i32s, leaf, u32s, SceneBuilder};
use pmworker::events::{Event, Triage};
use serde_json::json;

const MAPEXT: [u32; 2] = [0x2ec82081, 0x045a6271];
const FLARE: [u32; 2] = [0x4e913532, 0x3c2f2307];

/// Runs the worker on `bytes` and returns its `triage` event; the run must pass (exit 0).
fn triage_of(bytes: &[u8]) -> Triage {
    let dir = tempfile::tempdir().unwrap();
    let path = fixtures::write_file(dir.path(), "fixture.max", bytes);
    let run = fixtures::run_worker(&path, &[]);
    assert_eq!(run.code, Some(0), "fixture must pass T1; stdout:\n{}\nstderr:\n{}", run.stdout, run.stderr);
    let events: Vec<Event> = run.lines().iter().map(|l| Event::from_line(l).expect("schema line")).collect();
    let triage: Vec<_> = events
        .into_iter()
        .filter_map(|e| match e {
            Event::Triage(t) => Some(t),
            _ => None,
        })
        .collect();
    assert_eq!(triage.len(), 1, "exactly one triage event");
    triage.into_iter().next().unwrap()
}

/// A ParamBlock2 parameter record: u16 id, u16 type, 11 descriptor bytes, inline value.
fn pb2_record(id: u16, kind: u16, value: u32) -> Vec<u8> {
    let mut p = id.to_le_bytes().to_vec();
    p.extend(kind.to_le_bytes());
    p.extend([0, 0, 0, 0, 0x82, 0, 0, 0, 0, 0, 0x40]);
    p.extend(value.to_le_bytes());
    leaf(0x000e, &p)
}

/// The flare's ParamBlock2 header: owner ClassId, owner superclass, 12 undecoded bytes.
fn pb2_owner() -> Vec<u8> {
    let mut p = u32s(&[FLARE[0], FLARE[1], 0x10]);
    p.extend([0u8; 12]);
    leaf(0x000b, &p)
}

/// Root node, a box with a Map Extender on its stack, a flare with FirstFlareKeepSize
/// set, and two biped systems of different figure eras.
fn ryzom_scene(keep_size_records: Vec<Vec<u8>>) -> SceneBuilder {
    let mut s = SceneBuilder::new();
    let mapext_dll = s.dll("Map extender plug-in", "mapext198m3.dlm");
    let biped_dll = s.dll("Biped Controller (Autodesk)", "biped.dlc");
    let root = s.class(-1, [2, 0], 1, "RootNode");
    let node = s.class(-1, [1, 0], 1, "Node");
    let mapext = s.class(mapext_dll, MAPEXT, 0x810, "Map Extender");
    let boxed = s.class(-1, [0x10, 0], 0x10, "Box");
    let flare = s.class(-2, FLARE, 0x10, "nel_flare");
    let pb2 = s.class(-1, [0x82, 0], 0x82, "ParamBlock2");
    let biped = s.class(biped_dll, [0x9155, 0], 0x60, "Biped");
    let biped_part = s.class(biped_dll, [0x9125, 0], 0x10, "Biped Object");

    let root_obj = s.object(root, &[leaf(0x0100, &i32s(&[0]))]);
    let base = s.object(boxed, &[leaf(0x0100, &u32s(&[1, 2, 3]))]);
    let modifier = s.object(mapext, &[leaf(0x0100, &u32s(&[7]))]);
    let derived = s.object(fixtures::ids::OSM_DERIVED, &[leaf(fixtures::ids::REFS, &i32s(&[base, modifier]))]);
    s.node(node, "Crate01", root_obj, derived);

    let mut pb2_children = vec![pb2_owner()];
    pb2_children.extend(keep_size_records);
    pb2_children.push(leaf(0x000c, &[0u8; 4]));
    let block = s.object(pb2, &pb2_children);
    let flare_obj = s.object(flare, &[leaf(fixtures::ids::REFS, &i32s(&[block]))]);
    s.node(node, "Flare01", root_obj, flare_obj);

    let legacy = s.object(biped, &[leaf(0x0115, &i32s(&[3])), leaf(0x0100, &u32s(&[9]))]);
    let fresh = s.object(biped, &[leaf(0x0115, &i32s(&[0]))]);
    let part = s.object(biped_part, &[leaf(0x2602, &[0u8; 24])]);
    s.node(node, "Bip01", root_obj, legacy);
    s.node(node, "Bip02", root_obj, fresh);
    s.node(node, "Bip01 Pelvis", root_obj, part);
    s
}

#[test]
fn mapext_flare_biped_and_era_are_detected_from_hand_built_chunks() {
    let records = vec![pb2_record(44, 4, 0), pb2_record(45, 4, 1), pb2_record(46, 4, 0)];
    let t = triage_of(&ryzom_scene(records).max_bytes());
    println!("{}", serde_json::to_string(&t).unwrap());
    for class in ["mapext", "flare", "biped"] {
        assert!(t.classes.iter().any(|c| c == class), "{class} in {:?}", t.classes);
    }
    assert_eq!(
        serde_json::to_value(&t.mapext).unwrap(),
        json!([{"node": "Crate01", "dll": "mapext198m3.dlm", "class_name": "Map Extender"}])
    );
    assert_eq!(serde_json::to_value(&t.flare).unwrap(), json!([{"node": "Flare01", "first_flare_keep_size": true}]));
    let biped = t.biped.expect("biped");
    assert_eq!(biped.systems, 2);
    assert_eq!(biped.figure_era, vec![Some(3), Some(0)]);
    assert!(t.unused_entries.is_empty(), "every entry is used: {:?}", t.unused_entries);
}

#[test]
fn flare_keep_size_false_is_read_and_an_unknown_record_is_unread() {
    let t = triage_of(&ryzom_scene(vec![pb2_record(45, 4, 0)]).max_bytes());
    assert_eq!(t.flare[0].first_flare_keep_size, json!(false));
    // Type code 2 is not a boolean: the record is not understood, so it is not guessed.
    let t = triage_of(&ryzom_scene(vec![pb2_record(45, 2, 1)]).max_bytes());
    assert_eq!(t.flare[0].first_flare_keep_size, json!("unread"));
    // No record 45 at all.
    let t = triage_of(&ryzom_scene(vec![pb2_record(44, 4, 1)]).max_bytes());
    assert_eq!(t.flare[0].first_flare_keep_size, json!("unread"));
}

#[test]
fn directory_entries_alone_trigger_nothing() {
    // biped.dlc and every biped/MapExt/flare class listed, none instantiated.
    let mut s = SceneBuilder::new();
    let biped_dll = s.dll("Biped Controller (Autodesk)", "biped.dlc");
    let mapext_dll = s.dll("Map extender plug-in", "mapext198m3.dlm");
    let root = s.class(-1, [2, 0], 1, "RootNode");
    let node = s.class(-1, [1, 0], 1, "Node");
    let boxed = s.class(-1, [0x10, 0], 0x10, "Box");
    for (i, id) in [[0x9155, 0], [0x9156, 0], [0x9154, 0], [0x9125, 0]].into_iter().enumerate() {
        s.class(biped_dll, id, 0x60, &format!("biped class {i}"));
    }
    s.class(mapext_dll, MAPEXT, 0x810, "Map Extender");
    s.class(-2, FLARE, 0x10, "nel_flare");
    // A lookalike: MapExt's ClassId under another superclass, instantiated.
    let lookalike = s.class(mapext_dll, MAPEXT, 0x820, "Not a modifier");
    let root_obj = s.object(root, &[leaf(0x0100, &i32s(&[0]))]);
    let base = s.object(boxed, &[leaf(0x0100, &u32s(&[1]))]);
    s.node(node, "Box01", root_obj, base);
    s.object(lookalike, &[]);

    let t = triage_of(&s.max_bytes());
    assert!(t.classes.iter().all(|c| !["mapext", "flare", "biped"].contains(&c.as_str())), "{:?}", t.classes);
    assert!(t.mapext.is_empty() && t.flare.is_empty() && t.biped.is_none());
    let unused: Vec<(&str, &str)> = t.unused_entries.iter().map(|e| (e.directory.as_str(), e.name.as_str())).collect();
    assert!(unused.contains(&("dll", "biped.dlc")), "{unused:?}");
    assert!(!unused.contains(&("dll", "mapext198m3.dlm")), "the lookalike uses it: {unused:?}");
    for name in ["biped class 0", "biped class 3", "Map Extender", "nel_flare"] {
        assert!(unused.contains(&("class", name)), "{name} unused: {unused:?}");
    }
}

#[test]
fn an_orphan_mapext_is_reported_by_object_index() {
    let mut s = SceneBuilder::new();
    let dll = s.dll("Map extender plug-in", "mapext198m3.dlm");
    let root = s.class(-1, [2, 0], 1, "RootNode");
    let mapext = s.class(dll, MAPEXT, 0x810, "Map Extender");
    s.object(root, &[leaf(0x0100, &i32s(&[0]))]);
    let orphan = s.object(mapext, &[]);
    let t = triage_of(&s.max_bytes());
    assert_eq!(t.mapext.len(), 1);
    assert_eq!(t.mapext[0].node, format!("object #{orphan}"));
}

#[test]
fn no_public_file_holds_a_triage_class() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let (mut checked, mut listing_biped_dll) = (0, 0);
    for path in pmtests::corpus_files(&corpus) {
        let bytes = std::fs::read(&path).unwrap();
        let run = fixtures::run_worker(&path, &[]);
        let triage = run
            .lines()
            .iter()
            .filter_map(|l| match Event::from_line(l) {
                Ok(Event::Triage(t)) => Some(t),
                _ => None,
            })
            .next()
            .unwrap_or_else(|| panic!("{}: no triage event", path.display()));
        let name = path.file_name().unwrap().to_string_lossy();
        assert!(triage.mapext.is_empty() && triage.flare.is_empty() && triage.biped.is_none(), "{name}: {triage:?}");
        assert!(
            !triage.classes.iter().any(|c| ["mapext", "flare", "biped"].contains(&c.as_str())),
            "{name}: {:?}",
            triage.classes
        );
        let utf16_biped_dlc: Vec<u8> = "biped.dlc".encode_utf16().flat_map(u16::to_le_bytes).collect();
        if bytes.windows(utf16_biped_dlc.len()).any(|w| w == utf16_biped_dlc.as_slice()) {
            listing_biped_dll += 1;
        }
        checked += 1;
    }
    println!("triage negative: {checked} public files, {listing_biped_dll} list biped.dlc uncompressed, none detected");
    assert_eq!(checked, pmtests::corpus_files(&corpus).len(), "every public file checked");
    assert!(listing_biped_dll > 0, "the corpus has DLL-name-only cases (corpus_facts.md)");
}
