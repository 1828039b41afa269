//! One IK chain against a baked export, pose by pose (diagnostics, issue 40 point 3):
//! `ik_axes MAX FBX [CHAIN]` (default `IK Chain003`). Per baked key it prints the middle
//! joint's turn from its preferred local rotation (axis in the middle joint's frame, angle),
//! the solved triangle's normal in that frame, how far the end joint is from the goal, and
//! how far two candidate rules are from the export's joint rotations: each joint turned by
//! the shortest arc taking its preferred bone direction to the exported one (world, and the
//! middle joint carried by its parent first), and the current pivot-triangle rule.
use glam::{DMat3, DMat4, DQuat, DVec3, Mat4};
use pmcore::eval::ik::{fk_at, IkChain};
use pmcore::model::scene_index::SceneTrees;
use pmref::scene::{FbxTransform, RefScene};

/// The local matrix of node `i` at FBX time `t` (each curve's key at or before `t`).
fn local_at(scene: &RefScene, i: usize, t: i64) -> DMat4 {
    let n = &scene.nodes[i];
    let Some(f) = &n.fbx_transform else { return n.local };
    let mut f = f.clone();
    for c in scene.curves.iter().filter(|c| c.node == i && !c.times.is_empty()) {
        let Some(ch) = FbxTransform::channel_index(c.channel) else { continue };
        let k = match c.times.binary_search(&t) {
            Ok(k) => k,
            Err(k) => k.saturating_sub(1).min(c.times.len() - 1),
        };
        f.lcl[ch][c.component] = c.values[k];
    }
    f.matrix()
}

/// World matrix of the node named `name` at `t`, in Max's axes.
fn world_at(scene: &RefScene, name: &str, t: i64) -> Option<DMat4> {
    let mut i = scene.nodes.iter().position(|n| n.name == name)?;
    let mut m = DMat4::IDENTITY;
    loop {
        m = local_at(scene, i, t) * m;
        match scene.nodes[i].parent {
            Some(p) => i = p,
            None => break,
        }
    }
    Some(DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2).inverse() * m)
}

fn rotation(m: &DMat4) -> DQuat {
    DQuat::from_mat3(&DMat3::from_cols(
        m.x_axis.truncate().normalize(),
        m.y_axis.truncate().normalize(),
        m.z_axis.truncate().normalize(),
    ))
}

/// The rotation taking the frame (`u0`, `n0`) to (`u`, `n`): the current pivot-triangle rule.
fn frame_turn(u0: DVec3, n0: DVec3, u: DVec3, n: DVec3) -> DQuat {
    let f = |u: DVec3, n: DVec3| {
        let n = (n - u * n.dot(u)).normalize();
        DMat3::from_cols(u, n, u.cross(n))
    };
    DQuat::from_mat3(&(f(u, n) * f(u0, n0).transpose()))
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (Some(max), Some(fbx)) = (a.get(1), a.get(2)) else {
        eprintln!("usage: ik_axes MAX FBX [CHAIN]");
        return;
    };
    let bytes = std::fs::read(max).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not a .max") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let scene = pmref::read_reference("fbx", &std::fs::read(fbx).unwrap()).unwrap();
    let want = a.get(3).cloned().unwrap_or_else(|| "IK Chain003".into());
    let mut times: Vec<i64> = scene.curves.iter().flat_map(|c| c.times.iter().copied()).collect();
    times.sort_unstable();
    times.dedup();
    let d = |m: Mat4| DMat4::from_cols_array(&m.to_cols_array().map(f64::from));
    let p = |m: &DMat4| m.w_axis.truncate();
    for o in index.objects.iter().filter(|o| o.is_node() && o.node_name().as_deref() == Some(want.as_str())) {
        let chain = IkChain::of(&index, o).unwrap();
        let names: Vec<String> = chain.bones.iter().map(|b| index.objects[b.node].node_name().unwrap()).collect();
        let pref = |i: usize| {
            let b = &chain.bones[i];
            DMat4::from_rotation_translation(b.preferred_rotation().as_dquat(), b.preferred_position.as_dvec3())
        };
        let start = &index.objects[chain.bones[0].node];
        let parent_name = start.node_parent().and_then(|p| index.objects[p].node_name()).unwrap();
        let end_local = d(fk_at(&index, &chain.bones[2], 0.0).unwrap().matrix());
        println!("{want}: {names:?}; end joint in the middle joint's frame {:?}", p(&end_local));
        for &t in &times {
            let w = |n: &str| world_at(&scene, n, t).unwrap();
            let (sw, mw, ew, gw) = (w(&names[0]), w(&names[1]), w(&names[2]), w(&want));
            let (s, m, e, g) = (p(&sw), p(&mw), p(&ew), p(&gw));
            let (_, knee, _) = (pref(1).inverse() * (sw.inverse() * mw)).to_scale_rotation_translation();
            let (axis, angle) = knee.to_axis_angle();
            // The preferred pose under the exported start joint's parent.
            let s0w = w(&parent_name) * pref(0);
            let m0w = s0w * pref(1);
            let e0w = m0w * end_local;
            let (s0, m0, e0) = (p(&s0w), p(&m0w), p(&e0w));
            let (sr, mr) = (rotation(&sw), rotation(&mw));
            let arc_start = DQuat::from_rotation_arc((m0 - s0).normalize(), (m - s).normalize()) * rotation(&s0w);
            let arc_mid = DQuat::from_rotation_arc((e0 - m0).normalize(), (e - m).normalize()) * rotation(&m0w);
            let carried = arc_start * (rotation(&s0w).inverse() * rotation(&m0w));
            let carried_dir = carried * (rotation(&m0w).inverse() * (e0 - m0));
            let arc_carried = DQuat::from_rotation_arc(carried_dir.normalize(), (e - m).normalize()) * carried;
            let (n0, n) = ((m0 - s0).cross(e0 - s0).normalize(), (m - s).cross(e - s).normalize());
            let frame_start = frame_turn((m0 - s0).normalize(), n0, (m - s).normalize(), n) * rotation(&s0w);
            let frame_mid = frame_turn((e0 - m0).normalize(), n0, (e - m).normalize(), n) * rotation(&m0w);
            println!(
                "frame {:>3}: knee axis {axis:.6?} angle {angle:.6} | normal (mid frame) {:.6?} | |E-G| {:.1e} | arc start {:.1e} mid {:.1e} carried mid {:.1e} | pivot-triangle start {:.1e} mid {:.1e}",
                t / 1_539_538_600,
                mw.inverse().transform_vector3(n).normalize(),
                (e - g).length(),
                sr.angle_between(arc_start),
                mr.angle_between(arc_mid),
                mr.angle_between(arc_carried),
                sr.angle_between(frame_start),
                mr.angle_between(frame_mid),
            );
        }
    }
}
