//! T2 (typed-model round trip) against T1 (chunk-layer round trip) on the same file, all
//! in memory: the largest public file, or `PMCORE_BENCH_FILE`. Both run every chunk
//! stream (parse → rebuild → compare); the target is T2 throughput ≥ 50 % of T1.
//! `chunk-t2` is T2 as every run does it, regeneration proof on (typed-owned bytes read as
//! scribbled, no copy); `t2-no-proof` leaves the proof out, to show what it costs.

#[allow(dead_code)] // each bench uses part of the shared helpers
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pmcore::verify::t2;

fn t1_vs_t2(c: &mut Criterion) {
    let Some((name, bytes)) = common::bench_file() else { return };
    let file = common::open(&name, &bytes);
    let chunk_bytes = common::chunk_bytes(&file);
    eprintln!("{name}: {chunk_bytes} chunk-stream bytes");
    let mut g = c.benchmark_group("t2");
    g.throughput(Throughput::Bytes(chunk_bytes));
    g.bench_function("chunk-t1", |b| b.iter(|| common::chunk_t1(&file)));
    g.bench_function("chunk-t2", |b| {
        b.iter(|| {
            let report = t2::run(&file, |_, _, _| {});
            assert!(report.streams.iter().all(|v| !v.verdict.is_fail()));
        })
    });
    g.bench_function("t2-no-proof", |b| {
        b.iter(|| {
            let report = t2::run_with(&file, t2::Options { regeneration_proof: false }, |_, _, _| {});
            assert!(report.streams.iter().all(|v| !v.verdict.is_fail()));
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = t1_vs_t2
}
criterion_main!(benches);
