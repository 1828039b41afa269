//! One reference mesh against pmcore's evaluation, for new evaluators (diagnostics):
//! `geom_probe MAX EXPORT NODE [N]` prints the node's stack (classes, parameter values, the
//! mod-app chunks), the base and evaluated positions of the first N vertices, and the
//! reference's positions of the same vertices.
use pmcore::chunk::Chunk;
use pmcore::eval::params::Params;
use pmcore::eval::stack::{stack_with_data, NodeOutcome};
use pmcore::eval::Evaluated;
use pmcore::model::controllers::object_offset;
use pmcore::model::scene_index::SceneTrees;

fn show(c: &Chunk<'_>, depth: usize, max_depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) => println!("{pad}0x{:04x} [{}] {:02x?}", c.id, p.len(), &p[..p.len().min(64)]),
        None => {
            println!("{pad}0x{:04x} {{", c.id);
            if depth < max_depth {
                for k in c.children() {
                    show(k, depth + 1, max_depth);
                }
            }
        }
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let ext = a[2].rsplit('.').next().unwrap();
    let scene = pmref::read_reference(ext, &std::fs::read(&a[2]).unwrap()).unwrap();
    let name = &a[3];
    let n: usize = a.get(4).map(|s| s.parse().unwrap()).unwrap_or(8);
    let depth: usize = std::env::var("PROBE_DEPTH").ok().map(|s| s.parse().unwrap()).unwrap_or(3);
    let node = index.node_by_name(name).expect("no such Max node");
    let (base, mods) = stack_with_data(&index, node).unwrap();
    println!("base #{} {:?}", base.storage_index, base.class.as_ref().map(|c| (&c.name, c.class_id)));
    println!("object offset {:?}", object_offset(node).matrix());
    for m in mods.iter().rev() {
        let c = m.object.class.as_ref();
        println!(
            "modifier #{} {:?} refs {:?}",
            m.object.storage_index,
            c.map(|c| (&c.name, c.class_id)),
            m.object.references()
        );
        for (slot, _) in m.object.references() {
            if let Ok(p) = Params::of(&index, m.object, slot) {
                println!("  params (slot {slot}) {:?}", p.values());
            }
        }
        if std::env::var("PROBE_CHUNKS").is_ok() {
            show(m.object.chunk, 2, depth);
            for (slot, t) in m.object.references() {
                let Some(t) = t.and_then(|t| index.get(t)) else { continue };
                println!("  ref {slot} -> #{} {:?}", t.storage_index, t.class.as_ref().map(|c| (&c.name, c.class_id)));
                show(t.chunk, 3, depth);
            }
        }
        if let Some(app) = m.mod_app {
            println!("  mod app:");
            show(app, 2, depth);
        }
    }
    let base_eval = pmcore::eval::evaluate_node(&index, node, 1_000_000, true);
    let full = pmcore::eval::evaluate_node(&index, node, 1_000_000, false);
    let positions = |e: &pmcore::eval::NodeEval| match &e.outcome {
        NodeOutcome::Evaluated(Evaluated::Mesh(m)) => m.positions.clone(),
        other => {
            println!("outcome {other:?}");
            Vec::new()
        }
    };
    let (b, f) = (positions(&base_eval), positions(&full));
    let reference = scene.nodes.iter().find(|r| &r.name == name).and_then(|r| r.mesh.as_ref().map(|m| (r, m)));
    println!("vertices: base {} evaluated {} reference {:?}", b.len(), f.len(), reference.map(|r| r.1.positions.len()));
    let only: Option<Vec<usize>> =
        std::env::var("PROBE_VERTS").ok().map(|s| s.split(',').map(|x| x.parse().unwrap()).collect());
    for (i, evaluated) in f.iter().enumerate().take(n) {
        if only.as_ref().is_some_and(|o| !o.contains(&i)) {
            continue;
        }
        let r = reference.and_then(|(r, m)| {
            m.positions.get(i).map(|q| r.geometric.transform_point3(glam::DVec3::from_array(*q)).to_array())
        });
        println!("v{i}: base {:?} eval {:?} ref {:?}", b.get(i).map(|v| v.to_array()), evaluated.to_array(), r);
    }
}
