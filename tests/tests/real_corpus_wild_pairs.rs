//! T1 and T2 over the real files of `../shared/corpus/wild` and the `.max` files stored in
//! `../shared/corpus/pairs` (both lists read from their manifests), checked against them:
//! - every real file passes T1 on every stream, the CLSID and the stream directory, and T2
//!   on every chunk stream (the two Max 2024 zstd files included, their streams parsed as
//!   chunk trees);
//! - wild: the Scene root id and the compression equal `manifest.tsv`'s `root_id` and
//!   `compression` (measured there by an independent reader);
//! - pairs: the root id is the one the format named by the property set's `Saved As
//!   Version` (or, for the Max 9 files that have none, `3ds max Version`) is written with,
//!   and the version label names that release's year. The release → root id table below is
//!   worked out by hand from the wild manifest (`root_id` beside `release`), not from pmcore.
//!
//! Per-version counts are printed. A fast subset (the zstd files, the files of the two root
//! ids that used to print `unknown`, and the first file of every other root id) always runs;
//! the full sweep runs with `PMFARM_LONG_TESTS=1` (set by `.ci/run`).

use pmcore::facts::{version::max_version, FileFacts};
use pmcore::verify::t2::{self, Options};
use pmcore::verify::{t1, Verdict};
use pmcore::{classify, Input, MaxFile, StreamKind};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// What the manifests say a file must show.
struct Expected {
    /// Scene root id.
    root_id: u16,
    /// `none` or `zstd`.
    compression: &'static str,
    /// Text the version label must contain (`2011`, `Max 9`).
    label: String,
}

/// One real file to check.
struct Case {
    /// `wild/<file>` or `pairs/<path>`.
    label: String,
    path: PathBuf,
    expected: Expected,
}

/// Root id of the format of each release (the property set's release number), read off the
/// wild manifest's `root_id` and `release` columns and the pairs' `Saved As Version` by hand.
const ROOT_OF_RELEASE: &[(u32, u16)] = &[
    (9, 0x200E),
    (12, 0x2012),
    (13, 0x2013),
    (14, 0x2014),
    (15, 0x2017),
    (16, 0x2019),
    (17, 0x2020),
    (18, 0x2021),
    (19, 0x2022),
    (20, 0x2023),
    (21, 0x2023),
    (22, 0x2025),
    (23, 0x2026),
    (24, 0x2027),
    (25, 0x2028),
    (26, 0x2029),
    (27, 0x2029),
    (28, 0x2031),
];

fn parse_root(text: &str) -> u16 {
    u16::from_str_radix(text.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("root id `{text}`"))
}

/// The release number a pairs `max_version` cell names for the format the file was written
/// in: `Saved As Version` when given, else the `3ds max Version` of the Max 9 files.
/// Decimal comma or point: `15,00` and `15.00` are both 15.
fn saved_as_release(cell: &str) -> u32 {
    let field = cell
        .split(';')
        .map(str::trim)
        .find(|f| f.starts_with("Saved As Version:"))
        .or_else(|| cell.split(';').map(str::trim).find(|f| f.to_ascii_lowercase().starts_with("3ds max version:")))
        .unwrap_or_else(|| panic!("no release in `{cell}`"));
    let number = field.split(':').nth(1).unwrap().trim();
    number.split([',', '.']).next().unwrap().parse().unwrap_or_else(|_| panic!("release in `{cell}`"))
}

fn wild_cases(dir: &Path) -> Vec<Case> {
    let manifest = pmtests::manifest(dir);
    let files = pmtests::corpus_files(dir);
    files
        .into_iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            let row = &manifest[&name];
            let compression = match row["compression"].as_str() {
                "none" => "none",
                "zstd" => "zstd",
                other => panic!("{name}: compression `{other}` not expected in wild"),
            };
            // `version` is `Max2018`, `Max7 (from root id)`, `Max2010 (saved as, by Max2013)`:
            // the format's release first.
            let format = row["version"].split_whitespace().next().unwrap_or_default();
            let number = format.trim_start_matches("Max");
            let label = if number.len() == 4 { number.to_string() } else { format!("Max {number}") };
            Case {
                label: format!("wild/{name}"),
                path,
                expected: Expected { root_id: parse_root(&row["root_id"]), compression, label },
            }
        })
        .collect()
}

fn pairs_cases(dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join("manifest.tsv")).expect("pairs/manifest.tsv is readable");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("column {name}"));
    let (max_col, version_col) = (col("max"), col("max_version"));
    let mut seen = BTreeSet::new();
    let mut cases = Vec::new();
    for line in lines.filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = line.split('\t').collect();
        let rel = cells[max_col];
        // `../wild/…` and `../public/…` rows name files checked with their own corpus.
        if rel.starts_with("../") || !seen.insert(rel.to_string()) {
            continue;
        }
        let release = saved_as_release(cells[version_col]);
        let root_id = ROOT_OF_RELEASE
            .iter()
            .find(|(r, _)| *r == release)
            .map(|(_, id)| *id)
            .unwrap_or_else(|| panic!("{rel}: release {release} is not in the hand-made table"));
        cases.push(Case {
            label: format!("pairs/{rel}"),
            path: dir.join(rel),
            expected: Expected { root_id, compression: "none", label: release_name(release) },
        });
    }
    assert!(!cases.is_empty(), "the pairs manifest lists no .max of its own");
    cases
}

/// Year (or Max 9) a release number is sold as: release N ≥ 11 is Max (1998 + N).
fn release_name(release: u32) -> String {
    if release >= 11 {
        format!("{}", 1998 + release)
    } else {
        format!("Max {release}")
    }
}

/// The always-on subset: zstd files, the Max 2011 / Max 2021 ids, and one file per root id.
fn fast_subset(cases: Vec<Case>) -> Vec<Case> {
    let mut roots = BTreeSet::new();
    cases
        .into_iter()
        .filter(|c| {
            c.expected.compression != "none"
                || [0x2013, 0x2026].contains(&c.expected.root_id)
                || roots.insert(c.expected.root_id)
        })
        .collect()
}

/// Checks one file; returns its failures.
fn check(case: &Case, per_version: &mut BTreeMap<String, (u64, u64)>) -> Vec<String> {
    let label = &case.label;
    let mut failures = Vec::new();
    let data = std::fs::read(&case.path).unwrap_or_else(|e| panic!("{label}: {e}"));
    let Input::Ole(ole) = classify(&data) else {
        return vec![format!("{label}: not an OLE file")];
    };
    let file = MaxFile::new(ole);
    let facts = FileFacts::of(&file);
    let e = &case.expected;
    if facts.root_id != Some(e.root_id) {
        failures.push(format!("{label}: root id {:04x?}, manifest says 0x{:04X}", facts.root_id, e.root_id));
    }
    let version = max_version(e.root_id);
    if version.starts_with("unknown") {
        failures.push(format!("{label}: root id 0x{:04X} prints `{version}`", e.root_id));
    }
    if !version.contains(&e.label) {
        failures.push(format!("{label}: version label `{version}` does not name `{}`", e.label));
    }
    let compression = facts.compression.join(",");
    if compression != e.compression {
        failures.push(format!("{label}: compression `{compression}`, manifest says `{}`", e.compression));
    }
    for s in &facts.streams {
        if s.compression != "none" && s.kind != StreamKind::Chunks {
            failures.push(format!("{label}: compressed stream {} is {:?}, not a chunk tree", s.name, s.kind));
        }
    }
    if e.compression == "zstd" {
        // Scene root (14-byte form) and one wrapper root per other compressed chunk stream.
        let to_end: u64 = file.streams.iter().map(|s| s.stats.headers_to_end).sum();
        let compressed = facts.streams.iter().filter(|s| s.compression == "zstd").count() as u64;
        if to_end != compressed {
            failures.push(format!("{label}: {to_end} run-to-end headers for {compressed} zstd streams"));
        }
    }
    for v in t1::run(&file, |_| {}) {
        if let Verdict::Fail(m) = &v.verdict {
            failures.push(format!("{label}: T1 {} {} at {} ({})", v.stream, m.kind, m.chunk_path, m.message));
        }
    }
    let report = t2::run_with(&file, Options { regeneration_proof: false }, |_, _, _| {});
    let chunk_streams = file.streams.iter().filter(|s| s.kind == StreamKind::Chunks).count();
    if report.streams.len() != chunk_streams {
        failures.push(format!("{label}: {} T2 verdicts for {chunk_streams} chunk streams", report.streams.len()));
    }
    for v in &report.streams {
        if let Verdict::Fail(m) = &v.verdict {
            failures.push(format!("{label}: T2 {} {} at {} ({})", v.stream, m.kind, m.chunk_path, m.message));
        }
    }
    if report.objects.typed == 0 {
        failures.push(format!("{label}: T2 typed no Scene object"));
    }
    let entry = per_version.entry(version).or_default();
    entry.0 += 1;
    entry.1 += data.len() as u64;
    failures
}

fn sweep(name: &str, cases: fn(&Path) -> Vec<Case>) {
    let Some(dir) = pmtests::shared_corpus(name) else {
        return;
    };
    let all = cases(&dir);
    let total = all.len();
    let run: Vec<Case> = if pmtests::long_tests() { all } else { fast_subset(all) };
    if run.len() < total {
        pmtests::notice(&format!(
            "{name}: checking {} of {total} real files (set PMFARM_LONG_TESTS=1 for all)",
            run.len()
        ));
    }
    let mut per_version = BTreeMap::new();
    let failures: Vec<String> = run.iter().flat_map(|c| check(c, &mut per_version)).collect();
    println!("{name}: {} real files checked (T1 every stream + CLSID + directory, T2 every chunk stream)", run.len());
    for (version, (files, bytes)) in &per_version {
        println!("  {version:<16} {files:>4} files {bytes:>11} bytes");
    }
    assert!(failures.is_empty(), "{name}: {} failures:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn every_wild_file_passes_t1_and_t2_and_agrees_with_the_manifest() {
    sweep("wild", wild_cases);
}

#[test]
fn every_pairs_max_file_passes_t1_and_t2_and_its_root_id_follows_saved_as_version() {
    sweep("pairs", pairs_cases);
}

#[test]
fn release_cells_are_read_with_either_decimal_mark() {
    // Cells copied from pairs/manifest.tsv.
    assert_eq!(saved_as_release("3ds Max Version: 15,00; Saved As Version: 12,00"), 12);
    assert_eq!(saved_as_release("3ds Max Version: 23.00; Saved As Version: 23.00"), 23);
    assert_eq!(saved_as_release("3ds max Version: 9,0"), 9);
    assert_eq!(release_name(13), "2011");
}
