//! The bind pose an FBX file records: the `Pose` object of type `BindPose`, one `PoseNode`
//! per node with its `Node` (7.x: the model's id; 6.x: `Model::name`) and its global
//! `Matrix` (16 numbers, column-major, translation in 12..14) — what the skin was bound at,
//! written by Max from each node's float32 world matrix.

use super::binary::{Document, Node, Property};
use super::scene::object_name;
use glam::DMat4;
use std::collections::{BTreeMap, HashMap};

/// Why a bind pose could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BindError {
    /// No `Objects` record.
    #[error("no Objects record")]
    NoObjects,
    /// No `Pose` of type `BindPose`.
    #[error("no BindPose")]
    NoBindPose,
    /// A pose node whose matrix is not 16 numbers or whose node names no model.
    #[error("BindPose node at offset {offset}: {what}")]
    BadNode {
        /// Record offset.
        offset: u64,
        /// What was wrong.
        what: String,
    },
}

/// Bind matrices by node name, in the file's axes and units.
pub fn bind_pose(doc: &Document) -> Result<BTreeMap<String, DMat4>, BindError> {
    let objects = doc.node("Objects").ok_or(BindError::NoObjects)?;
    let legacy = doc.version < 7000;
    let model_names: HashMap<i64, String> = objects
        .children
        .iter()
        .filter(|o| o.name == "Model")
        .filter_map(|o| Some((o.properties.first()?.as_i64()?, object_name(o.properties.get(1)?.as_bytes()?))))
        .collect();
    let pose = objects
        .children
        .iter()
        .filter(|o| o.name == "Pose")
        .find(|o| {
            o.child("Type").and_then(|t| t.properties.first()).and_then(Property::as_text).as_deref()
                == Some("BindPose")
        })
        .ok_or(BindError::NoBindPose)?;
    let mut out = BTreeMap::new();
    for node in pose.children_named("PoseNode") {
        let bad = |what: String| BindError::BadNode { offset: node.offset, what };
        let target = node.child("Node").and_then(|n| n.properties.first()).ok_or_else(|| bad("no Node".into()))?;
        let name = if legacy {
            target.as_bytes().map(object_name)
        } else {
            target.as_i64().and_then(|id| model_names.get(&id).cloned())
        }
        .ok_or_else(|| bad(format!("Node {target:?} names no model")))?;
        // 7.x stores one array, 6.x sixteen scalars: `numbers` reads both.
        let m = node.child("Matrix").map(Node::numbers).unwrap_or_default();
        let cols: [f64; 16] = m.try_into().map_err(|m: Vec<f64>| bad(format!("Matrix holds {} numbers", m.len())))?;
        out.insert(name, DMat4::from_cols_array(&cols));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(name: &str, properties: Vec<Property>, children: Vec<Node>) -> Node {
        Node { name: name.into(), properties, children, offset: 0 }
    }

    fn doc(version: u32, node: Property, matrix: Vec<Property>) -> Document {
        let model = record("Model", vec![Property::I64(7), Property::String(b"Bip01\0\x01Model".to_vec())], vec![]);
        let pose_node =
            record("PoseNode", vec![], vec![record("Node", vec![node], vec![]), record("Matrix", matrix, vec![])]);
        let pose = record(
            "Pose",
            vec![],
            vec![record("Type", vec![Property::String(b"BindPose".to_vec())], vec![]), pose_node],
        );
        Document { version, nodes: vec![record("Objects", vec![], vec![model, pose])] }
    }

    fn translation(x: f64) -> Vec<f64> {
        DMat4::from_translation(glam::DVec3::new(x, 0.0, 0.0)).to_cols_array().to_vec()
    }

    #[test]
    fn a_7x_pose_node_names_its_model_by_id_and_a_6x_one_by_name() {
        let m = bind_pose(&doc(7400, Property::I64(7), vec![Property::F64s(translation(3.0))])).unwrap();
        assert_eq!(m["Bip01"].w_axis.x, 3.0);
        let scalars = translation(5.0).into_iter().map(Property::F64).collect();
        let m = bind_pose(&doc(6100, Property::String(b"Model::Bip01".to_vec()), scalars)).unwrap();
        assert_eq!(m["Bip01"].w_axis.x, 5.0);
    }

    #[test]
    fn a_short_matrix_an_unknown_node_and_no_pose_are_typed_errors() {
        let short = doc(7400, Property::I64(7), vec![Property::F64s(vec![1.0; 12])]);
        assert!(matches!(bind_pose(&short), Err(BindError::BadNode { .. })));
        let unknown = doc(7400, Property::I64(8), vec![Property::F64s(translation(1.0))]);
        assert!(matches!(bind_pose(&unknown), Err(BindError::BadNode { .. })));
        let none = Document { version: 7400, nodes: vec![record("Objects", vec![], vec![])] };
        assert_eq!(bind_pose(&none), Err(BindError::NoBindPose));
        assert_eq!(bind_pose(&Document { version: 7400, nodes: vec![] }), Err(BindError::NoObjects));
    }
}
