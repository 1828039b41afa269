//! Spline shapes (Line, Editable Spline: Max's BezierShape) decoded from the object's
//! chunks, and interpolated into polylines the way Max's shape-to-PolyShape conversion
//! does (what the Lathe modifier sweeps).
//!
//! Layout, measured on the corpus Line objects (`pairs/…/SeanWork/Lantern.max`,
//! `wild/vv-23__tut9-1apple_start.max`, `wild/dimapetrinko__lection_1.max` …): the object
//! chunk holds a `0x2000` container whose `0x1010` container is the BezierShape:
//!
//! * per spline a `0x1010` container: `0x2900` knot count (`u32`), `0x2904` (`u32`, 0 on
//!   every corpus file; meaning not established — a non-zero value stops the decode),
//!   `0x290a` the knots, 52 bytes each, `0x290d` closed flag (`u32`: the closed splines
//!   are the ones whose knot parameter step `du` is 1 / knots, the open ones 1 / (knots − 1));
//! * `0x1050` interpolation steps (`i32`), `0x1060` optimize (`u32`); the selection sets
//!   `0x1020`–`0x1040` and `0x1070`–`0x2000` are not needed here. Steps −1 is adaptive
//!   interpolation (the count per segment follows the curvature; the shape object keeps
//!   the manual value, `0x2000 → 0x1060`, beside it): `wild/vv-23__tut9-1apple_start.max`'s
//!   `bottle` and `glass` store −1 and their scene totals exceed what steps 6 gives by
//!   2,320 vertices. Its rule is not reproduced: such a shape stops, named.
//!
//! A knot (`max_payload_formats.txt`, SplineKnotAssy on disk): knot type (`i32`: 0 smooth,
//! 1 corner, 2 Bezier, 3 Bezier corner), line type (`i32`: 0 curve, 1 line), `du`
//! (`f32`), the knot point, its in vector and its out vector (three `Point3`, absolute
//! positions: a corner knot's vectors lie a third of the way to its neighbours on the
//! corpus lines, `Lantern.max`), then a flags word (material id in the high word). Max
//! stores the vectors it computed for smooth and corner knots, so interpolation uses the
//! stored vectors for every knot type.

use glam::Vec3;

/// Chunk of the shape data inside the object chunk.
pub(crate) const SHAPE_DATA: u16 = 0x2000;
/// BezierShape container inside [`SHAPE_DATA`]; also each spline's container inside it.
pub(crate) const BEZIER_SHAPE: u16 = 0x1010;
/// Knot count of a spline.
pub(crate) const KNOT_COUNT: u16 = 0x2900;
/// A spline word whose meaning is not established (0 on every corpus file).
pub(crate) const SPLINE_WORD: u16 = 0x2904;
/// The knots of a spline.
pub(crate) const KNOTS: u16 = 0x290a;
/// Closed flag of a spline.
pub(crate) const CLOSED: u16 = 0x290d;
/// Interpolation steps of the BezierShape (−1: adaptive).
pub(crate) const STEPS: u16 = 0x1050;
/// Optimize flag of the BezierShape.
pub(crate) const OPTIMIZE: u16 = 0x1060;
/// Bytes per stored knot.
pub(crate) const KNOT_BYTES: usize = 52;
/// Upper bound on interpolation steps (Max's spinner stops at 100).
pub(crate) const MAX_STEPS: i32 = 100;

/// A knot's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KnotType {
    /// Smooth (automatic tangents).
    Smooth,
    /// Corner.
    Corner,
    /// Bezier (continuous tangents).
    Bezier,
    /// Bezier corner (broken tangents).
    BezierCorner,
}

impl KnotType {
    fn from_stored(v: u32) -> Option<Self> {
        Some(match v {
            0 => KnotType::Smooth,
            1 => KnotType::Corner,
            2 => KnotType::Bezier,
            3 => KnotType::BezierCorner,
            _ => return None,
        })
    }

    /// Whether the surface is smooth across this knot (Max's `POLYPT_SMOOTH`).
    pub(crate) fn is_smooth(self) -> bool {
        matches!(self, KnotType::Smooth | KnotType::Bezier)
    }
}

/// One knot.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Knot {
    /// Knot type.
    pub(crate) kind: KnotType,
    /// The segment starting here is a straight line (line type 1).
    pub line: bool,
    /// The knot point.
    pub point: Vec3,
    /// Incoming Bezier handle (absolute).
    pub in_vec: Vec3,
    /// Outgoing Bezier handle (absolute).
    pub out_vec: Vec3,
    /// Flags word (material id in the high word).
    pub flags: u32,
}

/// One spline of a shape.
#[derive(Clone, Debug, PartialEq)]
pub struct Spline {
    /// Knots in order.
    pub knots: Vec<Knot>,
    /// Closed (a segment joins the last knot to the first).
    pub closed: bool,
}

/// A Bezier shape: its splines and interpolation settings.
#[derive(Clone, Debug, PartialEq)]
pub struct BezierShape {
    /// Splines in stored order.
    pub splines: Vec<Spline>,
    /// Interior points per curved segment.
    pub steps: u32,
    /// Straight segments get no interior points.
    pub optimize: bool,
}

/// Why a shape could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SplineError {
    /// A chunk the shape needs is absent.
    #[error("shape chunk 0x{0:04x} missing")]
    Missing(u16),
    /// Adaptive interpolation (steps −1), whose rule is not reproduced.
    #[error("adaptive interpolation (steps -1) is not evaluated")]
    Adaptive,
    /// A chunk has the wrong size or an unknown value.
    #[error("shape chunk 0x{id:04x}: {why}")]
    Bad {
        /// Chunk id.
        id: u16,
        /// What is wrong.
        why: String,
    },
}

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    p.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn f32_at(p: &[u8], at: usize) -> Option<f32> {
    u32_at(p, at).map(f32::from_bits)
}

fn vec_at(p: &[u8], at: usize) -> Option<Vec3> {
    Some(Vec3::new(f32_at(p, at)?, f32_at(p, at + 4)?, f32_at(p, at + 8)?))
}

fn word(parent: &crate::chunk::Chunk<'_>, id: u16) -> Result<u32, SplineError> {
    let c = parent.child(id).ok_or(SplineError::Missing(id))?;
    c.payload()
        .filter(|p| p.len() == 4)
        .and_then(|p| u32_at(p, 0))
        .ok_or_else(|| SplineError::Bad { id, why: "not one 32-bit word".into() })
}

/// Decodes the stored knots of one spline container.
fn spline(c: &crate::chunk::Chunk<'_>) -> Result<Spline, SplineError> {
    let count = word(c, KNOT_COUNT)? as usize;
    let unknown = word(c, SPLINE_WORD)?;
    if unknown != 0 {
        return Err(SplineError::Bad { id: SPLINE_WORD, why: format!("value {unknown} not established") });
    }
    let closed = match word(c, CLOSED)? {
        0 => false,
        1 => true,
        v => return Err(SplineError::Bad { id: CLOSED, why: format!("value {v}") }),
    };
    let p = c.child(KNOTS).and_then(|k| k.payload()).ok_or(SplineError::Missing(KNOTS))?;
    if p.len() != count.saturating_mul(KNOT_BYTES) {
        return Err(SplineError::Bad { id: KNOTS, why: format!("{} bytes for {count} knots", p.len()) });
    }
    let knots = p
        .chunks_exact(KNOT_BYTES)
        .map(|k| {
            let bad = |why: &str| SplineError::Bad { id: KNOTS, why: why.into() };
            let kind = u32_at(k, 0).and_then(KnotType::from_stored).ok_or_else(|| bad("unknown knot type"))?;
            let line = match u32_at(k, 4) {
                Some(0) => false,
                Some(1) => true,
                _ => return Err(bad("unknown line type")),
            };
            let (Some(point), Some(in_vec), Some(out_vec), Some(flags)) =
                (vec_at(k, 12), vec_at(k, 24), vec_at(k, 36), u32_at(k, 48))
            else {
                return Err(bad("short knot"));
            };
            if !(point.is_finite() && in_vec.is_finite() && out_vec.is_finite()) {
                return Err(bad("non-finite knot"));
            }
            Ok(Knot { kind, line, point, in_vec, out_vec, flags })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Spline { knots, closed })
}

impl BezierShape {
    /// The shape stored in a Line / Editable Spline object chunk. A Line (0x1040) wraps
    /// the shape data in a [`SHAPE_DATA`] container; an Editable Spline (SplineShape, Class
    /// ID 0xa) holds the same children directly, with a 4-byte [`SHAPE_DATA`] leaf beside
    /// them (`wild/seanconway512__myfieldhq_containers_and_terrain.max`, its roofs).
    pub fn of_object(object: &crate::chunk::Chunk<'_>) -> Result<BezierShape, SplineError> {
        let wrapped = object.child(SHAPE_DATA).filter(|d| d.payload().is_none());
        let data = match wrapped {
            Some(d) => d,
            None if object.child(BEZIER_SHAPE).is_some() => object,
            None => return Err(SplineError::Missing(SHAPE_DATA)),
        };
        let shape = data.child(BEZIER_SHAPE).ok_or(SplineError::Missing(BEZIER_SHAPE))?;
        let splines =
            shape.children().iter().filter(|c| c.id == BEZIER_SHAPE).map(spline).collect::<Result<Vec<_>, _>>()?;
        let steps = word(shape, STEPS)? as i32;
        if steps == -1 {
            return Err(SplineError::Adaptive);
        }
        if !(0..=MAX_STEPS).contains(&steps) {
            return Err(SplineError::Bad { id: STEPS, why: format!("steps {steps}") });
        }
        let optimize = word(shape, OPTIMIZE)? != 0;
        Ok(BezierShape { splines, steps: steps as u32, optimize })
    }

    /// Every spline as a polyline.
    pub fn polylines(&self) -> Vec<PolyLine> {
        self.splines.iter().map(|s| polyline(s, self.steps, self.optimize)).collect()
    }
}

/// One point of an interpolated spline.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolyPoint {
    /// Position.
    pub p: Vec3,
    /// Smooth across this point (interior points, smooth and Bezier knots).
    pub smooth: bool,
    /// Material id of the knot (or of the knot that starts the segment).
    pub material: u16,
}

/// A spline interpolated into straight pieces.
#[derive(Clone, Debug, PartialEq)]
pub struct PolyLine {
    /// Points in order (a closed line does not repeat its first point).
    pub points: Vec<PolyPoint>,
    /// Closed.
    pub closed: bool,
}

impl PolyLine {
    /// Straight pieces: points − 1 when open, points when closed.
    pub(crate) fn pieces(&self) -> usize {
        if self.closed {
            self.points.len()
        } else {
            self.points.len().saturating_sub(1)
        }
    }
}

/// Cubic Bezier point at `t` of the segment from knot `a` to knot `b`.
pub(crate) fn bezier(a: &Knot, b: &Knot, t: f32) -> Vec3 {
    let s = 1.0 - t;
    a.point * (s * s * s) + a.out_vec * (3.0 * s * s * t) + b.in_vec * (3.0 * s * t * t) + b.point * (t * t * t)
}

/// Whether a segment is a straight line: line type, or both handles on the chord (a
/// corner knot's computed vectors are).
fn straight(a: &Knot, b: &Knot) -> bool {
    if a.line {
        return true;
    }
    let chord = b.point - a.point;
    let len = chord.length();
    if len == 0.0 {
        return a.out_vec == a.point && b.in_vec == b.point;
    }
    let off = |p: Vec3| (p - a.point).cross(chord).length() / len;
    let tolerance = len * 1e-5;
    off(a.out_vec) <= tolerance && off(b.in_vec) <= tolerance
}

/// Interpolates a spline: each segment gives its start knot, then `steps` interior points
/// at `t = i / (steps + 1)` unless optimized away (straight segment); an open spline ends
/// with its last knot.
pub(crate) fn polyline(s: &Spline, steps: u32, optimize: bool) -> PolyLine {
    let n = s.knots.len();
    let segments = if s.closed { n } else { n.saturating_sub(1) };
    let mut points = Vec::with_capacity(n + segments * steps as usize);
    for i in 0..segments {
        let a = &s.knots[i];
        let b = &s.knots[(i + 1) % n];
        let material = (a.flags >> 16) as u16;
        points.push(PolyPoint { p: a.point, smooth: a.kind.is_smooth(), material });
        if optimize && straight(a, b) {
            continue;
        }
        for k in 1..=steps {
            let t = k as f32 / (steps + 1) as f32;
            points.push(PolyPoint { p: bezier(a, b, t), smooth: true, material });
        }
    }
    if !s.closed {
        if let Some(last) = s.knots.last() {
            points.push(PolyPoint {
                p: last.point,
                smooth: last.kind.is_smooth(),
                material: (last.flags >> 16) as u16,
            });
        }
    }
    PolyLine { points, closed: s.closed }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;

    fn knot_bytes(kind: u32, line: u32, p: [f32; 3], a: [f32; 3], b: [f32; 3]) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend(kind.to_le_bytes());
        out.extend(line.to_le_bytes());
        out.extend(1.0f32.to_le_bytes());
        for v in [p, a, b] {
            for f in v {
                out.extend(f.to_le_bytes());
            }
        }
        out.extend(0u32.to_le_bytes());
        out
    }

    fn object(knots: &[Vec<u8>], closed: u32, steps: i32) -> Chunk<'static> {
        let w = |id: u16, v: u32| Chunk::leaf(id, v.to_le_bytes().to_vec());
        let spline = Chunk::container(
            BEZIER_SHAPE,
            vec![
                w(KNOT_COUNT, knots.len() as u32),
                w(SPLINE_WORD, 0),
                Chunk::leaf(KNOTS, knots.concat()),
                w(CLOSED, closed),
            ],
        );
        let shape = Chunk::container(BEZIER_SHAPE, vec![spline, w(STEPS, steps as u32), w(OPTIMIZE, 1)]);
        Chunk::container(0x001d, vec![Chunk::container(SHAPE_DATA, vec![shape])])
    }

    #[test]
    fn corner_line_keeps_its_knots_a_curve_gets_its_steps() {
        // Knot 0 corner at (0,0,0), handles a third of the way to (3,0,0): a straight
        // segment, optimized to its end points. Knot 1 at (3,0,0) with out handle (3,3,0);
        // knot 2 at (6,0,0) with in handle (6,3,0): a curve. Steps 2 → t = 1/3, 2/3:
        // B(1/3) = (8/27)·(3,0,0) + (12/27)·(3,3,0) + (6/27)·(6,3,0) + (1/27)·(6,0,0)
        //        = ((24 + 36 + 36 + 6)/27, (36 + 18)/27, 0) = (102/27, 2, 0) = (3.7778, 2, 0).
        let k = [
            knot_bytes(1, 0, [0.0; 3], [0.0; 3], [1.0, 0.0, 0.0]),
            knot_bytes(2, 0, [3.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 3.0, 0.0]),
            knot_bytes(2, 0, [6.0, 0.0, 0.0], [6.0, 3.0, 0.0], [6.0, 0.0, 0.0]),
        ];
        let shape = BezierShape::of_object(&object(&k, 0, 2)).unwrap();
        assert_eq!((shape.steps, shape.optimize, shape.splines[0].closed), (2, true, false));
        let line = &shape.polylines()[0];
        let p: Vec<Vec3> = line.points.iter().map(|p| p.p).collect();
        assert_eq!(p.len(), 5, "2 knots + 2 steps + last knot");
        assert_eq!(p[0], Vec3::ZERO);
        assert_eq!(p[1], Vec3::new(3.0, 0.0, 0.0));
        assert!((p[2] - Vec3::new(102.0 / 27.0, 2.0, 0.0)).length() < 1e-5, "{:?}", p[2]);
        // B(2/3) = (1/27)·(3,0,0) + (6/27)·(3,3,0) + (12/27)·(6,3,0) + (8/27)·(6,0,0)
        //        = ((3 + 18 + 72 + 48)/27, (18 + 36)/27, 0) = (141/27, 2, 0).
        assert!((p[3] - Vec3::new(141.0 / 27.0, 2.0, 0.0)).length() < 1e-5, "{:?}", p[3]);
        assert_eq!(p[4], Vec3::new(6.0, 0.0, 0.0));
        assert_eq!(line.pieces(), 4);
        assert!(!line.points[0].smooth && line.points[1].smooth);
    }

    proptest::proptest! {
        /// Arbitrary knot bytes, counts, closed flags and steps: the decode refuses or gives
        /// knots, and interpolating and lathing what decodes never panics.
        #[test]
        fn arbitrary_knots_decode_or_refuse_without_panicking(
            raw in proptest::collection::vec(
                (0u32..5, 0u32..3, proptest::collection::vec(-10.0f32..10.0, 9)),
                0..6,
            ),
            truncate in proptest::prelude::any::<bool>(),
            closed in 0u32..3,
            steps in -2i32..8,
        ) {
            let mut knots: Vec<Vec<u8>> = raw
                .iter()
                .map(|(kind, line, f)| knot_bytes(*kind, *line, [f[0], f[1], f[2]], [f[3], f[4], f[5]], [f[6], f[7], f[8]]))
                .collect();
            if truncate {
                if let Some(last) = knots.last_mut() {
                    last.pop();
                }
            }
            if let Ok(shape) = BezierShape::of_object(&object(&knots, closed, steps)) {
                let lines = shape.polylines();
                for segments in [3, 4] {
                    let p = crate::eval::modifier::lathe::LatheParams {
                        degrees: 270.0,
                        segments,
                        cap_start: false,
                        cap_end: false,
                        weld_core: true,
                        flip_normals: false,
                        smooth: true,
                        material_ids: true,
                        shape_ids: true,
                        axis: glam::Mat4::IDENTITY,
                    };
                    let _ = crate::eval::lathe::lathe(&lines, &p);
                }
            }
        }
    }

    #[test]
    fn closed_flag_and_bad_chunks() {
        let k = [
            knot_bytes(1, 1, [0.0; 3], [0.0; 3], [0.0; 3]),
            knot_bytes(1, 1, [1.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]),
            knot_bytes(1, 1, [0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 1.0, 0.0]),
        ];
        // Closed, line segments: 3 points, 3 pieces, no steps whatever the count.
        let shape = BezierShape::of_object(&object(&k, 1, 6)).unwrap();
        let line = &shape.polylines()[0];
        assert_eq!((line.points.len(), line.pieces(), line.closed), (3, 3, true));
        assert!(matches!(BezierShape::of_object(&object(&k, 2, 6)), Err(SplineError::Bad { id: CLOSED, .. })));
        assert!(matches!(BezierShape::of_object(&object(&k[..2], 0, 101)), Err(SplineError::Bad { id: STEPS, .. })));
        assert_eq!(BezierShape::of_object(&object(&k, 0, -1)), Err(SplineError::Adaptive));
        let mut short = object(&k, 0, 6);
        short = Chunk::container(short.id, vec![]);
        assert_eq!(BezierShape::of_object(&short), Err(SplineError::Missing(SHAPE_DATA)));
    }
}
