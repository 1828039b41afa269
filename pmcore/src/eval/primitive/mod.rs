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

pub(crate) mod bone;
pub(crate) mod boolean;
pub(crate) mod r#box;
pub(crate) mod chamferbox;
pub(crate) mod cylinder;
pub(crate) mod geosphere;
pub(crate) mod hedra;
pub(crate) mod hose;
pub(crate) mod plane;
pub(crate) mod pyramid;
pub(crate) mod sphere;
pub(crate) mod teapot;
pub(crate) mod torus;
pub(crate) mod tube;

/// Builds an object's mesh from its parameters.
pub(crate) type Build = fn(&EvalContext<'_, '_>, &SceneObject<'_>) -> Result<EvalMesh, Stop>;

/// Decides a property of one object from its parameters.
pub(crate) type Check = fn(&EvalContext<'_, '_>, &SceneObject<'_>) -> bool;

/// Whether a builder's vertex and face indices are Max's own (what Edit Poly and Edit Mesh
/// records index).
#[derive(Clone, Copy)]
pub(crate) enum MaxOrder {
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
pub(crate) struct Primitive {
    /// The evaluator's module (`module_path!()`): which file implements it.
    #[cfg_attr(not(test), allow(dead_code))] // read by the catalogue tests (classes/tests.rs)
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
pub(crate) const MAX_SEGMENTS: i32 = 10_000;

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
                    polygons.push(Polygon { corners, material: 0, smoothing: 0, triangles: fan, hidden_edges: 0 });
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
    use super::cylinder::*;
    use super::geosphere::*;
    use super::plane::*;
    use super::r#box::*;
    use super::sphere::*;
    use super::torus::*;
    use super::tube::*;
    use super::*;

    pub(super) fn vtp(m: &EvalMesh) -> (u64, u64, u64) {
        let c = m.counts();
        (c.vertices, c.triangles, c.polygons)
    }

    pub(super) fn sphere(segments: i32) -> SphereParams {
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
