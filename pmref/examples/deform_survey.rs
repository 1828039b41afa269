//! Every modifier of one Class ID on a file's node stacks, with its parameter values and its
//! gizmo / center controllers' default values (diagnostics for deformer evaluators):
//! `deform_survey CLASS_A:CLASS_B MAX...`.
use pmcore::eval::params::Params;
use pmcore::eval::stack::{mod_context_tm, stack_with_data};
use pmcore::model::controllers::{position_default, rotation_default, scale_default};
use pmcore::model::scene_index::SceneTrees;

fn parse_id(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let mut it = a[1].split(':');
    let want = [parse_id(it.next().unwrap()), it.next().map(parse_id).unwrap_or(0)];
    for path in &a[2..] {
        let Ok(bytes) = std::fs::read(path) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let Some(trees) = SceneTrees::of(&file) else { continue };
        let Some(index) = trees.index() else { continue };
        for node in index.objects.iter().filter(|o| o.is_node()) {
            let Some((base, mods)) = stack_with_data(&index, node) else { continue };
            for (k, m) in mods.iter().enumerate() {
                if m.object.class.as_ref().map(|c| c.class_id) != Some(want) {
                    continue;
                }
                println!(
                    "{path} node {:?} base {:?} modifier {k}/{} #{}",
                    node.node_name().unwrap_or_default(),
                    base.class.as_ref().map(|c| &c.name),
                    mods.len(),
                    m.object.storage_index
                );
                let below: Vec<String> = mods[..k]
                    .iter()
                    .map(|b| b.object.class.as_ref().map(|c| c.name.clone()).unwrap_or_default())
                    .collect();
                println!("  below (nearest the base first) {below:?}");
                for (slot, r) in m.object.references() {
                    let class = r.and_then(|r| index.get(r)).and_then(|o| o.class.as_ref()).map(|c| c.name.clone());
                    match Params::of(&index, m.object, slot) {
                        Ok(p) => println!("  slot {slot} params {:?}", p.values()),
                        Err(_) => {
                            let o = r.and_then(|r| index.get(r));
                            let refs = o.map(|o| o.references()).unwrap_or_default();
                            let sub = |s: usize| refs.iter().find(|(k, _)| *k == s).and_then(|(_, t)| *t);
                            println!(
                                "  slot {slot} {class:?} pos {:?} rot {:?} scale {:?} as position {:?}",
                                position_default(&index, sub(0)),
                                rotation_default(&index, sub(1)),
                                scale_default(&index, sub(2)),
                                position_default(&index, r)
                            );
                        }
                    }
                }
                println!("  mod context {:?}", mod_context_tm(m.mod_app));
            }
        }
    }
}
