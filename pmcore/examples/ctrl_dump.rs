//! Transform controller trees of a file's nodes (investigation aid for issue 40).
//!
//! `ctrl_dump FILE [NODE_SUBSTRING] [MAX_NODES]`: per node, the controllers reachable from
//! reference slot 0 (class, chunk ids and sizes, key tables as words: ints for the first
//! two, floats after), three levels deep.
use pmcore::chunk::Chunk;
use pmcore::model::scene_index::{SceneIndex, SceneTrees};

fn chunk_line(c: &Chunk<'_>, pad: &str) {
    match c.payload() {
        Some(p) if (0x2510..0x2530).contains(&c.id) => {
            println!("{pad}  {:04x} table {} bytes", c.id, p.len());
            let w: Vec<u32> = p.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
            let per = match c.id {
                0x2511 => 5,
                0x2513 => 5,
                0x2514 => 6,
                0x2515 => 9,
                0x2521 => 16,
                0x2522 => 23,
                0x2523 => 28,
                0x2525 => 7,
                0x2526 => 20,
                0x2527 => 6,
                0x2528 => 37,
                _ => w.len().max(1),
            };
            for k in w.chunks(per).take(8) {
                let s: Vec<String> = k
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if i < 2 { format!("{}", *v as i32) } else { format!("{:.6}", f32::from_bits(*v)) })
                    .collect();
                println!("{pad}    [{}]", s.join(" "));
            }
        }
        Some(p) => {
            let f: Vec<String> = p
                .chunks_exact(4)
                .take(8)
                .map(|b| format!("{:.4}", f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
                .collect();
            println!("{pad}  {:04x} leaf {} {:02x?} f[{}]", c.id, p.len(), &p[..p.len().min(16)], f.join(" "));
        }
        None => {
            println!("{pad}  {:04x} container {}", c.id, c.children().len());
            for g in c.children() {
                chunk_line(g, &format!("{pad}    "));
            }
        }
    }
}

fn walk(index: &SceneIndex<'_>, slot: usize, depth: usize) {
    let Some(o) = index.get(slot) else { return };
    let pad = "  ".repeat(depth);
    let name = o.class.as_ref().map(|c| format!("{} {:x?}", c.name, c.class_id)).unwrap_or_default();
    println!("{pad}#{slot} {name} refs {:?}", o.references());
    for c in o.chunk.children() {
        chunk_line(c, &pad);
    }
    if depth < 4 && !o.is_node() {
        for (_, r) in o.references() {
            if let Some(r) = r {
                walk(index, r, depth + 1);
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
    let want = args.get(1).cloned().unwrap_or_default();
    let max: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(3);
    if let Some(slot) = want.strip_prefix('#') {
        walk(&index, slot.parse().unwrap(), 1);
        return;
    }
    let mut n = 0;
    for node in index.objects.iter().filter(|o| o.is_node()) {
        let name = node.node_name().unwrap_or_default();
        if !name.contains(&want) || n >= max {
            continue;
        }
        n += 1;
        println!("== node {name} #{}", node.storage_index);
        if let Some(c) = node.reference(0) {
            walk(&index, c, 1);
        }
    }
}
