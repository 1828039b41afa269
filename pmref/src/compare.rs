//! The pairs T3 comparisons: a reference 3ds Max wrote ([`RefScene`]) against pmcore's
//! model of the `.max` it came from. One [`Comparison`] per kind — `hierarchy`,
//! `transforms`, `geometry`, `animation`, `skin` — each with a verdict, the first
//! difference (both sides, located in the reference file) and counters.
//!
//! Axes and units come from the reference's own settings: positions scale by
//! `OriginalUnitScaleFactor / UnitScaleFactor`, and when the file's up axis differs from
//! the scene's (`UpAxis` vs `OriginalUpAxis`) the exporter's conversion is a rotation on
//! the nodes without an exported parent (it writes it as their `PreRotation`); nodes below
//! keep Max's local axes. Nothing is assumed where the file says nothing: such files are
//! compared with the conversion their root nodes carry, and the detail says so.

use crate::scene::{max_ticks, Format, RefNode, RefScene};
use glam::{DMat4, DVec3};
use pmcore::classes::{self, ids};
use pmcore::eval::{Evaluated, FaceRule, NodeOutcome};
use pmcore::model::controllers::{object_offset, world_matrix};
use pmcore::model::geometry::Mesh;
use pmcore::model::keys::world_matrix_at;
use pmcore::model::scene_index::SceneIndex;
use pmcore::verify::{Mismatch, Verdict};
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The comparisons, in the order they are reported.
pub const COMPARISONS: [&str; 5] = ["hierarchy", "transforms", "geometry", "animation", "skin"];

/// Translation and vertex tolerance, relative to `max(1, |value|)`: Max keeps positions and
/// transforms in `f32` (24-bit mantissa, 6e-8 relative) and composes a few matrices in
/// `f32` before the exporter widens them to `f64`; 1e-5 leaves room for ~100 roundings and
/// is still far below any edit a user makes (0.001 units on a 100-unit scene).
pub const POSITION_TOLERANCE: f64 = 1e-5;
/// Tolerance on the rotation-scale part of a local matrix (unitless, relative to the
/// largest scale): the same f32 argument on unit-length axes.
pub const LINEAR_TOLERANCE: f64 = 1e-4;
/// One comparison's outcome.
#[derive(Clone, Debug)]
pub struct Comparison {
    /// `hierarchy`, `transforms`, …
    pub name: &'static str,
    /// Verdict; failures are located as `@reference/<name>/<node>` at the record's offset.
    pub verdict: Verdict,
    /// Counters and the first difference.
    pub detail: Value,
}

/// Base object under a node's object reference and the number of modifiers above it.
fn base_object<'i, 'a>(
    index: &'i SceneIndex<'a>,
    node: &pmcore::model::scene_index::SceneObject<'a>,
) -> Option<(&'i pmcore::model::scene_index::SceneObject<'a>, usize)> {
    pmcore::eval::stack::stack(index, node).map(|(base, modifiers)| (base, modifiers.len()))
}

/// A Max node as the comparisons see it.
#[derive(Clone, Debug)]
struct MaxNode {
    storage: usize,
    name: String,
    /// Index into the node list of the parent node; `None` under the scene root.
    parent: Option<usize>,
}

/// The Max side: named nodes and their parents (the scene root node — the one without a
/// transform controller — is not a node here).
struct MaxTree<'i, 'a> {
    index: &'i SceneIndex<'a>,
    nodes: Vec<MaxNode>,
}

impl<'i, 'a> MaxTree<'i, 'a> {
    fn of(index: &'i SceneIndex<'a>) -> Self {
        let is_scene_node = |o: &pmcore::model::scene_index::SceneObject<'_>| o.is_node() && o.reference(0).is_some();
        let storage: Vec<usize> = index.objects.iter().filter(|o| is_scene_node(o)).map(|o| o.storage_index).collect();
        let position: BTreeMap<usize, usize> = storage.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let nodes = storage
            .iter()
            .map(|&s| {
                let o = &index.objects[s];
                MaxNode {
                    storage: s,
                    name: o.node_name().unwrap_or_default(),
                    parent: o.node_parent().and_then(|p| position.get(&p).copied()),
                }
            })
            .collect();
        MaxTree { index, nodes }
    }

    /// The class family of a node's object (through its modifier stack), for the
    /// node-dropping tally.
    fn family(&self, node: &MaxNode) -> String {
        let o = &self.index.objects[node.storage];
        match base_object(self.index, o) {
            None => "no object".into(),
            Some((base, _)) => match base.class.as_ref().map(|c| c.superclass) {
                Some(0x10) => match Mesh::of_object(base.chunk) {
                    Ok(Some(_)) => "geometry (stored mesh)".into(),
                    _ => "geometry (parametric)".into(),
                },
                Some(0x20) => "camera".into(),
                Some(0x30) => "light".into(),
                Some(0x40) => "helper".into(),
                Some(0x50) => "shape".into(),
                Some(s) => format!("superclass 0x{s:x}"),
                None => "unresolved class".into(),
            },
        }
    }
}

/// How reference nodes map to Max nodes.
struct Matching {
    /// For each reference node, the Max node index.
    max_of: Vec<Option<usize>>,
    /// For each Max node, the reference node index.
    ref_of: Vec<Option<usize>>,
}

fn match_nodes(reference: &RefScene, tree: &MaxTree<'_, '_>) -> Matching {
    let mut max_of = vec![None; reference.nodes.len()];
    let mut ref_of = vec![None; tree.nodes.len()];
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, n) in tree.nodes.iter().enumerate() {
        by_name.entry(n.name.clone()).or_default().push(i);
    }
    // Exact names first, then case-insensitive (Max node names are case-insensitive), then
    // without the FBX SDK's name-clash suffix `_ncl<N>_<N>` (FBX 6.1 renames a node whose
    // name another object of the file already uses).
    for pass in 0..3 {
        for (r, node) in reference.nodes.iter().enumerate() {
            if max_of[r].is_some() {
                continue;
            }
            let wanted = match pass {
                0 => node.name.clone(),
                1 => node.name.to_lowercase(),
                _ => match strip_name_clash(&node.name) {
                    Some(stem) => stem.to_lowercase(),
                    None => continue,
                },
            };
            let candidates: Vec<usize> = if pass == 0 {
                by_name.get(&wanted).cloned().unwrap_or_default()
            } else {
                tree.nodes.iter().enumerate().filter(|(_, n)| n.name.to_lowercase() == wanted).map(|(i, _)| i).collect()
            };
            let free: Vec<usize> = candidates.into_iter().filter(|&m| ref_of[m].is_none()).collect();
            // Among namesakes, prefer the one whose parent has the reference parent's name.
            let parent_name = node.parent.map(|p| reference.nodes[p].name.to_lowercase());
            let pick = free
                .iter()
                .copied()
                .find(|&m| tree.nodes[m].parent.map(|p| tree.nodes[p].name.to_lowercase()) == parent_name)
                .or(free.first().copied());
            if let Some(m) = pick {
                max_of[r] = Some(m);
                ref_of[m] = Some(r);
            }
        }
    }
    Matching { max_of, ref_of }
}

/// `name` without a trailing FBX name-clash suffix `_ncl<digits>_<digits>`.
pub fn strip_name_clash(name: &str) -> Option<&str> {
    let (stem, tail) = name.rsplit_once("_ncl")?;
    let (a, b) = tail.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b) && !stem.is_empty()).then_some(stem)
}

/// Nearest ancestor of Max node `m` that was exported (has a reference node).
fn exported_ancestor(tree: &MaxTree<'_, '_>, matching: &Matching, m: usize) -> Option<usize> {
    let mut current = tree.nodes[m].parent;
    for _ in 0..tree.nodes.len() {
        let p = current?;
        if matching.ref_of[p].is_some() {
            return Some(p);
        }
        current = tree.nodes[p].parent;
    }
    None
}

fn fail(kind: &str, message: String, locator: String, offset: u64) -> Verdict {
    Verdict::Fail(Mismatch { kind: kind.into(), message, chunk_path: locator, offset, ..Default::default() })
}

fn locator(reference_name: &str, node: &RefNode) -> String {
    format!("@reference/{reference_name}/{}", node.name)
}

/// Runs every comparison of `reference` (file `reference_name`) against the scene.
pub fn compare_all(index: &SceneIndex<'_>, reference: &RefScene, reference_name: &str) -> Vec<Comparison> {
    let tree = MaxTree::of(index);
    let matching = match_nodes(reference, &tree);
    vec![
        hierarchy(&tree, &matching, reference, reference_name),
        transforms(&tree, &matching, reference, reference_name),
        geometry(&tree, &matching, reference, reference_name),
        animation(&tree, &matching, reference, reference_name),
        skin(&tree, &matching, reference, reference_name),
    ]
}

fn hierarchy(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    let mut detail = json!({
        "reference_nodes": reference.nodes.len(),
        "max_nodes": tree.nodes.len(),
        "exporter_added": reference.exporter_added,
    });
    if !reference.format.has_hierarchy() {
        let verdict = Verdict::Skip { reason: "format carries no hierarchy (OBJ)".into() };
        return Comparison { name: "hierarchy", verdict, detail };
    }
    let mut first: Option<Verdict> = None;
    let (mut matched, mut parents_ok, mut unmatched, mut parent_off) = (0, 0, 0, 0);
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mx) = m.max_of[r] else {
            unmatched += 1;
            first.get_or_insert_with(|| {
                let message = format!("reference node {:?} ({}) has no Max node of that name", node.name, node.kind);
                fail("t3-pairs-hierarchy", message, locator(name, node), node.offset)
            });
            continue;
        };
        matched += 1;
        let expected = exported_ancestor(tree, m, mx).map(|p| tree.nodes[p].name.clone());
        let actual = node.parent.map(|p| reference.nodes[p].name.clone());
        let same = match (&expected, &actual) {
            (Some(e), Some(a)) => e.to_lowercase() == a.to_lowercase(),
            (None, None) => true,
            _ => false,
        };
        if same {
            parents_ok += 1;
        } else {
            parent_off += 1;
            first.get_or_insert_with(|| {
                let message = format!(
                    "node {:?}: parent in the reference {:?}, in Max (nearest exported ancestor) {:?}",
                    node.name,
                    actual.as_deref().unwrap_or("<scene root>"),
                    expected.as_deref().unwrap_or("<scene root>")
                );
                fail("t3-pairs-hierarchy", message, locator(name, node), node.offset)
            });
        }
    }
    let mut dropped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, n) in tree.nodes.iter().enumerate() {
        if m.ref_of[i].is_none() {
            dropped.entry(tree.family(n)).or_default().push(n.name.clone());
        }
    }
    let dropped_counts: BTreeMap<&String, usize> = dropped.iter().map(|(k, v)| (k, v.len())).collect();
    let dropped_names: BTreeMap<&String, Vec<&String>> =
        dropped.iter().map(|(k, v)| (k, v.iter().take(10).collect())).collect();
    if let Value::Object(map) = &mut detail {
        map.insert("matched".into(), json!(matched));
        map.insert("parents_agree".into(), json!(parents_ok));
        map.insert("unmatched_reference_nodes".into(), json!(unmatched));
        map.insert("parent_differences".into(), json!(parent_off));
        map.insert("max_nodes_not_exported".into(), json!(dropped_counts));
        map.insert("max_nodes_not_exported_names".into(), json!(dropped_names));
    }
    Comparison { name: "hierarchy", verdict: first.unwrap_or_else(Verdict::pass), detail }
}

/// How the exporter maps Max's axes and units onto the file's, as a transform `C` for the
/// nodes without an exported parent (FBX: `root local = C · Max world`, children keep Max's
/// local transforms and the vertices stay in Max units and object axes) or, for formats
/// that convert every coordinate (`.x`), a similarity (`local' = C · local · C⁻¹`).
#[derive(Clone, Debug)]
struct Conversion {
    matrix: DMat4,
    similarity: bool,
    note: String,
    /// False when the file does not declare enough to place its roots (FBX 6.0).
    roots_comparable: bool,
}

/// FBX: the declared settings. The axis turn is `Rx(-90°)` from a Z-up scene to a Y-up file
/// (what Max writes as the roots' `PreRotation`); the unit factor `Original / UnitScale`
/// is a uniform scale on the roots (Max writes it into their `Lcl Scaling` and
/// `Lcl Translation`). A file that does not declare the scene's up axis (FBX 6.0) is read
/// with the turn its first root carries, and says so. Other formats declare nothing: the
/// candidates are tried and the one that fits is reported.
fn conversions(reference: &RefScene) -> Result<Vec<Conversion>, String> {
    let turn = DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2);
    match (&reference.format, &reference.axes) {
        (Format::Fbx(_), Some(a)) => {
            let f = a.unit_factor();
            let units = DMat4::from_scale(DVec3::splat(f));
            let (axes, note) = match a.original_up {
                Some(o) if o == a.up => (DMat4::IDENTITY, format!("up axis {} unchanged", a.up.0)),
                Some((2, 1)) if a.up == (1, 1) => (turn, "Z-up scene to Y-up file: Rx(-90°) on root nodes".to_string()),
                Some(o) => return Err(format!("axis conversion from up {o:?} to up {:?} is not modelled", a.up)),
                None => {
                    let note = "the file declares neither the scene's up axis nor its units (FBX 6.0): root nodes not compared";
                    return Ok(vec![Conversion {
                        matrix: DMat4::IDENTITY,
                        similarity: false,
                        note: note.into(),
                        roots_comparable: false,
                    }]);
                }
            };
            let note = format!("{note}; unit factor {f} on root nodes");
            Ok(vec![Conversion { matrix: axes * units, similarity: false, note, roots_comparable: true }])
        }
        (Format::Fbx(_), None) => {
            let note = "no GlobalSettings: root nodes not compared";
            Ok(vec![Conversion {
                matrix: DMat4::IDENTITY,
                similarity: false,
                note: note.into(),
                roots_comparable: false,
            }])
        }
        _ => {
            let swap =
                DMat4::from_cols(DVec3::X.extend(0.0), DVec3::Z.extend(0.0), DVec3::Y.extend(0.0), glam::DVec4::W);
            Ok(vec![
                Conversion {
                    matrix: DMat4::IDENTITY,
                    similarity: true,
                    note: "axes not declared: identity fits".into(),
                    roots_comparable: true,
                },
                Conversion {
                    matrix: swap,
                    similarity: true,
                    note: "axes not declared: Y/Z swap (left-handed Y-up) fits".into(),
                    roots_comparable: true,
                },
                Conversion {
                    matrix: turn,
                    similarity: true,
                    note: "axes not declared: (x, z, -y) turn fits".into(),
                    roots_comparable: true,
                },
            ])
        }
    }
}

fn to_dmat(m: glam::Mat4) -> DMat4 {
    DMat4::from_cols_array(&m.to_cols_array().map(|v| v as f64))
}

/// Translation and linear differences between two local matrices.
fn matrix_error(expected: &DMat4, actual: &DMat4) -> (f64, f64) {
    let te = expected.w_axis.truncate();
    let ta = actual.w_axis.truncate();
    let t = (te - ta).length() / te.length().max(ta.length()).max(1.0);
    let mut l: f64 = 0.0;
    let mut size: f64 = f64::MIN_POSITIVE;
    for c in 0..3 {
        let (a, b) = (expected.col(c).truncate(), actual.col(c).truncate());
        size = size.max(a.length()).max(b.length());
        l = l.max((a - b).abs().max_element());
    }
    (t, l / size)
}

fn describe(m: &DMat4) -> Value {
    let (s, r, t) = m.to_scale_rotation_translation();
    let (x, y, z) = r.to_euler(glam::EulerRot::ZYX);
    json!({
        "translation": [t.x, t.y, t.z],
        "rotation_xyz_deg": [z.to_degrees(), y.to_degrees(), x.to_degrees()],
        "scale": [s.x, s.y, s.z],
    })
}

fn transforms(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    if !reference.format.has_hierarchy() {
        let verdict = Verdict::Skip { reason: "format carries no transforms (OBJ: world-space vertices)".into() };
        return Comparison { name: "transforms", verdict, detail: json!({}) };
    }
    let candidates = match conversions(reference) {
        Ok(c) => c,
        Err(reason) => return Comparison { name: "transforms", verdict: Verdict::Skip { reason }, detail: json!({}) },
    };
    let mut best: Option<(Comparison, usize)> = None;
    for conversion in candidates {
        let (c, passed) = transforms_under(tree, m, reference, name, &conversion);
        if best.as_ref().is_none_or(|(_, p)| passed > *p) {
            best = Some((c, passed));
        }
    }
    best.expect("at least one conversion").0
}

fn transforms_under(
    tree: &MaxTree<'_, '_>,
    m: &Matching,
    reference: &RefScene,
    name: &str,
    conversion: &Conversion,
) -> (Comparison, usize) {
    let conv = conversion.matrix;
    let (mut compared, mut off, mut unreadable, mut unmatched) = (0, 0, 0, 0);
    let (mut max_t, mut max_l) = (0.0f64, 0.0f64);
    let mut first: Option<Verdict> = None;
    let mut first_detail = Value::Null;
    let mut misses: Vec<String> = Vec::new();
    let mut unreadable_at: Option<&RefNode> = None;
    let mut animated: Vec<&str> = Vec::new();
    let mut roots_undeclared = 0;
    let mut animated_compared = 0;
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mx) = m.max_of[r] else {
            unmatched += 1;
            continue;
        };
        if reference.is_animated(r) {
            // The file's static pose is the animation's at the export time, unknown; the
            // curves give the pose at the start frame (`TimeSpanStart`, else the node's
            // first key), compared with pmcore's controllers sampled there. A node whose
            // curves are not all keyed at that time is left to `animation`.
            let start = reference.start_time.or_else(|| reference.key_times(r).first().copied()).unwrap_or(0);
            let Some(expected_ref) = reference.matrix_at(r, start) else {
                animated.push(&node.name);
                continue;
            };
            match max_local_at(tree, m, reference, r, max_ticks(start), conversion) {
                Ok(max_local) => {
                    compared += 1;
                    animated_compared += 1;
                    let (t, l) = matrix_error(&max_local, &expected_ref);
                    max_t = max_t.max(t);
                    max_l = max_l.max(l);
                    if (t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE) && first.is_none() {
                        off += 1;
                        let message = format!(
                            "node {:?} (animated, at the start frame): local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e})",
                            node.name
                        );
                        first_detail = json!({ "node": node.name, "max": describe(&max_local), "reference": describe(&expected_ref) });
                        first = Some(fail("t3-pairs-transforms", message, locator(name, node), node.offset));
                    } else if t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE {
                        off += 1;
                    }
                }
                Err(why) if why.contains("declares neither") => roots_undeclared += 1,
                Err(why) => {
                    unreadable += 1;
                    misses.push(format!("{}: {why}", node.name));
                    unreadable_at.get_or_insert(node);
                }
            }
            continue;
        }
        if node.parent.is_none() && !conversion.roots_comparable {
            roots_undeclared += 1;
            continue;
        }
        let index = tree.index;
        let o = &index.objects[tree.nodes[mx].storage];
        let mut unread = |why: String| {
            unreadable += 1;
            misses.push(format!("{}: {why}", node.name));
            unreadable_at.get_or_insert(node);
        };
        let world = match world_matrix(index, o) {
            Ok(w) => to_dmat(w),
            Err(e) => {
                unread(e.to_string());
                continue;
            }
        };
        // Local relative to the exported parent; roots carry the conversion.
        let local = match node.parent.map(|p| m.max_of[p]) {
            Some(Some(pm)) => match world_matrix(index, &index.objects[tree.nodes[pm].storage]) {
                Ok(pw) => to_dmat(pw).inverse() * world,
                Err(e) => {
                    unread(format!("(parent) {e}"));
                    continue;
                }
            },
            Some(None) => {
                unread("the reference parent has no Max node".into());
                continue;
            }
            None => world,
        };
        let expected = match (conversion.similarity, node.parent.is_none()) {
            (true, _) => conv * local * conv.inverse(),
            (false, true) => conv * local,
            (false, false) => local,
        };
        compared += 1;
        let (t, l) = matrix_error(&expected, &node.local);
        max_t = max_t.max(t);
        max_l = max_l.max(l);
        if t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE {
            off += 1;
            if first.is_none() {
                let message = format!(
                    "node {:?}: local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e})",
                    node.name
                );
                first_detail =
                    json!({ "node": node.name, "max": describe(&expected), "reference": describe(&node.local) });
                first = Some(fail("t3-pairs-transforms", message, locator(name, node), node.offset));
            }
        }
    }
    let detail = json!({
        "axes": conversion.note,
        "nodes_compared": compared,
        "nodes_off": off,
        "nodes_unreadable_in_max": unreadable,
        "nodes_without_max_node": unmatched,
        "animated_nodes_left_to_animation": animated,
        "animated_nodes_compared_at_start": animated_compared,
        "roots_not_compared_undeclared_axes": roots_undeclared,
        "max_translation_error": max_t,
        "max_linear_error": max_l,
        "first_difference": first_detail,
        "misses": misses.iter().take(20).collect::<Vec<_>>(),
    });
    let verdict = match (first, unreadable_at) {
        (Some(v), _) => v,
        (None, _) if compared == 0 && unreadable == 0 => Verdict::Skip {
            reason: if !animated.is_empty() {
                format!("every node is animated ({}): left to the animation comparison", animated.len())
            } else if roots_undeclared > 0 {
                conversion.note.clone()
            } else {
                "no reference node has a Max node".into()
            },
        },
        (None, Some(node)) => {
            let message = format!("{unreadable} node transform(s) not readable in Max: {}", misses[0]);
            fail("t3-pairs-transforms-unreadable", message, locator(name, node), node.offset)
        }
        (None, None) if animated.is_empty() && roots_undeclared == 0 => Verdict::pass(),
        (None, None) => Verdict::Pass {
            note: Some(format!(
                "{compared} node(s) equal; {} animated node(s) left to the animation comparison, {roots_undeclared} root(s) not placeable",
                animated.len()
            )),
        },
    };
    (Comparison { name: "transforms", verdict, detail }, compared - off)
}

/// Why one reference mesh was not compared, or how it differed.
#[derive(Clone, Debug, serde::Serialize)]
struct MeshMiss {
    node: String,
    class: &'static str,
    reason: String,
}

/// Axis conversions a file that declares none is tried under (OBJ, `.x`): none, and the
/// Z-up-to-Y-up turn `(x, y, z) → (x, z, −y)` (the OBJ exporter's "Flip YZ"). The one that
/// fits is reported; FBX files use their declared settings only.
fn geometry(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    let candidates: Vec<(DMat4, String)> = match reference.format {
        Format::Fbx(_) => {
            vec![(DMat4::IDENTITY, "FBX: vertices in Max object axes and units (conversion on root nodes only)".into())]
        }
        _ => conversions(reference).unwrap_or_default().into_iter().map(|c| (c.matrix, c.note)).collect(),
    };
    let mut best: Option<(Comparison, (usize, f64))> = None;
    for (conv, note) in candidates {
        let (mut c, score) = geometry_under(tree, m, reference, name, conv);
        if let Value::Object(map) = &mut c.detail {
            map.insert("axes".into(), json!(note));
        }
        if best.as_ref().is_none_or(|(_, s)| score.0 > s.0 || (score.0 == s.0 && score.1 < s.1)) {
            best = Some((c, score));
        }
    }
    best.expect("at least one candidate").0
}

/// Geometry under one axis conversion `conv`; the score is (meshes passed, worst error).
fn geometry_under(
    tree: &MaxTree<'_, '_>,
    m: &Matching,
    reference: &RefScene,
    name: &str,
    conv: DMat4,
) -> (Comparison, (usize, f64)) {
    // OBJ has no per-node transforms: its vertices are in world space.
    let world_space = matches!(reference.format, Format::Obj);
    let resolution = reference.position_resolution.unwrap_or(0.0) * 3f64.sqrt();
    let (mut meshes, mut passed, mut vertices_compared, mut triangulated_meshes) = (0, 0, 0usize, 0usize);
    let mut matched_as_set = 0usize;
    let (mut uv_compared, mut uv_not_in_max) = (0usize, 0usize);
    let mut other_corners: Vec<String> = Vec::new();
    let mut max_error = 0.0f64;
    let mut misses: Vec<MeshMiss> = Vec::new();
    let mut first: Option<Verdict> = None;
    let mut first_detail = Value::Null;
    let mut real_fail = false;
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mesh) = &node.mesh else { continue };
        meshes += 1;
        let miss = |class: &'static str, reason: String| MeshMiss { node: node.name.clone(), class, reason };
        let Some(mx) = m.max_of[r] else {
            misses.push(miss("no-max-node", "no Max node of that name".into()));
            continue;
        };
        let index = tree.index;
        let o = &index.objects[tree.nodes[mx].storage];
        // The evaluated mesh (pmcore::eval: stored buffers or primitive parameters, then
        // the modifier stack).
        let evaluated = pmcore::eval::evaluate_node(index, o, pmcore::eval::DEFAULT_BUDGET_VERTICES, false);
        let modifiers = evaluated.modifiers;
        let deformer = moving_modifier(index, o, &reference.format);
        let max_mesh = match evaluated.outcome {
            NodeOutcome::Evaluated(Evaluated::Mesh(mm)) => mm,
            NodeOutcome::Evaluated(Evaluated::CountOnly { note, .. }) => {
                misses.push(miss("count-only", format!("counts only, no positions: {note}")));
                continue;
            }
            NodeOutcome::Stopped(stop) => {
                let why = format!(
                    "evaluation stopped at {} (0x{:08x}, 0x{:08x}): {}",
                    stop.class_name, stop.class_id[0], stop.class_id[1], stop.why
                );
                misses.push(miss("not-evaluated", why));
                continue;
            }
            NodeOutcome::LeftOut(why) => {
                misses.push(miss("no-geometry", format!("the Max node is not geometry ({why})")));
                continue;
            }
        };
        let place = if world_space {
            match world_matrix(index, o) {
                Ok(w) => to_dmat(w) * to_dmat(object_offset(o).matrix()),
                Err(e) => {
                    misses.push(miss("transform-unreadable", e.to_string()));
                    continue;
                }
            }
        } else {
            to_dmat(object_offset(o).matrix())
        };
        let place = conv * place;
        let live: Vec<DVec3> = max_mesh.positions.iter().map(|p| place.transform_point3(p.as_dvec3())).collect();
        // A triangulated export (every reference polygon a triangle) is compared with the
        // triangles Max keeps for each face.
        let triangulated =
            mesh.polygons.iter().all(|p| p.len() == 3) && max_mesh.polygons.iter().any(|p| p.corners.len() > 3);
        let max_polys: Vec<Vec<u32>> = if triangulated {
            max_mesh.polygons.iter().flat_map(|p| p.mesh_triangles()).map(|t| t.to_vec()).collect()
        } else {
            max_mesh.polygons.iter().map(|p| p.corners.clone()).collect()
        };
        if triangulated {
            triangulated_meshes += 1;
        }
        let kind = match (max_mesh.rule, triangulated) {
            (FaceRule::Triangles, _) => "tri object",
            (FaceRule::Polygons, false) => "poly object",
            (FaceRule::Polygons, true) => "poly object (triangulated export)",
        };
        let stack_note = if modifiers > 0 { format!(" with {modifiers} modifier(s) evaluated") } else { String::new() };
        let counts = (live.len(), max_polys.len(), mesh.positions.len(), mesh.polygons.len());
        let difference = if counts.0 != counts.2 || counts.1 != counts.3 {
            let ref_tris: usize = mesh.polygons.iter().map(|p| p.len().saturating_sub(2)).sum();
            let max_tris: usize = max_polys.iter().map(|p| p.len().saturating_sub(2)).sum();
            Some((
                "counts",
                format!(
                    "{kind}{stack_note}: vertices {} vs reference {}, polygons {} vs {} (triangles {} vs {})",
                    counts.0, counts.2, counts.1, counts.3, max_tris, ref_tris
                ),
            ))
        } else {
            let reference_positions: Vec<DVec3> =
                mesh.positions.iter().map(|q| node.geometric.transform_point3(DVec3::from_array(*q))).collect();
            // Max rounds every vertex to f32 through matrices whose magnitude is the mesh's:
            // the error of a vertex near the origin scales with the mesh's extent, not with
            // its own length (cancellation), so the relative tolerance is taken against the
            // larger of the two.
            let extent = reference_positions.iter().chain(&live).fold(1.0f64, |m, p| m.max(p.abs().max_element()));
            let tolerance =
                |e: DVec3, a: DVec3| POSITION_TOLERANCE * e.length().max(a.length()).max(extent) + resolution;
            // (excess over the tolerance, relative error, vertex)
            let mut worst = (0.0f64, 0.0f64, 0usize);
            for (i, (e, a)) in live.iter().zip(&reference_positions).enumerate() {
                let err = (*e - *a).length();
                let excess = err / tolerance(*e, *a);
                if excess > worst.0 {
                    worst = (excess, err / e.length().max(a.length()).max(1.0), i);
                }
            }
            vertices_compared += live.len();
            let in_order = worst.0 <= 1.0 && max_polys.iter().zip(&mesh.polygons).all(|(a, b)| same_cycle(a, b));
            if in_order {
                max_error = max_error.max(worst.1);
                match (&max_mesh.uv, &mesh.uv, triangulated) {
                    (Some(max_uv), Some(ref_uv), false) => match compare_uv(&max_polys, max_uv, &mesh.polygons, ref_uv) {
                        Ok(n) => {
                            uv_compared += n;
                            None
                        }
                        Err((corner, m_uv, r_uv)) => Some((
                            "uv",
                            format!(
                                "{kind}{stack_note}: map channel 1 at polygon corner {corner}: {m_uv:?} in Max, {r_uv:?} in the reference"
                            ),
                        )),
                    },
                    (None, Some(_), _) => {
                        uv_not_in_max += 1;
                        None
                    }
                    _ => None,
                }
            } else if let Some((err, polygons_equal)) =
                match_as_set(&live, &max_polys, &reference_positions, &mesh.polygons, tolerance)
            {
                // Same points and faces in another order (pmcore's primitive builders do not
                // follow Max's vertex order): equal as geometry, counted.
                max_error = max_error.max(err);
                matched_as_set += 1;
                if !polygons_equal {
                    // Counts and positions agree; the faces join the same points another way
                    // (e.g. quads split along the other diagonal): reported, not a count or
                    // position difference.
                    other_corners.push(node.name.clone());
                }
                None
            } else if worst.0 > 1.0 {
                max_error = max_error.max(worst.1);
                let i = worst.2;
                let (e, a) = (live[i], reference_positions[i]);
                if first_detail.is_null() {
                    first_detail =
                        json!({ "node": node.name, "vertex": i, "max": e.to_array(), "reference": a.to_array() });
                }
                Some((
                    "positions",
                    format!(
                        "{kind}{stack_note}: vertex {i} at {:?} in Max, {:?} in the reference (relative error {:.3e})",
                        e.to_array(),
                        a.to_array(),
                        worst.1
                    ),
                ))
            } else {
                // Positions agree in order; only the corner lists differ.
                max_error = max_error.max(worst.1);
                other_corners.push(node.name.clone());
                None
            }
        };
        match difference {
            None => passed += 1,
            Some(("positions", message)) if deformer.is_some() => {
                // Counts agree; pmcore::eval passes this modifier's topology through
                // without moving the vertices, so Max's positions are not known here.
                let (class_id, class_name) = deformer.unwrap_or_default();
                misses.push(miss(
                    "deformer-not-evaluated",
                    format!(
                        "{class_name} (0x{:08x}, 0x{:08x}) moves vertices and pmcore::eval passes it through: positions not comparable ({message})",
                        class_id[0], class_id[1]
                    ),
                ));
            }
            Some((what, message)) => {
                real_fail = true;
                if first.is_none() {
                    let message = format!("mesh {:?}: {message}", node.name);
                    first = Some(fail("t3-pairs-geometry", message, locator(name, node), node.offset));
                }
                misses.push(miss(what_class(what), message));
            }
        }
    }
    let mut by_class: BTreeMap<&str, usize> = BTreeMap::new();
    for miss in &misses {
        *by_class.entry(miss.class).or_default() += 1;
    }
    let detail = json!({
        "tolerance_relative": POSITION_TOLERANCE,
        "text_resolution": reference.position_resolution,
        "meshes": meshes,
        "meshes_passed": passed,
        "meshes_triangulated_by_the_exporter": triangulated_meshes,
        "meshes_equal_in_another_vertex_order": matched_as_set,
        "meshes_with_other_polygon_corners": other_corners,
        "vertices_compared": vertices_compared,
        "max_position_error": max_error,
        "uv_corners_compared": uv_compared,
        "meshes_uv_not_evaluated_in_max": uv_not_in_max,
        "misses_by_class": by_class,
        "misses": misses.iter().take(20).collect::<Vec<_>>(),
        "first_difference": first_detail,
    });
    let verdict = if real_fail {
        first.unwrap_or_else(Verdict::pass)
    } else if meshes == 0 {
        Verdict::Skip { reason: "the reference holds no mesh".into() }
    } else if let Some(miss) = misses.first() {
        let reason = format!(
            "{} of {meshes} mesh(es) not comparable ({}): {}: {}",
            misses.len(),
            miss.class,
            miss.node,
            miss.reason
        );
        Verdict::Skip { reason }
    } else if other_corners.is_empty() {
        Verdict::pass()
    } else {
        let note = format!(
            "counts and positions equal; {} mesh(es) join the same vertices into other polygons ({})",
            other_corners.len(),
            other_corners.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
        );
        Verdict::Pass { note: Some(note) }
    };
    (Comparison { name: "geometry", verdict, detail }, (passed, max_error))
}

/// Matches the Max vertices to the reference vertices as point sets (each reference vertex
/// takes the nearest unused Max vertex within `tolerance`, searched in a grid of cells the
/// size of the largest tolerance) and compares the polygons through that map as multisets
/// of cycles. `None` when some vertex has no partner; else the largest relative error and
/// whether the polygons agree.
fn match_as_set(
    max_positions: &[DVec3],
    max_polygons: &[Vec<u32>],
    reference_positions: &[DVec3],
    reference_polygons: &[Vec<u32>],
    tolerance: impl Fn(DVec3, DVec3) -> f64,
) -> Option<(f64, bool)> {
    let cell =
        max_positions.iter().zip(reference_positions).map(|(a, b)| tolerance(*a, *b)).fold(0.0f64, f64::max).max(1e-12);
    let key = |p: DVec3| ((p.x / cell).floor() as i64, (p.y / cell).floor() as i64, (p.z / cell).floor() as i64);
    let mut grid: std::collections::HashMap<(i64, i64, i64), Vec<usize>> = std::collections::HashMap::new();
    for (i, p) in max_positions.iter().enumerate() {
        grid.entry(key(*p)).or_default().push(i);
    }
    let mut used = vec![false; max_positions.len()];
    let mut ref_to_max = vec![0u32; reference_positions.len()];
    let mut worst = 0.0f64;
    for (r, p) in reference_positions.iter().enumerate() {
        let (x, y, z) = key(*p);
        let mut best: Option<(f64, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    for &i in grid.get(&(x + dx, y + dy, z + dz)).map(Vec::as_slice).unwrap_or(&[]) {
                        let d = (max_positions[i] - *p).length();
                        if !used[i] && d <= tolerance(max_positions[i], *p) && best.is_none_or(|(b, _)| d < b) {
                            best = Some((d, i));
                        }
                    }
                }
            }
        }
        let (d, i) = best?;
        used[i] = true;
        ref_to_max[r] = i as u32;
        worst = worst.max(d / p.length().max(max_positions[i].length()).max(1.0));
    }
    let canonical = |cycle: Vec<u32>| {
        let start = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
        cycle[start..].iter().chain(&cycle[..start]).copied().collect::<Vec<u32>>()
    };
    let mut a: Vec<Vec<u32>> = max_polygons.iter().map(|p| canonical(p.clone())).collect();
    let mut b: Vec<Vec<u32>> =
        reference_polygons.iter().map(|p| canonical(p.iter().map(|&v| ref_to_max[v as usize]).collect())).collect();
    a.sort();
    b.sort();
    Some((worst, a == b))
}

/// The first modifier of a node's stack (base upward) that moves vertices and that `pmcore::eval`
/// applies as topology pass-through (or whose output it does not compute: Cloth) — the class
/// catalogue's `moves_vertices` effect — with its Class ID and a name for the message: a node under
/// one has Max's counts but not Max's positions.
fn moving_modifier(
    index: &SceneIndex<'_>,
    node: &pmcore::model::scene_index::SceneObject<'_>,
    format: &Format,
) -> Option<([u32; 2], String)> {
    let (_, modifiers) = pmcore::eval::stack::stack_with_data(index, node)?;
    modifiers.iter().rev().find_map(|m| {
        let id = m.object.class.as_ref()?.class_id;
        // The FBX exporter writes a skinned mesh as it is below the Skin (the bind pose) and
        // the pose in the clusters and bones: `Green@Run.FBX`'s 278 vertices equal the
        // Editable Poly under Green's Skin while, at the file's start frame, its bones stand
        // off their bind matrices (B-Root 10.9 units lower). The Skin moves nothing there.
        if id == SKIN_CLASS_ID && matches!(format, Format::Fbx(_)) {
            return None;
        }
        // A Cloth whose saved simulation state `pmcore::eval::cloth` reads is applied too
        // (when its vertex count differs, evaluation keeps the input and this stays a skip).
        if id == ids::CLOTH && pmcore::eval::cloth::simulated_positions(m.mod_app).is_some() {
            return None;
        }
        classes::moves_vertices(id).map(|c| (c.id, c.name.to_string()))
    })
}

/// UV tolerance: map coordinates are `f32` in Max and of order 1 (1e-5 = ~100 roundings).
pub const UV_TOLERANCE: f64 = 1e-5;

/// Map channel 1 per polygon corner, for polygons already known to be the same cycles in the
/// same order: each Max polygon is aligned on its reference polygon's first corner. `Ok`
/// with the corners compared, or the first corner (running index) that differs with both
/// sides.
#[allow(clippy::type_complexity)]
fn compare_uv(
    max_polygons: &[Vec<u32>],
    max_uv: &pmcore::eval::mesh::MapChannel,
    reference_polygons: &[Vec<u32>],
    reference_uv: &[[f64; 2]],
) -> Result<usize, (usize, [f64; 2], [f64; 2])> {
    let mut corner = 0usize;
    for (i, (mp, rp)) in max_polygons.iter().zip(reference_polygons).enumerate() {
        let shift = (0..mp.len()).find(|&s| mp.iter().cycle().skip(s).take(mp.len()).eq(rp.iter())).unwrap_or(0);
        for k in 0..rp.len() {
            let m = max_uv
                .faces
                .get(i)
                .and_then(|f| f.get((k + shift) % mp.len().max(1)))
                .and_then(|&v| max_uv.vertices.get(v as usize))
                .map(|v| [v.x as f64, v.y as f64]);
            let r = reference_uv.get(corner + k).copied();
            match (m, r) {
                (Some(m), Some(r)) if (m[0] - r[0]).abs() <= UV_TOLERANCE && (m[1] - r[1]).abs() <= UV_TOLERANCE => {}
                (m, r) => return Err((corner + k, m.unwrap_or([f64::NAN; 2]), r.unwrap_or([f64::NAN; 2]))),
            }
        }
        corner += rp.len();
    }
    Ok(corner)
}

fn what_class(what: &str) -> &'static str {
    match what {
        "counts" => "count-difference",
        "positions" => "position-difference",
        "uv" => "uv-difference",
        _ => "polygon-difference",
    }
}

/// Same polygon up to the starting corner.
fn same_cycle(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && (a.is_empty() || (0..a.len()).any(|s| a.iter().cycle().skip(s).take(a.len()).eq(b.iter())))
}

/// Max's side of a reference node's local matrix at Max time `tick`: relative to the Max
/// node of its reference parent, or `conversion · world` for a root.
fn max_local_at(
    tree: &MaxTree<'_, '_>,
    m: &Matching,
    reference: &RefScene,
    r: usize,
    tick: f64,
    conversion: &Conversion,
) -> Result<DMat4, String> {
    let index = tree.index;
    let mx = m.max_of[r].ok_or("no Max node of that name")?;
    let world = world_matrix_at(index, &index.objects[tree.nodes[mx].storage], tick).map_err(|e| e.to_string())?;
    let world = to_dmat(world);
    match reference.nodes[r].parent.map(|p| m.max_of[p]) {
        Some(Some(pm)) => {
            let parent = world_matrix_at(index, &index.objects[tree.nodes[pm].storage], tick)
                .map_err(|e| format!("(parent) {e}"))?;
            Ok(to_dmat(parent).inverse() * world)
        }
        Some(None) => Err("the reference parent has no Max node".into()),
        None if conversion.similarity => Ok(conversion.matrix * world * conversion.matrix.inverse()),
        None if !conversion.roots_comparable => Err(conversion.note.clone()),
        None => Ok(conversion.matrix * world),
    }
}

/// Animation: every animated reference node's local matrix at each of its key times (the
/// values the file stores, no interpolation on its side) against pmcore's controllers
/// sampled at the same time (`pmcore::model::keys`), under the same axes, units and
/// tolerances as `transforms`.
fn animation(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    let animated_curves: Vec<_> = reference.curves.iter().filter(|c| c.times.len() >= 2).collect();
    let keys: usize = animated_curves.iter().map(|c| c.times.len()).sum();
    let on_matched = animated_curves.iter().filter(|c| m.max_of[c.node].is_some()).count();
    let mut detail = json!({
        "curves": animated_curves.len(),
        "keys": keys,
        "curves_on_matched_nodes": on_matched,
        "keys_compared": 0,
        "tolerance": { "translation_relative": POSITION_TOLERANCE, "rotation_scale": LINEAR_TOLERANCE },
    });
    if !reference.format.has_animation() {
        return Comparison {
            name: "animation",
            verdict: Verdict::Skip { reason: "format carries no animation curves".into() },
            detail,
        };
    }
    if animated_curves.is_empty() {
        return Comparison {
            name: "animation",
            verdict: Verdict::Skip { reason: "the reference has no animation curve with two or more keys".into() },
            detail,
        };
    }
    let conversion = match conversions(reference).map(|c| c.into_iter().next()) {
        Ok(Some(c)) => c,
        Ok(None) | Err(_) => {
            return Comparison {
                name: "animation",
                verdict: Verdict::Skip { reason: "the file's axis conversion is not modelled".into() },
                detail,
            }
        }
    };
    let mut nodes: Vec<usize> = animated_curves.iter().map(|c| c.node).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let (mut poses, mut poses_off, mut keys_compared, mut times_not_keyed) = (0usize, 0usize, 0usize, 0usize);
    let (mut max_t, mut max_l) = (0.0f64, 0.0f64);
    let mut misses: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut first: Option<Verdict> = None;
    let mut first_detail = Value::Null;
    let mut unreadable: Option<(String, u64)> = None;
    for &r in &nodes {
        let node = &reference.nodes[r];
        if m.max_of[r].is_none() {
            misses.entry("no-max-node".into()).or_default().push(node.name.clone());
            continue;
        }
        for time in reference.key_times(r) {
            let Some(expected_ref) = reference.matrix_at(r, time) else {
                times_not_keyed += 1;
                continue;
            };
            let tick = max_ticks(time);
            let max_local = match max_local_at(tree, m, reference, r, tick, &conversion) {
                Ok(l) => l,
                Err(why) if why.contains("shape not modelled") => {
                    // Between two keys whose in-between shape is not modelled: this pose is
                    // not compared; the keys themselves still are.
                    let list = misses.entry("in-between-not-modelled".into()).or_default();
                    let entry = format!("{}: {why}", node.name);
                    if !list.contains(&entry) {
                        list.push(entry);
                    }
                    continue;
                }
                Err(why) => {
                    let class = if why.contains("not an evaluable") || why.contains("not sampled") {
                        "controller-not-sampled"
                    } else if why.contains("declares neither") {
                        "axes-undeclared"
                    } else {
                        "max-side-unreadable"
                    };
                    let list = misses.entry(class.into()).or_default();
                    let entry = format!("{}: {why}", node.name);
                    if !list.contains(&entry) {
                        list.push(entry.clone());
                    }
                    if class != "axes-undeclared" {
                        unreadable.get_or_insert((entry, node.offset));
                    }
                    break;
                }
            };
            poses += 1;
            let keyed_here = reference.curves.iter().filter(|c| c.node == r && c.times.contains(&time)).count();
            keys_compared += keyed_here;
            let (t, l) = matrix_error(&max_local, &expected_ref);
            max_t = max_t.max(t);
            max_l = max_l.max(l);
            if t > POSITION_TOLERANCE || l > LINEAR_TOLERANCE {
                poses_off += 1;
                if first.is_none() {
                    let at = reference
                        .curves
                        .iter()
                        .find(|c| c.node == r && c.times.contains(&time))
                        .map(|c| c.offset)
                        .unwrap_or(node.offset);
                    let index = tree.index;
                    let keyed = m.max_of[r]
                        .is_some_and(|mx| pmcore::model::keys::has_keys(index, &index.objects[tree.nodes[mx].storage]));
                    let message = format!(
                        "node {:?} at frame {:.2} (tick {tick:.1}): local transform differs (translation error {t:.3e} relative, rotation/scale error {l:.3e}){}",
                        node.name,
                        tick / 160.0,
                        if keyed { "" } else { "; the Max node holds no keys (the .max is not the animated scene state)" }
                    );
                    first_detail = json!({ "node": node.name, "fbx_time": time, "max_tick": tick,
                        "max": describe(&max_local), "reference": describe(&expected_ref) });
                    first = Some(fail("t3-pairs-animation", message, locator(name, node), at));
                }
            }
        }
    }
    if let Value::Object(map) = &mut detail {
        map.insert("axes".into(), json!(conversion.note));
        map.insert("animated_nodes".into(), json!(nodes.len()));
        map.insert("poses_compared".into(), json!(poses));
        map.insert("poses_off".into(), json!(poses_off));
        map.insert("keys_compared".into(), json!(keys_compared));
        map.insert("times_not_keyed_on_every_curve".into(), json!(times_not_keyed));
        map.insert("max_translation_error".into(), json!(max_t));
        map.insert("max_linear_error".into(), json!(max_l));
        map.insert("misses".into(), json!(misses));
        map.insert("first_difference".into(), first_detail);
    }
    let verdict = match (first, unreadable) {
        (Some(v), _) => v,
        (None, Some((why, offset))) => fail(
            "t3-pairs-animation-unreadable",
            format!("a node's controllers cannot be sampled in Max: {why}"),
            format!("@reference/{name}/{}", why.split(':').next().unwrap_or_default()),
            offset,
        ),
        (None, None) if poses == 0 => Verdict::Skip {
            reason: match misses.iter().next() {
                Some((class, list)) => format!("no pose compared ({class}): {}", list.join("; ")),
                None => "no key time is keyed on every curve of its node".into(),
            },
        },
        (None, None) if misses.is_empty() => Verdict::Pass {
            note: Some(format!("{poses} pose(s) of {} node(s) equal, {keys_compared} key(s)", nodes.len())),
        },
        (None, None) => Verdict::Pass {
            note: Some(format!(
                "{poses} pose(s) equal, {keys_compared} key(s); not compared: {}",
                misses.iter().map(|(k, v)| format!("{k} ({})", v.len())).collect::<Vec<_>>().join(", ")
            )),
        },
    };
    Comparison { name: "animation", verdict, detail }
}

/// Skin modifier Class ID, as the pairs corpus stores it (`(0x0095c723, 0x00015666)`;
/// the payload-format notes give `0x0095c6a3`, the real files win).
pub use pmcore::classes::ids::SKIN as SKIN_CLASS_ID;

/// The weight below which Max's FBX exporter leaves a bone's weight out of its cluster
/// (without renormalising the rest). Measured on `Blue.FBX` against `wild/tae8838__blue.max`:
/// the 9 stored weights left out are all below 9.47e-5 (down to 1.6e-9), the smallest one
/// written is 1.046e-4 — so a Max weight ≥ 1e-4 must be in its cluster, a smaller one may be
/// absent (and, if present, must still agree).
pub const FBX_WEIGHT_FLOOR: f64 = 1e-4;

/// Weight tolerance (absolute; weights are at most 1): Max normalises `f32` influences and the
/// exporter widens them, so a few `f32` roundings (6e-8 each). Measured largest difference on
/// `Blue.FBX`: 1.1e-7 relative.
pub const WEIGHT_TOLERANCE: f64 = 1e-6;

/// A node's Skin modifier: its bones (the nodes its references point to, in slot order —
/// each bone slot is followed by its envelope controllers; a stored weight's bone index is a
/// position in this list) and its per-node data on the derived object.
fn skin_of<'a, 'b>(
    tree: &'b MaxTree<'b, 'a>,
    storage: usize,
) -> Option<(Vec<String>, Option<&'a pmcore::chunk::Chunk<'a>>)> {
    let index = tree.index;
    let (_, modifiers) = pmcore::eval::stack::stack_with_data(index, &index.objects[storage])?;
    let skin = modifiers.into_iter().find(|m| m.object.class.as_ref().is_some_and(|c| c.class_id == SKIN_CLASS_ID))?;
    let bones = skin
        .object
        .references()
        .into_iter()
        .filter_map(|(_, t)| t.and_then(|t| index.get(t)))
        .filter(|o| o.is_node())
        .map(|o| o.node_name().unwrap_or_default())
        .collect();
    Some((bones, skin.mod_app))
}

/// Counters of one weight comparison.
#[derive(Default)]
struct WeightTally {
    compared: usize,
    below_floor_absent: usize,
    max_error: f64,
}

/// Compares a Skin's stored weights with the reference clusters of `s`; the first difference
/// as `(message, cluster offset)`.
fn compare_weights(
    bones: &[String],
    stored: &[pmcore::model::skin::VertexInfluences],
    s: &crate::scene::RefSkin,
    tally: &mut WeightTally,
) -> Option<(String, Option<u64>)> {
    let mut reference: BTreeMap<(String, u32), (f64, u64)> = BTreeMap::new();
    for c in &s.clusters {
        for (&v, &w) in c.indices.iter().zip(&c.weights) {
            reference.insert((c.bone.to_lowercase(), v), (w, c.offset));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (v, vertex) in stored.iter().enumerate() {
        for (b, w) in vertex.weights() {
            let Some(bone) = bones.get(b as usize) else {
                return Some((
                    format!("vertex {v}: stored bone index {b} outside the Skin's {} bone(s)", bones.len()),
                    None,
                ));
            };
            let key = (bone.to_lowercase(), v as u32);
            seen.insert(key.clone());
            match reference.get(&key) {
                Some(&(r, offset)) => {
                    let error = (r - w).abs();
                    tally.max_error = tally.max_error.max(error);
                    tally.compared += 1;
                    if error > WEIGHT_TOLERANCE {
                        return Some((
                            format!("vertex {v}, bone {bone:?}: weight {w:.7} in Max, {r:.7} in the reference"),
                            Some(offset),
                        ));
                    }
                }
                None if w < FBX_WEIGHT_FLOOR => tally.below_floor_absent += 1,
                None => {
                    let offset = s.clusters.iter().find(|c| c.bone.eq_ignore_ascii_case(bone)).map(|c| c.offset);
                    return Some((
                        format!("vertex {v}, bone {bone:?}: weight {w:.7} in Max, none in the reference"),
                        offset,
                    ));
                }
            }
        }
    }
    reference.iter().find(|(k, _)| !seen.contains(*k)).map(|((bone, v), &(r, offset))| {
        (format!("vertex {v}, bone {bone:?}: weight {r:.7} in the reference, none in Max"), Some(offset))
    })
}

fn skin(tree: &MaxTree<'_, '_>, m: &Matching, reference: &RefScene, name: &str) -> Comparison {
    let clusters: usize = reference.skins.iter().map(|s| s.clusters.len()).sum();
    let weights: usize = reference.skins.iter().flat_map(|s| &s.clusters).map(|c| c.weights.len()).sum();
    let mut detail = json!({ "skins": reference.skins.len(), "clusters": clusters, "weights": weights });
    if reference.skins.is_empty() {
        return Comparison {
            name: "skin",
            verdict: Verdict::Skip { reason: "the reference has no skin deformer".into() },
            detail,
        };
    }
    let mut first: Option<Verdict> = None;
    let (mut skins_compared, mut bones_compared) = (0, 0);
    let mut tally = WeightTally::default();
    let mut weights_not_stored: Vec<String> = Vec::new();
    for s in &reference.skins {
        let node = &reference.nodes[s.node];
        let Some(mx) = m.max_of[s.node] else {
            first.get_or_insert_with(|| {
                fail(
                    "t3-pairs-skin",
                    format!("skinned node {:?} has no Max node", node.name),
                    locator(name, node),
                    node.offset,
                )
            });
            continue;
        };
        let Some((bones, mod_app)) = skin_of(tree, tree.nodes[mx].storage) else {
            let message = format!(
                "skinned node {:?}: no Skin modifier (Class ID 0x0095c723, 0x00015666) on the Max node",
                node.name
            );
            first.get_or_insert_with(|| fail("t3-pairs-skin", message, locator(name, node), node.offset));
            continue;
        };
        skins_compared += 1;
        let fbx: Vec<String> = s.clusters.iter().map(|c| c.bone.clone()).collect();
        bones_compared += fbx.len();
        let missing: Vec<&String> = bones.iter().filter(|b| !fbx.iter().any(|f| f.eq_ignore_ascii_case(b))).collect();
        let extra: Vec<&String> = fbx.iter().filter(|f| !bones.iter().any(|b| b.eq_ignore_ascii_case(f))).collect();
        if !missing.is_empty() || !extra.is_empty() {
            let at = s.clusters.iter().find(|c| extra.contains(&&c.bone)).map(|c| c.offset).unwrap_or(node.offset);
            let message = format!(
                "skin of {:?}: bones of the Max Skin modifier {bones:?}, clusters of the reference {fbx:?} (missing {missing:?}, extra {extra:?})",
                node.name
            );
            first.get_or_insert_with(|| fail("t3-pairs-skin", message, locator(name, node), at));
            continue;
        }
        let stored = match mod_app.map(pmcore::model::skin::vertex_influences) {
            Some(Ok(Some(stored))) => stored,
            Some(Ok(None)) | None => {
                weights_not_stored.push(node.name.clone());
                continue;
            }
            Some(Err(e)) => {
                let message = format!("skin of {:?}: the Max Skin's weights are unreadable: {e}", node.name);
                first
                    .get_or_insert_with(|| fail("t3-pairs-skin-unreadable", message, locator(name, node), node.offset));
                continue;
            }
        };
        if let Some((what, offset)) = compare_weights(&bones, &stored, s, &mut tally) {
            let message = format!("skin of {:?}: {what}", node.name);
            first.get_or_insert_with(|| {
                fail("t3-pairs-skin", message, locator(name, node), offset.unwrap_or(node.offset))
            });
        }
    }
    if let Value::Object(map) = &mut detail {
        map.insert("skins_compared".into(), json!(skins_compared));
        map.insert("bones_compared".into(), json!(bones_compared));
        map.insert("weights_compared".into(), json!(tally.compared));
        map.insert("max_weight_error".into(), json!(tally.max_error));
        map.insert("weights_below_export_floor_absent".into(), json!(tally.below_floor_absent));
        map.insert("skins_without_stored_weights".into(), json!(weights_not_stored));
        map.insert(
            "tolerance".into(),
            json!({ "weight_absolute": WEIGHT_TOLERANCE, "export_floor": FBX_WEIGHT_FLOOR }),
        );
    }
    let verdict = first.unwrap_or_else(|| {
        let mut note = format!("bone lists equal; {} weight(s) equal", tally.compared);
        if !weights_not_stored.is_empty() {
            note.push_str(&format!(
                "; {weights} reference weight(s) not compared: the Max Skin of {weights_not_stored:?} stores no weight table (Max computes its weights from the bone envelopes, not modelled)"
            ));
        }
        Verdict::Pass { note: Some(note) }
    });
    Comparison { name: "skin", verdict, detail }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_clash_suffix_strips_only_its_own_form() {
        assert_eq!(strip_name_clash("B-L-FootFront_ncl1_1"), Some("B-L-FootFront"));
        assert_eq!(strip_name_clash("Box_ncl12_3"), Some("Box"));
        assert_eq!(strip_name_clash("Box_nclx_1"), None);
        assert_eq!(strip_name_clash("_ncl1_1"), None);
        assert_eq!(strip_name_clash("Box001"), None);
    }

    #[test]
    fn point_sets_match_in_any_order_and_polygons_through_the_map() {
        let max = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::ONE];
        let reference = [DVec3::ONE, DVec3::Y, DVec3::ZERO, DVec3::X];
        // Max triangle (0, 1, 2) is reference (2, 3, 1).
        let tol = |_: DVec3, _: DVec3| 1e-6;
        assert_eq!(match_as_set(&max, &[vec![0, 1, 2]], &reference, &[vec![2, 3, 1]], tol), Some((0.0, true)));
        assert_eq!(match_as_set(&max, &[vec![0, 1, 2]], &reference, &[vec![2, 1, 3]], tol), Some((0.0, false)));
        let moved = [DVec3::ONE, DVec3::Y, DVec3::ZERO, DVec3::new(1.1, 0.0, 0.0)];
        assert_eq!(match_as_set(&max, &[], &moved, &[], tol), None);
    }

    #[test]
    fn uv_follow_the_reference_polygon_start_corner() {
        // A unit quad whose map vertex k sits at corner k; the reference writes the same
        // polygon from corner 2, so its corner uvs start at (1, 1).
        let max_uv = pmcore::eval::mesh::MapChannel {
            vertices: vec![
                glam::Vec2::new(0.0, 0.0),
                glam::Vec2::new(1.0, 0.0),
                glam::Vec2::new(1.0, 1.0),
                glam::Vec2::new(0.0, 1.0),
            ],
            faces: vec![vec![0, 1, 2, 3]],
        };
        let reference = [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]];
        assert_eq!(compare_uv(&[vec![0, 1, 2, 3]], &max_uv, &[vec![2, 3, 0, 1]], &reference), Ok(4));
        let moved = [[1.0, 1.0], [0.0, 1.0], [0.0, 0.5], [1.0, 0.0]];
        assert_eq!(
            compare_uv(&[vec![0, 1, 2, 3]], &max_uv, &[vec![2, 3, 0, 1]], &moved),
            Err((2, [0.0, 0.0], [0.0, 0.5]))
        );
    }

    #[test]
    fn cycles_compare_up_to_the_start_corner() {
        assert!(same_cycle(&[1, 2, 3, 4], &[3, 4, 1, 2]));
        assert!(!same_cycle(&[1, 2, 3, 4], &[4, 3, 2, 1]));
        assert!(!same_cycle(&[1, 2, 3], &[1, 2, 3, 4]));
    }

    #[test]
    fn linear_error_is_relative_to_the_axis_length_even_below_one() {
        // A root scaled 0.0254 (inches to metres) turned by 0.01 rad: the columns move by
        // 0.0254 · 0.01, which is 0.01 of their length — not 2.5e-4 of a unit.
        let a = DMat4::from_scale(DVec3::splat(0.0254));
        let b = DMat4::from_rotation_z(0.01) * a;
        let (_, l) = matrix_error(&a, &b);
        assert!((l - 0.01).abs() < 1e-4, "{l}");
    }

    #[test]
    fn matrix_error_is_relative_in_translation() {
        let a = DMat4::from_translation(DVec3::new(1000.0, 0.0, 0.0));
        let b = DMat4::from_translation(DVec3::new(1000.001, 0.0, 0.0));
        let (t, l) = matrix_error(&a, &b);
        assert!((t - 1e-6).abs() < 1e-9 && l == 0.0, "{t} {l}");
    }
}
