//! Throughput of the parsing tiers against the physical ceiling, all in memory, on the
//! largest public file (or `PMCORE_BENCH_FILE`):
//!   (a) `cfb-read`: every stream read out of the container with `cfb`;
//!   (b) `chunk-t1`: chunk-layer T1 of every chunk stream (parse + write + compare);
//!   (c) `file-t1`: whole-file T1 including the envelope rewrite and reopen;
//!   (d) `chunk-parse`: the chunk trees of every chunk stream, built and dropped (issue #43);
//!   (e) `chunk-scan`: the same walk counting the shape only, as opening a file does.
//! Targets (issue 10): b ≥ 25 % of a, c ≥ 10 % of a. Ratios are printed by
//! `scripts/bench-ratios.sh` from criterion's estimates.

mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

fn tiers(c: &mut Criterion) {
    let Some((name, bytes)) = common::bench_file() else { return };
    let file = common::open(&name, &bytes);
    let stream_bytes: u64 = file.ole.streams.iter().map(|s| s.bytes.len() as u64).sum();
    let chunk_bytes = common::chunk_bytes(&file);
    eprintln!("{name}: {stream_bytes} stored stream bytes, {chunk_bytes} chunk-stream bytes");

    let mut g = c.benchmark_group("t1");
    g.throughput(Throughput::Bytes(stream_bytes));
    g.bench_function("cfb-read", |b| {
        b.iter(|| {
            let f = pmcore::container::open(&bytes).expect("opens");
            std::hint::black_box(f.streams.len())
        })
    });
    g.throughput(Throughput::Bytes(chunk_bytes));
    g.bench_function("chunk-t1", |b| b.iter(|| common::chunk_t1(&file)));
    g.throughput(Throughput::Bytes(stream_bytes));
    g.bench_function("file-t1", |b| b.iter(|| common::file_t1(&bytes)));
    let chunk_streams: Vec<(&str, &[u8])> = (0..file.streams.len())
        .filter(|&i| file.streams[i].kind == pmcore::StreamKind::Chunks)
        .filter_map(|i| Some((file.streams[i].name.as_str(), file.data(i).ok()?)))
        .collect();
    g.throughput(Throughput::Bytes(chunk_bytes));
    g.bench_function("chunk-parse", |b| {
        b.iter(|| {
            for (name, data) in &chunk_streams {
                std::hint::black_box(pmcore::chunk::parse_stream(name, data).map(|t| t.len()).ok());
            }
        })
    });
    g.bench_function("chunk-scan", |b| {
        b.iter(|| {
            for (name, data) in &chunk_streams {
                std::hint::black_box(pmcore::chunk::scan_stream(name, data).ok());
            }
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = tiers
}
criterion_main!(benches);
