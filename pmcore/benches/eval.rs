//! Evaluation throughput: every node of the largest real file (`wild/box-in-box__tree.max`,
//! 4.2 MB; or `PMCORE_BENCH_FILE`) evaluated to its world-state mesh — stored meshes
//! decoded, primitives built, modifier stacks applied — and the OBJ text written from it.
//! Throughput is in Scene bytes and in evaluated vertices (reported once on stderr).

// Only the input helpers of `common` are used here.
#[allow(dead_code)]
mod common;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pmcore::eval;
use pmcore::export::obj;
use pmcore::model::scene_index::SceneTrees;

fn largest_real_file() -> Option<(String, Vec<u8>)> {
    if std::env::var_os("PMCORE_BENCH_FILE").is_some() {
        return common::bench_file();
    }
    common::input_file("PMCORE_BENCH_EVAL_FILE", "wild/box-in-box__tree.max")
}

fn evaluation(c: &mut Criterion) {
    let Some((name, bytes)) = largest_real_file() else { return };
    let file = common::open(&name, &bytes);
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene has a root");
    let scene_bytes = file.index_of("Scene").and_then(|i| file.data(i).ok()).map_or(0, |d| d.len() as u64);
    let totals = eval::totals_of(&eval::evaluate_index(&index, eval::DEFAULT_BUDGET_VERTICES, false));
    eprintln!(
        "{name}: Scene {scene_bytes} bytes, {} meshes, {} vertices, {} faces, {} nodes stopped",
        totals.meshes,
        totals.vertices,
        totals.faces,
        totals.stopped.len()
    );
    let mut g = c.benchmark_group("eval");
    g.throughput(Throughput::Bytes(scene_bytes));
    g.bench_function("evaluate-scene", |b| {
        b.iter(|| eval::evaluate_index(&index, eval::DEFAULT_BUDGET_VERTICES, false).len())
    });
    g.bench_function("evaluate-and-write-obj", |b| {
        b.iter(|| {
            let (objects, _) = obj::export_index(&index, obj::ExportOptions::default());
            obj::write(&objects).len()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10).measurement_time(std::time::Duration::from_secs(6));
    targets = evaluation
}
criterion_main!(benches);
