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
pub const SPHERE: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::TriOnly, as_poly: None };

/// Sphere (class 0x00000011, 0): parameter block ids 0 radius, 1 segments, 2 smooth,
/// 3 hemisphere, 4 chop (0) / squash (1), 5 base to pivot, 7 slice on, 8 slice from,
/// 9 slice to (radians).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SphereParams {
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
pub const SPHERE_NEW_MAP: u16 = 0x0100;

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
    pub fn vertices(&self) -> u64 {
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
pub fn sphere_mesh(p: &SphereParams) -> Result<EvalMesh, PrimitiveError> {
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
    Polygon { corners: corners.to_vec(), material, smoothing, triangles: Vec::new() }
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
            out.push(Polygon { corners: vec![a, b, c, d], material, smoothing, triangles: vec![[a, b, c], [a, c, d]] });
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
