//! Prints a NeL `.shape`'s T3 facts: counts, then one line per vertex (position, normal,
//! uv) in file order (diagnostics for exporter work). Usage: shape_dump FILE
fn main() {
    for path in std::env::args().skip(1) {
        let Ok(bytes) = std::fs::read(&path) else {
            println!("{path}: unreadable");
            continue;
        };
        match pmcore::export::shape_t3::file_facts(&bytes) {
            Err(e) => println!("{path}: {e}"),
            Ok(f) => {
                println!(
                    "{path}: {} materials {} textures {:?} format {:#x} vertices {} triangles {}",
                    f.class, f.materials, f.textures, f.vertex_format, f.vertices, f.triangles
                );
                for a in &f.attributes {
                    println!("{:?}", a);
                }
            }
        }
    }
}
