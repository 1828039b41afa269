//! Torus: a revolved circle.

use super::{
    n, params_of, prim_stop, revolve_from, ring, ring_map, segs, within, MaxOrder, Primitive, PrimitiveError,
    ProfilePoint, RING_START,
};
use crate::eval::context::EvalContext;
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use std::f32::consts::TAU;

/// The Torus's evaluator.
pub const TORUS: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// Torus (class 0x00000020, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TorusParams {
    /// Radius of the ring's centre line.
    pub radius1: f32,
    /// Radius of the cross-section.
    pub radius2: f32,
    /// Segments around the ring.
    pub segments: i32,
    /// Sides of the cross-section.
    pub sides: i32,
    /// Slice on.
    pub slice: bool,
    /// Every face in smoothing group 1 (Max's Smooth = All).
    pub smooth_all: bool,
    /// Generate Mapping Coords.: map channel 1 from [`ring_map`].
    pub map_coords: bool,
}

impl TorusParams {
    /// Vertices: segments·sides.
    pub fn vertices(&self) -> u64 {
        n(self.segments) * n(self.sides)
    }
}

/// Torus: a closed circle of `sides` points revolved `segments` times.
pub fn torus_mesh(p: &TorusParams) -> Result<EvalMesh, PrimitiveError> {
    let n = segs("segments", p.segments, 3)?;
    let m = segs("sides", p.sides, 3)?;
    if p.slice {
        return Err(PrimitiveError::Unsupported("slice"));
    }
    let profile: Vec<ProfilePoint> = (0..m)
        .map(|i| {
            let a = TAU * i as f32 / m as f32;
            ring(p.radius1 + p.radius2 * a.cos(), p.radius2 * a.sin())
        })
        .collect();
    let mut mesh = revolve_from(&profile, n, true, false, RING_START);
    if p.smooth_all {
        mesh.polygons.iter_mut().for_each(|f| f.smoothing = 1);
    }
    if p.map_coords {
        mesh.uv = Some(ring_map(profile.len(), n));
    }
    Ok(mesh)
}

/// The Torus from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let q = TorusParams {
        radius1: p.float(0).map_err(pe)?,
        radius2: p.float(1).map_err(pe)?,
        segments: p.int(4).map_err(pe)?,
        sides: p.int(5).map_err(pe)?,
        slice: p.int_or(7, 0).map_err(pe)? != 0,
        // Smooth (6) = 2 smooths every face: snow_torus.max stores 2 and its NeL
        // export is smooth everywhere (169 entries = 13 × 13 map seams only). The
        // other modes (sides / segments) are not measured and keep no groups.
        smooth_all: p.int_or(6, 0).map_err(pe)? == 2,
        map_coords: p.int_or(10, 0).map_err(pe)? != 0,
    };
    within(ctx, base, q.vertices())?;
    torus_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;
    use glam::{Vec2, Vec3};

    #[test]
    fn torus_24_by_12() {
        // 24 segments × 12 sides: 288 vertices, 288 quads, 576 triangles.
        let p = TorusParams {
            radius1: 10.0,
            radius2: 2.0,
            segments: 24,
            sides: 12,
            slice: false,
            smooth_all: false,
            map_coords: false,
        };
        assert_eq!(vtp(&torus_mesh(&p).unwrap()), (288, 576, 288));
    }

    #[test]
    fn torus_smooth_and_mapped_by_hand() {
        // 4 segments × 4 sides, radii 2 and 1. First side on +Y: vertex 0 = profile point 0
        // (outer equator, radius 3) at 90° → (0, 3, 0). Map grid (4 + 1) × (4 + 1) = 25;
        // map vertex (profile 1, side 1) = 1·5 + 1 = 6 → (u, v) = (1/4, 1 − 1/4). The first
        // quad (profile 0→1, side 0→1) maps to [0, 1, 6, 5]. Smooth = All: group 1 everywhere.
        let p = TorusParams {
            radius1: 2.0,
            radius2: 1.0,
            segments: 4,
            sides: 4,
            slice: false,
            smooth_all: true,
            map_coords: true,
        };
        let m = torus_mesh(&p).unwrap();
        assert!(m.positions[0].abs_diff_eq(Vec3::new(0.0, 3.0, 0.0), 1e-6));
        let uv = m.uv.as_ref().unwrap();
        assert_eq!(uv.vertices.len(), 25);
        assert_eq!(uv.vertices[6], Vec2::new(0.25, 0.75));
        assert_eq!(uv.vertices[24], Vec2::new(1.0, 0.0));
        assert_eq!(uv.faces[0], vec![0, 1, 6, 5]);
        assert!(m.polygons.iter().all(|f| f.smoothing == 1));
        let flat = torus_mesh(&TorusParams { smooth_all: false, map_coords: false, ..p }).unwrap();
        assert!(flat.uv.is_none() && flat.polygons.iter().all(|f| f.smoothing == 0));
    }
}
