//! What the regeneration proof costs T2: every `.max` under the folders or files given,
//! T2 with the proof on and off, alternated over ROUNDS (env, default 5) so load on a shared
//! machine hits both alike; prints the median total of each and their ratio. Built in the
//! release profile the farm uses: `cargo run --release -p pmcore --example t2_proof_cost DIR`.
use pmcore::verify::t2;
use pmcore::{classify, Input, MaxFile};
use std::time::{Duration, Instant};

fn main() {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    let mut files = Vec::new();
    for arg in std::env::args().skip(1) {
        let root = std::path::PathBuf::from(arg);
        let mut stack = vec![root];
        while let Some(p) = stack.pop() {
            if p.is_dir() {
                stack.extend(std::fs::read_dir(&p).into_iter().flatten().flatten().map(|e| e.path()));
            } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("max")) {
                if let Ok(bytes) = std::fs::read(&p) {
                    if let Input::Ole(ole) = classify(&bytes) {
                        files.push(MaxFile::new(ole));
                    }
                }
            }
        }
    }
    let bytes: u64 = files.iter().map(|f| f.decoded_bytes()).sum();
    println!("{} files, {:.1} MB decoded, {rounds} rounds", files.len(), bytes as f64 / 1e6);
    let time = |proof: bool| {
        let t = Instant::now();
        for f in &files {
            std::hint::black_box(t2::run_with(f, t2::Options { regeneration_proof: proof }, |_, _, _| {}));
        }
        t.elapsed()
    };
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for r in 0..rounds {
        if r % 2 == 0 {
            on.push(time(true));
            off.push(time(false));
        } else {
            off.push(time(false));
            on.push(time(true));
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    let (on, off) = (median(&mut on), median(&mut off));
    let mbs = |d: Duration| bytes as f64 / 1e6 / d.as_secs_f64();
    println!("proof on  {on:?} ({:.0} MB/s)\nproof off {off:?} ({:.0} MB/s)", mbs(on), mbs(off));
    println!("on / off  {:.3}", on.as_secs_f64() / off.as_secs_f64());
}

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
