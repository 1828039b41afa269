//! The Pyramid primitive (Class ID 0x76bf318a, 0x4bf37b10) in Max's own vertex and face
//! order, from its parameter values (facts of the SDK sample `pyramid.cpp`,
//! `BuildPyramidMesh`, and the shared `AddFace`).
//!
//! Parameters (ids 0–6, old and new blocks alike): width (X), depth (Y), height (Z),
//! width / depth / height segments (clamped to 1–200), mapping coordinates (not built).
//!
//! Vertices: the apex, then per height row from the top the ring of `2·(w + d)` points
//! starting at the (−x, −y) corner and running +X along the front, +Y along the right, −X
//! along the back, −Y along the left; the base centre last. Faces: the top row a fan of
//! triangles from the apex; each lower row a quad per side step, stored as the triangles
//! `(t, a, b)` `(t, b, t + 1)` over the row above (`t`) with the diagonal `t`–`b` hidden;
//! the base a fan `(a, centre, b)`. Smoothing groups 4 (front), 2 (right), 16 (back),
//! 32 (left), 8 (base); material id 0.

use super::PrimitiveError;
use super::{params_of, prim_stop, within, MaxOrder, Primitive};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::Vec3;

/// Pyramid parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PyramidParams {
    /// Width, along X (id 0).
    pub width: f32,
    /// Depth, along Y (id 1).
    pub depth: f32,
    /// Height, along Z (id 2).
    pub height: f32,
    /// Width segments (id 3).
    pub width_segs: i32,
    /// Depth segments (id 4).
    pub depth_segs: i32,
    /// Height segments (id 5).
    pub height_segs: i32,
}

/// Segment counts as Max clamps them (`p_range` 1–200).
fn segs(v: i32) -> u32 {
    v.clamp(1, 200) as u32
}

impl PyramidParams {
    /// Vertices: `2·(w + d)·h + 2`.
    pub(crate) fn vertices(&self) -> u64 {
        let ring = 2 * u64::from(segs(self.width_segs) + segs(self.depth_segs));
        ring * u64::from(segs(self.height_segs)) + 2
    }
}

/// Smoothing groups of the four sides (front, right, back, left) and of the base.
const SIDE_GROUPS: [u32; 4] = [4, 2, 16, 32];
const BASE_GROUP: u32 = 8;

/// Each row's points below the apex, in Max's arithmetic (`f32` sums as the sample
/// accumulates them), for `(w, d, h)` width, depth and height segments.
fn push_rows(p: &PyramidParams, (w, d, h): (u32, u32, u32), positions: &mut Vec<Vec3>) {
    let (width_step, depth_step, height_step) = (p.width / h as f32, p.depth / h as f32, p.height / h as f32);
    for row in 1..=h {
        let z = p.height - height_step * row as f32;
        let w_span = width_step * row as f32;
        let (w_incr, w_start) = (w_span / w as f32, w_span / -2.0);
        let d_span = depth_step * row as f32;
        let (d_incr, d_start) = (d_span / d as f32, d_span / -2.0);
        positions.push(Vec3::new(w_start, d_start, z));
        let mut x = w_start;
        for _ in 0..w {
            x += w_incr;
            positions.push(Vec3::new(x, d_start, z));
        }
        let mut y = d_start;
        for _ in 0..d {
            y += d_incr;
            positions.push(Vec3::new(x, y, z));
        }
        let mut back = w_start;
        for _ in 0..w {
            back += w_incr;
            positions.push(Vec3::new(-back, y, z));
        }
        for i in 1..=d {
            y -= d_incr;
            if i < d {
                positions.push(Vec3::new(w_start, y, z));
            }
        }
    }
}

/// The pyramid as Max builds it. A negative height (Max then flips the faces) is not
/// evaluated.
pub(crate) fn pyramid_mesh(p: &PyramidParams) -> Result<EvalMesh, PrimitiveError> {
    if ![p.width, p.depth, p.height].iter().all(|v| v.is_finite()) {
        return Err(PrimitiveError::Unsupported("non-finite pyramid size"));
    }
    if p.height < 0.0 {
        return Err(PrimitiveError::Unsupported("negative pyramid height"));
    }
    let (w, d, h) = (segs(p.width_segs), segs(p.depth_segs), segs(p.height_segs));
    let ring = 2 * (w + d);
    let mut positions = vec![Vec3::new(0.0, 0.0, p.height)];
    push_rows(p, (w, d, h), &mut positions);
    let mut side_of = Vec::with_capacity(ring as usize);
    for (side, n) in [w, d, w, d].into_iter().enumerate() {
        side_of.extend(std::iter::repeat_n(side, n as usize));
    }
    positions.push(Vec3::ZERO);
    let centre = positions.len() as u32 - 1;
    let mut polygons = Vec::with_capacity((ring * (h + 1)) as usize);
    // Row r's point k (k wraps) and the previous row's.
    let at = |row: u32, k: u32| 1 + (row - 1) * ring + k % ring;
    for k in 0..ring {
        let smoothing = SIDE_GROUPS[side_of[k as usize]];
        polygons.push(Polygon {
            corners: vec![0, at(1, k), at(1, k + 1)],
            material: 0,
            smoothing,
            triangles: Vec::new(),
            hidden_edges: 0,
        });
    }
    for row in 2..=h {
        for k in 0..ring {
            let (t, t1) = (at(row - 1, k), at(row - 1, k + 1));
            let (a, b) = (at(row, k), at(row, k + 1));
            polygons.push(Polygon {
                corners: vec![t, a, b, t1],
                material: 0,
                smoothing: SIDE_GROUPS[side_of[k as usize]],
                triangles: vec![[t, a, b], [t, b, t1]],
                hidden_edges: 0,
            });
        }
    }
    for k in 0..ring {
        polygons.push(Polygon {
            corners: vec![at(h, k), centre, at(h, k + 1)],
            material: 0,
            smoothing: BASE_GROUP,
            triangles: Vec::new(),
            hidden_edges: 0,
        });
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The Pyramid's evaluator.
pub(crate) const PYRAMID: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// The Pyramid from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let q = PyramidParams {
        width: p.float(0).map_err(pe)?,
        depth: p.float(1).map_err(pe)?,
        height: p.float(2).map_err(pe)?,
        width_segs: p.int(3).map_err(pe)?,
        depth_segs: p.int(4).map_err(pe)?,
        height_segs: p.int(5).map_err(pe)?,
    };
    within(ctx, base, q.vertices())?;
    pyramid_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit() -> PyramidParams {
        PyramidParams { width: 2.0, depth: 4.0, height: 3.0, width_segs: 1, depth_segs: 1, height_segs: 1 }
    }

    #[test]
    fn one_segment_pyramid_in_max_order() {
        // Width 2, depth 4, height 3, 1/1/1: apex (0, 0, 3); the ring (−1, −2), (1, −2),
        // (1, 2), (−1, 2) at z = 0; the base centre last: 6 vertices. Faces: the apex fan
        // (0 1 2) (0 2 3) (0 3 4) (0 4 1) and the base fan (1 5 2) (2 5 3) (3 5 4) (4 5 1):
        // 8 triangles, 8 polygons (every edge visible) — the 6 / 8 of each pyramid in
        // `prantoahmed__3rd-island.max`'s Mesh Totals.
        let m = pyramid_mesh(&unit()).unwrap();
        let expected =
            [[0.0, 0.0, 3.0], [-1.0, -2.0, 0.0], [1.0, -2.0, 0.0], [1.0, 2.0, 0.0], [-1.0, 2.0, 0.0], [0.0; 3]];
        assert_eq!(m.positions, expected.map(Vec3::from_array).to_vec());
        let faces: Vec<Vec<u32>> = m.polygons.iter().map(|p| p.corners.clone()).collect();
        let want: Vec<Vec<u32>> =
            [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [1, 5, 2], [2, 5, 3], [3, 5, 4], [4, 5, 1]]
                .iter()
                .map(|f| f.to_vec())
                .collect();
        assert_eq!(faces, want);
        let groups: Vec<u32> = m.polygons.iter().map(|p| p.smoothing).collect();
        assert_eq!(groups, [4, 2, 16, 32, 8, 8, 8, 8]);
        assert_eq!(unit().vertices(), 6);
        // The front face (0 1 2) faces −Y: (1 − 0) × (2 − 0) = (−1, −2, −3) × (1, −2, −3)
        // = (6 − 6, −3 − 3, 2 + 2) = (0, −6, 4).
        let n = (m.positions[1] - m.positions[0]).cross(m.positions[2] - m.positions[0]);
        assert_eq!(n, Vec3::new(0.0, -6.0, 4.0));
    }

    #[test]
    fn more_segments_make_rings_and_quad_rows() {
        // Width segs 2, depth 1, height 2, width 2, depth 4, height 4: ring 2·(2 + 1) = 6,
        // vertices 6·2 + 2 = 14. Row 1 at z = 2 spans half the base: (−0.5, −1), (0, −1),
        // (0.5, −1), (0.5, 1), (−0, 1), (−0.5, 1). Row 2 at z = 0: (−1, −2) … Faces: 6 top
        // triangles, 6 quads (t, a, b, t + 1) as (t a b) (t b t+1), 6 base triangles:
        // 6 + 12 + 6 = 24 triangles = 2·6·2.
        let p = PyramidParams { width: 2.0, depth: 4.0, height: 4.0, width_segs: 2, depth_segs: 1, height_segs: 2 };
        let m = pyramid_mesh(&p).unwrap();
        assert_eq!((m.positions.len() as u64, p.vertices()), (14, 14));
        assert_eq!(m.positions[1], Vec3::new(-0.5, -1.0, 2.0));
        assert_eq!(m.positions[2], Vec3::new(0.0, -1.0, 2.0));
        assert_eq!(m.positions[5], Vec3::new(0.0, 1.0, 2.0));
        assert_eq!(m.positions[7], Vec3::new(-1.0, -2.0, 0.0));
        assert_eq!(m.polygons[6].corners, vec![1, 7, 8, 2]);
        assert_eq!(m.polygons[6].triangles, vec![[1, 7, 8], [1, 8, 2]]);
        // The last quad closes on the rows' first points: (6, 12, 7, 1).
        assert_eq!(m.polygons[11].corners, vec![6, 12, 7, 1]);
        assert_eq!(m.counts().triangles, 24);
        assert_eq!(m.polygons.last().unwrap().corners, vec![12, 13, 7]);
        assert!(pyramid_mesh(&PyramidParams { height: -1.0, ..p }).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn pyramids_are_closed_and_have_the_counted_vertices(w in 1i32..6, d in 1i32..6, h in 1i32..6) {
            // V = 2(w + d)h + 2, triangles 2·2(w + d)h, and a closed surface of polygons:
            // V − E + P = 2.
            let p = PyramidParams { width: 3.0, depth: 2.0, height: 5.0, width_segs: w, depth_segs: d, height_segs: h };
            let m = pyramid_mesh(&p).unwrap();
            let k = m.counts();
            proptest::prop_assert_eq!(k.vertices, p.vertices());
            proptest::prop_assert_eq!(k.triangles as i32, 4 * (w + d) * h);
            proptest::prop_assert_eq!(k.vertices + k.polygons, k.edges + 2);
        }
    }
}
