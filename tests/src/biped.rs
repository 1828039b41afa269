//! Real Biped rigs of `../shared/corpus/biped` read with pmcore, for the Biped tests.

use pmcore::model::biped::BipedRig;
use pmcore::model::scene_index::SceneTrees;
use std::path::Path;

/// The Biped rig of a `.max` file (panics, naming the file, if it has none).
pub fn read_rig(max: &Path) -> BipedRig {
    let bytes = std::fs::read(max).unwrap_or_else(|e| panic!("{}: {e}", max.display()));
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("Scene");
    let index = trees.index().expect("Scene root");
    BipedRig::read(&index).unwrap_or_else(|e| panic!("{}: {e}", max.display()))
}

/// The manifest row `name` of the biped corpus: its rig and its FBX, read.
pub fn rig_and_fbx(corpus: &Path, name: &str) -> (BipedRig, pmref::scene::RefScene) {
    let manifest = crate::manifest(corpus);
    let row = manifest.get(name).unwrap_or_else(|| panic!("the biped manifest no longer lists {name}"));
    let rig = read_rig(&corpus.join(name));
    let fbx = std::fs::read(corpus.join(&row["exports"])).expect("the FBX");
    (rig, pmref::read_reference("fbx", &fbx).expect("a readable FBX"))
}
