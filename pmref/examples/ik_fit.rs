//! IK chains against an export (diagnostics): `ik_fit MAX EXPORT` prints, per chain, the
//! joints' world positions the export holds at its start pose and the pieces the `.max`
//! stores (goal, FK and preferred poses).
use glam::{DMat4, DVec3, Mat4};
use pmcore::eval::ik::{fk_at, goal_at, IkChain};
use pmcore::model::keys::world_matrix_at;
use pmcore::model::scene_index::SceneTrees;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!() };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let ext = a[2].rsplit('.').next().unwrap();
    let scene = pmref::read_reference(ext, &std::fs::read(&a[2]).unwrap()).unwrap();
    let conv = DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2);
    // A name Max holds twice: its second node is `NAME_ncl1_1` in the export.
    let first_of: std::collections::HashMap<String, usize> = index
        .objects
        .iter()
        .filter(|o| o.is_node())
        .rev()
        .filter_map(|o| Some((o.node_name()?, o.storage_index)))
        .collect();
    let ref_of = |storage: usize| -> String {
        let name = index.objects[storage].node_name().unwrap();
        if first_of.get(&name) == Some(&storage) {
            name
        } else {
            format!("{name}_ncl1_1")
        }
    };
    let ref_world = |name: &str| -> DMat4 {
        let mut i = scene.nodes.iter().position(|n| n.name == name).unwrap();
        let mut m = DMat4::IDENTITY;
        loop {
            m = scene.nodes[i].local * m;
            match scene.nodes[i].parent {
                Some(p) => i = p,
                None => break,
            }
        }
        conv.inverse() * m
    };
    let d = |m: Mat4| DMat4::from_cols_array(&m.to_cols_array().map(|v| v as f64));
    let tick = 0.0;
    for o in index.objects.iter().filter(|o| o.is_node()) {
        let Ok(chain) = IkChain::of(&index, o) else { continue };
        println!(
            "== {} solver {} swivel {} sa_parent {}",
            o.node_name().unwrap(),
            chain.solver,
            chain.swivel,
            chain.swivel_parent
        );
        let goal = goal_at(&index, &chain, tick).unwrap();
        let chain_name = o.node_name().unwrap();
        println!("  goal max {:?}  ref {:?}", goal.translation, ref_world(&chain_name).w_axis.truncate());
        let start = &index.objects[chain.bones[0].node];
        let parent = index.get(start.node_parent().unwrap()).unwrap();
        let pw = d(world_matrix_at(&index, parent, tick).unwrap());
        let mut worlds_pref = vec![];
        let mut fk = pw;
        let mut pref = pw;
        for b in &chain.bones {
            let n = index.objects[b.node].node_name().unwrap();
            let l = fk_at(&index, b, tick).unwrap();
            fk *= d(l.matrix());
            pref *=
                DMat4::from_rotation_translation(b.preferred_rotation().as_dquat(), b.preferred_position.as_dvec3());
            let r = ref_world(&ref_of(b.node));
            worlds_pref.push((pref, r));
            println!(
                "  {n}: pref pos {:?} euler {:?}\n     fk local t {:?} r {:?} s {:?}",
                b.preferred_position,
                b.preferred_euler,
                l.translation,
                l.rotation.to_euler(glam::EulerRot::ZYX),
                l.scale
            );
            println!(
                "     world ref {:?}\n     world fk  {:?}\n     world pref {:?}",
                r.w_axis.truncate(),
                fk.w_axis.truncate(),
                pref.w_axis.truncate()
            );
            let rl = (pw.inverse() * r).to_scale_rotation_translation();
            let _ = DVec3::ZERO;
            println!("     ref rot rel parent-of-start {:?}", rl.1.to_euler(glam::EulerRot::ZYX));
        }
        if worlds_pref.len() == 3 {
            let p = |m: &DMat4| m.w_axis.truncate();
            let (s0, m0, e0) = (p(&worlds_pref[0].0), p(&worlds_pref[1].0), p(&worlds_pref[2].0));
            let (s, mr, er) = (p(&worlds_pref[0].1), p(&worlds_pref[1].1), p(&worlds_pref[2].1));
            let g = goal.translation.as_dvec3();
            let a0 = (e0 - s0).normalize();
            let n0 = (m0 - s0).cross(e0 - s0).normalize();
            let a = (g - s).normalize();
            let transport = glam::DQuat::from_rotation_arc(a0, a);
            let nz = transport * n0;
            let nref = (mr - s).cross(er - s).normalize();
            let ang = nz.cross(nref).dot(a).atan2(nz.dot(nref));
            println!(
                "  lengths pref {} {} ref {} {}; |G-S| {} ; E_ref-G {}",
                (m0 - s0).length(),
                (e0 - m0).length(),
                (mr - s).length(),
                (er - mr).length(),
                (g - s).length(),
                (er - g).length()
            );
            let signed = |x: DVec3| {
                let x = (x - a * x.dot(a)).normalize();
                x.cross(nref).dot(a).atan2(x.dot(nref))
            };
            let gr = goal.rotation.as_dquat();
            println!("  goal rot euler {:?}", goal.rotation.to_euler(glam::EulerRot::ZYX));
            println!("  variants: projection {} goalrot*n0 proj {} goalrot*n0 transported-from goalrot*a0 {} transported(goalrot) {}", signed(n0), signed(gr * n0), signed(glam::DQuat::from_rotation_arc(gr * a0, a) * (gr * n0)), signed(glam::DQuat::from_rotation_arc(a0, a) * (gr*n0)));
            let sb = worlds_pref[0].0;
            let mb = worlds_pref[1].0;
            println!(
                "  start axes X {} Y {} Z {} ; mid axes X {} Y {} Z {}",
                signed(sb.x_axis.truncate()),
                signed(sb.y_axis.truncate()),
                signed(sb.z_axis.truncate()),
                signed(mb.x_axis.truncate()),
                signed(mb.y_axis.truncate()),
                signed(mb.z_axis.truncate())
            );
            for b in &chain.bones {
                let node = &index.objects[b.node];
                if let Some(Ok(w)) = pmcore::eval::ik_solve::world_at(&index, node, tick) {
                    let r = ref_world(&ref_of(b.node));
                    let dl = (0..3).map(|c| (w.col(c) - r.col(c)).truncate().abs().max_element()).fold(0.0, f64::max);
                    println!(
                        "  solved vs ref {}: translation {:.3e} linear {:.3e}",
                        node.node_name().unwrap(),
                        (w.w_axis - r.w_axis).length(),
                        dl
                    );
                }
            }
            let (_, rm_ref, _) = (worlds_pref[0].1.inverse() * worlds_pref[1].1).to_scale_rotation_translation();
            let (_, rm_pref, _) = (worlds_pref[0].0.inverse() * worlds_pref[1].0).to_scale_rotation_translation();
            let delta = rm_pref.inverse() * rm_ref;
            let (ax, an) = delta.to_axis_angle();
            println!(
                "  knee delta (mid frame) axis {:?} angle {}; n0 in mid frame {:?}",
                ax,
                an,
                (worlds_pref[1].0.inverse().transform_vector3(n0)).normalize()
            );
            println!(
                "  signed angle transported-n0 -> ref normal about a: {} rad ({} deg); swivel {}",
                ang,
                ang.to_degrees(),
                chain.swivel
            );
            // in parent-of-start space
            let pinv = pw.inverse();
            let a0l = pinv.transform_vector3(a0);
            let n0l = pinv.transform_vector3(n0);
            println!("  a0 (parent space) {:?} n0 {:?}", a0l, n0l);
        }
    }
}
