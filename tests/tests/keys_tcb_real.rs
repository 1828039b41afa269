//! TCB, Linear and Bezier Position key tables on named real files (issue 40 point 1).
//!
//! The real reference for TCB is what 3ds Max itself cached in each key: TCB Position keys
//! carry the incoming and outgoing tangents Max computed (words 10..15), TCB Rotation keys
//! the squad control quaternions (words 15..22). `wild/buwaka__poltrona-swan.max` keys
//! TCB Position and Rotation tracks (in its animation layers): the tangents and controls
//! pmcore computes from the keys' values, times and TCB parameters must equal those caches,
//! and one tension changed must be caught against them.

use pmcore::model::keys_tcb::{self, TcbVecKey};
use pmcore::model::scene_index::SceneTrees;

fn wild_bytes(name: &str) -> Option<Vec<u8>> {
    let dir = pmtests::shared_corpus("wild")?;
    Some(std::fs::read(dir.join(name)).unwrap())
}

fn public_bytes(name: &str) -> Option<Vec<u8>> {
    let dir = pmtests::shared_corpus("public")?;
    Some(std::fs::read(dir.join(name)).unwrap())
}

/// Largest relative difference between pmcore's tangents of `keys` and Max's cache scaled
/// by `factor`, over every cached tangent (the first key's incoming and the last key's
/// outgoing tangent are not used by Max and not compared).
fn worst_cache_error(keys: &[TcbVecKey], factor: f64) -> f64 {
    let ours = keys_tcb::tcb_tangents(keys);
    let mut worst = 0.0f64;
    for (i, (k, t)) in keys.iter().zip(&ours).enumerate() {
        let cache = k.cache.expect("position keys carry a cache");
        for side in 0..2 {
            if (i == 0 && side == 0) || (i + 1 == keys.len() && side == 1) {
                continue;
            }
            let max = cache[side].as_dvec3() / factor;
            let scale = max.length().max(t[side].length()).max(1e-9);
            let e = (max - t[side]).length() / scale;
            worst = worst.max(e);
        }
    }
    worst
}

/// Buwaka #9092 (TCB Position, 19 keys from tick 0, all TCB parameters 0): the
/// tangents of the middle keys and of both end keys equal Max's cache times 1/2.54 (the
/// file's unit rescale) to 1e-5 relative; with key 2's tension set to 0.5 the middle
/// tangents halve and the check fails (the perturbation is caught).
#[test]
fn tcb_position_tangents_equal_the_ones_max_cached_and_a_changed_tension_is_caught() {
    let Some(bytes) = wild_bytes("buwaka__poltrona-swan.max") else { return };
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let keys = keys_tcb::tcb_vec_keys(index.get(9092).unwrap()).unwrap().unwrap();
    assert_eq!(keys.len(), 19);
    let neutral =
        |t: &keys_tcb::Tcb| [t.tension, t.continuity, t.bias, t.ease_in, t.ease_out].iter().all(|v| v.abs() < 1e-6);
    assert!(keys.iter().all(|k| neutral(&k.tcb)), "{keys:?}");
    let inch = 1.0 / 2.54;
    let worst = worst_cache_error(&keys, inch);
    assert!(worst < 1e-5, "tangents differ from Max's cache by {worst}");
    let mut changed = keys.clone();
    changed[2].tcb.tension = 0.5;
    let worst = worst_cache_error(&changed, inch);
    assert!(worst > 0.1, "a changed tension was not caught: {worst}");
    // Every keyed TCB Position of the file with two or more keys agrees: its cache equals
    // pmcore's tangents, or (the rescaled tracks) pmcore's times 1/2.54 on every key.
    let (mut equal, mut rescaled) = (0, 0);
    for o in &index.objects {
        let Ok(Some(keys)) = keys_tcb::tcb_vec_keys(o) else { continue };
        if keys.len() < 2 {
            continue;
        }
        let (plain, inches) = (worst_cache_error(&keys, 1.0), worst_cache_error(&keys, inch));
        assert!(plain.min(inches) < 2e-4, "object #{}: {plain} / {inches}", o.storage_index);
        if plain < inches {
            equal += 1;
        } else {
            rescaled += 1;
        }
    }
    eprintln!("buwaka TCB Position tracks: {equal} cache-equal, {rescaled} cache × 1/2.54");
    assert!(equal >= 1 && rescaled >= 1);
}

/// Every keyed TCB Rotation of buwaka: the squad controls pmcore computes equal the two
/// quaternions Max cached per key (up to sign) to 1e-4; with one key's tension changed the
/// controls of a track with a turning middle key move off the cache.
#[test]
fn tcb_rotation_controls_equal_the_ones_max_cached() {
    let Some(bytes) = wild_bytes("buwaka__poltrona-swan.max") else { return };
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let close = |a: glam::DQuat, b: glam::Quat| {
        let b = glam::DQuat::from_xyzw(b.x as f64, b.y as f64, b.z as f64, b.w as f64);
        a.dot(b).abs() > 1.0 - 1e-6
    };
    let (mut tracks, mut caught) = (0, 0);
    for o in &index.objects {
        let Ok(Some(keys)) = keys_tcb::tcb_rot_keys(o) else { continue };
        if keys.is_empty() {
            continue;
        }
        tracks += 1;
        let controls = keys_tcb::tcb_controls(&keys).expect("no multi-turn key");
        for (i, (k, c)) in keys.iter().zip(&controls).enumerate() {
            assert!(
                close(c[0], k.cache[0]) && close(c[1], k.cache[1]),
                "object #{} key {i}: ours {c:?}, Max's {:?}",
                o.storage_index,
                k.cache
            );
        }
        let mut changed = keys.clone();
        if changed.len() >= 3 {
            changed[1].tcb.tension = 0.5;
            let moved = keys_tcb::tcb_controls(&changed).unwrap();
            if !(close(moved[1][0], keys[1].cache[0]) && close(moved[1][1], keys[1].cache[1])) {
                caught += 1;
            }
        }
    }
    assert!(tracks >= 40, "{tracks} keyed TCB rotations");
    assert!(caught >= 1, "no track shows a changed tension");
}

/// `public/paolohilario__clr-standard.max`: camera `CLR_ELEV:CAM` has a Bezier Position with
/// four keys (0, 160, 320, 480 ticks) and a one-key TCB Rotation. Its local position is
/// the key value at each key time; at tick 80 (flat custom tangents) each component is the
/// midpoint of its neighbours (the Bezier cubic with flat handles is symmetric).
#[test]
fn a_bezier_position_camera_is_placed_at_its_keys_and_between_them() {
    let Some(bytes) = public_bytes("paolohilario__clr-standard.max") else { return };
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let node = index.node_by_name("CLR_ELEV:CAM").expect("camera node");
    let position = index.get(node.reference(0).unwrap()).unwrap().reference(0).unwrap();
    let tracks = pmcore::model::keys_linear::bezier_position_keys(index.get(position).unwrap()).unwrap().unwrap();
    assert_eq!(tracks[0].iter().map(|k| k.time).collect::<Vec<_>>(), [0, 160, 320, 480]);
    let local = |tick: f64| pmcore::model::keys::world_matrix_at(&index, node, tick).unwrap().w_axis.truncate();
    for (k, x) in tracks[0].iter().enumerate() {
        let want = glam::Vec3::new(x.value, tracks[1][k].value, tracks[2][k].value);
        let got = local(x.time as f64);
        assert!((got - want).length() < 1e-3 * want.length().max(1.0), "key {k}: {got} vs {want}");
    }
    let mid = (glam::Vec3::new(tracks[0][0].value, tracks[1][0].value, tracks[2][0].value)
        + glam::Vec3::new(tracks[0][1].value, tracks[1][1].value, tracks[2][1].value))
        / 2.0;
    let got = local(80.0);
    assert!((got - mid).length() < 1e-2, "{got} vs {mid}");
}

/// `wild/ryu-ko__9_2.max`, node `Корпус`: a Position List of two entries (a Position XYZ
/// and a Path Constraint) whose weight ParamBlock2 decodes to one weight per entry; the
/// node's transform now stops at the Path Constraint, named, not at the list.
#[test]
fn a_position_list_decodes_its_entries_and_weights() {
    let Some(bytes) = wild_bytes("ryu-ko__9_2.max") else { return };
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let node = index.node_by_name("Корпус").expect("node");
    let list = index.get(index.get(node.reference(0).unwrap()).unwrap().reference(0).unwrap()).unwrap();
    let entries = pmcore::model::list_controllers::list_entries(&index, list, "position").unwrap();
    eprintln!("{entries:?}");
    assert_eq!(entries.kind, pmcore::model::list_controllers::ListKind::Position);
    assert_eq!(entries.entries.iter().map(|e| e.0).collect::<Vec<_>>(), [Some(263), Some(269)]);
    assert!(entries.entries.iter().all(|e| e.1 == 1.0), "{entries:?}");
    let err = pmcore::model::keys::world_matrix_at(&index, node, 0.0).unwrap_err().to_string();
    assert!(err.contains("Path Constraint"), "{err}");
}
