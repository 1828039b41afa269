//! ProBoolean: the result mesh the object keeps in the file. A replay of the CSG is out of
//! scope; what Max saved with the object is read instead.
//!
//! A ProBoolean object (Class ID `0x31cea620, 0x2257f993`) stores, besides its operand
//! names and transforms, a container 0x0150 holding tri-mesh buffers laid out as an Editable
//! Mesh's under 0x08fe (vertices 0x0914, faces 0x0912, then map channels). Measured as the
//! result: in `Kenji's Room.max` the three ProBoolean nodes `Box002`, `Box004`, `Box006`
//! (one of them nested: its operand is another ProBoolean with its own 0x0150) hold 16
//! vertices each, as the FBX Max wrote, at the FBX's positions.
//!
//! The two Boolean classes of the corpus keep no result: the legacy Boolean (`0x51db4f2f,
//! 0x1c596b1a`, `door.max`) stores operand names and matrices only, the Boolean of Max 2019
//! and later (`0x7bc209af, 0x01bbac5f`, `SlidingDoor03.max`) its operand list and
//! settings; both stay unevaluated.

use super::{MaxOrder, Primitive};
use crate::eval::context::EvalContext;
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{stop, Stop};
use crate::eval::stored::from_stored;
use crate::model::geometry::{GeometryError, Mesh};
use crate::model::scene_index::SceneObject;

/// The container of a ProBoolean's cached result mesh.
pub const PROBOOLEAN_RESULT: u16 = 0x0150;

/// Why a ProBoolean's result cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BooleanError {
    /// The object keeps no result container, or it holds no mesh buffers.
    #[error("no cached result mesh (chunk 0x0150)")]
    NoResult,
    /// The buffers do not decode.
    #[error("cached result mesh: {0}")]
    Geometry(#[from] GeometryError),
}

/// The cached result of a ProBoolean object, as an evaluated tri mesh.
pub fn proboolean_result(object: &SceneObject<'_>) -> Result<EvalMesh, BooleanError> {
    let buffers = object.chunk.child(PROBOOLEAN_RESULT).ok_or(BooleanError::NoResult)?;
    let mesh = Mesh::of_buffers(buffers)?.ok_or(BooleanError::NoResult)?;
    Ok(from_stored(&mesh))
}

/// The ProBoolean's evaluator: its cached result, not a replay.
pub const PROBOOLEAN: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// The cached result, or what keeps it from being read.
fn build(_: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    proboolean_result(base).map_err(|e| stop(base, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;
    use crate::eval::mesh::FaceRule;

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn the_result_container_is_read_as_tri_buffers() {
        // One triangle (0, 0, 0), (1, 0, 0), (0, 2, 0): 0x0914 = count 3 and nine floats;
        // 0x0912 = count 1, corners 0 1 2, smoothing 1, flags with material 4 in the high
        // half (0x0004_0000).
        let floats: Vec<u32> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 2.0, 0.0].iter().map(|f| f.to_bits()).collect();
        let mut vertices = bytes(&[3]);
        vertices.extend(bytes(&floats));
        let faces = bytes(&[1, 0, 1, 2, 1, 0x0004_0000]);
        let result =
            Chunk::container(PROBOOLEAN_RESULT, vec![Chunk::leaf(0x0914, vertices), Chunk::leaf(0x0912, faces)]);
        let mesh = Mesh::of_buffers(&result).unwrap().unwrap();
        let m = from_stored(&mesh);
        assert_eq!(m.rule, FaceRule::Triangles);
        assert_eq!(m.positions.len(), 3);
        assert_eq!(m.positions[2].y, 2.0);
        assert_eq!((m.polygons[0].corners.clone(), m.polygons[0].material), (vec![0, 1, 2], 4));
        // No buffers inside: no mesh.
        assert_eq!(Mesh::of_buffers(&Chunk::container(PROBOOLEAN_RESULT, vec![])).unwrap(), None);
    }
}
