//! The ChamferBox extended primitive (Class ID 0x1ad73f40, 0x48ea0f97): a box whose edges
//! are rounded by a fillet, from its parameter values (facts of the SDK sample `chbox.cpp`,
//! `BuildMesh`: its vertex and face counts, fillet clamp, layer heights and smoothing).
//!
//! Parameters (ParamBlock2 ids, the same indices in the old ParamBlock): 0 length (Y),
//! 1 width (X), 2 height (Z; negative builds the box below the pivot), 3 fillet, 4 length
//! segments, 5 width segments, 6 height segments, 7 fillet segments (each clamped 1–200),
//! 8 generate mapping coordinates (not built), 9 smooth (every face in group 1, else 0).
//! `rabidchinchilla__kenji's_sofa.max` has one (98.4 × 235.7 × 8.3, fillet 2.2, all
//! segments 1) on two nodes: 24 vertices and 44 faces each, the 48 / 88 its Mesh Totals
//! miss without it.
//!
//! Shape: the top and bottom faces are (w + 1)(l + 1) grids over the box shrunk by the
//! fillet r; between them run rings, each a rounded rectangle around that inner rectangle:
//! c + 1 points on every corner arc and the side grid lines between. Fillet layer k of c
//! (per half) lies r·(1 − cos θ) below the top at offset r·sin θ, θ = 90°·k / c; the
//! middle rings split the straight part in h. Ring points: 2(w − 1) + 2(l − 1) + 4(c + 1).
//! Vertices 2[(w + 1)(l + 1) + c·ring] + (h − 1)·ring; triangles 2·2wl for the two faces,
//! 2·(4(w + l) + 4c) for the strips and corner fans joining them to their first rings, and
//! 2·ring per band between rings (2(c − 1) + h bands) — Max's own formulas. If the
//! smallest dimension less 2r is under 0.01, r = (smallest − 0.01) / 2, as Max clamps it.
//!
//! Order: the top face row by row from +Y, the rings downwards (top fillet layers, middle
//! rings, bottom layers), each counter-clockwise seen from +Z from the back-left corner's
//! +Y end, then the bottom face in reverse — the sample's layout, and on the one-segment
//! ChamferBox of `kenji's_sofa.max` the vertex order and the polygon order of the FBX Max
//! exported beside it (RabidChinchilla/3D-Modelling-3DS-Max-Unity-Room-and-Escape-Room-,
//! `3ds Max/Kenji's Sofa.FBX`). Max's own triangles (its corner state machine's diagonals
//! and order) and the order with more segments are not checked, so records that index the
//! mesh are not trusted ([`MaxOrder::No`]).

use super::{params_of, prim_stop, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::{Vec2, Vec3};
use std::f32::consts::FRAC_PI_2;

/// The ChamferBox's evaluator.
pub(crate) const CHAMFER_BOX: Primitive =
    Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// ChamferBox parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ChamferBoxParams {
    /// Length, along Y (id 0).
    pub length: f32,
    /// Width, along X (id 1).
    pub width: f32,
    /// Height, along Z (id 2).
    pub height: f32,
    /// Fillet radius (id 3).
    pub fillet: f32,
    /// Length segments (id 4).
    pub length_segs: i32,
    /// Width segments (id 5).
    pub width_segs: i32,
    /// Height segments (id 6).
    pub height_segs: i32,
    /// Fillet segments (id 7).
    pub fillet_segs: i32,
    /// Smooth (id 9).
    pub smooth: bool,
}

/// Segment counts as Max clamps them (`LimitValue` 1–200).
fn segs(v: i32) -> u64 {
    v.clamp(1, 200) as u64
}

impl ChamferBoxParams {
    /// (length, width, height, fillet) segments, clamped.
    fn counts(&self) -> (u64, u64, u64, u64) {
        (segs(self.length_segs), segs(self.width_segs), segs(self.height_segs), segs(self.fillet_segs))
    }

    /// Points on one ring.
    fn ring(&self) -> u64 {
        let (l, w, _, c) = self.counts();
        2 * (w - 1) + 2 * (l - 1) + 4 * (c + 1)
    }

    /// Vertices: 2[(w + 1)(l + 1) + c·ring] + (h − 1)·ring.
    pub(crate) fn vertices(&self) -> u64 {
        let (l, w, h, c) = self.counts();
        2 * ((w + 1) * (l + 1) + c * self.ring()) + (h - 1) * self.ring()
    }

    /// Triangles: 2(4(c + l + w) + 2lw) + (2(c − 1) + h)·2·ring.
    pub(crate) fn faces(&self) -> u64 {
        let (l, w, h, c) = self.counts();
        2 * (4 * (c + l + w) + 2 * l * w) + (2 * (c - 1) + h) * 2 * self.ring()
    }
}

/// The inner rectangle's corners, counter-clockwise seen from +Z from the back-left (−X,
/// +Y), with the outward normal of the side that starts at each, and the side's segment
/// count: Max's ring order (the FBX beside `kenji's_sofa.max`: each ring starts on the
/// back-left corner's arc at its +Y end and runs down the left side).
fn sides(cx: f32, cy: f32, w: u32, l: u32) -> [(Vec2, Vec2, u32); 4] {
    [
        (Vec2::new(-cx, cy), Vec2::NEG_X, l),
        (Vec2::new(-cx, -cy), Vec2::NEG_Y, w),
        (Vec2::new(cx, -cy), Vec2::X, l),
        (Vec2::new(cx, cy), Vec2::Y, w),
    ]
}

/// One ring at offset `rho`: per side, the arc around the side's first corner (c + 1
/// points from the previous side's normal to this side's), then the side's inner grid
/// lines pushed out by `rho`.
fn ring_points(corners: &[(Vec2, Vec2, u32); 4], c: u32, rho: f32) -> Vec<Vec2> {
    let mut out = Vec::new();
    for (s, &(corner, normal, n)) in corners.iter().enumerate() {
        let prev = corners[(s + 3) % 4].1;
        let start = prev.y.atan2(prev.x);
        for j in 0..=c {
            let a = start + FRAC_PI_2 * j as f32 / c as f32;
            out.push(corner + rho * Vec2::new(a.cos(), a.sin()));
        }
        let next = corners[(s + 1) % 4].0;
        out.extend((1..n).map(|t| corner + (next - corner) * (t as f32 / n as f32) + rho * normal));
    }
    out
}

/// The boundary of a face grid (row 0 at +Y, column 0 at −X) in ring order: per side, its
/// corner then the inner lines.
fn face_boundary(grid: &[u32], w: u32, l: u32) -> Vec<u32> {
    let at = |x: u32, y: u32| grid[(y * (w + 1) + x) as usize];
    let mut out: Vec<u32> = (0..l).map(|y| at(0, y)).collect();
    out.extend((0..w).map(|x| at(x, l)));
    out.extend((0..l).map(|y| at(w, l - y)));
    out.extend((0..w).map(|x| at(w - x, 0)));
    out
}

fn quad(corners: [u32; 4], smoothing: u32) -> Polygon {
    Polygon { smoothing, ..Polygon::new(corners.to_vec()) }
}

/// Joins a face's boundary (ring order) to the ring around it: a fan of c triangles per
/// corner, a quad per side segment. `up`: the face looks up (+Z).
fn join_face(face: &[u32], ring: &[u32], corners: &[(Vec2, Vec2, u32); 4], c: u32, up: bool, sm: u32) -> Vec<Polygon> {
    let orient = |mut v: Vec<u32>| {
        if !up {
            v.reverse();
        }
        Polygon { smoothing: sm, ..Polygon::new(v) }
    };
    let (mut out, mut f, mut r) = (Vec::new(), 0usize, 0usize);
    for &(_, _, n) in corners {
        let corner = face[f];
        for j in 0..c as usize {
            out.push(orient(vec![corner, ring[r + j], ring[r + j + 1]]));
        }
        r += c as usize;
        for t in 0..n as usize {
            let (q0, q1) = (face[(f + t) % face.len()], face[(f + t + 1) % face.len()]);
            let (r0, r1) = (ring[r + t], ring[(r + t + 1) % ring.len()]);
            out.push(orient(vec![q0, r0, r1, q1]));
        }
        f += n as usize;
        r += n as usize;
    }
    out
}

/// Fillet layer `k` of `c`: how far below the face it lies and how far out it reaches
/// (the last layer exactly `r`, `r`, as Max sets it).
fn fillet_layer(r: f32, k: u32, c: u32) -> (f32, f32) {
    if k == c {
        return (r, r);
    }
    let t = FRAC_PI_2 * k as f32 / c as f32;
    (r * (1.0 - t.cos()), r * t.sin())
}

/// The chamfer box (see the module documentation for the layout).
pub(crate) fn chamfer_box_mesh(p: &ChamferBoxParams) -> Result<EvalMesh, PrimitiveError> {
    if ![p.length, p.width, p.height, p.fillet].iter().all(|v| v.is_finite()) {
        return Err(PrimitiveError::Unsupported("non-finite chamfer box size"));
    }
    let (l, w, h, c) = p.counts();
    let (l, w, h, c) = (l as u32, w as u32, h as u32, c as u32);
    let depth = p.height.abs();
    let smallest = p.length.min(p.width).min(depth);
    let r = if smallest - 2.0 * p.fillet < 0.01 { (smallest - 0.01) / 2.0 } else { p.fillet };
    let (cx, cy, top) = (p.width / 2.0 - r, p.length / 2.0 - r, depth / 2.0);
    let corners = sides(cx, cy, w, l);
    let mut positions: Vec<Vec3> = Vec::with_capacity(p.vertices() as usize);
    let mut push = |pts: &[Vec2], z: f32| -> Vec<u32> {
        let first = positions.len() as u32;
        positions.extend(pts.iter().map(|q| q.extend(z)));
        (first..positions.len() as u32).collect()
    };
    // Face grids row by row from +Y, −X to +X in a row (Max's top face); the bottom face
    // holds the same points in reverse (Max fills it from the last vertex down).
    let grid: Vec<Vec2> = (0..=l)
        .flat_map(|y| {
            (0..=w).map(move |x| Vec2::new(-cx + 2.0 * cx * x as f32 / w as f32, cy - 2.0 * cy * y as f32 / l as f32))
        })
        .collect();
    let top_face = push(&grid, top);
    // Rings from the top's first fillet layer down to the bottom's: (height, offset).
    let straight = (depth - 2.0 * r) / h as f32;
    let mut levels: Vec<(f32, f32)> = (1..=c).map(|k| fillet_layer(r, k, c)).map(|(d, rho)| (top - d, rho)).collect();
    levels.extend((1..h).map(|i| (top - r - straight * i as f32, r)));
    levels.extend((1..=c).rev().map(|k| fillet_layer(r, k, c)).map(|(d, rho)| (d - top, rho)));
    let rings: Vec<Vec<u32>> = levels.iter().map(|&(z, rho)| push(&ring_points(&corners, c, rho), z)).collect();
    let reversed: Vec<Vec2> = grid.iter().rev().copied().collect();
    let bottom_face: Vec<u32> = push(&reversed, -top).into_iter().rev().collect();
    let sm = u32::from(p.smooth);
    let mut polygons = Vec::with_capacity(p.faces() as usize);
    for y in 0..l {
        for x in 0..w {
            let at = |x: u32, y: u32| top_face[(y * (w + 1) + x) as usize];
            polygons.push(quad([at(x, y), at(x, y + 1), at(x + 1, y + 1), at(x + 1, y)], sm));
        }
    }
    polygons.extend(join_face(&face_boundary(&top_face, w, l), &rings[0], &corners, c, true, sm));
    for pair in rings.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let n = a.len();
        polygons.extend((0..n).map(|i| quad([a[i], b[i], b[(i + 1) % n], a[(i + 1) % n]], sm)));
    }
    polygons.extend(join_face(&face_boundary(&bottom_face, w, l), &rings[rings.len() - 1], &corners, c, false, sm));
    for y in 0..l {
        for x in 0..w {
            let at = |x: u32, y: u32| bottom_face[(y * (w + 1) + x) as usize];
            polygons.push(quad([at(x + 1, y), at(x + 1, y + 1), at(x, y + 1), at(x, y)], sm));
        }
    }
    // Max builds about z = 0 and moves the box up by half its height (down when negative).
    let shift = if p.height < 0.0 { -top } else { top };
    positions.iter_mut().for_each(|v| v.z += shift);
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The ChamferBox from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let q = ChamferBoxParams {
        length: p.float(0).map_err(pe)?,
        width: p.float(1).map_err(pe)?,
        height: p.float(2).map_err(pe)?,
        fillet: p.float(3).map_err(pe)?,
        length_segs: p.int(4).map_err(pe)?,
        width_segs: p.int(5).map_err(pe)?,
        height_segs: p.int(6).map_err(pe)?,
        fillet_segs: p.int(7).map_err(pe)?,
        smooth: p.int_or(9, 1).map_err(pe)? != 0,
    };
    within(ctx, base, q.vertices())?;
    chamfer_box_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit() -> ChamferBoxParams {
        ChamferBoxParams {
            length: 4.0,
            width: 6.0,
            height: 2.0,
            fillet: 0.5,
            length_segs: 1,
            width_segs: 1,
            height_segs: 1,
            fillet_segs: 1,
            smooth: true,
        }
    }

    #[test]
    fn one_segment_chamfer_box_by_hand() {
        // Width 6, length 4, height 2, fillet 0.5, every count 1: the top face is the inner
        // rectangle (±2.5, ±1.5) at z = 2; one fillet layer per half, at its full offset
        // 0.5, 0.5 below the top and above the bottom: a ring of 4 corners × 2 arc points.
        // 4 + 8 + 8 + 4 = 24 vertices. Triangles: top 2, its fans and strips 4·1 + 4·2 =
        // 12, one band of 8 quads = 16, the bottom 12 + 2: 44 — as each of the two
        // ChamferBoxes of `rabidchinchilla__kenji's_sofa.max` counts in its Mesh Totals.
        let p = unit();
        let m = chamfer_box_mesh(&p).unwrap();
        let k = m.counts();
        assert_eq!((k.vertices, k.triangles), (24, 44));
        assert_eq!((p.vertices(), p.faces()), (24, 44));
        assert_eq!(m.positions[0], Vec3::new(-2.5, 1.5, 2.0));
        assert_eq!(m.positions[3], Vec3::new(2.5, -1.5, 2.0));
        // The first ring starts on the back-left corner's arc, from the back side's normal
        // (+Y) to the left side's (−X), at z = 2 − 0.5, and runs down the left side.
        assert!(m.positions[4].abs_diff_eq(Vec3::new(-2.5, 2.0, 1.5), 1e-6));
        assert!(m.positions[5].abs_diff_eq(Vec3::new(-3.0, 1.5, 1.5), 1e-6));
        assert!(m.positions[6].abs_diff_eq(Vec3::new(-3.0, -1.5, 1.5), 1e-6));
        assert!(m.positions[12].abs_diff_eq(Vec3::new(-2.5, 2.0, 0.5), 1e-6));
        // The bottom face holds the top's points in reverse: the last is the back-left one.
        assert_eq!(m.positions[23], Vec3::new(-2.5, 1.5, 0.0));
        assert_eq!(m.positions[20], Vec3::new(2.5, -1.5, 0.0));
        // Top quad, the back-left corner fan (corner, arc start, arc end), the left strip.
        assert_eq!(m.polygons[0].corners, vec![0, 2, 3, 1]);
        assert_eq!(m.polygons[1].corners, vec![0, 4, 5]);
        assert_eq!(m.polygons[2].corners, vec![0, 5, 6, 2]);
        assert!(m.polygons.iter().all(|f| f.smoothing == 1));
        // Closed: V − E + F = 2; the top face looks up.
        assert_eq!(k.vertices + k.polygons, k.edges + 2);
        let f = &m.polygons[0].corners;
        let n = (m.positions[f[1] as usize] - m.positions[f[0] as usize])
            .cross(m.positions[f[2] as usize] - m.positions[f[0] as usize]);
        assert!(n.z > 0.0);
    }

    #[test]
    fn one_segment_chamfer_box_equals_max_fbx_export() {
        // `rabidchinchilla__kenji's_sofa.max` ChamferBox001: length 98.376, width 235.659,
        // height 8.337, fillet 2.223, every count 1. The FBX Max exported beside it
        // (`3ds Max/Kenji's Sofa.FBX`) lists its 24 vertices in this order (these six of
        // them shown) and its 26 polygons as ours: top quad (0 2 3 1), fans and strips
        // (0 4 5) (0 5 6 2) …, bands (4 12 13 5) …, bottom fans (12 23 13) …, bottom
        // quad (22 20 21 23) — the bottom ones as the same cycles from another corner.
        let p = ChamferBoxParams { length: 98.376, width: 235.659, height: 8.337, fillet: 2.223, ..unit() };
        let m = chamfer_box_mesh(&p).unwrap();
        let fbx = [
            (0, [-115.6065, 46.965, 8.337]),
            (5, [-117.8295, 46.965, 6.114]),
            (8, [115.6065, -49.188, 6.114]),
            (13, [-117.8295, 46.965, 2.223]),
            (19, [115.6065, 49.188, 2.223]),
            (20, [115.6065, -46.965, 0.0]),
        ];
        for (i, want) in fbx {
            assert!(m.positions[i].abs_diff_eq(Vec3::from_array(want), 1e-3), "{i}: {}", m.positions[i]);
        }
        let cycle = |f: &[u32]| {
            let k = (0..f.len()).min_by_key(|&k| f[k]).unwrap();
            [&f[k..], &f[..k]].concat()
        };
        let want: [&[u32]; 5] = [&[0, 2, 3, 1], &[0, 4, 5], &[0, 5, 6, 2], &[12, 23, 13], &[22, 20, 21, 23]];
        let got: Vec<Vec<u32>> = [0, 1, 2, 17, 25].iter().map(|&i| cycle(&m.polygons[i].corners)).collect();
        assert_eq!(got, want.map(cycle).to_vec());
    }

    #[test]
    fn a_fillet_too_large_is_clamped_as_max_clamps_it() {
        // Width 1 with fillet 0.5 (`ryu-ko__кухня.max`'s third ChamferBox): 1 − 2·0.5 < 0.01,
        // so r = (1 − 0.01) / 2 = 0.495 and the inner rectangle is 0.005 wide on each side.
        let p = ChamferBoxParams { width: 1.0, length: 36.0, height: 29.0, fillet_segs: 3, ..unit() };
        let m = chamfer_box_mesh(&p).unwrap();
        assert!((m.positions[0].x + 0.005).abs() < 1e-6, "{}", m.positions[0]);
        let nan = ChamferBoxParams { fillet: f32::NAN, ..unit() };
        assert!(chamfer_box_mesh(&nan).is_err());
        // Counts clamp to 1–200 as Max's LimitValue: 0 builds what 1 builds.
        let zero = ChamferBoxParams { length_segs: 0, width_segs: -3, height_segs: 0, fillet_segs: 0, ..unit() };
        assert_eq!((zero.vertices(), zero.faces()), (24, 44));
        let below = ChamferBoxParams { height: -2.0, ..unit() };
        assert!(chamfer_box_mesh(&below).unwrap().positions.iter().all(|v| v.z <= 0.0));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn chamfer_boxes_are_closed_and_have_max_counts(l in 1i32..5, w in 1i32..5, h in 1i32..5, c in 1i32..5) {
            // Max's own formulas (BuildMesh): VertexPerFace·2 + VertexPerSlice·(h − 1) and
            // 2(topchamferfaces + 2lw) + (2(c − 1) + h)·FacesPerSlice.
            let p = ChamferBoxParams { length_segs: l, width_segs: w, height_segs: h, fillet_segs: c, ..unit() };
            let m = chamfer_box_mesh(&p).unwrap();
            let k = m.counts();
            let slice = 2 * (w - 1 + l - 1) + 4 * (c + 1);
            let per_face = (w - 1) * (l - 1) + 2 * (c + 1) * (w - 1 + l - 1 + 2 * c) + 4;
            let faces = 2 * (4 * (c + l + w) + 2 * l * w) + (2 * (c - 1) + h) * 4 * (2 * c + l + w);
            proptest::prop_assert_eq!((k.vertices, k.triangles), ((2 * per_face + slice * (h - 1)) as u64, faces as u64));
            proptest::prop_assert_eq!((p.vertices(), p.faces()), (k.vertices, k.triangles));
            proptest::prop_assert_eq!(k.vertices + k.polygons, k.edges + 2);
        }
    }
}
