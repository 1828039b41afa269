//! T3 triage through the built worker (`docs/triage.md`): every T3 result that is not a
//! pass carries a class; a real scene-state miss is `era-mismatch` with evidence that an
//! independent byte search (the `cfb` crate, not pmcore) confirms; perturbed copies of a
//! passing export — one node renamed to a name the `.max` holds, one vertex moved — turn
//! `unexplained`; node names that are not UTF-8 still get a class. Skips visibly without
//! `../shared`.

mod report_support;

use pmref::fbx::binary::{self, Document, Node, Property};
use pmtests::harness::Worker;
use serde_json::Value;
use std::io::Read;
use std::path::{Path, PathBuf};

fn pairs() -> Option<PathBuf> {
    pmtests::shared_corpus("pairs")
}

/// The T3 results of one worker run, as JSON.
fn t3_results(max: &Path, references: &Path) -> Vec<Value> {
    let run = Worker::new(max)
        .args([Path::new("--tiers"), Path::new("t3"), Path::new("--export"), Path::new("pairs")])
        .args([Path::new("--reference"), references])
        .run();
    run.events
        .iter()
        .map(|e| serde_json::to_value(e).expect("an event serializes"))
        .filter(|e| e["event"] == "result" && e["tier"] == "t3")
        .collect()
}

/// Every T3 result: a pass carries no triage, anything else carries a known class.
fn assert_every_miss_has_a_class(results: &[Value]) {
    assert!(!results.is_empty());
    for r in results {
        let class = r["triage"]["class"].as_str();
        if r["verdict"] == "pass" {
            assert!(r.get("triage").is_none(), "a pass carries no triage: {r}");
        } else {
            let class = class.unwrap_or_else(|| panic!("a miss without a class: {r}"));
            assert!(class.parse::<pmschema::TriageClass>().is_ok(), "{class}");
        }
    }
}

fn result<'a>(results: &'a [Value], comparison: &str) -> &'a Value {
    results
        .iter()
        .find(|r| r["stream"].as_str().is_some_and(|s| s.starts_with(&format!("pairs/{comparison}/"))))
        .unwrap_or_else(|| panic!("no {comparison} result in {results:?}"))
}

/// Every stream of the compound file `max`, read with the `cfb` crate alone. A compressed
/// stream (gzip, or Max 2024's `FF FF` + zstd) cannot be searched here and fails the test
/// rather than pass a name as absent unseen.
fn raw_streams(max: &Path) -> Vec<(String, Vec<u8>)> {
    let mut file = cfb::open(max).expect("an OLE file");
    let paths: Vec<PathBuf> = file.walk().filter(|e| e.is_stream()).map(|e| e.path().to_path_buf()).collect();
    paths
        .into_iter()
        .map(|p| {
            let mut bytes = Vec::new();
            file.open_stream(&p).unwrap().read_to_end(&mut bytes).unwrap();
            let compressed =
                bytes.starts_with(&[0x1f, 0x8b]) || bytes.starts_with(&[0xff, 0xff, 0x28, 0xb5, 0x2f, 0xfd]);
            assert!(
                !compressed,
                "{}: stream {} is compressed; this check cannot search it",
                max.display(),
                p.display()
            );
            (p.display().to_string(), bytes)
        })
        .collect()
}

/// Where `name` occurs in `streams` as ASCII or UTF-16LE, either case: `None` when nowhere.
fn find_name(streams: &[(String, Vec<u8>)], name: &str) -> Option<String> {
    let lower = |b: &[u8]| b.iter().map(u8::to_ascii_lowercase).collect::<Vec<u8>>();
    let ascii = lower(name.as_bytes());
    let utf16 = lower(&name.encode_utf16().flat_map(u16::to_le_bytes).collect::<Vec<u8>>());
    streams.iter().find_map(|(stream, bytes)| {
        let hay = lower(bytes);
        [&ascii, &utf16].iter().any(|n| hay.windows(n.len()).any(|w| w == n.as_slice())).then(|| stream.clone())
    })
}

/// Checks every `missing_nodes` name of `results` against the `.max`'s raw streams.
fn assert_missing_nodes_absent(max: &Path, results: &[Value]) -> usize {
    let mut checked = 0;
    let mut streams = None;
    for r in results {
        let Some(missing) = r["triage"]["evidence"]["missing_nodes"].as_array() else { continue };
        let streams = streams.get_or_insert_with(|| raw_streams(max));
        for name in missing {
            let name = name.as_str().expect("a name");
            assert_eq!(find_name(streams, name), None, "{}: {name} is in the .max", max.display());
            checked += 1;
        }
    }
    checked
}

#[test]
fn a_scene_state_miss_is_an_era_mismatch_whose_missing_names_no_stream_holds() {
    let Some(pairs) = pairs() else { return };
    // `Door attempt 2.FBX` names `Cylinder001`, which `Door.max` does not hold (docs/exporters.md).
    let max = pairs.join("RabidChinchilla__3D-Modelling-3DS-Max-Unity-Room-and-Escape-Room-/3ds Max/Door.max");
    let results = t3_results(&max, &pairs);
    assert_every_miss_has_a_class(&results);
    let attempt: Vec<Value> = results
        .iter()
        .filter(|r| r["stream"].as_str().is_some_and(|s| s.ends_with("Door attempt 2.FBX")))
        .cloned()
        .collect();
    let hierarchy = result(&attempt, "hierarchy");
    assert_eq!(hierarchy["verdict"], "fail");
    assert_eq!(hierarchy["triage"]["class"], "era-mismatch", "{hierarchy}");
    let missing = hierarchy["triage"]["evidence"]["missing_nodes"].as_array().expect("missing_nodes");
    assert!(missing.iter().any(|n| n == "Cylinder001"), "{missing:?}");
    assert!(assert_missing_nodes_absent(&max, &results) > 0);
    // The control: a name the evidence leaves out is one the .max holds.
    assert!(find_name(&raw_streams(&max), "Cylinder003").is_some());
}

/// NeL shapes: a revision the manifest pairs with the same reference as another revision
/// that matches it is an era mismatch (`other_revision`); so is a reference the other Max
/// release's normal rule matches, and one whose UVs the stored map channel cannot make
/// (`map_revision`); a normals miss with no such evidence is not.
#[test]
fn nel_shape_misses_of_another_revision_are_era_mismatches_with_that_revision() {
    let Some(nel) = pmtests::nel_corpus() else { return };
    let shape = |scene: &str| -> Value {
        let run = Worker::new(&nel.join("max").join(scene))
            .args([
                Path::new("--tiers"),
                Path::new("t3"),
                Path::new("--export"),
                Path::new("shape"),
                Path::new("--reference"),
                &nel,
            ])
            .run();
        let results: Vec<Value> = run
            .events
            .iter()
            .map(|e| serde_json::to_value(e).unwrap())
            .filter(|e| e["event"] == "result" && e["stream"] == "nel-shape")
            .collect();
        assert_every_miss_has_a_class(&results);
        results[0].clone()
    };
    let r = shape("skeetmtp__snow_target_100_flat@21758ca9.max");
    assert_eq!(r["triage"]["class"], "era-mismatch", "{r}");
    assert_eq!(r["triage"]["evidence"]["other_revision"]["max"], "max/skeetmtp__snow_target_100_flat.max", "{r}");
    let r = shape("skeetmtp__entity_pingoo_close.max");
    assert_eq!(
        (r["kind"].as_str(), r["triage"]["class"].as_str()),
        (Some("t3-nel-shape-revision"), Some("era-mismatch")),
        "{r}"
    );
    // A vertex-count miss of UV splits only, whose reference holds UVs outside the map
    // channel the scene stores (an earlier mapping): an era mismatch with that evidence.
    let r = shape("skeetmtp__snow_target_100.max");
    assert_eq!(
        (r["kind"].as_str(), r["triage"]["class"].as_str()),
        (Some("t3-nel-shape-vertices"), Some("era-mismatch")),
        "{r}"
    );
    let map = &r["triage"]["evidence"]["map_revision"];
    assert!(map["reference_uvs_outside"].as_u64().unwrap() > 0, "{r}");
    // A normals miss with no evidence stays unexplained.
    let r = shape("skeetmtp__snow_target_50_flat.max");
    assert_eq!((r["verdict"].as_str(), r["triage"]["class"].as_str()), (Some("fail"), Some("unexplained")), "{r}");
}

// ---- perturbed copies of a passing export --------------------------------------------

const PASSING_MAX: &str = "Daminvar__Armagine/cell.max";
const PASSING_EXPORT: &str = "Daminvar__Armagine/Armagine/Assets/cell/cell.FBX";

fn objects(doc: &mut Document) -> &mut Node {
    doc.nodes.iter_mut().find(|n| n.name == "Objects").expect("Objects")
}

/// Models' raw name properties (`Name\0\x01Model`).
fn model_names(doc: &mut Document) -> Vec<&mut Property> {
    objects(doc).children.iter_mut().filter(|n| n.name == "Model").map(|m| &mut m.properties[1]).collect()
}

/// The raw name with its part before the `\0\x01` class separator replaced.
fn renamed(raw: &[u8], name: &[u8]) -> Vec<u8> {
    let class = raw.windows(2).position(|w| w == [0, 1]).map_or(&[][..], |i| &raw[i..]);
    [name, class].concat()
}

fn set_bytes(p: &mut Property, bytes: Vec<u8>) {
    match p {
        Property::String(b) => *b = bytes,
        Property::Raw(b) => *b = bytes,
        other => panic!("a model name is a string property: {other:?}"),
    }
}

/// A model name property's bytes.
fn raw_name(p: &Property) -> Vec<u8> {
    match p {
        Property::String(b) | Property::Raw(b) => b.clone(),
        other => panic!("a model name is a string property: {other:?}"),
    }
}

/// The first model renamed to the second's name: a name the `.max` holds.
fn rename_first_model_to_the_second(doc: &mut Document) {
    let mut names = model_names(doc);
    let other = raw_name(names[1]).split(|&b| b == 0).next().unwrap().to_vec();
    let first = raw_name(names[0]);
    set_bytes(names[0], renamed(&first, &other));
}

/// The first mesh's first vertex moved by 0.5 along X.
fn move_first_vertex(doc: &mut Document) {
    let geometry = objects(doc).children.iter_mut().find(|n| n.name == "Geometry").unwrap();
    let vertices = geometry.children.iter_mut().find(|n| n.name == "Vertices").unwrap();
    let Property::F64s(v) = &mut vertices.properties[0] else { panic!("vertices are f64") };
    v[0] += 0.5;
}

/// The result of `comparison` failed and carries `class`.
fn assert_miss(results: &[Value], comparison: &str, class: &str) {
    let r = result(results, comparison);
    assert_eq!((r["verdict"].as_str(), r["triage"]["class"].as_str()), (Some("fail"), Some(class)), "{r}");
}

/// The worker's T3 results on the passing pair with its export changed by `change`
/// (a folder laid out like a pairs folder: the `.max` and its export side by side).
fn perturbed(change: impl FnOnce(&mut Document)) -> Option<Vec<Value>> {
    let pairs = pairs()?;
    let mut doc = binary::read(&std::fs::read(pairs.join(PASSING_EXPORT)).unwrap()).unwrap();
    change(&mut doc);
    let dir = tempfile::tempdir().unwrap();
    let max = dir.path().join("cell.max");
    std::fs::copy(pairs.join(PASSING_MAX), &max).unwrap();
    std::fs::write(dir.path().join("cell.FBX"), binary::write(&doc)).unwrap();
    let results = t3_results(&max, dir.path());
    assert_every_miss_has_a_class(&results);
    Some(results)
}

#[test]
fn the_unperturbed_copy_passes_without_a_class() {
    let Some(results) = perturbed(|_| {}) else { return };
    for c in ["hierarchy", "transforms", "geometry"] {
        assert_eq!(result(&results, c)["verdict"], "pass", "{}", result(&results, c));
    }
}

#[test]
fn a_node_renamed_to_a_name_the_max_holds_is_unexplained() {
    let Some(results) = perturbed(rename_first_model_to_the_second) else { return };
    assert_miss(&results, "hierarchy", "unexplained");
}

#[test]
fn one_vertex_moved_is_unexplained() {
    let Some(results) = perturbed(move_first_vertex) else {
        return;
    };
    assert_miss(&results, "geometry", "unexplained");
}

#[test]
fn node_names_that_are_not_utf8_still_get_a_class() {
    let Some(results) = perturbed(|doc| {
        for p in model_names(doc) {
            let raw = raw_name(p);
            set_bytes(p, renamed(&raw, b"Bo\xff\xfex"));
        }
    }) else {
        return;
    };
    // Not-UTF-8 names are never evidence (their bytes in the .max are unknown): no era.
    assert_miss(&results, "hierarchy", "unexplained");
}

/// Every manifest row of the shared sets through the worker: every miss has a class and
/// every `missing_nodes` name is absent from the raw streams. A few minutes in a debug
/// build: runs with `PMFARM_LONG_TESTS=1`.
#[test]
fn every_shared_pair_miss_has_a_class_and_its_missing_names_are_absent() {
    if std::env::var("PMFARM_LONG_TESTS").map_or(true, |v| v != "1") {
        pmtests::notice("every_shared_pair_miss_has_a_class…: set PMFARM_LONG_TESTS=1 to run it");
        return;
    }
    let mut checked = 0;
    for set in ["pairs", "biped"] {
        let Some(root) = pmtests::shared_corpus(set) else { continue };
        // Every row's `.max`, those beside the folder (`../wild/…`) included.
        let rows = pmtests::manifest(&root);
        let maxes: Vec<PathBuf> =
            rows.keys().filter(|n| n.to_ascii_lowercase().ends_with(".max")).map(|n| root.join(n)).collect();
        assert!(!maxes.is_empty(), "{}: no .max rows", root.display());
        for max in maxes {
            assert!(max.is_file(), "{}: a manifest row without its file", max.display());
            let results = t3_results(&max, &root);
            assert_every_miss_has_a_class(&results);
            checked += assert_missing_nodes_absent(&max, &results);
        }
    }
    println!("{checked} missing_nodes names checked absent");
}

// ---- the shipped gates ------------------------------------------------------------------

/// Copies manifest rows (their `.max` and exports) of the pairs folder into `to`, with a
/// manifest holding those rows only.
fn pairs_subset(pairs: &Path, to: &Path, maxes: &[&str]) {
    let text = std::fs::read_to_string(pairs.join("manifest.tsv")).unwrap();
    let mut lines = text.lines();
    let mut manifest = vec![lines.next().unwrap().to_string()];
    for line in lines {
        let cols: Vec<&str> = line.split('\t').collect();
        if !maxes.contains(&cols[0]) {
            continue;
        }
        for rel in std::iter::once(cols[0]).chain(cols[2].split(';').map(str::trim)) {
            let dest = to.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::copy(pairs.join(rel), &dest).unwrap();
        }
        manifest.push(line.to_string());
    }
    assert_eq!(manifest.len() - 1, maxes.iter().map(|m| text.matches(&format!("\n{m}\t")).count()).sum::<usize>());
    std::fs::write(to.join("manifest.tsv"), manifest.join("\n") + "\n").unwrap();
}

/// `pmfarm run` on `corpus` with the workspace's own `gates/`: the exit code and the
/// failing gate outcomes (`name metric`).
fn gated_run(corpus: &Path, out: &Path) -> (Option<i32>, Vec<String>) {
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let args = ["run", &s(corpus), "--tiers", "t3", "--export", "pairs", "--reference", &s(corpus), "--out", &s(out)];
    let output = pmtests::harness::Farm::new(&args).output();
    let summary = pmtests::harness::RunDirReader::new(out).summary();
    let failing = summary["gates"]
        .as_array()
        .expect("gates in summary.json")
        .iter()
        .filter(|g| g["passed"] == false)
        .map(|g| format!("{} {} {}", g["name"].as_str().unwrap(), g["metric"].as_str().unwrap(), g["detail"]))
        .collect();
    (output.status.code(), failing)
}

#[test]
fn the_shipped_triage_gate_passes_on_real_pairs_and_fails_when_one_export_breaks() {
    let Some(pairs) = pairs() else { return };
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("pairs");
    // A passing pair and a scene whose first export is a scene-state miss (era-mismatch).
    let door = "RabidChinchilla__3D-Modelling-3DS-Max-Unity-Room-and-Escape-Room-/3ds Max/Door.max";
    pairs_subset(&pairs, &corpus, &[PASSING_MAX, door]);
    let (code, failing) = gated_run(&corpus, &dir.path().join("real"));
    assert_eq!((code, failing.clone()), (Some(0), Vec::<String>::new()), "the real pairs pass the shipped gates");

    // The same run with one passing export broken on purpose: a node renamed to a name the
    // .max holds (no evidence, so unexplained).
    let export = corpus.join(PASSING_EXPORT);
    let mut doc = binary::read(&std::fs::read(&export).unwrap()).unwrap();
    rename_first_model_to_the_second(&mut doc);
    std::fs::write(&export, binary::write(&doc)).unwrap();
    let (code, failing) = gated_run(&corpus, &dir.path().join("broken"));
    assert_eq!(code, Some(1), "{failing:#?}");
    assert!(failing.iter().any(|g| g.contains("t3_floor:pairs/hierarchy")), "{failing:#?}");
    assert!(failing.iter().any(|g| g.contains("t3_max_unexplained:pairs/hierarchy")), "{failing:#?}");

    // The report of the broken run: the unexplained miss first on the index, the era
    // mismatch with its evidence, the counts per comparison; the documented schema holds.
    let report = dir.path().join("broken").join(pmschema::files::REPORT);
    let read = |name: &str| std::fs::read_to_string(report.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let index: Value = serde_json::from_str(&read(pmschema::files::INDEX_JSON)).unwrap();
    let unexplained = index["t3_unexplained"].as_array().unwrap();
    assert!(
        unexplained
            .iter()
            .any(|m| m["stream"] == format!("pairs/hierarchy/{PASSING_EXPORT}") && m["class"] == "unexplained"),
        "{unexplained:#?}"
    );
    let era = index["t3_era_mismatch"].as_array().unwrap();
    assert!(
        era.iter().any(|m| m["stream"].as_str().unwrap().ends_with("Door attempt 2.FBX")
            && m["evidence"]["missing_nodes"].as_array().is_some_and(|n| !n.is_empty())),
        "{era:#?}"
    );
    let hierarchy =
        index["t3_triage"].as_array().unwrap().iter().find(|r| r["comparison"] == "pairs/hierarchy").unwrap();
    assert!(
        hierarchy["classes"]["unexplained"].as_u64() >= Some(1)
            && hierarchy["classes"]["era-mismatch"].as_u64() >= Some(1)
    );
    let slugs: Vec<&str> = index["buckets"].as_array().unwrap().iter().filter_map(|b| b["slug"].as_str()).collect();
    for bucket in ["t3-unexplained", "t3-era-mismatch", "t3-not-applicable"] {
        assert!(slugs.contains(&bucket), "a bucket per triage class: {bucket} in {slugs:?}");
    }
    let validator =
        jsonschema::validator_for(&report_support::documented_schema()).expect("the documented schema compiles");
    let errors: Vec<String> = validator.iter_errors(&index).map(|e| format!("{e} at {}", e.instance_path)).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let html = read(pmschema::files::INDEX_HTML);
    let at = |id: &str| html.find(&format!(r#"id="{id}""#)).unwrap_or_else(|| panic!("{id} on the index"));
    assert!(
        at("verdict") < at("t3-unexplained") && at("t3-unexplained") < at("totals"),
        "unexplained first, after the verdict"
    );
    assert!(html.contains(r#"id="t3-era-table""#) && html.contains("missing_nodes"), "era rows show their evidence");
}

// ---- evidence from the other exports of the same `.max`, and from its key spans ----------

/// The T3 results of one real `.max` of the pairs folder, whose results on `export` are
/// returned by comparison.
fn real_results(max: &str, export: &str) -> Option<Vec<Value>> {
    let pairs = pairs()?;
    let results = t3_results(&pairs.join(max), &pairs);
    assert_every_miss_has_a_class(&results);
    Some(results.into_iter().filter(|r| r["stream"].as_str().is_some_and(|s| s.ends_with(export))).collect())
}

#[test]
fn a_reference_that_differs_from_a_passing_export_of_the_same_max_is_an_era_mismatch() {
    // `ModularDoorWindowed.fbx` passes; `ModularDoorWindowedMirror.fbx` holds the doors mirrored.
    let max = "RicoBarrett__3DSMax/Saves/3DSMax/ModularOffice/Doors/ModularDoorWindowed.max";
    let Some(results) = real_results(max, "/ModularDoorWindowedMirror.fbx") else { return };
    for comparison in ["geometry", "transforms"] {
        assert_miss(&results, comparison, "era-mismatch");
        let evidence = &result(&results, comparison)["triage"]["evidence"]["other_export"];
        assert!(evidence["reference"].as_str().unwrap().ends_with("/ModularDoorWindowed.fbx"), "{evidence}");
        assert!(evidence["difference"]["records"].as_u64() >= Some(2), "{evidence}");
    }
}

#[test]
fn a_take_beyond_the_keys_of_the_max_is_an_era_mismatch() {
    // `Blue@Spawn.FBX` bakes ticks 0 … 6720; the `.max` keys `B_Root` from −1760 to 3520 only.
    let Some(results) = real_results("../wild/tae8838__blue.max", "/Blue@Spawn.FBX") else { return };
    for comparison in ["transforms", "animation"] {
        assert_miss(&results, comparison, "era-mismatch");
        let nodes = result(&results, comparison)["triage"]["evidence"]["take_beyond_keys"].as_array().unwrap().clone();
        let root = nodes.iter().find(|n| n["node"] == "B_Root").expect("B_Root");
        assert_eq!(root["max_key_span_ticks"], serde_json::json!([-1760, 3520]), "{root}");
        assert!(root["reference_key_span_ticks"][1].as_f64() > Some(3520.5), "{root}");
    }
}

/// The worker's T3 results on `henrynorthway__character.max` (three exports, each passing
/// geometry) with `_PlayerIdle.FBX` changed by `change`.
fn henry_perturbed(change: impl FnOnce(&mut Document)) -> Option<Vec<Value>> {
    let pairs = pairs()?;
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("pairs");
    let max = "../wild/henrynorthway__character.max";
    pairs_subset(&pairs, &corpus, &[max]);
    let export = corpus.join("henryNorthway__One-Time-Use-W1/Handcrafted Assets/Player Character/_PlayerIdle.FBX");
    let mut doc = binary::read(&std::fs::read(&export).unwrap()).unwrap();
    change(&mut doc);
    std::fs::write(&export, binary::write(&doc)).unwrap();
    let results = t3_results(&corpus.join(max), &corpus);
    assert_every_miss_has_a_class(&results);
    Some(
        results.into_iter().filter(|r| r["stream"].as_str().is_some_and(|s| s.ends_with("/_PlayerIdle.FBX"))).collect(),
    )
}

#[test]
fn one_vertex_moved_beside_passing_exports_of_the_same_max_is_unexplained() {
    let Some(results) = henry_perturbed(move_first_vertex) else {
        return;
    };
    // `_PlayerJump.FBX` and `_PlayerMove.FBX` pass geometry, and differ from this copy in one vertex.
    assert_miss(&results, "geometry", "unexplained");
}

#[test]
fn a_node_renamed_beside_passing_exports_of_the_same_max_is_unexplained() {
    let Some(results) = henry_perturbed(rename_first_model_to_the_second) else { return };
    assert_miss(&results, "hierarchy", "unexplained");
    for r in &results {
        let evidence = &r["triage"]["evidence"];
        assert!(evidence.get("other_export").is_none() && evidence.get("take_beyond_keys").is_none(), "{r}");
    }
}

#[test]
fn a_model_turned_as_a_whole_after_the_export_is_an_era_mismatch() {
    // Every pose of `Walking Zombie.FBX`'s six roots is the `.max`'s turned by 163.58° about the
    // file's up axis and scaled by 4.444 (the X and Y Euler keys equal the `.max`'s).
    let max = "Academia2013Cohort4__Equipe2/PizzaQuest/Assets/Models/Zombie.max";
    let Some(results) = real_results(max, "/Walking Zombie.FBX") else { return };
    for comparison in ["transforms", "animation"] {
        assert_miss(&results, comparison, "era-mismatch");
        let turn = &result(&results, comparison)["triage"]["evidence"]["turned_as_one"];
        let angle = turn["rotation_deg"].as_f64().unwrap();
        assert!((angle - 163.577).abs() < 0.01, "{turn}");
        assert!((turn["scale"][0].as_f64().unwrap() - 4.4443).abs() < 1e-3, "{turn}");
    }
}
