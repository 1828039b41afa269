//! The OBJ exporter's evaluated totals against 3ds Max's own `Mesh Totals`, through the
//! worker binary.
//!
//! The reference is what 3ds Max wrote into each file's `\x05DocumentSummaryInformation`
//! ("Mesh Totals": `Vertices: N`, `Faces: N`; Chinese releases write `网格总计` / `顶点:` /
//! `面数:`), parsed here from the property set's text lines. The compared numbers are the
//! export summary's `max_vertices` / `max_faces`: the totals of the meshes the exporter
//! wrote (faces counted as Max counts them), plus the nodes counted without a mesh above
//! the memory budget.

use pmcore::{classify, Input, MaxFile};
use pmtests::fixtures;
use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Max's saved `Mesh Totals` (vertices, faces), from the property-set text.
fn mesh_totals(path: &Path) -> Option<(u64, u64)> {
    let Input::Ole(ole) = classify(&std::fs::read(path).ok()?) else { return None };
    let file = MaxFile::new(ole);
    let stream = file.ole.stream("\u{5}DocumentSummaryInformation")?;
    let sections = pmcore::facts::property_set::parse(&stream.bytes).ok()?;
    let parts = pmcore::facts::property_set::headed_parts(&sections);
    let (_, lines) = parts.iter().find(|(h, _)| h == "Mesh Totals" || h == "网格总计")?;
    let value = |labels: [&str; 2]| {
        lines.iter().find_map(|l| labels.iter().find_map(|label| l.strip_prefix(label)?.trim().parse().ok()))
    };
    Some((value(["Vertices:", "顶点:"])?, value(["Faces:", "面数:"])?))
}

/// The worker's OBJ export summary for `max` (the `export` event's `summary`).
fn obj_summary(max: &Path, out: &Path) -> Option<serde_json::Value> {
    let args: Vec<&OsStr> = vec![
        OsStr::new("--tiers"),
        OsStr::new("t3"),
        OsStr::new("--export"),
        OsStr::new("obj"),
        OsStr::new("--out"),
        out.as_os_str(),
        max.as_os_str(),
    ];
    let run = fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    let line = run.lines().into_iter().find(|l| l.contains(r#""event":"export""#) && l.contains(r#""status":"ok""#))?;
    let event: serde_json::Value = serde_json::from_str(line).ok()?;
    Some(event["summary"].clone())
}

fn totals_of(summary: &serde_json::Value) -> (u64, u64) {
    (summary["max_vertices"].as_u64().unwrap_or(u64::MAX), summary["max_faces"].as_u64().unwrap_or(u64::MAX))
}

#[test]
fn evaluated_totals_equal_max_mesh_totals_on_public_files_of_each_kind() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let out = tempfile::tempdir().unwrap();
    // Each file exercises one part of evaluation (worked out from the files' stacks):
    let cases = [
        // Editable Poly cube under TurboSmooth (subdivided mesh, faces as triangles).
        "0southboss0__кубик.max",
        // Boxes, cylinders and planes from their parameter blocks, shapes left out.
        "fhqht12331__의자.max",
        // A plane under Unwrap UVW and Shell, cylinders with 3 sides.
        "rabidchinchilla__wire_fence.max",
        // Stored Editable Mesh / Poly, 51 cameras left out.
        "nekidaem__2017_many_cams_and_other_stuff.max",
        // Editable Poly under Symmetry (slice, mirror, weld; faces as polygons).
        "seonghj__test.max",
        // Editable Poly under MeshSmooth (NURMS, a poly object out).
        "uholnik__room.max",
    ];
    for name in cases {
        let path = corpus.join(name);
        let expected = mesh_totals(&path).unwrap_or_else(|| panic!("{name}: Mesh Totals"));
        let summary = obj_summary(&path, out.path()).unwrap_or_else(|| panic!("{name}: an ok OBJ export"));
        assert_eq!(totals_of(&summary), expected, "{name}: (vertices, faces) against Max's Mesh Totals: {summary}");
        assert_eq!(summary["stopped"], serde_json::json!([]), "{name}");
        // The written file holds the counted vertices (tobj, an independent reader).
        let obj = out.path().join(format!("{}.obj", Path::new(name).file_stem().unwrap().to_string_lossy()));
        let options = tobj::LoadOptions { triangulate: false, single_index: false, ..Default::default() };
        let (models, _) = tobj::load_obj(&obj, &options).unwrap_or_else(|e| panic!("{name}: tobj: {e}"));
        let text = std::fs::read_to_string(&obj).unwrap();
        let v_lines = text.lines().filter(|l| l.starts_with("v ")).count() as u64;
        assert_eq!(v_lines, expected.0, "{name}: v lines");
        assert!(models.iter().all(|m| m.mesh.face_arities.is_empty()), "{name}: triangles only");
    }
}

/// Nodes whose totals need the whole Edit Mesh delta or the Sphere in Max's order (issue 26,
/// geometry), against Max's `Mesh Totals`: `seanconway512__hand2.max` — a Box under an Edit
/// Mesh with moves, corner remaps, created vertices and faces, smoothing and map records
/// (168 / 332) —, `pegasus1982__test_02-2.max` (moves), Pyramid primitives
/// (`prantoahmed__3rd-island.max`: 14 of 6 / 8; `deepdas007__house.max`), and the pairs'
/// `Bowl.max` (a Sphere under Ripple and two Edit Mesh material changes, 482 / 960).
#[test]
fn edit_mesh_deltas_pyramids_and_the_sphere_give_max_mesh_totals() {
    let (Some(wild), Some(pairs)) = (pmtests::shared_corpus("wild"), pmtests::shared_corpus("pairs")) else { return };
    let out = tempfile::tempdir().unwrap();
    for path in [
        wild.join("seanconway512__hand2.max"),
        wild.join("pegasus1982__test_02-2.max"),
        wild.join("prantoahmed__3rd-island.max"),
        wild.join("deepdas007__house.max"),
        pairs.join("danshaub__GameDevFinal/SeanWork/Models/Bowl/Bowl.max"),
    ] {
        let expected = mesh_totals(&path).unwrap_or_else(|| panic!("{}: Mesh Totals", path.display()));
        let summary = obj_summary(&path, out.path()).unwrap_or_else(|| panic!("{}: an ok OBJ export", path.display()));
        assert_eq!(totals_of(&summary), expected, "{}: {summary}", path.display());
        assert_eq!(summary["stopped"], serde_json::json!([]), "{}", path.display());
    }
}

/// Teapot primitives (issue 42, geometry breadth) against Max's `Mesh Totals`: a whole
/// segments-4 teapot beside a box (`pycz__test.max`, 538 / 1036) and beside a V-Ray scene's
/// other objects (`nekidaem__01-teapot_no_cams_vray.max`), a segments-8 one
/// (`alexbabushkin__teapot.max`), and four segments-10 teapots of one part each
/// (`systemsoftware__teapot.max`, 3242 / 6400).
#[test]
fn teapots_give_max_mesh_totals() {
    let (Some(public), Some(wild)) = (pmtests::public_corpus(), pmtests::shared_corpus("wild")) else { return };
    let out = tempfile::tempdir().unwrap();
    for path in [
        wild.join("pycz__test.max"),
        public.join("nekidaem__01-teapot_no_cams_vray.max"),
        public.join("alexbabushkin__teapot.max"),
        wild.join("systemsoftware__teapot.max"),
    ] {
        let expected = mesh_totals(&path).unwrap_or_else(|| panic!("{}: Mesh Totals", path.display()));
        let summary = obj_summary(&path, out.path()).unwrap_or_else(|| panic!("{}: an ok OBJ export", path.display()));
        assert_eq!(totals_of(&summary), expected, "{}: {summary}", path.display());
        assert_eq!(summary["stopped"], serde_json::json!([]), "{}", path.display());
    }
}

/// ChamferBox primitives (issue 42) against Max's `Mesh Totals`: the sofa's seat, one
/// ChamferBox on two nodes, 24 / 44 each (`rabidchinchilla__kenji's_sofa.max`, 8412 / 10352).
#[test]
fn chamfer_boxes_give_max_mesh_totals() {
    let Some(public) = pmtests::public_corpus() else { return };
    let out = tempfile::tempdir().unwrap();
    let path = public.join("rabidchinchilla__kenji's_sofa.max");
    let expected = mesh_totals(&path).unwrap_or_else(|| panic!("{}: Mesh Totals", path.display()));
    let summary = obj_summary(&path, out.path()).unwrap_or_else(|| panic!("{}: an ok OBJ export", path.display()));
    assert_eq!(totals_of(&summary), expected, "{}: {summary}", path.display());
    assert_eq!(summary["stopped"], serde_json::json!([]), "{}", path.display());
}

/// Hose primitives (issue 42) against Max's `Mesh Totals`: 32 free round hoses of 45
/// segments and 8 sides, 370 / 736 each, beside two boxes (`aliensowo__1111.max`, 12032 / 23840).
#[test]
fn hoses_give_max_mesh_totals() {
    let Some(wild) = pmtests::shared_corpus("wild") else { return };
    let out = tempfile::tempdir().unwrap();
    let path = wild.join("aliensowo__1111.max");
    let expected = mesh_totals(&path).unwrap_or_else(|| panic!("{}: Mesh Totals", path.display()));
    let summary = obj_summary(&path, out.path()).unwrap_or_else(|| panic!("{}: an ok OBJ export", path.display()));
    assert_eq!(totals_of(&summary), expected, "{}: {summary}", path.display());
    assert_eq!(summary["stopped"], serde_json::json!([]), "{}", path.display());
}

/// Hedra primitives (Class ID 0xf21c5e23:0): the NeL snow scenes each hold 16 Tetra Hedras at
/// P = Q = 0 (octahedra, 6 / 8 each) beside an Editable Mesh under MeshSmooth
/// (`snow_target_100`), a GeoSphere under MeshSmooth (`snow_island`) and a large Editable
/// Mesh (`snow_ramp`); with the Hedras evaluated the totals are Max's own (before: 96 / 128
/// short, the Hedras stopped).
#[test]
fn hedra_scenes_give_max_mesh_totals() {
    let Some(nel) = pmtests::shared_corpus("nel") else { return };
    let out = tempfile::tempdir().unwrap();
    for name in ["skeetmtp__snow_target_100.max", "skeetmtp__snow_island.max", "skeetmtp__snow_ramp.max"] {
        let path = nel.join("max").join(name);
        let expected = mesh_totals(&path).unwrap_or_else(|| panic!("{name}: Mesh Totals"));
        let summary = obj_summary(&path, out.path()).unwrap_or_else(|| panic!("{name}: an ok OBJ export"));
        assert_eq!(totals_of(&summary), expected, "{name}: {summary}");
        assert_eq!(summary["stopped"], serde_json::json!([]), "{name}");
    }
}

/// Every `.max` under `dir`, recursively, sorted.
fn max_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            out.extend(max_files(&p));
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("max")) {
            out.push(p);
        }
    }
    out
}

/// Agreement over the real files of public, wild and pairs (long: one worker per file).
#[test]
fn evaluated_totals_equal_max_mesh_totals_on_at_least_half_of_the_real_files() {
    if std::env::var("PMFARM_LONG_TESTS").map_or(true, |v| v != "1") {
        eprintln!("SKIP: agreement over the real corpus runs with PMFARM_LONG_TESTS=1");
        return;
    }
    let Some(public) = pmtests::public_corpus() else { return };
    let shared = public.parent().unwrap().to_path_buf();
    let out = tempfile::tempdir().unwrap();
    let (mut carrying, mut equal) = (0usize, 0usize);
    let mut classes: BTreeMap<String, usize> = BTreeMap::new();
    for dir in ["public", "wild", "pairs"] {
        for path in max_files(&shared.join(dir)) {
            let Some(expected) = mesh_totals(&path) else { continue };
            carrying += 1;
            let summary = obj_summary(&path, out.path());
            let got = summary.as_ref().map(totals_of);
            if got == Some(expected) {
                equal += 1;
                continue;
            }
            let mut why: Vec<String> = match &summary {
                None => vec!["(export did not run)".into()],
                Some(s) => s["stopped"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|n| {
                        format!("{} {}", n["class_id"].as_str().unwrap_or(""), n["class_name"].as_str().unwrap_or(""))
                    })
                    .collect(),
            };
            if why.is_empty() {
                why.push("(evaluated, counts differ)".into());
            }
            why.sort();
            why.dedup();
            for w in why {
                *classes.entry(w).or_default() += 1;
            }
        }
    }
    let mut ranked: Vec<(String, usize)> = classes.into_iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    println!("Mesh Totals equal on {equal} of {carrying} files; classes behind the misses (files):");
    for (class, files) in &ranked {
        println!("  {files:4}  {class}");
    }
    assert!(carrying >= 230, "files carrying Mesh Totals: {carrying}");
    assert!(2 * equal >= carrying, "agreement {equal}/{carrying} is under 50 %");
}
