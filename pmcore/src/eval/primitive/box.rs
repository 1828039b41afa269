//! Box (its builder follows Max's own vertex and face order, checked against an export Max
//! wrote): the tri mesh from the parameter block.

use super::{n, params_of, prim_stop, segs, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::Vec3;

/// The Box's evaluator.
pub const BOX: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::Yes, as_poly: None };

/// Box (class 0x00000010, 0): length along Y, width along X, height along Z from the base.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxParams {
    /// Length (Y).
    pub length: f32,
    /// Width (X).
    pub width: f32,
    /// Height (Z).
    pub height: f32,
    /// Length segments.
    pub length_segs: i32,
    /// Width segments.
    pub width_segs: i32,
    /// Height segments.
    pub height_segs: i32,
}

impl BoxParams {
    /// Vertices Max builds: top and bottom grids plus the inner rings,
    /// 2(l+1)(w+1) + 2(h−1)(l+w).
    pub fn vertices(&self) -> u64 {
        let (l, w, h) = (n(self.length_segs), n(self.width_segs), n(self.height_segs));
        2 * (l + 1) * (w + 1) + 2 * h.saturating_sub(1) * (l + w)
    }
}

/// A box in Max's own vertex and face order (the SDK's box sample and the FBX Max wrote
/// for `pairs/…/Well.max` `Box009` agree; Edit Poly selections and per-vertex offsets
/// index these): the bottom grid row by row (x fastest), the top grid likewise, then one
/// ring of `2(l + w)` vertices per inner height level (front, right, back, left edges).
/// Faces: bottom quads `(k, k+w+1, k+w+2, k+1)`, top quads `(k, k+1, k+w+2, k+w+1)`, then
/// the front, right, back and left sides, each row by row from the bottom; every quad is
/// two triangles `(a, b, c)`, `(c, d, a)` across a hidden diagonal.
pub fn box_mesh(p: &BoxParams) -> Result<EvalMesh, PrimitiveError> {
    let l = segs("length segs", p.length_segs, 1)?;
    let w = segs("width segs", p.width_segs, 1)?;
    let h = segs("height segs", p.height_segs, 1)?;
    let (dx, dy, dz) = (p.width / w as f32, p.length / l as f32, p.height / h as f32);
    let (x0, y0) = (-p.width / 2.0, -p.length / 2.0);
    let (x1, y1) = (p.width / 2.0, p.length / 2.0);
    let mut positions = Vec::new();
    for z in [0.0, p.height] {
        for iy in 0..=l {
            for ix in 0..=w {
                positions.push(Vec3::new(x0 + dx * ix as f32, y0 + dy * iy as f32, z));
            }
        }
    }
    for iz in 1..h {
        let z = dz * iz as f32;
        positions.extend((0..w).map(|ix| Vec3::new(x0 + dx * ix as f32, y0, z)));
        positions.extend((0..l).map(|iy| Vec3::new(x1, y0 + dy * iy as f32, z)));
        positions.extend((0..w).map(|ix| Vec3::new(x1 - dx * ix as f32, y1, z)));
        positions.extend((0..l).map(|iy| Vec3::new(x0, y1 - dy * iy as f32, z)));
    }
    let wsp1 = w + 1;
    let top = (l + 1) * wsp1;
    let ring_len = 2 * (l + w);
    // Vertex at perimeter position k (0 = front-left corner, counter-clockwise seen from
    // above) of height level iz (0 bottom grid, h top grid, else a ring).
    let ring = |iz: u32, k: u32| -> u32 {
        let k = k % ring_len;
        if iz > 0 && iz < h {
            return 2 * top + (iz - 1) * ring_len + k;
        }
        let (ix, iy) = if k < w {
            (k, 0)
        } else if k < w + l {
            (w, k - w)
        } else if k < 2 * w + l {
            (w - (k - w - l), l)
        } else {
            (0, l - (k - 2 * w - l))
        };
        iy * wsp1 + ix + if iz == 0 { 0 } else { top }
    };
    let quad = |a: u32, b: u32, c: u32, d: u32| {
        let mut f = Polygon::new(vec![a, b, c, d]);
        f.triangles = vec![[a, b, c], [c, d, a]];
        f
    };
    let mut polygons = Vec::new();
    for iy in 0..l {
        for ix in 0..w {
            let k = iy * wsp1 + ix;
            polygons.push(quad(k, k + wsp1, k + wsp1 + 1, k + 1));
        }
    }
    for iy in 0..l {
        for ix in 0..w {
            let k = top + iy * wsp1 + ix;
            polygons.push(quad(k, k + 1, k + wsp1 + 1, k + wsp1));
        }
    }
    for (start, len) in [(0, w), (w, l), (w + l, w), (2 * w + l, l)] {
        for iz in 0..h {
            for j in 0..len {
                let k = start + j;
                polygons.push(quad(ring(iz, k), ring(iz, k + 1), ring(iz + 1, k + 1), ring(iz + 1, k)));
            }
        }
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The 1 × 1 × 1 box in Max's order as the poly object an Edit Poly receives (test
/// fixture of the poly operations): vertices 0–3 bottom (−x−y, +x−y, −x+y, +x+y at z 0),
/// 4–7 the same at z 1; faces bottom (0 2 3 1), top (4 5 7 6), front (0 1 5 4), right
/// (1 3 7 5), back (3 2 6 7), left (2 0 4 6).
#[cfg(test)]
pub(crate) fn unit_poly_box() -> EvalMesh {
    box_mesh(&BoxParams { length: 1.0, width: 1.0, height: 1.0, length_segs: 1, width_segs: 1, height_segs: 1 })
        .expect("a unit box")
        .into_poly()
}

/// The Box from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let q = BoxParams {
        length: p.float(0).map_err(pe)?,
        width: p.float(1).map_err(pe)?,
        height: p.float(2).map_err(pe)?,
        width_segs: p.int(3).map_err(pe)?,
        length_segs: p.int(4).map_err(pe)?,
        height_segs: p.int(5).map_err(pe)?,
    };
    within(ctx, base, q.vertices())?;
    box_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;

    #[test]
    fn box_vertices_and_faces_in_max_order() {
        // Max's own order, as `pairs/danshaub__GameDevFinal/DanWork/Exports/Well.FBX` holds
        // `Box009` (a 92 × 5.5 × 5 one-segment box, exported as triangles): vertices
        // (−46, −2.75, 0), (46, −2.75, 0), (−46, 2.75, 0), (46, 2.75, 0), then the same at
        // z = 5; triangles [0,2,3] [3,1,0] [4,5,7] [7,6,4] [0,1,5] [5,4,0] [1,3,7] [7,5,1]
        // [3,2,6] [6,7,3] [2,0,4] [4,6,2].
        let p = BoxParams { length: 5.5, width: 92.0, height: 5.0, length_segs: 1, width_segs: 1, height_segs: 1 };
        let m = box_mesh(&p).unwrap();
        let expected = [
            [-46.0, -2.75, 0.0],
            [46.0, -2.75, 0.0],
            [-46.0, 2.75, 0.0],
            [46.0, 2.75, 0.0],
            [-46.0, -2.75, 5.0],
            [46.0, -2.75, 5.0],
            [-46.0, 2.75, 5.0],
            [46.0, 2.75, 5.0],
        ];
        assert_eq!(m.positions, expected.map(Vec3::from_array).to_vec());
        let triangles: Vec<[u32; 3]> = m.polygons.iter().flat_map(Polygon::mesh_triangles).collect();
        let max_triangles = [
            [0, 2, 3],
            [3, 1, 0],
            [4, 5, 7],
            [7, 6, 4],
            [0, 1, 5],
            [5, 4, 0],
            [1, 3, 7],
            [7, 5, 1],
            [3, 2, 6],
            [6, 7, 3],
            [2, 0, 4],
            [4, 6, 2],
        ];
        assert_eq!(triangles, max_triangles.to_vec());
        // Two height segments, one width and one length segment: a ring of 4 at z = 2.5
        // after the 8 grid points, in the order front (−x, −y), right (+x, −y), back
        // (+x, +y), left (−x, +y); the front side's lower quad joins bottom 0, 1 to ring
        // 8, 9, its upper quad ring 8, 9 to top 4, 5; the left side wraps to perimeter 0.
        let two = box_mesh(&BoxParams { height_segs: 2, ..p }).unwrap();
        assert_eq!(
            &two.positions[8..],
            &[[-46.0, -2.75, 2.5], [46.0, -2.75, 2.5], [46.0, 2.75, 2.5], [-46.0, 2.75, 2.5]].map(Vec3::from_array)
        );
        assert_eq!(two.polygons[2].corners, vec![0, 1, 9, 8]);
        assert_eq!(two.polygons[3].corners, vec![8, 9, 5, 4]);
        assert_eq!(two.polygons[8].corners, vec![2, 0, 8, 11]);
        assert_eq!(two.polygons[9].corners, vec![11, 8, 4, 6]);
    }

    #[test]
    fn box_3_by_2_by_1_segments() {
        // Length 3 × width 2 × height 1 segments. Top and bottom grids: (3+1)(2+1) = 12
        // points each; no ring between them (height 1): V = 24. Quads: 2·(3·2 + 3·1 + 2·1)
        // = 22, each two triangles: 44. Euler: V − E + F = 24 − 44 + 22 = 2.
        let p = BoxParams { length: 3.0, width: 2.0, height: 1.0, length_segs: 3, width_segs: 2, height_segs: 1 };
        let m = box_mesh(&p).unwrap();
        assert_eq!(vtp(&m), (24, 44, 22));
        assert_eq!(m.counts().edges, 44);
    }

    #[test]
    fn box_default_and_tall() {
        // 1×1×1: the 8 corners, 6 quads, 12 triangles.
        let one = BoxParams { length: 1.0, width: 1.0, height: 1.0, length_segs: 1, width_segs: 1, height_segs: 1 };
        assert_eq!(vtp(&box_mesh(&one).unwrap()), (8, 12, 6));
        // 1×1×4: 8 corners + 3 inner rings of 4 = 20; quads 2·(1 + 4 + 4) = 18, 36 triangles.
        let tall = BoxParams { height_segs: 4, ..one };
        assert_eq!(vtp(&box_mesh(&tall).unwrap()), (20, 36, 18));
        assert!(box_mesh(&BoxParams { width_segs: 0, ..one }).is_err());
    }
}
