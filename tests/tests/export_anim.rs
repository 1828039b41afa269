//! The NeL `.anim` exporter (`--export anim`) and its T3 (`nel-anim/structure`,
//! `nel-anim/values/<FBX>`) on the animated `.max` of `../shared/corpus/pairs` and every rig of
//! `../shared/corpus/biped` (file lists from the manifests): each gets a `.anim` that reads
//! back through the NeL reader and rewrites byte-identically; a failing values verdict is one
//! of the explained kinds; a track not written names its controller's Class ID. Named files
//! pin what each outcome looks like, and one renamed track is caught. Skips, saying so,
//! without `../shared`.

use pmcore::export::nel_anim;
use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::Verdict;
use pmtests::harness::Worker;
use pmworker::events::{Event, Export, TierResult};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The `.max` files to export: the pairs rows marked animated, and every biped row, each
/// with its corpus folder (the `--reference`).
fn files() -> Option<Vec<(PathBuf, PathBuf)>> {
    let pairs = pmtests::shared_corpus("pairs")?;
    let biped = pmtests::shared_corpus("biped")?;
    let mut out: Vec<(PathBuf, PathBuf)> = Vec::new();
    let rows = pmtests::read_tsv(&pairs.join("manifest.tsv"));
    for row in rows.iter().filter(|r| r["animated"] == "yes") {
        let max = pairs.join(&row["max"]);
        if !out.iter().any(|(m, _)| *m == max) {
            out.push((max, pairs.clone()));
        }
    }
    for name in pmtests::manifest(&biped).into_keys().filter(|n| n.ends_with(".max")) {
        out.push((biped.join(name), biped.clone()));
    }
    assert!(!out.is_empty(), "the manifests list no animated .max");
    Some(out)
}

/// Runs `--export anim` on `max` with `reference` as the pairs folder, writing into `out`.
fn run(max: &Path, reference: &Path, out: &Path) -> (Export, Vec<TierResult>) {
    let run = Worker::new(max)
        .args(["--tiers", "t3", "--export", "anim", "--reference"])
        .args([reference.as_os_str()])
        .args(["--out".as_ref(), out.as_os_str()])
        .run();
    let export = run.events.iter().find_map(|e| match e {
        Event::Export(x) if x.exporter == "anim" => Some(x.clone()),
        _ => None,
    });
    let results = run
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Result(r) if r.stream.starts_with("nel-anim") => Some(r.clone()),
            _ => None,
        })
        .collect();
    (export.unwrap_or_else(|| panic!("{}: no anim export event; {}", max.display(), run.stderr)), results)
}

/// A result's verdict fields (`kind`, `message`, `reason`, `note`) as JSON.
fn fields(r: &TierResult) -> serde_json::Value {
    serde_json::to_value(&r.verdict).unwrap_or_default()
}

fn kind(r: &TierResult) -> String {
    fields(r)["kind"].as_str().unwrap_or_default().to_string()
}

fn open(max: &Path) -> pmcore::MaxFile {
    let bytes = std::fs::read(max).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    pmcore::MaxFile::new(ole)
}

#[test]
fn every_animated_pair_and_biped_rig_gets_an_anim_that_reads_back_byte_identically() {
    let Some(files) = files() else { return };
    let dir = tempfile::tempdir().unwrap();
    let mut tally: BTreeMap<String, usize> = BTreeMap::new();
    let (mut values_compared, mut values_passed) = (0, 0);
    for (max, reference) in &files {
        let (export, results) = run(max, reference, dir.path());
        assert_eq!(export.status, "ok", "{}: {:?}", max.display(), export.summary);
        let written = dir.path().join(&export.files[0]);
        let bytes = std::fs::read(&written).unwrap();
        pmworker::anim::read_back(&bytes).unwrap_or_else(|e| panic!("{}: {e}", written.display()));
        for u in export.summary["unsupported"].as_array().into_iter().flatten() {
            assert!(u["class_id"].as_str().is_some_and(|c| c.starts_with("(0x")), "{}: {u}", max.display());
        }
        for r in &results {
            let kind = kind(r);
            let part = if r.stream == "nel-anim/structure" { "structure" } else { "values" };
            *tally.entry(format!("{part} {} {kind}", r.verdict.name())).or_default() += 1;
            if part == "structure" {
                assert_ne!(r.verdict.name(), "fail", "{}: {:?}", max.display(), fields(r));
            } else if kind == "t3-nel-anim-unsupported" {
                // Every pose compared agreed; the fail names nodes with no track (keyed
                // Biped tails, ears, hands; IK controllers): coverage, not a wrong value, so
                // it stays out of the values rate below (the tally still counts it).
                continue;
            } else if r.verdict.name() != "skip" {
                values_compared += 1;
                values_passed += usize::from(r.verdict.name() == "pass");
                let explained = ["t3-nel-anim-scale-tangents", "t3-nel-anim-unsupported"];
                assert!(
                    r.verdict.name() == "pass" || explained.contains(&kind.as_str()),
                    "{} {}: {kind} {:?}",
                    max.display(),
                    r.stream,
                    fields(r)
                );
            }
        }
    }
    pmtests::notice(&format!("nel-anim over {} files: {tally:?}", files.len()));
    assert!(values_compared > 0, "no values verdict compared a pose");
    // Of the verdicts where every FBX-animated node has its tracks, three in four pass.
    assert!(values_passed * 4 >= values_compared * 3, "values pass {values_passed} of {values_compared}");
}

/// `wild/<name>` with its pairs folder.
fn pair(name: &str) -> Option<(PathBuf, PathBuf)> {
    let pairs = pmtests::shared_corpus("pairs")?;
    Some((pairs.join("../wild").join(name), pairs))
}

#[test]
fn named_files_show_each_outcome() {
    let Some((stage, pairs)) = pair("tae8838__stage.max") else { return };
    let dir = tempfile::tempdir().unwrap();
    // Stage: a Position XYZ / Euler XYZ scene, oversampled once per frame; every FBX pose equal.
    let (export, results) = run(&stage, &pairs, dir.path());
    assert_eq!(export.summary["selection"], "scene-root");
    assert!(export.summary["oversampled"].as_object().is_some_and(|o| !o.is_empty()), "{:?}", export.summary);
    for r in &results {
        assert_eq!(r.verdict.name(), "pass", "{}: {:?}", r.stream, fields(r));
    }
    // Blue: B_Root's Bezier Scale keeps NeL's per-tick tangents; the FBX curve differs there.
    let (blue, _) = pair("tae8838__blue.max").unwrap();
    let (_, results) = run(&blue, &pairs, dir.path());
    let model = results.iter().find(|r| r.stream.ends_with("Models/Characters/Blue.FBX")).expect("Blue.FBX");
    assert_eq!(kind(model), "t3-nel-anim-scale-tangents", "{:?}", fields(model));
    // LD35 player: a keyed Biped. The bones `keyed_bone` places get tracks (COM bare, spine,
    // head, arms), their in-between samples counted as guessed; the others (hands, toes,
    // nubs, legs in IK intervals) are not written, each named with the BipSlave Class ID.
    let biped = pmtests::shared_corpus("biped").unwrap();
    let (export, results) = run(&biped.join("../wild/tae8838__player.max"), &biped, dir.path());
    let written = dir.path().join(&export.files[0]);
    let back = pmworker::anim::read_back(&std::fs::read(&written).unwrap()).unwrap();
    for name in ["rotquat", "pos", "Bip01 Spine.rotquat", "Bip01 Spine.pos", "Bip01 Head.rotquat"] {
        assert!(back.track(name).is_some(), "{name} missing");
    }
    let unsupported = export.summary["unsupported"].to_string();
    assert!(unsupported.contains("(0x9154, 0x0)") && !unsupported.contains("(0x9156, 0x0)"), "{unsupported}");
    assert!(unsupported.contains("Bip01 L Hand.rotquat"), "{unsupported}");
    let inexact = &export.summary["inexact_in_betweens"];
    assert!(inexact["guessed"].as_u64().is_some_and(|g| g > 0 && g < inexact["samples"].as_u64().unwrap()));
    assert!(inexact["exact_ticks"]["Bip01"].as_array().is_some_and(|t| t.iter().any(|t| t == 0)), "{inexact}");
    let structure = results.iter().find(|r| r.stream == "nel-anim/structure").unwrap();
    assert_eq!(structure.verdict.name(), "pass", "{:?}", fields(structure));
}

/// The `.anim` of `animation` with `f` applied to the values of track `name`'s key at `tick`.
fn with_key_changed(
    animation: &pmcore::nel::anim::Animation,
    name: &str,
    tick: i32,
    f: impl Fn(&mut Vec<f32>),
) -> pmcore::nel::anim::Animation {
    let mut tracks: Vec<(String, pmcore::nel::anim::Track)> =
        animation.tracks().unwrap().into_iter().map(|(n, t)| (n.to_string(), t.clone())).collect();
    let (_, track) = tracks.iter_mut().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no track {name}"));
    let key = track.keys.iter_mut().find(|k| (k.time * 4800.0).round() as i32 == tick).expect("a key at the tick");
    f(&mut key.values);
    pmcore::nel::anim::Animation::new(tracks)
}

#[test]
fn keyed_biped_values_compare_only_at_key_times_and_a_moved_key_is_caught() {
    let Some(biped) = pmtests::shared_corpus("biped") else { return };
    let fbx = biped.join("tae8838__LD35/Yellow@Spawn.FBX");
    let reference = pmref::read_reference("fbx", &std::fs::read(&fbx).unwrap()).unwrap();
    let file = open(&biped.join("../wild/tae8838__yellow@spawn.max"));
    let export = pmcore::export::nel_anim_biped::export(&file).unwrap();
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let inexact = export.summary.inexact_in_betweens.clone().expect("yellow@spawn has guessed in-betweens");
    let guessed: Vec<(String, Vec<i32>)> = inexact.exact_ticks.into_iter().collect();
    let selected = export.summary.selected.clone();
    let detail = |animation: &pmcore::nel::anim::Animation| {
        let back = pmworker::anim::read_back(&pmworker::anim::bytes_of(animation)).unwrap();
        let input = pmref::compare::nel_anim::NelAnimInput {
            animation: &back,
            bare_node: Some("Bip01"),
            unsupported: &[],
            guessed: &guessed,
            selected: Some(&selected),
        };
        pmref::compare::nel_anim::compare(&index, &reference, "Yellow@Spawn.FBX", &input).detail
    };
    let as_is = detail(&export.animation);
    // At the Biped key times pmcore is exact: every pose compared agrees; the in-between
    // frames are counted as not compared, never as equal.
    assert!(as_is["poses_compared"].as_u64().unwrap() > 0 && as_is["poses_off"] == 0, "{as_is}");
    assert!(as_is["poses_not_compared_guessed_in_between"].as_u64().unwrap() > 0, "{as_is}");
    let com = &guessed.iter().find(|(n, _)| n == "Bip01").expect("the COM has guessed samples").1;
    // The COM's key at its first key time moved 10 units along x: caught.
    let moved = with_key_changed(&export.animation, "pos", com[0], |v| v[0] += 10.0);
    assert!(detail(&moved)["poses_off"].as_u64().unwrap() > 0, "a moved key time pose passed");
    // The same change on a guessed in-between sample is not compared, so it decides nothing.
    let between = (com[0]..).step_by(160).find(|t| !com.contains(t)).unwrap();
    let moved = with_key_changed(&export.animation, "pos", between, |v| v[0] += 10.0);
    let d = detail(&moved);
    assert_eq!((d["poses_compared"].clone(), d["poses_off"].clone()), (as_is["poses_compared"].clone(), 0.into()));
}

#[test]
fn a_renamed_track_is_caught() {
    let Some((stage, pairs)) = pair("tae8838__stage.max") else { return };
    let fbx = pairs.join("tae8838__LD35/Assets/Models/Stage/Stage.FBX");
    let reference = pmref::read_reference("fbx", &std::fs::read(&fbx).unwrap()).unwrap();
    let file = open(&stage);
    let export = nel_anim::export(&file).unwrap();
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    let values = |animation: &pmcore::nel::anim::Animation| {
        let bytes = pmworker::anim::bytes_of(animation);
        let back = pmworker::anim::read_back(&bytes).unwrap();
        let input = pmref::compare::nel_anim::NelAnimInput {
            animation: &back,
            bare_node: None,
            unsupported: &[],
            guessed: &[],
            selected: None,
        };
        pmref::compare::nel_anim::compare(&index, &reference, "Stage.FBX", &input).verdict
    };
    assert!(matches!(values(&export.animation), Verdict::Pass { .. }), "the unperturbed export passes");
    let (first, _) = export.animation.tracks().unwrap()[0];
    let (node, value) = first.rsplit_once('.').unwrap();
    // Another node's name: the values part finds no such node.
    let mut renamed = export.animation.clone();
    assert!(renamed.rename_track(first, &format!("{node}_renamed.{value}")));
    assert!(matches!(values(&renamed), Verdict::Fail(m) if m.kind == "t3-nel-anim-unknown-track"));
    // Another value name: the structure part breaks `value-names`.
    let mut renamed = export.animation.clone();
    assert!(renamed.rename_track(first, &format!("{node}.position")));
    let misses = pmref::anim_conventions::check(&renamed).unwrap();
    assert!(misses.iter().any(|m| m.rule == "value-names"), "{misses:?}");
}

#[test]
fn every_real_anim_keeps_the_conventions_the_structure_part_checks() {
    let Some(nel) = pmtests::nel_corpus() else { return };
    let files = pmtests::manifest_files(&nel, |n| n.ends_with(".anim"));
    assert!(!files.is_empty(), "the NeL manifest lists no .anim");
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        let parsed = pmcore::nel::read(&bytes).unwrap();
        assert_eq!(pmcore::nel::write(&parsed.file), bytes, "{}", f.display());
        let pmcore::nel::NelFile::Animation(a) = parsed.file else { panic!("{} is not an animation", f.display()) };
        let misses = pmref::anim_conventions::check(&a).unwrap_or_else(|| panic!("{}: tracks not typed", f.display()));
        assert!(misses.is_empty(), "{}: {misses:?}", f.display());
    }
}

#[test]
fn bad_input_is_a_typed_outcome_never_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = pmtests::fixtures::write_file(dir.path(), "garbage.max", b"not a max file at all");
    let run = Worker::new(&garbage).args(["--tiers", "t3", "--export", "anim"]).run();
    assert!(run.code.is_some_and(|c| c != 101), "exit {:?}: {}", run.code, run.stderr);
    // A scene without animation: a .anim with no track, a not-applicable skip.
    let minimal = pmtests::fixtures::minimal_max();
    let pmcore::Input::Ole(ole) = pmcore::classify(&minimal) else { panic!("fixture is not OLE") };
    match nel_anim::export(&pmcore::MaxFile::new(ole)) {
        Ok(x) => assert_eq!(x.summary.tracks, 0),
        Err(e) => assert!(!e.to_string().is_empty()),
    }
}

/// A stand-in for a Biped keytrack decoder: a span and the identity pose at every time.
struct StillBiped(i32, i32);

impl nel_anim::BipedSampler for StillBiped {
    fn key_range(&self) -> Result<Option<(i32, i32)>, String> {
        Ok(Some((self.0, self.1)))
    }
    fn local_at(&self, _node: usize, _tick: i32) -> Result<pmcore::model::controllers::LocalTransform, String> {
        Ok(Default::default())
    }
}

#[test]
fn a_biped_sampler_plugs_in_and_its_tracks_follow_the_biped_rules() {
    let Some(biped) = pmtests::shared_corpus("biped") else { return };
    let file = open(&biped.join("../wild/tae8838__player.max"));
    let x = nel_anim::export_with(&file, Some(&StillBiped(0, 480))).unwrap();
    let names: Vec<String> = x.animation.tracks().unwrap().iter().map(|(n, _)| n.to_string()).collect();
    // The selected Bip01 hangs under the scene root: its own tracks are bare.
    assert!(names.contains(&"rotquat".to_string()) && names.contains(&"pos".to_string()), "{names:?}");
    assert!(names.contains(&"Bip01 Spine.pos".to_string()) && names.contains(&"Bip01 L Clavicle.pos".into()));
    assert!(!names.contains(&"Bip01 L Thigh.pos".to_string()), "{names:?}");
    for (name, t) in x.animation.tracks().unwrap() {
        if name == "rotquat" || name.ends_with(".rotquat") && name.starts_with("Bip01") {
            // One key per frame from 0 to 480 ticks: 4 keys, 1/30 s apart.
            assert_eq!(t.keys.len(), 4, "{name}");
        }
    }
    assert_eq!(pmref::anim_conventions::check(&x.animation), Some(vec![]));
    assert!(x.summary.unsupported.iter().all(|u| !u.class_id.starts_with("(0x915")), "{:?}", x.summary.unsupported);
}

#[test]
fn hostile_variants_of_animated_scenes_never_panic_the_anim_exporter() {
    use pmworker::events::{ExportKind, Tier, Timing};
    let Some(wild) = pmtests::shared_corpus("wild") else { return };
    let opts = pmworker::pipeline::Options::asked(&[Tier::T3], &[ExportKind::Anim], Vec::new());
    let mut rng = pmtests::hostile::Rng::new(0xA417);
    let mut total = 0;
    for seed in ["tae8838__stage.max", "tae8838__player.max"] {
        let bytes = std::fs::read(wild.join(seed)).expect("seed readable");
        for case in pmtests::hostile::cases_from(seed, &bytes, &mut rng) {
            total += 1;
            let mut sink = pmworker::emit::VecSink::default();
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                pmworker::pipeline::run_bytes(&case.name, &case.bytes, &opts, &mut sink, Timing::default())
            }));
            assert!(outcome.is_ok(), "{}: panicked", case.name);
        }
    }
    assert!(total > 0, "no hostile case was made");
}

#[test]
fn a_real_tcb_rotation_is_written_as_unit_axis_angle_keys() {
    let Some(public) = pmtests::public_corpus() else { return };
    let x = nel_anim::export(&open(&public.join("paolohilario__clr-standard.max"))).unwrap();
    let tracks = x.animation.tracks().unwrap();
    let tcb: Vec<_> = tracks.iter().filter(|(_, t)| t.kind == pmcore::nel::anim::KeyKind::TcbQuat).collect();
    assert!(!tcb.is_empty(), "{:?}", x.summary.by_class);
    for (name, t) in tcb {
        assert!(name.ends_with(".rotquat"), "{name}");
        for k in &t.keys {
            let axis = (k.values[0] as f64).hypot(k.values[1] as f64).hypot(k.values[2] as f64);
            assert!((axis - 1.0).abs() < 1e-6, "{name} at {} s: axis length {axis}", k.time);
        }
    }
}
