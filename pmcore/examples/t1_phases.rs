//! Times the phases of whole-file T1 on one file (diagnostics for the benchmark).
use std::time::Instant;
fn main() {
    let path = std::env::args().nth(1).expect("file");
    let bytes = std::fs::read(&path).unwrap();
    let n = 20;
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(pmcore::container::open(&bytes).unwrap());
    }
    println!("open      {:?}", t.elapsed() / n);
    let ole = pmcore::container::open(&bytes).unwrap();
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(pmcore::MaxFile::new(ole.clone()));
    }
    println!("maxfile   {:?}", t.elapsed() / n);
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(pmcore::container::write_file(&ole).unwrap());
    }
    println!("write     {:?}", t.elapsed() / n);
    let f = pmcore::MaxFile::new(ole.clone());
    let t = Instant::now();
    for _ in 0..n {
        std::hint::black_box(pmcore::verify::t1::run(&f, |_| {}));
    }
    println!("t1::run   {:?}", t.elapsed() / n);
}
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
