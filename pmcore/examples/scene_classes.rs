//! Prints each Scene object's class (diagnostics).
use pmcore::model::scene_index::SceneTrees;
fn main() {
    for p in std::env::args().skip(1) {
        let b = std::fs::read(&p).unwrap();
        let pmcore::Input::Ole(ole) = pmcore::classify(&b) else { continue };
        let f = pmcore::MaxFile::new(ole);
        let trees = SceneTrees::of(&f).unwrap();
        let idx = trees.index().unwrap();
        println!(
            "{p}: {} objects, {} classes, {} dlls",
            idx.objects.len(),
            idx.directories.classes.len(),
            idx.directories.dlls.len()
        );
        for o in idx.objects.iter().filter(|o| o.is_node()).take(8) {
            println!(
                "  node #{} {:?} parent {:?} refs {:?}",
                o.storage_index,
                o.node_name(),
                o.node_parent(),
                o.references()
            );
        }
        let last = idx.objects.last().unwrap();
        println!("  last: {:?}", last.class);
    }
}
