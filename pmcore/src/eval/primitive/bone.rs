//! Bone object: a tapered box with optional fins.

use super::{params_of, prim_stop, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::Vec3;

/// The Bone's evaluator.
pub const BONE: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// Bone object (class 0x28bf6e8d, 0x2ecca840) without fins.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoneParams {
    /// Width (Y).
    pub width: f32,
    /// Height (Z).
    pub height: f32,
    /// Taper (fraction of the section lost at the far end).
    pub taper: f32,
    /// Length (X).
    pub length: f32,
    /// Any fin (side, front, back) on.
    pub fins: bool,
}

impl BoneParams {
    /// Vertices: 9 (pivot point and two sections of 4).
    pub fn vertices(&self) -> u64 {
        9
    }
}

/// A bone: a point at the pivot, a full section a little along X, the tapered section at
/// the far end (9 vertices; 4 tip triangles, 4 side quads, 1 end quad = 14 triangles, as
/// the corpus's fin-less bones count: `public/neill3d__ikpoping.max`, 3 bones = 27 / 42).
pub fn bone_mesh(p: &BoneParams) -> Result<EvalMesh, PrimitiveError> {
    if p.fins {
        return Err(PrimitiveError::Unsupported("bone fins"));
    }
    let near = (p.width.min(p.height) / 2.0).min(p.length);
    let (w, h) = (p.width / 2.0, p.height / 2.0);
    let k = 1.0 - p.taper;
    let mut positions = vec![Vec3::ZERO];
    for (x, s) in [(near, 1.0), (p.length, k)] {
        positions.extend([
            Vec3::new(x, -w * s, -h * s),
            Vec3::new(x, w * s, -h * s),
            Vec3::new(x, w * s, h * s),
            Vec3::new(x, -w * s, h * s),
        ]);
    }
    let mut polygons: Vec<Polygon> = (0..4).map(|i| Polygon::new(vec![0, 1 + (i + 1) % 4, 1 + i])).collect();
    polygons.extend((0..4).map(|i| Polygon::new(vec![1 + i, 1 + (i + 1) % 4, 5 + (i + 1) % 4, 5 + i])));
    polygons.push(Polygon::new(vec![5, 6, 7, 8]));
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The Bone from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    // Side (4), front (8) and back (12) fin switches.
    let fins = [4, 8, 12].iter().any(|&id| p.int_or(id, 0) != Ok(0));
    let q = BoneParams {
        width: p.float(0).map_err(pe)?,
        height: p.float(1).map_err(pe)?,
        taper: p.float(2).map_err(pe)?,
        length: p.float(3).map_err(pe)?,
        fins,
    };
    within(ctx, base, q.vertices())?;
    bone_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;

    #[test]
    fn bone_without_fins() {
        // Pivot point + two sections of 4: V = 9. Triangles: 4 at the tip, 2·4 on the sides,
        // 2 at the end cap = 14; polygons 4 + 4 + 1 = 9.
        let p = BoneParams { width: 10.0, height: 10.0, taper: 0.9, length: 100.0, fins: false };
        assert_eq!(vtp(&bone_mesh(&p).unwrap()), (9, 14, 9));
        assert!(bone_mesh(&BoneParams { fins: true, ..p }).is_err());
    }
}
