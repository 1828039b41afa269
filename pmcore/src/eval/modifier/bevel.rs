//! The Bevel modifier (Class ID 0x1017, 0x7f9e) over a spline shape: the shape's polylines
//! copied level by level up the object's Z, each level's copy offset in XY by its outline
//! (the sum of the outlines so far), sides between consecutive copies, morph caps on the
//! first and last copy of each closed line ([`crate::eval::levels`]).
//!
//! Parameters (old ParamBlock at reference 0, eighteen parameters on every corpus Bevel;
//! measured on `wild/ryu-ko__lr9.max`, whose three Bevels store level 1 (0.4, 0.2), level
//! 2 on (1.0, 0.0) and level 3 on (0.4, −1.0) on the body, levels 2 and 3 off on the wheel
//! arches): 0 cap start, 1 cap end, 2 cap type (0 morph, 1 grid), 3 sides (0 linear,
//! 1 curved), 4 segments, 5 smooth across levels, 6 generate mapping, 7 keep lines from
//! crossing, 8 separation, 9 start outline, 10 level 1 height, 11 level 1 outline, 12 level
//! 2 on, 13 level 2 height, 14 level 2 outline, 15 level 3 on, 16 level 3 height, 17 level 3
//! outline. Ids 5–7 follow the rollout's order and are 0 on every corpus file: which of
//! them is which is not established, so any of them non-zero stops the node, named; so do
//! curved sides, grid caps and segments other than 1 (how Max spaces several segments
//! over the levels is not measured).
//!
//! Counts: a line of `n` points gives `n × (levels + 1)` vertices and `2 × pieces ×
//! levels` side triangles, a closed line `n − 2` triangles per cap. Positions: each
//! point moves along the bisector of its two pieces' outward normals (a counter-clockwise
//! closed line's right-hand side; an open line's right-hand side), by `outline / cos` of
//! half the turn (a mitre) — not compared with Max (no export pair holds a Bevel).

use super::ShapeModifier;
use crate::eval::derived::StackModifier;
use crate::eval::levels::{self, LevelError, LevelOptions};
use crate::eval::mesh::EvalMesh;
use crate::eval::outcome::{param_stop, stop, within_budget, Stop};
use crate::eval::params::Params;
use crate::eval::shape;
use crate::eval::spline::PolyLine;
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::{Vec2, Vec3};

/// Bevel settings as evaluation uses them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BevelParams {
    /// Outline of the first copy.
    pub start_outline: f32,
    /// Per active level: (height, outline), each relative to the level below.
    pub levels: Vec<(f32, f32)>,
    /// Faces: caps, smoothing.
    pub faces: LevelOptions,
}

/// What the Bevel evaluation does not cover.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum BevelError {
    /// A setting whose geometry is not reproduced.
    #[error("{0} is not evaluated")]
    Setting(&'static str),
    /// A height or outline that is not a finite number.
    #[error("a height or outline is not finite")]
    NotFinite,
    /// A line whose points all coincide, or that turns back on itself.
    #[error("line {0} has no direction to outline along")]
    NoDirection(usize),
    /// The levels.
    #[error(transparent)]
    Levels(#[from] LevelError),
}

/// Right-hand normal of the piece from `a` to `b` on XY (outward on a counter-clockwise ring).
fn normal(a: Vec2, b: Vec2) -> Option<Vec2> {
    let d = (b - a).try_normalize()?;
    Some(Vec2::new(d.y, -d.x))
}

/// Per point of `line`: the XY offset of a unit outline (a mitre along the bisector).
pub(crate) fn unit_offsets(line: &PolyLine) -> Option<Vec<Vec2>> {
    let pts: Vec<Vec2> = line.points.iter().map(|q| q.p.truncate()).collect();
    let n = pts.len();
    let ccw = !line.closed || crate::eval::cap::signed_area2(&pts) >= 0.0;
    let sign = if ccw { 1.0 } else { -1.0 };
    // The nearest distinct point before / after `i` (None past an open line's end).
    let step = |i: usize, fwd: bool| -> Option<usize> {
        let mut j = i;
        for _ in 1..n {
            j = match (fwd, line.closed) {
                (true, true) => (j + 1) % n,
                (false, true) => (j + n - 1) % n,
                (true, false) => (j + 1 < n).then_some(j + 1)?,
                (false, false) => j.checked_sub(1)?,
            };
            if pts[j] != pts[i] {
                return Some(j);
            }
        }
        None
    };
    (0..n)
        .map(|i| {
            let before = step(i, false).and_then(|j| normal(pts[j], pts[i]));
            let after = step(i, true).and_then(|j| normal(pts[i], pts[j]));
            let m = match (before, after) {
                (Some(a), Some(b)) => {
                    let bis = (a + b).try_normalize()?;
                    bis / bis.dot(a)
                }
                (Some(a), None) | (None, Some(a)) => a,
                (None, None) => return None,
            };
            Some(m * sign)
        })
        .collect()
}

/// Bevels `lines` (object space) into a tri object.
pub(crate) fn bevel(lines: &[PolyLine], p: &BevelParams) -> Result<EvalMesh, BevelError> {
    let finite = std::iter::once(p.start_outline).chain(p.levels.iter().flat_map(|&(h, o)| [h, o]));
    if !finite.into_iter().all(f32::is_finite) {
        return Err(BevelError::NotFinite);
    }
    let mut stack = vec![(0.0f32, p.start_outline)];
    for &(h, o) in &p.levels {
        let &(z, out) = stack.last().unwrap_or(&(0.0, 0.0));
        stack.push((z + h, out + o));
    }
    let mut rings = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        if line.points.len() < 2 {
            rings.push(vec![line.points.iter().map(|q| q.p).collect(); stack.len()]);
            continue;
        }
        let offsets = unit_offsets(line).ok_or(BevelError::NoDirection(i))?;
        let level = |&(z, out): &(f32, f32)| -> Vec<Vec3> {
            line.points.iter().zip(&offsets).map(|(q, d)| q.p + (*d * out).extend(z)).collect()
        };
        rings.push(stack.iter().map(level).collect());
    }
    Ok(levels::build(lines, &rings, &p.faces)?)
}

/// The Bevel's settings from its parameter block.
fn params_of(index: &SceneIndex<'_>, m: &SceneObject<'_>) -> Result<BevelParams, Stop> {
    let params = Params::of(index, m, 0).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    let int = |id| params.int(id).map_err(pe);
    let float = |id| params.float(id).map_err(pe);
    let setting = |what| stop(m, BevelError::Setting(what).to_string());
    if int(2)? != 0 {
        return Err(setting("grid capping"));
    }
    if int(3)? != 0 {
        return Err(setting("curved sides"));
    }
    if int(4)? != 1 {
        return Err(setting("segments other than 1"));
    }
    if int(5)? != 0 || int(6)? != 0 || int(7)? != 0 {
        return Err(setting("a non-zero parameter 5-7 (smooth across levels / mapping / keep lines from crossing)"));
    }
    let mut levels = vec![(float(10)?, float(11)?)];
    for (on, height, outline) in [(12, 13, 14), (15, 16, 17)] {
        if int(on)? != 0 {
            levels.push((float(height)?, float(outline)?));
        }
    }
    let faces = LevelOptions {
        cap_start: int(0)? != 0,
        cap_end: int(1)? != 0,
        material_ids: true,
        shape_ids: false,
        smooth: false,
        flip: false,
    };
    Ok(BevelParams { start_outline: float(9)?, levels, faces })
}

/// The Bevel at the bottom of a node's stack over its spline shape `base`: the mesh, and
/// that its order is not known to be Max's.
pub(crate) fn evaluate(
    index: &SceneIndex<'_>,
    base: &SceneObject<'_>,
    sm: &StackModifier<'_, '_>,
    budget: u64,
) -> Result<(EvalMesh, bool), Stop> {
    let m = sm.object;
    let p = params_of(index, m)?;
    let lines = shape::polylines(index, base)?;
    within_budget(m, levels::vertex_count(&lines, p.levels.len() + 1), budget)?;
    let mesh = bevel(&lines, &p).map_err(|e| stop(m, e.to_string()))?;
    Ok((mesh, false))
}

/// The Bevel's evaluator: over the spline shape directly under it.
pub(crate) const BEVEL: ShapeModifier = ShapeModifier { module: module_path!(), evaluate };

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::spline::PolyPoint;

    fn line(points: &[[f32; 2]], closed: bool) -> PolyLine {
        let points =
            points.iter().map(|&[x, y]| PolyPoint { p: Vec3::new(x, y, 0.0), smooth: false, material: 0 }).collect();
        PolyLine { points, closed }
    }

    fn params(start: f32, levels: &[(f32, f32)]) -> BevelParams {
        let faces = LevelOptions {
            cap_start: true,
            cap_end: true,
            material_ids: true,
            shape_ids: false,
            smooth: false,
            flip: false,
        };
        BevelParams { start_outline: start, levels: levels.to_vec(), faces }
    }

    #[test]
    fn square_two_levels_by_hand() {
        // Square ±1 counter-clockwise. Start outline 0; level 1 height 1 outline 0.5;
        // level 2 height 2 outline −0.5: copies at (z 0, outline 0), (1, 0.5), (3, 0).
        // Corner (1,1) moves along (1,1)/√2 by 0.5 / cos 45° = 0.5·√2: to (1.5, 1.5).
        // 3 × 4 = 12 vertices; sides 2 gaps × 4 pieces × 2 = 16, caps 2 × 2 = 4.
        let sq = line(&[[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]], true);
        let m = bevel(std::slice::from_ref(&sq), &params(0.0, &[(1.0, 0.5), (2.0, -0.5)])).unwrap();
        assert_eq!((m.positions.len(), m.faces()), (12, 20));
        assert!((m.positions[6] - Vec3::new(1.5, 1.5, 1.0)).length() < 1e-5, "{:?}", m.positions[6]);
        assert!((m.positions[4] - Vec3::new(-1.5, -1.5, 1.0)).length() < 1e-5);
        assert!((m.positions[10] - Vec3::new(1.0, 1.0, 3.0)).length() < 1e-5);
        // The same square drawn clockwise grows outwards too.
        let cw = line(&[[-1.0, 1.0], [1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]], true);
        let m = bevel(&[cw], &params(0.0, &[(1.0, 0.5)])).unwrap();
        assert!((m.positions[5] - Vec3::new(1.5, 1.5, 1.0)).length() < 1e-5, "{:?}", m.positions[5]);
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        let dot = line(&[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]], true);
        assert_eq!(bevel(&[dot], &params(0.0, &[(1.0, 0.1)])), Err(BevelError::NoDirection(0)));
        let sq = line(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], true);
        assert_eq!(bevel(&[sq], &params(f32::INFINITY, &[(1.0, 0.1)])), Err(BevelError::NotFinite));
        let one = line(&[[0.0, 0.0]], false);
        assert_eq!(bevel(&[one], &params(0.0, &[(1.0, 0.1)])), Err(LevelError::SinglePoint(0).into()));
    }

    proptest::proptest! {
        /// A convex polygon of `n` points with 1–3 levels: n · (levels + 1) vertices,
        /// 2 · n · levels side triangles, 2 · (n − 2) cap triangles; no panic for any
        /// heights and outlines.
        #[test]
        fn counts_follow_points_and_levels(
            n in 3usize..40,
            lv in proptest::collection::vec((-5.0f32..5.0, -0.2f32..0.2), 1..4),
        ) {
            let ring: Vec<[f32; 2]> = (0..n)
                .map(|i| {
                    let a = i as f32 / n as f32 * std::f32::consts::TAU;
                    [a.cos() * 5.0, a.sin() * 3.0]
                })
                .collect();
            let m = bevel(&[line(&ring, true)], &params(0.0, &lv)).unwrap();
            proptest::prop_assert_eq!(m.positions.len(), (lv.len() + 1) * n);
            proptest::prop_assert_eq!(m.faces() as usize, 2 * n * lv.len() + 2 * (n - 2));
        }

        /// Arbitrary lines on a small grid (repeated, collinear, reversing and crossing
        /// points) and outlines: a mesh or a typed error, never a panic.
        #[test]
        fn arbitrary_lines_bevel_or_refuse_without_panicking(
            raw in proptest::collection::vec((proptest::collection::vec((-3i8..3, -3i8..3), 0..9), proptest::bool::ANY), 0..4),
            lv in proptest::collection::vec((-3.0f32..3.0, -2.0f32..2.0), 1..4),
            start in -1.0f32..1.0,
        ) {
            let lines: Vec<PolyLine> = raw
                .iter()
                .map(|(pts, closed)| {
                    let pts: Vec<[f32; 2]> = pts.iter().map(|&(x, y)| [f32::from(x), f32::from(y)]).collect();
                    line(&pts, *closed)
                })
                .collect();
            if let Ok(m) = bevel(&lines, &params(start, &lv)) {
                let n = m.positions.len() as u32;
                proptest::prop_assert!(m.polygons.iter().all(|p| p.corners.iter().all(|&v| v < n)));
            }
        }
    }
}
