//! Procedural primitives as Max builds them, from their parameter values: the vertex
//! layout and face structure of Max's tri objects (triangles, joined across hidden
//! edges into the polygons Max shows when it converts to poly).
//!
//! Parameter structs are filled by [`super::params`] from the object's parameter block;
//! the generators only see numbers, so each is unit-tested against counts worked out by
//! hand from the parameters.

use super::mesh::{EvalMesh, FaceRule, MapChannel, Polygon, Welder};
use glam::{Vec2, Vec3};
use std::f32::consts::TAU;

/// Largest segment / side count a generator accepts (anything larger is a corrupt value,
/// not a scene; it also bounds the memory a hostile parameter can ask for).
pub const MAX_SEGMENTS: i32 = 10_000;

/// Why a primitive's parameters cannot be turned into a mesh.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrimitiveError {
    /// A count outside its range.
    #[error("parameter `{name}` = {value} is out of range")]
    OutOfRange {
        /// Parameter name.
        name: &'static str,
        /// Its value.
        value: i32,
    },
    /// A setting whose topology is not implemented (slice, hemisphere …).
    #[error("`{0}` is not evaluated")]
    Unsupported(&'static str),
}

fn segs(name: &'static str, value: i32, min: i32) -> Result<u32, PrimitiveError> {
    if (min..=MAX_SEGMENTS).contains(&value) {
        Ok(value as u32)
    } else {
        Err(PrimitiveError::OutOfRange { name, value })
    }
}

/// A segment count as the generators clamp it (negative → 0), widened for formulas.
fn n(v: i32) -> u64 {
    u64::try_from(v).unwrap_or(0)
}

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

/// One point of a revolved profile: radius from the axis and height. A point on the axis
/// is one vertex, not a ring.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ProfilePoint {
    radius: f32,
    z: f32,
    axis: bool,
}

fn ring(radius: f32, z: f32) -> ProfilePoint {
    ProfilePoint { radius, z, axis: false }
}

fn pole(z: f32) -> ProfilePoint {
    ProfilePoint { radius: 0.0, z, axis: true }
}

/// Revolves `profile` around Z with `sides` segments. Between two rings: quads; between a
/// pole and a ring: a fan of triangles, which is one polygon when `hidden_fans` (a cap:
/// Max hides the spokes) and separate triangles otherwise (a sphere's pole). A `closed`
/// profile also joins its last point to its first (tube, torus).
fn revolve(profile: &[ProfilePoint], sides: u32, closed: bool, hidden_fans: bool) -> EvalMesh {
    revolve_from(profile, sides, closed, hidden_fans, 0.0)
}

/// [`revolve`] with the first side at angle `start` (radians from +X, counter-clockwise).
fn revolve_from(profile: &[ProfilePoint], sides: u32, closed: bool, hidden_fans: bool, start: f32) -> EvalMesh {
    let mut positions = Vec::new();
    let mut first = Vec::with_capacity(profile.len());
    for p in profile {
        first.push(positions.len() as u32);
        if p.axis {
            positions.push(Vec3::new(0.0, 0.0, p.z));
        } else {
            for s in 0..sides {
                let a = start + TAU * s as f32 / sides as f32;
                positions.push(Vec3::new(p.radius * a.cos(), p.radius * a.sin(), p.z));
            }
        }
    }
    let at = |k: usize, s: u32| if profile[k].axis { first[k] } else { first[k] + s % sides };
    let mut polygons = Vec::new();
    let pairs = if closed { profile.len() } else { profile.len().saturating_sub(1) };
    for k in 0..pairs {
        let n = (k + 1) % profile.len();
        match (profile[k].axis, profile[n].axis) {
            (true, true) => {}
            (false, false) => {
                for s in 0..sides {
                    polygons.push(Polygon::new(vec![at(k, s), at(k, s + 1), at(n, s + 1), at(n, s)]));
                }
            }
            (k_axis, _) => {
                let (centre, rim) = if k_axis { (k, n) } else { (n, k) };
                let fan: Vec<[u32; 3]> = (0..sides).map(|s| [first[centre], at(rim, s), at(rim, s + 1)]).collect();
                if hidden_fans {
                    let corners = (0..sides).map(|s| at(rim, s)).collect();
                    polygons.push(Polygon { corners, material: 0, smoothing: 0, triangles: fan });
                } else {
                    polygons.extend(fan.into_iter().map(|t| Polygon::new(t.to_vec())));
                }
            }
        }
    }
    EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles }
}

/// Where Torus and Tube put their first side: on +Y (measured on the NeL exports of
/// mtp-target's snow_torus.max and snow_tube.max, whose object offsets are identity: the
/// map-channel seam lies on +Y).
const RING_START: f32 = std::f32::consts::FRAC_PI_2;

/// Map channel 1 of a closed profile of rings revolved by [`revolve_from`] (Torus, Tube):
/// a (profile + 1) × (sides + 1) grid of map vertices, seams doubled; `u` = profile index
/// / profile length, `v` = 1 − side / sides (Max's `v` runs clockwise seen from +Z while
/// the sides run counter-clockwise). One map quad per revolved quad, in the same order.
/// Measured on the same two exports: torus `u` steps 1/12 up from the outer equator,
/// `v` = 1/12 at 60° (the side before +Y); tube `u` 1/12 per ring up the radius-2 wall.
fn ring_map(profile: usize, sides: u32) -> MapChannel {
    let columns = sides as usize + 1;
    let mut vertices = Vec::with_capacity((profile + 1) * columns);
    for k in 0..=profile {
        for s in 0..columns {
            vertices.push(Vec2::new(k as f32 / profile as f32, 1.0 - s as f32 / sides as f32));
        }
    }
    let at = |k: usize, s: usize| (k * columns + s) as u32;
    let mut faces = Vec::with_capacity(profile * sides as usize);
    for k in 0..profile {
        for s in 0..sides as usize {
            faces.push(vec![at(k, s), at(k, s + 1), at(k + 1, s + 1), at(k + 1, s)]);
        }
    }
    MapChannel { vertices, faces }
}

/// Cylinder (class 0x00000012, 0) and Cone (class 0xa86c23dd, 0): radius at the base and
/// at the top (equal for a cylinder), height, height / cap segments, sides.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CylinderParams {
    /// Base radius.
    pub radius1: f32,
    /// Top radius.
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
}

impl CylinderParams {
    /// Vertices: sides·(height segs + 1) side rings, 2·sides·(cap segs − 1) cap rings, 2 centres.
    pub fn vertices(&self) -> u64 {
        let (h, c, s) = (n(self.height_segs), n(self.cap_segs), n(self.sides));
        s * (h + 1) + 2 * s * c.saturating_sub(1) + 2
    }
}

/// Cylinder / cone: base centre, base cap rings, side rings, top cap rings, top centre.
pub fn cylinder_mesh(p: &CylinderParams) -> Result<EvalMesh, PrimitiveError> {
    let h = segs("height segs", p.height_segs, 1)?;
    let c = segs("cap segs", p.cap_segs, 1)?;
    let s = segs("sides", p.sides, 3)?;
    if p.slice {
        return Err(PrimitiveError::Unsupported("slice"));
    }
    let mut profile = vec![pole(0.0)];
    profile.extend((1..c).map(|i| ring(p.radius1 * i as f32 / c as f32, 0.0)));
    profile.extend((0..=h).map(|i| {
        let t = i as f32 / h as f32;
        ring(p.radius1 + (p.radius2 - p.radius1) * t, p.height * t)
    }));
    profile.extend((1..c).rev().map(|i| ring(p.radius2 * i as f32 / c as f32, p.height)));
    profile.push(pole(p.height));
    // The spokes of the centre fans are hidden with one cap segment (the cap is one
    // polygon) and visible with more (the fan stays triangles) — measured:
    // `wild/michaeldonalgallagher__myp38_gondola2.max`, a 10-sided cylinder with 2 cap
    // segments under Edit Poly counts its 2 centres and 2 × 10 fan triangles in Mesh Totals.
    let mut mesh = revolve(&profile, s, false, c == 1);
    // The bottom fan (the first polygon, or the first `sides` triangles) faces down: Max's
    // triangles are (centre, rim j + 1, rim j) — measured: `guardTower.FBX`'s `Cylinder009`
    // (18 sides, 5 height segments, one cap segment) starts [0, 2, 1], [0, 3, 2] … [0, 1, 18],
    // its vertices in this order. The revolve winds it up, like the top.
    let bottom = if c == 1 { 1 } else { s as usize };
    for f in mesh.polygons.iter_mut().take(bottom) {
        f.corners.reverse();
        for t in &mut f.triangles {
            t.swap(1, 2);
        }
    }
    Ok(mesh)
}

/// A cylinder or cone as the poly object Max converts it to (what an Edit Poly directly on
/// it receives), in Max's own order (the SDK sample `cyl.cpp`, `BuildCylinderPoly`):
/// `sides` vertices per height row from the bottom (angle `2π·j/sides` from +X, radius
/// interpolated), side quads `(a, a+1, a+1+s, a+s)` row by row; one cap segment: the
/// bottom cap one polygon over row 0 reversed, the top one over the last row; more: per
/// cap, rings from the rim inward (radius `r·(c − i)/c`), the quads between them, the
/// centre vertex, and the triangles to it (bottom cap first, then the top).
pub fn cylinder_poly(p: &CylinderParams) -> Result<EvalMesh, PrimitiveError> {
    let h = segs("height segs", p.height_segs, 1)?;
    let c = segs("cap segs", p.cap_segs, 1)?;
    let s = segs("sides", p.sides, 3)?;
    if p.slice {
        return Err(PrimitiveError::Unsupported("slice"));
    }
    let delta = 2.0 * std::f32::consts::PI / s as f32;
    let at = |j: u32, radius: f32, z: f32| {
        let a = delta * j as f32;
        Vec3::new(a.cos() * radius, a.sin() * radius, z)
    };
    let mut positions = Vec::new();
    let mut polygons = Vec::new();
    for i in 0..=h {
        let u = i as f32 / h as f32;
        let radius = p.radius1 * (1.0 - u) + p.radius2 * u;
        positions.extend((0..s).map(|j| at(j, radius, p.height * u)));
        if i > 0 {
            for j in 0..s {
                let a = (i - 1) * s + j;
                let b = (i - 1) * s + (j + 1) % s;
                polygons.push(Polygon::new(vec![a, b, b + s, a + s]));
            }
        }
    }
    if c == 1 {
        polygons.push(Polygon::new((0..s).rev().collect()));
        polygons.push(Polygon::new((0..s).map(|j| s * h + j).collect()));
    } else {
        // (rim row start, radius, z, bottom?) per cap.
        for (rim, radius, z, bottom) in [(0, p.radius1, 0.0, true), (s * h, p.radius2, p.height, false)] {
            let start = positions.len() as u32;
            for i in 1..c {
                let r = radius * (c - i) as f32 / c as f32;
                positions.extend((0..s).map(|j| at(j, r, z)));
                let (outer, inner) = if i == 1 { (rim, start) } else { (start + s * (i - 2), start + s * (i - 1)) };
                for j in 0..s {
                    let (o0, o1) = (outer + j, outer + (j + 1) % s);
                    let (i0, i1) = (inner + j, inner + (j + 1) % s);
                    polygons.push(Polygon::new(if bottom { vec![o1, o0, i0, i1] } else { vec![o0, o1, i1, i0] }));
                }
            }
            let centre = positions.len() as u32;
            positions.push(Vec3::new(0.0, 0.0, z));
            let last = start + s * (c - 2);
            for j in 0..s {
                let (a, b) = (last + j, last + (j + 1) % s);
                polygons.push(Polygon::new(if bottom { vec![b, a, centre] } else { vec![a, b, centre] }));
            }
        }
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Polygons })
}

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
    let mut positions = Vec::with_capacity(l.vertices as usize);
    positions.push(Vec3::new(0.0, 0.0, radius));
    // Angles accumulate in f32 as Max adds them; sines and cosines in f64, as the C
    // library computes them for a float argument, then rounded.
    let (cos, sin) = (|x: f32| f64::from(x).cos() as f32, |x: f32| f64::from(x).sin() as f32);
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

    let sides = if p.slice { l.sides + 1 } else { l.sides };
    let smooth = |group: u32| if p.smooth { group } else { 0 };
    // (material id, smoothing group) of a regular face and of the two slice sides.
    let regular = (1u16, smooth(1));
    let (slice_a, slice_b) = ((2u16, smooth(4)), (3u16, smooth(8)));
    let triangle = |corners: [u32; 3], (material, smoothing): (u16, u32)| Polygon {
        corners: corners.to_vec(),
        material,
        smoothing,
        triangles: Vec::new(),
    };
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
    let last_vertex = l.vertices - 1;
    let (last_side, almost_last) = (sides - 1, sides - 2);
    let odd_point = p.slice && !l.whole;
    let odd_middle = odd_point && l.rows == 2;
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
            polygons.push(Polygon {
                corners: vec![a, b, c, d],
                material,
                smoothing,
                triangles: vec![[a, b, c], [a, c, d]],
            });
        }
    }
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
    if p.base_to_pivot {
        let shift = cos(l.lowest) * radius;
        for v in &mut positions {
            v.z -= shift;
        }
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// GeoSphere base solid (its `Geodesic Base Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeoBase {
    /// Tetrahedron.
    Tetra,
    /// Octahedron.
    Octa,
    /// Icosahedron.
    Icosa,
}

/// GeoSphere (class 0x00000000, 0x00007f9e).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoSphereParams {
    /// Radius.
    pub radius: f32,
    /// Segments (subdivisions of each base edge).
    pub segments: i32,
    /// Base solid.
    pub base: GeoBase,
    /// Hemisphere.
    pub hemisphere: bool,
}

impl GeoSphereParams {
    /// Vertices: F·s²/2 + 2 over the base solid's F faces (Euler: E = 3F/2, V = 2 + E − F).
    pub fn vertices(&self) -> u64 {
        let faces = match self.base {
            GeoBase::Tetra => 4,
            GeoBase::Octa => 8,
            GeoBase::Icosa => 20,
        };
        let s = n(self.segments);
        faces * s * s / 2 + 2
    }
}

fn base_solid(base: GeoBase) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    match base {
        GeoBase::Tetra => (
            vec![
                Vec3::new(1.0, 1.0, 1.0),
                Vec3::new(-1.0, -1.0, 1.0),
                Vec3::new(-1.0, 1.0, -1.0),
                Vec3::new(1.0, -1.0, -1.0),
            ],
            vec![[0, 1, 3], [0, 2, 1], [0, 3, 2], [1, 2, 3]],
        ),
        GeoBase::Octa => (
            vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z],
            vec![[4, 0, 2], [4, 2, 1], [4, 1, 3], [4, 3, 0], [5, 2, 0], [5, 1, 2], [5, 3, 1], [5, 0, 3]],
        ),
        GeoBase::Icosa => {
            let t = (1.0 + 5f32.sqrt()) / 2.0;
            let v = vec![
                Vec3::new(-1.0, t, 0.0),
                Vec3::new(1.0, t, 0.0),
                Vec3::new(-1.0, -t, 0.0),
                Vec3::new(1.0, -t, 0.0),
                Vec3::new(0.0, -1.0, t),
                Vec3::new(0.0, 1.0, t),
                Vec3::new(0.0, -1.0, -t),
                Vec3::new(0.0, 1.0, -t),
                Vec3::new(t, 0.0, -1.0),
                Vec3::new(t, 0.0, 1.0),
                Vec3::new(-t, 0.0, -1.0),
                Vec3::new(-t, 0.0, 1.0),
            ];
            let f = vec![
                [0, 11, 5],
                [0, 5, 1],
                [0, 1, 7],
                [0, 7, 10],
                [0, 10, 11],
                [1, 5, 9],
                [5, 11, 4],
                [11, 10, 2],
                [10, 7, 6],
                [7, 1, 8],
                [3, 9, 4],
                [3, 4, 2],
                [3, 2, 6],
                [3, 6, 8],
                [3, 8, 9],
                [4, 9, 5],
                [2, 4, 11],
                [6, 2, 10],
                [8, 6, 7],
                [9, 8, 1],
            ];
            (v, f)
        }
    }
}

/// GeoSphere: every face of the base solid split into `segments²` triangles, points
/// pushed onto the sphere; points on shared base edges are welded by their barycentric
/// key over the base vertices.
pub fn geosphere_mesh(p: &GeoSphereParams) -> Result<EvalMesh, PrimitiveError> {
    let n = segs("segments", p.segments, 1)?;
    if p.hemisphere {
        return Err(PrimitiveError::Unsupported("hemisphere"));
    }
    let (base_v, base_f) = base_solid(p.base);
    let mut welder = Welder::default();
    let mut polygons = Vec::new();
    for f in &base_f {
        let mut point = |i: u32, j: u32| {
            let k = n - i - j;
            // Key: the (base vertex, weight) pairs with non-zero weight, sorted.
            let mut pairs: Vec<(u32, u32)> =
                [(f[0], k), (f[1], i), (f[2], j)].into_iter().filter(|&(_, w)| w > 0).collect();
            pairs.sort();
            let mut key = [-1i64; 3];
            for (slot, (v, w)) in pairs.iter().enumerate() {
                key[slot] = i64::from(*v) * (i64::from(n) + 1) + i64::from(*w);
            }
            let sum =
                base_v[f[0] as usize] * k as f32 + base_v[f[1] as usize] * i as f32 + base_v[f[2] as usize] * j as f32;
            welder.vertex(key, sum.normalize() * p.radius)
        };
        for j in 0..n {
            for i in 0..n - j {
                let (a, b, c) = (point(i, j), point(i + 1, j), point(i, j + 1));
                polygons.push(Polygon::new(vec![a, b, c]));
                if i + j + 1 < n {
                    let d = point(i + 1, j + 1);
                    polygons.push(Polygon::new(vec![b, d, c]));
                }
            }
        }
    }
    Ok(EvalMesh { positions: welder.positions, polygons, uv: None, rule: FaceRule::Triangles })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    fn vtp(m: &EvalMesh) -> (u64, u64, u64) {
        let c = m.counts();
        (c.vertices, c.triangles, c.polygons)
    }

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
    fn cylinder_poly_conversion_in_max_order() {
        // 4 sides, 1 height segment, radius 1, height 2. One cap segment: vertices (1,0,0),
        // (0,1,0), (−1,0,0), (0,−1,0) at z 0 then the same at z 2; sides (0 1 5 4) …
        // (3 0 4 7); bottom cap (3 2 1 0), top (4 5 6 7). Two cap segments: each cap adds a
        // ring at half the radius and a centre: bottom ring 8–11, centre 12, top ring
        // 13–16, centre 17; the bottom's first quad (1 0 8 9), its first triangle (9 8 12),
        // the top's (4 5 14 13) and (13 14 17).
        let p = CylinderParams {
            radius1: 1.0,
            radius2: 1.0,
            height: 2.0,
            height_segs: 1,
            cap_segs: 1,
            sides: 4,
            slice: false,
        };
        let m = cylinder_poly(&p).unwrap();
        assert_eq!(m.positions.len(), 8);
        assert!((m.positions[1] - Vec3::new(0.0, 1.0, 0.0)).length() < 1e-6);
        assert!((m.positions[7] - Vec3::new(0.0, -1.0, 2.0)).length() < 1e-6);
        let corners: Vec<Vec<u32>> = m.polygons.iter().map(|f| f.corners.clone()).collect();
        assert_eq!(
            corners,
            vec![
                vec![0, 1, 5, 4],
                vec![1, 2, 6, 5],
                vec![2, 3, 7, 6],
                vec![3, 0, 4, 7],
                vec![3, 2, 1, 0],
                vec![4, 5, 6, 7]
            ]
        );
        let two = cylinder_poly(&CylinderParams { cap_segs: 2, ..p }).unwrap();
        assert_eq!((two.positions.len(), two.polygons.len()), (18, 4 + 2 * 8));
        assert!((two.positions[8] - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-6);
        assert_eq!(two.positions[12], Vec3::ZERO);
        assert_eq!(two.positions[17], Vec3::new(0.0, 0.0, 2.0));
        assert_eq!(two.polygons[4].corners, vec![1, 0, 8, 9]);
        assert_eq!(two.polygons[8].corners, vec![9, 8, 12]);
        assert_eq!(two.polygons[12].corners, vec![4, 5, 14, 13]);
        assert_eq!(two.polygons[16].corners, vec![13, 14, 17]);
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

    #[test]
    fn plane_4_by_3() {
        // (4+1)(3+1) = 20 grid points, 4·3 = 12 quads, 24 triangles.
        let m = plane_mesh(&PlaneParams { length: 1.0, width: 1.0, length_segs: 4, width_segs: 3 }).unwrap();
        assert_eq!(vtp(&m), (20, 24, 12));
        assert_eq!(m.uv.as_ref().unwrap().faces.len(), 12);
    }

    #[test]
    fn cylinder_default_and_with_cap_segments() {
        // Max's default cylinder: 18 sides, 5 height segments, 1 cap segment. Side rings:
        // 18·6 = 108, plus the 2 cap centres: 110. Triangles: sides 2·18·5 = 180, caps
        // 2·18 fan triangles: 216. Polygons: 90 quads + 2 caps (18-gons, hidden spokes) = 92.
        let p = CylinderParams {
            radius1: 1.0,
            radius2: 1.0,
            height: 2.0,
            height_segs: 5,
            cap_segs: 1,
            sides: 18,
            slice: false,
        };
        let m = cylinder_mesh(&p).unwrap();
        assert_eq!(vtp(&m), (110, 216, 92));
        // As a poly object the two centres no face corner uses are gone: 108 vertices.
        assert_eq!(m.into_poly().positions.len(), 108);
        // 8 sides, 1 height segment, 3 cap segments: rings 2 (sides) + 2·2 (cap) = 6 → 48,
        // + 2 centres = 50. Triangles: 2·8·1 + 2·(8 + 2·8·2) = 16 + 80 = 96.
        let q = CylinderParams { sides: 8, height_segs: 1, cap_segs: 3, ..p };
        // Polygons: 8 side quads, per cap 2·8 ring quads + 8 fan triangles (visible spokes).
        assert_eq!(vtp(&cylinder_mesh(&q).unwrap()), (50, 96, 8 + 2 * (8 + 8 + 8)));
        assert!(cylinder_mesh(&CylinderParams { slice: true, ..p }).is_err());
    }

    #[test]
    fn cylinder_bottom_fan_faces_down_top_fan_up() {
        // 4 sides, 1 height and 1 cap segment: vertex 0 the bottom centre, 1–4 the bottom
        // ring (angles 0, 90, 180, 270°), 5–8 the top ring, 9 the top centre. The bottom cap
        // (first polygon) is (4, 3, 2, 1) with triangles (0, j + 1, j): (0, 2, 1) … (0, 1, 4)
        // — its normal (v2 − v0) × (v1 − v0) = (0, 1, 0) × (1, 0, 0) = (0·0 − 0·0, 0·1 − 0·0,
        // 0·0 − 1·1) = (0, 0, −1); the top cap
        // (last polygon) stays (5, 6, 7, 8) with (9, 5, 6) … , normal +Z.
        let p = CylinderParams {
            radius1: 1.0,
            radius2: 1.0,
            height: 1.0,
            height_segs: 1,
            cap_segs: 1,
            sides: 4,
            slice: false,
        };
        let m = cylinder_mesh(&p).unwrap();
        let bottom = &m.polygons[0];
        assert_eq!(bottom.corners, vec![4, 3, 2, 1]);
        assert_eq!(bottom.triangles, vec![[0, 2, 1], [0, 3, 2], [0, 4, 3], [0, 1, 4]]);
        let top = m.polygons.last().unwrap();
        assert_eq!(top.corners, vec![5, 6, 7, 8]);
        assert_eq!(top.triangles[0], [9, 5, 6]);
        let [a, b, c] = bottom.triangles[0].map(|v| m.positions[v as usize]);
        assert!(((b - a).cross(c - a) - Vec3::new(0.0, 0.0, -1.0)).length() < 1e-6);
    }

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

    fn sphere(segments: i32) -> SphereParams {
        SphereParams {
            radius: 1.0,
            segments,
            smooth: true,
            hemisphere: 0.0,
            squash: false,
            base_to_pivot: false,
            slice: false,
            slice_from: 0.0,
            slice_to: 0.0,
            quarter_turn: false,
        }
    }

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

    #[test]
    fn bone_without_fins() {
        // Pivot point + two sections of 4: V = 9. Triangles: 4 at the tip, 2·4 on the sides,
        // 2 at the end cap = 14; polygons 4 + 4 + 1 = 9.
        let p = BoneParams { width: 10.0, height: 10.0, taper: 0.9, length: 100.0, fins: false };
        assert_eq!(vtp(&bone_mesh(&p).unwrap()), (9, 14, 9));
        assert!(bone_mesh(&BoneParams { fins: true, ..p }).is_err());
    }

    #[test]
    fn geosphere_icosa_octa_tetra() {
        // Icosahedron, 4 segments: 20·4² = 320 triangles; V = 10·4² + 2 = 162 (Euler with
        // E = 3F/2 = 480: V = 2 + 480 − 320).
        let p = GeoSphereParams { radius: 1.0, segments: 4, base: GeoBase::Icosa, hemisphere: false };
        assert_eq!(vtp(&geosphere_mesh(&p).unwrap()), (162, 320, 320));
        // Octahedron, 2 segments: 8·4 = 32 faces, V = 2 + 48 − 32 = 18.
        let o = GeoSphereParams { base: GeoBase::Octa, segments: 2, ..p };
        assert_eq!(vtp(&geosphere_mesh(&o).unwrap()), (18, 32, 32));
        // Tetrahedron, 3 segments: 4·9 = 36 faces, V = 2 + 54 − 36 = 20.
        let t = GeoSphereParams { base: GeoBase::Tetra, segments: 3, ..p };
        assert_eq!(vtp(&geosphere_mesh(&t).unwrap()), (20, 36, 36));
    }

    /// Map channel 1 present, one map face per polygon with its arity, indices in range.
    fn mapped(m: &EvalMesh) -> bool {
        m.uv.as_ref().is_some_and(|uv| {
            uv.faces.len() == m.polygons.len()
                && uv.faces.iter().zip(&m.polygons).all(|(f, p)| f.len() == p.corners.len())
                && uv.faces.iter().flatten().all(|&i| (i as usize) < uv.vertices.len())
        })
    }

    fn valid(m: &EvalMesh) -> bool {
        let v = m.positions.len() as u32;
        m.polygons
            .iter()
            .all(|p| p.corners.len() >= 3 && p.corners.iter().chain(p.triangles.iter().flatten()).all(|&c| c < v))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn generators_build_the_vertex_count_their_formula_gives(
            a in 1i32..7, b in 1i32..7, c in 1i32..5, sides in 3i32..20, base in 0usize..3,
        ) {
            let bx = BoxParams { length: 2.0, width: 3.0, height: 1.0, length_segs: a, width_segs: b, height_segs: c };
            let m = box_mesh(&bx).unwrap();
            proptest::prop_assert!(valid(&m));
            proptest::prop_assert_eq!(m.counts().vertices, bx.vertices());
            // Closed surface of quads: Euler characteristic 2.
            let k = m.counts();
            proptest::prop_assert_eq!(k.vertices + k.polygons, k.edges + 2);
            let pl = PlaneParams { length: 1.0, width: 1.0, length_segs: a, width_segs: b };
            proptest::prop_assert_eq!(plane_mesh(&pl).unwrap().counts().vertices, pl.vertices());
            let cy = CylinderParams { radius1: 1.0, radius2: 0.5, height: 1.0, height_segs: a, cap_segs: c, sides, slice: false };
            let m = cylinder_mesh(&cy).unwrap();
            proptest::prop_assert!(valid(&m));
            proptest::prop_assert_eq!(m.counts().vertices, cy.vertices());
            let tu = TubeParams { radius1: 2.0, radius2: 1.0, height: 1.0, height_segs: a, cap_segs: c, sides, slice: false, smooth: true, map_coords: true };
            let m = tube_mesh(&tu).unwrap();
            proptest::prop_assert!(valid(&m) && mapped(&m));
            proptest::prop_assert_eq!(m.counts().vertices, tu.vertices());
            let to = TorusParams { radius1: 3.0, radius2: 1.0, segments: sides, sides: a + 2, slice: false, smooth_all: true, map_coords: true };
            let m = torus_mesh(&to).unwrap();
            proptest::prop_assert!(valid(&m) && mapped(&m));
            proptest::prop_assert_eq!(m.counts().vertices, to.vertices());
            let sp = SphereParams { segments: sides + 1, hemisphere: (a - 1) as f32 / 8.0, slice: c > 2, slice_from: b as f32, ..sphere(4) };
            let m = sphere_mesh(&sp).unwrap();
            proptest::prop_assert!(valid(&m));
            proptest::prop_assert_eq!(m.counts().vertices, sp.vertices());
            // Whole, hemisphere or sliced, the sphere is a closed surface: V − E + P = 2.
            let k = m.counts();
            proptest::prop_assert_eq!(k.vertices + k.polygons, k.edges + 2);
            let g = GeoSphereParams { radius: 1.0, segments: a, base: [GeoBase::Tetra, GeoBase::Octa, GeoBase::Icosa][base], hemisphere: false };
            let m = geosphere_mesh(&g).unwrap();
            proptest::prop_assert!(valid(&m));
            proptest::prop_assert_eq!(m.counts().vertices, g.vertices());
        }
    }
}
