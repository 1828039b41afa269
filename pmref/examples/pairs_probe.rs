//! Prints, for one pair (`.max`, export), each reference node with its matched Max node's
//! transform controller classes and key chunks, and the reference curves — the survey
//! behind the animation comparison. `cargo run -p pmref --example pairs_probe -- MAX EXPORT`
use pmcore::model::scene_index::{SceneIndex, SceneObject, SceneTrees};

fn describe(index: &SceneIndex<'_>, o: &SceneObject<'_>, depth: usize, out: &mut String) {
    let class = o.class.as_ref().map(|c| format!("{} {:08x}:{:08x}", c.name, c.class_id[0], c.class_id[1]));
    let chunks: Vec<String> = o
        .chunk
        .children()
        .iter()
        .map(|c| {
            let inner: Vec<String> = c
                .children()
                .iter()
                .map(|k| format!("{:04x}{}", k.id, k.payload().map(|p| format!("[{}]", p.len())).unwrap_or_default()))
                .collect();
            format!(
                "{:04x}{}{}",
                c.id,
                c.payload().map(|p| format!("[{}]", p.len())).unwrap_or_default(),
                if inner.is_empty() { String::new() } else { format!("({})", inner.join(" ")) }
            )
        })
        .collect();
    out.push_str(&format!("{}#{} {:?} {}\n", "  ".repeat(depth), o.storage_index, class, chunks.join(" ")));
    if let Ok(Some(keys)) = pmcore::model::keys::scale_keys(o) {
        for k in keys {
            out.push_str(&format!(
                "{}  skey t={} s={:?} axis={:?} flags={:x}\n",
                "  ".repeat(depth),
                k.time,
                k.scale,
                k.axis,
                k.flags
            ));
        }
    }
    if let Ok(Some(keys)) = pmcore::model::keys::float_keys(o) {
        for k in keys {
            out.push_str(&format!(
                "{}  key t={} v={} in={} out={} len={}/{} flags={:x}\n",
                "  ".repeat(depth),
                k.time,
                k.value,
                k.in_tangent,
                k.out_tangent,
                k.in_length,
                k.out_length,
                k.flags
            ));
        }
    }
    if depth < 4 {
        for (slot, r) in o.references() {
            if let Some(child) = r.and_then(|r| index.get(r)) {
                if child.is_node() {
                    continue;
                }
                out.push_str(&format!("{}slot {slot}:\n", "  ".repeat(depth + 1)));
                describe(index, child, depth + 1, out);
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let bytes = std::fs::read(&args[1]).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let ext = args[2].rsplit('.').next().unwrap();
    let scene = pmref::read_reference(ext, &std::fs::read(&args[2]).unwrap()).unwrap();
    println!("format {:?} axes {:?} start {:?}", scene.format, scene.axes, scene.start_time);
    for (i, n) in scene.nodes.iter().enumerate() {
        let curves: Vec<String> = scene
            .curves
            .iter()
            .filter(|c| c.node == i)
            .map(|c| {
                format!(
                    "{}{} n={} t=[{}..{}] v0={:.4}",
                    c.channel,
                    c.component,
                    c.times.len(),
                    c.times.first().map(|t| t / 9_622_116).unwrap_or(0),
                    c.times.last().map(|t| t / 9_622_116).unwrap_or(0),
                    c.values.first().copied().unwrap_or(0.0)
                )
            })
            .collect();
        println!("REF {:?} {} parent {:?} pre {:?} curves {:?}", n.name, n.kind, n.parent, n.pre_rotation, curves);
        if std::env::var("PROBE_NODE").is_ok_and(|v| v == n.name) {
            for c in scene.curves.iter().filter(|c| c.node == i) {
                let v: Vec<String> = c.values.iter().take(40).map(|v| format!("{v:.6}")).collect();
                println!("  CURVE {}{} {}", c.channel, c.component, v.join(" "));
            }
        }
        if args.len() > 3 {
            if let Some(o) = index.node_by_name(&n.name) {
                if let Some(c) = o.reference(0).and_then(|r| index.get(r)) {
                    let mut s = String::new();
                    describe(&index, c, 1, &mut s);
                    print!("{s}");
                }
            }
        }
    }
    for skin in &scene.skins {
        for c in &skin.clusters {
            let pairs: Vec<String> =
                c.indices.iter().zip(&c.weights).take(8).map(|(i, w)| format!("{i}:{w}")).collect();
            println!("CLUSTER {} on {} n={} {}", c.bone, scene.nodes[skin.node].name, c.indices.len(), pairs.join(" "));
        }
    }
    for o in index.objects.iter().filter(|o| o.is_node() && o.reference(0).is_some()) {
        println!(
            "MAX {:?} parent {:?}",
            o.node_name().unwrap_or_default(),
            o.node_parent().and_then(|p| index.get(p)).and_then(|p| p.node_name())
        );
    }
}
