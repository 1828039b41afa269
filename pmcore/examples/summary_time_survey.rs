//! Per file: the time configuration (Config 0x20B0: frame rate, animation range, current
//! time, Scene root id) next to the RenderEnvironment time settings and Max's Render Data —
//! the measurement behind the `summary` render rule (docs/exporters.md). Investigation aid.
use pmcore::model::scene_index::SceneTrees;

fn main() {
    for p in std::env::args().skip(1) {
        let Ok(b) = std::fs::read(&p) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&b) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let max = pmcore::facts::doc_summary(&file).unwrap_or_default();
        let release = max.general.as_ref().and_then(|g| g.release.clone()).unwrap_or_default();
        let render = max
            .render
            .as_ref()
            .map(|r| r.pairs.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(","))
            .unwrap_or_default();
        let Some(trees) = SceneTrees::of(&file) else { continue };
        let Some(index) = trees.index() else { continue };
        let settings = index
            .objects
            .iter()
            .filter(|o| o.class.as_ref().is_some_and(|c| c.class_id == [0xEE448B23, 0]))
            .find_map(|o| o.chunk.child(0x110)?.child(0x2000));
        let int = |id: u16| -> String {
            settings
                .and_then(|s| s.child(id))
                .and_then(|c| c.payload())
                .filter(|p| p.len() == 4)
                .map(|p| format!("{:x}", u32::from_le_bytes([p[0], p[1], p[2], p[3]])))
                .unwrap_or("-".into())
        };
        let config = file.tree_of("Config").unwrap_or_default();
        let time = config
            .iter()
            .find(|c| c.id == 0x20b0)
            .or_else(|| config.first().and_then(|w| w.children().iter().find(|c| c.id == 0x20b0)));
        let cfg = |id: u16| -> String {
            time.and_then(|s| s.child(id))
                .and_then(|c| c.payload())
                .filter(|p| p.len() == 4)
                .map(|p| format!("{}", i32::from_le_bytes([p[0], p[1], p[2], p[3]])))
                .unwrap_or("-".into())
        };
        let tc =
            format!("fps={} s={} e={} now={} root={:x}", cfg(0x10), cfg(0x50), cfg(0x60), cfg(0x70), index.root_id);
        println!(
            "{p}\t{tc}\trel={release}\ttype={}\t110={}\t120={}\t130={}\t140={}\t{render}",
            int(0x100),
            int(0x110),
            int(0x120),
            int(0x130),
            int(0x140)
        );
    }
}
