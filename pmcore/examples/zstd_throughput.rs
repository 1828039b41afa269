//! MB/s of the Max 2024+ zstd path on one real file, for docs/performance.md when the
//! criterion bench (`cargo bench -p pmcore --bench zstd`) is too slow to build: inflation of
//! the zstd streams, chunk-layer T1 (parse + write + compare) of the inflated chunk streams,
//! and whole-file T1. `cargo run --release -p pmcore --example zstd_throughput FILE [ROUNDS]`.
use pmcore::chunk::{compare_stream, parse_stream};
use pmcore::compression::{decompress, detect, Budget, Compression};
use pmcore::{classify, Input, MaxFile, StreamKind};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("file");
    let rounds: u32 = std::env::args().nth(2).and_then(|r| r.parse().ok()).unwrap_or(200);
    let bytes = std::fs::read(&path).expect("readable");
    let Input::Ole(ole) = classify(&bytes) else { panic!("not OLE") };
    let zstd: Vec<&[u8]> = ole
        .streams
        .iter()
        .map(|s| s.bytes.as_slice())
        .filter(|b| matches!(detect(b), Compression::Zstd { .. }))
        .collect();
    let stored: usize = zstd.iter().map(|b| b.len()).sum();
    let file = MaxFile::new(ole.clone());
    let chunk: Vec<(String, &[u8])> = (0..file.streams.len())
        .filter(|&i| file.streams[i].kind == StreamKind::Chunks && file.streams[i].compression != Compression::None)
        .map(|i| (file.streams[i].name.clone(), file.data(i).expect("inflates")))
        .collect();
    let inflated: usize = chunk.iter().map(|(_, d)| d.len()).sum();
    let mbs = |bytes: usize, secs: f64| bytes as f64 * f64::from(rounds) / secs / 1e6;

    let t = Instant::now();
    for _ in 0..rounds {
        for b in &zstd {
            let mut budget = Budget::new(u64::MAX);
            std::hint::black_box(decompress(b, detect(b), &mut budget).expect("inflates"));
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!("inflate   {stored} stored -> {inflated} bytes: {:.0} MB/s of inflated output", mbs(inflated, s));

    let t = Instant::now();
    for _ in 0..rounds {
        for (name, data) in &chunk {
            let tree = parse_stream(name, data).expect("parses");
            assert_eq!(compare_stream(name, &tree, data).expect("writes"), None);
        }
    }
    let s = t.elapsed().as_secs_f64();
    println!("chunk-t1  {inflated} inflated chunk-stream bytes: {:.0} MB/s", mbs(inflated, s));

    let t = Instant::now();
    for _ in 0..rounds {
        let f = MaxFile::new(ole.clone());
        assert!(pmcore::verify::t1::run(&f, |_| {}).iter().all(|v| !v.verdict.is_fail()));
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "file-t1   {} bytes (file): {:.0} MB/s of file, {:.0} MB/s of inflated zstd",
        bytes.len(),
        mbs(bytes.len(), s),
        mbs(inflated, s)
    );
}
