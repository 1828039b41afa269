//! T2 over every real file of the public corpus, with the regeneration proof off and on:
//! every chunk stream must rebuild byte-identically from the typed model (or differ only
//! by a whitelisted normalization; degraded objects keep their bytes). Prints typed /
//! generic / degraded object counts and typed coverage per Max version, and every
//! degraded class with its reason.

use pmcore::facts::version::max_version;
use pmcore::verify::t2::{self, Options};
use pmcore::verify::Verdict;
use pmcore::{classify, Input, MaxFile};
use std::collections::BTreeMap;

#[derive(Default)]
struct VersionTotals {
    files: u64,
    typed: u64,
    generic: u64,
    degraded: u64,
    scene_bytes: u64,
    typed_bytes: u64,
}

#[test]
fn t2_is_byte_identical_on_every_chunk_stream_with_and_without_the_regeneration_proof() {
    let Some(corpus) = pmtests::public_corpus() else {
        return;
    };
    let mut failures = Vec::new();
    let mut per_version: BTreeMap<u16, VersionTotals> = BTreeMap::new();
    let mut degraded: BTreeMap<(String, String), u64> = BTreeMap::new();
    let mut generic: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_stream: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let (mut files, mut verdicts, mut normalized) = (0, 0, 0);
    for path in pmtests::corpus_files(&corpus) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let data = std::fs::read(&path).unwrap();
        let Input::Ole(ole) = classify(&data) else { continue };
        let file = MaxFile::new(ole);
        files += 1;
        for proof in [false, true] {
            let report = t2::run_with(&file, Options { regeneration_proof: proof }, |_, _, _| {});
            let chunk_streams = file.streams.iter().filter(|s| s.kind == pmcore::StreamKind::Chunks).count();
            assert_eq!(report.streams.len(), chunk_streams, "{name}: one T2 verdict per chunk stream");
            for v in &report.streams {
                verdicts += 1;
                match &v.verdict {
                    Verdict::Fail(m) => failures.push(format!(
                        "{name} (proof {proof}): {} {} at {} offset {}: {}\n  expected {}\n  actual   {}",
                        v.stream, m.kind, m.chunk_path, m.offset, m.message, m.expected_hex, m.actual_hex
                    )),
                    Verdict::Normalized { .. } => normalized += 1,
                    Verdict::Degraded { classes } if !proof => {
                        for c in classes {
                            *degraded.entry((c.name.clone(), c.reason.clone())).or_default() += 1;
                        }
                    }
                    _ => {}
                }
            }
            if proof {
                continue;
            }
            let version = file.root_id().unwrap_or(0);
            let t = per_version.entry(version).or_default();
            t.files += 1;
            t.typed += report.objects.typed;
            t.generic += report.objects.generic;
            t.degraded += report.objects.degraded;
            for c in &report.coverage {
                let e = per_stream.entry(c.stream.clone()).or_default();
                e.0 += c.typed_bytes;
                e.1 += c.bytes;
            }
            let scene = report.coverage.iter().find(|c| c.stream == "Scene").expect("every real file has a Scene");
            t.scene_bytes += scene.bytes;
            t.typed_bytes += scene.typed_bytes;
            for c in report.inventory.iter().filter(|c| c.generic > 0) {
                *generic.entry(format!("{} (superclass 0x{:x}, {})", c.name, c.superclass, c.dll)).or_default() +=
                    c.generic;
            }
        }
    }
    println!("T2: {files} real files, {verdicts} stream verdicts (proof off and on), {normalized} normalized");
    println!("{:<16} {:>5} {:>8} {:>8} {:>9} {:>9}", "version", "files", "typed", "generic", "degraded", "coverage");
    for (v, t) in &per_version {
        println!(
            "{:<16} {:>5} {:>8} {:>8} {:>9} {:>8.1}%",
            max_version(*v),
            t.files,
            t.typed,
            t.generic,
            t.degraded,
            100.0 * t.typed_bytes as f64 / t.scene_bytes.max(1) as f64
        );
    }
    for (stream, (typed, bytes)) in &per_stream {
        println!(
            "coverage {stream}: {typed} of {bytes} bytes typed ({:.1}%)",
            100.0 * *typed as f64 / (*bytes).max(1) as f64
        );
    }
    for ((class, reason), n) in &degraded {
        println!("degraded: {class}: {reason} (×{n})");
    }
    for (class, n) in &generic {
        println!("generic: {class} (×{n})");
    }
    assert!(failures.is_empty(), "T2 failures:\n{}", failures.join("\n"));
    let real = pmtests::manifest(&corpus).values().filter(|r| r["root_id"] != "n/a").count();
    assert_eq!(files, real, "every real file the manifest lists was checked");
}
