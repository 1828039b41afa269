//! Shapes under Lathe modifiers (diagnostics for `pmcore::eval::lathe`).
//!
//! `lathe_probe FILE`: per Lathe node, the shape's chunk tree (knots decoded), the Lathe's
//! parameters and its axis controller's references.
use pmcore::chunk::Chunk;
use pmcore::eval::params::Params;
use pmcore::eval::stack::stack_with_data;
use pmcore::model::scene_index::SceneTrees;

fn f32s(p: &[u8]) -> Vec<f32> {
    p.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect()
}

fn dump(c: &Chunk<'_>, depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) if c.id == 0x290a => {
            println!("{pad}{:04x} knots {}", c.id, p.len() / 52);
            for k in p.chunks_exact(52) {
                let t = u32::from_le_bytes([k[0], k[1], k[2], k[3]]);
                let l = u32::from_le_bytes([k[4], k[5], k[6], k[7]]);
                let f = f32s(&k[8..48]);
                let flags = u32::from_le_bytes([k[48], k[49], k[50], k[51]]);
                println!(
                    "{pad}  k{t} l{l} du {:.4} p {:?} a {:?} b {:?} flags {flags:x}",
                    f[0],
                    &f[1..4],
                    &f[4..7],
                    &f[7..10]
                );
            }
        }
        Some(p) => println!("{pad}{:04x} leaf {} {:02x?}", c.id, p.len(), &p[..p.len().min(32)]),
        None => {
            println!("{pad}{:04x} container {}", c.id, c.children().len());
            for ch in c.children() {
                dump(ch, depth + 1);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes = std::fs::read(&args[0]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let f = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&f).unwrap();
    let index = trees.index().unwrap();
    for node in index.objects.iter().filter(|o| o.is_node()) {
        let Some((base, mods)) = stack_with_data(&index, node) else { continue };
        let Some(lathe) =
            mods.iter().find(|m| m.object.class.as_ref().is_some_and(|c| c.class_id == pmcore::classes::ids::LATHE))
        else {
            continue;
        };
        println!("== node {:?} base {:?}", node.node_name(), base.class.as_ref().map(|c| c.name.clone()));
        match pmcore::eval::spline::BezierShape::of_object(base.chunk) {
            Ok(shape) => {
                for (s, l) in shape.splines.iter().zip(shape.polylines()) {
                    println!(
                        "  spline knots {} closed {} steps {} optimize {} -> points {}",
                        s.knots.len(),
                        s.closed,
                        shape.steps,
                        shape.optimize,
                        l.points.len()
                    );
                }
            }
            Err(e) => println!("  shape: {e}"),
        }
        if args.get(1).is_some_and(|a| a == "v") {
            match pmcore::eval::lathe::evaluate(&index, base, lathe, u64::MAX) {
                Ok((mesh, ordered)) => {
                    println!(
                        "  lathe mesh v {} polys {} in Max order {ordered}",
                        mesh.positions.len(),
                        mesh.polygons.len()
                    );
                    for (i, p) in mesh.positions.iter().enumerate() {
                        println!("  v{i} {:.4} {:.4} {:.4}", p.x, p.y, p.z);
                    }
                    for (i, f) in mesh.polygons.iter().enumerate().take(40) {
                        println!("  f{i} {:?} {:?}", f.corners, f.triangles);
                    }
                }
                Err(e) => println!("  lathe: {e:?}"),
            }
            continue;
        }
        if args.get(1).is_some_and(|a| a == "short") {
            continue;
        }
        for c in base.chunk.children().iter().filter(|c| c.id == 0x2000 || c.id == 0x2001) {
            dump(c, 1);
        }
        if let Ok(p) = Params::of(&index, lathe.object, 1) {
            println!("  lathe params {:?}", p.values());
        }
        if let Some(app) = lathe.mod_app {
            dump(app, 1);
        }
        let axis = lathe.object.reference(0).and_then(|i| index.get(i));
        if let Some(a) = axis {
            println!(
                "  axis ctrl {:?} refs {:?}",
                a.class.as_ref().map(|c| (c.class_id, c.name.clone())),
                a.references()
            );
            for (_, r) in a.references() {
                if let Some(o) = r.and_then(|i| index.get(i)) {
                    println!("    sub {:?}", o.class.as_ref().map(|c| (c.class_id, c.name.clone())));
                    dump(o.chunk, 3);
                }
            }
        }
    }
}
