//! Event writing (issue #43): every event one worker run emits for the largest public file
//! (or `PMWORKER_BENCH_FILE`) — a breadcrumb per Scene object, results, inventory, facts —
//! serialized as the JSON lines stdout gets, into a buffer (no system calls). Throughput is
//! the bytes of JSON written.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pmworker::emit::VecSink;
use pmworker::pipeline::{run_bytes, Options};
use std::path::PathBuf;

fn events(c: &mut Criterion) {
    let path = std::env::var_os("PMWORKER_BENCH_FILE").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/public/kevinvandecar__dragon.max")
    });
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("SKIP: cannot read {}: {e} (set PMWORKER_BENCH_FILE)", path.display());
            return;
        }
    };
    let mut sink = VecSink::default();
    run_bytes(&path.display().to_string(), &bytes, &Options::default(), &mut sink, Default::default());
    let lines: usize = sink.events.iter().map(|e| e.to_line().len() + 1).sum();
    eprintln!("{}: {} events, {lines} bytes of JSON lines", path.display(), sink.events.len());

    let mut g = c.benchmark_group("events");
    g.throughput(Throughput::Bytes(lines as u64));
    g.bench_function("json-lines", |b| {
        let mut out = Vec::with_capacity(lines);
        b.iter(|| {
            out.clear();
            for e in &sink.events {
                out.extend_from_slice(e.to_line().as_bytes());
                out.push(b'\n');
            }
            std::hint::black_box(out.len())
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = events
}
criterion_main!(benches);
