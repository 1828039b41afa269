//! The OBJ exporter through the worker binary on the public corpus, read back with an
//! independent OBJ reader (`tobj`). The stored-geometry checks run the `obj-base` exporter
//! (base objects, no modifier stacks) and look at the nodes whose base stores a mesh.
//!
//! Expected counts come from the geometry chunks themselves, counted by the small walkers
//! in this file — not by pmcore's geometry decoder: pmcore's chunk layer (proven by T1)
//! and scene index only locate the chunks. The property set's "Mesh Totals" is a
//! cross-check on the files where the scene is nothing but stored meshes.
//! One vertex's world position is also recomputed here by hand from the stored PRS
//! defaults and object offset.

use pmcore::chunk::Chunk;
use pmcore::model::scene_index::{SceneIndex, SceneObject, SceneTrees};
use pmcore::{classify, Input, MaxFile};
use pmtests::fixtures;
use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(p[at..at + 4].try_into().unwrap())
}

fn f32_at(p: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(p[at..at + 4].try_into().unwrap())
}

/// Counts of one object's stored geometry, straight from the chunk bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Counts {
    /// Live stored vertices.
    vertices: usize,
    /// Live faces (polygons as stored).
    polygons: usize,
    /// Triangles those polygons make (a k-gon makes k − 2).
    triangles: usize,
    /// Distinct vertices the live faces use.
    used_vertices: usize,
}

fn payload<'a>(c: &'a Chunk<'a>, id: u16) -> Option<&'a [u8]> {
    c.child(id).and_then(Chunk::payload)
}

/// Tri buffers: 0x0914 = u32 n + 12 n; 0x0912 = u32 n + 20 n (a, b, c first).
/// Poly buffers: 0x0100 = u32 n + records of u32 flags (+ 12 bytes unless flags & 2);
/// 0x011a = u32 n + records of s32 k, k corners, u16 layout word, then optional u32
/// (0x1), u16 (0x8), u32 (0x10), (k − 3) × 8 bytes (0x20); dead = k < 3 or flags & 2.
fn geometry_counts(buffers: &Chunk<'_>) -> Option<Counts> {
    if let (Some(v), Some(f)) = (payload(buffers, 0x0914), payload(buffers, 0x0912)) {
        let (nv, nf) = (u32_at(v, 0) as usize, u32_at(f, 0) as usize);
        assert_eq!(v.len(), 4 + 12 * nv, "tri vertex chunk size");
        assert_eq!(f.len(), 4 + 20 * nf, "tri face chunk size");
        let used: BTreeSet<u32> =
            (0..nf).flat_map(|i| (0..3).map(move |k| 4 + 20 * i + 4 * k)).map(|at| u32_at(f, at)).collect();
        return Some(Counts { vertices: nv, polygons: nf, triangles: nf, used_vertices: used.len() });
    }
    let (v, f) = (payload(buffers, 0x0100)?, payload(buffers, 0x011a)?);
    let mut counts = Counts::default();
    let mut at = 4;
    for _ in 0..u32_at(v, 0) {
        let flags = u32_at(v, at);
        at += if flags & 2 != 0 { 4 } else { 16 };
        counts.vertices += usize::from(flags & 2 == 0);
    }
    assert_eq!(at, v.len(), "poly vertex records fill the chunk");
    let mut used = BTreeSet::new();
    let mut at = 4;
    for _ in 0..u32_at(f, 0) {
        let k = u32_at(f, at) as usize;
        let corners: Vec<u32> = (0..k).map(|i| u32_at(f, at + 4 + 4 * i)).collect();
        at += 4 + 4 * k;
        let word = u16::from_le_bytes([f[at], f[at + 1]]);
        at += 2;
        let mut dead = k < 3;
        if word & 0x1 != 0 {
            dead |= u32_at(f, at) & 2 != 0;
            at += 4;
        }
        at += if word & 0x8 != 0 { 2 } else { 0 } + if word & 0x10 != 0 { 4 } else { 0 };
        if word & 0x20 != 0 {
            at += 8 * k.saturating_sub(3);
        }
        if !dead {
            counts.polygons += 1;
            counts.triangles += k - 2;
            used.extend(corners);
        }
    }
    assert_eq!(at, f.len(), "poly face records fill the chunk");
    counts.used_vertices = used.len();
    Some(counts)
}

/// The node's base object: its slot-1 object, through derived objects' last reference.
fn base<'a, 'b>(index: &'b SceneIndex<'a>, node: &SceneObject<'a>) -> Option<&'b SceneObject<'a>> {
    let mut o = index.get(node.reference(1)?)?;
    for _ in 0..64 {
        if !matches!(o.chunk.id, 0x2032 | 0x2033) {
            return Some(o);
        }
        let last = o.references().into_iter().filter_map(|(_, t)| t).next_back()?;
        o = index.get(last)?;
    }
    None
}

fn open(path: &Path) -> MaxFile {
    let Input::Ole(ole) = classify(&std::fs::read(path).unwrap()) else { panic!("{} is OLE", path.display()) };
    MaxFile::new(ole)
}

/// (node name, counts) for every node whose base object stores mesh buffers, in storage order.
fn expected(file: &MaxFile) -> Vec<(String, Counts)> {
    let trees = SceneTrees::of(file).unwrap();
    let index = trees.index().unwrap();
    index
        .objects
        .iter()
        .filter(|o| o.is_node())
        .filter_map(|node| {
            let b = base(&index, node)?;
            let counts = geometry_counts(b.chunk.child(0x08fe)?)?;
            Some((node.node_name().unwrap_or_default(), counts))
        })
        .collect()
}

fn export_obj(max: &Path, out: &Path) -> PathBuf {
    export_as(max, out, "obj")
}

fn export_as(max: &Path, out: &Path, exporter: &str) -> PathBuf {
    let args =
        [OsStr::new("--tiers"), OsStr::new("t1"), OsStr::new("--export"), OsStr::new(exporter), OsStr::new("--out")];
    let mut args: Vec<&OsStr> = args.to_vec();
    args.extend([out.as_os_str(), max.as_os_str()]);
    let run = fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    assert_eq!(run.code, Some(0), "{}: {}", max.display(), run.stderr);
    assert!(run.stdout.contains(&format!(r#""exporter":"{exporter}","status":"ok""#)), "{}", run.stdout);
    out.join(format!("{}.obj", max.file_stem().unwrap().to_string_lossy()))
}

fn mesh_totals(file: &MaxFile) -> Option<(usize, usize)> {
    let stream = file.ole.stream("\u{5}DocumentSummaryInformation")?;
    let sections = pmcore::facts::property_set::parse(&stream.bytes).ok()?;
    let parts = pmcore::facts::property_set::headed_parts(&sections);
    let (_, lines) = parts.iter().find(|(h, _)| h == "Mesh Totals")?;
    let value = |label: &str| lines.iter().find_map(|l| l.strip_prefix(label)?.trim().parse().ok());
    Some((value("Vertices:")?, value("Faces:")?))
}

/// Files whose scene holds only stored meshes (no primitives, no topology-changing
/// modifiers), where "Mesh Totals" must equal the live vertices and polygons.
const TOTALS_APPLY: [&str; 6] = [
    "kevinvandecar__default.max",
    "kevinvandecar__dragon.max",
    "fhqht12331__box.max",
    "copitofrostbite__scene.max",
    "sweetbubalehj__house.max",
    "splitzy__bed.max",
];

#[test]
fn obj_of_every_public_mesh_file_loads_in_tobj_with_the_counts_of_the_geometry_chunks() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let out = tempfile::tempdir().unwrap();
    let mut files_checked = Vec::new();
    let mut totals_checked = 0;
    for path in pmtests::corpus_files(&corpus) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Input::Ole(_) = classify(&std::fs::read(&path).unwrap()) else { continue };
        let file = open(&path);
        let expected = expected(&file);
        if expected.is_empty() {
            continue;
        }
        let obj = export_as(&path, out.path(), "obj-base");
        let live: usize = expected.iter().map(|(_, c)| c.vertices).sum();
        let options = tobj::LoadOptions { triangulate: false, single_index: false, ..Default::default() };
        let (models, _) = tobj::load_obj(&obj, &options).unwrap_or_else(|e| panic!("{name}: tobj: {e}"));
        // Base objects without stored buffers (primitives) are written too: keep the
        // models of the nodes whose base stores a mesh.
        let stored: BTreeSet<&str> = expected.iter().map(|(n, _)| n.as_str()).collect();
        let got: Vec<(String, usize, usize)> = models
            .iter()
            .filter(|m| stored.contains(m.name.as_str()))
            .map(|m| {
                assert!(m.mesh.face_arities.is_empty(), "{name}/{}: all faces are triangles", m.name);
                (m.name.clone(), m.mesh.indices.len() / 3, m.mesh.positions.len() / 3)
            })
            .collect();
        let want: Vec<(String, usize, usize)> = expected
            .iter()
            .filter(|(_, c)| c.triangles > 0)
            .map(|(n, c)| (n.clone(), c.triangles, c.used_vertices))
            .collect();
        assert_eq!(got, want, "{name}: (object, triangles, used vertices) per tobj model");
        if TOTALS_APPLY.contains(&name.as_str()) {
            let (vertices, faces) = mesh_totals(&file).expect("Mesh Totals present");
            let polygons: usize = expected.iter().map(|(_, c)| c.polygons).sum();
            assert_eq!((live, polygons), (vertices, faces), "{name}: Mesh Totals (vertices, faces)");
            totals_checked += 1;
        }
        let triangles: usize = want.iter().map(|w| w.1).sum();
        println!("{name}: {} objects, {live} vertices, {triangles} triangles", want.len());
        files_checked.push(name);
    }
    println!("OBJ checked on {} public files; Mesh Totals cross-checked on {totals_checked}", files_checked.len());
    assert!(files_checked.len() >= 5, "at least five public files with stored meshes: {files_checked:?}");
    assert_eq!(totals_checked, TOTALS_APPLY.len());
}

/// `(x, y, z, w)` stored in Max's inverse convention rotates `v` by the conjugate:
/// v' = v + 2w(u × v) + 2u × (u × v) with u = −(x, y, z).
fn rotate_by_max_quat(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let u = [-q[0], -q[1], -q[2]];
    let w = q[3];
    let cross =
        |a: [f64; 3], b: [f64; 3]| [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    let t = cross(u, v).map(|c| 2.0 * c);
    let ut = cross(u, t);
    [0, 1, 2].map(|i| v[i] + w * t[i] + ut[i])
}

fn floats(c: &Chunk<'_>, id: u16, n: usize) -> Vec<f64> {
    let p = payload(c, id).unwrap_or_else(|| panic!("chunk 0x{id:04x}"));
    (0..n).map(|i| f64::from(f32_at(p, 4 * i))).collect()
}

#[test]
fn exported_vertex_world_position_equals_the_hand_computed_prs_placement() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let path = corpus.join("paolohilario__roof_merge_m8.max");
    let out = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(export_obj(&path, out.path())).unwrap();
    let file = open(&path);
    let trees = SceneTrees::of(&file).unwrap();
    let index = trees.index().unwrap();
    // Both nodes sit under the root node with PRS = Bezier Position / TCB Rotation / Bezier
    // Scale. STRIM: translation + object offset. STILEBRDSTOP: object offset rotated 90°
    // about X and a node rotation of −4e−8 rad. world = P + R_node(offP + R_off(v)).
    for node_name in ["Z-RB3-SSTRIM-SOURCE", "Z-RB3-STILEBRDSTOP-SOURCE"] {
        let node = index.node_by_name(node_name).unwrap();
        assert_eq!(
            node.node_parent().and_then(|p| index.get(p)).and_then(|p| p.reference(0)),
            None,
            "parent is the root"
        );
        let prs = index.get(node.reference(0).unwrap()).unwrap();
        let sub = |slot| index.get(prs.reference(slot).unwrap()).unwrap().chunk;
        let pos = floats(sub(0), 0x2503, 3);
        let rot = floats(sub(1), 0x2504, 4);
        let scale = floats(sub(2), 0x2505, 3);
        assert_eq!(scale, vec![1.0, 1.0, 1.0], "{node_name}: unit scale");
        let off_pos = floats(node.chunk, 0x096a, 3);
        let off_rot = floats(node.chunk, 0x096b, 4);
        let mesh = base(&index, node).unwrap().chunk.child(0x08fe).unwrap();
        let v = match payload(mesh, 0x0914) {
            Some(tri) => (0..3).map(|i| f64::from(f32_at(tri, 4 + 4 * i))).collect::<Vec<_>>(),
            None => (0..3).map(|i| f64::from(f32_at(payload(mesh, 0x0100).unwrap(), 8 + 4 * i))).collect(),
        };
        let in_node = rotate_by_max_quat([off_rot[0], off_rot[1], off_rot[2], off_rot[3]], [v[0], v[1], v[2]]);
        let in_node = [0, 1, 2].map(|i| in_node[i] + off_pos[i]);
        let world = rotate_by_max_quat([rot[0], rot[1], rot[2], rot[3]], in_node);
        let world = [0, 1, 2].map(|i| world[i] + pos[i]);
        let line = text
            .lines()
            .skip_while(|l| *l != format!("o {node_name}"))
            .nth(1)
            .unwrap_or_else(|| panic!("object {node_name} with a vertex"));
        let got: Vec<f64> = line.split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();
        let scale = world.iter().map(|x| x * x).sum::<f64>().sqrt().max(1.0);
        let err = (0..3).map(|i| (got[i] - world[i]).powi(2)).sum::<f64>().sqrt() / scale;
        println!("{node_name}: local {v:?} -> hand {world:?}, exported {got:?} (relative error {err:e})");
        assert!(err < 1e-6, "{node_name}: exported {got:?}, hand-computed {world:?}");
        let local_len = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((scale - local_len).abs() > 100.0, "{node_name}: the transform is far from identity");
    }
}

fn t3_obj(max: &Path, reference_dir: &Path) -> serde_json::Value {
    let out = tempfile::tempdir().unwrap();
    let args: Vec<&OsStr> = vec![
        OsStr::new("--tiers"),
        OsStr::new("t1"),
        OsStr::new("--export"),
        OsStr::new("obj"),
        OsStr::new("--out"),
        out.path().as_os_str(),
        OsStr::new("--reference"),
        reference_dir.as_os_str(),
        max.as_os_str(),
    ];
    let run = fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    let line = run.lines().into_iter().find(|l| l.contains(r#""tier":"t3""#) && l.contains(r#""event":"result""#));
    serde_json::from_str(line.expect("a T3 result")).unwrap()
}

#[test]
fn obj_t3_passes_on_the_same_output_and_reports_a_moved_vertex_and_a_missing_face() {
    let Some(corpus) = pmtests::public_corpus() else { return };
    let path = corpus.join("paolohilario__roof_merge_m8.max");
    let refs = tempfile::tempdir().unwrap();
    let produced = std::fs::read_to_string(export_obj(&path, refs.path())).unwrap();
    let reference = refs.path().join("paolohilario__roof_merge_m8.obj");

    let same = t3_obj(&path, refs.path());
    assert_eq!(same["verdict"], "pass", "{same}");
    assert_eq!(same["detail"]["positions_compared"], 5709);
    assert_eq!(same["detail"]["objects"], serde_json::json!([14, 14]));

    // One vertex moved by 1 unit (relative error ≈ 3e-5 at |v| ≈ 32 000: over 1e-5).
    let mut lines: Vec<String> = produced.lines().map(str::to_string).collect();
    let first_v = lines.iter().position(|l| l.starts_with("v ")).unwrap();
    let mut xyz: Vec<f64> = lines[first_v].split_whitespace().skip(1).map(|x| x.parse().unwrap()).collect();
    xyz[0] += 1.0;
    lines[first_v] = format!("v {} {} {}", xyz[0], xyz[1], xyz[2]);
    std::fs::write(&reference, lines.join("\n")).unwrap();
    let moved = t3_obj(&path, refs.path());
    assert_eq!(moved["verdict"], "fail");
    assert_eq!(
        (moved["detail"]["positions_off"].as_u64(), moved["detail"]["count_differences"].as_array().unwrap().len()),
        (Some(1), 0)
    );

    // One face line dropped.
    let mut lines: Vec<&str> = produced.lines().collect();
    let first_f = lines.iter().position(|l| l.starts_with("f ")).unwrap();
    lines.remove(first_f);
    std::fs::write(&reference, lines.join("\n")).unwrap();
    let missing = t3_obj(&path, refs.path());
    assert_eq!(missing["verdict"], "fail");
    assert_eq!(missing["detail"]["faces"], serde_json::json!([6852, 6851]));
    assert_eq!(missing["detail"]["positions_off"], 0);
    assert_eq!(missing["detail"]["count_differences"].as_array().unwrap().len(), 1);
}
