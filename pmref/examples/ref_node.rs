//! temp: a reference node's world matrix
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let ext = a[1].rsplit('.').next().unwrap().to_ascii_lowercase();
    let scene = pmref::read_reference(&ext, &std::fs::read(&a[1]).unwrap()).unwrap();
    for (i, n) in scene.nodes.iter().enumerate().filter(|(_, n)| n.name.contains(&a[2])) {
        let mut w = n.local;
        let mut p = n.parent;
        while let Some(q) = p {
            w = scene.nodes[q].local * w;
            p = scene.nodes[q].parent;
        }
        let (s, r, t) = w.to_scale_rotation_translation();
        println!(
            "{} animated {} parent {:?} world t {t:?} r {:?} s {s:?}",
            n.name,
            scene.is_animated(i),
            n.parent.map(|p| &scene.nodes[p].name),
            r.to_euler(glam::EulerRot::XYZ)
        );
    }
}
