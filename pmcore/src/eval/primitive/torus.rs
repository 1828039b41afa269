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
