//! Linear blend skinning of a node's Skin against the posed mesh an export holds
//! (diagnostics): `skin_probe MAX EXPORT NODE [TICK...]` prints, per tick and per variant of
//! the composition, the largest distance to the reference vertices.
use glam::{Mat4, Vec3, Vec4};
use pmcore::chunk::Chunk;
use pmcore::eval::stack::stack_with_data;
use pmcore::model::controllers::object_offset;
use pmcore::model::keys::world_matrix_at;
use pmcore::model::scene_index::SceneTrees;

fn matrix3(c: &Chunk<'_>) -> Option<Mat4> {
    let p = c.child(0x03e8)?.payload()?;
    let f: Vec<f32> = p.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some(Mat4::from_cols(
        Vec4::new(f[0], f[1], f[2], 0.0),
        Vec4::new(f[3], f[4], f[5], 0.0),
        Vec4::new(f[6], f[7], f[8], 0.0),
        Vec4::new(f[9], f[10], f[11], 1.0),
    ))
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!() };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let ext = a[2].rsplit('.').next().unwrap();
    let scene = pmref::read_reference(ext, &std::fs::read(&a[2]).unwrap()).unwrap();
    let node = index.node_by_name(&a[3]).unwrap();
    let r = scene.nodes.iter().find(|n| n.name == a[3]).unwrap();
    let rm = r.mesh.as_ref().unwrap();
    let reference: Vec<Vec3> =
        rm.positions.iter().map(|q| r.geometric.transform_point3(glam::DVec3::from_array(*q)).as_vec3()).collect();
    println!("start {:?}", scene.start_time);
    let (base, mods) = stack_with_data(&index, node).unwrap();
    let skin = mods
        .iter()
        .find(|m| m.object.class.as_ref().is_some_and(|c| c.class_id == pmcore::classes::ids::SKIN))
        .unwrap();
    let bones: Vec<_> = skin
        .object
        .references()
        .into_iter()
        .filter_map(|(_, t)| t.and_then(|t| index.get(t)))
        .filter(|o| o.is_node())
        .collect();
    let inits: Vec<Mat4> = skin.object.chunk.children().iter().filter(|c| c.id == 0x0480).filter_map(matrix3).collect();
    let invs: Vec<Mat4> = skin.object.chunk.children().iter().filter(|c| c.id == 0x0025).filter_map(matrix3).collect();
    let local = skin.mod_app.unwrap().child(0x2512).unwrap();
    let base_tm = matrix3(local.child(0x0010).unwrap()).unwrap();
    println!("bones {} inits {} invs {} base_tm {:?}", bones.len(), inits.len(), invs.len(), base_tm.w_axis);
    let infl = pmcore::model::skin::vertex_influences(skin.mod_app.unwrap()).unwrap().unwrap();
    let mesh = pmcore::eval::stack::evaluate_base(&index, base, 1_000_000).unwrap();
    if let Ok(list) = std::env::var("PROBE_VERTS") {
        for v in list.split(',').map(|x| x.parse::<usize>().unwrap()) {
            let names: Vec<String> = infl[v]
                .weights()
                .iter()
                .map(|(b, w)| format!("{}:{w:.4}", bones[*b as usize].node_name().unwrap_or_default()))
                .collect();
            println!("v{v} {:?} ref {:?} weights {}", mesh.positions[v], reference[v], names.join(" "));
        }
    }
    let off = object_offset(node).matrix();
    let mut ticks: Vec<f64> = a[4..].iter().map(|s| s.parse().unwrap()).collect();
    if ticks.is_empty() {
        ticks = vec![0.0];
    }
    for t in ticks {
        let bone_now: Vec<Mat4> = bones.iter().map(|b| world_matrix_at(&index, b, t).unwrap()).collect();
        let node_now = world_matrix_at(&index, node, t).unwrap();
        for (k, b) in bones.iter().enumerate() {
            println!(
                "  bone {} now t {:?} init t {:?}",
                b.node_name().unwrap_or_default(),
                bone_now[k].w_axis,
                inits[k].w_axis
            );
        }
        println!("  node now {:?}", node_now.w_axis);
        for variant in 0..4 {
            let mut worst = (0.0f32, 0usize, Vec3::ZERO);
            for (i, p) in mesh.positions.iter().enumerate() {
                let pw = match variant {
                    0 | 1 => base_tm.transform_point3(*p),
                    _ => (node_now * off).transform_point3(*p),
                };
                let mut acc = Vec3::ZERO;
                for (b, w) in infl[i].weights() {
                    let bind_inverse = if variant % 2 == 0 { inits[b as usize].inverse() } else { invs[b as usize] };
                    acc += (bone_now[b as usize] * bind_inverse).transform_point3(pw) * w as f32;
                }
                let back = node_now.inverse().transform_point3(acc);
                let d = (back - reference[i]).length();
                if d > worst.0 {
                    worst = (d, i, back);
                }
            }
            println!(
                "tick {t} variant {variant}: worst {} (vertex {} skinned {:?} reference {:?})",
                worst.0, worst.1, worst.2, reference[worst.1]
            );
        }
    }
}
