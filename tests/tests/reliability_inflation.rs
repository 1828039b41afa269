//! The inflation budget through the built binaries (issue 23, item 5): one budget per file
//! (all compressed streams together), `min(1100 × input, memory cap / 5, 8 GiB)`, checked
//! as the output grows. Two files whose streams inflate to valid chunk trees:
//! - `one-big.max`: a zstd Scene of 110 MiB;
//! - `two-halves.max`: two zstd streams of 55 MiB each (each alone fits a 512 MiB cap's
//!   budget of 102 MiB, together they do not).
//!
//! Each also holds 200 KB of incompressible bytes, so the ratio bound (1100 × input) is
//! above 200 MiB and the memory cap is what decides. Under `--memory 512M` both end `fail`
//! with the distinct kind `inflation-limit` (never `oom`, never a crash); under `--memory 2G`
//! both pass T1. The ledger is complete in both runs.

mod farm_support;
mod reliability_support;
use farm_support::{assert_exit, gates_dir, results, s, Farm};
use pmcore::compression::{compress, Compression};
use reliability_support::assert_ledger_complete;
use std::path::Path;

const MIB: usize = 1 << 20;

/// A chunk stream written byte by byte: a container `root` (6-byte header) holding `mib`
/// leaves 0x0100 of 1 MiB of zeros each.
fn stream_of(root: u16, mib: usize) -> Vec<u8> {
    let leaf_size = 6 + MIB;
    let size = 6 + mib * leaf_size;
    let mut v = Vec::with_capacity(size);
    v.extend_from_slice(&root.to_le_bytes());
    v.extend_from_slice(&(size as u32 | 0x8000_0000).to_le_bytes());
    for _ in 0..mib {
        v.extend_from_slice(&0x0100u16.to_le_bytes());
        v.extend_from_slice(&(leaf_size as u32).to_le_bytes());
        v.resize(v.len() + MIB, 0);
    }
    v
}

/// 200 KB that no compressor shrinks (xorshift), stored uncompressed as an opaque stream.
fn padding() -> Vec<u8> {
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..200_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn write_max(path: &Path, streams: &[(&str, Vec<u8>)]) {
    let clsid = [0x7B, 0x8C, 0xDD, 0x1C, 0xC0, 0x81, 0xA0, 0x45, 0x9F, 0xED, 0x04, 0x14, 0x31, 0x44, 0xCC, 0x1E];
    let bytes = pmcore::container::write(&clsid, streams.iter().map(|(n, b)| (*n, b.as_slice()))).unwrap();
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn inflation_is_bounded_per_file_by_the_memory_cap_and_is_its_own_fail_kind() {
    let t = tempfile::tempdir().unwrap();
    let corpus = t.path().join("corpus");
    std::fs::create_dir(&corpus).unwrap();
    let zstd = Compression::Zstd { offset: 2 };
    write_max(
        &corpus.join("one-big.max"),
        &[("Scene_Compressed", compress(&stream_of(0x2029, 110), zstd)), ("Padding", padding())],
    );
    let half = compress(&stream_of(0x2029, 55), zstd);
    write_max(
        &corpus.join("two-halves.max"),
        &[
            ("Scene_Compressed", half),
            ("ClassData_Compressed", compress(&stream_of(0x2205, 55), zstd)),
            ("Padding", padding()),
        ],
    );
    let gates = gates_dir(t.path(), "");
    let run = |memory: &str| {
        let out = t.path().join(format!("out-{memory}"));
        let o = Farm::new(&["run", s(&corpus), "--out", s(&out), "--gates", s(&gates), "--no-report"])
            .args(["--memory", memory, "--tiers", "t1", "-j", "1"])
            .output();
        assert_exit(&o, 0);
        assert_ledger_complete(&out, 2);
        results(&out)
    };

    let tight = run("512M");
    for (path, r) in &tight {
        assert_eq!(r["status"], "fail", "{path} under 512M: {r:#}");
        let kinds: Vec<&str> = r["fail_kinds"].as_array().unwrap().iter().filter_map(|k| k.as_str()).collect();
        assert_eq!(kinds, ["inflation-limit"], "{path} under 512M: {r:#}");
    }

    let roomy = run("2G");
    for (path, r) in &roomy {
        assert_eq!(r["status"], "pass", "{path} under 2G: {r:#}");
    }
}
