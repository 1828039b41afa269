//! The `summary` exporter's T3 against the reference every real `.max` carries: Max's own
//! document summary. Reference values of three files are written here by hand (read from
//! the raw `\x05DocumentSummaryInformation` bytes with an independent reader, not with
//! pmcore); the per-section verdicts are checked on every real file of public, wild and
//! pairs; empty property sets and junk skip as `absent-in-file`, never pass.

use pmcore::export::summary::{self, SectionOutcome, SectionVerdict, SummaryError, SECTIONS};
use pmcore::facts::doc_summary::{DocSummary, MeshTotals};
use pmcore::facts::FileFacts;
use pmcore::{classify, Input, MaxFile};
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The shared `corpus/` folder, when public, wild and pairs are all there.
fn shared() -> Option<PathBuf> {
    let found: Option<Vec<PathBuf>> = ["public", "wild", "pairs"].into_iter().map(pmtests::shared_corpus).collect();
    Some(found?.first()?.parent()?.to_path_buf())
}

fn open(path: &Path) -> Option<MaxFile> {
    match classify(&std::fs::read(path).expect("readable")) {
        Input::Ole(ole) => Some(MaxFile::new(ole)),
        _ => None,
    }
}

fn strings(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn reference_values_of_three_files_checked_by_hand() {
    let Some(corpus) = shared() else { return };
    // Code page 1252, Max 3: General has no Build, no Saved As Version; no Render Data.
    let room = pmcore::facts::doc_summary(&open(&corpus.join("public/dakahler__room.max")).unwrap()).unwrap();
    let g = room.general.clone().unwrap();
    assert_eq!((g.release.as_deref(), g.build, g.saved_as, g.compressed), (Some("3.0"), None, None, Some(false)));
    assert_eq!(room.mesh_totals, Some(MeshTotals { vertices: 32, faces: 48 }));
    assert_eq!(room.scene_totals.unwrap().values(), [4, 0, 0, 0, 0, 0, 4]);
    assert_eq!(room.objects, Some(strings(&["Box01", "Box02", "Box03", "Box04"])));
    assert_eq!(room.plugins, Some(strings(&["mtl.dlt", "samplers.dlh", "prim.dlo", "kernel.dlk", "rend.dlr"])));
    assert_eq!((room.materials, room.dependencies, room.render), (Some(vec![]), Some(vec![]), None));

    // Code page 1200 (UTF-16 inside LPSTR), Max 2010.
    let file = open(&corpus.join("public/dimapetrinko__lection_1.max")).unwrap();
    let lection = pmcore::facts::doc_summary(&file).unwrap();
    let g = lection.general.clone().unwrap();
    assert_eq!((g.release.as_deref(), g.build.as_deref()), (Some("12.0"), Some("12.0.0.106")));
    assert_eq!(lection.mesh_totals, Some(MeshTotals { vertices: 1384, faces: 2692 }));
    assert_eq!(lection.scene_totals.unwrap().values(), [4, 0, 0, 0, 0, 0, 4]);
    assert_eq!(lection.objects, Some(strings(&["Line01", "Line02", "Line03", "Loft01"])));
    assert_eq!(lection.plugins.as_ref().map(Vec::len), Some(19));
    let render = lection.render.unwrap();
    assert_eq!((render.int("Render Width"), render.int("Render Height")), (Some(640), Some(480)));
    assert_eq!(render.get("Renderer Name"), Some("Default Scanline Renderer"));

    // Code page 65001 with Chinese headings and keys; Render Data heading stays English.
    let chair = pmcore::facts::doc_summary(&open(&corpus.join("wild/kelvinleesm__chair.max")).unwrap()).unwrap();
    let g = chair.general.clone().unwrap();
    assert_eq!(
        (g.release.as_deref(), g.build.as_deref(), g.saved_as.as_deref(), g.compressed),
        (Some("26.00"), Some("26.0.0.940"), Some("26.00"), Some(false))
    );
    assert_eq!(chair.mesh_totals, Some(MeshTotals { vertices: 805, faces: 706 }));
    assert_eq!(chair.scene_totals.unwrap().values(), [2, 4, 0, 0, 0, 0, 6]);
    assert_eq!(chair.objects, Some(strings(&["Box001", "Box002", "Line001", "Line002", "Line003", "Line004"])));
    assert_eq!(chair.plugins.as_ref().map(Vec::len), Some(21));
    assert_eq!(chair.render.unwrap().get("Renderer Name"), Some("扫描线渲染器"));
    assert!(chair.unrecognised.is_empty() && chair.malformed.is_empty());
}

/// Every `.max` the manifests of the real corpora list (public, wild, pairs, biped, anim:
/// every folder whose files carry Max's own summary), each once.
fn real_files(corpus: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = ["public", "wild", "pairs", "biped", "anim"]
        .into_iter()
        .map(|c| corpus.join(c))
        .filter(|dir| dir.join("manifest.tsv").is_file())
        .flat_map(|dir| pmtests::corpus_files(&dir))
        .collect();
    out.sort();
    out.dedup();
    out
}

fn verdicts(file: &MaxFile) -> Vec<SectionVerdict> {
    let max = pmcore::facts::doc_summary(file).unwrap_or_default();
    summary::compare(&max, summary::account(file).as_ref())
}

/// The skip of a Max 2009 or older file, whose format stores no asset table.
const NO_ASSET_TABLE: &str = "unsupported: no asset table (Max 2009 and older)";

/// Failures explained by the file or by a rule of Max's not derivable yet (docs/exporters.md):
/// Max's summary of `shultays__light.max` names 69 nodes and 9 materials but its Scene
/// stream stores one node; `arm.max` lists `knight.jpg`, whose GUID no Scene object
/// stores; `nekidaem__08…` stores two bitmap paths without folder or extension that Max
/// leaves out; `erbolvov1989__1.max` (Max 2013 saved as 2010) stores its two asset paths as
/// ASCII in UTF-16 slots (read as ASCII since issue #42) and Max lists none of them, for a
/// reason not found.
const EXPLAINED_FAILS: &[(&str, &str)] = &[
    ("shultays__light.max", "objects"),
    ("shultays__light.max", "scene-totals"),
    ("shultays__light.max", "materials"),
    ("arm.max", "dependencies"),
    ("nekidaem__08-extended_header_length_alysson_claret.max", "dependencies"),
    ("erbolvov1989__1.max", "dependencies"),
];

#[test]
fn per_section_verdicts_on_every_real_file() {
    let Some(corpus) = shared() else { return };
    let files = real_files(&corpus);
    let mut table: BTreeMap<&str, [usize; 4]> = BTreeMap::new(); // pass, fail, unsupported, absent
    let mut fails: Vec<String> = Vec::new();
    let mut ole = 0;
    let mut old_format_skips = 0;
    for path in &files {
        let Some(file) = open(path) else { continue };
        ole += 1;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let vs = verdicts(&file);
        assert_eq!(vs.iter().map(|v| v.section).collect::<Vec<_>>(), SECTIONS, "{name}: one verdict per section");
        for v in vs {
            let row = table.entry(v.section).or_default();
            match &v.outcome {
                SectionOutcome::Pass => {
                    // Multisets (same_order reported) pass on equal sorted lists (file names
                    // without case); line sections on equal lists.
                    let norm = |l: &Option<Vec<String>>| {
                        let mut l: Vec<String> =
                            l.clone().unwrap_or_default().iter().map(|x| x.to_lowercase()).collect();
                        if v.same_order.is_some() {
                            l.sort();
                        }
                        l
                    };
                    assert!(v.max.is_some() && v.ours.is_some(), "{name}: a pass carries both values");
                    assert_eq!(norm(&v.max), norm(&v.ours), "{name}: {} passes only on equal values", v.section);
                    row[0] += 1
                }
                SectionOutcome::Fail { first_difference } => {
                    assert!(v.max.is_some() && v.ours.is_some(), "{name}: a fail carries both values");
                    fails.push(format!("{name} {}: {first_difference}", v.section));
                    row[1] += 1
                }
                SectionOutcome::Skip { reason } if reason == "absent-in-file" => row[3] += 1,
                SectionOutcome::Skip { reason } => {
                    assert!(reason.starts_with("unsupported: ") && reason.len() > 13, "{name}: {reason}");
                    if v.section == "dependencies" && reason == NO_ASSET_TABLE {
                        let release = FileFacts::of(&file).saving_release.unwrap_or_default();
                        let major: u32 = release.split('.').next().unwrap_or("").parse().unwrap_or(0);
                        assert!(major <= 11, "{name}: release {release} (Max 2010 or later) skips as {reason}");
                        old_format_skips += 1;
                    }
                    row[2] += 1
                }
            }
        }
    }
    let mut out = std::io::stderr();
    let _ = writeln!(out, "summary T3 over {ole} real files: section pass/fail/unsupported/absent");
    for (section, [p, f, u, a]) in &table {
        let carrying = p + f + u;
        let _ =
            writeln!(out, "  {section:14} {p:4} {f:4} {u:4} {a:4}  rate {:.1} %", 100.0 * *p as f64 / carrying as f64);
    }
    let _ = writeln!(out, "fails:\n  {}", fails.join("\n  "));
    // Every real file the manifests list opens (the public corpus's LFS pointer, empty and
    // non-OLE inputs are the only ones that do not, and they carry no summary).
    let not_ole = files.len() - ole;
    let expected_not_ole = pmtests::manifest(&corpus.join("public")).values().filter(|r| r["root_id"] == "n/a").count();
    assert_eq!(not_ole, expected_not_ole, "only the public corpus's non-OLE inputs do not open");
    let row = |s: &str| table[s];
    // Floors measured on this branch; raising them is the point of pmcore fixes.
    assert!(row("objects")[0] >= 237 && row("scene-totals")[0] >= 237, "{table:?}");
    assert!(row("plugins")[1] == 0 && row("plugins")[2] == 0, "every plugin list is derived and equal: {table:?}");
    assert!(row("render")[0] >= 236, "{table:?}");
    // Render lines at the scene's frame rate (Config 0x20B0): every file carrying them is
    // derived and equal (24 and 60 fps files included).
    assert!(row("render")[1] == 0 && row("render")[2] == 0, "{table:?}");
    // Materials and dependencies: issue #24's target is 90 % of the files carrying them.
    assert!(row("materials")[0] >= 237 && row("dependencies")[0] >= 214 && row("mesh-totals")[0] >= 133, "{table:?}");
    // The 90 % counts the files the derivation can read: a Max 2009 or older file keeps no
    // asset table, a skip of its own class (checked per file above), so adding old files
    // to a corpus moves no rate.
    for section in ["materials", "dependencies"] {
        let [p, f, u, _] = row(section);
        let u = if section == "dependencies" { u - old_format_skips } else { u };
        assert!(p as f64 >= 0.9 * (p + f + u) as f64, "{section} below 90 %: {table:?}");
    }
    // Materials are never skipped on the real files (every name chunk is read).
    assert_eq!(row("materials")[2], 0, "{table:?}");
    for section in ["objects", "scene-totals", "materials", "dependencies", "render"] {
        for f in fails.iter().filter(|f| f.split(' ').nth(1).is_some_and(|s| s.trim_end_matches(':') == section)) {
            assert!(
                EXPLAINED_FAILS.iter().any(|(file, s)| f.starts_with(file) && *s == section),
                "unexplained {section} failure: {f}"
            );
        }
    }
}

#[test]
fn empty_property_sets_and_junk_skip_as_absent_in_file() {
    let Some(corpus) = shared() else { return };
    for name in ["dron", "patelnia", "robot"] {
        let path = corpus.join(format!("wild/mateusz-gosciniak__{name}.max"));
        let file = open(&path).unwrap();
        assert!(pmcore::facts::doc_summary(&file).unwrap().is_empty(), "{name}: 70-byte set, no headings");
        for v in verdicts(&file) {
            assert_eq!(v.outcome, SectionOutcome::Skip { reason: "absent-in-file".into() }, "{name} {}", v.section);
        }
    }
    // Junk in place of a property set, and no scene at all: nothing passes.
    for junk in [&b""[..], b"\xFE\xFF\0\0junk", &[0xA5; 300]] {
        let sections = pmcore::facts::property_set::parse(junk).unwrap_or_default();
        let max = DocSummary::from_sections(&sections);
        for v in summary::compare(&max, Err(&SummaryError::NoScene)) {
            assert_eq!(v.outcome, SectionOutcome::Skip { reason: "absent-in-file".into() }, "{}", v.section);
        }
    }
}

#[test]
fn worker_emits_one_t3_result_per_section_with_both_values() {
    let Some(corpus) = shared() else { return };
    let path = corpus.join("public/dakahler__room.max");
    let args =
        [OsStr::new("--tiers"), OsStr::new("t3"), OsStr::new("--export"), OsStr::new("summary"), path.as_os_str()];
    let run = pmtests::fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let results: Vec<serde_json::Value> = run
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["event"] == "result" && e["tier"] == "t3")
        .collect();
    let streams: Vec<&str> = results.iter().map(|r| r["stream"].as_str().unwrap()).collect();
    assert_eq!(streams, SECTIONS.iter().map(|s| format!("summary/{s}")).collect::<Vec<_>>());
    let objects = &results[0];
    assert_eq!(objects["verdict"], "pass", "{objects}");
    assert_eq!(objects["detail"]["max"], serde_json::json!(["Box01", "Box02", "Box03", "Box04"]));
    assert_eq!(objects["detail"]["ours"], objects["detail"]["max"]);
    let render = &results[5];
    assert_eq!(render["verdict"], "skip", "{render}");
    assert_eq!(render["reason"], "absent-in-file", "Max 3 writes no Render Data");
}

/// Issue #42 point 4 on `wild/erbolvov1989__1.max` (saved by Max 2013, release 15.00, as
/// Max 2010, root `0x2012`). Hand-read from the bytes: `FileAssetMetaData2` holds two
/// Bitmap records whose paths are ASCII in UTF-16 slots (`05 00 00 00 REFMAP.GIF 00 00`,
/// `06 00 00 00 GRYCON3.JPG 00 00 00`), and the last Scene object (SceneImpl) stores 13
/// reference slots, the 13th `-1`, as every Max 2013 file of wild does.
#[test]
fn max_2013_saved_as_2010_reads_its_asset_names_and_scene_impl() {
    let Some(corpus) = shared() else { return };
    let path = corpus.join("wild/erbolvov1989__1.max");
    let args = [
        OsStr::new("--tiers"),
        OsStr::new("t1,t2,t3"),
        OsStr::new("--export"),
        OsStr::new("summary"),
        path.as_os_str(),
    ];
    let run = pmtests::fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    let events: Vec<serde_json::Value> =
        run.stdout.lines().filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok()).collect();
    let result = |tier: &str, stream: &str| {
        events
            .iter()
            .find(|e| e["event"] == "result" && e["tier"] == tier && e["stream"] == stream)
            .unwrap_or_else(|| panic!("no {tier} result for {stream}: {}", run.stdout))
    };
    assert_eq!(result("t2", "Scene")["verdict"], "pass", "{}", result("t2", "Scene"));
    let deps = result("t3", "summary/dependencies");
    assert_eq!(deps["detail"]["ours"], serde_json::json!(["REFMAP.GIF", "GRYCON3.JPG"]), "{deps}");
    // Max's own list is empty (explained-fail list above): still a fail, never a pass.
    assert_eq!(deps["detail"]["max"], serde_json::json!([]), "{deps}");
    assert_eq!(deps["verdict"], "fail", "{deps}");
}
