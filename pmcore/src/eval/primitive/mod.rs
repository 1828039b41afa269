//! Procedural objects as Max builds them, one file per object family, from their parameter
//! values: the vertex layout and face structure of Max's tri objects (triangles, joined
//! across hidden edges into the polygons Max shows when it converts to poly). Each file
//! exports one descriptor ([`Primitive`]) that its class's row in the class catalogue
//! ([`crate::classes::CATALOGUE`]) names.
//!
//! Parameter structs are filled from the object's parameter block ([`crate::eval::params`]);
//! the generators only see numbers, so each is unit-tested against counts worked out by
//! hand from the parameters. This module keeps what the families share: the parameter
//! checks, the revolved profiles (Cylinder, Tube, Torus) and the memory guard.

use super::context::EvalContext;
use super::mesh::{EvalMesh, FaceRule, MapChannel, Polygon};
use super::outcome::{param_stop, stop, Stop};
use super::params::Params;
use crate::model::scene_index::SceneObject;
use glam::{Vec2, Vec3};
use std::f32::consts::TAU;

pub mod bone;
pub mod boolean;
pub mod r#box;
pub mod cylinder;
pub mod geosphere;
pub mod plane;
pub mod pyramid;
pub mod sphere;
pub mod torus;
pub mod tube;

/// Builds an object's mesh from its parameters.
pub type Build = fn(&EvalContext<'_, '_>, &SceneObject<'_>) -> Result<EvalMesh, Stop>;

/// Decides a property of one object from its parameters.
pub type Check = fn(&EvalContext<'_, '_>, &SceneObject<'_>) -> bool;

/// Whether a builder's vertex and face indices are Max's own (what Edit Poly and Edit Mesh
/// records index).
#[derive(Clone, Copy)]
pub enum MaxOrder {
    /// Not checked: records over it are not trusted with indices.
    No,
    /// Checked against an export Max wrote, tri mesh and poly conversion (the Box).
    Yes,
    /// Its tri mesh is (Edit Mesh indexes it), its own poly conversion is not (the Sphere).
    TriOnly,
    /// For the objects whose parameters pass the check (a Cylinder with one cap segment).
    When(Check),
}

/// What the stack needs to know of an object class.
#[derive(Clone, Copy)]
pub struct Primitive {
    /// The evaluator's module (`module_path!()`): which file implements it.
    pub module: &'static str,
    /// Its tri mesh.
    pub build: Build,
    /// Whether that mesh is in Max's order.
    pub order: MaxOrder,
    /// The poly object Max converts it to, built in Max's order: what an Edit Poly directly
    /// on it receives (Cylinder, Cone).
    pub as_poly: Option<Build>,
}

/// The object's main parameter block (reference 0).
pub(crate) fn params_of(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<Params, Stop> {
    Params::of(ctx.index, base, 0).map_err(|e| param_stop(base, e))
}

/// Stops an object whose mesh would hold more `vertices` than the budget has room for,
/// before it is built.
pub(crate) fn within(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>, vertices: u64) -> Result<(), Stop> {
    if vertices > ctx.budget {
        return Err(stop(base, format!("{vertices} vertices over the memory budget ({} left)", ctx.budget)));
    }
    Ok(())
}

/// A builder's refusal stops the object, named.
pub(crate) fn prim_stop(o: &SceneObject<'_>, e: PrimitiveError) -> Stop {
    stop(o, e.to_string())
}

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

#[cfg(test)]
mod tests {
    use super::bone::*;
    use super::cylinder::*;
    use super::geosphere::*;
    use super::plane::*;
    use super::r#box::*;
    use super::sphere::*;
    use super::torus::*;
    use super::tube::*;
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
