//! Prints the input class of each file (diagnostics).
fn main() {
    for p in std::env::args().skip(1) {
        let b = std::fs::read(&p).unwrap();
        match pmcore::classify(&b) {
            pmcore::Input::CorruptOle(e) => println!("{p}: corrupt-ole: {e}"),
            pmcore::Input::Ole(o) => println!("{p}: ole {:?}", o.streams.iter().map(|s| &s.name).collect::<Vec<_>>()),
            other => println!("{p}: {}", other.class_name()),
        }
    }
}
