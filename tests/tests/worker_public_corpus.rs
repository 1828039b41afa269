//! The real `pmworker` binary over every file of the public corpus: every stdout line
//! parses against schema 1, each run has `start` first and `end` last, the statuses and
//! exit codes are the documented ones (docs/exit-codes.md), and the `facts` agree with
//! the corpus `manifest.tsv` and README table.

use pmworker::events::{EndStatus, Event, Facts, Start, Tier, SCHEMA_VERSION};
use pmworker::pipeline::tool_name;
use std::collections::BTreeMap;
use std::path::Path;

/// One run of the worker, parsed.
struct Parsed {
    code: Option<i32>,
    events: Vec<Event>,
}

fn run_and_parse(path: &Path) -> Parsed {
    let run = pmtests::fixtures::run_worker(path, &[]);
    let events = run
        .lines()
        .iter()
        .map(|l| Event::from_line(l).unwrap_or_else(|e| panic!("{}: line does not parse ({e}): {l}", path.display())))
        .collect();
    Parsed { code: run.code, events }
}

/// Expected input class from the corpus naming of the three synthetic inputs.
fn expected_input(name: &str) -> &'static str {
    match name.split("__").next().unwrap() {
        "lfs_pointer" => "lfs-pointer",
        "empty" => "empty",
        "not_ole" => "not-ole",
        _ => "ole",
    }
}

#[test]
fn every_public_file_yields_start_end_and_the_documented_status() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let manifest = pmtests::manifest(&corpus);
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    let mut lines = 0;
    for path in pmtests::corpus_files(&corpus) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let row = &manifest[&name];
        let run = run_and_parse(&path);
        lines += run.events.len();
        let Some(Event::Start(Start { schema, bytes, sha256, tool, .. })) = run.events.first() else {
            panic!("{name}: first event is not start: {:?}", run.events.first());
        };
        assert_eq!(*schema, SCHEMA_VERSION, "{name}");
        assert_eq!(bytes.to_string(), row["bytes"], "{name}: bytes");
        assert_eq!(sha256, &row["sha256"], "{name}: sha256");
        assert_eq!(tool, &tool_name(), "{name}");
        let Some(Event::End(end)) = run.events.last() else {
            panic!("{name}: last event is not end: {:?}", run.events.last());
        };
        let count = |f: fn(&Event) -> bool| run.events.iter().filter(|e| f(e)).count();
        assert_eq!(count(|e| matches!(e, Event::Start(_))), 1, "{name}: one start");
        assert_eq!(count(|e| matches!(e, Event::End(_))), 1, "{name}: one end");
        assert_eq!(count(|e| matches!(e, Event::Facts(_))), 1, "{name}: one facts");
        assert_eq!(count(|e| matches!(e, Event::Triage(_))), 1, "{name}: one triage");
        assert_eq!(count(|e| matches!(e, Event::Panic(_))), 0, "{name}: no panic");
        let facts = run.events.iter().find_map(|e| if let Event::Facts(f) = e { Some(f) } else { None }).unwrap();
        let input = expected_input(&name);
        assert_eq!(facts.input, input, "{name}: input class");
        if input == "ole" {
            assert_eq!(end.status, EndStatus::Pass, "{name}: {end:?}");
            assert_eq!(run.code, Some(0), "{name}: pass exits 0");
            assert!(end.fail_kinds.is_empty() && end.counts.fail == 0, "{name}: {end:?}");
            let t1: Vec<_> = run
                .events
                .iter()
                .filter_map(|e| match e {
                    Event::Result(r) if r.tier == Tier::T1 => Some(r),
                    _ => None,
                })
                .collect();
            let chunk_streams: usize = row["chunk_streams"].parse().unwrap();
            assert!(t1.len() > chunk_streams, "{name}: a T1 result per stream plus the envelope");
            assert!(t1.iter().all(|r| r.verdict.name() == "pass"), "{name}: T1 {t1:?}");
        } else {
            assert_eq!(end.status, EndStatus::Skip, "{name}");
            assert_eq!(end.reason.as_deref(), Some(input), "{name}: skip reason is the input class");
            assert_eq!(run.code, Some(0), "{name}: skip exits 0");
            assert!(!run.events.iter().any(|e| matches!(e, Event::Result(_))), "{name}: nothing checked");
        }
        *tally.entry(format!("{input}/{:?}", end.status)).or_default() += 1;
    }
    println!("worker over the public corpus: {tally:?}, {lines} event lines parsed");
    let real = manifest.values().filter(|r| r["root_id"] != "n/a").count();
    assert_eq!(tally.get("ole/Pass"), Some(&real), "every real file passes");
    assert_eq!(tally.values().sum::<usize>(), pmtests::corpus_files(&corpus).len(), "one end per file");
}

/// README table rows: file → (version cell, release cell, compression, 64-bit headers).
fn readme_rows(corpus: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(corpus.join("README.md")).expect("README.md");
    text.lines()
        .filter(|l| l.starts_with("| ") && l.ends_with(" |") && l.contains(".max"))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect::<Vec<_>>())
        .filter(|cells| cells.len() == 11)
        .map(|cells| (cells[0].clone(), cells))
        .collect()
}

/// The README gives the release either as the property set writes it with a point
/// (`18.00`) or, where the file writes a decimal comma (`22,00`), as its integer part
/// (`22`). Ours is always the number with a point (`22.00`), never the build string
/// (`22.0.0.757`), so the only accepted difference is the dropped all-zero decimals.
fn release_agrees(readme: &str, ours: &str) -> bool {
    let is_release = pmcore::facts::doc_summary::normalize_release(ours).as_deref() == Some(ours);
    is_release
        && (ours == readme
            || ours
                .strip_prefix(readme)
                .and_then(|rest| rest.strip_prefix('.'))
                .is_some_and(|zeros| !zeros.is_empty() && zeros.bytes().all(|b| b == b'0')))
}

/// The manifest names a shared format id by both releases (`Max2018/2019`); our label
/// narrows it by `Saved As Version` to the release whose major number is `saved_as`.
fn version_agrees(manifest: &str, ours: &str, saved_as: Option<&str>) -> bool {
    if ours == manifest {
        return true;
    }
    let Some((first, second)) = manifest.strip_prefix("Max").and_then(|r| r.split_once('/')) else { return false };
    let year = saved_as.and_then(|r| r.split('.').next()?.parse::<u32>().ok()).map(|m| (1998 + m).to_string());
    year.is_some_and(|y| (y == first || y == second) && ours == format!("Max{y}"))
}

#[test]
fn facts_agree_with_the_corpus_manifest_and_readme() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let manifest = pmtests::manifest(&corpus);
    let readme = readme_rows(&corpus);
    assert_eq!(readme.len(), manifest.len(), "a README row per manifest row");
    let (mut checked, mut shortened, mut read_where_unknown) = (0, Vec::new(), Vec::new());
    for path in pmtests::corpus_files(&corpus) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let (row, cells) = (&manifest[&name], &readme[&name]);
        let run = run_and_parse(&path);
        let facts: &Facts =
            run.events.iter().find_map(|e| if let Event::Facts(f) = e { Some(f) } else { None }).unwrap();
        if facts.input != "ole" {
            assert_eq!(row["root_id"], "n/a", "{name}");
            assert!(facts.root_id.is_none() && facts.streams.is_empty() && facts.headers_6.is_none(), "{name}");
            continue;
        }
        checked += 1;
        let root = facts.root_id.as_deref().expect("root id");
        assert_eq!(root.to_ascii_lowercase(), row["root_id"].to_ascii_lowercase(), "{name}: root id");
        let version = facts.max_version.as_deref().expect("version").replace(' ', "");
        assert!(
            version_agrees(&row["version"], &version, facts.saved_as.as_deref()),
            "{name}: version {version} (saved as {:?}), manifest {}",
            facts.saved_as,
            row["version"]
        );
        assert_eq!(cells[3], format!("{} {}", row["root_id"], row["version"]), "{name}: README version cell");
        assert_eq!(facts.compression, vec![row["compression"].clone()], "{name}: compression");
        assert_eq!(cells[5], row["compression"], "{name}: README compression");
        assert_eq!(facts.headers_6.unwrap().to_string(), row["headers_6"], "{name}: 6-byte headers");
        assert_eq!(facts.headers_14.unwrap().to_string(), row["headers_14"], "{name}: 14-byte headers");
        let chunk_streams = facts.streams.iter().filter(|s| s.kind == pmschema::events::StreamKind::Chunks).count();
        assert_eq!(chunk_streams.to_string(), row["chunk_streams"], "{name}: chunk streams");
        let scene_14 = facts.streams.iter().find(|s| s.name == "Scene").map(|s| s.headers_14).unwrap_or(0);
        let has_64 = if scene_14 > 0 { "yes" } else { "no" };
        assert_eq!(has_64, row["has_64bit_headers"], "{name}: 64-bit headers in Scene");
        let release = &cells[4];
        match (release.as_str(), facts.saving_release.as_deref()) {
            ("unknown", Some(ours)) => read_where_unknown.push(format!("{name}: README unknown, read {ours}")),
            ("unknown", None) => {}
            (readme, Some(ours)) if readme == ours => {}
            (readme, Some(ours)) if release_agrees(readme, ours) => {
                shortened.push(format!("{name}: {readme} ~ {ours} (decimal comma in the file)"))
            }
            (readme, ours) => panic!("{name}: saving release README {readme}, ours {ours:?}"),
        }
    }
    println!("facts agree with manifest + README on {checked} real files");
    println!("release shortened in the README ({}):\n  {}", shortened.len(), shortened.join("\n  "));
    println!(
        "README says unknown, we read a value ({}):\n  {}",
        read_where_unknown.len(),
        read_where_unknown.join("\n  ")
    );
    assert_eq!(checked, manifest.values().filter(|r| r["root_id"] != "n/a").count(), "every real file checked");
}

#[test]
fn release_rule_accepts_only_dropped_zero_decimals_never_a_build() {
    assert!(release_agrees("18.00", "18.00"));
    assert!(release_agrees("22", "22.00"));
    assert!(release_agrees("11", "11.0"));
    assert!(!release_agrees("22", "22.0.0.757"), "a build string is not a release");
    assert!(!release_agrees("2", "22.00"));
    assert!(!release_agrees("18.00", "18.3.490.0"));
    assert!(!release_agrees("22", "22.5"));
}

#[test]
fn version_rule_narrows_a_shared_id_only_by_saved_as() {
    assert!(version_agrees("Max2016", "Max2016", None));
    assert!(version_agrees("Max2018/2019", "Max2019", Some("21.00")));
    assert!(version_agrees("Max2018/2019", "Max2018/2019", None));
    assert!(!version_agrees("Max2018/2019", "Max2019", Some("20.00")));
    assert!(!version_agrees("Max2018/2019", "Max2019", None));
}
