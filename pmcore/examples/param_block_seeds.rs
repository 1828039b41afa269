//! Writes the payloads of parameter-block leaves and small geometry arrays found in the
//! Scene of the given files into a folder (seeds for the `param_block` fuzz target).
//! Usage: param_block_seeds OUT_DIR FILE...
use pmcore::chunk::Chunk;

fn walk(c: &Chunk<'_>, out: &std::path::Path, stem: &str, n: &mut usize) {
    match c.payload() {
        Some(p) if !p.is_empty() && p.len() <= 4096 && *n < 400 => {
            *n += 1;
            std::fs::write(out.join(format!("{stem}.{:04x}.{n}", c.id)), p).expect("write seed");
        }
        Some(_) => {}
        None => c.children().iter().for_each(|k| walk(k, out, stem, n)),
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().expect("OUT_DIR"));
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    for path in args {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let Some(trees) = pmcore::model::scene_index::SceneTrees::of(&file) else { continue };
        let Some(index) = trees.index() else { continue };
        let stem = std::path::Path::new(&path).file_stem().unwrap().to_string_lossy().to_string();
        let mut n = 0;
        for o in &index.objects {
            let wanted = o.class.as_ref().is_some_and(|c| matches!(c.superclass, 0x82 | 0x8 | 0x10));
            if wanted {
                walk(o.chunk, &out, &stem, &mut n);
            }
        }
    }
}
