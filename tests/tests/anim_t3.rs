//! T3 `animation` and `skin` against the references of `../shared/corpus/anim` — the ASE that
//! 3ds Max 2009's own ASCII exporter wrote and the glTF 2.0 of the Babylon.js exporter —
//! every manifest row with the expectations its `carries` column states, perturbed copies
//! that must be caught (a Bezier tangent in the `.max`, a rotation sample in the ASE), and a
//! glTF whose accessor runs past its buffer (a typed error, and a failing status through the
//! worker).

use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::Verdict;
use pmref::compare::{compare_all_in_range, Comparison};
use pmref::pairs::{lookup, Lookup, ReferenceFile};
use std::path::{Path, PathBuf};

fn anim() -> Option<PathBuf> {
    pmtests::shared_corpus("anim")
}

/// Every comparison of `reference` against the `.max` bytes `max_bytes`, with the scene's
/// animation range start as the worker reads it.
fn compare_bytes(max_bytes: &[u8], reference: &ReferenceFile) -> Vec<Comparison> {
    let pmcore::Input::Ole(ole) = pmcore::classify(max_bytes) else { panic!("not OLE") };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene root");
    let start = pmcore::model::time_config::TimeConfig::of(&file).ok();
    let scene = pmref::pairs::read(reference).unwrap_or_else(|e| panic!("{}: {e}", reference.name));
    compare_all_in_range(&index, &scene, &reference.name, start)
}

fn references(anim: &Path, max: &Path) -> Vec<ReferenceFile> {
    match lookup(max, &[anim.to_path_buf()]) {
        Lookup::Found(files, _) => files,
        other => panic!("{}: {other:?}", max.display()),
    }
}

fn result<'a>(results: &'a [Comparison], name: &str) -> &'a Comparison {
    results.iter().find(|c| c.name == name).expect("comparison present")
}

/// Every row: each ASE and glTF `animation` passes with every curve and key compared — the
/// ASE's sample counts are the `carries` column's `xN` — except a glTF of morph weights,
/// which is an `unsupported` failure naming the Morpher's Class ID; each `.3ds` keyframer
/// passes with every key compared (its camera roll keys counted, as `carries` lists them);
/// `skin` passes on the rows that carry a skin (`1 skin N joints`, N bones compared) and
/// skips on the others.
#[test]
fn every_anim_row_meets_what_its_manifest_row_carries() {
    let Some(anim) = anim() else { return };
    for row in pmtests::read_tsv(&anim.join("manifest.tsv")) {
        let max = anim.join(&row["max"]);
        let carries = &row["carries"];
        let bytes = std::fs::read(&max).unwrap();
        for reference in references(&anim, &max) {
            let ext = reference.name.rsplit('.').next().unwrap_or_default().to_ascii_lowercase();
            let results = compare_bytes(&bytes, &reference);
            let (animation, skin) = (result(&results, "animation"), result(&results, "skin"));
            let at = format!("{} / {}: {:?}\n{}", row["max"], reference.name, animation.verdict, animation.detail);
            match ext.as_str() {
                "ase" => {
                    assert_eq!(animation.verdict.name(), "pass", "{at}");
                    let samples: usize = carries
                        .split("3DS:")
                        .next()
                        .unwrap_or_default()
                        .split(" x")
                        .skip(1)
                        .filter_map(|s| s.split(|c: char| !c.is_ascii_digit()).next()?.parse::<usize>().ok())
                        .sum();
                    assert_eq!(animation.detail["keys_compared"], samples, "{at}");
                }
                "gltf" if carries.contains("morph") => match &animation.verdict {
                    Verdict::Fail(m) => assert!(m.message.contains("0x17bb6854, 0xa5cba2a3"), "{at}"),
                    _ => panic!("morph weights must not pass: {at}"),
                },
                "gltf" => {
                    assert_eq!(animation.verdict.name(), "pass", "{at}");
                    assert_eq!(animation.detail["curves_compared"], animation.detail["curves"], "{at}");
                    assert_eq!(animation.detail["keys_compared"], animation.detail["keys"], "{at}");
                }
                "3ds" => {
                    // Keyframer tracks: every key compared; camera roll keys are counted, not compared.
                    assert_eq!(animation.verdict.name(), "pass", "{at}");
                    assert_eq!(animation.detail["keys_compared"], animation.detail["keys"], "{at}");
                    let rolls = carries.contains("roll");
                    assert_eq!(
                        animation.detail["time_base"].as_str().unwrap().contains("2 camera roll key(s)"),
                        rolls,
                        "{at}"
                    );
                }
                _ => assert_eq!(animation.verdict.name(), "skip", "{at}"),
            }
            let joints = carries
                .split("1 skin ")
                .nth(1)
                .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next()?.parse::<usize>().ok());
            match (ext.as_str(), joints) {
                ("gltf", Some(n)) => {
                    assert_eq!(skin.verdict.name(), "pass", "{}: {:?} {}", reference.name, skin.verdict, skin.detail);
                    assert_eq!(skin.detail["bones_compared"], n, "{}", skin.detail);
                }
                _ => assert_eq!(skin.verdict.name(), "skip", "{}: {:?}", reference.name, skin.verdict),
            }
        }
    }
}

/// The 28 bytes of a Bezier Float key as a `.max` stores them (0x2525).
fn key_bytes(k: &pmcore::model::keys::FloatKey) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend(k.time.to_le_bytes());
    out.extend(k.flags.to_le_bytes());
    for f in [k.value, k.in_tangent, k.out_tangent, k.in_length, k.out_length] {
        out.extend(f.to_le_bytes());
    }
    out
}

/// One Bezier out-tangent changed in a copy of `AnimatedCubePosition.max` (the key found
/// through pmcore's key table, its 28 bytes found once in the file and the tangent word
/// rewritten): the glTF's frame samples between that key and the next (91 samples over the
/// Max keys) no longer match — `animation` fails, while the untouched file passes.
#[test]
fn one_bezier_tangent_changed_in_the_max_is_caught() {
    let Some(anim) = anim() else { return };
    let max =
        anim.join("BabylonJS__Exporters/3ds Max/Samples/sourceModels/AnimationsOnly/Cube/AnimatedCubePosition.max");
    let bytes = std::fs::read(&max).unwrap();
    let reference = references(&anim, &max).remove(0);
    assert_eq!(result(&compare_bytes(&bytes, &reference), "animation").verdict.name(), "pass");
    // A key inside the exported range (ticks 0..16000) two frames or more before the next
    // key, whose bytes occur once in the file.
    let candidates: Vec<Vec<u8>> = {
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("not OLE") };
        let file = pmcore::MaxFile::new(ole);
        let trees = SceneTrees::of(&file).unwrap();
        let index = trees.index().unwrap();
        index
            .objects
            .iter()
            .filter_map(|o| pmcore::model::keys::float_keys(o).ok().flatten())
            .flat_map(|keys| {
                keys.windows(2)
                    .filter(|w| w[0].time >= 0 && w[1].time <= 16000 && w[1].time - w[0].time >= 320)
                    .map(|w| key_bytes(&w[0]))
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let find = |needle: &[u8]| bytes.windows(needle.len()).filter(|w| *w == needle).count();
    let record = candidates.iter().find(|k| find(k) == 1).expect("a key stored once in the file");
    let at = bytes.windows(28).position(|w| w == record.as_slice()).unwrap();
    let mut changed = bytes.clone();
    let out = f32::from_le_bytes(changed[at + 16..at + 20].try_into().unwrap());
    changed[at + 16..at + 20].copy_from_slice(&(out + 2e-3).to_le_bytes());
    match &result(&compare_bytes(&changed, &reference), "animation").verdict {
        Verdict::Fail(m) => assert_eq!(m.kind, "t3-pairs-animation", "{}", m.message),
        other => panic!("a changed tangent was not caught: {other:?}"),
    }
}

/// One ASE rotation sample changed (a copy in a tempdir, `RotatingCube.ASE`, the angle of
/// the sample at frame 90 from its value to value + 0.01 rad): every later absolute
/// rotation moves with it — `animation` fails at that key.
#[test]
fn one_ase_rotation_sample_changed_is_caught() {
    let Some(anim) = anim() else { return };
    let max = anim.join("assimp__assimp/test/models/SourceFiles/RotatingCube.max");
    let original = references(&anim, &max).into_iter().find(|r| r.name.ends_with(".ASE")).unwrap();
    let text = std::fs::read_to_string(&original.path).unwrap();
    let line = text.lines().find(|l| l.trim_start().starts_with("*CONTROL_ROT_SAMPLE 14400")).expect("frame 90");
    let words: Vec<&str> = line.split_whitespace().collect();
    let angle: f64 = words[5].parse().unwrap();
    let changed_line =
        format!("\t\t\t*CONTROL_ROT_SAMPLE 14400\t{}\t{}\t{}\t{:.4}", words[2], words[3], words[4], angle + 0.01);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("RotatingCube.ASE");
    std::fs::write(&copy, text.replace(line, &changed_line)).unwrap();
    let reference = ReferenceFile { path: copy, name: original.name.clone() };
    let results = compare_bytes(&std::fs::read(&max).unwrap(), &reference);
    match &result(&results, "animation").verdict {
        Verdict::Fail(m) => assert!(m.message.contains("tick 14400"), "{}", m.message),
        other => panic!("a changed sample was not caught: {other:?}"),
    }
}

/// A glTF whose output accessor claims more elements than its buffer view holds: the reader
/// returns `AccessorPastBuffer` naming the accessor, and the worker reports every
/// comparison of that export as a `t3-reference-unreadable` failure (status `fail`).
#[test]
fn a_gltf_accessor_past_its_buffer_is_a_typed_error_and_a_failing_status() {
    let Some(anim) = anim() else { return };
    let folder = anim.join("BabylonJS__Exporters/3ds Max/Samples/glTF 2.0/AnimationsOnly/Cube");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("all_position.gltf")).unwrap()).unwrap();
    let output = doc["animations"][0]["samplers"][0]["output"].as_u64().unwrap() as usize;
    let count = doc["accessors"][output]["count"].as_u64().unwrap();
    doc["accessors"][output]["count"] = serde_json::json!(count + 1000);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("all_position.gltf"), serde_json::to_vec(&doc).unwrap()).unwrap();
    std::fs::copy(folder.join("all_position.bin"), dir.path().join("all_position.bin")).unwrap();
    let reference = ReferenceFile { path: dir.path().join("all_position.gltf"), name: "all_position.gltf".into() };
    match pmref::pairs::read(&reference) {
        Err(pmref::ReadError::Gltf(pmref::gltf_file::GltfError::AccessorPastBuffer { accessor, .. })) => {
            assert_eq!(accessor, output)
        }
        other => panic!("{other:?}"),
    }
    // Through the worker: a manifest naming the copy beside the real `.max`.
    let max =
        anim.join("BabylonJS__Exporters/3ds Max/Samples/sourceModels/AnimationsOnly/Cube/AnimatedCubePosition.max");
    std::fs::copy(&max, dir.path().join("cube.max")).unwrap();
    std::fs::write(dir.path().join("manifest.tsv"), "max\texports\ncube.max\tall_position.gltf\n").unwrap();
    let run = pmtests::harness::Worker::new(&dir.path().join("cube.max"))
        .args(["--tiers", "t3", "--export", "pairs", "--reference"])
        .args([dir.path()])
        .run();
    let events: Vec<serde_json::Value> = run.events.iter().map(|e| serde_json::to_value(e).unwrap()).collect();
    let animation =
        events.iter().find(|e| e["stream"] == "pairs/animation/all_position.gltf").expect("animation result");
    assert_eq!(
        (animation["verdict"].as_str(), animation["kind"].as_str()),
        (Some("fail"), Some("t3-reference-unreadable"))
    );
    assert!(animation["message"].as_str().unwrap().contains(&format!("accessor {output}")), "{animation}");
    let end = events.iter().find(|e| e["event"] == "end").unwrap();
    assert_eq!(end["status"], "fail", "{end}");
}

/// The real ASE files cut at every 31st byte and with one byte changed at every 31st
/// position go through the `ase_reader` fuzz body: a scene or a typed error, never a panic.
#[test]
fn truncated_and_changed_real_ase_files_never_panic() {
    let Some(anim) = anim() else { return };
    let files = pmtests::manifest_files(&anim, |_| true);
    let ase: Vec<PathBuf> = files
        .iter()
        .flat_map(|max| references(&anim, max))
        .filter(|r| r.name.to_ascii_lowercase().ends_with(".ase"))
        .map(|r| r.path)
        .collect();
    assert!(!ase.is_empty(), "the anim manifest lists ASE exports");
    for path in ase {
        let bytes = std::fs::read(&path).unwrap();
        let body = bytes.strip_prefix(b"*3DSMAX_ASCIIEXPORT").unwrap_or(&bytes);
        for end in (0..body.len()).step_by(31) {
            pmtests::fuzz_targets::ase_reader(&body[..end]);
            let mut changed = body.to_vec();
            changed[end] = changed[end].wrapping_add(0x41);
            pmtests::fuzz_targets::ase_reader(&changed);
        }
    }
}
