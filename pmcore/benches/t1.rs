//! Throughput of the parsing tiers against the physical ceiling, all in memory, on the
//! largest public file (or `PMCORE_BENCH_FILE`):
//!   (a) `cfb-read`: every stream read out of the container with `cfb`;
//!   (b) `chunk-t1`: chunk-layer T1 of every chunk stream (parse + write + compare);
//!   (c) `file-t1`: whole-file T1 including the envelope rewrite and reopen.
//! Targets (issue 10): b ≥ 25 % of a, c ≥ 10 % of a. Ratios are printed by
//! `scripts/bench-ratios.sh` from criterion's estimates.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pmcore::chunk::{parse_stream, write_stream};
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

fn tiers(c: &mut Criterion) {
    let Some((name, bytes)) = bench_file() else { return };
    let Input::Ole(ole) = classify(&bytes) else { panic!("{name} is not an OLE file") };
    let file = MaxFile::new(ole);
    let stream_bytes: u64 = file.ole.streams.iter().map(|s| s.bytes.len() as u64).sum();
    let chunk_bytes: u64 = (0..file.streams.len())
        .filter(|&i| file.streams[i].kind == StreamKind::Chunks)
        .map(|i| file.data(i).map(|d| d.len() as u64).unwrap_or(0))
        .sum();
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
    g.throughput(Throughput::Bytes(stream_bytes));
    g.bench_function("file-t1", |b| {
        b.iter(|| {
            let f = MaxFile::new(pmcore::container::open(&bytes).expect("opens"));
            let verdicts = pmcore::verify::t1::run(&f, |_| {});
            assert!(verdicts.iter().all(|v| !v.verdict.is_fail()));
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

/// The allocator the shipped binaries use (`pmworker`, `pmfarm`): without it, glibc serves
/// every multi-megabyte buffer with a fresh `mmap`, and page faults — not parsing — dominate.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
