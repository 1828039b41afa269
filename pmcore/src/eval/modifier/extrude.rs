//! The Extrude modifier (Class ID 0xa0, 0) over a spline shape: the shape's polylines
//! copied `segments + 1` times along the object's Z up to `amount`, sides between the
//! copies, morph caps on the closed lines ([`crate::eval::levels`]).
//!
//! Parameters (old ParamBlock at reference 0, ten parameters on every corpus Extrude;
//! decoded by measurement on `wild/seanconway512__myfieldhq_containers_and_terrain.max` and
//! `wild/maruzu__bodegon.max`, in the order of the Extrude rollout): 0 amount (float),
//! 1 segments, 2 cap start, 3 cap end, 4 cap type (0 morph, 1 grid: bodegon's 2.5-unit
//! extrusions store 1), 5 output (0 patch, 1 mesh, 2 NURBS: bodegon's patch extrusions
//! store 0), 6 generate mapping, 7 generate material ids, 8 use shape ids, 9 smooth.
//!
//! Counts: every line gives `points × (segments + 1)` vertices and `2 × pieces × segments`
//! side triangles; every closed line `points − 2` triangles per cap (an open line is not
//! capped). Checked against Max's own Mesh Totals on the seanconway512 file (its floors,
//! roofs and open gate wires). Grid caps (extra vertices Max places on a grid) and patch /
//! NURBS output are not evaluated: the node stops, named.

use super::ShapeModifier;
use crate::eval::derived::StackModifier;
use crate::eval::levels::{self, LevelError, LevelOptions};
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, stop, within_budget, Stop};
use crate::eval::params::Params;
use crate::eval::shape;
use crate::eval::spline::PolyLine;
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::Vec3;

/// Max's segment range.
pub(crate) const MAX_SEGMENTS: u32 = 10_000;

/// Extrude settings as evaluation uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ExtrudeParams {
    /// Height along the object's Z.
    pub amount: f32,
    /// Segments along the height (1–10,000).
    pub segments: u32,
    /// Faces: caps, ids, smoothing.
    pub faces: LevelOptions,
}

/// What the Extrude evaluation does not cover.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExtrudeError {
    /// Grid capping.
    #[error("grid capping is not evaluated")]
    Grid,
    /// Patch or NURBS output.
    #[error("output {0} (patch 0 / NURBS 2) is not evaluated")]
    Output(i32),
    /// A non-finite amount.
    #[error("amount {0} is not finite")]
    Amount(String),
    /// The levels.
    #[error(transparent)]
    Levels(#[from] LevelError),
}

fn levels(p: &ExtrudeParams) -> usize {
    p.segments.clamp(1, MAX_SEGMENTS) as usize + 1
}

/// Vertices the extrusion creates.
pub(crate) fn vertex_bound(lines: &[PolyLine], p: &ExtrudeParams) -> u64 {
    levels::vertex_count(lines, levels(p))
}

/// Extrudes `lines` (object space) into a tri object.
pub(crate) fn extrude(lines: &[PolyLine], p: &ExtrudeParams) -> Result<EvalMesh, ExtrudeError> {
    if !p.amount.is_finite() {
        return Err(ExtrudeError::Amount(p.amount.to_string()));
    }
    let n = levels(p);
    let step = p.amount / (n - 1) as f32;
    let rings: Vec<Vec<Vec<Vec3>>> = lines
        .iter()
        .map(|l| (0..n).map(|k| l.points.iter().map(|q| q.p + Vec3::Z * (step * k as f32)).collect()).collect())
        .collect();
    let faces = LevelOptions { flip: p.faces.flip ^ (p.amount < 0.0), ..p.faces };
    Ok(levels::build(lines, &rings, &faces)?)
}

/// The Extrude's settings from its parameter block.
fn params_of(index: &SceneIndex<'_>, m: &SceneObject<'_>) -> Result<ExtrudeParams, Stop> {
    let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    let output = params.int(5).map_err(pe)?;
    if output != 1 {
        return Err(stop(m, ExtrudeError::Output(output).to_string()));
    }
    if params.int(4).map_err(pe)? != 0 {
        return Err(stop(m, ExtrudeError::Grid.to_string()));
    }
    let flag = |id| params.int(id).map(|v| v != 0).map_err(pe);
    Ok(ExtrudeParams {
        amount: params.float(0).map_err(pe)?,
        segments: u32::try_from(params.int(1).map_err(pe)?).unwrap_or(0),
        faces: LevelOptions {
            cap_start: flag(2)?,
            cap_end: flag(3)?,
            material_ids: flag(7)?,
            shape_ids: flag(8)?,
            smooth: flag(9)?,
            flip: false,
        },
    })
}

/// The Extrude at the bottom of a node's stack over its spline shape `base`: the mesh, and
/// that its order is not known to be Max's (no export pair holds an Extrude).
pub(crate) fn evaluate(
    index: &SceneIndex<'_>,
    base: &SceneObject<'_>,
    sm: &StackModifier<'_, '_>,
    budget: u64,
) -> Result<(EvalMesh, bool), Stop> {
    let m = sm.object;
    let p = params_of(index, m)?;
    let lines = shape::polylines(index, base)?;
    within_budget(m, vertex_bound(&lines, &p), budget)?;
    let mesh = extrude(&lines, &p).map_err(|e| stop(m, e.to_string()))?;
    Ok((mesh, false))
}

/// The Extrude's evaluator: over the spline shape directly under it.
pub(crate) const EXTRUDE: ShapeModifier = ShapeModifier { module: module_path!(), evaluate };

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::spline::PolyPoint;

    pub(crate) fn line(points: &[[f32; 2]], closed: bool) -> PolyLine {
        let points =
            points.iter().map(|&[x, y]| PolyPoint { p: Vec3::new(x, y, 0.0), smooth: false, material: 0 }).collect();
        PolyLine { points, closed }
    }

    fn params(amount: f32, segments: u32, caps: bool) -> ExtrudeParams {
        let faces = LevelOptions {
            cap_start: caps,
            cap_end: caps,
            material_ids: true,
            shape_ids: false,
            smooth: true,
            flip: false,
        };
        ExtrudeParams { amount, segments, faces }
    }

    #[test]
    fn unit_square_two_segments_with_caps() {
        // Square (0,0) (1,0) (1,1) (0,1), counter-clockwise, extruded 2 units in 2 segments:
        // levels z = 0, 1, 2 → 3 × 4 = 12 vertices, vertex 4k + i = point i at z = k.
        // Sides: 4 pieces × 2 gaps × 2 = 16 triangles; caps: 2 × (4 − 2) = 4; total 20.
        let sq = line(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], true);
        let m = extrude(std::slice::from_ref(&sq), &params(2.0, 2, true)).unwrap();
        assert_eq!((m.positions.len(), m.faces()), (12, 20));
        assert_eq!(m.positions[5], Vec3::new(1.0, 0.0, 1.0));
        assert_eq!(m.positions[11], Vec3::new(0.0, 1.0, 2.0));
        // First side quad: v1 = 0, v2 = 1, v3 = 4, v4 = 5: (0, 1, 5), (0, 5, 4); its normal
        // (1,0,0) × (1,0,1) = (0,−1,0) faces out of the square. Sides have material 2.
        assert_eq!(m.polygons[0].triangles, vec![[0, 1, 5], [0, 5, 4]]);
        assert_eq!(m.polygons[0].material, 2);
        // Start cap on level 0 (points 0–3) faces −Z, end cap on level 2 (8–11) faces +Z.
        let (start, end) = (&m.polygons[8], &m.polygons[9]);
        assert_eq!((start.material, end.material), (0, 1));
        let normal_z = |t: [u32; 3]| {
            let [a, b, c] = t.map(|i| m.positions[i as usize]);
            (b - a).cross(c - a).z
        };
        assert!(start.triangles.iter().all(|&t| normal_z(t) < 0.0 && t.iter().all(|&v| v < 4)));
        assert!(end.triangles.iter().all(|&t| normal_z(t) > 0.0 && t.iter().all(|&v| (8..12).contains(&v))));
        // Negative amount turns every face over; an open line gets no cap.
        let down = extrude(std::slice::from_ref(&sq), &params(-2.0, 2, true)).unwrap();
        assert_eq!(down.polygons[0].triangles, vec![[0, 5, 1], [0, 4, 5]]);
        let open = line(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], false);
        let m = extrude(&[open], &params(1.0, 1, true)).unwrap();
        assert_eq!((m.positions.len(), m.faces()), (6, 4));
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let one = line(&[[0.0, 0.0]], false);
        assert_eq!(extrude(&[one], &params(1.0, 1, true)), Err(LevelError::SinglePoint(0).into()));
        assert_eq!(extrude(&[], &params(1.0, 1, true)), Err(LevelError::Empty.into()));
        // A closed line of two points has sides but no cap.
        let two = line(&[[0.0, 0.0], [1.0, 1.0]], true);
        assert!(matches!(extrude(&[two], &params(1.0, 1, true)), Err(ExtrudeError::Levels(LevelError::Cap(_)))));
        let sq = line(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], true);
        assert!(matches!(extrude(&[sq], &params(f32::NAN, 1, true)), Err(ExtrudeError::Amount(_))));
    }

    proptest::proptest! {
        /// A convex polygon of `n` points extruded in `segments`: (segments + 1) · n
        /// vertices, 2 · n · segments side triangles and 2 · (n − 2) cap triangles.
        #[test]
        fn counts_follow_points_and_segments(n in 3usize..40, segments in 1u32..12, caps in proptest::bool::ANY) {
            let ring: Vec<[f32; 2]> = (0..n)
                .map(|i| {
                    let a = i as f32 / n as f32 * std::f32::consts::TAU;
                    [a.cos() * 5.0, a.sin() * 3.0]
                })
                .collect();
            let m = extrude(&[line(&ring, true)], &params(4.0, segments, caps)).unwrap();
            let s = segments as usize;
            proptest::prop_assert_eq!(m.positions.len(), (s + 1) * n);
            let cap_faces = if caps { 2 * (n - 2) } else { 0 };
            proptest::prop_assert_eq!(m.faces() as usize, 2 * n * s + cap_faces);
        }

        /// Arbitrary lines on a small grid (repeated, collinear and crossing points, open or
        /// closed): a mesh or a typed error, never a panic; a mesh's indices are in range.
        #[test]
        fn arbitrary_lines_build_or_refuse_without_panicking(
            raw in proptest::collection::vec((proptest::collection::vec((-3i8..3, -3i8..3), 0..9), proptest::bool::ANY), 0..4),
            amount in -3.0f32..3.0,
            segments in 0u32..4,
        ) {
            let lines: Vec<PolyLine> = raw
                .iter()
                .map(|(pts, closed)| {
                    let pts: Vec<[f32; 2]> = pts.iter().map(|&(x, y)| [f32::from(x), f32::from(y)]).collect();
                    line(&pts, *closed)
                })
                .collect();
            if let Ok(m) = extrude(&lines, &params(amount, segments, true)) {
                let n = m.positions.len() as u32;
                proptest::prop_assert!(m.polygons.iter().all(|p| p.corners.iter().chain(p.triangles.iter().flatten()).all(|&v| v < n)));
            }
        }
    }
}
