//! IK chains of a file (diagnostics): every node, its controller, and the object graph
//! below each IKControl / IKChainControl with chunk trees (`ik_probe FILE [DEPTH]`).
use pmcore::chunk::Chunk;
use pmcore::model::scene_index::{SceneIndex, SceneTrees};

fn dump(c: &Chunk<'_>, depth: usize, max_depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) => {
            let n = p.len().min(64);
            let floats: Vec<f32> =
                p[..n - n % 4].chunks(4).map(|w| f32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
            println!("{pad}{:04x} leaf {} {:02x?} f32 {:?}", c.id, p.len(), &p[..n], floats);
        }
        None => {
            println!("{pad}{:04x} container {}", c.id, c.children().len());
            if depth < max_depth {
                for ch in c.children() {
                    dump(ch, depth + 1, max_depth);
                }
            }
        }
    }
}

fn name(index: &SceneIndex<'_>, i: usize) -> String {
    index.get(i).map_or("?".into(), |o| {
        let c =
            o.class.as_ref().map_or("?".into(), |c| format!("{} {:08x}:{:08x}", c.name, c.class_id[0], c.class_id[1]));
        match o.node_name() {
            Some(n) => format!("#{i} node {n:?} [{c}]"),
            None => format!("#{i} [{c}]"),
        }
    })
}

fn walk(index: &SceneIndex<'_>, i: usize, depth: usize, seen: &mut Vec<usize>, max_depth: usize) {
    let pad = "    ".repeat(depth);
    println!("{pad}{}", name(index, i));
    if seen.contains(&i) || depth > 5 {
        return;
    }
    seen.push(i);
    let Some(o) = index.get(i) else { return };
    if !o.is_node() {
        for c in o.chunk.children() {
            if c.id != 0x2034 && c.id != 0x2035 {
                dump(c, depth * 2 + 1, max_depth);
            }
        }
    }
    for (slot, t) in o.references() {
        if let Some(t) = t {
            if index.get(t).is_some_and(|x| x.is_node()) {
                println!("{pad}  ref {slot} -> {}", name(index, t));
            } else {
                println!("{pad}  ref {slot}:");
                walk(index, t, depth + 1, seen, max_depth);
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
    let depth: usize = args.get(1).map(|s| s.parse().unwrap()).unwrap_or(3);
    for o in index.objects.iter().filter(|o| o.is_node()) {
        let ctrl = o.reference(0);
        println!(
            "{} parent {:?} ctrl {}",
            name(&index, o.storage_index),
            o.node_parent().map(|p| name(&index, p)),
            ctrl.map_or("-".into(), |c| name(&index, c))
        );
    }
    for o in &index.objects {
        let is_ik = o.class.as_ref().is_some_and(|c| c.name == "IKChainControl" || c.name == "IKControl");
        if is_ik && !args.iter().any(|a| a == "nodes") {
            println!("=====");
            let mut seen = vec![];
            walk(&index, o.storage_index, 0, &mut seen, depth);
        }
    }
}
