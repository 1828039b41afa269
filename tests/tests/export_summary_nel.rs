//! The `summary` T3 on the NeL scenes (Max 3, 4, 6, 7 and 2010: `../shared/corpus/nel`,
//! every `max` row of its manifest): the old releases' rules of `docs/exporters.md`
//! (`summary`), each checked on the real files that show it —
//! - render: Animation Start/End at the scene's frame rate; a Max 4 single-frame output
//!   names the whole animation range (0–100 in Max's summary of every Max 4 scene);
//! - materials: Max 3 headers (flags 0x4002) are read, Max 3/4 list library entries no
//!   other object references; a scripted material in a Max 4 library is an `unsupported`
//!   skip naming its Class ID, and the name Max lists for it occurs in no stream;
//! - objects: the only misses left differ from a stored node name by ASCII case alone.

use pmcore::export::summary::{self, SectionOutcome, SectionVerdict};
use pmcore::{classify, Input, MaxFile};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// NeL Material, the NeL plug-in's scripted material.
const NEL_MATERIAL: &str = "0x64c75fec:0x222b9eb9";

fn open(path: &Path) -> MaxFile {
    match classify(&std::fs::read(path).expect("readable")) {
        Input::Ole(ole) => MaxFile::new(ole),
        _ => panic!("{} is not an OLE file", path.display()),
    }
}

fn verdicts(file: &MaxFile) -> Vec<SectionVerdict> {
    let max = pmcore::facts::doc_summary(file).unwrap_or_default();
    summary::compare(&max, summary::account(file).as_ref())
}

fn section<'v>(vs: &'v [SectionVerdict], name: &str) -> &'v SectionVerdict {
    vs.iter().find(|v| v.section == name).expect("one verdict per section")
}

/// The nel scenes with their Scene root id as the manifest gives it.
fn scenes(corpus: &Path) -> Vec<(PathBuf, String)> {
    let manifest = pmtests::manifest(corpus);
    pmtests::corpus_files(corpus)
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(corpus).unwrap().to_string_lossy().replace('\\', "/");
            (p, manifest[&rel]["root_id"].clone())
        })
        .collect()
}

/// True when `bytes` holds `text` as UTF-16LE (how Scene chunks store names; the summary
/// property set stores 8-bit text, so it is not found there).
fn holds_utf16(bytes: &[u8], text: &str) -> bool {
    let needle: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    bytes.windows(needle.len()).any(|w| w == needle)
}

#[test]
fn render_matches_max_on_every_nel_scene() {
    let Some(corpus) = pmtests::nel_corpus() else { return };
    let mut max4 = 0;
    for (path, root) in scenes(&corpus) {
        let vs = verdicts(&open(&path));
        let render = section(&vs, "render");
        let name = path.file_name().unwrap().to_string_lossy();
        match &render.outcome {
            SectionOutcome::Pass => {
                if root == "0x2006" {
                    max4 += 1;
                }
            }
            // Max 3 writes no Render Data.
            SectionOutcome::Skip { reason } if reason == "absent-in-file" => assert_eq!(root, "0x2004", "{name}"),
            other => panic!("{name}: render {other:?} {:?} {:?}", render.max, render.ours),
        }
    }
    assert!(max4 > 0, "the manifest lists Max 4 scenes (root 0x2006) with Render Data");
}

#[test]
fn materials_of_old_scenes_pass_or_name_the_max4_scripted_material() {
    let Some(corpus) = pmtests::nel_corpus() else { return };
    let (mut passes, mut scripted) = (0, 0);
    for (path, root) in scenes(&corpus) {
        let file = open(&path);
        let vs = verdicts(&file);
        let materials = section(&vs, "materials");
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        match &materials.outcome {
            SectionOutcome::Pass => passes += 1,
            SectionOutcome::Skip { reason } => {
                assert_eq!(root, "0x2006", "{name}: only Max 4 scripted materials skip: {reason}");
                assert!(reason.starts_with("unsupported: NeL Material (") && reason.contains(NEL_MATERIAL), "{reason}");
                // The evidence, read without pmcore: Max names a material the file holds
                // nowhere (no Scene chunk stores that name as UTF-16).
                let bytes = std::fs::read(&path).unwrap();
                let listed = materials.max.clone().unwrap_or_default();
                let absent: Vec<&String> = listed.iter().filter(|n| !holds_utf16(&bytes, n)).collect();
                assert_eq!(absent.len(), 1, "{name}: exactly one listed name stored nowhere: {absent:?}");
                assert!(absent[0].starts_with("Material #"), "{name}: {absent:?}");
                scripted += 1;
            }
            SectionOutcome::Fail { first_difference } => panic!("{name}: materials {first_difference}"),
        }
    }
    pmtests::notice(&format!("nel summary/materials: {passes} pass, {scripted} Max 4 scripted-material skips"));
    assert!(passes > 0 && scripted > 0);
}

#[test]
fn object_misses_differ_from_a_stored_name_by_case_alone() {
    let Some(corpus) = pmtests::nel_corpus() else { return };
    for (path, _) in scenes(&corpus) {
        let vs = verdicts(&open(&path));
        let objects = section(&vs, "objects");
        if let SectionOutcome::Fail { first_difference } = &objects.outcome {
            let name = path.file_name().unwrap().to_string_lossy();
            let lower = |l: &Option<Vec<String>>| {
                let mut l: Vec<String> = l.clone().unwrap_or_default().iter().map(|n| n.to_ascii_lowercase()).collect();
                l.sort();
                l
            };
            assert_eq!(lower(&objects.max), lower(&objects.ours), "{name}: {first_difference}");
        }
    }
}

#[test]
fn worker_classes_a_max4_scripted_material_skip_as_unsupported() {
    let Some(corpus) = pmtests::nel_corpus() else { return };
    let Some((path, _)) = scenes(&corpus).into_iter().find(|(p, root)| {
        root == "0x2006" && matches!(section(&verdicts(&open(p)), "materials").outcome, SectionOutcome::Skip { .. })
    }) else {
        panic!("no Max 4 nel scene with a scripted material in its library")
    };
    let out = pmtests::harness::Worker::new(&path)
        .args([OsStr::new("--tiers"), OsStr::new("t3"), OsStr::new("--export"), OsStr::new("summary")])
        .args([OsStr::new("--reference"), corpus.as_os_str()])
        .output();
    pmtests::harness::assert_exit(&out, 0);
    let events: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let results: Vec<&serde_json::Value> = events.iter().filter(|e| e["event"] == "result").collect();
    let by = |s: &str| results.iter().find(|r| r["stream"] == s).unwrap_or_else(|| panic!("no {s}"));
    let materials = by("summary/materials");
    assert_eq!(materials["verdict"], "skip", "{materials}");
    assert_eq!(materials["triage"]["class"], "unsupported", "{materials}");
    assert_eq!(materials["triage"]["evidence"]["classes"][0]["class_id"], NEL_MATERIAL, "{materials}");
    assert_eq!(materials["triage"]["evidence"]["classes"][0]["in_file"], true, "{materials}");
    assert_eq!(by("summary/render")["verdict"], "pass");
}
