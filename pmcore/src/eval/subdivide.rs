//! Catmull-Clark subdivision (TurboSmooth), as a mesh below the memory budget and as
//! counts above it.
//!
//! Topology is exact: every n-gon becomes n quads around a new face point, every edge
//! gains a midpoint. Positions follow the Catmull-Clark rules (face point = centroid;
//! interior edge point = mean of its ends and the two face points; interior vertex =
//! (Q + 2R + (n − 3)S) / n); boundary edges use their midpoint, a boundary vertex between two
//! border edges moves to (6S + A + B) / 8 (A, B its border neighbours: the cubic B-spline
//! rule of the border curve) and a corner (two edges only) stays. The border rule is what
//! Max's MeshSmooth does: `manSuite.FBX`'s open `Shirt` and `Tie` (Editable Poly, Unwrap
//! UVW, MeshSmooth NURMS 1 iteration) match it on all 55 / 81 vertices, where keeping the
//! border vertices left `Shirt` vertex 0 at (0, 533.165, −486.922) against the file's
//! (0, 515.937, −475.970).

use super::mesh::{Counts, EvalMesh, FaceRule, MapChannel, Polygon};
use glam::{Vec2, Vec3};
use std::collections::HashMap;

/// Counts after `iterations` Catmull-Clark steps: V' = V + E + F, E' = 2E + C, F' = C,
/// C' = 4C (C = number of face corners) — exact for any polygon mesh, open or closed.
pub(crate) fn catmull_clark_counts(c: Counts, iterations: u32) -> Counts {
    let mut c = c;
    for _ in 0..iterations {
        c = Counts {
            vertices: c.vertices.saturating_add(c.edges).saturating_add(c.polygons),
            edges: c.edges.saturating_mul(2).saturating_add(c.corners),
            polygons: c.corners,
            triangles: c.corners.saturating_mul(2),
            corners: c.corners.saturating_mul(4),
        };
    }
    c
}

/// The edges of a poly mesh: index by (low, high) vertex, the faces along each, its ends.
struct Edges {
    index: HashMap<(u32, u32), u32>,
    faces: Vec<Vec<u32>>,
    ends: Vec<(u32, u32)>,
}

impl Edges {
    /// How many faces run along the edge a–b (0 when it is not an edge).
    fn faces_along(&self, a: u32, b: u32) -> usize {
        self.index.get(&(a.min(b), a.max(b))).map_or(0, |&k| self.faces[k as usize].len())
    }
}

fn edges_of(mesh: &EvalMesh) -> Edges {
    let mut e = Edges { index: HashMap::new(), faces: Vec::new(), ends: Vec::new() };
    for (fi, p) in mesh.polygons.iter().enumerate() {
        for (i, &a) in p.corners.iter().enumerate() {
            let b = p.corners[(i + 1) % p.corners.len()];
            let key = (a.min(b), a.max(b));
            let k = *e.index.entry(key).or_insert_with(|| {
                e.faces.push(Vec::new());
                e.ends.push(key);
                (e.ends.len() - 1) as u32
            });
            e.faces[k as usize].push(fi as u32);
        }
    }
    e
}

/// One Catmull-Clark step over a poly mesh (the result is a poly mesh of quads). Map
/// channel 1, when it lines up with the polygons, is subdivided as a mesh of its own (see
/// [`subdivide_map`]).
pub(crate) fn catmull_clark(mesh: &EvalMesh) -> EvalMesh {
    let edges = edges_of(mesh);
    let mut out = catmull_clark_step(mesh, &edges, &vec![false; mesh.positions.len()]);
    out.uv = mesh
        .uv
        .as_ref()
        .filter(|uv| uv.lines_up_with(&mesh.polygons))
        .map(|uv| subdivide_map(uv, &mesh.polygons, &edges));
    out
}

/// The map channel after one step: its faces and vertices taken as a mesh in the UV plane
/// and subdivided by the same rules, with one difference at seams. A map border edge
/// whose polygon edge is interior (a seam: the two sides carry different map vertices)
/// gets its midpoint, and a map vertex on such an edge stays where it is; a map border
/// that is also the mesh's border follows the border curve like the positions. Measured
/// on `nel/max/skeetmtp__snow_island.max` (`GeoSphere01`: Editable Mesh, 100 triangles,
/// two materials each with its own map islands, MeshSmooth NURMS × 1): the NeL export's
/// 518 UVs are all matched only so — moving the 16 seam vertices along the map border
/// misses all 16, keeping the 20 vertices of the open rim in place misses those.
/// The subdivided map faces come out in the order and corner order of the subdivided
/// polygons (every n-gon gives its n quads, corner first), so they line up with them.
fn subdivide_map(uv: &MapChannel, polygons: &[Polygon], geometry_edges: &Edges) -> MapChannel {
    let flat = EvalMesh {
        positions: uv.vertices.iter().map(|v| v.extend(0.0)).collect(),
        polygons: uv.faces.iter().map(|f| Polygon::new(f.clone())).collect(),
        uv: None,
        rule: FaceRule::Polygons,
    };
    let map_edges = edges_of(&flat);
    let mut pinned = vec![false; uv.vertices.len()];
    for (face, p) in uv.faces.iter().zip(polygons) {
        let n = face.len();
        for i in 0..n {
            let (a, b) = (face[i], face[(i + 1) % n]);
            let (ga, gb) = (p.corners[i], p.corners[(i + 1) % n]);
            let map_border = map_edges.faces_along(a, b) == 1;
            if map_border && geometry_edges.faces_along(ga, gb) == 2 {
                pinned[a as usize] = true;
                pinned[b as usize] = true;
            }
        }
    }
    let out = catmull_clark_step(&flat, &map_edges, &pinned);
    MapChannel {
        vertices: out.positions.iter().map(|p| Vec2::new(p.x, p.y)).collect(),
        faces: out.polygons.into_iter().map(|p| p.corners).collect(),
    }
}

/// One step over `mesh` with its `edges`; a `pinned` vertex keeps its position.
fn catmull_clark_step(mesh: &EvalMesh, edges: &Edges, pinned: &[bool]) -> EvalMesh {
    let v = mesh.positions.len();
    let face_points: Vec<Vec3> = mesh
        .polygons
        .iter()
        .map(|p| p.corners.iter().map(|&c| mesh.positions[c as usize]).sum::<Vec3>() / p.corners.len() as f32)
        .collect();
    let edge_points: Vec<Vec3> = edges
        .ends
        .iter()
        .zip(&edges.faces)
        .map(|(&(a, b), faces)| {
            let mid = (mesh.positions[a as usize] + mesh.positions[b as usize]) / 2.0;
            if faces.len() == 2 {
                (mid * 2.0 + face_points[faces[0] as usize] + face_points[faces[1] as usize]) / 4.0
            } else {
                mid
            }
        })
        .collect();
    let mut positions = Vec::with_capacity(v + edge_points.len() + face_points.len());
    positions.extend(vertex_points(mesh, edges, &face_points, pinned));
    positions.extend(&edge_points);
    positions.extend(&face_points);
    let edge_vertex = |a: u32, b: u32| v as u32 + edges.index[&(a.min(b), a.max(b))];
    let mut polygons = Vec::with_capacity(mesh.polygons.iter().map(|p| p.corners.len()).sum());
    for (fi, p) in mesh.polygons.iter().enumerate() {
        let n = p.corners.len();
        let centre = (v + edge_points.len() + fi) as u32;
        for i in 0..n {
            let (prev, this, next) = (p.corners[(i + n - 1) % n], p.corners[i], p.corners[(i + 1) % n]);
            polygons.push(Polygon {
                corners: vec![this, edge_vertex(this, next), centre, edge_vertex(prev, this)],
                material: p.material,
                smoothing: p.smoothing,
                triangles: Vec::new(),
                hidden_edges: 0,
            });
        }
    }
    EvalMesh { positions, polygons, uv: None, rule: FaceRule::Polygons }
}

/// The moved original vertices.
fn vertex_points(mesh: &EvalMesh, edges: &Edges, face_points: &[Vec3], pinned: &[bool]) -> Vec<Vec3> {
    let v = mesh.positions.len();
    // Vertex points: per vertex, the mean of adjacent face points (Q), of adjacent edge
    // midpoints (R), the valence n, and whether it lies on a boundary.
    let mut q = vec![Vec3::ZERO; v];
    let mut faces_at = vec![0u32; v];
    for (fi, p) in mesh.polygons.iter().enumerate() {
        for &c in &p.corners {
            q[c as usize] += face_points[fi];
            faces_at[c as usize] += 1;
        }
    }
    let mut r = vec![Vec3::ZERO; v];
    let mut valence = vec![0u32; v];
    let mut boundary = vec![false; v];
    // Per vertex, the sum of its neighbours along border edges and how many there are.
    let mut border_sum = vec![Vec3::ZERO; v];
    let mut border_edges = vec![0u32; v];
    for (&(a, b), faces) in edges.ends.iter().zip(&edges.faces) {
        let mid = (mesh.positions[a as usize] + mesh.positions[b as usize]) / 2.0;
        for (x, other) in [(a, b), (b, a)] {
            r[x as usize] += mid;
            valence[x as usize] += 1;
            boundary[x as usize] |= faces.len() != 2;
            if faces.len() == 1 {
                border_sum[x as usize] += mesh.positions[other as usize];
                border_edges[x as usize] += 1;
            }
        }
    }
    let mut positions = Vec::with_capacity(v);
    for i in 0..v {
        let s = mesh.positions[i];
        let n = valence[i] as f32;
        positions.push(if pinned.get(i).copied().unwrap_or(false) {
            s
        } else if boundary[i] && border_edges[i] == 2 && valence[i] > 2 {
            (6.0 * s + border_sum[i]) / 8.0
        } else if boundary[i] || valence[i] < 3 || faces_at[i] == 0 {
            s
        } else {
            (q[i] / faces_at[i] as f32 + 2.0 * r[i] / n + (n - 3.0) * s) / n
        });
    }
    positions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::primitive::r#box::{box_mesh, BoxParams};

    #[test]
    fn counts_of_a_cube() {
        // A cube as a poly object: V 8, E 12, F 6, corners 24. One step: V = 8 + 12 + 6 =
        // 26, F = 24 quads, E = 24 + 24 = 48 (Euler: 26 − 48 + 24 = 2). Two steps: V = 26 +
        // 48 + 24 = 98, F = 96.
        let cube = Counts { vertices: 8, polygons: 6, triangles: 12, edges: 12, corners: 24 };
        let one = catmull_clark_counts(cube, 1);
        assert_eq!((one.vertices, one.edges, one.polygons), (26, 48, 24));
        let two = catmull_clark_counts(cube, 2);
        assert_eq!((two.vertices, two.polygons), (98, 96));
    }

    #[test]
    fn counts_of_an_open_quad() {
        // One quad (open): V 4, E 4, F 1, C 4 → V = 9, E = 12, F = 4 (a 2×2 grid).
        let quad = Counts { vertices: 4, polygons: 1, triangles: 2, edges: 4, corners: 4 };
        let one = catmull_clark_counts(quad, 1);
        assert_eq!((one.vertices, one.edges, one.polygons), (9, 12, 4));
    }

    #[test]
    fn subdivided_cube_has_the_counted_topology_and_shrinks_inside_the_cube() {
        let p = BoxParams { length: 2.0, width: 2.0, height: 2.0, length_segs: 1, width_segs: 1, height_segs: 1 };
        let cube = box_mesh(&p).unwrap().into_poly();
        let once = catmull_clark(&cube);
        let c = once.counts();
        assert_eq!((c.vertices, c.polygons, c.edges), (26, 24, 48));
        let twice = catmull_clark(&once);
        assert_eq!(twice.counts().vertices, 98);
        // The corners move inwards: a subdivided cube is rounder, never larger.
        assert!(twice.positions.iter().all(|q| q.x.abs() <= 1.0 + 1e-6 && q.y.abs() <= 1.0 + 1e-6));
        assert!(twice.positions.iter().all(|q| q.z >= -1e-6 && q.z <= 2.0 + 1e-6));
    }

    #[test]
    fn border_vertices_follow_the_border_curve_and_corners_stay() {
        // A 2 × 1 plane of two unit quads in z = 0: x in 0..2, y in 0..1. Vertices 0 (0,0),
        // 1 (1,0), 2 (2,0), 3 (0,1), 4 (1,1), 5 (2,1). Every edge is a border edge but the
        // middle one 1–4. Vertex 1 has three edges (0–1, 1–2, 1–4), two of them on the
        // border with neighbours 0 and 2: (6·(1,0) + (0,0) + (2,0)) / 8 = (1, 0). Vertex 4
        // likewise (1, 1). The four corners have two edges and stay.
        // To see the border rule move a point, lift vertex 1 to z = 0.8: it goes to
        // 6·0.8/8 = 0.6, and vertex 0 (a corner) stays at z = 0.
        let mesh = EvalMesh {
            positions: vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.8),
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(2.0, 1.0, 0.0),
            ],
            polygons: vec![Polygon::new(vec![0, 1, 4, 3]), Polygon::new(vec![1, 2, 5, 4])],
            uv: None,
            rule: FaceRule::Polygons,
        };
        let once = catmull_clark(&mesh);
        assert_eq!(once.positions[0], Vec3::ZERO);
        assert_eq!(once.positions[5], Vec3::new(2.0, 1.0, 0.0));
        assert!((once.positions[1] - Vec3::new(1.0, 0.0, 0.6)).length() < 1e-6);
        assert!((once.positions[4] - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-6);
    }

    /// Two unit quads side by side (x in 0..2, y in 0..1) sharing the edge 1–4, with map
    /// channel `faces` over `vertices`.
    fn two_quads(vertices: Vec<Vec2>, faces: Vec<Vec<u32>>) -> EvalMesh {
        EvalMesh {
            positions: vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(2.0, 0.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(2.0, 1.0, 0.0),
            ],
            polygons: vec![Polygon::new(vec![0, 1, 4, 3]), Polygon::new(vec![1, 2, 5, 4])],
            uv: Some(MapChannel { vertices, faces }),
            rule: FaceRule::Polygons,
        }
    }

    #[test]
    fn a_map_seam_keeps_its_vertices_and_halves_its_edges() {
        // Each quad maps onto the whole unit square on its own (map vertices 0..3 and
        // 4..7): the shared edge 1–4 is a seam. Left quad 0,1,4,3 → map 0 (0,0), 1 (1,0),
        // 2 (1,1), 3 (0,1); right quad 1,2,5,4 → map 4 (0,0), 5 (1,0), 6 (1,1), 7 (0,1).
        // Hand-worked: map vertices 1, 2 (left) and 4, 7 (right) sit on the seam and stay;
        // every map edge is a map border, so every edge point is its midpoint; each face
        // point is (0.5, 0.5). Map vertices 0 and 3 (left) and 5, 6 (right) lie on the
        // mesh's own border with two border edges each but valence 2 in the map: corners,
        // they stay too.
        let square = [Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y];
        let vertices: Vec<Vec2> = square.iter().chain(&square).copied().collect();
        let once = catmull_clark(&two_quads(vertices, vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]));
        let uv = once.uv.as_ref().expect("the channel is carried");
        assert!(uv.lines_up_with(&once.polygons));
        // 8 map vertices + 8 map edges + 2 map faces.
        assert_eq!(uv.vertices.len(), 18);
        assert_eq!(&uv.vertices[..8], &[square, square].concat()[..]);
        assert!(uv.vertices[8..16].iter().all(|m| [0.0, 0.5, 1.0].contains(&m.x) && [0.0, 0.5, 1.0].contains(&m.y)));
        assert_eq!(&uv.vertices[16..], &[Vec2::splat(0.5), Vec2::splat(0.5)]);
        // The first subdivided quad of the left face starts at its corner 0: map corner
        // (0, 0), edge 0–1's midpoint (0.5, 0), the face point, edge 3–0's midpoint (0, 0.5).
        let first: Vec<Vec2> = uv.faces[0].iter().map(|&m| uv.vertices[m as usize]).collect();
        assert_eq!(first, vec![Vec2::ZERO, Vec2::new(0.5, 0.0), Vec2::splat(0.5), Vec2::new(0.0, 0.5)]);
    }

    #[test]
    fn a_map_without_seams_moves_like_the_positions() {
        // One map vertex per mesh vertex at its (x, y): the map is the mesh in the plane,
        // with no seam; its border (the mesh's border) follows the border curve as the
        // positions do, so the subdivided map equals the subdivided positions' (x, y).
        let vertices = vec![
            Vec2::new(0.0, 0.0),
            Vec2::new(1.0, 0.0),
            Vec2::new(2.0, 0.0),
            Vec2::new(0.0, 1.0),
            Vec2::new(1.0, 1.0),
            Vec2::new(2.0, 1.0),
        ];
        let mut mesh = two_quads(vertices, vec![vec![0, 1, 4, 3], vec![1, 2, 5, 4]]);
        mesh.positions[1].y = -0.4; // bend the border so the border rule moves vertex 1
        mesh.uv.as_mut().unwrap().vertices[1].y = -0.4;
        let once = catmull_clark(&mesh);
        let uv = once.uv.unwrap();
        let xy: Vec<Vec2> = once.positions.iter().map(|p| p.truncate()).collect();
        assert_eq!(uv.vertices, xy);
        assert!((uv.vertices[1] - Vec2::new(1.0, -0.3)).length() < 1e-6, "(6·(−0.4) + 0 + 0) / 8");
    }

    #[test]
    fn a_map_that_does_not_line_up_is_dropped() {
        let mut mesh = two_quads(vec![Vec2::ZERO; 4], vec![vec![0, 1, 2, 3]]);
        assert!(catmull_clark(&mesh).uv.is_none(), "one map face for two polygons");
        mesh.uv = Some(MapChannel { vertices: vec![Vec2::ZERO; 4], faces: vec![vec![0, 1, 2, 3], vec![0, 1, 2, 9]] });
        assert!(catmull_clark(&mesh).uv.is_none(), "a corner past the map vertices");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        #[test]
        fn built_subdivision_has_the_counted_topology(l in 1i32..5, w in 1i32..5, h in 1i32..4, open in proptest::bool::ANY) {
            // A box (closed) or a plane (open border), as a poly object: one and two built
            // steps give exactly the counts of the count-only formulas.
            let mesh = if open {
                crate::eval::primitive::plane::plane_mesh(&crate::eval::primitive::plane::PlaneParams {
                    length: 1.0, width: 1.0, length_segs: l, width_segs: w,
                }).unwrap()
            } else {
                box_mesh(&BoxParams { length: 1.0, width: 2.0, height: 3.0, length_segs: l, width_segs: w, height_segs: h }).unwrap()
            }.into_poly();
            let once = catmull_clark(&mesh);
            let twice = catmull_clark(&once);
            let (c1, c2) = (catmull_clark_counts(mesh.counts(), 1), catmull_clark_counts(mesh.counts(), 2));
            let (g1, g2) = (once.counts(), twice.counts());
            proptest::prop_assert_eq!((g1.vertices, g1.polygons, g1.edges, g1.corners), (c1.vertices, c1.polygons, c1.edges, c1.corners));
            proptest::prop_assert_eq!((g2.vertices, g2.polygons, g2.edges), (c2.vertices, c2.polygons, c2.edges));
        }

        #[test]
        fn a_seamless_map_stays_the_image_of_the_positions(l in 1i32..5, w in 1i32..5, lift in -1.0f32..1.0) {
            // A plane whose map channel is its own (x, y) (one map vertex per vertex, no
            // seam), one vertex lifted in y: after one and two steps the map is still the
            // positions' (x, y), and it lines up with the polygons.
            let mut mesh = crate::eval::primitive::plane::plane_mesh(&crate::eval::primitive::plane::PlaneParams {
                length: 1.0, width: 1.0, length_segs: l, width_segs: w,
            }).unwrap().into_poly();
            mesh.positions[0].y += lift;
            mesh.uv = Some(MapChannel {
                vertices: mesh.positions.iter().map(|p| p.truncate()).collect(),
                faces: mesh.polygons.iter().map(|p| p.corners.clone()).collect(),
            });
            let twice = catmull_clark(&catmull_clark(&mesh));
            let uv = twice.uv.as_ref().unwrap();
            proptest::prop_assert!(uv.lines_up_with(&twice.polygons));
            for (m, p) in uv.vertices.iter().zip(&twice.positions) {
                proptest::prop_assert!((*m - p.truncate()).length() < 1e-5);
            }
        }
    }
}
