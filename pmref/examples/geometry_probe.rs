//! One pair's meshes side by side (diagnostics for new evaluators): per reference mesh, its
//! vertex count and polygon sizes, and pmcore's evaluated mesh of the node of that name.
//! `cargo run -p pmref --example geometry_probe -- MAX EXPORT [NODE [v]]` (`v` prints vertices).
use pmcore::eval::{evaluate_node, Evaluated, NodeOutcome, DEFAULT_BUDGET_VERTICES};
use pmcore::model::scene_index::SceneTrees;
use std::collections::BTreeMap;

fn sizes<'a>(polys: impl Iterator<Item = &'a usize>) -> BTreeMap<usize, usize> {
    let mut h = BTreeMap::new();
    for &n in polys {
        *h.entry(n).or_default() += 1;
    }
    h
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).expect("max");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("scene");
    let index = trees.index().expect("index");
    let ext = args[2].rsplit('.').next().unwrap_or_default().to_string();
    let scene = pmref::read_reference(&ext, &std::fs::read(&args[2]).expect("export")).expect("reference");
    let only = args.get(3);
    let verbose = args.get(4).is_some_and(|a| a == "v");
    for node in &scene.nodes {
        let Some(mesh) = &node.mesh else { continue };
        if only.is_some_and(|o| o != &node.name) {
            continue;
        }
        let lens: Vec<usize> = mesh.polygons.iter().map(Vec::len).collect();
        println!(
            "REF {} v {} polys {} sizes {:?}",
            node.name,
            mesh.positions.len(),
            mesh.polygons.len(),
            sizes(lens.iter())
        );
        if verbose {
            for (i, p) in mesh.positions.iter().enumerate() {
                let q = node.geometric.transform_point3(glam::DVec3::from_array(*p));
                println!("  r{i} {:.4} {:.4} {:.4}", q.x, q.y, q.z);
            }
            for p in &mesh.polygons {
                println!("  rf {p:?}");
            }
        }
        let Some(o) =
            index.objects.iter().find(|o| o.is_node() && o.node_name().as_deref() == Some(node.name.as_str()))
        else {
            println!("  MAX: no node");
            continue;
        };
        let e = evaluate_node(&index, o, DEFAULT_BUDGET_VERTICES, false);
        match e.outcome {
            NodeOutcome::Evaluated(Evaluated::Mesh(m)) => {
                let lens: Vec<usize> = m.polygons.iter().map(|p| p.corners.len()).collect();
                println!(
                    "  MAX v {} polys {} tris {} rule {:?} sizes {:?}",
                    m.positions.len(),
                    m.polygons.len(),
                    m.counts().triangles,
                    m.rule,
                    sizes(lens.iter())
                );
                if verbose {
                    let off = pmcore::model::controllers::object_offset(o).matrix();
                    for (i, p) in m.positions.iter().enumerate() {
                        let q = off.transform_point3(*p);
                        println!("  m{i} {:.4} {:.4} {:.4}", q.x, q.y, q.z);
                    }
                    for p in &m.polygons {
                        println!("  mf {:?} {:?}", p.corners, p.triangles);
                    }
                }
            }
            other => println!("  MAX {other:?}"),
        }
    }
}
