//! What the pmcore benches share: the input file and the chunk-layer T1 loop that every
//! ratio is measured against. (A folder, not `common.rs`, so cargo does not take it for a
//! bench of its own.)

use pmcore::chunk::{parse_stream, write_stream};
use pmcore::{classify, Input, MaxFile, StreamKind};
use std::path::PathBuf;

/// The allocator the shipped binaries use (`pmworker`, `pmfarm`): without it, glibc serves
/// every multi-megabyte buffer with a fresh `mmap`, and page faults — not parsing — dominate.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The largest public file (or `PMCORE_BENCH_FILE`), as (name, bytes); `None` after saying
/// why when it cannot be read.
pub fn bench_file() -> Option<(String, Vec<u8>)> {
    input_file("PMCORE_BENCH_FILE", "public/kevinvandecar__dragon.max")
}

/// The file `env_var` names, else `corpus_path` under `../shared/corpus`, as (name, bytes);
/// `None` after saying why when it cannot be read (a bench without its data measures nothing,
/// and says so).
pub fn input_file(env_var: &str, corpus_path: &str) -> Option<(String, Vec<u8>)> {
    let path = match std::env::var_os(env_var) {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus").join(corpus_path),
    };
    match std::fs::read(&path) {
        Ok(b) => Some((path.display().to_string(), b)),
        Err(e) => {
            eprintln!("SKIP: cannot read {}: {e} (set {env_var})", path.display());
            None
        }
    }
}

/// Opens the bench file as a `.max`.
pub fn open(name: &str, bytes: &[u8]) -> MaxFile {
    let Input::Ole(ole) = classify(bytes) else { panic!("{name} is not an OLE file") };
    MaxFile::new(ole)
}

/// Decoded bytes of the streams that are chunk trees.
pub fn chunk_bytes(file: &MaxFile) -> u64 {
    (0..file.streams.len())
        .filter(|&i| file.streams[i].kind == StreamKind::Chunks)
        .map(|i| file.data(i).map(|d| d.len() as u64).unwrap_or(0))
        .sum()
}

/// Chunk-layer T1 of every chunk stream: parse, write, compare.
pub fn chunk_t1(file: &MaxFile) {
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
}

/// Whole-file T1 from the file's bytes: open, chunk and envelope round trips; every verdict
/// must pass (a bench of a failing file would measure the wrong work).
pub fn file_t1(bytes: &[u8]) {
    let f = MaxFile::new(pmcore::container::open(bytes).expect("opens"));
    let verdicts = pmcore::verify::t1::run(&f, |_| {});
    assert!(verdicts.iter().all(|v| !v.verdict.is_fail()));
}
