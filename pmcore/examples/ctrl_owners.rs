//! Who references keyed controllers of a class (investigation aid for issue 40).
//!
//! `ctrl_owners FILE CLASS_A` (hex): each object of that class with a key table, and the
//! chain of objects referencing it up to a node (class names and slots).
use pmcore::model::scene_index::SceneTrees;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bytes = std::fs::read(&args[0]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let f = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&f).unwrap();
    let index = trees.index().unwrap();
    let want = u32::from_str_radix(args[1].trim_start_matches("0x"), 16).unwrap();
    let mut parents: std::collections::HashMap<usize, Vec<(usize, usize)>> = Default::default();
    for o in &index.objects {
        for (slot, r) in o.references() {
            if let Some(r) = r {
                parents.entry(r).or_default().push((o.storage_index, slot));
            }
        }
    }
    let name = |i: usize| {
        index
            .get(i)
            .map(|o| {
                let c = o.class.as_ref().map(|c| c.name.clone()).unwrap_or_default();
                match o.node_name() {
                    Some(n) => format!("{c} '{n}'"),
                    None => c,
                }
            })
            .unwrap_or_default()
    };
    for o in index.objects.iter().filter(|o| o.class.as_ref().is_some_and(|c| c.class_id[0] == want)) {
        let mut chain = vec![format!("#{} {}", o.storage_index, name(o.storage_index))];
        let mut cur = o.storage_index;
        for _ in 0..8 {
            let Some(p) = parents.get(&cur).and_then(|v| v.first()) else { break };
            chain.push(format!("#{} {} [slot {}]", p.0, name(p.0), p.1));
            if index.get(p.0).is_some_and(|x| x.is_node()) {
                break;
            }
            cur = p.0;
        }
        println!("{}", chain.join(" <- "));
    }
}
