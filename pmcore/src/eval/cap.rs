//! Morph caps of closed polylines: each ring triangulated on its own points (no vertex
//! added), on the XY plane of the shape's object space.
//!
//! The rule is the one `max_payload_formats.txt` reverses face for face from Max's
//! SplineShape-to-mesh conversion (7 closed-spline references, 61 triangles): repeatedly
//! clip the valid ear (convex in the ring's orientation, no other ring point inside) with
//! the smallest interior angle, the last such ear in ring order on ties, emitting
//! (previous, ear, next); a ring of negative XY area is processed reversed. Whether the
//! Extrude and Bevel caps use the same triangulation is not established (no export pair
//! holds either): their triangle counts (n − 2 per ring of n points) are Max's whatever the
//! order, their diagonals are this rule's. A ring with no valid ear (self-intersecting on
//! XY) and rings nested in one another (caps with holes, which Max bridges) are typed
//! errors.

use glam::Vec2;

/// Rings above this many points are not triangulated (the ear search is cubic: 10⁹ steps
/// at this size; the corpus rings evaluated hold at most a few hundred points).
pub(crate) const MAX_RING_POINTS: usize = 1_000;

/// Why a cap could not be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum CapError {
    /// Fewer than three points.
    #[error("a closed ring of {0} points cannot be capped")]
    TooFew(usize),
    /// No ear left (the ring crosses itself on XY).
    #[error("no valid ear in a ring of {0} points (self-intersecting on XY)")]
    NoEar(usize),
    /// One ring lies inside another (a cap with a hole).
    #[error("ring {inner} lies inside ring {outer}: caps with holes are not evaluated")]
    Nested {
        /// The inner ring.
        inner: usize,
        /// The ring around it.
        outer: usize,
    },
    /// Too many points.
    #[error("a ring of {0} points is over the cap limit")]
    TooLarge(usize),
}

/// Twice the signed XY area (positive: counter-clockwise).
pub(crate) fn signed_area2(ring: &[Vec2]) -> f32 {
    let n = ring.len();
    (0..n).map(|i| ring[i].perp_dot(ring[(i + 1) % n])).sum()
}

/// Whether `p` is inside the polygon `ring` (even-odd rule, XY).
pub(crate) fn inside(ring: &[Vec2], p: Vec2) -> bool {
    let n = ring.len();
    let mut c = false;
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + n - 1) % n]);
        if (a.y > p.y) != (b.y > p.y) && p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x {
            c = !c;
        }
    }
    c
}

/// Stops when a ring lies inside another (tested by its first point).
pub(crate) fn check_not_nested(rings: &[Vec<Vec2>]) -> Result<(), CapError> {
    for (inner, r) in rings.iter().enumerate() {
        let Some(&p) = r.first() else { continue };
        for (outer, o) in rings.iter().enumerate() {
            if outer != inner && o.len() >= 3 && inside(o, p) {
                return Err(CapError::Nested { inner, outer });
            }
        }
    }
    Ok(())
}

/// Interior angle at `b` between `a` and `c`.
fn angle(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (a - b).angle_to(c - b).abs()
}

/// Whether `p` lies strictly inside the triangle (a, b, c) of positive orientation: a point
/// on an edge (collinear points of an unoptimized straight segment, a repeated point) does
/// not block an ear.
fn in_triangle(p: Vec2, a: Vec2, b: Vec2, c: Vec2) -> bool {
    (b - a).perp_dot(p - a) > 0.0 && (c - b).perp_dot(p - b) > 0.0 && (a - c).perp_dot(p - c) > 0.0
}

/// The ear to clip from `ring` (positions `pts`, counter-clockwise): the smallest interior
/// angle among the valid ears, the last on ties. With three points left every vertex is a
/// candidate.
fn pick_ear(pts: &[Vec2], ring: &[usize]) -> Option<usize> {
    let n = ring.len();
    let mut best: Option<(usize, f32)> = None;
    for k in 0..n {
        let (a, b, c) = (pts[ring[(k + n - 1) % n]], pts[ring[k]], pts[ring[(k + 1) % n]]);
        if n > 3 {
            if (b - a).perp_dot(c - b) <= 0.0 {
                continue;
            }
            let blocked = ring
                .iter()
                .enumerate()
                .any(|(j, &v)| j != k && j != (k + n - 1) % n && j != (k + 1) % n && in_triangle(pts[v], a, b, c));
            if blocked {
                continue;
            }
        }
        let theta = angle(a, b, c);
        if best.is_none_or(|(_, t)| theta <= t) {
            best = Some((k, theta));
        }
    }
    best.map(|(k, _)| k)
}

/// Triangles of one ring as indices into it, wound counter-clockwise on XY.
pub(crate) fn triangulate(ring: &[Vec2]) -> Result<Vec<[usize; 3]>, CapError> {
    let n = ring.len();
    if n < 3 {
        return Err(CapError::TooFew(n));
    }
    if n > MAX_RING_POINTS {
        return Err(CapError::TooLarge(n));
    }
    let mut order: Vec<usize> = (0..n).collect();
    if signed_area2(ring) < 0.0 {
        order.reverse();
    }
    let mut out = Vec::with_capacity(n - 2);
    while order.len() >= 3 {
        let m = order.len();
        let k = pick_ear(ring, &order).ok_or(CapError::NoEar(n))?;
        out.push([order[(k + m - 1) % m], order[k], order[(k + 1) % m]]);
        order.remove(k);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(p: &[[f32; 2]]) -> Vec<Vec2> {
        p.iter().map(|&q| Vec2::from_array(q)).collect()
    }

    #[test]
    fn square_and_concave_l() {
        // Unit square CCW: all ears 90°, the last wins: ear 3 → (2, 3, 0); then ring
        // (0, 1, 2), angles all 90°/45°: at 0 between (2) and (1): 45°, at 1: 90°, at 2: 45°
        // → last minimum is vertex 2 → (1, 2, 0).
        let t = triangulate(&v(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])).unwrap();
        assert_eq!(t, vec![[2, 3, 0], [1, 2, 0]]);
        // An L of 6 points: 4 triangles, none using the reflex corner 3 as an ear.
        let l = v(&[[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0]]);
        let t = triangulate(&l).unwrap();
        assert_eq!(t.len(), 4);
        for tri in &t {
            let [a, b, c] = tri.map(|i| l[i]);
            assert!((b - a).perp_dot(c - a) > 0.0, "{tri:?} wound counter-clockwise, not degenerate");
        }
        // Clockwise input: processed reversed, still counter-clockwise triangles.
        let mut cw = l.clone();
        cw.reverse();
        assert_eq!(triangulate(&cw).unwrap().len(), 4);
        assert_eq!(triangulate(&l[..2]), Err(CapError::TooFew(2)));
        // A square with a point in the middle of each side (a Rectangle interpolated without
        // optimize): 8 points, 6 triangles, none blocked by the collinear points.
        let mid = v(&[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [0.0, 2.0], [0.0, 1.0]]);
        assert_eq!(triangulate(&mid).unwrap().len(), 6);
        let outer = v(&[[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]]);
        let hole = v(&[[1.0, 1.0], [2.0, 1.0], [2.0, 2.0]]);
        assert_eq!(check_not_nested(&[outer, hole]), Err(CapError::Nested { inner: 1, outer: 0 }));
    }
}
