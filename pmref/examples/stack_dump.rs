//! Each node's modifier stack, base first, with Class IDs and parameter values
//! (diagnostics for new evaluators): `stack_dump MAX [NODE]`.
use pmcore::eval::params::Params;
use pmcore::eval::stack::{mod_context_box, mod_context_tm, stack_with_data};
use pmcore::model::scene_index::SceneTrees;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&a[1]).expect("max");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("scene");
    let index = trees.index().expect("index");
    for node in index.objects.iter().filter(|o| o.is_node()) {
        let name = node.node_name().unwrap_or_default();
        if a.get(2).is_some_and(|n| *n != name) {
            continue;
        }
        let Some((base, mods)) = stack_with_data(&index, node) else { continue };
        println!("node {name:?} base #{} {:?}", base.storage_index, base.class.as_ref().map(|c| (c.class_id, &c.name)));
        for (k, m) in mods.iter().enumerate() {
            let c = m.object.class.as_ref();
            println!(
                "  {k}: #{} {:?} box {:?} tm {:?}",
                m.object.storage_index,
                c.map(|c| (c.class_id, &c.name)),
                mod_context_box(m.mod_app),
                mod_context_tm(m.mod_app).map(|t| t.w_axis)
            );
            for (slot, t) in m.object.references() {
                println!(
                    "     ref {slot} -> {t:?} {:?}",
                    t.and_then(|i| index.get(i)).and_then(|o| o.class.as_ref()).map(|c| &c.name)
                );
            }
            for block in 0..4 {
                if let Ok(p) = Params::of(&index, m.object, block) {
                    println!("     block {block}: {p:?}");
                }
            }
        }
    }
}
