//! Writes every decoded chunk stream of the given files into a folder (seeds for the
//! `chunk_parse` fuzz target). Usage: extract_streams OUT_DIR FILE...
fn main() {
    let mut args = std::env::args().skip(1);
    let out = std::path::PathBuf::from(args.next().expect("OUT_DIR"));
    std::fs::create_dir_all(&out).expect("create OUT_DIR");
    for path in args {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let stem = std::path::Path::new(&path).file_stem().unwrap().to_string_lossy().to_string();
        for i in 0..file.streams.len() {
            if file.streams[i].kind != pmcore::StreamKind::Chunks {
                continue;
            }
            if let Ok(data) = file.data(i) {
                let name = format!("{stem}.{}", pmcore::slug(&file.streams[i].name));
                std::fs::write(out.join(name), data).expect("write seed");
            }
        }
    }
}
