//! The `shape` exporter and T3 `nel-shape` on named real pairs of `../shared/corpus/nel`
//! (the built `pmworker`, `--tiers t3 --export shape --reference NEL`): the references are
//! the `.shape` files the NeL 3ds Max exporter wrote from these scenes, read by the NeL
//! reader — nothing here compares pmcore with its own output. Skips visibly without the
//! corpus. The per-scene levels of all paired scenes are in docs/exporters.md
//! (`scripts/nel_shape_sweep.sh`).

use serde_json::Value;
use std::path::Path;

/// Runs the worker on one scene and returns its `nel-shape` result event and its `export`
/// event.
fn nel_shape(nel: &Path, scene: &str, out: &Path) -> (Value, Value) {
    // Through the harness: every stdout line must parse as a documented event.
    let events: Vec<Value> = pmtests::harness::Worker::new(&nel.join("max").join(scene))
        .args(["--tiers", "t3", "--export", "shape"])
        .args([Path::new("--reference"), nel, Path::new("--out"), out])
        .run()
        .events
        .iter()
        .map(|e| serde_json::to_value(e).expect("an event serializes"))
        .collect();
    let find = |pred: &dyn Fn(&Value) -> bool| events.iter().find(|e| pred(e)).cloned().unwrap_or(Value::Null);
    let result = find(&|e| e["event"] == "result" && e["stream"] == "nel-shape");
    let export = find(&|e| e["event"] == "export" && e["exporter"] == "shape");
    assert!(!result.is_null(), "{scene}: no nel-shape result in {events:?}");
    (result, export)
}

#[test]
fn named_pairs_reach_the_level_their_scene_allows() {
    let Some(nel) = pmtests::nel_corpus() else { return };
    let out = tempfile::tempdir().unwrap();

    // A Max 6 Editable Mesh with two smoothing groups and a textured NeL material: every
    // vertex of the NeL export matched (positions, normals by corner angle, flipped UVs).
    let (r, export) = nel_shape(&nel, "skeetmtp__snow_funnel.max", out.path());
    assert_eq!(r["verdict"], "pass", "{r}");
    let best = &r["detail"]["best"];
    assert_eq!(best["level"], "positions");
    assert_eq!(best["node"], "Tube01");
    assert_eq!(export["status"], "ok");
    let written = out.path().join("skeetmtp__snow_funnel.Tube01.shape");
    let facts = pmcore::export::shape_t3::file_facts(&std::fs::read(&written).unwrap()).unwrap();
    // Counts of the reference (read by the NeL reader): 304 vertices, 432 triangles,
    // position + normal + UV0, one material with sol.tga.
    assert_eq!((facts.vertices, facts.triangles, facts.vertex_format), (304, 432, 0x7));
    assert_eq!(facts.textures, vec!["sol.tga".to_string()]);

    // A Max 4 revision, normals per triangle: the Feb 2004 export matches exactly.
    let (r, _) = nel_shape(&nel, "skeetmtp__entity_pingoo_close@27b99065.max", out.path());
    assert_eq!(r["verdict"], "pass", "{r}");

    // The Max 6 revision of the same scene against the same (Max 4 era) export: counts
    // exact, normals differ, and the other release's rule matches — a revision miss.
    let (r, _) = nel_shape(&nel, "skeetmtp__entity_pingoo_close.max", out.path());
    assert_eq!(r["verdict"], "fail");
    assert_eq!(r["kind"], "t3-nel-shape-revision", "{r}");
    assert_eq!(r["detail"]["best"]["counts_exact"], true);

    // Max 3: eight smoothed sphere primitives; the best reference is matched exactly.
    let (r, _) = nel_shape(&nel, "ryzom__street.max", out.path());
    assert_eq!(r["verdict"], "pass", "{r}");

    // Primitives with generated map channels and smoothing (Torus, Tube), a planar UVW Map
    // (tiling 100), and a Max 4 Editable Mesh whose welding depends on the rounding of
    // Max's face normals (10224 entries): every vertex matched.
    for (scene, node) in [
        ("skeetmtp__snow_torus.max", "Torus01"),
        ("skeetmtp__snow_tube.max", "Tube01"),
        ("skeetmtp__water_light.max", "water_light"),
        ("skeetmtp__snow_ramp.max", "Piste"),
    ] {
        let (r, _) = nel_shape(&nel, scene, out.path());
        assert_eq!(r["verdict"], "pass", "{scene}: {r}");
        assert_eq!(r["detail"]["best"]["node"], node, "{scene}");
    }

    // The node the shape came from is a Boolean the evaluator does not build: a named miss.
    let (r, _) = nel_shape(&nel, "skeetmtp__snow_bowl.max", out.path());
    assert_eq!(r["verdict"], "fail");
    assert_eq!(r["kind"], "t3-nel-shape-eval-stopped", "{r}");
    assert!(r["message"].as_str().unwrap().contains("Boolean"));

    // MeshSmooth (NURMS × 1) over an Editable Mesh whose map channel is subdivided with
    // the mesh (map seams kept in place): every vertex of the export matched, UVs included.
    let (r, export) = nel_shape(&nel, "skeetmtp__snow_island.max", out.path());
    assert_eq!(r["verdict"], "pass", "{r}");
    assert_eq!(r["detail"]["best"]["node"], "GeoSphere01");
    assert_eq!(export["status"], "ok");

    // MeshSmooth over Editable Meshes with hidden edges: the triangles are joined into the
    // polygons their hidden edges make before smoothing, which gives the export's triangle
    // count and its set of distinct positions and normals; the vertex count still differs
    // by UV splits (the reference's UVs lie outside the stored map channel's range — an
    // earlier mapping, docs/exporters.md).
    for (scene, node) in [
        ("skeetmtp__snow_island2.max", "arche_1"),
        ("skeetmtp__snow_island3.max", "arche_2"),
        ("skeetmtp__snow_target_100.max", "Object02"),
        ("skeetmtp__snow_target_300.max", "Object01"),
    ] {
        let (r, _) = nel_shape(&nel, scene, out.path());
        assert_eq!(r["verdict"], "fail", "{scene}: {r}");
        if r["kind"] == "t3-nel-shape-vertices" {
            // The miss carries its evidence: reference UVs outside the stored map's box.
            assert!(r["detail"]["map_revision"]["reference_uvs_outside"].as_u64().unwrap() > 0, "{scene}: {r}");
        }
        let stem = scene.trim_end_matches(".max");
        let ours = out.path().join(format!("{stem}.{node}.shape"));
        let ours = pmcore::export::shape_t3::file_facts(&std::fs::read(&ours).unwrap()).unwrap();
        let reference = nel.join("shape").join(format!("{stem}.shape"));
        let reference = pmcore::export::shape_t3::file_facts(&std::fs::read(&reference).unwrap()).unwrap();
        assert_eq!(ours.triangles, reference.triangles, "{scene}");
        // Every (position, normal) of one side is on the other, within 2e-3.
        let covers = |a: &pmcore::export::shape_t3::ShapeFacts, b: &pmcore::export::shape_t3::ShapeFacts| {
            a.attributes.iter().all(|x| b.attributes.iter().any(|y| (0..6).all(|i| (x[i] - y[i]).abs() <= 2e-3)))
        };
        assert!(covers(&ours, &reference) && covers(&reference, &ours), "{scene}: positions and normals");
    }

    // The NeL Material (Max 2010 script, slots in its ParamBlock2 block 2): slot 1 is
    // enabled but holds no texmap, so — as the NeL exporter does — stage 0 stays empty,
    // and the reference's texture is a miss at the first level, never a pass. The scene
    // cannot hold the reference's texture: no ".tga" anywhere in its bytes (ASCII or
    // UTF-16), and its asset table is empty.
    for (scene, texture) in [("ryzom__tile.max", "tile_stone.tga"), ("ryzom__tile_goal.max", "tilegoal_green.tga")] {
        let (r, export) = nel_shape(&nel, scene, out.path());
        assert_eq!(r["verdict"], "fail", "{scene}: {r}");
        assert_eq!(r["kind"], "t3-nel-shape-textures", "{scene}: {r}");
        assert!(r["message"].as_str().unwrap().contains(texture), "{r}");
        assert_eq!(export["summary"]["materials_unread"], serde_json::json!([]), "{scene}");
        let bytes = std::fs::read(nel.join("max").join(scene)).unwrap();
        let utf16: Vec<u8> = ".tga".bytes().flat_map(|b| [b, 0]).collect();
        for needle in [&b".tga"[..], &b".TGA"[..], &utf16[..]] {
            assert!(!bytes.windows(needle.len()).any(|w| w == needle), "{scene} holds {needle:?}");
        }
    }

    // Nothing evaluates (a Boolean): a skip that says so, never a pass.
    let (r, export) = nel_shape(&nel, "ryzom__road_flag.max", out.path());
    assert_eq!(r["verdict"], "skip");
    assert!(r["reason"].as_str().unwrap().starts_with("not-implemented"), "{r}");
    assert_eq!(export["status"], "not-implemented");

    // A scene no shape pairs with: the export is made, T3 is a counted skip.
    let (r, export) = nel_shape(&nel, "teivaz__example.max", out.path());
    assert_eq!(export["status"], "ok");
    assert_eq!(r["verdict"], "skip");
    assert!(r["reason"].as_str().unwrap().starts_with("no-reference"), "{r}");
}
