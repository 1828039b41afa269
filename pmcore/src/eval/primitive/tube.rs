//! Tube: a revolved closed profile of four walls.

use super::{
    n, params_of, prim_stop, revolve_from, ring, ring_map, segs, within, MaxOrder, Primitive, PrimitiveError,
    ProfilePoint, RING_START,
};
use crate::eval::context::EvalContext;
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;

/// The Tube's evaluator.
pub const TUBE: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// Tube (class 0x00007b21, 0).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TubeParams {
    /// Radius 1.
    pub radius1: f32,
    /// Radius 2.
    pub radius2: f32,
    /// Height.
    pub height: f32,
    /// Height segments.
    pub height_segs: i32,
    /// Cap segments.
    pub cap_segs: i32,
    /// Sides.
    pub sides: i32,
    /// Slice on.
    pub slice: bool,
    /// Smooth on: walls in smoothing group 1, caps in group 2.
    pub smooth: bool,
    /// Generate Mapping Coords.: map channel 1 from [`ring_map`].
    pub map_coords: bool,
}

impl TubeParams {
    /// Vertices: sides·(2·height segs + 2·cap segs) (a closed loop of rings).
    pub fn vertices(&self) -> u64 {
        n(self.sides) * (2 * n(self.height_segs) + 2 * n(self.cap_segs))
    }
}

/// Tube: a closed profile — the radius-2 wall up, top cap across, the radius-1 wall down,
/// bottom cap (the order the map channel's `u` follows in the NeL export of snow_tube.max:
/// 0 at the foot of the radius-2 wall).
pub fn tube_mesh(p: &TubeParams) -> Result<EvalMesh, PrimitiveError> {
    let h = segs("height segs", p.height_segs, 1)?;
    let c = segs("cap segs", p.cap_segs, 1)?;
    let s = segs("sides", p.sides, 3)?;
    if p.slice {
        return Err(PrimitiveError::Unsupported("slice"));
    }
    let across = |from: f32, to: f32, i: u32| from + (to - from) * i as f32 / c as f32;
    let mut profile: Vec<ProfilePoint> = (0..=h).map(|i| ring(p.radius2, p.height * i as f32 / h as f32)).collect();
    profile.extend((1..c).map(|i| ring(across(p.radius2, p.radius1, i), p.height)));
    profile.extend((0..=h).rev().map(|i| ring(p.radius1, p.height * i as f32 / h as f32)));
    profile.extend((1..c).map(|i| ring(across(p.radius1, p.radius2, i), 0.0)));
    let mut mesh = revolve_from(&profile, s, true, false, RING_START);
    if p.smooth {
        // Profile pairs 0..h and h+c..2h+c are walls, the rest caps; `s` quads per pair.
        let (h, c) = (h as usize, c as usize);
        for (i, f) in mesh.polygons.iter_mut().enumerate() {
            let pair = i / s as usize;
            let wall = pair < h || (h + c..2 * h + c).contains(&pair);
            f.smoothing = if wall { 1 } else { 2 };
        }
    }
    if p.map_coords {
        mesh.uv = Some(ring_map(profile.len(), s));
    }
    Ok(mesh)
}

/// The Tube from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let q = TubeParams {
        radius1: p.float(0).map_err(pe)?,
        radius2: p.float(1).map_err(pe)?,
        height: p.float(2).map_err(pe)?,
        // Parameter 3 is the sides and 5 the height segments: snow_tube.max stores
        // 18 / 1 / 5 (Max's default tube) and its NeL export has 18 sides, 5 rows.
        sides: p.int(3).map_err(pe)?,
        cap_segs: p.int(4).map_err(pe)?,
        height_segs: p.int(5).map_err(pe)?,
        slice: p.int_or(7, 0).map_err(pe)? != 0,
        smooth: p.int_or(6, 0).map_err(pe)? != 0,
        map_coords: p.int_or(10, 0).map_err(pe)? != 0,
    };
    within(ctx, base, q.vertices())?;
    tube_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;
    use glam::{Vec2, Vec3};

    #[test]
    fn tube_default() {
        // 18 sides, 5 height, 1 cap segment: rings 2·6 = 12 → 216 vertices; every ring pair
        // (closed loop of 12) gives 18 quads: 216 quads, 432 triangles.
        let p = TubeParams {
            radius1: 2.0,
            radius2: 1.0,
            height: 1.0,
            height_segs: 5,
            cap_segs: 1,
            sides: 18,
            slice: false,
            smooth: false,
            map_coords: false,
        };
        assert_eq!(vtp(&tube_mesh(&p).unwrap()), (216, 432, 216));
    }

    #[test]
    fn tube_smooth_and_mapped_by_hand() {
        // 4 sides, 1 height and 1 cap segment: profile radius-2 foot, radius-2 top, radius-1
        // top, radius-1 foot (4 points, closed). Pairs: wall, top cap, wall, bottom cap, 4
        // quads each → groups 1,1,1,1, 2,2,2,2, 1,…, 2,…. Vertex 0 = (0, radius 2, 0). Map
        // `u` = profile index / 4: map vertex (profile 2, side 0) = 2·5 → (0.5, 1).
        let p = TubeParams {
            radius1: 1.0,
            radius2: 2.0,
            height: 3.0,
            height_segs: 1,
            cap_segs: 1,
            sides: 4,
            slice: false,
            smooth: true,
            map_coords: true,
        };
        let m = tube_mesh(&p).unwrap();
        assert!(m.positions[0].abs_diff_eq(Vec3::new(0.0, 2.0, 0.0), 1e-6));
        let groups: Vec<u32> = m.polygons.iter().map(|f| f.smoothing).collect();
        assert_eq!(groups, [[1; 4], [2; 4], [1; 4], [2; 4]].concat());
        let uv = m.uv.as_ref().unwrap();
        assert_eq!(uv.vertices[10], Vec2::new(0.5, 1.0));
        assert_eq!(uv.faces.len(), 16);
    }
}
