//! The Lathe modifier over a Line shape (`pmcore::eval::lathe`, `pmcore::eval::spline`)
//! against what 3ds Max wrote: the two pairs whose geometry needs it (`Lantern.FBX`,
//! `LightPost.FBX`), and Max's own `Mesh Totals` of the wild scenes whose only stop was a
//! Lathe. Skips visibly without `../shared`.

use pmcore::eval::stack::stack_with_data;
use pmcore::model::scene_index::SceneTrees;
use pmref::compare::compare_all;
use std::path::{Path, PathBuf};

fn corpus(name: &str) -> Option<PathBuf> {
    pmtests::shared_corpus(name)
}

fn with_index<T>(max: &Path, f: impl FnOnce(&pmcore::model::scene_index::SceneIndex<'_>, &pmcore::MaxFile) -> T) -> T {
    let bytes = std::fs::read(max).expect("max readable");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene root");
    f(&index, &file)
}

const LANTERN: &str = "danshaub__GameDevFinal/SeanWork/Lantern.max";
const LANTERN_FBX: &str = "danshaub__GameDevFinal/SeanWork/Models/Lantern/Lantern.FBX";
const LIGHT_POST: &str = "danshaub__GameDevFinal/SeanWork/Models/LightPost/Light Post.max";
const LIGHT_POST_FBX: &str = "danshaub__GameDevFinal/SeanWork/Models/LightPost/LightPost.FBX";

/// The Lantern's Lathe alone (Line of 10 corner knots, 360° in 7 segments about a vertical
/// axis through the knots at x = 43, weld core): its first two levels are the export's
/// first 17 vertices in order — the export lacks vertex 0, which the Edit Mesh above
/// deletes, and level 1 lacks the two welded axis points.
#[test]
fn lantern_lathe_levels_are_the_exported_vertices_in_order() {
    let Some(pairs) = corpus("pairs") else { return };
    let export = std::fs::read(pairs.join(LANTERN_FBX)).expect("export readable");
    let scene = pmref::read_reference("fbx", &export).expect("FBX reads");
    let reference = scene.nodes.iter().find(|n| n.name == "Lantern").and_then(|n| n.mesh.as_ref()).expect("mesh");
    with_index(&pairs.join(LANTERN), |index, _| {
        let node = index.node_by_name("Lantern").expect("node");
        let (base, modifiers) = stack_with_data(index, node).expect("stack");
        let (mesh, in_max_order) = pmcore::eval::lathe::evaluate(index, base, &modifiers[0], u64::MAX).expect("lathe");
        assert!(in_max_order);
        // 10 points per level, 7 levels, the 2 axis points welded: 2 + 8 × 7 = 58 vertices;
        // 9 pieces × 7 levels, the 2 pieces touching the axis keep one triangle each:
        // 7 × (7 × 2 + 2) = 112 triangles.
        assert_eq!((mesh.positions.len(), mesh.faces()), (58, 112));
        for (k, p) in mesh.positions[1..18].iter().enumerate() {
            let r = reference.positions[k];
            let d = (p.x as f64 - r[0]).abs().max((p.y as f64 - r[1]).abs()).max((p.z as f64 - r[2]).abs());
            assert!(d < 1e-4, "vertex {} at {p:?}, reference {k} at {r:?}", k + 1);
        }
    });
}

/// Both exports of the Lantern (alone, and in the light post scene) pass geometry: Line >
/// Lathe > Edit Poly (insets, an extrude) > UVW Map > Edit Mesh (a vertex and its faces
/// deleted, 66 faces created) > UVW Map, and a Cylinder whose Edit Mesh moves 18 vertices.
#[test]
fn lantern_and_light_post_geometry_pass() {
    let Some(pairs) = corpus("pairs") else { return };
    for (max, export, meshes) in [(LANTERN, LANTERN_FBX, 3), (LIGHT_POST, LIGHT_POST_FBX, 6)] {
        let reference = std::fs::read(pairs.join(export)).expect("export readable");
        let scene = pmref::read_reference("fbx", &reference).expect("FBX reads");
        let results = with_index(&pairs.join(max), |index, _| compare_all(index, &scene, export));
        let geometry = results.iter().find(|c| c.name == "geometry").expect("geometry result");
        assert_eq!(geometry.verdict.name(), "pass", "{export}: {}", geometry.detail);
        assert_eq!(geometry.detail["meshes_passed"], meshes, "{export}: {}", geometry.detail);
        assert_eq!(geometry.detail["misses"].as_array().map_or(0, Vec::len), 0, "{export}: {}", geometry.detail);
    }
}

/// Wild scenes whose Mesh Totals (what Max counted) now equal the evaluated totals: a Lathe
/// over smooth knots under TurboSmooth (wine glass), a 30-segment Lathe with weld core
/// (lamp), three closed-line Lathes under XForm (light tracer), and a closed-line Lathe
/// under an Edit Mesh that creates 2,081 vertices and 4,124 faces apart from it (horse).
#[test]
fn lathe_scenes_total_what_max_counted() {
    for (dir, file, vertices, faces) in [
        ("wild", "deepdas007__wine-glass.max", 4576, 9088),
        ("wild", "radobaychev__lamp.max", 2407, 4782),
        ("wild", "vv-23__tut17-1_light_tracer_start.max", 5954, 11418),
        ("public", "dimapetrinko__horse.max", 3642, 7228),
    ] {
        let Some(dir) = corpus(dir) else { return };
        with_index(&dir.join(file), |_, f| {
            let stream = f.ole.stream("\u{5}DocumentSummaryInformation").expect("summary stream");
            let sections = pmcore::facts::property_set::parse(&stream.bytes).expect("property set");
            let summary = pmcore::facts::doc_summary::DocSummary::from_sections(&sections);
            let max = summary.mesh_totals.expect("Mesh Totals");
            assert_eq!((max.vertices, max.faces), (vertices, faces), "{file}: Max's own totals");
            let totals = pmcore::eval::scene_totals(f).expect("scene");
            assert!(totals.stopped.is_empty(), "{file}: {:?}", totals.stopped);
            assert_eq!((totals.vertices, totals.faces), (vertices, faces), "{file}");
        });
    }
}
