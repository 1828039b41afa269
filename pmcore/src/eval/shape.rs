//! The spline shape under a modifier that builds a mesh from it (Extrude, Bevel), as the
//! polylines Max's shape-to-PolyShape conversion gives: stored shapes (Line, Editable
//! Spline) decoded by [`super::spline`], procedural shapes (Rectangle, Circle) generated
//! from their parameters into knots first, then interpolated the same way.
//!
//! Procedural shapes keep their settings in old ParamBlocks (measured on
//! `wild/seanconway512__myfieldhq_containers_and_terrain.max`'s floors and
//! `wild/maruzu__bodegon.max`'s circles): reference 0 is the rendering ParamBlock2,
//! reference 1 the shape's own block (Rectangle: 0 length, 1 width, 2 corner radius; Circle:
//! 0 radius), reference 2 the interpolation block (0 steps, 1 optimize, 2 adaptive — all
//! integers, as `max_payload_formats.txt` describes the Rectangle's).
//!
//! Knots (the SDK samples' BuildShape, as `max_payload_formats.txt` states the Rectangle's):
//! a Rectangle without corner radius is four corner knots (w/2, l/2), (−w/2, l/2),
//! (−w/2, −l/2), (w/2, −l/2), closed; a Circle is four Bezier knots at 0°, 90°, 180°, 270°
//! with handles tangent to the circle, `0.5517861843 · radius` long (the quarter-arc
//! constant). A rounded Rectangle (corner radius > 0) is not generated: it stops, named.

use super::outcome::{param_stop, stop, Stop};
use super::params::{ParamValue, Params};
use super::spline::{polyline, BezierShape, Knot, KnotType, PolyLine, Spline, MAX_STEPS};
use crate::classes::ids;
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::Vec3;

/// Handle length of a quarter circle, as a fraction of the radius.
pub(crate) const CIRCLE_VECTOR_LENGTH: f32 = 0.551_786_2;

/// Why a procedural shape could not be generated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum ShapeError {
    /// The interpolation block is not three integers.
    #[error("interpolation block (reference 2) is not steps / optimize / adaptive")]
    Interpolation,
    /// Adaptive interpolation.
    #[error("adaptive interpolation is not evaluated")]
    Adaptive,
    /// Steps outside Max's range.
    #[error("interpolation steps {0} out of range")]
    Steps(i32),
    /// A dimension that is not a finite number.
    #[error("dimension {0} is not finite")]
    Dimension(f32),
    /// A rounded rectangle.
    #[error("rectangle corner radius {0} is not evaluated")]
    Fillet(f32),
}

/// The shape object `base` as polylines in its object space.
pub(crate) fn polylines(index: &SceneIndex<'_>, base: &SceneObject<'_>) -> Result<Vec<PolyLine>, Stop> {
    let id = base.class.as_ref().map(|c| c.class_id);
    let spline = match id {
        Some(ids::LINE) | Some(ids::SPLINE_SHAPE) => {
            let shape = BezierShape::of_object(base.chunk).map_err(|e| stop(base, e.to_string()))?;
            return Ok(shape.polylines());
        }
        Some(ids::RECTANGLE) => {
            let p = Params::of(index, base, 1).map_err(|e| param_stop(base, e))?;
            let f = |i| p.float(i).map_err(|e| param_stop(base, e));
            rectangle(f(0)?, f(1)?, f(2)?)
        }
        Some(ids::CIRCLE) => {
            let p = Params::of(index, base, 1).map_err(|e| param_stop(base, e))?;
            circle(p.float(0).map_err(|e| param_stop(base, e))?)
        }
        _ => return Err(stop(base, "shape class under a shape modifier not decoded")),
    }
    .map_err(|e| stop(base, e.to_string()))?;
    let ip = Params::of(index, base, 2).map_err(|e| param_stop(base, e))?;
    let (steps, optimize) = interpolation(&ip).map_err(|e| stop(base, e.to_string()))?;
    Ok(vec![polyline(&spline, steps, optimize)])
}

/// Steps and optimize from a procedural shape's interpolation block.
pub(crate) fn interpolation(p: &Params) -> Result<(u32, bool), ShapeError> {
    let int = |i| match p.get(i) {
        Ok(ParamValue::Int(v)) => Ok(v),
        _ => Err(ShapeError::Interpolation),
    };
    let (steps, optimize, adaptive) = (int(0)?, int(1)?, int(2)?);
    if adaptive != 0 {
        return Err(ShapeError::Adaptive);
    }
    if !(0..=MAX_STEPS).contains(&steps) {
        return Err(ShapeError::Steps(steps));
    }
    Ok((steps as u32, optimize != 0))
}

fn knot(kind: KnotType, point: Vec3, in_vec: Vec3, out_vec: Vec3) -> Knot {
    Knot { kind, line: false, point, in_vec, out_vec, flags: 0 }
}

/// A Rectangle's closed spline (corner radius 0 only).
pub(crate) fn rectangle(length: f32, width: f32, fillet: f32) -> Result<Spline, ShapeError> {
    for v in [length, width, fillet] {
        if !v.is_finite() {
            return Err(ShapeError::Dimension(v));
        }
    }
    if fillet > 0.0 {
        return Err(ShapeError::Fillet(fillet));
    }
    let (w2, l2) = (width / 2.0, length / 2.0);
    let corners = [(w2, l2), (-w2, l2), (-w2, -l2), (w2, -l2)];
    let knots = corners
        .iter()
        .map(|&(x, y)| {
            let p = Vec3::new(x, y, 0.0);
            knot(KnotType::Corner, p, p, p)
        })
        .collect();
    Ok(Spline { knots, closed: true })
}

/// A Circle's closed spline: four Bezier knots, counter-clockwise from +X.
pub(crate) fn circle(radius: f32) -> Result<Spline, ShapeError> {
    if !radius.is_finite() {
        return Err(ShapeError::Dimension(radius));
    }
    let v = CIRCLE_VECTOR_LENGTH * radius;
    let knots = (0..4)
        .map(|k| {
            let (s, c) = (k as f32 * std::f32::consts::FRAC_PI_2).sin_cos();
            let p = Vec3::new(c * radius, s * radius, 0.0);
            let tangent = Vec3::new(-s, c, 0.0) * v;
            knot(KnotType::Bezier, p, p - tangent, p + tangent)
        })
        .collect();
    Ok(Spline { knots, closed: true })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rectangle_corners_and_circle_quarter_points() {
        // Length 2 (Y), width 4 (X): corners (2, 1), (−2, 1), (−2, −1), (2, −1); straight
        // segments, optimized to the corners.
        let r = polyline(&rectangle(2.0, 4.0, 0.0).unwrap(), 6, true);
        let p: Vec<[f32; 3]> = r.points.iter().map(|q| q.p.to_array()).collect();
        assert_eq!(p, [[2.0, 1.0, 0.0], [-2.0, 1.0, 0.0], [-2.0, -1.0, 0.0], [2.0, -1.0, 0.0]]);
        assert_eq!(rectangle(2.0, 4.0, 0.5), Err(ShapeError::Fillet(0.5)));
        // Circle radius 10, 1 step: the midpoint of the first quarter is the Bezier point at
        // t = 1/2: (P0 + 3·P1 + 3·P2 + P3) / 8 with P0 = (10, 0), P1 = (10, 5.5179),
        // P2 = (5.5179, 10), P3 = (0, 10): x = y = (10 + 30 + 16.5536) / 8 = 7.0692.
        let c = polyline(&circle(10.0).unwrap(), 1, true);
        assert_eq!(c.points.len(), 8);
        let m = c.points[1].p;
        assert!((m - Vec3::new(7.069_2, 7.069_2, 0.0)).length() < 1e-3, "{m:?}");
        assert!((c.points[2].p - Vec3::new(0.0, 10.0, 0.0)).length() < 1e-5);
    }
}
