//! The Hedra primitive (Class ID 0xf21c5e23, 0) in Max's own vertex and face order, from its
//! parameter values (facts of the SDK samples `hedraobj.cpp`, `HedraObject::BuildMesh`, and
//! `mkhedra.cpp`, `CreateHedron`; no code taken).
//!
//! Parameters (legacy ParamBlock, ids 0–8): radius, family (0 Tetra, 1 Cube/Octa, 2 Dodec/
//! Icos, 3 Star1, 4 Star2; clamped 0–4), P, Q (clamped 0–1, scaled down together when
//! P + Q > 1), axis scales P / Q / R, vertices (0 basic, 1 centre, 2 centre & sides; clamped
//! 0–2), generate mapping (not built, as for the other primitives).
//!
//! The solid is the orbit of one point under the reflection group of a right spherical
//! triangle whose angles are π·dp/np (at its P corner) and π·dq/nq (at its Q corner), the
//! family giving (np/dp, nq/dq): 3/1 3/1, 3/1 4/1, 3/1 5/1, 3/1 5/2, 5/1 5/2. The starter
//! triangle has its R corner on +Z, its P corner in the XZ plane, its Q corner in the YZ
//! plane; the point blends the corners by P and Q and is normalised. The triangle is
//! reflected depth first (a stack; pushes Q, P, R) over the plane through the origin and two
//! corners, each reflected point registered as a vertex (points closer than 0.01 per
//! component on the unit sphere are one). Then one polygon per distinct corner of each kind
//! (R: 4 sides; P: np; Q: nq), turned to face away from the origin, and made into faces:
//! basic — a fan from its first vertex (one polygon, material = the kind 0/1/2); centre (or a
//! star kind, or an axis scale ≠ 1) — triangles around its centroid (scaled by the axis
//! scale); centre & sides — each side halved first. R polygons are left out when P or Q is 0,
//! P polygons when (P, Q) = (0, 1), Q polygons when (P, Q) = (1, 0). Vertices are scaled by the
//! radius. Smoothing groups 0.
//!
//! Measured: the 16 Tetra Hedras (radius 0.1, P = Q = 0, basic) of each of ten
//! `nel/max/skeetmtp__snow_*` scenes hold 6 vertices and 8 faces each in Max's Mesh Totals —
//! the Tetra family at P = Q = 0 is an octahedron (the points sit on the tetrahedron's edge
//! directions), four P and four Q triangles.

use super::{params_of, prim_stop, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::{DVec3, Vec3};

/// Hedra parameters, as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct HedraParams {
    /// Radius (id 0).
    pub radius: f32,
    /// Family 0–4 (id 1).
    pub family: i32,
    /// P (id 2).
    pub p: f32,
    /// Q (id 3).
    pub q: f32,
    /// Axis scales P, Q, R (ids 4–6), applied to the centres of the R, P, Q polygons.
    pub scale: [f32; 3],
    /// Vertices: 0 basic, 1 centre, 2 centre & sides (id 7).
    pub verts: i32,
}

/// (np, dp, nq, dq) per family.
const FAMILIES: [(u32, u32, u32, u32); 5] = [(3, 1, 3, 1), (3, 1, 4, 1), (3, 1, 5, 1), (3, 1, 5, 2), (5, 1, 5, 2)];
/// Max's `PI` is a `float` constant.
const MAX_PI: f64 = std::f32::consts::PI as f64;
/// Points closer than this per component are one vertex / one axis.
const SAME: f64 = 0.01;
/// Reflected triangles Max registers at most (`MAXREGTRIS`) and its stack size (`MAXQ`).
const MAX_TRIS: usize = 120;
const MAX_STACK: usize = 300;
/// Upper bound of the vertices any family makes (orbit, centres, side midpoints).
const MAX_VERTICES: u64 = 380;

/// The triangle being reflected: its R, P, Q corners and the point it carries.
#[derive(Clone, Copy, Debug)]
struct Tri {
    p: [DVec3; 3],
    v: DVec3,
}

/// Corner kinds, also the reflection that moves that corner.
const R: usize = 0;
const P: usize = 1;
const Q: usize = 2;

fn same(a: DVec3, b: DVec3) -> bool {
    (a - b).abs().max_element() <= SAME
}

/// Normalised, or +X for the zero vector (as the sample does).
fn unit(n: DVec3) -> DVec3 {
    let s = n.length();
    if s > 0.0 {
        n * (1.0 / s)
    } else {
        DVec3::X
    }
}

/// The state of one build: vertices, corner lists (with the first triangle met at each),
/// registered triangles and faces.
#[derive(Default)]
struct Builder {
    verts: Vec<DVec3>,
    axes: [Vec<(DVec3, Tri)>; 3],
    tris: Vec<[usize; 3]>,
    polygons: Vec<Polygon>,
}

impl Builder {
    fn vertex(&mut self, p: DVec3) -> usize {
        if let Some(i) = self.verts.iter().position(|&v| same(v, p)) {
            return i;
        }
        self.verts.push(p);
        self.verts.len() - 1
    }

    /// Reflects corner `k` and the point over the plane of the two other corners, and
    /// registers the new point.
    fn reflect(&mut self, t: &Tri, k: usize) -> Tri {
        let (a, b) = match k {
            R => (t.p[1], t.p[2]),
            P => (t.p[0], t.p[2]),
            _ => (t.p[0], t.p[1]),
        };
        let n = unit(a.cross(b));
        let mirror = |x: DVec3| x - 2.0 * x.dot(n) * n;
        let mut out = *t;
        out.p[k] = mirror(t.p[k]);
        out.v = mirror(t.v);
        self.vertex(out.v);
        out
    }

    /// Registers the triangle's corners; false when a triangle with the same three corners
    /// (or the 120th) was met before.
    fn register(&mut self, t: &Tri) -> bool {
        let mut key = [0; 3];
        for (i, k) in key.iter_mut().enumerate() {
            *k = match self.axes[i].iter().position(|(c, _)| same(*c, t.p[i])) {
                Some(j) => j,
                None => {
                    self.axes[i].push((t.p[i], *t));
                    self.axes[i].len() - 1
                }
            };
        }
        if self.tris.contains(&key) || self.tris.len() >= MAX_TRIS {
            return false;
        }
        self.tris.push(key);
        true
    }

    /// Reflects the starter triangle over the whole group, depth first.
    fn traverse(&mut self, t0: Tri) -> Result<(), PrimitiveError> {
        let mut stack = vec![(t0, None)];
        while let Some((t, op)) = stack.pop() {
            if !self.register(&t) {
                continue;
            }
            for k in [Q, P, R] {
                if op != Some(k) {
                    let next = self.reflect(&t, k);
                    stack.push((next, Some(k)));
                }
            }
            if stack.len() > MAX_STACK {
                return Err(PrimitiveError::Unsupported("hedra reflection stack overflow"));
            }
        }
        Ok(())
    }
}

/// The starter triangle and point of a family at (P, Q).
fn starter((np, dp, nq, dq): (u32, u32, u32, u32), cp: f64, cq: f64) -> Tri {
    let pang = MAX_PI * f64::from(dp) / f64::from(np);
    let qang = MAX_PI * f64::from(dq) / f64::from(nq);
    let cosp = pang.cos() / qang.sin();
    let cosq = qang.cos() / pang.sin();
    let (sinp, sinq) = ((1.0 - cosp * cosp).sqrt(), (1.0 - cosq * cosq).sqrt());
    let v = DVec3::new(cq * sinq, cp * sinp, 1.0 + cq * (cosq - 1.0) + cp * (cosp - 1.0));
    Tri { p: [DVec3::Z, DVec3::new(sinq, 0.0, cosq), DVec3::new(0.0, sinp, cosp)], v: unit(v) }
}

/// How polygons become faces.
#[derive(Clone, Copy)]
struct Faces {
    centre: bool,
    sides: bool,
    star: [bool; 3],
    scale: [f32; 3],
}

impl Builder {
    /// The polygon of kind `kind` around the corner whose first triangle is `t`: the point
    /// after each step of `steps` reflections, repeated `n` times, distinct vertices only.
    fn ring(&mut self, mut t: Tri, start: bool, steps: &[usize], n: u32) -> Vec<u32> {
        let mut pol: Vec<u32> = Vec::new();
        let mut out = |b: &mut Builder, p: DVec3| {
            let i = b.vertex(p) as u32;
            if !pol.contains(&i) {
                pol.push(i);
            }
        };
        if start {
            out(self, t.v);
        }
        for _ in 0..n {
            for &k in steps {
                t = self.reflect(&t, k);
                out(self, t.v);
            }
        }
        pol
    }

    /// Turns the polygon away from the origin and makes its faces.
    fn emit(&mut self, mut pol: Vec<u32>, kind: usize, f: &Faces) -> Result<(), PrimitiveError> {
        let centred = f.centre || f.star[kind] || f.scale[kind] != 1.0;
        if pol.len() < 3 && centred {
            // Max makes degenerate faces here, facing decided from entries left over from
            // the previous polygon: not evaluated.
            return Err(PrimitiveError::Unsupported("hedra polygon of fewer than three vertices"));
        }
        if pol.len() >= 3 {
            let [a, b, c] = [0, 1, 2].map(|i| self.verts[pol[i] as usize]);
            if (b - a).cross(c - b).dot(b) < 0.0 {
                pol.reverse();
            }
        }
        if f.sides {
            let n = pol.len();
            let mut mids = vec![0; n];
            for i in (0..n).rev() {
                let (a, b) = (self.verts[pol[i] as usize], self.verts[pol[(i + 1) % n] as usize]);
                mids[i] = self.vertex((a + b) * 0.5) as u32;
            }
            pol = pol.iter().zip(&mids).flat_map(|(&v, &m)| [v, m]).collect();
        }
        let material = kind as u16;
        if !centred {
            if pol.len() >= 3 {
                self.polygons.push(Polygon { material, ..Polygon::new(pol) });
            }
            return Ok(());
        }
        let sum = pol.iter().fold(DVec3::ZERO, |s, &i| s + self.verts[i as usize]);
        let mut centre = sum / pol.len() as f64;
        let n = pol.len();
        let ring = |i: usize| [pol[i], pol[(i + 1) % n]];
        if f.scale[kind] != 1.0 {
            centre *= f64::from(f.scale[kind]);
            let c = self.vertex(centre) as u32;
            // Every edge visible: each triangle its own face.
            for i in 0..n {
                let [a, b] = ring(i);
                self.polygons.push(Polygon { material, ..Polygon::new(vec![c, a, b]) });
            }
        } else {
            let c = self.vertex(centre) as u32;
            // Only the outer edges visible: one face, its triangles around the centre.
            let triangles = (0..n).map(|i| [c, ring(i)[0], ring(i)[1]]).collect();
            self.polygons.push(Polygon { material, triangles, ..Polygon::new(pol.clone()) });
        }
        Ok(())
    }
}

/// The parameters as Max clamps them: (family, P, Q, vertices).
fn clamped(h: &HedraParams) -> (usize, f32, f32, i32) {
    let (mut p, mut q) = (h.p.clamp(0.0, 1.0), h.q.clamp(0.0, 1.0));
    if p + q > 1.0 {
        let s = 1.0 / (p + q);
        p *= s;
        q *= s;
    }
    (h.family.clamp(0, 4) as usize, p, q, h.verts.clamp(0, 2))
}

/// The Hedra as Max builds it.
pub(crate) fn hedra_mesh(h: &HedraParams) -> Result<EvalMesh, PrimitiveError> {
    if !(h.radius.is_finite() && h.p.is_finite() && h.q.is_finite() && h.scale.iter().all(|s| s.is_finite())) {
        return Err(PrimitiveError::Unsupported("non-finite hedra parameter"));
    }
    let (family, fp, fq, verts) = clamped(h);
    let (np, dp, nq, dq) = FAMILIES[family];
    let (cp, cq) = (f64::from(fp), f64::from(fq));
    let t0 = starter(FAMILIES[family], cp, cq);
    let mut b = Builder::default();
    b.vertex(t0.v);
    b.traverse(t0)?;
    let skip = [cp == 0.0 || cq == 0.0, cp == 0.0 && cq == 1.0, cp == 1.0 && cq == 0.0];
    let f = Faces { centre: verts > 0, sides: verts == 2, star: [false, dp > 1, dq > 1], scale: h.scale };
    let kinds: [(bool, &[usize], u32); 3] = [(true, &[P, Q, P], 1), (false, &[Q, R], np), (false, &[P, R], nq)];
    for (kind, &(start, steps, n)) in kinds.iter().enumerate() {
        if skip[kind] {
            continue;
        }
        let starts: Vec<Tri> = b.axes[kind].iter().map(|&(_, t)| t).collect();
        for t in starts {
            let pol = b.ring(t, start, steps, n);
            b.emit(pol, kind, &f)?;
        }
    }
    let radius = f64::from(h.radius.max(0.0));
    let positions = b.verts.iter().map(|&v| (v * radius).as_vec3()).collect::<Vec<Vec3>>();
    Ok(EvalMesh { positions, polygons: b.polygons, uv: None, rule: FaceRule::Triangles })
}

/// The Hedra's evaluator.
pub(crate) const HEDRA: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// The Hedra from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let h = HedraParams {
        radius: p.float(0).map_err(pe)?,
        family: p.int(1).map_err(pe)?,
        p: p.float(2).map_err(pe)?,
        q: p.float(3).map_err(pe)?,
        scale: [p.float(4).map_err(pe)?, p.float(5).map_err(pe)?, p.float(6).map_err(pe)?],
        verts: p.int(7).map_err(pe)?,
    };
    within(ctx, base, MAX_VERTICES)?;
    hedra_mesh(&h).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tetra(radius: f32) -> HedraParams {
        HedraParams { radius, family: 0, p: 0.0, q: 0.0, scale: [1.0; 3], verts: 0 }
    }

    #[test]
    fn tetra_family_at_p_q_zero_is_an_octahedron() {
        // Tetra: np = nq = 3, angles π/3 at P and Q: cos p = cos q = cos 60° / sin 60° = 1/√3,
        // sin = √(2/3). The point at P = Q = 0 is the R corner (0, 0, 1); its orbit is the six
        // directions of the tetrahedron's edges: (0, 0, ±1) and (±1/√2, ±1/√2, 0) — the P
        // corner (√(2/3), 0, 1/√3) is the centre of the face (0, 0, 1), (1/√2, ±1/√2, 0).
        // R polygons are left out (P = 0); 4 P and 4 Q triangles: 6 vertices, 8 faces, the
        // 6 / 8 of each of the 16 Hedras (radius 0.1) in the snow scenes' Mesh Totals.
        let m = hedra_mesh(&tetra(0.1)).unwrap();
        assert_eq!((m.positions.len(), m.polygons.len(), m.counts().triangles), (6, 8, 8));
        let s = 0.1 * std::f32::consts::FRAC_1_SQRT_2;
        let mut want = vec![
            Vec3::new(0.0, 0.0, 0.1),
            Vec3::new(0.0, 0.0, -0.1),
            Vec3::new(s, s, 0.0),
            Vec3::new(s, -s, 0.0),
            Vec3::new(-s, s, 0.0),
            Vec3::new(-s, -s, 0.0),
        ];
        // The first vertex is the starter point itself.
        assert!((m.positions[0] - want[0]).abs().max_element() < 1e-7);
        for p in &m.positions {
            let k = want.iter().position(|w| (*w - *p).abs().max_element() < 1e-6);
            assert!(k.is_some(), "unexpected vertex {p}");
            want.remove(k.unwrap());
        }
        // Four P triangles (material 1), then four Q triangles (material 2), each facing out.
        let materials: Vec<u16> = m.polygons.iter().map(|p| p.material).collect();
        assert_eq!(materials, [1, 1, 1, 1, 2, 2, 2, 2]);
        for p in &m.polygons {
            let [a, b, c] = [0, 1, 2].map(|i| m.positions[p.corners[i] as usize]);
            assert!((b - a).cross(c - b).dot(b) > 0.0);
            assert_eq!((p.corners.len(), p.smoothing), (3, 0));
        }
    }

    #[test]
    fn families_and_vertex_modes_give_the_counts_of_their_polyhedra() {
        // P = Q = 0 puts the point on the R corner: the rectified solids. Tetra: octahedron
        // (6 V, 4 + 4 triangles); Cube/Octa: cuboctahedron (12 V, 8 triangles + 6 squares
        // = 8 + 12 tris); Dodec/Icos: icosidodecahedron (30 V, 20 triangles + 12 pentagons
        // = 20 + 36 tris).
        let counts = |h: HedraParams| {
            let m = hedra_mesh(&h).unwrap();
            (m.positions.len(), m.polygons.len(), m.counts().triangles)
        };
        assert_eq!(counts(tetra(1.0)), (6, 8, 8));
        assert_eq!(counts(HedraParams { family: 1, ..tetra(1.0) }), (12, 14, 20));
        assert_eq!(counts(HedraParams { family: 2, ..tetra(1.0) }), (30, 32, 56));
        // Centre: every polygon gets its centroid: 6 + 8 vertices, 8 · 3 triangles.
        assert_eq!(counts(HedraParams { verts: 1, ..tetra(1.0) }), (14, 8, 24));
        // Centre & sides: the 12 edge midpoints too, 8 · 6 triangles.
        assert_eq!(counts(HedraParams { verts: 2, ..tetra(1.0) }), (26, 8, 48));
        // An axis scale ≠ 1 on P: the P centroids, scaled, with every edge visible — each of
        // their triangles is a face of its own: 4 · 3 + 4 faces.
        let scaled = HedraParams { scale: [1.0, 1.5, 1.0], ..tetra(1.0) };
        assert_eq!(counts(scaled), (10, 16, 16));
        // P = 1 (Q = 0): the point weighted fully by P is the starter's third corner
        // (0, sin p, cos p), the Q polygons around it are left out (the rule) and R polygons
        // too (Q = 0): the four P triangles of the tetrahedron itself, 4 vertices.
        assert_eq!(counts(HedraParams { p: 1.0, ..tetra(1.0) }), (4, 4, 4));
        assert_eq!(counts(HedraParams { p: 1.0, verts: 1, ..tetra(1.0) }), (8, 4, 12));
        // P + Q > 1 is scaled back onto P + Q = 1, as Max does.
        assert_eq!(
            hedra_mesh(&HedraParams { p: 0.8, q: 0.8, ..tetra(1.0) }).unwrap().positions,
            hedra_mesh(&HedraParams { p: 0.5, q: 0.5, ..tetra(1.0) }).unwrap().positions
        );
        assert!(hedra_mesh(&HedraParams { radius: f32::NAN, ..tetra(1.0) }).is_err());
        // A polygon shrunk below three vertices with centre vertices is refused, not guessed.
        let mut b = Builder::default();
        let (i, j) = (b.vertex(DVec3::X) as u32, b.vertex(DVec3::Y) as u32);
        let f = Faces { centre: true, sides: false, star: [false; 3], scale: [1.0; 3] };
        assert!(b.emit(vec![i, j], P, &f).is_err());
        assert!(b.emit(vec![i, j], P, &Faces { centre: false, ..f }).is_ok());
        assert!(b.polygons.is_empty());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn hedras_lie_on_their_sphere_and_face_outward(
            family in 0i32..5, p in 0.0f32..1.0, q in 0.0f32..1.0, radius in 0.01f32..100.0,
        ) {
            // Basic vertices: every polygon corner is a point of the orbit, at the radius (the
            // star families' centroids lie inside, off the corners); every face has at least
            // three live corners; the mesh stays within the sample's vertex bound.
            let h = HedraParams { radius, family, p, q, scale: [1.0; 3], verts: 0 };
            if let Ok(m) = hedra_mesh(&h) {
                proptest::prop_assert!(m.positions.len() <= MAX_VERTICES as usize);
                for poly in &m.polygons {
                    proptest::prop_assert!(poly.corners.len() >= 3);
                    for &c in &poly.corners {
                        let v = m.positions.get(c as usize).copied();
                        proptest::prop_assert!(v.is_some_and(|v| (v.length() - radius).abs() <= radius * 1e-4));
                    }
                }
            }
        }
    }
}
