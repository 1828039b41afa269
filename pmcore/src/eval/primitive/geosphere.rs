//! GeoSphere: a subdivided tetrahedron, octahedron or icosahedron on the sphere.

use super::{n, params_of, prim_stop, segs, within, MaxOrder, Primitive, PrimitiveError};
use crate::eval::context::EvalContext;
use crate::eval::mesh::{EvalMesh, FaceRule, Polygon, Welder};
use crate::eval::outcome::{param_stop, Stop};
use crate::model::scene_index::SceneObject;
use glam::Vec3;

/// The GeoSphere's evaluator.
pub const GEOSPHERE: Primitive = Primitive { module: module_path!(), build, order: MaxOrder::No, as_poly: None };

/// GeoSphere base solid (its `Geodesic Base Type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeoBase {
    /// Tetrahedron.
    Tetra,
    /// Octahedron.
    Octa,
    /// Icosahedron.
    Icosa,
}

/// GeoSphere (class 0x00000000, 0x00007f9e).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeoSphereParams {
    /// Radius.
    pub radius: f32,
    /// Segments (subdivisions of each base edge).
    pub segments: i32,
    /// Base solid.
    pub base: GeoBase,
    /// Hemisphere.
    pub hemisphere: bool,
}

impl GeoSphereParams {
    /// Vertices: F·s²/2 + 2 over the base solid's F faces (Euler: E = 3F/2, V = 2 + E − F).
    pub fn vertices(&self) -> u64 {
        let faces = match self.base {
            GeoBase::Tetra => 4,
            GeoBase::Octa => 8,
            GeoBase::Icosa => 20,
        };
        let s = n(self.segments);
        faces * s * s / 2 + 2
    }
}

fn base_solid(base: GeoBase) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    match base {
        GeoBase::Tetra => (
            vec![
                Vec3::new(1.0, 1.0, 1.0),
                Vec3::new(-1.0, -1.0, 1.0),
                Vec3::new(-1.0, 1.0, -1.0),
                Vec3::new(1.0, -1.0, -1.0),
            ],
            vec![[0, 1, 3], [0, 2, 1], [0, 3, 2], [1, 2, 3]],
        ),
        GeoBase::Octa => (
            vec![Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z],
            vec![[4, 0, 2], [4, 2, 1], [4, 1, 3], [4, 3, 0], [5, 2, 0], [5, 1, 2], [5, 3, 1], [5, 0, 3]],
        ),
        GeoBase::Icosa => {
            let t = (1.0 + 5f32.sqrt()) / 2.0;
            let v = vec![
                Vec3::new(-1.0, t, 0.0),
                Vec3::new(1.0, t, 0.0),
                Vec3::new(-1.0, -t, 0.0),
                Vec3::new(1.0, -t, 0.0),
                Vec3::new(0.0, -1.0, t),
                Vec3::new(0.0, 1.0, t),
                Vec3::new(0.0, -1.0, -t),
                Vec3::new(0.0, 1.0, -t),
                Vec3::new(t, 0.0, -1.0),
                Vec3::new(t, 0.0, 1.0),
                Vec3::new(-t, 0.0, -1.0),
                Vec3::new(-t, 0.0, 1.0),
            ];
            let f = vec![
                [0, 11, 5],
                [0, 5, 1],
                [0, 1, 7],
                [0, 7, 10],
                [0, 10, 11],
                [1, 5, 9],
                [5, 11, 4],
                [11, 10, 2],
                [10, 7, 6],
                [7, 1, 8],
                [3, 9, 4],
                [3, 4, 2],
                [3, 2, 6],
                [3, 6, 8],
                [3, 8, 9],
                [4, 9, 5],
                [2, 4, 11],
                [6, 2, 10],
                [8, 6, 7],
                [9, 8, 1],
            ];
            (v, f)
        }
    }
}

/// GeoSphere: every face of the base solid split into `segments²` triangles, points
/// pushed onto the sphere; points on shared base edges are welded by their barycentric
/// key over the base vertices.
pub fn geosphere_mesh(p: &GeoSphereParams) -> Result<EvalMesh, PrimitiveError> {
    let n = segs("segments", p.segments, 1)?;
    if p.hemisphere {
        return Err(PrimitiveError::Unsupported("hemisphere"));
    }
    let (base_v, base_f) = base_solid(p.base);
    let mut welder = Welder::default();
    let mut polygons = Vec::new();
    for f in &base_f {
        let mut point = |i: u32, j: u32| {
            let k = n - i - j;
            // Key: the (base vertex, weight) pairs with non-zero weight, sorted.
            let mut pairs: Vec<(u32, u32)> =
                [(f[0], k), (f[1], i), (f[2], j)].into_iter().filter(|&(_, w)| w > 0).collect();
            pairs.sort();
            let mut key = [-1i64; 3];
            for (slot, (v, w)) in pairs.iter().enumerate() {
                key[slot] = i64::from(*v) * (i64::from(n) + 1) + i64::from(*w);
            }
            let sum =
                base_v[f[0] as usize] * k as f32 + base_v[f[1] as usize] * i as f32 + base_v[f[2] as usize] * j as f32;
            welder.vertex(key, sum.normalize() * p.radius)
        };
        for j in 0..n {
            for i in 0..n - j {
                let (a, b, c) = (point(i, j), point(i + 1, j), point(i, j + 1));
                polygons.push(Polygon::new(vec![a, b, c]));
                if i + j + 1 < n {
                    let d = point(i + 1, j + 1);
                    polygons.push(Polygon::new(vec![b, d, c]));
                }
            }
        }
    }
    Ok(EvalMesh { positions: welder.positions, polygons, uv: None, rule: FaceRule::Triangles })
}

/// The GeoSphere from its parameter block.
fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    let p = params_of(ctx, base)?;
    let pe = |e| param_stop(base, e);
    let solid = match p.int(2).map_err(pe)? {
        0 => GeoBase::Tetra,
        1 => GeoBase::Octa,
        _ => GeoBase::Icosa,
    };
    let q = GeoSphereParams {
        radius: p.float(0).map_err(pe)?,
        segments: p.int(1).map_err(pe)?,
        base: solid,
        hemisphere: p.int_or(3, 0).map_err(pe)? != 0,
    };
    within(ctx, base, q.vertices())?;
    geosphere_mesh(&q).map_err(|e| prim_stop(base, e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::tests::vtp;

    #[test]
    fn geosphere_icosa_octa_tetra() {
        // Icosahedron, 4 segments: 20·4² = 320 triangles; V = 10·4² + 2 = 162 (Euler with
        // E = 3F/2 = 480: V = 2 + 480 − 320).
        let p = GeoSphereParams { radius: 1.0, segments: 4, base: GeoBase::Icosa, hemisphere: false };
        assert_eq!(vtp(&geosphere_mesh(&p).unwrap()), (162, 320, 320));
        // Octahedron, 2 segments: 8·4 = 32 faces, V = 2 + 48 − 32 = 18.
        let o = GeoSphereParams { base: GeoBase::Octa, segments: 2, ..p };
        assert_eq!(vtp(&geosphere_mesh(&o).unwrap()), (18, 32, 32));
        // Tetrahedron, 3 segments: 4·9 = 36 faces, V = 2 + 54 − 36 = 20.
        let t = GeoSphereParams { base: GeoBase::Tetra, segments: 3, ..p };
        assert_eq!(vtp(&geosphere_mesh(&t).unwrap()), (20, 36, 36));
    }
}
