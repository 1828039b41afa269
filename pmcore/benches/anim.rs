//! The NeL `.anim` export of an LD35 character (issue 40 point 5): `nel_anim::export` (node
//! walk, per-frame oversampling of the keyed Position/Euler/Scale XYZ controllers, Biped
//! tracks reported) and the `.anim` bytes written, on `wild/tae8838__player.max` (Max 2013,
//! a keyed Biped + Link Constraint helpers; the biped manifest's LD35 rows; or
//! `PMCORE_BENCH_ANIM_FILE` / `PMCORE_BENCH_FILE`).

// Only the input helpers of `common` are used here.
#[allow(dead_code)]
mod common;

use criterion::{criterion_group, criterion_main, Criterion};
use pmcore::export::nel_anim;
use pmcore::nel::NelFile;

fn character() -> Option<(String, Vec<u8>)> {
    if std::env::var_os("PMCORE_BENCH_FILE").is_some() {
        return common::bench_file();
    }
    common::input_file("PMCORE_BENCH_ANIM_FILE", "wild/tae8838__player.max")
}

fn anim(c: &mut Criterion) {
    let Some((name, bytes)) = character() else { return };
    let file = common::open(&name, &bytes);
    let first = nel_anim::export(&file).expect("the scene exports");
    eprintln!(
        "{name}: {} tracks, {} keys, {} not written",
        first.summary.tracks,
        first.summary.keys,
        first.summary.unsupported.len()
    );
    let mut g = c.benchmark_group("anim");
    g.bench_function("export", |b| b.iter(|| nel_anim::export(&file).map(|x| x.summary.keys)));
    g.bench_function("export-and-write", |b| {
        b.iter(|| {
            let x = nel_anim::export(&file).expect("the scene exports");
            pmcore::nel::write(&NelFile::Animation(Box::new(x.animation))).len()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(4));
    targets = anim
}
criterion_main!(benches);
