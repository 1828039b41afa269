//! Prints the parameter blocks of objects of one Class ID (diagnostics):
//! `eval_params FILE CLASS_A CLASS_B`.
use pmcore::chunk::Chunk;
use pmcore::model::scene_index::SceneTrees;

fn show(c: &Chunk<'_>, depth: usize) {
    let pad = "  ".repeat(depth);
    match c.payload() {
        Some(p) => println!("{pad}0x{:04x} [{}] {:02x?}", c.id, p.len(), &p[..p.len().min(40)]),
        None => {
            println!("{pad}0x{:04x} {{", c.id);
            for k in c.children() {
                show(k, depth + 1);
            }
        }
    }
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let b = std::fs::read(&a[1]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&b) else { return };
    let f = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&f).unwrap();
    let idx = trees.index().unwrap();
    let want = [u32::from_str_radix(&a[2], 16).unwrap(), u32::from_str_radix(&a[3], 16).unwrap()];
    for o in idx.objects.iter().filter(|o| o.class.as_ref().is_some_and(|c| c.class_id == want)).take(2) {
        println!("object #{} refs {:?}", o.storage_index, o.references());
        show(o.chunk, 1);
        for (slot, t) in o.references() {
            let Some(t) = t.and_then(|t| idx.get(t)) else { continue };
            println!(" ref {slot} -> #{} {:?}", t.storage_index, t.class.as_ref().map(|c| (&c.name, c.superclass)));
            show(t.chunk, 2);
        }
    }
}
