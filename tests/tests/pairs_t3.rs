//! Pairs T3: real `.max` files against what 3ds Max itself exported from them
//! (`../shared/corpus/pairs`), through `pmref` — named pairs per comparison, perturbed
//! copies of a reference (written to a tempdir at test time) that each comparison must
//! catch with the right locator, and the worker's `--reference` lookup end to end.

use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::Verdict;
use pmref::compare::{compare_all, Comparison};
use pmref::fbx::binary::{self, Document, Node, Property};
use std::path::{Path, PathBuf};

/// `../shared/corpus/pairs`, or `None` after saying why the caller skips (a failure under
/// `PMFARM_REQUIRE_SHARED=1`).
fn pairs() -> Option<PathBuf> {
    pmtests::shared_corpus("pairs")
}

/// Runs every comparison of `reference` bytes (named `name`, read as `extension`) against
/// the `.max` at `max`.
fn compare(max: &Path, name: &str, extension: &str, reference: &[u8]) -> Vec<Comparison> {
    let bytes = std::fs::read(max).expect("max readable");
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    let file = pmcore::MaxFile::new(ole);
    let trees = SceneTrees::of(&file).expect("Scene parses");
    let index = trees.index().expect("Scene root");
    let scene = pmref::read_reference(extension, reference).expect("reference reads");
    compare_all(&index, &scene, name)
}

fn verdict_of<'a>(results: &'a [Comparison], name: &str) -> &'a Verdict {
    &results.iter().find(|c| c.name == name).expect("comparison present").verdict
}

fn summary(results: &[Comparison]) -> String {
    results.iter().map(|c| format!("{}={} {}\n", c.name, c.verdict.name(), c.detail)).collect()
}

/// A named pair: `.max` (relative to the pairs folder), export, and the verdict of each of
/// hierarchy, transforms, geometry as measured.
struct Named {
    max: &'static str,
    export: &'static str,
    expected: &'static [(&'static str, &'static str)],
}

const NAMED: &[Named] = &[
    // FBX 7.1, nine root boxes (three Editable Poly, six Box primitives through pmcore::eval),
    // inches on both sides (UnitScaleFactor 2.54), Z-up scene in a Y-up file.
    Named {
        max: "Daminvar__Armagine/cell.max",
        export: "Daminvar__Armagine/Armagine/Assets/cell/cell.FBX",
        expected: &[("hierarchy", "pass"), ("transforms", "pass"), ("geometry", "pass")],
    },
    // FBX 7.5 (64-bit record headers), metres (UnitScaleFactor 100).
    Named {
        max: "../wild/macgyverlin__4.max",
        export: "MacgyverLin__FBXPreprocessor/build/4.FBX",
        expected: &[("hierarchy", "pass"), ("transforms", "pass"), ("geometry", "pass")],
    },
    // FBX 6.1: a mesh under Skin over six Point helpers (Properties60, named links); its
    // animation includes Bezier Scale in-betweens; 281 weights from the Skin's stored influences.
    Named {
        max: "../wild/tae8838__blue.max",
        export: "tae8838__LD35/Assets/Models/Characters/Blue.FBX",
        expected: &[("hierarchy", "pass"), ("transforms", "pass"), ("animation", "pass"), ("skin", "pass")],
    },
    // FBX 6.1, 11 Point-helper bones: Bezier in-betweens (handles at a third of the interval,
    // whatever length the keys store) over 187 poses, and 278 Skin weights.
    Named {
        max: "../wild/tae8838__green@run.max",
        export: "tae8838__LD35/Assets/Animations/Characters/Green@Run.FBX",
        expected: &[("hierarchy", "pass"), ("animation", "pass"), ("skin", "pass")],
    },
    // FBX 7.3 whose six nodes are all animated: compared at the start frame, where the
    // `.max`'s keys (another state of the scene) put pSphere1 elsewhere.
    Named {
        max: "Academia2013Cohort4__Equipe2/PizzaQuest/Assets/Models/Zombie.max",
        export: "Academia2013Cohort4__Equipe2/Monsters/Walking Zombie.FBX",
        expected: &[("hierarchy", "pass"), ("transforms", "fail"), ("geometry", "pass"), ("animation", "fail")],
    },
    // FBX 7.3, one node rotating under Euler XYZ (three Bezier Float tracks of three keys):
    // transforms at the start frame and animation at the 3 key times pass.
    Named {
        max: "Academia2013Cohort4__Equipe2/Sword.max",
        export: "Academia2013Cohort4__Equipe2/PizzaQuest/Assets/Models/Sword.FBX",
        expected: &[("hierarchy", "pass"), ("transforms", "pass"), ("animation", "pass")],
    },
    // FBX 6.1 baked at every frame (101 poses): Max's Bezier in-betweens sampled at each.
    Named {
        max: "../wild/tae8838__stage.max",
        export: "tae8838__LD35/Assets/Models/Stage/Stage.FBX",
        expected: &[("hierarchy", "pass"), ("animation", "pass")],
    },
    // Binary DirectX .x (three frames, Y/Z swapped and scaled 0.3 by its exporter).
    Named {
        max: "../wild/shultays__flag.max",
        export: "shultays__pigment/flag.X",
        expected: &[("hierarchy", "pass"), ("transforms", "pass"), ("geometry", "pass")],
    },
    // FBX 7.4: a 100 × 100 Plane under Cloth, at the simulation state the `.max` saved.
    Named {
        max: "../wild/danshaub__bed.max",
        export: "danshaub__GameDevFinal/CharlieWork/assets/TableWithCloth.FBX",
        expected: &[("hierarchy", "pass"), ("geometry", "pass")],
    },
    // FBX 6.1 of the same `.max` as `Blue.FBX`: nine vertices moved in Y (four of them weighted
    // 1.0 to B_Root, whose other vertices stay) — a mesh edit, not a pose: the FBX exporter
    // writes a skinned mesh below its Skin.
    Named {
        max: "../wild/tae8838__blue.max",
        export: "tae8838__LD35/Assets/Animations/Characters/Blue@Idle.FBX",
        expected: &[("geometry", "fail"), ("skin", "pass")],
    },
    // OBJ (4 printed decimals, Y-up flip): geometry only.
    Named {
        max: "../public/copitofrostbite__scene.max",
        export: "CopitoFrostbite__graf11/Ejemplo3/Modelos/dock/Dock.obj",
        expected: &[("hierarchy", "skip"), ("transforms", "skip"), ("geometry", "pass")],
    },
];

#[test]
fn named_pairs_give_the_measured_verdicts() {
    let Some(pairs) = pairs() else { return };
    for n in NAMED {
        let reference = std::fs::read(pairs.join(n.export)).expect("export readable");
        let ext = Path::new(n.export).extension().unwrap().to_string_lossy().into_owned();
        let results = compare(&pairs.join(n.max), n.export, &ext, &reference);
        for &(comparison, expected) in n.expected {
            assert_eq!(
                verdict_of(&results, comparison).name(),
                expected,
                "{} {comparison}:\n{}",
                n.export,
                summary(&results)
            );
        }
    }
}

/// Meshes whose evaluation is right inside exports that other nodes keep from passing: each
/// named mesh is compared and is no miss (ProBoolean results in `Kenji's Room.FBX`, MeshSmooth
/// over open polys in `manSuite.FBX`, Shell over a ProBoolean and over cylinders whose caps an
/// Edit Poly deleted in `guardTower.FBX`; its stairs are not evaluated).
#[test]
fn named_meshes_equal_max_inside_partly_evaluated_exports() {
    let Some(pairs) = pairs() else { return };
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "RabidChinchilla__3D-Modelling-3DS-Max-Unity-Room-and-Escape-Room-/3ds Max/Kenji's Room.max",
            "RabidChinchilla__3D-Modelling-3DS-Max-Unity-Room-and-Escape-Room-/3ds Max/Kenji's Room.FBX",
            &["Box002", "Box004", "Box006"],
        ),
        (
            "SnubbleJr__GameJam1/manSuite.max",
            "SnubbleJr__GameJam1/GameJam/Assets/StopFolder/Models/manSuite.FBX",
            &["Shirt", "Tie"],
        ),
        (
            "../wild/danshaub__guardtower.max",
            "danshaub__GameDevFinal/CharlieWork/assets/guardTower.FBX",
            // Cylinder001 / 006: Cylinder > UVW Map > Edit Poly deleting face 91 (and 0) of
            // the poly conversion of the cylinder's tri mesh > Shell: in Max's order.
            &["Cylinder010", "Cylinder001", "Cylinder006"],
        ),
    ];
    for (max, export, nodes) in cases {
        let reference = std::fs::read(pairs.join(export)).expect("export readable");
        let results = compare(&pairs.join(max), export, "FBX", &reference);
        let geometry = results.iter().find(|c| c.name == "geometry").unwrap();
        let misses = geometry.detail["misses"].as_array().unwrap();
        assert!(misses.len() < 20, "{export}: the detail lists every miss");
        for node in *nodes {
            assert!(!misses.iter().any(|m| m["node"] == *node), "{export} {node}: {}", geometry.detail);
        }
        assert!(geometry.detail["meshes_passed"].as_u64().unwrap() >= nodes.len() as u64);
    }
}

/// Pairs whose geometry passes only through the replayed modifier records (issue 26,
/// geometry): each node's mesh equals what Max exported, in counts and positions.
const REPLAYED_GEOMETRY: &[(&str, &str, &str)] = &[
    // Box > Edit Mesh (selections only) > UVW Map > Edit Poly: detach face 1 to an
    // element, then delete it (8 vertices, 5 quads in the export).
    ("danshaub__GameDevFinal/DanWork/MaxFiles/Well.max", "danshaub__GameDevFinal/DanWork/Exports/Well.FBX", "Box010"),
    // Box (4 × 4 × 10 segments, Max's vertex order) > Edit Poly (transform offsets per
    // vertex) > Edit Mesh > UVW Map.
    ("danshaub__GameDevFinal/NoahWork/Table.max", "danshaub__GameDevFinal/DanWork/Exports/Table.FBX", "Box003"),
    // Box > Edit Poly: extrude eight faces by 21 along their group normals.
    (
        "danshaub__GameDevFinal/DanWork/MaxFiles/Podium.max",
        "danshaub__GameDevFinal/DanWork/Exports/Podium.FBX",
        "Box004",
    ),
    // Box > Edit Poly: attach (the attached mesh stored in the operation's data).
    (
        "../wild/ricobarrett__meetingtable.max",
        "RicoBarrett__3DSMax/Exports/To Unreal/Environment/MeetingTable.fbx",
        "MeetingTable01",
    ),
    // Box > Edit Mesh ×3 > Edit Poly > Bend 360° about X: a 200-unit box rolled into a ring.
    (
        "danshaub__GameDevFinal/DanWork/MaxFiles/FirePit.max",
        "danshaub__GameDevFinal/DanWork/Exports/FirePit.FBX",
        "FirePit",
    ),
    // Box > UVW Map > Edit Mesh > UVW Map > Taper −0.2 about Y.
    ("danshaub__GameDevFinal/DanWork/MaxFiles/Chair.max", "danshaub__GameDevFinal/DanWork/Exports/Chair.FBX", "Box005"),
    // Cylinder > Edit Poly (offsets on Max's poly conversion of the cylinder) > Mirror Y with
    // copy > Edit Poly (attach).
    ("../wild/snubblejr__bird.max", "SnubbleJr__GameJam1/GameJam/Assets/StopFolder/Models/bird.FBX", "Cylinder002"),
    // Cylinder > Edit Poly (offsets; left at vertex level with rows 0–1 and 4–5 selected) >
    // Bend 104.5° > Edit Poly (attach ×6): the Bend moves only the selected vertices, the
    // middle rows 36–71 stay straight as in the export.
    ("../wild/snubblejr__man.max", "SnubbleJr__GameJam1/GameJam/Assets/StopFolder/Models/man.FBX", "Cylinder007"),
    // Cylinder > Edit Poly (offsets; tessellate of the moved, non-convex 18-gon cap, then of
    // the 18 quads around its centre, each face centre at Max's safe centre; attach; three
    // cloned detaches) > MeshSmooth (NURMS, 1 iteration): equal to the export's 2,314 vertices as a set.
    ("SnubbleJr__GameJam1/tree.max", "SnubbleJr__GameJam1/GameJam/Assets/StopFolder/Models/tree.FBX", "Cylinder001"),
    // Box > Edit Poly (hinge by 0°, three deletes) > Normal (flip) > Edit Poly (insert vertex
    // in edge + connect ×6, offsets, delete, extrude, bevel, 24 target welds) > Edit Poly
    // (detach, delete ×2) > Unwrap UVW: a wall with a door frame, 28 vertices in Max's order.
    (
        "RicoBarrett__3DSMax/Saves/3DSMax/ModularOffice/NewModularWallSingleDoor.max",
        "RicoBarrett__3DSMax/Exports/To Unreal/ModularRoom/DoorWalls/ModularWallSingleDoor.fbx",
        "WallSingleDoor03",
    ),
    // Sphere (32 segments, Max's vertex and face order) > Ripple > Edit Mesh (material ids
    // on all 960 faces) > UVW Map > Edit Mesh (416 faces) > UVW Map.
    (BOWL_MAX, BOWL_EXPORT, "Sphere001"),
];

const BOWL_MAX: &str = "danshaub__GameDevFinal/SeanWork/Models/Bowl/Bowl.max";
const BOWL_EXPORT: &str = "danshaub__GameDevFinal/SeanWork/Models/Bowl/Bowl.FBX";

/// The Sphere is built in Max's own order: Bowl's 482 vertices equal the export's vertex
/// by vertex (not only as a point set), through the Ripple's wave.
#[test]
fn bowl_sphere_and_ripple_equal_the_export_vertex_by_vertex() {
    let Some(pairs) = pairs() else { return };
    let reference = std::fs::read(pairs.join(BOWL_EXPORT)).expect("export readable");
    let results = compare(&pairs.join(BOWL_MAX), BOWL_EXPORT, "fbx", &reference);
    let geometry = results.iter().find(|c| c.name == "geometry").expect("geometry result");
    assert_eq!(geometry.verdict.name(), "pass", "{}", summary(&results));
    assert_eq!(geometry.detail["vertices_compared"], 482, "{}", geometry.detail);
    assert_eq!(geometry.detail["meshes_equal_in_another_vertex_order"], 0, "{}", geometry.detail);
    assert!(geometry.detail["max_position_error"].as_f64().unwrap() < 1e-5, "{}", geometry.detail);
}

#[test]
fn replayed_edit_poly_and_edit_mesh_nodes_equal_what_max_exported() {
    let Some(pairs) = pairs() else { return };
    for (max, export, node) in REPLAYED_GEOMETRY {
        let reference = std::fs::read(pairs.join(export)).expect("export readable");
        let results = compare(&pairs.join(max), export, "fbx", &reference);
        let geometry = results.iter().find(|c| c.name == "geometry").expect("geometry result");
        assert_eq!(geometry.verdict.name(), "pass", "{export} ({node}):\n{}", summary(&results));
        let misses = geometry.detail["misses"].as_array().map_or(0, Vec::len);
        assert_eq!(misses, 0, "{export}: {}", geometry.detail);
    }
}

// ---- perturbed copies -------------------------------------------------------------

const PERTURBED_MAX: &str = "Daminvar__Armagine/cell.max";
const PERTURBED_EXPORT: &str = "Daminvar__Armagine/Armagine/Assets/cell/cell.FBX";

/// Reads the reference, applies `change` to its records, writes the copy into a tempdir,
/// reads the copy back from disk and compares it.
fn perturbed(change: impl FnOnce(&mut Document) -> String) -> Option<(Vec<Comparison>, String)> {
    let pairs = pairs()?;
    let mut doc = binary::read(&std::fs::read(pairs.join(PERTURBED_EXPORT)).unwrap()).unwrap();
    let node = change(&mut doc);
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("cell.FBX");
    std::fs::write(&copy, binary::write(&doc)).unwrap();
    let bytes = std::fs::read(&copy).unwrap();
    Some((compare(&pairs.join(PERTURBED_MAX), PERTURBED_EXPORT, "fbx", &bytes), node))
}

fn objects(doc: &mut Document) -> &mut Node {
    doc.nodes.iter_mut().find(|n| n.name == "Objects").expect("Objects")
}

fn model_id_and_name(doc: &mut Document, k: usize) -> (i64, String) {
    let m = objects(doc).children.iter().filter(|n| n.name == "Model").nth(k).expect("model").clone();
    let id = m.properties[0].as_i64().unwrap();
    (id, pmref::fbx::scene::object_name(m.properties[1].as_bytes().unwrap()))
}

fn assert_caught(results: &[Comparison], comparison: &str, node: &str) {
    match verdict_of(results, comparison) {
        Verdict::Fail(m) => {
            assert_eq!(m.chunk_path, format!("@reference/{PERTURBED_EXPORT}/{node}"), "{}", m.message);
            assert!(m.offset > 0, "the locator carries the record offset");
        }
        other => panic!("{comparison} did not catch it: {other:?}\n{}", summary(results)),
    }
    for other in ["hierarchy", "transforms", "geometry"].iter().filter(|c| **c != comparison) {
        // The unperturbed comparisons stay as they were on the original (all pass here).
        assert_eq!(verdict_of(results, other).name(), "pass", "{other} changed:\n{}", summary(results));
    }
}

#[test]
fn one_vertex_moved_is_caught_by_geometry_at_its_mesh() {
    let Some((results, node)) = perturbed(|doc| {
        // The first geometry's first vertex moves by 0.5 along X; its model is the one
        // linked to that geometry.
        let geometry = objects(doc).children.iter_mut().find(|n| n.name == "Geometry").unwrap();
        let gid = geometry.properties[0].as_i64().unwrap();
        let vertices = geometry.children.iter_mut().find(|n| n.name == "Vertices").unwrap();
        let Property::F64s(v) = &mut vertices.properties[0] else { panic!("vertices are f64") };
        v[0] += 0.5;
        let conn = doc.nodes.iter().find(|n| n.name == "Connections").unwrap();
        let model =
            conn.children.iter().find(|c| c.properties[1].as_i64() == Some(gid)).unwrap().properties[2].as_i64();
        let m = objects(doc).children.iter().find(|n| n.name == "Model" && n.properties[0].as_i64() == model).unwrap();
        pmref::fbx::scene::object_name(m.properties[1].as_bytes().unwrap())
    }) else {
        return;
    };
    assert_caught(&results, "geometry", &node);
}

#[test]
fn one_parent_swapped_is_caught_by_hierarchy_at_the_child() {
    let Some((results, node)) = perturbed(|doc| {
        // Model 1 (at the scene root) is re-linked under model 0.
        let (parent, _) = model_id_and_name(doc, 0);
        let (child, name) = model_id_and_name(doc, 1);
        let conn = doc.nodes.iter_mut().find(|n| n.name == "Connections").unwrap();
        let link = conn.children.iter_mut().find(|c| c.properties[1].as_i64() == Some(child)).unwrap();
        link.properties[2] = Property::I64(parent);
        name
    }) else {
        return;
    };
    // The swapped node's local transform is now read relative to another node, so
    // transforms fails too; hierarchy names the node.
    match verdict_of(&results, "hierarchy") {
        Verdict::Fail(m) => assert_eq!(m.chunk_path, format!("@reference/{PERTURBED_EXPORT}/{node}"), "{}", m.message),
        other => panic!("hierarchy did not catch it: {other:?}"),
    }
}

#[test]
fn one_translation_changed_is_caught_by_transforms_at_its_node() {
    let Some((results, node)) = perturbed(|doc| {
        let (_, name) = model_id_and_name(doc, 2);
        let model = objects(doc).children.iter_mut().filter(|n| n.name == "Model").nth(2).unwrap();
        let props = model.children.iter_mut().find(|n| n.name == "Properties70").unwrap();
        let t = props
            .children
            .iter_mut()
            .find(|p| p.properties[0].as_text().as_deref() == Some("Lcl Translation"))
            .unwrap();
        let Property::F64(x) = &mut t.properties[4] else { panic!("translation x is f64") };
        *x += 0.25;
        name
    }) else {
        return;
    };
    assert_caught(&results, "transforms", &node);
}

#[test]
fn one_key_shifted_is_caught_by_animation_at_its_node() {
    let Some(pairs) = pairs() else { return };
    let export = "Academia2013Cohort4__Equipe2/PizzaQuest/Assets/Models/Sword.FBX";
    let max = pairs.join("Academia2013Cohort4__Equipe2/Sword.max");
    let mut doc = binary::read(&std::fs::read(pairs.join(export)).unwrap()).unwrap();
    // The middle key of the first AnimationCurve (a rotation component of "Sword", in
    // degrees) moves by 5°.
    let curve = objects(&mut doc).children.iter_mut().find(|n| n.name == "AnimationCurve").unwrap();
    let values = curve.children.iter_mut().find(|n| n.name == "KeyValueFloat").unwrap();
    let Property::F32s(v) = &mut values.properties[0] else { panic!("key values are f32") };
    assert_eq!(v.len(), 3);
    v[1] += 5.0;
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("Sword.FBX");
    std::fs::write(&copy, binary::write(&doc)).unwrap();
    let results = compare(&max, export, "fbx", &std::fs::read(&copy).unwrap());
    match verdict_of(&results, "animation") {
        Verdict::Fail(m) => {
            assert_eq!(m.chunk_path, format!("@reference/{export}/Sword"), "{}", m.message);
            assert!(m.message.contains("frame 15.00"), "the shifted key's time: {}", m.message);
            assert!(m.offset > 0, "the locator carries the curve's offset");
        }
        other => panic!("animation did not catch it: {other:?}\n{}", summary(&results)),
    }
    // The start frame's key is untouched: hierarchy and transforms stay as they were.
    for other in ["hierarchy", "transforms"] {
        assert_eq!(verdict_of(&results, other).name(), "pass", "{other}:\n{}", summary(&results));
    }
}

#[test]
fn one_cluster_bone_swapped_is_caught_by_skin_at_the_cluster() {
    let Some(pairs) = pairs() else { return };
    let export = "tae8838__LD35/Assets/Models/Characters/Blue.FBX";
    let mut doc = binary::read(&std::fs::read(pairs.join(export)).unwrap()).unwrap();
    // FBX 6.1 links by name: the bone of cluster "B_Tail2" becomes the mesh "Blue".
    let conn = doc.nodes.iter_mut().find(|n| n.name == "Connections").unwrap();
    let link = conn
        .children
        .iter_mut()
        .find(|c| c.properties.get(2).and_then(Property::as_bytes) == Some(&b"Cluster B_Tail2\0\x01SubDeformer"[..]))
        .unwrap();
    link.properties[1] = Property::String(b"Blue\0\x01Model".to_vec());
    let cluster_offset = {
        let objects = doc.nodes.iter().find(|n| n.name == "Objects").unwrap();
        let cluster = objects.children.iter().find(|n| {
            n.properties.first().and_then(Property::as_bytes) == Some(&b"Cluster B_Tail2\0\x01SubDeformer"[..])
        });
        cluster.is_some()
    };
    assert!(cluster_offset, "the cluster is there");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("Blue.FBX");
    std::fs::write(&copy, binary::write(&doc)).unwrap();
    let results = compare(&pairs.join("../wild/tae8838__blue.max"), export, "fbx", &std::fs::read(&copy).unwrap());
    match verdict_of(&results, "skin") {
        Verdict::Fail(m) => {
            assert_eq!(m.chunk_path, format!("@reference/{export}/Blue"), "{}", m.message);
            assert!(m.message.contains("B_Tail2"), "{}", m.message);
        }
        other => panic!("skin did not catch it: {other:?}\n{}", summary(&results)),
    }
    assert_eq!(verdict_of(&results, "geometry").name(), "pass", "{}", summary(&results));
}

#[test]
fn one_weight_changed_is_caught_by_skin_at_the_cluster() {
    let Some(pairs) = pairs() else { return };
    let export = "tae8838__LD35/Assets/Models/Characters/Blue.FBX";
    let mut doc = binary::read(&std::fs::read(pairs.join(export)).unwrap()).unwrap();
    // Cluster B_Body2's second weight (vertex 1: 0.9920638 in the file, the `.max`'s stored
    // influences 0.093436785 / (0.0007474681 + 0.093436785) = 0.992064) raised by 0.01.
    let objects = doc.nodes.iter_mut().find(|n| n.name == "Objects").unwrap();
    let cluster = objects
        .children
        .iter_mut()
        .find(|n| n.properties.first().and_then(Property::as_bytes) == Some(&b"Cluster B_Body2\0\x01SubDeformer"[..]))
        .expect("cluster B_Body2");
    let weights = cluster.children.iter_mut().find(|c| c.name == "Weights").expect("Weights");
    match weights.properties.as_mut_slice() {
        [Property::F64s(list)] => list[1] += 0.01,
        list => match &mut list[1] {
            Property::F64(w) => *w += 0.01,
            other => panic!("weight stored as {other:?}"),
        },
    }
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("Blue.FBX");
    std::fs::write(&copy, binary::write(&doc)).unwrap();
    let results = compare(&pairs.join("../wild/tae8838__blue.max"), export, "fbx", &std::fs::read(&copy).unwrap());
    let cluster_offset = pmref::read_reference("fbx", &std::fs::read(&copy).unwrap())
        .unwrap()
        .skins
        .iter()
        .flat_map(|s| &s.clusters)
        .find(|c| c.bone == "B_Body2")
        .map(|c| c.offset)
        .unwrap();
    match verdict_of(&results, "skin") {
        Verdict::Fail(m) => {
            assert_eq!(m.chunk_path, format!("@reference/{export}/Blue"), "{}", m.message);
            assert_eq!(m.offset, cluster_offset, "located at the changed cluster");
            assert!(m.message.contains("vertex 1") && m.message.contains("B_Body2"), "{}", m.message);
        }
        other => panic!("skin did not catch it: {other:?}\n{}", summary(&results)),
    }
    for other in ["hierarchy", "transforms", "geometry"] {
        assert_eq!(verdict_of(&results, other).name(), "pass", "{other}:\n{}", summary(&results));
    }
}

/// The worker end to end: `--export pairs --reference PAIRS` finds the exports of a paired
/// file by relative name and reports one result per comparison and export; a file no
/// manifest row names is one counted `pairs` skip; two folders naming the same base name
/// make an ambiguous skip.
#[test]
fn worker_finds_references_by_relative_then_base_name() {
    let Some(pairs) = pairs() else { return };
    // Through the harness: every stdout line must parse as a documented event.
    let run = |max: &Path, refs: &[&Path]| -> Vec<serde_json::Value> {
        let mut worker = pmtests::harness::Worker::new(max).args(["--tiers", "t3", "--export", "pairs"]);
        for r in refs {
            worker = worker.args([Path::new("--reference"), r]);
        }
        worker
            .run()
            .events
            .iter()
            .map(|e| serde_json::to_value(e).expect("an event serializes"))
            .filter(|e| e["event"] == "result" && e["tier"] == "t3")
            .collect()
    };
    let results = run(&pairs.join("Daminvar__Armagine/cell.max"), &[&pairs]);
    let streams: Vec<&str> = results.iter().filter_map(|e| e["stream"].as_str()).collect();
    let export = "Daminvar__Armagine/Armagine/Assets/cell/cell.FBX";
    for c in pmref::compare::COMPARISONS {
        assert!(streams.contains(&format!("pairs/{c}/{export}").as_str()), "{streams:?}");
    }
    assert!(results.iter().all(|e| e["detail"]["lookup"] == "relative name"));

    // A copy of a paired file elsewhere: found by its unique base name.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("cell.max");
    std::fs::copy(pairs.join("Daminvar__Armagine/cell.max"), &copy).unwrap();
    let results = run(&copy, &[&pairs]);
    assert!(results
        .iter()
        .any(|e| e["stream"] == format!("pairs/hierarchy/{export}") && e["detail"]["lookup"] == "base name"));

    // A second folder laid out like the pairs one (no manifest) holding another cell.max
    // with an export: the base name is now ambiguous, a counted skip with its reason.
    let other = tempfile::tempdir().unwrap();
    std::fs::copy(pairs.join("Daminvar__Armagine/cell.max"), other.path().join("cell.max")).unwrap();
    std::fs::copy(pairs.join(export), other.path().join("cell.FBX")).unwrap();
    let results = run(&copy, &[&pairs, other.path()]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!((results[0]["stream"].as_str(), results[0]["verdict"].as_str()), (Some("pairs"), Some("skip")));
    assert!(results[0]["reason"].as_str().unwrap().starts_with("ambiguous reference"), "{}", results[0]);

    // No row at all: a missing-reference skip.
    let lonely = dir.path().join("nothing-like-it.max");
    std::fs::copy(pairs.join("Daminvar__Armagine/cell.max"), &lonely).unwrap();
    let results = run(&lonely, &[&pairs]);
    assert_eq!(results.len(), 1);
    assert!(results[0]["reason"].as_str().unwrap().starts_with("missing reference"), "{}", results[0]);
}

/// Every manifest row, in process: the per-comparison pass counts `docs/exporters.md`
/// quotes (measured with `scripts/pairs_sweep.sh`) must not drop. About a minute in a
/// debug build, so it runs with `PMFARM_LONG_TESTS=1` (set by `.ci/run`).
#[test]
fn every_pair_keeps_the_documented_pass_counts() {
    if std::env::var("PMFARM_LONG_TESTS").map_or(true, |v| v != "1") {
        eprintln!("SKIP: set PMFARM_LONG_TESTS=1 to compare every pair");
        return;
    }
    let Some(pairs) = pairs() else { return };
    let manifest = std::fs::read_to_string(pairs.join("manifest.tsv")).unwrap();
    let mut passes: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    let mut exports = 0;
    for row in manifest.lines().skip(1).filter(|l| !l.trim().is_empty()) {
        let cells: Vec<&str> = row.split('\t').collect();
        for export in cells[2]
            .split(';')
            .map(str::trim)
            .filter(|e| pmref::pairs::EXPORT_EXTENSIONS.iter().any(|x| e.to_lowercase().ends_with(&format!(".{x}"))))
        {
            exports += 1;
            let ext = Path::new(export).extension().unwrap().to_string_lossy().into_owned();
            let reference = std::fs::read(pairs.join(export)).unwrap();
            for c in compare(&pairs.join(cells[0]), export, &ext, &reference) {
                if c.verdict.name() == "pass" {
                    *passes.entry(c.name).or_default() += 1;
                }
            }
        }
    }
    eprintln!("pairs: {exports} exports, passes per comparison {passes:?}");
    assert!(exports > 0, "the pairs manifest lists no export");
    for (comparison, documented) in
        [("hierarchy", 95), ("transforms", 82), ("geometry", 85), ("animation", 17), ("skin", 6)]
    {
        assert!(passes.get(comparison).copied().unwrap_or(0) >= documented, "{comparison}: {passes:?}");
    }
}
