//! Every real NeL file of `../shared/corpus/nel` (`.skel`, `.anim`, `.shape`, `.ig`) reads
//! and re-writes byte-identically through `pmcore::nel`; a file that does not is named with
//! the offset of its first difference. Prints, per format and class, how many files and
//! what fraction of their bytes the readers typed (the rest stayed opaque, in place).

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// The NeL files (`.skel`, `.anim`, `.shape`, `.ig`) the corpus manifest lists.
fn nel_files(root: &std::path::Path) -> Vec<PathBuf> {
    pmtests::manifest_files(root, pmcore::nel::is_nel_name)
}

#[derive(Default)]
struct Tally {
    files: usize,
    bytes: usize,
    typed: usize,
    fully_typed: usize,
}

#[test]
fn every_real_nel_file_round_trips_byte_exactly() {
    let Some(root) = pmtests::nel_corpus() else { return };
    let files = nel_files(&root);
    assert!(!files.is_empty(), "{}: the manifest lists no NeL file", root.display());
    let mut by_class: BTreeMap<(String, String), Tally> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut opaque_reasons: BTreeMap<String, usize> = BTreeMap::new();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        match pmcore::nel::round_trip(&bytes) {
            Err(e) => failures.push(format!("{name}: not read: {e}")),
            Ok(rt) => {
                if let Some(at) = rt.first_difference {
                    failures.push(format!("{name}: re-write differs at byte {at}"));
                }
                for (_, len, why) in &rt.opaque_runs {
                    let why = why.split(": ").last().unwrap_or(why).to_string();
                    *opaque_reasons.entry(format!("{} {why}", rt.class)).or_default() += len;
                }
                let t = by_class.entry((rt.format.clone(), rt.class.clone())).or_default();
                t.files += 1;
                t.bytes += rt.bytes;
                t.typed += rt.typed_bytes;
                t.fully_typed += usize::from(rt.opaque_runs.is_empty());
            }
        }
    }
    let mut report = String::from("NeL round trip (format, class: files, fully typed, typed bytes / bytes):\n");
    for ((format, class), t) in &by_class {
        report += &format!(
            "  {format:5} {class:16} {:3} files, {:3} fully typed, {:8} / {:8} bytes typed ({:.1} %)\n",
            t.files,
            t.fully_typed,
            t.typed,
            t.bytes,
            100.0 * t.typed as f64 / t.bytes.max(1) as f64
        );
    }
    for (why, len) in &opaque_reasons {
        report += &format!("  opaque: {len:8} bytes: {why}\n");
    }
    let _ = std::io::stderr().write_all(report.as_bytes());
    assert!(
        failures.is_empty(),
        "{} of {} files do not round-trip:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    let skel = &by_class[&("skel".to_string(), "CSkeletonShape".to_string())];
    let skels = files.iter().filter(|p| p.extension().is_some_and(|e| e == "skel")).count();
    assert_eq!((skel.files, skel.fully_typed), (skels, skels), "every real .skel is fully typed (T3 reads them)");
}

#[test]
fn the_strict_skel_reader_reads_every_real_skel_and_writes_it_back() {
    let Some(root) = pmtests::nel_corpus() else { return };
    for path in nel_files(&root).iter().filter(|p| p.extension().is_some_and(|e| e == "skel")) {
        let bytes = std::fs::read(path).unwrap();
        let s = pmcore::nel::skel::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(pmcore::nel::skel::write(&s), bytes, "{}", path.display());
    }
}
