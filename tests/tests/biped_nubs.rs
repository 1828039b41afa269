//! The Biped nub rule (`pmcore::eval::biped::nub_on_link_end`) against what real files hold
//! of nubs — the Rocketbox FBX hold none, so these are the only references
//! (docs/biped-format-notes.md, "Nubs"):
//!
//! * `Yellow@Spawn.FBX` holds yellow's two xtra nubs (`Bip01 Xtra01Nub`, `Xtra01OppNub`):
//!   each nub's FBX local transform under its father (`Bip01 R/L Ear1`) against pmcore's
//!   placements of both. The rig is animated and the FBX is frame 0, but a nub is fixed on its
//!   father, so the local transform is the figure's. Tolerances: rotation 1e-5; position
//!   5e-4 cm, the FBX locals being Max's float32 worlds (≈ 1,300 cm from the origin at frame
//!   0, float32 step 1.2e-4) composed back to locals (measured 1.2e-4).
//! * The real Ryzom `.skel` files: every nub bone (named `Dummy…` or `…Nub`) lies on its
//!   father's X axis and turns from it by the rule's constant for its kind, read off the
//!   father's name (finger / toe side, head, ponytail or tail).
//! * Every Rocketbox rig: each nub placed, at its father's stored link length (which is the
//!   father node's object-offset scale x, `0x096c`, on every rig: read here from the node).

use glam::{DMat3, DMat4, DQuat, DVec3};
use pmcore::eval::biped::{FigurePose, NubTurn};
use pmcore::model::biped::{bone, BipedRig};
use pmcore::model::controllers::object_offset;
use pmcore::model::scene_index::SceneTrees;
use pmtests::biped::rig_and_fbx;

fn rotation_diff(a: DMat3, b: DMat3) -> f64 {
    (a - b).to_cols_array().iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

#[test]
fn yellows_xtra_nubs_sit_on_their_ears_as_the_fbx_holds_them() {
    let Some(corpus) = pmtests::shared_corpus("biped") else { return };
    let (rig, scene) = rig_and_fbx(&corpus, "../wild/tae8838__yellow@spawn.max");
    let pose = FigurePose::new(&rig.system);
    let slot_of = |n: &str| rig.slaves.iter().find(|s| s.name == n).map(|s| (s.bone, s.link));
    let nubs: Vec<_> = rig.slaves.iter().filter(|s| s.bone >= bone::XTRA_NUB).collect();
    assert_eq!(nubs.len(), 2, "yellow's xtra nubs");
    for nub in nubs {
        let i = scene.nodes.iter().position(|n| n.name == nub.name).expect("the nub in the FBX");
        let father = &scene.nodes[scene.nodes[i].parent.expect("a father")].name;
        let (id, link) = slot_of(father).expect("the father is Biped-driven");
        assert!((bone::XTRA..bone::XTRA_NUB).contains(&id), "{}'s father {father}", nub.name);
        let want: DMat4 = scene.nodes[i].local;
        let f = pose.bone(id, link).world().unwrap_or_else(|e| panic!("{father}: {e}"));
        let got = f.inverse() * pose.bone(nub.bone, nub.link).world().unwrap_or_else(|e| panic!("{}: {e}", nub.name));
        let r = rotation_diff(DMat3::from_mat4(got), DMat3::from_mat4(want));
        let p = (got.w_axis - want.w_axis).truncate().length();
        assert!(r < 1e-5 && p < 5e-4, "{}: rotation {r:.2e}, position {p:.2e} cm\n{got:?}\n{want:?}", nub.name);
        println!("{} on {father}: rotation {r:.2e}, position {p:.2e} cm", nub.name);
    }
}

/// The turn a real `.skel` nub must have, from its father's name; `None` for a father that
/// is no chain end the rule covers.
fn expected_turn(father: &str) -> Option<NubTurn> {
    let part = father.split_once(' ').map(|(_, p)| p)?;
    Some(match part {
        p if p.starts_with("R Finger") => NubTurn::HalfTurnZ,
        p if p.starts_with("L Finger") => NubTurn::Straight,
        p if p.starts_with("L Toe") => NubTurn::HalfTurnZ,
        p if p.starts_with("R Toe") => NubTurn::Straight,
        "Head" => NubTurn::Straight,
        p if p.starts_with("Ponytail") || p.starts_with("Tail") => NubTurn::ChainEnd,
        _ => return None,
    })
}

#[test]
fn every_real_ryzom_nub_lies_on_its_fathers_x_turned_as_the_rule_says() {
    let Some(root) = pmtests::nel_corpus() else { return };
    let manifest = pmtests::manifest(&root);
    let ryzom = |n: &str| manifest.get(n).is_some_and(|row| row["source_repo"].starts_with("ryzom/ryzomcore"));
    let files = pmtests::manifest_files(&root, |n| n.ends_with(".skel") && ryzom(n));
    let (mut checked, mut failures) = (0, Vec::new());
    for path in &files {
        let s = pmcore::nel::skel::read(&std::fs::read(path).unwrap()).unwrap();
        for (i, b) in s.bones.iter().enumerate() {
            let is_nub = b.name.starts_with("Dummy") || b.name.ends_with("Nub");
            let leaf = s.bones.iter().all(|o| o.father_id != i as i32);
            let Some(father) = usize::try_from(b.father_id).ok().map(|f| &s.bones[f]) else { continue };
            let (true, true, Some(turn)) = (is_nub, leaf, expected_turn(&father.name)) else { continue };
            checked += 1;
            // NeL writes the local rotation negated; a rotation's quaternion is signed anyway.
            let [x, y, z, w] = b.default_rot_quat.map(f64::from);
            let q = DQuat::from_xyzw(x, y, z, w).normalize();
            let want = DQuat::from_mat3(&turn.local());
            let p = DVec3::from_array(b.default_pos.map(f64::from));
            // Off the axis by float32 noise only: 1e-5 relative, or 5e-7 absolute (the
            // kitin queen's 0.0035-long toe nubs are 1.0e-7 off; the largest elsewhere 2.8e-7).
            let off_axis = p.y.abs().max(p.z.abs());
            if q.dot(want).abs() < 1.0 - 1e-9 || p.x <= 0.0 || off_axis > 1e-5 * p.x + 5e-7 {
                failures.push(format!(
                    "{}: {} under {}: rot {q:?} ({turn:?}), pos {p:?}",
                    path.display(),
                    b.name,
                    father.name
                ));
            }
        }
    }
    assert!(checked > 0, "no nub in the real .skel files");
    assert!(failures.is_empty(), "{} of {checked} nubs off the rule:\n{}", failures.len(), failures.join("\n"));
    println!("{checked} nubs of {} real .skel files on the rule", files.len());
}

#[test]
fn every_rocketbox_nub_is_placed_its_fathers_stored_length_along_it() {
    let Some(corpus) = pmtests::shared_corpus("biped") else { return };
    let rigs = pmtests::manifest_files(&corpus, |n| n.starts_with("rocketbox/") && n.ends_with(".max"));
    assert!(!rigs.is_empty(), "the biped manifest lists no Rocketbox rig");
    for max in &rigs {
        let bytes = std::fs::read(max).unwrap();
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
        let file = pmcore::MaxFile::new(ole);
        let trees = SceneTrees::of(&file).expect("Scene");
        let index = trees.index().expect("Scene root");
        let rig = BipedRig::read(&index).unwrap_or_else(|e| panic!("{}: {e}", max.display()));
        let pose = FigurePose::new(&rig.system);
        let nubs: Vec<_> = rig.slaves.iter().filter(|s| s.name.ends_with("Nub")).collect();
        // 10 finger, 2 toe, 1 head and 28 xtra nubs.
        assert_eq!(nubs.len(), 41, "{}: nubs", max.display());
        for nub in nubs {
            let at = pose.bone(nub.bone, nub.link).world().unwrap_or_else(|e| panic!("{}: {e}", nub.name));
            let father = index.objects[nub.node].node_parent().expect("a father");
            let s = rig.slaves.iter().find(|s| s.node == father).expect("a Biped-driven father");
            let f = pose.bone(s.bone, s.link).world().unwrap_or_else(|e| panic!("{}: {e}", s.name));
            // The father's link length as its node's object-offset scale holds it (0x096c x).
            let stored = f64::from(object_offset(&index.objects[father]).scale.x);
            let local = f.inverse() * at;
            let p = local.w_axis.truncate();
            assert!((p - DVec3::X * stored).length() < 1e-4, "{}: {p:?} on {}, length {stored}", nub.name, s.name);
        }
    }
}
