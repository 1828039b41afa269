//! Sphere: rings of latitude between two poles; its tri mesh is built in Max's order
//! (checked on `Bowl.FBX`), its own conversion to poly is not.

use super::{params_of, prim_stop, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::eval::params::ParamError;
use crate::model::scene_index::SceneObject;
use glam::Vec3;
use std::f32::consts::TAU;

/// The Sphere's evaluator.
pub(crate) const SPHERE: Primitive =
    Primitive { module: module_path!(), build, order: MaxOrder::TriOnly, as_poly: None };

/// Sphere (class 0x00000011, 0): parameter block ids 0 radius, 1 segments, 2 smooth,
/// 3 hemisphere, 4 chop (0) / squash (1), 5 base to pivot, 7 slice on, 8 slice from,
/// 9 slice to (radians).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SphereParams {
    /// Radius.
    pub radius: f32,
    /// Segments around (Max's "Segments").
    pub segments: i32,
    /// Smooth: every face in a smoothing group.
    pub smooth: bool,
    /// Hemisphere fraction (0 = whole sphere, up to 1).
    pub hemisphere: f32,
    /// Squash (the rows spread over what the hemisphere keeps) instead of chop.
    pub squash: bool,
    /// Base to pivot (the flat side, or the bottom pole, moved to z = 0).
    pub base_to_pivot: bool,
    /// Slice on.
    pub slice: bool,
    /// Slice from, radians.
    pub slice_from: f32,
    /// Slice to, radians.
    pub slice_to: f32,
    /// The object carries the "new mapping" chunk (0x0100, written by Max 3 and later for
    /// spheres created there): the first side is at +Y instead of +X.
    pub quarter_turn: bool,
}

/// The chunk a sphere object writes when its first side is at +Y (Max 3 and later; the
/// SDK sample's `NEWMAP_CHUNKID`): present on `Bowl.max`'s sphere, whose export starts
/// every row at +Y.
pub(crate) const SPHERE_NEW_MAP: u16 = 0x0100;

/// Where Max puts a sphere's rows and sides (the SDK sample `sphere.cpp`, facts only).
struct SphereLayout {
    /// Ring vertices per row, the slice's extra side included.
    sides: u32,
    /// Rows between the poles (or between the top pole and the hemisphere's base).
    rows: u32,
    /// The hemisphere parameter is (nearly) 0.
    whole: bool,
    /// Polar angle of the lowest row: π for a whole sphere.
    lowest: f32,
    /// Polar step between rows.
    delta: f32,
    /// Angle step between sides.
    step: f32,
    /// Angle of the first side.
    start: f32,
    /// Vertices in all.
    vertices: u32,
}

/// Largest slice angle (radians) accepted: Max brings the slice range into one turn by
/// adding or taking 2π at a time, which never ends on absurd values.
const MAX_SLICE_ANGLE: f32 = 1.0e4;

fn sphere_layout(p: &SphereParams) -> Result<SphereLayout, PrimitiveError> {
    use std::f32::consts::{FRAC_PI_2, PI};
    let finite = [p.radius, p.hemisphere, p.slice_from, p.slice_to].iter().all(|v| v.is_finite());
    if !finite || (p.slice && (p.slice_from.abs() > MAX_SLICE_ANGLE || p.slice_to.abs() > MAX_SLICE_ANGLE)) {
        return Err(PrimitiveError::Unsupported("non-finite or out-of-range sphere parameter"));
    }
    // Max clamps the segments to 4..=200 and the hemisphere to 0..=1 (`LimitValue`).
    let mut sides = p.segments.clamp(4, 200) as u32;
    let mut start = if p.quarter_turn { FRAC_PI_2 } else { 0.0 };
    let mut pie = 0.0f32;
    let (mut from, to) = (p.slice_from + start, p.slice_to + start);
    if p.slice {
        while from < to {
            from += TAU;
        }
        while from > to + TAU {
            from -= TAU;
        }
        pie = if from == to { TAU } else { from - to };
    }
    let hemisphere = p.hemisphere.clamp(0.0, 1.0);
    let whole = hemisphere < 0.00001;
    let lowest = (1.0 - if hemisphere >= 1.0 { 0.9999 } else { hemisphere }) * PI;
    let base_delta = 2.0 * PI / sides as f32;
    let step = if p.slice { pie / sides as f32 } else { base_delta };
    let delta = if !whole && p.squash { 2.0 * lowest / (sides - 2) as f32 } else { base_delta };
    let rows = if whole || p.squash { sides / 2 - 1 } else { (lowest / delta) as u32 + 1 };
    let ring = if p.slice { sides + 2 } else { sides };
    let mut vertices = rows * ring + 2;
    if p.slice {
        // The ring runs from "slice to" over one more side; each row but a hemisphere's
        // last also gets a centre vertex, which the faces treat as the ring's last side.
        start = to;
        sides += 1;
        if !whole {
            vertices -= 1;
        }
    }
    Ok(SphereLayout { sides, rows, whole, lowest, delta, step, start, vertices })
}

impl SphereParams {
    /// Vertices: segments·(rows) + 2 poles, with the slice's extra side and centres.
    pub(crate) fn vertices(&self) -> u64 {
        sphere_layout(self).map(|l| u64::from(l.vertices)).unwrap_or(0)
    }
}

/// Sphere in Max's own vertex and face order (the SDK sample `sphere.cpp`, checked on
/// `danshaub__GameDevFinal/SeanWork/Models/Bowl/Bowl.FBX`): the top pole, then the rows
/// from the top down (each from the first side counter-clockwise, then a slice's centre
/// vertex), then the bottom pole or the centre of a hemisphere's base. Faces: the top fan
/// `(0, i, i + 1)`, then per row pair and side the quad `(a, b, c, d)` (`a` above `b`,
/// `c` and `d` one side on) stored as triangles `(a, b, c)` `(a, c, d)` joined across
/// their hidden diagonal, then the bottom fan `(pole, i + 1, i)`. Material ids and
/// smoothing groups as Max sets them: id 1 (group 1 when smooth), slice faces ids 2 and 3
/// (groups 4 and 8), a hemisphere's base id 0 (group 2).
pub(crate) fn sphere_mesh(p: &SphereParams) -> Result<EvalMesh, PrimitiveError> {
    let l = sphere_layout(p)?;
    let radius = p.radius.clamp(0.0, 1.0e30);
    let mut positions = sphere_positions(p, &l, radius);
    let polygons = sphere_faces(p, &l);
    if p.base_to_pivot {
        let shift = cos(l.lowest) * radius;
        for v in &mut positions {
            v.z -= shift;
        }
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// Cosine as Max gets it: angles accumulate in `f32` as Max adds them; sines and cosines
/// in `f64`, as the C library computes them for a float argument, then rounded.
fn cos(x: f32) -> f32 {
    f64::from(x).cos() as f32
}

/// Sine, as [`cos`].
fn sin(x: f32) -> f32 {
    f64::from(x).sin() as f32
}

/// The top pole, the rings of latitude (with a centre per ring when sliced), the bottom.
fn sphere_positions(p: &SphereParams, l: &SphereLayout, radius: f32) -> Vec<Vec3> {
    let mut positions = Vec::with_capacity(l.vertices as usize);
    positions.push(Vec3::new(0.0, 0.0, radius));
    let mut alt = l.delta;
    for row in 1..=l.rows {
        if !l.whole && row == l.rows {
            alt = l.lowest;
        }
        let z = cos(alt) * radius;
        let ring = sin(alt) * radius;
        let mut angle = l.start;
        for _ in 0..l.sides {
            positions.push(Vec3::new(cos(angle) * ring, sin(angle) * ring, z));
            angle += l.step;
        }
        if p.slice && (l.whole || row < l.rows) {
            positions.push(Vec3::new(0.0, 0.0, z));
        }
        alt += l.delta;
    }
    positions.push(Vec3::new(0.0, 0.0, if l.whole { -radius } else { cos(l.lowest) * radius }));
    positions
}

/// (material id, smoothing group) of a face.
type Attributes = (u16, u32);

/// A single triangle.
fn triangle(corners: [u32; 3], (material, smoothing): Attributes) -> Polygon {
    Polygon { corners: corners.to_vec(), material, smoothing, triangles: Vec::new(), hidden_edges: 0 }
}

/// The top fan, the quads between rings, the bottom fan (or the hemisphere's cap).
fn sphere_faces(p: &SphereParams, l: &SphereLayout) -> Vec<Polygon> {
    let sides = if p.slice { l.sides + 1 } else { l.sides };
    let smooth = |group: u32| if p.smooth { group } else { 0 };
    // Attributes of a regular face and of the two slice sides.
    let regular = (1u16, smooth(1));
    let (slice_a, slice_b) = ((2u16, smooth(4)), (3u16, smooth(8)));
    let mut polygons = Vec::new();
    for i in 1..=sides {
        let next = if i == sides { 1 } else { i + 1 };
        let attributes = match (p.slice, i) {
            (true, i) if i == sides - 1 => slice_a,
            (true, i) if i == sides => slice_b,
            _ => regular,
        };
        polygons.push(triangle([0, i, next], attributes));
    }
    ring_quads(p, l, sides, [regular, slice_a, slice_b], &mut polygons);
    let last_vertex = l.vertices - 1;
    let odd_point = p.slice && !l.whole;
    let bottom_sides = if odd_point { sides - 2 } else { sides };
    let first = (l.rows - 1) * sides + 1;
    for i in 0..bottom_sides {
        let c = first + i;
        let b = if !odd_point && i == bottom_sides - 1 { first } else { c + 1 };
        let slice_side = p.slice && i + 2 >= bottom_sides;
        let attributes = if !l.whole {
            (0, smooth(2))
        } else if slice_side && i + 2 == bottom_sides {
            slice_a
        } else if slice_side {
            slice_b
        } else {
            regular
        };
        polygons.push(triangle([last_vertex, b, c], attributes));
    }
    polygons
}

/// The quads between consecutive rings; `[regular, slice_a, slice_b]` attributes.
fn ring_quads(p: &SphereParams, l: &SphereLayout, sides: u32, attributes: [Attributes; 3], out: &mut Vec<Polygon>) {
    let [regular, slice_a, slice_b] = attributes;
    let last_vertex = l.vertices - 1;
    let (last_side, almost_last) = (sides - 1, sides - 2);
    let odd_middle = p.slice && !l.whole && l.rows == 2;
    for row in 1..l.rows {
        let first = (row - 1) * sides + 1;
        for k in 0..sides {
            let a = first + k;
            let b = if odd_middle && k == last_side { last_vertex } else { a + sides };
            let c = if odd_middle && k == almost_last {
                last_vertex
            } else if k == last_side {
                first + sides
            } else {
                b + 1
            };
            let d = if k == last_side { first } else { a + 1 };
            let (material, smoothing) = match k {
                k if p.slice && k == almost_last => slice_a,
                k if p.slice && k == last_side => slice_b,
                _ => regular,
            };
            out.push(Polygon {
                corners: vec![a, b, c, d],
                material,
                smoothing,
                triangles: vec![[a, b, c], [a, c, d]],
                hidden_edges: 0,
            });
        }
    }
}

/// The Sphere from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    // Parameters later releases added are absent from older blocks: Max's defaults.
    let float_or = |id: u16| match p.float(id) {
        Err(ParamError::Missing(_)) => Ok(0.0),
        other => other,
    };
    let q = SphereParams {
        radius: p.float(0).map_err(pe)?,
        segments: p.int(1).map_err(pe)?,
        smooth: p.int_or(2, 0).map_err(pe)? != 0,
        hemisphere: float_or(3).map_err(pe)?,
        squash: p.int_or(4, 0).map_err(pe)? != 0,
        base_to_pivot: p.int_or(5, 0).map_err(pe)? != 0,
        slice: p.int_or(7, 0).map_err(pe)? != 0,
        slice_from: float_or(8).map_err(pe)?,
        slice_to: float_or(9).map_err(pe)?,
        // The sphere's own chunk 0x0100 (the SDK sample's "new map" chunk).
        quarter_turn: base.chunk.child(SPHERE_NEW_MAP).is_some(),
    };
    within(ctx, base, q.vertices())?;
    sphere_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::{sphere, vtp};

    fn near(a: Vec3, b: [f32; 3]) -> bool {
        (a - Vec3::from_array(b)).length() < 1e-6
    }

    fn triangles(m: &EvalMesh) -> Vec<[u32; 3]> {
        m.polygons.iter().flat_map(Polygon::mesh_triangles).collect()
    }

    #[test]
    fn sphere_default_32_segments() {
        // 32 segments: 16 bands, 15 rings of 32 + 2 poles = 482 vertices. Triangles: 2·32
        // pole triangles + 14 bands·32 quads·2 = 64 + 896 = 960.
        let m = sphere_mesh(&sphere(32)).unwrap();
        assert_eq!(vtp(&m), (482, 960, 64 + 14 * 32));
        assert!(m.positions.iter().all(|v| (v.length() - 1.0).abs() < 1e-5));
    }

    #[test]
    fn sphere_of_four_segments_in_max_order() {
        // Rows: 4/2 − 1 = 1, at polar angle 2π/4 = π/2 (z = 0, ring radius 1), sides at
        // 0, π/2, π, 3π/2 from +X. Vertices: top, the ring, bottom. Faces: the top fan
        // (0, i, i + 1), no band, the bottom fan (5, i + 1, i) closing on vertex 1.
        let m = sphere_mesh(&sphere(4)).unwrap();
        let expected =
            [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, -1.0]];
        assert_eq!(m.positions.len(), 6);
        for (v, e) in m.positions.iter().zip(expected) {
            assert!(near(*v, e), "{v:?} vs {e:?}");
        }
        let fans = [[0, 1, 2], [0, 2, 3], [0, 3, 4], [0, 4, 1], [5, 2, 1], [5, 3, 2], [5, 4, 3], [5, 1, 4]];
        assert_eq!(triangles(&m), fans);
        // Every face material id 1, smoothing group 1 (smooth on).
        assert!(m.polygons.iter().all(|p| (p.material, p.smoothing) == (1, 1)));
        // The "new map" chunk turns the first side to +Y: vertex 1 at (0, 1, 0).
        let turned = sphere_mesh(&SphereParams { quarter_turn: true, ..sphere(4) }).unwrap();
        assert!(near(turned.positions[1], [0.0, 1.0, 0.0]), "{:?}", turned.positions[1]);
    }

    #[test]
    fn sphere_faces_follow_bowl_fbx() {
        // Bowl.FBX (Max 2017, 32 segments, "new map" chunk): vertex 1 on +Y at polar angle
        // π/16; the first band face is the quad (1, 33, 34, 2) written as (1 33 34) (1 34 2);
        // the last triangle is (481 449 480), the bottom fan closing on row 15's first side.
        let m = sphere_mesh(&SphereParams { quarter_turn: true, radius: 19.946_274, ..sphere(32) }).unwrap();
        let r = 19.946_274f32;
        let a = std::f32::consts::PI / 16.0;
        assert!(near(m.positions[1], [0.0, r * a.sin(), r * a.cos()]), "{:?}", m.positions[1]);
        let t = triangles(&m);
        assert_eq!((t[0], t[31], t[32], t[33]), ([0, 1, 2], [0, 32, 1], [1, 33, 34], [1, 34, 2]));
        assert_eq!((t[928], t[959]), ([481, 450, 449], [481, 449, 480]));
        assert_eq!(m.polygons[32].corners, vec![1, 33, 34, 2]);
    }

    #[test]
    fn sphere_hemisphere_chop_squash_and_base_to_pivot() {
        // Hemisphere 0.4, 8 segments, chop: the lowest row is at (1 − 0.4)·π = 0.6π; rows =
        // ⌊0.6π / (2π/8)⌋ + 1 = ⌊2.4⌋ + 1 = 3, at π/4, π/2 and (forced) 0.6π. Vertices
        // 1 + 3·8 + 1 = 26, the last the base centre at z = cos(0.6π) = −0.30902. Faces: 8
        // top, 2 bands of 8 quads, 8 base triangles (material 0, group 2): 8 + 32 + 8 = 48.
        let p = SphereParams { hemisphere: 0.4, ..sphere(8) };
        let m = sphere_mesh(&p).unwrap();
        assert_eq!((m.positions.len(), triangles(&m).len()), (26, 48));
        assert!((m.positions[1].z - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert!((m.positions[9].z).abs() < 1e-6);
        assert!((m.positions[17].z + 0.309_017).abs() < 1e-5);
        assert!((m.positions[25].z + 0.309_017).abs() < 1e-5);
        let base = m.polygons.last().unwrap();
        assert_eq!((base.corners.clone(), base.material, base.smoothing), (vec![25, 17, 24], 0, 2));
        // Squash: the step is 2·0.6π / (8 − 2) = 0.2π and rows = 8/2 − 1 = 3: z of row 1 is
        // cos(0.2π) = 0.80902; same counts.
        let q = sphere_mesh(&SphereParams { squash: true, ..p }).unwrap();
        assert_eq!((q.positions.len(), triangles(&q).len()), (26, 48));
        assert!((q.positions[1].z - 0.809_017).abs() < 1e-5);
        // Base to pivot: every z raised by −cos(0.6π) = 0.30902, the base centre to 0.
        let b = sphere_mesh(&SphereParams { base_to_pivot: true, ..p }).unwrap();
        assert!(b.positions[25].z.abs() < 1e-6 && (b.positions[0].z - 1.309_017).abs() < 1e-5);
        // A whole sphere with base to pivot sits on its bottom pole.
        let w = sphere_mesh(&SphereParams { base_to_pivot: true, ..sphere(4) }).unwrap();
        assert!(near(w.positions[5], [0.0, 0.0, 0.0]) && near(w.positions[0], [0.0, 0.0, 2.0]));
    }

    #[test]
    fn sphere_slice_adds_a_side_and_row_centres() {
        // 4 segments, slice from π/2 to 0: the ring runs from 0 over π/2 in 4 steps of π/8
        // (5 sides), then each row's centre: 1 row, vertices 1 + 6 + 1 = 8. Faces: the top
        // fan over 6 (the last two are the slice faces, ids 2 and 3), the bottom fan
        // likewise: 12 triangles, a closed surface (8 − 18 + 12 = 2).
        let p = SphereParams { slice: true, slice_from: std::f32::consts::FRAC_PI_2, ..sphere(4) };
        let m = sphere_mesh(&p).unwrap();
        assert_eq!(m.positions.len(), 8);
        let s = std::f32::consts::FRAC_PI_8;
        assert!(near(m.positions[2], [s.cos(), s.sin(), m.positions[2].z]));
        assert!(near(m.positions[5], [0.0, 1.0, m.positions[5].z]), "{:?}", m.positions[5]);
        assert!(near(m.positions[6], [0.0, 0.0, m.positions[6].z]));
        let t = triangles(&m);
        assert_eq!(&t[4..6], &[[0, 5, 6], [0, 6, 1]]);
        assert_eq!(&t[10..12], &[[7, 6, 5], [7, 1, 6]]);
        let ids: Vec<u16> = m.polygons.iter().map(|p| p.material).collect();
        assert_eq!(ids, [1, 1, 1, 1, 2, 3, 1, 1, 1, 1, 2, 3]);
        assert_eq!(m.counts().edges, 18);
        // Hemisphere 0.4 with the slice, chop: rows = ⌊0.6π / (π/2)⌋ + 1 = 2; row 2 has no
        // centre (the base centre, vertex 12, takes its place): 1 + 6 + 5 + 1 = 13 vertices,
        // 2·6·2 − 2 = 22 triangles; the last band quad joins row 1's centre (6), the base
        // centre (12) and the first sides of rows 2 and 1 (7, 1).
        let h = sphere_mesh(&SphereParams { hemisphere: 0.4, ..p }).unwrap();
        assert_eq!((h.positions.len(), triangles(&h).len()), (13, 22));
        assert_eq!(h.polygons[6 + 5].corners, vec![6, 12, 7, 1]);
        assert_eq!(h.polygons[6 + 4].corners, vec![5, 11, 12, 6]);
        assert_eq!(h.polygons.last().unwrap().corners, vec![12, 11, 10]);
        let k = h.counts();
        assert_eq!(k.vertices + k.triangles, 13 + 22);
    }

    #[test]
    fn sphere_counts_match_the_layout_formula() {
        // vertices(): rows·(segments + 2 with a slice) + 2, one less for a sliced hemisphere.
        for p in [
            sphere(32),
            SphereParams { hemisphere: 0.4, ..sphere(8) },
            SphereParams { slice: true, slice_from: 1.0, ..sphere(12) },
            SphereParams { slice: true, slice_from: 1.0, hemisphere: 0.3, squash: true, ..sphere(12) },
        ] {
            assert_eq!(sphere_mesh(&p).unwrap().positions.len() as u64, p.vertices(), "{p:?}");
        }
        let bad = SphereParams { hemisphere: f32::NAN, ..sphere(8) };
        assert!(sphere_mesh(&bad).is_err());
    }
}
