//! Plane: a grid of quads from the parameter block.

use super::{n, params_of, prim_stop, segs, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, MapChannel, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::{Vec2, Vec3};

/// The Plane's evaluator.
pub const PLANE: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// Plane (class 0x081f1dfc, 0x77566f65): one grid of quads, length along Y, width along X.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PlaneParams {
    /// Length (Y).
    pub length: f32,
    /// Width (X).
    pub width: f32,
    /// Length segments.
    pub length_segs: i32,
    /// Width segments.
    pub width_segs: i32,
}

impl PlaneParams {
    /// Vertices: (l+1)(w+1).
    pub fn vertices(&self) -> u64 {
        (n(self.length_segs) + 1) * (n(self.width_segs) + 1)
    }
}

/// A plane grid with map channel 1 spanning 0..1.
pub fn plane_mesh(p: &PlaneParams) -> Result<EvalMesh, PrimitiveError> {
    let l = segs("length segs", p.length_segs, 1)?;
    let w = segs("width segs", p.width_segs, 1)?;
    let mut positions = Vec::new();
    let mut uvs = Vec::new();
    for j in 0..=l {
        for i in 0..=w {
            let (u, v) = (i as f32 / w as f32, j as f32 / l as f32);
            positions.push(Vec3::new((u - 0.5) * p.width, (v - 0.5) * p.length, 0.0));
            uvs.push(Vec2::new(u, v));
        }
    }
    let idx = |i: u32, j: u32| j * (w + 1) + i;
    let mut polygons = Vec::new();
    let mut faces = Vec::new();
    for j in 0..l {
        for i in 0..w {
            let c = vec![idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)];
            faces.push(c.clone());
            polygons.push(Polygon::new(c));
        }
    }
    Ok(EvalMesh { positions, polygons, uv: Some(MapChannel { vertices: uvs, faces }), rule: FaceRule::Triangles })
}

/// The Plane from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let q = PlaneParams {
        length: p.float(0).map_err(pe)?,
        width: p.float(1).map_err(pe)?,
        length_segs: p.int(2).map_err(pe)?,
        width_segs: p.int(3).map_err(pe)?,
    };
    within(ctx, base, q.vertices())?;
    plane_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;

    #[test]
    fn plane_4_by_3() {
        // (4+1)(3+1) = 20 grid points, 4·3 = 12 quads, 24 triangles.
        let m = plane_mesh(&PlaneParams { length: 1.0, width: 1.0, length_segs: 4, width_segs: 3 }).unwrap();
        assert_eq!(vtp(&m), (20, 24, 12));
        assert_eq!(m.uv.as_ref().unwrap().faces.len(), 12);
    }
}
