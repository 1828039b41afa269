//! Biped figure-mode bones against the FBX bind pose (diagnostics): `biped_probe MAX FBX
//! [MAX FBX …]` prints, per Biped node the FBX holds, the rotation error (largest matrix
//! element difference) and the position error (cm) of `pmcore::eval::biped`, or why the
//! bone is not placed. The FBX world matrix is the product of the `Lcl` chain (T · Pre · R ·
//! S), which reproduces the file's BindPose to 1.3e-4 (docs/biped-format-notes.md §4).
use glam::{DMat3, DMat4};
use pmcore::eval::biped::FigurePose;
use pmcore::model::biped::{bone, BipedRig};
use pmcore::model::scene_index::SceneTrees;
use pmref::scene::RefScene;

fn world(scene: &RefScene, i: usize) -> DMat4 {
    let mut m = scene.nodes[i].local;
    let mut p = scene.nodes[i].parent;
    let mut guard = 0;
    while let Some(k) = p.filter(|_| guard < 1000) {
        m = scene.nodes[k].local * m;
        p = scene.nodes[k].parent;
        guard += 1;
    }
    m
}

fn rotation_error(a: DMat3, b: DMat3) -> f64 {
    (a - b).to_cols_array().iter().fold(0.0f64, |e, v| e.max(v.abs()))
}

fn probe(max: &str, fbx: &str) -> Result<(), String> {
    let bytes = std::fs::read(max).map_err(|e| e.to_string())?;
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { return Err("not OLE".into()) };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).ok_or("no Scene")?;
    let index = trees.index().ok_or("no Scene root")?;
    let rig = BipedRig::read(&index).map_err(|e| e.to_string())?;
    let scene =
        pmref::read_reference("fbx", &std::fs::read(fbx).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
    let pose = FigurePose::new(&rig.system);
    let mut bones: Vec<(String, i32, i32)> = rig.slaves.iter().map(|s| (s.name.clone(), s.bone, s.link)).collect();
    if let Some((_, name)) = &rig.com_node {
        bones.insert(0, (name.clone(), bone::COM_VERTICAL, 0));
    }
    println!("== {max}");
    for (name, id, link) in bones {
        let Some(i) = scene.nodes.iter().position(|n| n.name == name) else { continue };
        let w = world(&scene, i);
        let b = pose.bone(id, link);
        let rot = match &b.rotation {
            Ok(r) => format!("{:.2e}", rotation_error(*r, DMat3::from_mat4(w))),
            Err(e) => format!("- ({e})"),
        };
        let pos = match &b.position {
            Ok(p) => format!("{:.2e}", (*p - w.w_axis.truncate()).length()),
            Err(e) => format!("- ({e})"),
        };
        println!("{name:28} ({id:3},{link:2}) rot {rot}  pos {pos}");
    }
    Ok(())
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    for pair in a.chunks(2) {
        if let [max, fbx] = pair {
            if let Err(e) = probe(max, fbx) {
                println!("== {max}: {e}");
            }
        }
    }
}
