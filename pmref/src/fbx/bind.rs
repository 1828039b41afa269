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
        let m = node.child("Matrix").map(matrix_numbers).unwrap_or_default();
        let cols: [f64; 16] = m.try_into().map_err(|m: Vec<f64>| bad(format!("Matrix holds {} numbers", m.len())))?;
        out.insert(name, DMat4::from_cols_array(&cols));
    }
    Ok(out)
}

/// A matrix record's numbers: one array (7.x) or sixteen scalars (6.x).
fn matrix_numbers(m: &Node) -> Vec<f64> {
    let arrays = m.numbers();
    if arrays.is_empty() {
        m.properties.iter().filter_map(Property::as_f64).collect()
    } else {
        arrays
    }
}
