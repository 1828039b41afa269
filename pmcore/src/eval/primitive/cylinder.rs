//! Cylinder and Cone: revolved profiles with caps. The cylinder's tri mesh is built in
//! Max's order with one cap segment; both convert to the poly object Max makes of them.

use super::{n, params_of, pole, prim_stop, revolve, ring, segs, within, MaxOrder, Primitive, PrimitiveError};
use crate::classes::ids;
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::eval::params::ParamError;
use crate::model::scene_index::SceneObject;
use glam::Vec3;

/// The Cylinder's evaluator: its tri mesh is in Max's order with one cap segment and no
/// slice; an Edit Poly directly on it receives Max's poly conversion of it.
pub const CYLINDER: Primitive =
    Primitive { module: module_path!(), build, order: MaxOrder::When(one_cap_segment), as_poly: Some(build_as_poly) };

/// The Cone's evaluator: an Edit Poly directly on it receives Max's poly conversion of it.
pub const CONE: Primitive =
    Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: Some(build_as_poly) };

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

/// Cylinder (radius, height, height segments, cap segments, sides, slice 6) and cone
/// (radius 1, radius 2, height, …, slice 7) parameters.
fn cylinder_params(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<CylinderParams, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e: ParamError| param_stop(base, e);
    let class_id = base.class.as_ref().map(|c| c.class_id).unwrap_or_default();
    Ok(if class_id == ids::CONE {
        CylinderParams {
            radius1: p.float(0).map_err(pe)?,
            radius2: p.float(1).map_err(pe)?,
            height: p.float(2).map_err(pe)?,
            height_segs: p.int(3).map_err(pe)?,
            cap_segs: p.int(4).map_err(pe)?,
            sides: p.int(5).map_err(pe)?,
            slice: p.int_or(7, 0).map_err(pe)? != 0,
        }
    } else {
        let r = p.float(0).map_err(pe)?;
        CylinderParams {
            radius1: r,
            radius2: r,
            height: p.float(1).map_err(pe)?,
            height_segs: p.int(2).map_err(pe)?,
            cap_segs: p.int(3).map_err(pe)?,
            sides: p.int(4).map_err(pe)?,
            slice: p.int_or(6, 0).map_err(pe)? != 0,
        }
    })
}

/// The cylinder or cone from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let q = cylinder_params(ctx, base)?;
    within(ctx, base, q.vertices())?;
    cylinder_mesh(&q).map_err(|e| prim_stop(base, e))
}

/// A cylinder or cone base as the poly object Max converts it to ([`cylinder_poly`]).
fn build_as_poly(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let q = cylinder_params(ctx, base)?;
    within(ctx, base, q.vertices())?;
    cylinder_poly(&q).map_err(|e| prim_stop(base, e))
}

/// Whether [`cylinder_mesh`] builds this cylinder in Max's vertex and face order: checked
/// with one cap segment (`guardTower.FBX`'s `Cylinder009`, in order, and its `Cylinder001`,
/// whose Edit Poly deletes face 91 of the poly conversion: the top cap), not with more.
fn one_cap_segment(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> bool {
    cylinder_params(ctx, base).is_ok_and(|q| q.cap_segs == 1 && !q.slice)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;

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
}
