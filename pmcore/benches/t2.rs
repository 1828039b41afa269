//! T2 (typed-model round trip) against T1 (chunk-layer round trip) on the same file, all
//! in memory: the largest public file, or `PMCORE_BENCH_FILE`. Both run every chunk
//! stream (parse → rebuild → compare); the target is T2 throughput ≥ 50 % of T1.
//! `t2-proof` adds the regeneration proof (copy + overwrite of typed bytes) for reference.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pmcore::chunk::{parse_stream, write_stream};
use pmcore::verify::t2;
use pmcore::{classify, Input, MaxFile, StreamKind};
use std::path::PathBuf;

fn bench_file() -> Option<(String, Vec<u8>)> {
    let path = match std::env::var_os("PMCORE_BENCH_FILE") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/public/kevinvandecar__dragon.max"),
    };
    match std::fs::read(&path) {
        Ok(b) => Some((path.display().to_string(), b)),
        Err(e) => {
            eprintln!("SKIP: cannot read {}: {e} (set PMCORE_BENCH_FILE)", path.display());
            None
        }
    }
}

fn t1_vs_t2(c: &mut Criterion) {
    let Some((name, bytes)) = bench_file() else { return };
    let Input::Ole(ole) = classify(&bytes) else { panic!("{name} is not an OLE file") };
    let file = MaxFile::new(ole);
    let chunk_bytes: u64 = (0..file.streams.len())
        .filter(|&i| file.streams[i].kind == StreamKind::Chunks)
        .map(|i| file.data(i).map(|d| d.len() as u64).unwrap_or(0))
        .sum();
    eprintln!("{name}: {chunk_bytes} chunk-stream bytes");
    let mut g = c.benchmark_group("t2");
    g.throughput(Throughput::Bytes(chunk_bytes));
    g.bench_function("chunk-t1", |b| {
        b.iter(|| {
            let mut ok = true;
            for i in 0..file.streams.len() {
                if file.streams[i].kind != StreamKind::Chunks {
                    continue;
                }
                let data = file.data(i).expect("decoded");
                let tree = parse_stream(&file.streams[i].name, data).expect("parses");
                ok &= write_stream(&tree).expect("writes") == data;
            }
            assert!(ok);
        })
    });
    g.bench_function("chunk-t2", |b| {
        b.iter(|| {
            let report = t2::run(&file, |_, _, _| {});
            assert!(report.streams.iter().all(|v| !v.verdict.is_fail()));
        })
    });
    g.bench_function("t2-proof", |b| {
        b.iter(|| {
            let report = t2::run_with(&file, t2::Options { regeneration_proof: true }, |_, _, _| {});
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

/// The allocator the shipped binaries use (`pmworker`, `pmfarm`): without it, glibc serves
/// every multi-megabyte buffer with a fresh `mmap`, and page faults — not parsing — dominate.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
