//! Modify-save through the typed model on a real file: rename one node and change one
//! AppData value, rebuild Scene, write a new compound file with
//! `pmcore::container::write`, reopen it. Both edits read back through the typed model;
//! every other stream is byte-identical; and Scene equals the original with exactly those
//! two edits applied by hand at the chunk layer (so nothing else moved).

use pmcore::chunk::{parse_stream, write_stream, Body, Chunk};
use pmcore::compression::Compression;
use pmcore::model::appdata::AppDataKey;
use pmcore::model::file::TypedFile;
use pmcore::model::registry::{Resolution, TypedClass};
use pmcore::{classify, container, Input, MaxFile};
use std::borrow::Cow;

const NEW_NAME: &str = "pmfarm Renamed Node";
const NEW_VALUE: &[u8] = b"pmfarm changed this AppData value\0";

/// An uncompressed file holding a named node and a non-empty AppData.
fn pick(corpus: &std::path::Path) -> Option<(String, MaxFile, usize, usize, AppDataKey)> {
    for path in pmtests::corpus_files(corpus) {
        let Input::Ole(ole) = classify(&std::fs::read(&path).unwrap()) else { continue };
        let file = MaxFile::new(ole);
        let scene_index = file.index_of("Scene")?;
        if file.streams[scene_index].compression != Compression::None {
            continue;
        }
        let typed = TypedFile::decode(&file, false, |_, _, _| {});
        let scene = typed.scene().unwrap();
        let node = (0..scene.objects.len()).find(|&i| {
            scene.class_of(i).unwrap().resolution == Resolution::Exact(TypedClass::NodeImpl)
                && scene.node_name(i).is_some()
        });
        let appdata = scene
            .objects
            .iter()
            .enumerate()
            .find_map(|(i, _)| scene.appdata(i).and_then(|a| a.entries.first()).map(|e| (i, e.key)));
        if let (Some(node), Some((holder, key))) = (node, appdata) {
            return Some((path.file_name().unwrap().to_string_lossy().into(), file, node, holder, key));
        }
    }
    None
}

fn u32_at(p: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(p[i..i + 4].try_into().unwrap())
}

/// The two edits, applied to the raw chunk tree by hand.
fn edit_by_hand<'a>(tree: &mut [Chunk<'a>], node: usize, holder: usize, key: AppDataKey) {
    let Body::Container(objects) = &mut tree[0].body else { panic!("Scene root is a container") };
    let Body::Container(parts) = &mut objects[node].body else { panic!("node is a container") };
    let name = parts.iter_mut().find(|c| c.id == 0x0962).expect("node name chunk");
    let utf16: Vec<u8> = NEW_NAME.encode_utf16().flat_map(u16::to_le_bytes).collect();
    name.body = Body::Leaf(Cow::Owned(utf16));
    let Body::Container(parts) = &mut objects[holder].body else { panic!("holder is a container") };
    let appdata = parts.iter_mut().find(|c| c.id == 0x2150).expect("AppData");
    let Body::Container(entries) = &mut appdata.body else { panic!("AppData is a container") };
    for entry in entries.iter_mut().filter(|e| e.id == 0x0110) {
        let Body::Container(kv) = &mut entry.body else { continue };
        let k = kv[0].payload().unwrap().to_vec();
        if [u32_at(&k, 0), u32_at(&k, 4), u32_at(&k, 8), u32_at(&k, 12)]
            != [key.class_id[0], key.class_id[1], key.superclass, key.sub_id]
        {
            continue;
        }
        let mut new_key = k.clone();
        new_key[16..20].copy_from_slice(&(NEW_VALUE.len() as u32).to_le_bytes());
        kv[0].body = Body::Leaf(Cow::Owned(new_key));
        kv[1].body = Body::Leaf(Cow::Owned(NEW_VALUE.to_vec()));
        return;
    }
    panic!("AppData entry not found by hand");
}

#[test]
fn rename_a_node_and_change_an_appdata_value_then_write_and_reopen() {
    let Some(corpus) = pmtests::public_corpus() else {
        return;
    };
    let (name, file, node, holder, key) = pick(&corpus).expect("a public file with a named node and AppData");
    let mut typed = TypedFile::decode(&file, false, |_, _, _| {});
    let scene = typed.scene_mut().unwrap();
    let old_name = scene.node_name(node).unwrap();
    assert!(scene.set_node_name(node, NEW_NAME));
    scene.appdata_mut(holder).unwrap().set(key, NEW_VALUE.to_vec());
    let scene_i = file.index_of("Scene").unwrap();
    let original_scene = file.data(scene_i).unwrap();
    let built = typed.stream("Scene").unwrap().build(original_scene).unwrap();
    assert!(built.normalizations.is_empty());

    let streams: Vec<(&str, &[u8])> = file
        .ole
        .streams
        .iter()
        .map(|s| (s.name.as_str(), if s.name == "Scene" { built.bytes.as_slice() } else { s.bytes.as_slice() }))
        .collect();
    let bytes = container::write(&file.ole.clsid, streams).unwrap();
    let Input::Ole(ole) = classify(&bytes) else { panic!("{name}: the rewritten file is not OLE") };
    let reopened = MaxFile::new(ole);

    // Both edits read back through the typed model.
    let again = TypedFile::decode(&reopened, false, |_, _, _| {});
    let scene = again.scene().unwrap();
    assert_eq!(scene.node_by_name(&NEW_NAME.to_uppercase()), Some(node), "{name}: renamed node found by name");
    assert_eq!(scene.node_by_name(&old_name), None, "{name}: old name `{old_name}` is gone");
    assert_eq!(scene.appdata(holder).unwrap().get(key), Some(NEW_VALUE), "{name}: AppData value");

    // Every other stream is byte-identical, names and order kept.
    assert_eq!(reopened.ole.clsid, file.ole.clsid);
    assert_eq!(reopened.ole.streams.len(), file.ole.streams.len());
    for (a, b) in file.ole.streams.iter().zip(&reopened.ole.streams) {
        assert_eq!(a.name, b.name);
        if a.name != "Scene" {
            assert!(a.bytes == b.bytes, "{name}: stream {} changed", a.name);
        }
    }

    // Scene differs from the original only by the two edits.
    let mut expected = parse_stream("Scene", original_scene).unwrap();
    edit_by_hand(&mut expected, node, holder, key);
    let expected = write_stream(&expected).unwrap();
    assert_ne!(expected.as_slice(), original_scene);
    assert!(reopened.data(scene_i).unwrap() == expected.as_slice(), "{name}: Scene differs beyond the two edits");
    println!("{name}: renamed node #{node} `{old_name}` → `{NEW_NAME}`, changed AppData {key:?} of object #{holder}");
}
