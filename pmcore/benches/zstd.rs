//! Throughput on the real Max 2024 zstd files (`../shared/corpus/wild/juanmaldini__scene*.max`,
//! or `PMCORE_BENCH_ZSTD_FILE`): their streams go through the chunk layer like any other
//! (run-to-end header forms, wrapper roots), so this measures
//!   (a) `open`: container read + zstd inflation of every stream (`MaxFile::new`);
//!   (b) `chunk-t1`: chunk-layer T1 of every chunk stream (parse + write + compare) on the
//!       inflated bytes;
//!   (c) `file-t1`: open + whole-file T1 including the envelope rewrite.
//! MB/s are per decoded (inflated) chunk-stream byte for (b), per stored byte otherwise.

#[allow(dead_code)] // `bench_file` (the largest public file) is not this bench's input
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pmcore::MaxFile;

fn zstd_file() -> Option<(String, Vec<u8>)> {
    common::input_file("PMCORE_BENCH_ZSTD_FILE", "wild/juanmaldini__scene.max")
}

fn zstd_streams(c: &mut Criterion) {
    let Some((name, bytes)) = zstd_file() else { return };
    let file = common::open(&name, &bytes);
    let stream_bytes: u64 = file.ole.streams.iter().map(|s| s.bytes.len() as u64).sum();
    let chunk_bytes = common::chunk_bytes(&file);
    eprintln!("{name}: {stream_bytes} stored stream bytes, {chunk_bytes} inflated chunk-stream bytes");

    let mut g = c.benchmark_group("zstd");
    g.throughput(Throughput::Bytes(stream_bytes));
    g.bench_function("open", |b| {
        b.iter(|| {
            let f = MaxFile::new(pmcore::container::open(&bytes).expect("opens"));
            std::hint::black_box(f.decoded_bytes())
        })
    });
    g.throughput(Throughput::Bytes(chunk_bytes));
    g.bench_function("chunk-t1", |b| b.iter(|| common::chunk_t1(&file)));
    g.throughput(Throughput::Bytes(stream_bytes));
    g.bench_function("file-t1", |b| b.iter(|| common::file_t1(&bytes)));
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = zstd_streams
}
criterion_main!(benches);
