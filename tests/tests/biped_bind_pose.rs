//! The Biped figure-mode evaluator (`pmcore::eval::biped`) against the bind pose 3ds Max's
//! FBX plug-in wrote for the 20 Rocketbox rigs of `../shared/corpus/biped` (each FBX holds
//! every non-nub Biped node; its `Lcl` chain reproduces the file's BindPose to 1.3e-4,
//! docs/biped-format-notes.md §4). Skips, saying so, without `../shared`.
//!
//! Tolerances: Max composes these frames in float32 through three to six levels (COM,
//! pelvis, limb, hinge), and the exporter writes Euler angles that sit at ±90° on the COM
//! and pelvis, where the decomposition loses digits: the largest measured rotation error is
//! 3.3e-6 (matrix elements), so 1e-5. A position error is that rotation noise over the lever
//! arm (at most ≈ 95 cm from the pelvis to a toe or a hand: 3.1e-4) plus the float32 step at 92 cm
//! (7.6e-6): the largest measured is 1.9e-4 cm, so 5e-4 cm.
//!
//! Xtras (28 facial bones per rig, on the head or on `MJaw`) hold to the same tolerances
//! (largest 5.3e-6, 2.0e-4 cm) except where their stored Euler angles sit at gimbal lock:
//! 97 of the 560 have a middle angle a1 within 1e-3 rad of ±π/2 (|cos a1| < 1e-3), and the
//! 57 rotations over 1e-5 are all among them (|cos a1| ≤ 2.1e-4, largest 4.5e-4): there the
//! stored (a2, a3) disagree with the FBX about the node's Y, as a float32 Euler
//! decomposition resolves them, 6e-8 / |cos a1| ≈ 4e-4
//! (docs/biped-format-notes.md, "Xtras"). Those are held to [`GIMBAL_LOCK_TOLERANCE`].

use glam::{DMat3, DMat4};
use pmcore::eval::biped::FigurePose;
use pmcore::model::biped::{bone, BipedRig};
use pmcore::model::scene_index::SceneTrees;
use pmref::scene::RefScene;
use pmtests::biped::{read_rig, rig_and_fbx};

const ROTATION_TOLERANCE: f64 = 1e-5;
const POSITION_TOLERANCE_CM: f64 = 5e-4;
/// Rotation tolerance of an xtra whose stored middle angle is within [`NEAR_GIMBAL_LOCK`]
/// of ±π/2: float32 angles resolve its rotation to 6e-8 / |cos a1| (4.3e-4 at the 1.4e-4 the
/// rigs store), measured at most 5.1e-4.
const GIMBAL_LOCK_TOLERANCE: f64 = 1e-3;
/// |cos a1| under which an xtra's angles are at gimbal lock (measured: 2.1e-4 and below).
const NEAR_GIMBAL_LOCK: f64 = 1e-3;

/// The rotation tolerance of bone (id, link): looser for an xtra link at gimbal lock.
fn rotation_tolerance(rig: &BipedRig, id: i32, link: i32) -> f64 {
    let angles = usize::try_from(id - bone::XTRA)
        .ok()
        .filter(|_| id < bone::XTRA_NUB)
        .and_then(|k| rig.system.xtras.get(k))
        .and_then(|x| x.angles.get(usize::try_from(link).ok()?));
    match angles {
        Some(a) if f64::from(a[0]).cos().abs() < NEAR_GIMBAL_LOCK => GIMBAL_LOCK_TOLERANCE,
        _ => ROTATION_TOLERANCE,
    }
}

fn fbx_world(scene: &RefScene, i: usize) -> DMat4 {
    let mut m = scene.nodes[i].local;
    let mut parent = scene.nodes[i].parent;
    for _ in 0..scene.nodes.len() {
        let Some(k) = parent else { break };
        m = scene.nodes[k].local * m;
        parent = scene.nodes[k].parent;
    }
    m
}

/// Per rig: (bones with a rotation checked, bones with a position checked, of which xtras at
/// gimbal lock), and the failures.
fn check_rig(max: &std::path::Path, fbx: &std::path::Path, failures: &mut Vec<String>) -> (usize, usize, usize) {
    let rig = read_rig(max);
    let scene = pmref::read_reference("fbx", &std::fs::read(fbx).unwrap()).unwrap();
    let pose = FigurePose::new(&rig.system);
    let com = rig.com_node.clone().map(|(_, name)| (name, bone::COM_VERTICAL, 0));
    let mut counts = (0, 0, 0);
    for (name, id, link) in com.into_iter().chain(rig.slaves.iter().map(|s| (s.name.clone(), s.bone, s.link))) {
        let Some(i) = scene.nodes.iter().position(|n| n.name == name) else { continue };
        let world = fbx_world(&scene, i);
        let placed = pose.bone(id, link);
        if let Ok(r) = placed.rotation {
            counts.0 += 1;
            let tolerance = rotation_tolerance(&rig, id, link);
            counts.2 += usize::from(tolerance > ROTATION_TOLERANCE);
            let e = (r - DMat3::from_mat4(world)).to_cols_array().iter().fold(0.0f64, |a, v| a.max(v.abs()));
            if e > tolerance {
                failures.push(format!("{} {name}: rotation off by {e:.2e} (tolerance {tolerance:.0e})", max.display()));
            }
        }
        if let Ok(p) = placed.position {
            counts.1 += 1;
            let e = (p - world.w_axis.truncate()).length();
            if e > POSITION_TOLERANCE_CM {
                failures.push(format!("{} {name}: position off by {e:.2e} cm", max.display()));
            }
        }
    }
    counts
}

#[test]
fn rocketbox_placed_bones_match_the_fbx_bind_pose() {
    let Some(corpus) = pmtests::shared_corpus("biped") else { return };
    let manifest = pmtests::manifest(&corpus);
    let rigs = pmtests::manifest_files(&corpus, |n| n.starts_with("rocketbox/") && n.ends_with(".max"));
    assert!(!rigs.is_empty(), "the biped manifest lists no Rocketbox rig");
    let mut failures = Vec::new();
    let mut at_lock = 0;
    for max in &rigs {
        let name = max.strip_prefix(&corpus).unwrap().to_string_lossy().into_owned();
        let fbx = corpus.join(&manifest[&name]["exports"]);
        let (rotations, positions, locked) = check_rig(max, &fbx, &mut failures);
        at_lock += locked;
        // COM, pelvis, spine ×3, neck, head, 2 × (clavicle, upper arm, forearm, hand),
        // 2 × (thigh, calf, foot), 2 toes, 2 × 15 finger links: 53; and the 28 facial xtras.
        assert_eq!((rotations, positions), (81, 81), "{name}: bones placed");
    }
    assert!(failures.is_empty(), "{} bone(s) off the FBX bind pose:\n{}", failures.len(), failures.join("\n"));
    println!(
        "{} Rocketbox rigs: 81 bones each within tolerance ({at_lock} xtras at gimbal lock held to {GIMBAL_LOCK_TOLERANCE:.0e})",
        rigs.len()
    );
}

/// yellow's ears (`tae8838__yellow@spawn.max`: xtras `Xtra01` / `Xtra01Opp` of two links
/// each, nodes `Bip01 R Ear0`/`Ear1`, `L Ear0`/`Ear1`) against `Yellow@Spawn.FBX`. The rig
/// is animated, so its FBX `Lcl` chain is frame 0, not the figure pose, but the ears are not
/// animated: relative to `Bip01 Head`, each ear link sits where the figure angles (0x0073)
/// put it (0x0266, the current pose, misses by 0.17–0.34). The ears are 25-cm links on a
/// 160-cm figure: rotation 1e-5 and position 5e-4 cm, as on the Rocketbox rigs.
#[test]
fn yellows_two_link_ear_xtras_match_the_fbx_under_the_head() {
    let Some(corpus) = pmtests::shared_corpus("biped") else { return };
    let (rig, scene) = rig_and_fbx(&corpus, "../wild/tae8838__yellow@spawn.max");
    let pose = FigurePose::new(&rig.system);
    let fbx_of = |n: &str| fbx_world(&scene, scene.nodes.iter().position(|x| x.name == n).expect(n));
    let fbx_head = fbx_of("Bip01 Head");
    let head = pose.bone(bone::HEAD, 0).world().expect("yellow's head");
    let ears: Vec<_> = rig.slaves.iter().filter(|s| (bone::XTRA..bone::XTRA_NUB).contains(&s.bone)).collect();
    assert_eq!(ears.len(), 4, "yellow's ear links");
    for s in ears {
        let want = fbx_head.inverse() * fbx_of(&s.name);
        let got = head.inverse() * pose.bone(s.bone, s.link).world().unwrap_or_else(|e| panic!("{}: {e}", s.name));
        let r =
            (DMat3::from_mat4(got) - DMat3::from_mat4(want)).to_cols_array().iter().fold(0.0f64, |a, v| a.max(v.abs()));
        let p = (got.w_axis - want.w_axis).truncate().length();
        assert!(
            r < ROTATION_TOLERANCE && p < POSITION_TOLERANCE_CM,
            "{}: rotation {r:.2e}, position {p:.2e} cm",
            s.name
        );
    }
}

/// The LD35 rigs (Copy Collections: the figure block repeated 3–19 times before the live one)
/// and FA16 decode, and every BipSlave names a slot of the node table that holds its own node
/// (`BipedRig::read` refuses otherwise). Node counts as the independent reader measured them
/// (docs/biped-format-notes.md §6).
#[test]
fn every_bipslave_names_its_node_in_the_node_table() {
    let Some(corpus) = pmtests::shared_corpus("biped") else { return };
    let expected = [
        ("../wild/tae8838__player.max", 23),
        ("../wild/tae8838__red@spawn.max", 21),
        ("../wild/tae8838__yellow@spawn.max", 27),
        ("../wild/tae8838__player@idle.max", 23),
        ("rocketbox/Source/Avatars/Adults/Female_Adult_16/Source/Female_Adult_16.max", 121),
    ];
    let manifest = pmtests::manifest(&corpus);
    for (name, slaves) in expected {
        assert!(manifest.contains_key(name), "the biped manifest no longer lists {name}");
        let rig = read_rig(&corpus.join(name));
        assert_eq!(rig.slaves.len(), slaves, "{name}: nodes driven by a BipSlave");
        assert!(rig.com_node.is_some(), "{name}: no COM node");
        assert!(rig.slaves.iter().all(|s| rig.system.node_of(s.bone, s.link) == Some(s.node)), "{name}");
    }
}

/// The pairs `transforms` comparison takes a keyless Biped's bones from the figure-mode
/// placement: on FA16 it compares the 81 placed bones (the 28 facial xtras included), the
/// Footsteps marker (on the ground below the COM) and the skinned mesh (Biped bones by world
/// matrix, relative to the rig), all within the pairs tolerances (translation 1e-5 relative,
/// rotation 1e-4, widened for the two FA16 xtras whose stored angles sit at gimbal lock:
/// `RMouthBottom` is 2.25e-4 off, `RUpperlip` 5.3e-5).
#[test]
fn pairs_transforms_compare_the_placed_biped_bones() {
    let Some(corpus) = pmtests::shared_corpus("biped") else { return };
    let name = "rocketbox/Source/Avatars/Adults/Female_Adult_16/Source/Female_Adult_16.max";
    let manifest = pmtests::manifest(&corpus);
    let bytes = std::fs::read(corpus.join(name)).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{name} is not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("Scene");
    let index = trees.index().expect("Scene root");
    let export = &manifest[name]["exports"];
    let scene = pmref::read_reference("fbx", &std::fs::read(corpus.join(export)).unwrap()).unwrap();
    let all = pmref::compare::compare_all(&index, &scene, export);
    let transforms = all.iter().find(|c| c.name == "transforms").expect("a transforms comparison");
    let d = &transforms.detail;
    assert_eq!((d["nodes_compared"].as_u64(), d["nodes_unreadable_in_max"].as_u64()), (Some(83), Some(0)), "{d:#}");
    // RMouthBottom is 2.25e-4 off, inside its rotation tolerance widened by the f32 spread of
    // its gimbal-locked angles (`FigurePose::rotation_spread`), and so within; nothing is off.
    assert_eq!(d["nodes_off"].as_u64(), Some(0), "{d:#}");
    let rotation = d["max_linear_error"].as_f64().unwrap();
    assert!(rotation > 1e-4 && rotation < GIMBAL_LOCK_TOLERANCE, "{d:#}");
    let widened = d["linear_tolerance_widened_at_gimbal_lock"].as_array().unwrap();
    assert!(widened.iter().any(|w| w["node"] == "Bip01 RMouthBottom"), "{d:#}");
}
