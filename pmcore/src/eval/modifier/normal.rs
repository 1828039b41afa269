//! The Normal modifier (Class ID `0x000f8614`): with "Flip Normals" set (parameter 1) every
//! face is turned over the way `MNFace::Flip` does it, corner 0 kept and the others in
//! reverse order (`a b c d` → `a d c b`), so an Edit Poly above it extrudes inward and
//! walks the edges the other way (`NewModularWallSingleDoor.max`: the door frame's
//! extrusions land inside the wall, as `ModularWallSingleDoor.fbx` has them). "Unify"
//! (parameter 0) reorients faces by their neighbours, which is not evaluated: it stops.

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, stop, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::Carry;
use crate::model::scene_index::{SceneIndex, SceneObject};

/// Whether the Normal modifier `m` flips faces (its parameter 1 set).
pub fn flips(index: &SceneIndex<'_>, m: &SceneObject<'_>) -> bool {
    Params::of(index, m, 0).ok().and_then(|p| p.int_or(1, 0).ok()).is_some_and(|f| f != 0)
}

/// Applies the modifier's settings; `Err` names a setting that is not evaluated.
pub fn apply(mut mesh: EvalMesh, unify: i32, flip: i32) -> Result<EvalMesh, String> {
    if unify != 0 {
        return Err("Normal modifier with Unify set is not evaluated".into());
    }
    if flip != 0 {
        flip_faces(&mut mesh);
    }
    Ok(mesh)
}

/// Turns every face over: corner 0 stays, the rest reverse; stored triangles and map faces
/// turn with it.
pub fn flip_faces(mesh: &mut EvalMesh) {
    for p in &mut mesh.polygons {
        p.corners[1..].reverse();
        for t in &mut p.triangles {
            t.swap(1, 2);
        }
    }
    if let Some(uv) = mesh.uv.as_mut() {
        for f in &mut uv.faces {
            if f.len() > 1 {
                f[1..].reverse();
            }
        }
    }
}

/// The Normal modifier's evaluator: topology passes through, faces may turn over.
pub const NORMAL: Modifier =
    Modifier { flips: Some(flips), ..Modifier::new(module_path!(), evaluate, true, Carry::Keeps) };

/// Parameters: 0 unify, 1 flip.
fn evaluate(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    Ok(match input {
        Evaluated::Mesh(mesh) => {
            let params = Params::of(mc.index(), m, 0).map_err(|e| param_stop(m, e))?;
            let pe = |e| param_stop(m, e);
            let (unify, flip) = (params.int_or(0, 0).map_err(pe)?, params.int_or(1, 0).map_err(pe)?);
            Evaluated::Mesh(apply(mesh, unify, flip).map_err(|e| stop(m, e))?)
        }
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::{FaceRule, Polygon};
    use glam::Vec3;

    #[test]
    fn flip_keeps_corner_zero_and_reverses_the_rest() {
        // Quad (0 1 2 3) becomes (0 3 2 1); its fan triangle (0 1 2) becomes (0 2 1).
        let mut q = Polygon::new(vec![0, 1, 2, 3]);
        q.triangles = vec![[0, 1, 2], [0, 2, 3]];
        let mesh = EvalMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::ONE, Vec3::Y],
            polygons: vec![q],
            uv: None,
            rule: FaceRule::Polygons,
        };
        let out = apply(mesh.clone(), 0, 1).unwrap();
        assert_eq!(out.polygons[0].corners, vec![0, 3, 2, 1]);
        assert_eq!(out.polygons[0].triangles, vec![[0, 2, 1], [0, 3, 2]]);
        assert_eq!(apply(mesh.clone(), 0, 0).unwrap(), mesh);
        assert!(apply(mesh, 1, 0).is_err());
    }
}
