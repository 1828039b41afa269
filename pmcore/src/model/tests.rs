//! Unit tests of the typed classes from hand-made chunks: every byte below is written
//! here from the documented layouts (digest §3–§5), never by the code under test. Each
//! case checks the exact rebuild twice — from the source and from a copy whose typed
//! bytes were overwritten (the regeneration proof) — and what the model understood.

use super::appdata::AppDataKey;
use super::directory::{ClassEntry, Directories, DllEntry};
use super::file::{StreamModel, TypedStream};
use super::normalize;
use super::part::{Ctx, Part};
use super::references::References;
use super::registry::Resolution;
use super::scene::{ObjectBody, ObjectState, SceneModel};
use super::streams::{RunModel, StreamType};
use crate::chunk::{parse_stream, write_stream};

fn leaf(id: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = id.to_le_bytes().to_vec();
    v.extend_from_slice(&(6 + payload.len() as u32).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

fn long_leaf(id: u16, payload: &[u8]) -> Vec<u8> {
    let mut v = id.to_le_bytes().to_vec();
    v.extend_from_slice(&0u32.to_le_bytes());
    v.extend_from_slice(&(14 + payload.len() as u64).to_le_bytes());
    v.extend_from_slice(payload);
    v
}

fn cont(id: u16, children: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = children.concat();
    let mut v = id.to_le_bytes().to_vec();
    v.extend_from_slice(&((6 + body.len() as u32) | 0x8000_0000).to_le_bytes());
    v.extend(body);
    v
}

fn u32s(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn i32s(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

fn appdata_entry(key: [u32; 4], value: &[u8]) -> Vec<u8> {
    let mut k = u32s(&key);
    k.extend_from_slice(&(value.len() as u32).to_le_bytes());
    cont(0x0110, &[leaf(0x0120, &k), leaf(0x0130, value)])
}

/// Class directory: 0 NodeImpl, 1 Layer Output (0x9003, a class typed only by its superclass), 2 Depth of Field (0x1190,
/// unregistered), 3 SceneImpl, 4 TrackViewNode, 5 PRS, 6 ParamBlock2, 7 ParamBlock,
/// 8 Editable Poly, 9 Editable Mesh.
fn dirs() -> Directories {
    let entry =
        |class_id, superclass, name: &str| ClassEntry { dll_index: -1, class_id, superclass, name: name.into() };
    Directories {
        dlls: vec![DllEntry { description: "d".into(), file: "f.dlo".into() }],
        classes: vec![
            entry([1, 0], 1, "Node"),
            entry([0x5b6e_7ba7, 0x692e_4477], 0x9003, "Layer Output"),
            entry([0x3a41_6a2d, 0x1f2e_2a6c], 0x1190, "Depth of Field"),
            entry([0x2222, 0], 0x100, "Scene"),
            entry([0x8d73_b8aa, 0x90f2_ee71], 0x200, "Track View Node"),
            entry([0x2005, 0], 0x9008, "Position/Rotation/Scale"),
            entry([0x82, 0], 0x82, "ParamBlock2"),
            entry([8, 0], 8, "ParamBlock"),
            entry([0x1bf8_338d, 0x192f_6098], 0x10, "Editable Poly"),
            entry([0xe44f_10b3, 0], 0x10, "Editable Mesh"),
        ],
        malformed: Vec::new(),
    }
}

fn node(name: &str, parent: u32, extra_first: Vec<Vec<u8>>) -> Vec<u8> {
    let mut kids = extra_first;
    kids.push(leaf(0x2034, &i32s(&[-1, 2, 0, -1]))); // slot 1 → object 2; trailing −1, literal 0
    kids.push(leaf(0x204B, &[0x2E]));
    kids.push(leaf(0x09ce, &u32s(&[15])));
    kids.push(leaf(0x0960, &u32s(&[parent, 0x10])));
    kids.push(long_leaf(0x0962, &utf16(name)));
    cont(0x0000, &kids)
}

fn scene_impl(slots: usize) -> Vec<u8> {
    let refs: Vec<i32> = (0..slots as i32).map(|s| s + 1).collect();
    cont(0x0003, &[leaf(0x2034, &i32s(&refs))])
}

/// A Max 2010 Scene (version 0x2012) with every typed class and emission form.
fn scene_bytes(objects: &[Vec<u8>]) -> Vec<u8> {
    cont(0x2012, objects)
}

fn standard_objects() -> Vec<Vec<u8>> {
    let unsorted_appdata = cont(
        0x2150,
        &[
            leaf(0x0100, &u32s(&[2])),
            appdata_entry([9, 9, 0x1020, 5], b"later key first"),
            appdata_entry([1, 1, 0x1020, 7], b"1.5\0"),
        ],
    );
    vec![
        // 0: a node whose unknown 0x2300 sits before its references, AppData unsorted.
        node("Box01", 4, vec![leaf(0x2300, &[1, 2, 3]), unsorted_appdata]),
        // 1: a controller with map-form references, pairs out of slot order, 0x2045 before 0x204B.
        cont(
            0x0001,
            &[
                leaf(0x2035, &i32s(&[7, 2, 1, 0, 3])),
                leaf(0x2045, &[0xAB]),
                leaf(0x204B, &[0x2E]),
                leaf(0x2501, &[0, 0, 0x80, 0x3F]),
            ],
        ),
        // 2: a 0-byte leaf object.
        leaf(0x0001, &[]),
        // 3: an unregistered superclass: generic, base chunks still typed.
        cont(0x0002, &[leaf(0x2034, &i32s(&[1])), leaf(0x1000, &[5; 9])]),
        // 4: the root node's stand-in parent (a node named Parent).
        node("Parent", u32::MAX, vec![]),
        // 5: track view node.
        cont(
            0x0004,
            &[
                leaf(0x0140, &[]),
                leaf(0x0110, &utf16("Global Tracks")),
                leaf(0x0120, &u32s(&[1, 2])),
                leaf(0x0130, &i32s(&[1])),
            ],
        ),
        // 6: PRS controller: position 1, rotation 2, scale empty.
        cont(0x0005, &[leaf(0x2034, &i32s(&[1, 2, -1]))]),
        // 7: the scene object, last, 12 slots for Max 2010.
        scene_impl(12),
    ]
}

struct Decoded {
    stream: TypedStream,
    bytes: Vec<u8>,
}

impl Decoded {
    fn scene(&self) -> &SceneModel {
        match &self.stream.model {
            StreamModel::Scene(m) => m,
            StreamModel::Run(_) => panic!("not a scene"),
        }
    }

    /// Rebuild from the source and from the scribbled copy; both must equal the input.
    fn assert_exact(&self) {
        let built = self.stream.build(&self.bytes).unwrap();
        assert_eq!(built.bytes, self.bytes, "rebuild from source");
        let scribbled = self.stream.scribbled(&self.bytes);
        let built = self.stream.build(&scribbled).unwrap();
        assert_eq!(built.bytes, self.bytes, "rebuild with typed bytes overwritten");
        let proving = self.stream.build_proving(&self.bytes).unwrap();
        assert_eq!(proving.bytes, self.bytes, "rebuild with the proof in place");
        for proof in [false, true] {
            assert!(self.stream.rebuilds_exactly(&self.bytes, proof).unwrap(), "compared while built, proof {proof}");
        }
    }
}

fn sealed(mut claims: super::part::Claims) -> super::part::Claims {
    claims.seal();
    claims
}

fn decode_scene(bytes: Vec<u8>) -> Decoded {
    decode_scene_saved_by(bytes, None)
}

fn decode_scene_saved_by(bytes: Vec<u8>, saved_by: Option<u32>) -> Decoded {
    let tree = parse_stream("Scene", &bytes).unwrap();
    let mut ctx = Ctx::new("Scene", true);
    let model = SceneModel::decode(&tree, bytes.len() as u64, &dirs(), saved_by, &mut ctx, |_, _| {});
    let stream = TypedStream {
        index: 0,
        name: "Scene".into(),
        len: bytes.len() as u64,
        model: StreamModel::Scene(model),
        claims: sealed(ctx.claims),
    };
    Decoded { stream, bytes }
}

fn decode_run(name: &str, bytes: Vec<u8>) -> (Decoded, RunModel) {
    let tree = parse_stream(name, &bytes).unwrap();
    let mut ctx = Ctx::new(name, true);
    let model = RunModel::decode(StreamType::of(name), &tree, bytes.len() as u64, &mut ctx);
    let stream = TypedStream {
        index: 0,
        name: name.into(),
        len: bytes.len() as u64,
        model: StreamModel::Run(model.clone()),
        claims: sealed(ctx.claims),
    };
    (Decoded { stream, bytes }, model)
}

#[test]
fn every_typed_class_and_emission_form_rebuilds_exactly() {
    let d = decode_scene(scene_bytes(&standard_objects()));
    d.assert_exact();
    let s = d.scene();
    assert!(s.notes.is_empty(), "{:?}", s.notes);
    assert!(
        s.objects.iter().all(|o| !matches!(o.state, ObjectState::Degraded(_))),
        "{:?}",
        s.degraded().collect::<Vec<_>>()
    );
    // Node: name (long header kept), parent, version, case-insensitive lookup, tree.
    assert_eq!(s.node_name(0).as_deref(), Some("Box01"));
    assert_eq!(s.node_parent(0), Some(4));
    assert_eq!(s.node_version(0), Some(15));
    assert_eq!(s.node_by_name("bOX01"), Some(0));
    assert_eq!(s.node_tree().children.get(&4), Some(&vec![0]));
    // Flat references keep every slot; only values > 0 are bound.
    let refs = s.references(0).unwrap();
    assert_eq!(refs, &References::Flat { width: crate::chunk::HeaderWidth::Short, slots: vec![-1, 2, 0, -1] });
    assert_eq!(refs.targets(), vec![(1, 2)]);
    // Map form: leading value and pairs in stored order.
    match s.references(1).unwrap() {
        References::Map { leading, pairs, .. } => {
            assert_eq!(*leading, 7);
            assert_eq!(pairs, &vec![(2, 1), (0, 3)]);
        }
        other => panic!("expected the map form, got {other:?}"),
    }
    assert_eq!(s.references(1).unwrap().target(0), Some(3));
    // AppData in file order.
    let keys: Vec<u32> = s.appdata(0).unwrap().entries.iter().map(|e| e.key.sub_id).collect();
    assert_eq!(keys, vec![5, 7]);
    // The 0-byte leaf object stays a leaf; the unregistered superclass is generic.
    assert_eq!(s.objects[2].body, ObjectBody::EmptyLeaf);
    assert_eq!(s.objects[3].state, ObjectState::Generic);
    assert!(s.references(3).is_some(), "generic objects keep base chunks typed");
    // Track view children.
    let tvn = s.track_view_children(5).unwrap();
    assert_eq!(tvn.len(), 1);
    assert_eq!((tvn[0].name.as_str(), tvn[0].class_id, tvn[0].flag), ("Global Tracks", Some([1, 2]), Some(1)));
    assert_eq!(s.track_view_children(0), None);
    // PRS slots.
    let prs = s.controller_slots(6).unwrap();
    assert_eq!(prs, vec![("position", Some(1)), ("rotation", Some(2)), ("scale", None)]);
    // Inventory.
    let inv = s.inventory();
    let dof = inv.iter().find(|c| c.name == "Depth of Field").unwrap();
    assert_eq!((dof.count, dof.generic, dof.resolution), (1, 1, "generic"));
    let node = inv.iter().find(|c| c.name == "Node").unwrap();
    assert_eq!((node.count, node.typed, node.resolution), (2, 2, "exact"));
    assert_eq!(s.class_of(1).unwrap().resolution, Resolution::Superclass);
    let counts = s.typed_counts();
    assert_eq!((counts.appdata, counts.refs_flat, counts.refs_map, counts.node_name), (1, 5, 1, 2));
    assert!(d.stream.claims.bytes() > 0 && d.stream.claims.bytes() < d.bytes.len() as u64);
}

#[test]
fn edits_through_the_model_change_only_their_chunks() {
    let mut d = decode_scene(scene_bytes(&standard_objects()));
    let StreamModel::Scene(s) = &mut d.stream.model else { unreachable!() };
    assert!(s.set_node_name(0, "Renamed"));
    assert!(!s.set_node_name(1, "not a node"));
    let key = AppDataKey { class_id: [1, 1], superclass: 0x1020, sub_id: 7 };
    s.appdata_mut(0).unwrap().set(key, b"2.0\0".to_vec());
    let built = d.stream.build(&d.bytes).unwrap();
    let mut objects = standard_objects();
    let appdata = cont(
        0x2150,
        &[
            leaf(0x0100, &u32s(&[2])),
            appdata_entry([9, 9, 0x1020, 5], b"later key first"),
            appdata_entry([1, 1, 0x1020, 7], b"2.0\0"),
        ],
    );
    objects[0] = node("Renamed", 4, vec![leaf(0x2300, &[1, 2, 3]), appdata]);
    assert_eq!(built.bytes, scene_bytes(&objects));
}

/// Replaces object 0 with `object` and checks it degrades with `reason_part`, keeping bytes.
fn assert_degrades(object: Vec<u8>, reason_part: &str) {
    let mut objects = standard_objects();
    objects[0] = object;
    let d = decode_scene(scene_bytes(&objects));
    d.assert_exact();
    match &d.scene().objects[0].state {
        ObjectState::Degraded(s) => {
            assert!(s.reason.contains(reason_part), "reason `{}` lacks `{reason_part}`", s.reason);
            assert!(s.chunk_path.starts_with("Scene/0x2012/[0]0x0000"), "{}", s.chunk_path);
        }
        other => panic!("expected degraded ({reason_part}), got {other:?}"),
    }
    assert!(matches!(d.scene().objects[0].body, ObjectBody::Raw(_)));
}

#[test]
fn appdata_surprises_degrade_the_object_and_keep_its_bytes() {
    let entry = appdata_entry([1, 1, 0x1020, 7], b"v");
    let with = |appdata: Vec<u8>| cont(0x0000, &[appdata]);
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[2])), entry.clone()])), "count 2 disagrees");
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[2])), entry.clone(), entry.clone()])), "twice");
    assert_degrades(with(cont(0x2150, std::slice::from_ref(&entry))), "does not start with");
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[1])), leaf(0x0111, &[])])), "not an 0x0110 entry");
    let three = cont(0x0110, &[leaf(0x0120, &[0; 20]), leaf(0x0130, &[]), leaf(0x0130, &[])]);
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[1])), three])), "has 3 children");
    let short_key = cont(0x0110, &[leaf(0x0120, &[0; 16]), leaf(0x0130, &[])]);
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[1])), short_key])), "16 bytes");
    let mut bad_size = u32s(&[1, 1, 0x1020, 7]);
    bad_size.extend_from_slice(&99u32.to_le_bytes());
    let sized = cont(0x0110, &[leaf(0x0120, &bad_size), leaf(0x0130, b"v")]);
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[1])), sized])), "Size 99");
    let nested = cont(0x0110, &[leaf(0x0120, &[0; 20]), cont(0x0130, &[])]);
    assert_degrades(with(cont(0x2150, &[leaf(0x0100, &u32s(&[1])), nested])), "is a container");
    assert_degrades(with(leaf(0x2150, &[1, 2])), "is a leaf");
}

#[test]
fn reference_and_node_surprises_degrade_the_object() {
    assert_degrades(cont(0x0000, &[leaf(0x2034, &[1, 2, 3])]), "0x2034 has 3 bytes");
    assert_degrades(cont(0x0000, &[leaf(0x2035, &i32s(&[0, 1]))]), "0x2035 has 8 bytes");
    assert_degrades(cont(0x0000, &[leaf(0x2035, &[])]), "0x2035 has 0 bytes");
    assert_degrades(cont(0x0000, &[cont(0x2034, &[])]), "is a container");
    assert_degrades(cont(0x0000, &[leaf(0x204B, &[0x2E, 0])]), "0x204b has 2 bytes");
    assert_degrades(cont(0x0000, &[leaf(0x0962, &[0x41])]), "0x0962 has 1 bytes");
    assert_degrades(cont(0x0000, &[leaf(0x0960, &u32s(&[1]))]), "0x0960 has 4 bytes");
    assert_degrades(cont(0x0000, &[leaf(0x09ce, &[])]), "0x09ce has 0 bytes");
    assert_degrades(leaf(0x0000, &[1, 2, 3]), "3-byte leaf");
    assert_degrades(cont(0x0000, &[cont(0x0962, &[])]), "0x0962 is a container, expected a Utf16 leaf");
}

#[test]
fn track_view_and_scene_impl_surprises_degrade() {
    let mut objects = standard_objects();
    objects[5] = cont(0x0004, &[leaf(0x0140, &[1])]);
    objects[7] = scene_impl(11); // Max 2010 stores 12
    let d = decode_scene(scene_bytes(&objects));
    d.assert_exact();
    let reasons: Vec<String> = d.scene().degraded().map(|(c, s)| format!("{}: {}", c.name(), s.reason)).collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(reasons[0].starts_with("Track View Node: 0x0140 has 1 bytes"), "{reasons:?}");
    assert!(reasons[1].contains("SceneImpl has 11 reference slots"), "{reasons:?}");
}

#[test]
fn scene_impl_slot_count_follows_the_version_and_unknown_versions_accept_any() {
    for (version, slots) in [(0x2004u16, 11usize), (0x2012, 12), (0x2028, 13), (0x2031, 14)] {
        let d = decode_scene(cont(version, &[scene_impl(slots)]));
        d.assert_exact();
        assert_eq!(d.scene().degraded().count(), 0, "version 0x{version:04x} with {slots} slots");
    }
    let d = decode_scene(cont(0x2012, &[scene_impl(12), cont(0x0001, &[])]));
    assert_eq!(d.scene().notes, vec!["the last Scene object is not the SceneImpl".to_string()]);
}

/// Max 2013 keeps its 13-slot SceneImpl when it saves as Max 2010
/// (`wild/erbolvov1989__1.max`); without the saving release, 0x2012 still expects 12.
#[test]
fn scene_impl_slot_count_follows_the_saving_release_where_measured() {
    let d = decode_scene_saved_by(cont(0x2012, &[scene_impl(13)]), Some(15));
    d.assert_exact();
    assert_eq!(d.scene().degraded().count(), 0);
    let d = decode_scene_saved_by(cont(0x2012, &[scene_impl(12)]), Some(14));
    assert_eq!(d.scene().degraded().count(), 0);
    let d = decode_scene_saved_by(cont(0x2012, &[scene_impl(12)]), Some(15));
    let reasons: Vec<String> = d.scene().degraded().map(|(_, s)| s.reason.clone()).collect();
    assert_eq!(reasons, vec!["SceneImpl has 12 reference slots; files of version 0x2012 saved by release 15 store 13"]);
    d.assert_exact();
    let d = decode_scene(cont(0x2012, &[scene_impl(13)]));
    assert_eq!(d.scene().degraded().count(), 1);
}

#[test]
fn empty_appdata_is_dropped_as_the_whitelisted_normalization() {
    let mut objects = standard_objects();
    objects[1] = cont(0x0001, &[leaf(0x2034, &[]), cont(0x2150, &[leaf(0x0100, &u32s(&[0]))])]);
    objects[2] = cont(0x0001, &[cont(0x2150, &[])]);
    let bytes = scene_bytes(&objects);
    let d = decode_scene(bytes.clone());
    let built = d.stream.build(&d.bytes).unwrap();
    assert_eq!(built.normalizations, vec![(normalize::EMPTY_APPDATA_DROPPED, 2)]);
    let tree = parse_stream("Scene", &bytes).unwrap();
    let expected = write_stream(&normalize::expected_scene(&tree)).unwrap();
    assert_eq!(built.bytes, expected);
    objects[1] = cont(0x0001, &[leaf(0x2034, &[])]);
    objects[2] = cont(0x0001, &[]);
    assert_eq!(built.bytes, scene_bytes(&objects), "the hand-written normalized form");
}

#[test]
fn directories_keep_their_entry_run_in_place_and_degrade_bad_entries() {
    let dll_entry = |d: &str, f: &str| cont(0x2038, &[leaf(0x2039, &utf16(d)), leaf(0x2037, &utf16(f))]);
    let bytes = [
        leaf(0x21C0, &u32s(&[3])),
        dll_entry("Editable Poly", "EPoly.dlo"),
        leaf(0x7777, &[1]), // unknown chunk inside the entry run stays there
        dll_entry("Biped", "biped.dlc"),
        cont(0x2038, &[leaf(0x2037, &utf16("swapped.dlo")), leaf(0x2039, &utf16("d"))]),
    ]
    .concat();
    let (d, model) = decode_run("DllDirectory", bytes);
    d.assert_exact();
    assert_eq!(model.typed_count(0x2038), 2);
    assert_eq!(model.degraded.len(), 1);
    assert_eq!(model.degraded[0].name, "DllEntry");
    assert_eq!(model.degraded[0].surprise.chunk_path, "DllDirectory/[4]0x2038");

    let class_entry = |h: [u32; 4], n: &str| cont(0x2040, &[leaf(0x2060, &u32s(&h)), leaf(0x2042, &utf16(n))]);
    let bytes =
        [class_entry([u32::MAX, 1, 0, 1], "Node"), cont(0x2040, &[leaf(0x2060, &[0; 12]), leaf(0x2042, &[])])].concat();
    let (d, model) = decode_run("ClassDirectory3", bytes);
    d.assert_exact();
    assert_eq!(model.typed_count(0x2040), 1);
    assert!(model.degraded[0].surprise.reason.contains("0x2060 has 12 bytes"));
}

#[test]
fn class_data_and_config_as_far_as_documented() {
    let bytes = cont(0x2100, &[leaf(0x2110, &u32s(&[1, 2, 3])), cont(0x2120, &[leaf(0x0001, &[9])])]);
    let (d, model) = decode_run("ClassData", bytes);
    d.assert_exact();
    assert!(model.degraded.is_empty() && model.typed_count(0x2100) == 1);

    let entry = cont(
        0x0110,
        &[leaf(0x0100, &i32s(&[1])), leaf(0x0260, &[0; 8]), leaf(0x0290, &utf16("x")), leaf(0x0330, &[0; 16])],
    );
    let meta = cont(
        0x0007,
        &[
            leaf(0x0060, &u32s(&[2])),
            leaf(0x0005, &[4, 0, 0, 0, b'a', b'b', b'c', 0]),
            leaf(0x0004, &1.5f32.to_le_bytes()),
            cont(0x0007, &[leaf(0x0008, &[0; 12]), leaf(0x0002, &[7])]),
        ],
    );
    let script = cont(0x2180, &[cont(0x0040, &[leaf(0x0050, &u32s(&[0x1160, 1, 2])), meta])]);
    let bytes = [leaf(0x2090, &i32s(&[0])), cont(0x20a0, &[leaf(0x0100, &i32s(&[1])), entry.clone()]), script].concat();
    let (d, model) = decode_run("Config", bytes);
    d.assert_exact();
    assert!(model.degraded.is_empty(), "{:?}", model.degraded);
    assert_eq!(d.stream.claims.bytes(), d.bytes.len() as u64 - 6 - 16 - 6 - 1, "all but 0x0330 and 0x0002 typed");

    let bad_count = [cont(0x20a0, &[leaf(0x0100, &i32s(&[2])), entry]), leaf(0x2180, &[])].concat();
    let (d, model) = decode_run("Config", bad_count);
    d.assert_exact();
    assert!(model.degraded[0].surprise.reason.contains("count 2 disagrees with 1"), "{:?}", model.degraded);
    let leaves_where_containers = [leaf(0x20a0, &[1]), leaf(0x2180, &[1])].concat();
    let (d, model) = decode_run("Config", leaves_where_containers);
    d.assert_exact();
    let reasons: Vec<&str> = model.degraded.iter().map(|e| e.surprise.reason.as_str()).collect();
    assert_eq!(reasons, ["Config 0x20a0 is a leaf", "0x2180 has 1 bytes, not a Empty"]);
    let (d, model) = decode_run("ClassData", leaf(0x2100, &[0; 12]));
    d.assert_exact();
    assert_eq!(model.degraded[0].surprise.reason, "0x2100 is a leaf, expected a container");
    let bad_meta = cont(0x2180, &[cont(0x0040, &[leaf(0x0007, &[])])]);
    let (d, model) = decode_run("Config", bad_meta);
    d.assert_exact();
    assert_eq!(model.degraded[0].surprise.reason, "0x0007 is a leaf, expected a container");
    let bad_string = cont(0x2180, &[cont(0x0040, &[cont(0x0007, &[leaf(0x0006, &[9, 0, 0, 0, b'a', 0])])])]);
    let (d, model) = decode_run("Config", bad_string);
    d.assert_exact();
    assert!(model.degraded[0].surprise.reason.contains("LenString"), "{:?}", model.degraded);
    assert_eq!(model.degraded[0].name, "ConfigScript entry");
    assert_eq!(model.degraded[0].surprise.chunk_path, "Config/0x2180/[0]0x0040/[0]0x0007/[0]0x0006");
    assert_eq!(model.typed_count(0x2180), 1, "the ConfigScript itself stays typed");
}

#[test]
fn the_regeneration_proof_catches_a_build_that_copies_owned_bytes() {
    // A model that claims a chunk but rebuilds it raw (from the source) must fail the proof.
    let bytes = leaf(0x2090, &i32s(&[0]));
    let (mut d, _) = decode_run("Config", bytes);
    d.stream.model = StreamModel::Run(RunModel {
        parts: vec![super::part::Part::Raw(super::part::Span { start: 0, end: 10 })],
        degraded: Vec::new(),
    });
    assert_eq!(d.stream.build(&d.bytes).unwrap().bytes, d.bytes, "plain rebuild still passes");
    let scribbled = d.stream.scribbled(&d.bytes);
    let exposed = d.stream.build(&scribbled).unwrap().bytes;
    assert_ne!(exposed, d.bytes, "the proof exposes it");
    assert_eq!(d.stream.build_proving(&d.bytes).unwrap().bytes, exposed, "in place, without the copy, alike");
    assert!(d.stream.rebuilds_exactly(&d.bytes, false).unwrap());
    assert!(!d.stream.rebuilds_exactly(&d.bytes, true).unwrap(), "the comparing build sees it too");
}

#[test]
fn the_in_place_proof_inverts_exactly_the_owned_bytes_a_raw_span_crosses() {
    // Owned spans 2..4 and 6..7 (overlapping and touching claims merge when sealed); a raw
    // copy of 1..8 comes out as the scribbled copy would give it.
    let source: Vec<u8> = (0u8..10).collect();
    let mut claims = super::part::Claims::new(true);
    for (start, end) in [(6, 7), (2, 3), (2, 4), (3, 4)] {
        claims.claim(super::part::Span { start, end });
    }
    claims.seal();
    assert_eq!(claims.spans(), [super::part::Span { start: 2, end: 4 }, super::part::Span { start: 6, end: 7 }]);
    let mut out = Vec::new();
    let mut w = super::writer::Writer::new("S", &mut out).scribbling(claims.spans());
    w.raw(&source, 1, 8).unwrap();
    assert_eq!(out, [1, !2, !3, 4, 5, !6, 7]);
    let mut w = super::writer::Writer::comparing("S", &source[1..8]).scribbling(claims.spans());
    w.raw(&source, 1, 8).unwrap();
    assert!(!w.matched(), "an owned byte read raw never compares equal");
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn object_bytes(
        flat: &[i32],
        map: &(i32, Vec<(i32, i32)>),
        entries: &[(u32, Vec<u8>)],
        long_name: bool,
        name: &str,
    ) -> Vec<u8> {
        let mut map_payload = i32s(&[map.0]);
        for (s, t) in &map.1 {
            map_payload.extend(i32s(&[*s, *t]));
        }
        let mut appdata = vec![leaf(0x0100, &u32s(&[entries.len() as u32]))];
        appdata.extend(entries.iter().map(|(sub, v)| appdata_entry([3, 4, 0x1020, *sub], v)));
        let name_chunk = if long_name { long_leaf(0x0962, &utf16(name)) } else { leaf(0x0962, &utf16(name)) };
        scene_bytes(&[
            cont(
                0x0000,
                &[cont(0x2150, &appdata), leaf(0x2034, &i32s(flat)), leaf(0x0960, &u32s(&[1, 0])), name_chunk],
            ),
            cont(0x0001, &[leaf(0x2035, &map_payload), leaf(0x2140, &[1, 2])]),
        ])
    }

    proptest! {
        #[test]
        fn typed_decode_then_build_is_identity(
            flat in proptest::collection::vec(-2i32..50, 0..20),
            map in (any::<i32>(), proptest::collection::vec((-1i32..20, -1i32..50), 0..12)),
            values in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..24), 1..6),
            long_name in any::<bool>(),
            name in "\\PC{0,12}",
        ) {
            let entries: Vec<(u32, Vec<u8>)> = values.into_iter().enumerate().map(|(i, v)| (97 - i as u32, v)).collect();
            let d = decode_scene(object_bytes(&flat, &map, &entries, long_name, &name));
            d.assert_exact();
            let s = d.scene();
            prop_assert_eq!(s.degraded().count(), 0);
            prop_assert_eq!(s.node_name(0), Some(name.clone()));
            prop_assert_eq!(s.appdata(0).unwrap().entries.len(), entries.len());
        }
    }
}

/// Header bytes as the Max 2024 zstd files store them after inflation (wild/README.md).
fn wrapper(id: u16, children: &[Vec<u8>]) -> Vec<u8> {
    let mut v = id.to_le_bytes().to_vec();
    v.extend_from_slice(&[0xFF; 4]);
    children.iter().for_each(|c| v.extend_from_slice(c));
    v
}

#[test]
fn wrapped_streams_of_zstd_files_decode_their_entries_below_the_wrapper_root() {
    let class_entry = |h: [u32; 4], n: &str| cont(0x2040, &[leaf(0x2060, &u32s(&h)), leaf(0x2042, &utf16(n))]);
    let bytes = wrapper(0x2204, &[class_entry([u32::MAX, 1, 0, 1], "Node"), class_entry([0, 2, 0, 0x10], "Box")]);
    let (d, model) = decode_run("ClassDirectory3_Compressed", bytes.clone());
    d.assert_exact();
    assert_eq!(model.typed_count(0x2040), 2, "entries below the wrapper are typed");
    assert!(model.degraded.is_empty());
    // The directory reader sees the same entries through chunk::content.
    let tree = parse_stream("ClassDirectory3_Compressed", &bytes).unwrap();
    let classes = Directories::read(&[], crate::chunk::content(&tree));
    assert_eq!(classes.classes.len(), 2);
    assert_eq!(classes.classes[1].name, "Box");
}

#[test]
fn scene_with_a_run_to_end_root_rebuilds_exactly() {
    let objects = standard_objects();
    let mut bytes = 0x2029u16.to_le_bytes().to_vec();
    bytes.extend_from_slice(&1u32.to_le_bytes());
    bytes.extend_from_slice(&u64::MAX.to_le_bytes());
    objects.iter().for_each(|o| bytes.extend_from_slice(o));
    let d = decode_scene(bytes);
    d.assert_exact();
    assert!(d.scene().objects.len() == objects.len());
}

/// Parameter blocks and geometry arrays are typed in stored order; a record or array that
/// does not fit its layout stays raw in place without degrading the object; the
/// regeneration proof holds; the ParamBlock2 view reads values by id.
#[test]
fn parameter_blocks_and_geometry_arrays_rebuild_from_their_fields() {
    let hex = |h: &str| -> Vec<u8> {
        (0..h.len()).step_by(2).map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap()).collect()
    };
    let pb2 = cont(
        0x0006,
        &[
            leaf(0x0009, &hex("050000000000003ea8610c0007000000")),
            leaf(0x100e, &hex("00000000000001009200000000004000002041")), // id 0 float 10.0
            leaf(0x7777, &[1, 2, 3]),                                     // unknown: raw in place
            leaf(0x100e, &hex("0100000000000100920000000000c0cdcc")),     // cut short: raw in place
            leaf(0x100e, &hex("020000000000030080000000000080")),         // id 2 controller-backed
            leaf(0x2034, &i32s(&[1])),
            leaf(0x000c, &hex("01000000010000001100")),
            leaf(0x0011, &[1]),
        ],
    );
    let old_pb = cont(
        0x0007,
        &[
            leaf(0x0001, &u32s(&[1])),
            leaf(0x0005, &[2, 0]),
            cont(0x0002, &[leaf(0x0003, &u32s(&[0])), leaf(0x0100, &0.5f32.to_le_bytes())]),
        ],
    );
    let mut verts = u32s(&[3]);
    for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
        verts.extend(u32s(&[0]));
        p.iter().for_each(|x| verts.extend(x.to_le_bytes()));
    }
    let mut faces = u32s(&[1, 3, 0, 1, 2]);
    faces.extend(0x0010u16.to_le_bytes());
    faces.extend(u32s(&[1]));
    let poly = cont(
        0x0008,
        &[cont(0x08fe, &[leaf(0x0150, &u32s(&[11])), leaf(0x0100, &verts), leaf(0x011a, &faces), leaf(0x0999, &[9])])],
    );
    let mut tri_v = u32s(&[1]);
    tri_v.extend([0u8; 12]);
    let tri = cont(0x0009, &[cont(0x08fe, &[leaf(0x0914, &tri_v), leaf(0x0912, &u32s(&[1, 0, 0, 0, 1, 0]))])]);
    let d = decode_scene(scene_bytes(&[pb2, old_pb, poly, tri, scene_impl(12)]));
    d.assert_exact();
    let s = d.scene();
    assert_eq!(s.degraded().count(), 0);
    let pb = s.param_block2(0).expect("a typed ParamBlock2");
    assert_eq!(pb.params.len(), 2, "the cut-short record stays raw");
    assert_eq!(pb.float(0), Some(10.0));
    assert_eq!(pb.controller_slot(2), Some(0));
    assert!(s.param_block2(1).is_none());
    let raw = s.parts(0).iter().filter(|p| matches!(p, Part::Raw(_))).count();
    assert_eq!(raw, 2, "unknown chunk and short record raw in place");
    let inv = s.inventory();
    let pb2_tally = inv.iter().find(|c| c.class_id == [0x82, 0]).unwrap();
    // Raw: the unknown 0x7777 (6 + 3 bytes) and the short record (6 + 17 bytes).
    assert_eq!(pb2_tally.bytes - pb2_tally.typed_bytes, 9 + 23);
    let poly_tally = inv.iter().find(|c| c.name == "Editable Poly").unwrap();
    assert_eq!(poly_tally.bytes - poly_tally.typed_bytes, 7, "only the unknown 0x0999 is raw");
    let tri_tally = inv.iter().find(|c| c.name == "Editable Mesh").unwrap();
    assert_eq!(tri_tally.bytes, tri_tally.typed_bytes);
}
