//! From FBX records to a [`RefScene`]: models, their parents, local transforms, meshes,
//! animation curves and skin clusters, for both object models 3ds Max wrote:
//!
//! - **7.x**: objects carry an `i64` id (`Model: id, "name\0\x01Model", "Mesh"`), links are
//!   `Connections/C: "OO", child, parent` or `"OP", child, parent, property`; properties in
//!   `Properties70/P: name, type, label, flags, values…`; geometry in `Geometry` objects;
//!   animation in `AnimationCurveNode` (linked to a model's `Lcl Translation` …) and
//!   `AnimationCurve` (`KeyTime`, `KeyValueFloat`, linked as `d|X` …).
//! - **6.x**: objects are named (`Model: "name\0\x01Model", "Mesh"`), links are
//!   `Connections/Connect: "OO", child name, parent name`; properties in
//!   `Properties60/Property: name, type, flags, values…`; the mesh sits in its model;
//!   animation in `Takes/Take/Model/Channel "Transform"/Channel T|R|S/Channel X|Y|Z/Key`.

use super::binary::{Document, FbxError, Node, Property};
use crate::scene::{
    euler_matrix, Axes, FbxTransform, Format, RefCluster, RefCurve, RefMesh, RefNode, RefScene, RefSkin,
};
use glam::{DMat4, DVec3};
use std::collections::HashMap;

/// Why records did not make a scene.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SceneError {
    /// The records did not read.
    #[error(transparent)]
    Records(#[from] FbxError),
    /// No `Objects` record.
    #[error("no Objects record")]
    NoObjects,
    /// A mesh whose arrays do not agree.
    #[error("mesh of {node:?} at offset {offset}: {what}")]
    BadMesh {
        /// Node name.
        node: String,
        /// Record offset.
        offset: u64,
        /// What was wrong.
        what: String,
    },
}

/// Model kinds the FBX 6.0 SDK adds to every file by itself (the "producer" cameras and
/// their switcher): no Max node stands for them.
const PRODUCER_KINDS: [&str; 1] = ["CameraSwitcher"];
const PRODUCER_CAMERAS: [&str; 7] = [
    "Producer Perspective",
    "Producer Top",
    "Producer Bottom",
    "Producer Front",
    "Producer Back",
    "Producer Right",
    "Producer Left",
];

/// Link between two objects: kind (`OO`, `OP`), child key, parent key, property.
type Link = (String, String, String, Option<String>);

/// Reads a binary FBX file into a scene.
pub fn read_scene(bytes: &[u8]) -> Result<RefScene, SceneError> {
    let doc = super::binary::read(bytes)?;
    scene_of(&doc)
}

/// Object name without its `\0\x01Class` suffix (7.x `Name\0\x01Model`, 6.x the same; an
/// older `Model::Name` spelling is also stripped).
pub fn object_name(raw: &[u8]) -> String {
    let text = String::from_utf8_lossy(raw);
    if let Some(i) = text.find("\0\u{1}") {
        return text[..i].to_string();
    }
    match text.split_once("::") {
        Some((_, name)) => name.to_string(),
        None => text.into_owned(),
    }
}

/// The key an object is linked by: its id (7.x) or its full name (6.x).
fn key_of(p: Option<&Property>, legacy: bool) -> Option<String> {
    let p = p?;
    if legacy {
        p.as_bytes().map(|b| String::from_utf8_lossy(b).into_owned())
    } else {
        p.as_i64().map(|id| format!("#{id}"))
    }
}

/// The object's class word (`Mesh`, `Null`, `Skin` …): its last string property.
fn object_kind(node: &Node) -> String {
    node.properties.iter().rev().find_map(Property::as_text).unwrap_or_default()
}

/// Named properties of a 7.x `Properties70` or 6.x `Properties60` block: name → values.
fn properties(node: &Node) -> HashMap<String, Vec<Property>> {
    let mut out = HashMap::new();
    for block in node.children.iter().filter(|c| c.name == "Properties70" || c.name == "Properties60") {
        let skip = if block.name == "Properties70" { 4 } else { 3 };
        for p in block.children.iter().filter(|c| c.name == "P" || c.name == "Property") {
            if let Some(name) = p.properties.first().and_then(Property::as_text) {
                out.insert(name, p.properties.iter().skip(skip).cloned().collect());
            }
        }
    }
    out
}

fn vec3(props: &HashMap<String, Vec<Property>>, name: &str, default: [f64; 3]) -> [f64; 3] {
    match props.get(name).map(|v| v.iter().filter_map(Property::as_f64).collect::<Vec<_>>()) {
        Some(v) if v.len() >= 3 => [v[0], v[1], v[2]],
        _ => default,
    }
}

fn number(props: &HashMap<String, Vec<Property>>, name: &str) -> Option<f64> {
    props.get(name).and_then(|v| v.first()).and_then(Property::as_f64)
}

/// The transform properties of a model (FBX's local matrix is built from them).
fn fbx_transform(props: &HashMap<String, Vec<Property>>) -> FbxTransform {
    let v = |name: &str| vec3(props, name, [0.0; 3]);
    FbxTransform {
        lcl: [v("Lcl Translation"), v("Lcl Rotation"), vec3(props, "Lcl Scaling", [1.0; 3])],
        rotation_order: number(props, "RotationOrder").unwrap_or(0.0) as i64,
        pre: v("PreRotation"),
        post: v("PostRotation"),
        rotation_offset: v("RotationOffset"),
        rotation_pivot: v("RotationPivot"),
        scaling_offset: v("ScalingOffset"),
        scaling_pivot: v("ScalingPivot"),
    }
}

fn geometric_matrix(props: &HashMap<String, Vec<Property>>) -> DMat4 {
    DMat4::from_translation(DVec3::from_array(vec3(props, "GeometricTranslation", [0.0; 3])))
        * euler_matrix(vec3(props, "GeometricRotation", [0.0; 3]), 0)
        * DMat4::from_scale(DVec3::from_array(vec3(props, "GeometricScaling", [1.0; 3])))
}

fn settings<'a>(doc: &'a Document, objects: &'a Node) -> Option<HashMap<String, Vec<Property>>> {
    doc.node("GlobalSettings").or_else(|| objects.child("GlobalSettings")).map(properties)
}

fn axes(p: &HashMap<String, Vec<Property>>) -> Option<Axes> {
    let int = |name: &str| number(p, name).map(|v| v as i64);
    let up = (int("UpAxis")?, int("UpAxisSign").unwrap_or(1));
    Some(Axes {
        up,
        front: (int("FrontAxis").unwrap_or(2), int("FrontAxisSign").unwrap_or(1)),
        coord: (int("CoordAxis").unwrap_or(0), int("CoordAxisSign").unwrap_or(1)),
        original_up: int("OriginalUpAxis").map(|a| (a, int("OriginalUpAxisSign").unwrap_or(1))),
        unit_scale: number(p, "UnitScaleFactor").unwrap_or(1.0),
        original_unit_scale: number(p, "OriginalUnitScaleFactor")
            .or_else(|| number(p, "UnitScaleFactor"))
            .unwrap_or(1.0),
        source: "GlobalSettings".into(),
    })
}

/// A mesh from a record holding `Vertices` and `PolygonVertexIndex` (7.x `Geometry`, 6.x
/// mesh `Model`).
fn mesh_of(node: &Node, owner: &str) -> Result<Option<RefMesh>, SceneError> {
    let (Some(vertices), Some(index)) = (node.child("Vertices"), node.child("PolygonVertexIndex")) else {
        return Ok(None);
    };
    let bad = |what: String| SceneError::BadMesh { node: owner.to_string(), offset: node.offset, what };
    let coords = vertices.numbers();
    if coords.len() % 3 != 0 {
        return Err(bad(format!("{} coordinates is not a multiple of 3", coords.len())));
    }
    let positions: Vec<[f64; 3]> = coords.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect();
    let mut polygons = Vec::new();
    let mut current = Vec::new();
    for v in index.integers() {
        // The last corner of each polygon is stored as `-(index + 1)`.
        let (i, last) = if v < 0 { (-(v + 1), true) } else { (v, false) };
        if i as usize >= positions.len() {
            return Err(bad(format!("corner index {i} outside {} vertices", positions.len())));
        }
        current.push(i as u32);
        if last {
            polygons.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        return Err(bad("the last polygon is not closed".into()));
    }
    let uv = node.children_named("LayerElementUV").next().and_then(uv_layer);
    Ok(Some(RefMesh { positions, polygons, uv }))
}

/// UV channel 1 per polygon corner (`ByPolygonVertex`, direct or indexed); `None` for
/// other mappings.
fn uv_layer(layer: &Node) -> Option<Vec<[f64; 2]>> {
    let text = |name: &str| layer.child(name)?.properties.first()?.as_text();
    if text("MappingInformationType")? != "ByPolygonVertex" {
        return None;
    }
    let uv = layer.child("UV")?.numbers();
    let index: Vec<i64> = match text("ReferenceInformationType")?.as_str() {
        "Direct" => (0..(uv.len() / 2) as i64).collect(),
        _ => layer.child("UVIndex")?.integers(),
    };
    index.iter().map(|&i| uv.get(2 * i as usize..2 * i as usize + 2).map(|c| [c[0], c[1]])).collect()
}

/// Builds the scene from read records.
pub fn scene_of(doc: &Document) -> Result<RefScene, SceneError> {
    let objects = doc.node("Objects").ok_or(SceneError::NoObjects)?;
    let legacy = doc.version < 7000;
    let mut nodes: Vec<RefNode> = Vec::new();
    let mut exporter_added = Vec::new();
    let mut node_of_key: HashMap<String, usize> = HashMap::new();
    let mut geometry_of_key: HashMap<String, &Node> = HashMap::new();
    let mut by_key: HashMap<String, &Node> = HashMap::new();
    for o in &objects.children {
        let Some(key) = key_of(o.properties.first(), legacy) else { continue };
        by_key.insert(key.clone(), o);
        match o.name.as_str() {
            "Model" => {
                let name_at = if legacy { 0 } else { 1 };
                let name = o.properties.get(name_at).and_then(Property::as_bytes).map(object_name).unwrap_or_default();
                let kind = object_kind(o);
                let producer = PRODUCER_KINDS.contains(&kind.as_str())
                    || (kind == "Camera" && PRODUCER_CAMERAS.contains(&name.as_str()));
                if legacy && producer {
                    exporter_added.push(name);
                    continue;
                }
                let props = properties(o);
                let mesh = if legacy { mesh_of(o, &name)? } else { None };
                node_of_key.insert(key, nodes.len());
                let transform = fbx_transform(&props);
                nodes.push(RefNode {
                    name,
                    kind,
                    parent: None,
                    local: transform.matrix(),
                    pre_rotation: vec3(&props, "PreRotation", [0.0; 3]),
                    geometric: geometric_matrix(&props),
                    mesh,
                    offset: o.offset,
                    fbx_transform: Some(transform),
                });
            }
            "Geometry" => {
                geometry_of_key.insert(key, o);
            }
            _ => {}
        }
    }
    let mut links: Vec<Link> = Vec::new();
    if let Some(conn) = doc.node("Connections") {
        for c in conn.children.iter().filter(|c| c.name == "C" || c.name == "Connect") {
            let kind = c.properties.first().and_then(Property::as_text).unwrap_or_default();
            let (Some(child), Some(parent)) =
                (key_of(c.properties.get(1), legacy), key_of(c.properties.get(2), legacy))
            else {
                continue;
            };
            links.push((kind, child, parent, c.properties.get(3).and_then(Property::as_text)));
        }
    }
    for (kind, child, parent, _) in &links {
        if kind != "OO" {
            continue;
        }
        if let (Some(&c), Some(&p)) = (node_of_key.get(child), node_of_key.get(parent)) {
            if c != p {
                nodes[c].parent = Some(p);
            }
        }
        if let (Some(g), Some(&n)) = (geometry_of_key.get(child), node_of_key.get(parent)) {
            if nodes[n].mesh.is_none() {
                let name = nodes[n].name.clone();
                nodes[n].mesh = mesh_of(g, &name)?;
            }
        }
    }
    if legacy {
        // FBX 6 writes every model of the scene but links only the exported ones (the 6.0
        // plugin's "export selected" leaves the others unlinked, with identity transforms):
        // an unlinked model is not part of the export.
        let linked: std::collections::HashSet<usize> =
            links.iter().filter(|l| l.0 == "OO").filter_map(|l| node_of_key.get(&l.1).copied()).collect();
        if linked.len() < nodes.len() {
            let keep: Vec<bool> = (0..nodes.len()).map(|i| linked.contains(&i)).collect();
            let mut new_index = vec![None; nodes.len()];
            let mut kept = Vec::new();
            for (i, n) in std::mem::take(&mut nodes).into_iter().enumerate() {
                if keep[i] {
                    new_index[i] = Some(kept.len());
                    kept.push(n);
                } else {
                    exporter_added.push(format!("{} (unlinked)", n.name));
                }
            }
            for n in &mut kept {
                n.parent = n.parent.and_then(|p| new_index[p]);
            }
            for v in node_of_key.values_mut() {
                *v = new_index[*v].unwrap_or(usize::MAX);
            }
            node_of_key.retain(|_, v| *v != usize::MAX);
            nodes = kept;
        }
    }
    let skins = skins(&links, &by_key, &node_of_key, &geometry_of_key, &nodes);
    let curves = if legacy { legacy_curves(doc, &nodes) } else { curves(&links, &by_key, &node_of_key) };
    let settings = settings(doc, objects);
    Ok(RefScene {
        format: Format::Fbx(doc.version),
        axes: settings.as_ref().and_then(axes),
        start_time: settings.as_ref().and_then(|p| p.get("TimeSpanStart")?.first()?.as_i64()),
        nodes,
        curves,
        skins,
        exporter_added,
        position_resolution: None,
        sampled: None,
    })
}

/// Skin deformers: `Skin` linked to a geometry (7.x) or a model (6.x), `Cluster`s linked to
/// the skin, bone models linked to each cluster.
fn skins(
    links: &[Link],
    by_key: &HashMap<String, &Node>,
    node_of_key: &HashMap<String, usize>,
    geometry_of_key: &HashMap<String, &Node>,
    nodes: &[RefNode],
) -> Vec<RefSkin> {
    let is = |key: &str, kind: &str| by_key.get(key).is_some_and(|o| o.name == "Deformer" && object_kind(o) == kind);
    let mut out = Vec::new();
    for (_, skin, target, _) in links.iter().filter(|l| l.0 == "OO" && is(&l.1, "Skin")) {
        let node = node_of_key.get(target).copied().or_else(|| {
            // 7.x: the skin hangs on a geometry, the geometry on a model.
            geometry_of_key.get(target)?;
            links.iter().find(|l| l.0 == "OO" && &l.1 == target).and_then(|l| node_of_key.get(&l.2).copied())
        });
        let Some(node) = node else { continue };
        let mut clusters = Vec::new();
        for (_, cluster, _, _) in links.iter().filter(|l| l.0 == "OO" && &l.2 == skin && is(&l.1, "Cluster")) {
            let Some(c) = by_key.get(cluster) else { continue };
            let bone = links
                .iter()
                .find(|l| l.0 == "OO" && &l.2 == cluster && node_of_key.contains_key(&l.1))
                .map(|l| nodes[node_of_key[&l.1]].name.clone())
                .unwrap_or_default();
            let indices = c.child("Indexes").map(|n| n.integers()).unwrap_or_default();
            let weights = c.child("Weights").map(|n| n.numbers()).unwrap_or_default();
            clusters.push(RefCluster {
                bone,
                indices: indices.into_iter().map(|i| i.max(0) as u32).collect(),
                weights,
                offset: c.offset,
            });
        }
        out.push(RefSkin { node, clusters });
    }
    out
}

fn channel_of(property: &str) -> Option<char> {
    match property {
        "Lcl Translation" => Some('T'),
        "Lcl Rotation" => Some('R'),
        "Lcl Scaling" => Some('S'),
        _ => None,
    }
}

/// 7.x curves: `AnimationCurve` —OP `d|X`→ `AnimationCurveNode` —OP `Lcl …`→ `Model`.
fn curves(links: &[Link], by_key: &HashMap<String, &Node>, node_of_key: &HashMap<String, usize>) -> Vec<RefCurve> {
    let mut out = Vec::new();
    for (_, curve_node, model, property) in links.iter().filter(|l| l.0 == "OP") {
        let (Some(&node), Some(channel)) = (node_of_key.get(model), property.as_deref().and_then(channel_of)) else {
            continue;
        };
        for (_, curve, _, component) in links.iter().filter(|l| l.0 == "OP" && &l.2 == curve_node) {
            let Some(c) = by_key.get(curve).filter(|c| c.name == "AnimationCurve") else { continue };
            let component = match component.as_deref() {
                Some("d|X") => 0,
                Some("d|Y") => 1,
                Some("d|Z") => 2,
                _ => continue,
            };
            out.push(RefCurve {
                node,
                channel,
                component,
                times: c.child("KeyTime").map(|n| n.integers()).unwrap_or_default(),
                values: c.child("KeyValueFloat").map(|n| n.numbers()).unwrap_or_default(),
                offset: c.offset,
            });
        }
    }
    out
}

fn first_text(node: &Node) -> Option<String> {
    node.properties.first().and_then(Property::as_text)
}

/// 6.x curves: the first take's `Model/Channel "Transform"/Channel T|R|S/Channel X|Y|Z/Key`.
/// A `Key` record is a run of `time, value, interpolation letter, [letter-dependent
/// extras]`; only time and value are kept (an `L` integer followed by a float), and the
/// count is checked against `KeyCount`: a curve whose count disagrees is left out.
fn legacy_curves(doc: &Document, nodes: &[RefNode]) -> Vec<RefCurve> {
    let Some(take) = doc.node("Takes").and_then(|t| t.child("Take")) else { return Vec::new() };
    let mut out = Vec::new();
    for model in take.children_named("Model") {
        let Some(name) = model.properties.first().and_then(Property::as_bytes).map(object_name) else { continue };
        let Some(node) = nodes.iter().position(|n| n.name == name) else { continue };
        let Some(transform) = model.children_named("Channel").find(|c| first_text(c).as_deref() == Some("Transform"))
        else {
            continue;
        };
        for trs in transform.children_named("Channel") {
            let Some(channel) = first_text(trs).and_then(|t| t.chars().next()).filter(|c| matches!(c, 'T' | 'R' | 'S'))
            else {
                continue;
            };
            for axis in trs.children_named("Channel") {
                let component = match first_text(axis).as_deref() {
                    Some("X") => 0,
                    Some("Y") => 1,
                    Some("Z") => 2,
                    _ => continue,
                };
                let Some(keys) = axis.child("Key") else { continue };
                let (times, values) = legacy_keys(&keys.properties);
                let declared = axis.child("KeyCount").and_then(|k| k.properties.first()).and_then(Property::as_i64);
                if declared.is_some_and(|n| n as usize != times.len()) {
                    continue;
                }
                out.push(RefCurve { node, channel, component, times, values, offset: keys.offset });
            }
        }
    }
    out
}

fn legacy_keys(props: &[Property]) -> (Vec<i64>, Vec<f64>) {
    let (mut times, mut values) = (Vec::new(), Vec::new());
    let mut i = 0;
    while i < props.len() {
        let value = props.get(i + 1).and_then(|p| match p {
            Property::F64(v) => Some(*v),
            Property::F32(v) => Some(*v as f64),
            _ => None,
        });
        match (&props[i], value) {
            (Property::I64(t), Some(v)) => {
                times.push(*t);
                values.push(v);
                i += 2;
            }
            _ => i += 1,
        }
    }
    (times, values)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_lose_their_class_suffix() {
        assert_eq!(object_name(b"Box001\0\x01Model"), "Box001");
        assert_eq!(object_name(b"Model::Box001"), "Box001");
        assert_eq!(object_name(b"plain"), "plain");
    }

    #[test]
    fn legacy_keys_keep_time_value_pairs() {
        let props = vec![
            Property::I64(0),
            Property::F64(1.5),
            Property::Char(b'L'),
            Property::I64(100),
            Property::F64(2.5),
            Property::Char(b'C'),
            Property::Char(b'n'),
        ];
        assert_eq!(legacy_keys(&props), (vec![0, 100], vec![1.5, 2.5]));
    }
}
