//! Controller inventory (investigation aid for issue 40): per controller class (by Class ID),
//! in how many files / objects it occurs, how many hold a key table (chunk id, key bytes),
//! and which errors `world_matrix_at` gives nodes at tick 0.
//!
//! `ctrl_survey FILE…` (one line per class, then one line per world-matrix error class).
use pmcore::model::scene_index::SceneTrees;
use std::collections::BTreeMap;

/// Superclass, Class ID and name of a controller class.
type ClassKey = (u32, u32, u32, String);
/// Files, objects, keyed objects, and key-table chunk ids with their counts.
type ClassTally = (usize, usize, usize, BTreeMap<String, usize>);

fn main() {
    let mut classes: BTreeMap<ClassKey, ClassTally> = BTreeMap::new();
    let mut errors: BTreeMap<String, (usize, usize, String)> = BTreeMap::new();
    for p in std::env::args().skip(1) {
        let Ok(b) = std::fs::read(&p) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&b) else { continue };
        let f = pmcore::MaxFile::new(ole);
        let Some(trees) = SceneTrees::of(&f) else { continue };
        let Some(index) = trees.index() else { continue };
        let mut seen = std::collections::BTreeSet::new();
        for o in &index.objects {
            let Some(c) = &o.class else { continue };
            if !matches!(c.superclass, 0x9003 | 0x900b | 0x900c | 0x900d | 0x9008 | 0x9005 | 0x9010) {
                continue;
            }
            let key = (c.superclass, c.class_id[0], c.class_id[1], c.name.clone());
            let e = classes.entry(key.clone()).or_default();
            if seen.insert(key) {
                e.0 += 1;
            }
            e.1 += 1;
            let mut tables = vec![];
            let mut visit = |ch: &pmcore::chunk::Chunk<'_>| {
                if (0x2510..0x2530).contains(&ch.id) {
                    if let Some(pl) = ch.payload() {
                        if !pl.is_empty() {
                            tables.push(format!("{:04x}:{}", ch.id, pl.len()));
                        }
                    }
                }
            };
            for ch in o.chunk.children() {
                visit(ch);
                if ch.id == 0x7127 {
                    for g in ch.children() {
                        visit(g);
                    }
                }
            }
            if !tables.is_empty() {
                e.2 += 1;
                for t in tables {
                    let id = t.split(':').next().unwrap().to_string();
                    *e.3.entry(id).or_default() += 1;
                }
            }
        }
        for n in index.objects.iter().filter(|o| o.is_node()) {
            if let Err(err) = pmcore::model::keys::world_matrix_at(&index, n, 0.0) {
                let s = err.to_string();
                let s = s.split(") is not").next().unwrap_or(&s).to_string();
                let s = s.split_once('(').map(|x| x.1.to_string()).unwrap_or(s);
                let e = errors.entry(s).or_insert((0, 0, p.clone()));
                e.0 += 1;
            }
        }
    }
    for ((sc, a, b, name), (files, objs, keyed, tables)) in &classes {
        println!("class\t{sc:#x}\t{a:#x}:{b:#x}\t{name}\tfiles {files}\tobjs {objs}\tkeyed {keyed}\t{tables:?}");
    }
    for (e, (n, _, ex)) in &errors {
        println!("error\t{n}\t{e}\t{ex}");
    }
}
