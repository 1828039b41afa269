//! The Hose extended primitive (Class ID 0x69f96a5d, 0x235c430a), free hoses with a round
//! section, in the vertex and face order of the SDK sample `hose.cpp` (`BuildMesh`,
//! `MakeSaveVertex`).
//!
//! Parameters (old ParamBlock indices, as `aliensowo__1111.max` stores its 32 hoses):
//! 0 end method (1 free; 0 bound to two objects, which is free too while either pick is
//! empty — references 1 and 2), 1 free length, 2 segments (at least 3), 3 smoothing
//! (0 all, 1 none, 2 sides, 3 segments), 4 renderable, 5 section (0 round, 1 rectangle,
//! 2 D-section), 6 round diameter, 7 round sides (at least 3), 8–18 the rectangle and
//! D-section sizes, 19 mapping (not built), 20 flex section on, 21 / 22 its start / stop
//! (fractions of the length), 23 flex cycles, 24 flex diameter change, 25–26 tensions.
//!
//! Mesh: `segments + 1` rings of `sides` points up Z (ring i at height length · i / segs,
//! point j at angle 2π(j + 1) / sides), then the base centre and the top centre:
//! (segs + 1)·sides + 2 vertices. Faces: a fan of `sides` base triangles (material 0), two
//! triangles per side quad (material 1), a fan of top triangles (material 2):
//! 2·sides·(segs + 1) faces. `aliensowo__1111.max`: segments 45, 8 sides → 370 / 736 per
//! hose, 32 hoses = 11840 / 23552, the part of its Mesh Totals its two boxes leave.
//! Within the flex section (start < i / segs < stop) a ring is scaled by
//! 1 + change · (1 − sin(2π · cycles · f + π/2)), f the position within the section.
//!
//! Bound hoses (a spline between two objects' transforms) and the rectangle and D sections
//! are not evaluated (named stops). The order is the sample's, not checked against an
//! export ([`MaxOrder::No`]).

use super::{params_of, prim_stop, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::Vec3;
use std::f32::consts::{FRAC_PI_2, TAU};

/// The Hose's evaluator.
pub(crate) const HOSE: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// Largest segment or side count built (the UI allows 100000 segments and 100 sides; a
/// larger stored value is refused rather than allocated).
const MAX_HOSE_COUNT: i32 = 100_000;

/// The flex section: a stretch whose rings swell and shrink.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Flex {
    /// Start, as a fraction of the length (id 21).
    pub start: f32,
    /// Stop (id 22).
    pub stop: f32,
    /// Cycles (id 23).
    pub cycles: i32,
    /// Diameter change (id 24), a fraction.
    pub change: f32,
}

/// A free hose with a round section.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HoseParams {
    /// Free length (id 1).
    pub length: f32,
    /// Segments (id 2).
    pub segments: i32,
    /// Smoothing (id 3): 0 all, 1 none, 2 sides, 3 segments.
    pub smooth: i32,
    /// Round diameter (id 6).
    pub diameter: f32,
    /// Round sides (id 7).
    pub sides: i32,
    /// Flex section, when on (id 20).
    pub flex: Option<Flex>,
}

impl HoseParams {
    /// (segments, sides) as the sample raises them (at least 3 each).
    fn counts(&self) -> (u32, u32) {
        (self.segments.max(3) as u32, self.sides.max(3) as u32)
    }

    /// Vertices: (segs + 1)·sides + 2.
    pub(crate) fn vertices(&self) -> u64 {
        let (segs, sides) = self.counts();
        (u64::from(segs) + 1) * u64::from(sides) + 2
    }

    /// Faces: 2·sides·(segs + 1).
    pub(crate) fn faces(&self) -> u64 {
        let (segs, sides) = self.counts();
        2 * u64::from(sides) * (u64::from(segs) + 1)
    }

    /// The radius factor of ring height fraction `incr` (0 outside the flex section: the
    /// sample then leaves the ring as it is).
    fn flex_scale(&self, incr: f32) -> f32 {
        match self.flex {
            Some(f) if incr > f.start && incr < f.stop => {
                let span = (f.stop - f.start).max(0.01);
                let here = (incr - f.start) / span;
                1.0 + f.change * (1.0 - (f.cycles as f32 * here * TAU + FRAC_PI_2).sin())
            }
            _ => 1.0,
        }
    }
}

/// A side triangle's smoothing group for ring `i`, side `j` (the sample's switch).
fn side_group(smooth: i32, i: u32, j: u32) -> u32 {
    let alternate = |k: u32| match k {
        0 => 2,
        k if k % 2 == 0 => 4,
        _ => 8,
    };
    match smooth {
        0 => 2,
        2 => alternate(j),
        3 => alternate(i),
        _ => 0,
    }
}

fn tri(corners: [u32; 3], smoothing: u32, material: u16, hidden_edges: u8) -> Polygon {
    Polygon { corners: corners.to_vec(), material, smoothing, triangles: Vec::new(), hidden_edges }
}

/// The free round hose as the sample builds it.
pub(crate) fn hose_mesh(p: &HoseParams) -> Result<EvalMesh, PrimitiveError> {
    if p.segments > MAX_HOSE_COUNT {
        return Err(PrimitiveError::OutOfRange { name: "segments", value: p.segments });
    }
    if p.sides > MAX_HOSE_COUNT {
        return Err(PrimitiveError::OutOfRange { name: "sides", value: p.sides });
    }
    if ![p.length, p.diameter].iter().all(|v| v.is_finite()) {
        return Err(PrimitiveError::Unsupported("non-finite hose size"));
    }
    let (segs, n) = p.counts();
    let r = p.diameter * 0.5;
    let ring: Vec<Vec3> =
        (0..n).map(|j| (j + 1) as f32 * (TAU / n as f32)).map(|u| Vec3::new(r * u.cos(), r * u.sin(), 0.0)).collect();
    let mut positions = Vec::with_capacity(p.vertices() as usize);
    for i in 0..=segs {
        let incr = i as f32 / segs as f32;
        let (centre, scale) = (Vec3::new(0.0, 0.0, p.length * incr), p.flex_scale(incr));
        positions.extend(ring.iter().map(|&v| centre + v * scale));
    }
    let (base, top) = (positions.len() as u32, positions.len() as u32 + 1);
    positions.push(Vec3::ZERO);
    positions.push(Vec3::new(0.0, 0.0, p.length));
    let cap_group = if p.smooth == 1 { 0 } else { 1 };
    let next = |v: u32, j: u32| if j + 1 < n { v + 1 } else { v + 1 - n };
    let mut polygons = Vec::with_capacity(p.faces() as usize);
    polygons.extend((0..n).map(|j| tri([next(j, j), j, base], cap_group, 0, 0b110)));
    for i in 0..segs {
        for j in 0..n {
            let (v1, g) = (i * n + j, side_group(p.smooth, i, j));
            let v2 = next(v1, j);
            let (v3, v4) = (v1 + n, v2 + n);
            polygons.push(tri([v4, v3, v1], g, 1, 0b100));
            polygons.push(tri([v1, v2, v4], g, 1, 0b100));
        }
    }
    let last = segs * n;
    polygons.extend((0..n).map(|j| tri([last + j, next(last + j, j), top], cap_group, 2, 0b110)));
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The Hose from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let bound = base.reference(1).is_some() && base.reference(2).is_some();
    if p.int(0).map_err(pe)? == 0 && bound {
        return Err(prim_stop(base, PrimitiveError::Unsupported("hose bound to two objects")));
    }
    if p.int(5).map_err(pe)? != 0 {
        return Err(prim_stop(base, PrimitiveError::Unsupported("hose section other than round")));
    }
    let flex = (p.int_or(20, 0).map_err(pe)? != 0)
        .then(|| -> Result<Flex, Stop> {
            Ok(Flex {
                start: p.float(21).map_err(pe)?,
                stop: p.float(22).map_err(pe)?,
                cycles: p.int(23).map_err(pe)?,
                change: p.float(24).map_err(pe)?,
            })
        })
        .transpose()?;
    let q = HoseParams {
        length: p.float(1).map_err(pe)?,
        segments: p.int(2).map_err(pe)?,
        smooth: p.int_or(3, 0).map_err(pe)?,
        diameter: p.float(6).map_err(pe)?,
        sides: p.int(7).map_err(pe)?,
        flex,
    };
    within(ctx, base, q.vertices())?;
    hose_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hose(segments: i32, sides: i32) -> HoseParams {
        HoseParams { length: 3.0, segments, smooth: 0, diameter: 2.0, sides, flex: None }
    }

    #[test]
    fn three_segment_square_hose_by_hand() {
        // 3 segments, 4 sides, length 3, diameter 2: rings at z = 0, 1, 2, 3 of the points
        // at 90°, 180°, 270°, 360° (radius 1), then the base and top centres: 4·4 + 2 = 18
        // vertices. Faces: 4 base triangles (1 0 16) (2 1 16) (3 2 16) (0 3 16), 2·4 per
        // segment, 4 top triangles: 4 + 24 + 4 = 32 = 2·4·(3 + 1).
        let p = hose(3, 4);
        let m = hose_mesh(&p).unwrap();
        assert_eq!((m.positions.len(), m.polygons.len()), (18, 32));
        assert_eq!((p.vertices(), p.faces()), (18, 32));
        assert!(m.positions[0].abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-6));
        assert!(m.positions[3].abs_diff_eq(Vec3::new(1.0, 0.0, 0.0), 1e-6));
        assert!(m.positions[5].abs_diff_eq(Vec3::new(-1.0, 0.0, 1.0), 1e-6));
        assert_eq!((m.positions[16], m.positions[17]), (Vec3::ZERO, Vec3::new(0.0, 0.0, 3.0)));
        let corners: Vec<Vec<u32>> = m.polygons.iter().map(|f| f.corners.clone()).collect();
        assert_eq!(corners[..4], [vec![1, 0, 16], vec![2, 1, 16], vec![3, 2, 16], vec![0, 3, 16]]);
        // First side quad: v1 = 0, v2 = 1, v3 = 4, v4 = 5 → (5 4 0) (0 1 5); the last of the
        // ring wraps: v1 = 3, v2 = 0 → (4 7 3) (3 0 4).
        assert_eq!((&corners[4], &corners[5]), (&vec![5, 4, 0], &vec![0, 1, 5]));
        assert_eq!((&corners[10], &corners[11]), (&vec![4, 7, 3], &vec![3, 0, 4]));
        assert_eq!(corners[31], vec![15, 12, 17]);
        let materials: Vec<u16> = [0, 4, 27, 28].iter().map(|&i| m.polygons[i].material).collect();
        assert_eq!(materials, [0, 1, 1, 2]);
        // Smoothing "all": caps 1, sides 2.
        assert_eq!((m.polygons[0].smoothing, m.polygons[4].smoothing), (1, 2));
    }

    #[test]
    fn flex_section_scales_rings_and_bad_counts_stop() {
        // Flex from 0.25 to 0.75, 1 cycle, change −0.5, 4 segments: ring 2 (incr 0.5) is
        // half-way, f = 0.5: 1 − 0.5·(1 − sin(π + π/2)) = 1 − 0.5·2 = 0; rings 0, 1 (0.25,
        // not strictly inside), 3, 4 unscaled. `aliensowo__1111.max`'s hoses: 45 segments,
        // 8 sides → 370 / 736.
        let flex = Flex { start: 0.25, stop: 0.75, cycles: 1, change: -0.5 };
        let p = HoseParams { flex: Some(flex), ..hose(4, 4) };
        let m = hose_mesh(&p).unwrap();
        assert!(m.positions[8].truncate().length() < 1e-6);
        assert!((m.positions[4].truncate().length() - 1.0).abs() < 1e-6);
        assert_eq!((hose(45, 8).vertices(), hose(45, 8).faces()), (370, 736));
        assert_eq!((hose(0, 0).vertices(), hose(0, 0).faces()), (14, 24));
        assert!(hose_mesh(&hose(i32::MAX, 8)).is_err());
        assert!(hose_mesh(&HoseParams { length: f32::INFINITY, ..hose(3, 3) }).is_err());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn hoses_are_closed_with_the_sample_counts(segs in -2i32..30, sides in -2i32..20, smooth in 0i32..4) {
            // Nverts = (Segs + 1)·N + 2, Nfaces = Segs·2N + 2N (Segs, N at least 3); a closed
            // tube: V − E + F = 2 over the triangles.
            let p = HoseParams { smooth, ..hose(segs, sides) };
            let m = hose_mesh(&p).unwrap();
            let (s, n) = (segs.max(3) as u64, sides.max(3) as u64);
            let k = m.counts();
            proptest::prop_assert_eq!((k.vertices, k.triangles), ((s + 1) * n + 2, 2 * n * s + 2 * n));
            proptest::prop_assert_eq!((p.vertices(), p.faces()), (k.vertices, k.triangles));
            proptest::prop_assert_eq!(k.vertices + k.polygons, k.edges + 2);
        }
    }
}
