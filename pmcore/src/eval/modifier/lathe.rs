//! The Lathe modifier (Class ID 0xb0, 0) over a spline shape: the shape's polylines swept
//! about the modifier's axis, built in Max's vertex and face order.
//!
//! Parameters (old ParamBlock at reference 1; ids as the SDK's surfrev sample numbers
//! them, the corpus files store all twelve): 0 degrees, 1 segments, 2 cap start, 3 cap
//! end, 4 cap type, 5 weld core, 6 output (0 patch, 1 mesh, 2 NURBS), 7 generate mapping,
//! 8 flip normals, 9 generate material ids, 10 use shape ids, 11 smooth. Reference 0 is the
//! axis controller (a PRS whose matrix places the axis frame, the sweep turning about its
//! Z); the axis frame is in mod-context space, so object space = `context⁻¹ · axis`.
//!
//! The mesh (what the SDK sample builds, checked against the Lantern pair's FBX):
//! vertices level by level (`segments` levels for a full turn, `segments + 1` otherwise),
//! each level the polylines' points rotated by `level / segments · degrees` about the axis;
//! per level, per line, per piece two triangles (v1 = piece, v2 = next point, v3 / v4 the
//! same on the next level). Weld core merges level-0 points within `min(width / 100, 0.01)`
//! of the axis with their copies on every level, dropping the triangles that collapse.
//! Caps (degrees < 360 over a closed line) and patch / NURBS output are not evaluated.

use super::ShapeModifier;
use crate::classes::ids;
use crate::eval::derived::StackModifier;
use crate::eval::gizmo::{context_of, prs_matrix};
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{stop, Stop};
use crate::eval::params::Params;
use crate::eval::spline::{BezierShape, PolyLine};
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::{Mat4, Vec3};

/// Lathe settings as evaluation uses them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LatheParams {
    /// Sweep angle in degrees (0–360).
    pub degrees: f32,
    /// Segments around the sweep (3–10,000).
    pub segments: u32,
    /// Cap the start / end (only over closed lines and less than a full turn).
    pub cap_start: bool,
    /// Cap the end.
    pub cap_end: bool,
    /// Weld the points on the axis.
    pub weld_core: bool,
    /// Flip the faces.
    pub flip_normals: bool,
    /// Smoothing groups from the knots (else none).
    pub smooth: bool,
    /// Material ids on the faces.
    pub material_ids: bool,
    /// Use the shape's material ids (else 2 on the sides).
    pub shape_ids: bool,
    /// Axis frame → object space.
    pub axis: Mat4,
}

/// What the Lathe evaluation does not cover.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LatheError {
    /// Caps (a partial turn over a closed line).
    #[error("caps (degrees < 360 over a closed line) are not evaluated")]
    Caps,
    /// Nothing to sweep.
    #[error("the shape has no points")]
    Empty,
}

/// Vertices the sweep creates before welding.
pub(crate) fn vertex_bound(lines: &[PolyLine], p: &LatheParams) -> u64 {
    let per_level: u64 = lines.iter().map(|l| l.points.len() as u64).sum();
    per_level.saturating_mul(u64::from(levels(p)) + u64::from(!full_turn(p)))
}

fn levels(p: &LatheParams) -> u32 {
    p.segments.clamp(3, 10_000)
}

fn degrees(p: &LatheParams) -> f32 {
    p.degrees.clamp(0.0, 360.0)
}

fn full_turn(p: &LatheParams) -> bool {
    degrees(p) == 360.0
}

/// Smoothing group of each piece of a line (the SDK sample's rule: a new group, cycling
/// groups 2 and 3, after each corner; group 1 joins the first piece to the second and the
/// last when their knots are smooth).
fn piece_groups(line: &PolyLine) -> Vec<u32> {
    let pieces = line.pieces();
    let first_smooth = line.points.first().is_some_and(|p| p.smooth);
    let mut sm = 0u32;
    let mut out = Vec::with_capacity(pieces);
    for piece in 0..pieces {
        let this_smooth = line.points[piece].smooth;
        if piece > 0 && !this_smooth {
            sm += 1;
            if sm > 2 {
                sm = 1;
            }
        }
        let mut group = 1u32 << sm;
        if sm == 0 {
            sm = 1;
        }
        if piece == 1 && this_smooth {
            group |= 1;
        }
        if piece + 1 == pieces && first_smooth {
            group |= 1;
        }
        out.push(group);
    }
    out
}

/// The lines' points on each level of the sweep; which first-level points weld to the
/// axis; whether the faces turn inside out.
fn sweep(
    lines: &[PolyLine],
    p: &LatheParams,
    levels: usize,
    vert_levels: usize,
    level_verts: usize,
) -> (Vec<Vec3>, Vec<bool>, bool) {
    let radians = degrees(p).to_radians();
    let to_axis = p.axis.inverse();
    // Per line: the weld threshold from its width across the axis.
    let thresholds: Vec<f32> = lines
        .iter()
        .map(|l| {
            let xs = l.points.iter().map(|q| to_axis.transform_point3(q.p).x);
            let (lo, hi) = xs.fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), x| (lo.min(x), hi.max(x)));
            ((hi - lo) / 100.0).min(0.01)
        })
        .collect();
    let mut positions = Vec::with_capacity(level_verts * vert_levels);
    let mut weld = vec![false; level_verts];
    let mut inverse = false;
    for level in 0..vert_levels {
        let angle = level as f32 / levels as f32 * radians;
        let tm = p.axis * Mat4::from_rotation_z(angle) * to_axis;
        for (line, &threshold) in lines.iter().zip(&thresholds) {
            for q in &line.points {
                let x = to_axis.transform_point3(q.p).x;
                if p.weld_core && level == 0 && x.abs() < threshold {
                    weld[positions.len()] = true;
                }
                let v = tm.transform_point3(q.p);
                // The SDK sample: faces turn inside out when a point off the axis rises
                // above the object's XY plane on the first level.
                if level == 1 && !inverse && x.abs() > threshold && v.z > 0.0 {
                    inverse = true;
                }
                positions.push(v);
            }
        }
    }
    if p.flip_normals {
        inverse = !inverse;
    }
    (positions, weld, inverse)
}

/// Sweeps `lines` (object space) into a tri object.
pub(crate) fn lathe(lines: &[PolyLine], p: &LatheParams) -> Result<EvalMesh, LatheError> {
    let level_verts: usize = lines.iter().map(|l| l.points.len()).sum();
    if level_verts == 0 {
        return Err(LatheError::Empty);
    }
    let full = full_turn(p);
    if !full && lines.iter().any(|l| l.closed) && (p.cap_start || p.cap_end) {
        return Err(LatheError::Caps);
    }
    let levels = levels(p) as usize;
    let vert_levels = levels + usize::from(!full);
    let (positions, weld, inverse) = sweep(lines, p, levels, vert_levels, level_verts);
    let verts = positions.len();
    let welded = |v: usize| if weld[v % level_verts] { v % level_verts } else { v };
    let mut polygons = Vec::with_capacity(levels * level_verts);
    let mut base = 0usize;
    for _level in 0..levels {
        for line in lines {
            let pieces = line.pieces();
            let seg_verts = line.points.len();
            let groups = piece_groups(line);
            for (piece, &group) in groups.iter().enumerate().take(pieces) {
                let v1 = base + piece;
                let v2 = base + (piece + 1) % seg_verts;
                let v3 = (v1 + level_verts) % verts;
                let v4 = (v2 + level_verts) % verts;
                let (t1, t2, corners) = if inverse {
                    ([v1, v2, v4], [v1, v4, v3], [v1, v2, v4, v3])
                } else {
                    ([v1, v4, v2], [v1, v3, v4], [v1, v3, v4, v2])
                };
                let alive = |t: [usize; 3]| {
                    let t = t.map(welded);
                    (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]).then_some(t.map(|v| v as u32))
                };
                let triangles: Vec<[u32; 3]> = [t1, t2].into_iter().filter_map(alive).collect();
                let corners: Vec<u32> = match triangles.len() {
                    2 => corners.iter().map(|&v| welded(v) as u32).collect(),
                    1 => triangles[0].to_vec(),
                    _ => continue,
                };
                let material = match (p.material_ids, p.shape_ids) {
                    (false, _) => 0,
                    (true, true) => line.points[piece].material,
                    (true, false) => 2,
                };
                let smoothing = if p.smooth { group } else { 0 };
                polygons.push(Polygon { corners, material, smoothing, triangles, hidden_edges: 0 });
            }
            base += seg_verts;
        }
    }
    let mut mesh = EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles };
    if p.weld_core && weld.iter().any(|&w| w) {
        mesh.remove_unused_vertices();
    }
    Ok(mesh)
}

/// The Lathe at the bottom of a node's stack over its spline shape `base`: the mesh, and
/// whether its vertex and face order is Max's (a single open line; several or closed lines
/// go through Max's curve organisation, which may reverse them, not reproduced here).
pub fn evaluate(
    index: &SceneIndex<'_>,
    base: &SceneObject<'_>,
    sm: &StackModifier<'_, '_>,
    budget: u64,
) -> Result<(EvalMesh, bool), Stop> {
    let m = sm.object;
    if base.class.as_ref().map(|c| c.class_id) != Some(ids::LINE) {
        return Err(stop(base, "shape class under a Lathe not decoded"));
    }
    let shape = BezierShape::of_object(base.chunk).map_err(|e| stop(base, e.to_string()))?;
    let params = Params::of(index, m, 1).map_err(|e| stop(m, format!("parameters: {e}")))?;
    let pe = |e| stop(m, format!("parameters: {e}"));
    let output = params.int(6).map_err(pe)?;
    if output != 1 {
        return Err(stop(m, format!("output {output} (patch 0 / NURBS 2) not evaluated")));
    }
    let flag = |id| params.int(id).map(|v| v != 0).map_err(pe);
    let axis = prs_matrix(index, m.reference(0)).map_err(|e| stop(m, format!("axis: {e}")))?;
    let context = context_of(m, sm)?;
    let p = LatheParams {
        degrees: params.float(0).map_err(pe)?,
        segments: u32::try_from(params.int(1).map_err(pe)?).unwrap_or(0),
        cap_start: flag(2)?,
        cap_end: flag(3)?,
        weld_core: flag(5)?,
        flip_normals: flag(8)?,
        material_ids: flag(9)?,
        shape_ids: flag(10)?,
        smooth: flag(11)?,
        axis: context.inverse() * axis,
    };
    let lines = shape.polylines();
    let bound = vertex_bound(&lines, &p);
    if bound > budget {
        return Err(stop(m, format!("up to {bound} vertices over the memory budget ({budget} left)")));
    }
    let mesh = lathe(&lines, &p).map_err(|e| stop(m, e.to_string()))?;
    let in_max_order = matches!(&lines[..], [line] if !line.closed);
    Ok((mesh, in_max_order))
}

/// The Lathe's evaluator: over the spline shape directly under it.
pub(crate) const LATHE: ShapeModifier = ShapeModifier { module: module_path!(), evaluate };

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::spline::PolyPoint;
    use glam::Vec3;

    fn line(points: &[[f32; 3]]) -> PolyLine {
        PolyLine {
            points: points.iter().map(|&p| PolyPoint { p: Vec3::from_array(p), smooth: false, material: 0 }).collect(),
            closed: false,
        }
    }

    fn params(segments: u32, weld_core: bool) -> LatheParams {
        LatheParams {
            degrees: 360.0,
            segments,
            cap_start: false,
            cap_end: false,
            weld_core,
            flip_normals: false,
            smooth: true,
            material_ids: true,
            shape_ids: false,
            axis: Mat4::IDENTITY,
        }
    }

    #[test]
    fn two_knot_corner_line_four_segments() {
        // A 2-point line from (1,0,0) to (1,0,2) lathed about Z (identity axis) in 4
        // segments: levels at 0°, 90°, 180°, 270° (a full turn repeats level 0), so
        // 2 × 4 = 8 vertices: level k holds (cos 90k°, sin 90k°, 0) then the same at z = 2.
        let m = lathe(&[line(&[[1.0, 0.0, 0.0], [1.0, 0.0, 2.0]])], &params(4, false)).unwrap();
        assert_eq!(m.positions.len(), 8);
        let expect = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
        for (k, (x, y)) in expect.iter().enumerate() {
            assert!((m.positions[2 * k] - Vec3::new(*x, *y, 0.0)).length() < 1e-6);
            assert!((m.positions[2 * k + 1] - Vec3::new(*x, *y, 2.0)).length() < 1e-6);
        }
        // One piece per level, two triangles each: 4 quads, 8 triangles. Level 1's
        // points have z = 0 and 2, and (0,1,2) is off the axis with z > 0: the faces
        // are "inverse": (v1, v2, v4), (v1, v4, v3) with v1 = 0, v2 = 1, v3 = 2, v4 = 3.
        assert_eq!(m.polygons.len(), 4);
        assert_eq!(m.faces(), 8);
        assert_eq!(m.polygons[0].triangles, vec![[0, 1, 3], [0, 3, 2]]);
        assert_eq!(m.polygons[0].corners, vec![0, 1, 3, 2]);
        // The last level wraps to level 0: v1 = 6, v2 = 7, v3 = (6 + 2) mod 8 = 0, v4 = 1.
        assert_eq!(m.polygons[3].triangles, vec![[6, 7, 1], [6, 1, 0]]);
        // Flip normals turns them: (v1, v4, v2), (v1, v3, v4).
        let flipped = lathe(
            &[line(&[[1.0, 0.0, 0.0], [1.0, 0.0, 2.0]])],
            &LatheParams { flip_normals: true, ..params(4, false) },
        )
        .unwrap();
        assert_eq!(flipped.polygons[0].triangles, vec![[0, 3, 1], [0, 2, 3]]);
        // Material id 2 on the sides, one smoothing group (a corner at knot 0 only: group 1).
        assert_eq!((m.polygons[0].material, m.polygons[0].smoothing), (2, 1));
    }

    #[test]
    fn weld_core_merges_axis_points_and_drops_collapsed_triangles() {
        // (0,0,0) on the axis, then (1,0,0): width 1, threshold min(1/100, 0.01) = 0.01.
        // Four levels → 8 vertices before welding; the axis point's copies (2, 4, 6)
        // become vertex 0 and are removed: 5 vertices (0, 1, 3, 5, 7 renumbered 0–4).
        // Each quad (v1 = 2k, v2 = 2k + 1, v3 = 2k + 2, v4 = 2k + 3) keeps one triangle:
        // level 1 point (0,1,0) has z = 0, not above the plane → not inverse:
        // (v1, v4, v2) survives, (v1, v3, v4) collapses (v3 welds to v1 = 0).
        let m = lathe(&[line(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])], &params(4, true)).unwrap();
        assert_eq!(m.positions.len(), 5);
        assert_eq!(m.faces(), 4);
        // Quad 0: (0, 3, 1) → renumbered (0, 2, 1); quad 3: v1 = 6 → 0, v4 = (9 mod 8) = 1, v2 = 7 → 4.
        assert_eq!(m.polygons[0].triangles, vec![[0, 2, 1]]);
        assert_eq!(m.polygons[3].triangles, vec![[0, 1, 4]]);
        assert_eq!(m.polygons[3].corners, vec![0, 1, 4]);
    }

    #[test]
    fn partial_turn_adds_a_level_and_stops_at_caps() {
        // 180° in 4 segments: 5 levels of 2 points = 10 vertices, 4 quads.
        let p = LatheParams { degrees: 180.0, ..params(4, false) };
        let m = lathe(&[line(&[[1.0, 0.0, 0.0], [1.0, 0.0, 2.0]])], &p).unwrap();
        assert_eq!((m.positions.len(), m.polygons.len()), (10, 4));
        assert!((m.positions[8] - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-6);
        let mut closed = line(&[[1.0, 0.0, 0.0], [1.0, 0.0, 2.0], [2.0, 0.0, 1.0]]);
        closed.closed = true;
        assert_eq!(lathe(&[closed], &LatheParams { cap_start: true, ..p }), Err(LatheError::Caps));
    }
}
