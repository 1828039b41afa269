//! Per file: Scene root id, the scene material library's entries (name, class, `[UNUSED]` when
//! no other object references them) and Max's material list — the measurement behind the
//! `summary` materials rule for library-only entries (docs/exporters.md). Investigation aid.

use pmcore::model::scene_index::SceneTrees;

fn utf16(b: &[u8]) -> String {
    String::from_utf16_lossy(&b.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect::<Vec<_>>())
}

fn main() {
    for p in std::env::args().skip(1) {
        let Ok(b) = std::fs::read(&p) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&b) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let max = pmcore::facts::doc_summary(&file).unwrap_or_default();
        let Some(trees) = SceneTrees::of(&file) else { continue };
        let Some(index) = trees.index() else { continue };
        let Some(scene) =
            index.objects.iter().rev().find(|o| o.class.as_ref().is_some_and(|c| c.class_id == [0x2222, 0]))
        else {
            continue;
        };
        let Some(lib) = scene.reference(1) else { continue };
        let mut referenced = vec![0usize; index.objects.len()];
        for o in index.objects.iter().filter(|o| o.storage_index != lib) {
            for t in o.references().into_iter().filter_map(|(_, t)| t) {
                if t < referenced.len() {
                    referenced[t] += 1;
                }
            }
        }
        let entries: Vec<String> = index
            .get(lib)
            .map(|l| l.references().into_iter().filter_map(|(_, t)| t).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|t| {
                let o = &index.objects[t];
                let name = o
                    .chunk
                    .children()
                    .iter()
                    .filter(|c| c.is_container())
                    .chain(std::iter::once(o.chunk))
                    .find(|c| c.child(0x4001).is_some() && c.child(0x4003).is_some())
                    .and_then(|c| c.child(0x4001))
                    .and_then(|c| c.payload())
                    .map(utf16)
                    .unwrap_or_default();
                let cls = o.class.as_ref().map(|c| c.name.clone()).unwrap_or_default();
                format!("{name}<{cls}>{}", if referenced[t] > 0 { "" } else { "[UNUSED]" })
            })
            .collect();
        println!("{p}\troot={:x}\tlib={:?}\tmax={:?}", index.root_id, entries, max.materials.unwrap_or_default());
    }
}
