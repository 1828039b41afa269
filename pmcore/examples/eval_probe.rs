//! Chunk trees of the objects on a node's stack (diagnostics for new evaluators).
//!
//! `eval_probe FILE CLASS_A[:CLASS_B] [DEPTH]`: for every node whose stack holds the class,
//! prints the derived objects (with their mod-app data), the class's object and its
//! parameter values.
use pmcore::chunk::Chunk;
use pmcore::eval::params::Params;
use pmcore::model::scene_index::{SceneTrees, OSM_DERIVED, WSM_DERIVED};

fn dump(c: &Chunk<'_>, depth: usize, max_depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) => {
            let n = p.len().min(48);
            println!("{pad}{:04x} leaf {} {:02x?}", c.id, p.len(), &p[..n]);
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

fn parse_id(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes = std::fs::read(&args[0]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let f = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&f).unwrap();
    let index = trees.index().unwrap();
    let mut it = args[1].split(':');
    let want = [parse_id(it.next().unwrap()), it.next().map(parse_id).unwrap_or(0)];
    let ops_mode = args.get(2).is_some_and(|a| a == "ops");
    let depth: usize = if ops_mode { 0 } else { args.get(2).map(|s| s.parse().unwrap()).unwrap_or(4) };
    if ops_mode {
        // Per modifier of the class: the 0x0230 operation ids of its per-node data, and
        // its parameter values.
        for o in &index.objects {
            if !matches!(o.chunk.id, OSM_DERIVED | WSM_DERIVED) {
                continue;
            }
            let refs: Vec<usize> = o.references().into_iter().filter_map(|(_, t)| t).collect();
            let apps: Vec<&Chunk<'_>> = o.chunk.children().iter().filter(|c| c.id == 0x2500).collect();
            for (k, &t) in refs.iter().enumerate().take(refs.len().saturating_sub(1)) {
                let Some(x) = index.get(t) else { continue };
                if x.class.as_ref().is_none_or(|c| c.class_id != want) {
                    continue;
                }
                let ops: Vec<u32> = apps
                    .get(k)
                    .and_then(|a| a.child(0x2512))
                    .map(|l| {
                        l.children()
                            .iter()
                            .filter(|c| c.id == 0x0230)
                            .filter_map(|c| c.payload())
                            .filter(|p| p.len() == 4)
                            .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]))
                            .collect()
                    })
                    .unwrap_or_default();
                let ids: Vec<String> = apps
                    .get(k)
                    .and_then(|a| a.child(0x2512))
                    .map(|l| l.children().iter().map(|c| format!("{:04x}", c.id)).collect())
                    .unwrap_or_default();
                let params = Params::of(&index, x, 0).map(|p| format!("{:?}", p.values())).unwrap_or_default();
                println!("MOD #{} ops {:?} local [{}] params {}", x.storage_index, ops, ids.join(" "), params);
            }
        }
        return;
    }
    for o in &index.objects {
        if !matches!(o.chunk.id, OSM_DERIVED | WSM_DERIVED) {
            continue;
        }
        let refs = o.references();
        let hit = refs
            .iter()
            .filter_map(|(_, t)| *t)
            .any(|t| index.get(t).and_then(|x| x.class.as_ref()).is_some_and(|c| c.class_id == want));
        if !hit {
            continue;
        }
        println!("== derived #{} refs {:?}", o.storage_index, refs);
        dump(o.chunk, 0, depth);
        for (_, t) in refs {
            let Some(x) = t.and_then(|t| index.get(t)) else { continue };
            let Some(c) = x.class.as_ref() else { continue };
            if c.class_id != want {
                continue;
            }
            println!("-- {} #{} refs {:?}", c.name, x.storage_index, x.references());
            dump(x.chunk, 1, depth);
            for slot in 0..4 {
                if let Ok(p) = Params::of(&index, x, slot) {
                    println!("   params slot {slot}: {:?}", p.values());
                }
            }
        }
    }
    // Base objects of that class too.
    for o in &index.objects {
        if o.class.as_ref().is_some_and(|c| c.class_id == want && c.superclass != 0x810 && c.superclass != 0x820) {
            println!("== object #{} refs {:?}", o.storage_index, o.references());
            dump(o.chunk, 0, depth);
            for slot in 0..4 {
                if let Ok(p) = Params::of(&index, o, slot) {
                    println!("   params slot {slot}: {:?}", p.values());
                }
            }
        }
    }
}
