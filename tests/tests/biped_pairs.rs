//! Biped rigs against the FBX 3ds Max wrote from them (`../shared/corpus/biped`, every
//! manifest row): the skin comparison over the Skin's bone table, the transforms comparison
//! over Biped world matrices, and perturbed copies of a Rocketbox export that each must
//! catch with the right locator.

use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::Verdict;
use pmref::compare::{compare_all, Comparison};
use pmref::fbx::binary::{self, Document, Property};
use std::path::{Path, PathBuf};

fn biped() -> Option<PathBuf> {
    pmtests::shared_corpus("biped")
}

fn compare(max: &Path, name: &str, reference: &[u8]) -> Vec<Comparison> {
    let bytes = std::fs::read(max).expect("max readable");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene root");
    let scene = pmref::read_reference("fbx", reference).expect("reference reads");
    compare_all(&index, &scene, name)
}

fn comparison<'a>(results: &'a [Comparison], name: &str) -> &'a Comparison {
    results.iter().find(|c| c.name == name).expect("comparison present")
}

/// Every `(max, export)` row of the manifest.
fn rows(biped: &Path) -> Vec<(PathBuf, String)> {
    pmtests::read_tsv(&biped.join("manifest.tsv"))
        .into_iter()
        .flat_map(|row| {
            let max = biped.join(&row["max"]);
            row["exports"].split(';').map(|e| (max.clone(), e.trim().to_string())).collect::<Vec<_>>()
        })
        .filter(|(_, e)| e.to_ascii_lowercase().ends_with(".fbx"))
        .collect()
}

/// Whether the `.max`'s Biped has no keys (figure mode at every time).
fn static_biped(max: &Path) -> bool {
    let bytes = std::fs::read(max).expect("max readable");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { return false };
    let file = pmcore::MaxFile::new(ole);
    let Some(trees) = SceneTrees::of(&file) else { return false };
    let Some(index) = trees.index() else { return false };
    pmcore::model::biped::BipedRig::read(&index).is_ok_and(|rig| rig.system.keys == 0)
}

#[test]
fn skin_passes_and_every_placed_bone_is_within_tolerance_on_the_biped_rigs() {
    let Some(biped) = biped() else { return };
    let rows = rows(&biped);
    assert!(!rows.is_empty(), "the biped manifest lists exports");
    let (mut skin_pass, mut statics, mut animation_pass) = (0, 0, 0);
    for (max, export) in &rows {
        let results = compare(max, export, &std::fs::read(biped.join(export)).unwrap());
        let skin = comparison(&results, "skin");
        if skin.verdict.name() == "pass" {
            skin_pass += 1;
        } else {
            eprintln!("{export}: skin {:?}", skin.verdict);
        }
        // Every bone pmcore places (and every other node) agrees — the facial xtras whose
        // stored Euler angles sit at gimbal lock within their `f32`-widened rotation tolerance
        // (docs/biped-format-notes.md, "Xtras"), the Footsteps marker on the ground the feet
        // stand on (`Female_Child_01`'s 0.0075 cm up); any transforms miss is a node Max
        // cannot be read for (Link Constraint).
        let transforms = comparison(&results, "transforms");
        let d = &transforms.detail;
        assert_eq!(d["nodes_off"].as_u64().unwrap_or(0), 0, "{export}: {:?}", transforms.verdict);
        if static_biped(max) {
            statics += 1;
            assert_eq!(transforms.verdict.name(), "pass", "{export}: {:?}", transforms.verdict);
            animation_pass += usize::from(comparison(&results, "animation").verdict.name() == "pass");
        }
    }
    // The bars: skin on at least 90 % of the Biped exports; the COM curves of the
    // rigs whose Biped has no keys (figure mode) on at least 90 % of them.
    assert!(skin_pass * 10 >= rows.len() * 9, "skin passes on {skin_pass} of {}", rows.len());
    assert!(animation_pass * 10 >= statics * 9, "animation passes on {animation_pass} of {statics} static rigs");
}

/// Male_Adult_11: its gimbal-locked xtras stay within the pairs rotation tolerance (7.9e-5),
/// so its unperturbed export has no node off and a perturbation is the first difference
/// (FA16's `RMouthBottom` is 2.25e-4 off: docs/biped-format-notes.md, "Xtras").
const MAX: &str = "rocketbox/Source/Avatars/Adults/Male_Adult_11/Source/Male_Adult_11.max";
const EXPORT: &str = "rocketbox/Assets/Avatars/Adults/Male_Adult_11/Export/Male_Adult_11.fbx";

/// The MA11 export with `change` applied, compared with its `.max`.
fn perturbed(change: impl FnOnce(&mut Document)) -> Option<Vec<Comparison>> {
    let biped = biped()?;
    let mut doc = binary::read(&std::fs::read(biped.join(EXPORT)).unwrap()).unwrap();
    change(&mut doc);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("Male_Adult_11.fbx");
    std::fs::write(&copy, binary::write(&doc)).unwrap();
    Some(compare(&biped.join(MAX), EXPORT, &std::fs::read(&copy).unwrap()))
}

fn failure(results: &[Comparison], name: &str) -> pmcore::verify::Mismatch {
    match &comparison(results, name).verdict {
        Verdict::Fail(m) => m.clone(),
        other => panic!("{name} did not catch it: {other:?}"),
    }
}

#[test]
fn the_unperturbed_export_passes_skin() {
    let Some(results) = perturbed(|_| {}) else { return };
    assert_eq!(comparison(&results, "skin").verdict.name(), "pass");
}

#[test]
fn one_bone_rotated_by_one_degree_is_caught_at_that_bone() {
    // A leaf bone (its nub is not exported), so no other node's world moves.
    let bone = "Bip01 L Finger02";
    let Some(results) = perturbed(|doc| {
        let objects = doc.nodes.iter_mut().find(|n| n.name == "Objects").unwrap();
        let model = objects
            .children
            .iter_mut()
            .find(|n| {
                n.name == "Model"
                    && n.properties.get(1).and_then(Property::as_bytes).map(pmref::fbx::scene::object_name).as_deref()
                        == Some(bone)
            })
            .expect("the bone's model");
        let props = model.children.iter_mut().find(|n| n.name == "Properties70").unwrap();
        let r = props
            .children
            .iter_mut()
            .find(|p| p.properties[0].as_text().as_deref() == Some("Lcl Rotation"))
            .expect("Lcl Rotation");
        let Property::F64(x) = &mut r.properties[4] else { panic!("rotation x is f64") };
        *x += 1.0;
    }) else {
        return;
    };
    let m = failure(&results, "transforms");
    assert_eq!(m.chunk_path, format!("@reference/{EXPORT}/{bone}"), "{}", m.message);
    assert!(m.message.contains("Biped bone"), "{}", m.message);
}

#[test]
fn one_weight_changed_is_caught_by_skin_at_its_cluster() {
    let mut cluster_name = String::new();
    let Some(results) = perturbed(|doc| {
        let objects = doc.nodes.iter_mut().find(|n| n.name == "Objects").unwrap();
        let cluster = objects
            .children
            .iter_mut()
            .find(|n| n.name == "Deformer" && n.children.iter().any(|c| c.name == "Weights"))
            .expect("a cluster");
        cluster_name = pmref::fbx::scene::object_name(cluster.properties[1].as_bytes().unwrap());
        let weights = cluster.children.iter_mut().find(|c| c.name == "Weights").unwrap();
        let Property::F64s(w) = &mut weights.properties[0] else { panic!("weights are f64") };
        w[0] = (w[0] - 0.01).max(0.0);
    }) else {
        return;
    };
    let m = failure(&results, "skin");
    assert!(m.message.contains("weight"), "{}", m.message);
    assert!(m.chunk_path.starts_with(&format!("@reference/{EXPORT}/")), "{}", m.chunk_path);
    assert!(m.offset > 0, "the locator carries the cluster's offset ({cluster_name})");
}

/// The LD35 player (a keyed Biped, Max 2013) and its FBX.
const KEYED_MAX: &str = "../wild/tae8838__player.max";
const KEYED_EXPORT: &str = "tae8838__LD35/Player.FBX";

/// `player.max` with the key at one tick moved one frame later on every keytrack of the live
/// block (the time chunks, odd ids 0x012d..=0x0143: the last of each id), compared with its
/// FBX; the tick moved is the first from frame 100 on that every track keys and none keys a
/// frame later. `None` without the shared corpus.
fn keyed_with_key_moved() -> Option<(i32, Vec<Comparison>)> {
    let biped = biped()?;
    let bytes = std::fs::read(biped.join(KEYED_MAX)).unwrap();
    let ole = pmcore::container::open(&bytes).unwrap();
    let mut scene = ole.streams.iter().find(|s| s.name == "Scene").unwrap().bytes.clone();
    let dword = |s: &[u8], at: usize| i32::from_le_bytes(s[at..at + 4].try_into().unwrap());
    let chunks: Vec<(usize, usize)> = (0x012d..=0x0143u16)
        .step_by(2)
        .filter_map(|id| pmtests::hostile::leaf_payloads(&scene, None, id).last().copied())
        .filter(|&(at, len)| len > 40 && dword(&scene, at) > 0)
        .collect();
    let records = |s: &[u8], (at, len): (usize, usize)| {
        let n = dword(s, at) as usize;
        let rl = (len / 4 - 10) / n;
        (0..n).map(|k| at + 4 * (10 + rl * k)).collect::<Vec<_>>()
    };
    let keyed = |s: &[u8], c: (usize, usize), tick: i32| records(s, c).iter().any(|&r| dword(s, r) == tick);
    let tick = records(&scene, chunks[0])
        .iter()
        .map(|&r| dword(&scene, r))
        .find(|&t| t >= 16000 && chunks.iter().all(|&c| keyed(&scene, c, t) && !keyed(&scene, c, t + 160)))
        .expect("a tick every track keys");
    for &c in &chunks {
        let at = records(&scene, c).into_iter().find(|&r| dword(&scene, r) == tick).unwrap();
        scene[at..at + 4].copy_from_slice(&(tick + 160).to_le_bytes());
    }
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("player.max");
    std::fs::write(&copy, pmtests::hostile::with_stream(&ole, "Scene", Some(&scene))).unwrap();
    Some((tick, compare(&copy, KEYED_EXPORT, &std::fs::read(biped.join(KEYED_EXPORT)).unwrap())))
}

#[test]
fn the_keyed_player_passes_transforms_and_animation_at_its_key_times() {
    let Some(biped) = biped() else { return };
    let results = compare(&biped.join(KEYED_MAX), KEYED_EXPORT, &std::fs::read(biped.join(KEYED_EXPORT)).unwrap());
    for name in ["transforms", "animation"] {
        assert_eq!(
            comparison(&results, name).verdict.name(),
            "pass",
            "{name}: {:?}",
            comparison(&results, name).verdict
        );
    }
    assert!(comparison(&results, "animation").detail["poses_compared"].as_u64().unwrap() > 1000);
}

#[test]
fn one_biped_key_moved_by_one_frame_is_caught_by_animation() {
    let Some((tick, results)) = keyed_with_key_moved() else { return };
    let m = failure(&results, "animation");
    let frame = format!("frame {:.2}", f64::from(tick + 160) / 160.0);
    assert!(m.message.contains(&frame), "{} (moved tick {tick})", m.message);
    assert!(m.chunk_path.starts_with(&format!("@reference/{KEYED_EXPORT}/B_")), "{}", m.chunk_path);
}
