//! The added cost of a Biped file (issue 39's target: ≤ 10 ms on a Rocketbox avatar): the
//! Biped system object and its BipSlave controllers decoded (`BipedRig::read`), then every
//! bone placed in figure mode (`FigurePose`), on `biped/rocketbox/…/Female_Adult_16.max`
//! (Max 2015, 82 Biped nodes; or `PMCORE_BENCH_FILE`). The Scene is parsed once outside the
//! measurement: that cost is every file's, not the Biped's.

// Only the input helpers of `common` are used here.
#[allow(dead_code)]
mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use pmcore::eval::biped::FigurePose;
use pmcore::model::biped::BipedRig;
use pmcore::model::scene_index::SceneTrees;

fn avatar() -> Option<(String, Vec<u8>)> {
    if std::env::var_os("PMCORE_BENCH_FILE").is_some() {
        return common::bench_file();
    }
    common::input_file(
        "PMCORE_BENCH_BIPED_FILE",
        "biped/rocketbox/Source/Avatars/Adults/Female_Adult_16/Source/Female_Adult_16.max",
    )
}

fn biped(c: &mut Criterion) {
    let Some((name, bytes)) = avatar() else { return };
    let file = common::open(&name, &bytes);
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene has a root");
    let rig = BipedRig::read(&index).expect("a Biped");
    let placed = {
        let pose = FigurePose::new(&rig.system);
        rig.slaves.iter().filter(|s| pose.bone(s.bone, s.link).world().is_ok()).count()
    };
    eprintln!("{name}: {} Biped slave nodes, {placed} placed", rig.slaves.len());
    let mut g = c.benchmark_group("biped");
    g.bench_function("decode-rig", |b| b.iter(|| BipedRig::read(&index).map(|r| r.slaves.len())));
    g.bench_function("decode-and-place-every-bone", |b| {
        b.iter(|| {
            let rig = BipedRig::read(&index).expect("a Biped");
            let pose = FigurePose::new(&rig.system);
            rig.slaves.iter().filter_map(|s| pose.bone(s.bone, s.link).world().ok()).count()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = biped
}
criterion_main!(benches);
