//! A tri object's triangles joined into polygons across their hidden edges — what Max's
//! MeshSmooth works on when its input is a tri object (it turns the mesh into a polygon
//! mesh first, a polygon being the triangles that hidden edges tie together).
//!
//! Measured on the NeL corpus (`nel/max/skeetmtp__snow_island2.max` `arche 1`: Editable
//! Mesh, 114 triangles, 86 of them with edge C hidden, under MeshSmooth NURMS × 1): joined,
//! the 114 triangles make 71 polygons of 256 corners, and one Catmull-Clark step gives
//! 2 × 256 = 512 triangles on 67 + 137 + 71 = 275 vertices — the NeL export's 512 triangles
//! and 275 distinct positions. Subdividing the triangles one by one gives 684 and 361.
//! Likewise `snow_island3` (638), `snow_target_100` (332), `snow_target_300` (392).
//!
//! An edge joins its two triangles when both of them hide it. A group whose outline is not
//! one simple loop (a hole, a pinched vertex) stays as its triangles.

use super::mesh::{EvalMesh, MapChannel, Polygon};
use std::collections::HashMap;

/// `mesh` with its triangles joined across hidden edges (map channel 1 joined alongside
/// when it lines up with the triangles); polygons that are not triangles, and triangles
/// without hidden edges, stay as they are.
pub(crate) fn join_hidden_edges(mesh: &EvalMesh) -> EvalMesh {
    let groups = groups_of(&mesh.polygons);
    let uv = mesh.uv.as_ref().filter(|uv| uv.lines_up_with(&mesh.polygons));
    let mut polygons = Vec::with_capacity(groups.len());
    let mut map_faces = Vec::with_capacity(groups.len());
    for group in groups {
        match outline(&mesh.polygons, &group) {
            Some(corners) if group.len() > 1 => {
                let first = &mesh.polygons[group[0]];
                let ids: Vec<u32> = corners.iter().map(|&(v, _)| v).collect();
                if let Some(uv) = uv {
                    map_faces.push(corners.iter().map(|&(_, (f, k))| uv.faces[f][k]).collect());
                }
                polygons.push(Polygon {
                    corners: ids,
                    material: first.material,
                    smoothing: first.smoothing,
                    triangles: Vec::new(),
                    hidden_edges: 0,
                });
            }
            _ => {
                for &f in &group {
                    polygons.push(Polygon { hidden_edges: 0, ..mesh.polygons[f].clone() });
                    if let Some(uv) = uv {
                        map_faces.push(uv.faces[f].clone());
                    }
                }
            }
        }
    }
    let uv = uv.map(|uv| MapChannel { vertices: uv.vertices.clone(), faces: map_faces });
    EvalMesh { positions: mesh.positions.clone(), polygons, uv, rule: mesh.rule }
}

/// Faces tied together by edges hidden on both sides (triangles only), each group in face
/// order, groups ordered by their first face.
fn groups_of(polygons: &[Polygon]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..polygons.len()).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    // Directed edge (a, b) → the triangle that has it and whether it hides it.
    let mut sides: HashMap<(u32, u32), (usize, bool)> = HashMap::new();
    for (f, p) in polygons.iter().enumerate().filter(|(_, p)| p.corners.len() == 3) {
        for k in 0..3 {
            let edge = (p.corners[k], p.corners[(k + 1) % 3]);
            sides.insert(edge, (f, p.hidden_edges & (1 << k) != 0));
        }
    }
    for (&(a, b), &(f, hidden)) in &sides {
        if let Some(&(g, other_hidden)) = sides.get(&(b, a)) {
            if hidden && other_hidden && f != g {
                let (rf, rg) = (root(&mut parent, f), root(&mut parent, g));
                parent[rf.max(rg)] = rf.min(rg);
            }
        }
    }
    let mut by_root: HashMap<usize, usize> = HashMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for f in 0..polygons.len() {
        let r = root(&mut parent, f);
        let slot = *by_root.entry(r).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[slot].push(f);
    }
    groups
}

/// The outline of a group of triangles as (vertex, (face, corner)) in winding order,
/// starting at the first face's first outline corner; `None` unless the edges not shared
/// inside the group form one simple loop.
fn outline(polygons: &[Polygon], group: &[usize]) -> Option<Vec<(u32, (usize, usize))>> {
    let mut inside: HashMap<(u32, u32), usize> = HashMap::new();
    for &f in group {
        let c = &polygons[f].corners;
        for k in 0..c.len() {
            *inside.entry((c[k], c[(k + 1) % c.len()])).or_default() += 1;
        }
    }
    // Outline edges: directed edges whose reverse is not in the group.
    let mut next: HashMap<u32, (u32, (usize, usize))> = HashMap::new();
    let mut start = None;
    for &f in group {
        let c = &polygons[f].corners;
        for k in 0..c.len() {
            let (a, b) = (c[k], c[(k + 1) % c.len()]);
            if inside.contains_key(&(b, a)) {
                continue;
            }
            if next.insert(a, (b, (f, k))).is_some() {
                return None; // a pinched vertex: two outline edges leave it
            }
            start.get_or_insert(a);
        }
    }
    let start = start?;
    let mut loop_ = Vec::with_capacity(next.len());
    let mut at = start;
    loop {
        let &(to, corner) = next.get(&at)?;
        loop_.push((at, corner));
        at = to;
        if at == start || loop_.len() > next.len() {
            break;
        }
    }
    (at == start && loop_.len() == next.len() && loop_.len() >= 3).then_some(loop_)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::FaceRule;
    use glam::{Vec2, Vec3};

    fn tri(corners: [u32; 3], hidden_edges: u8) -> Polygon {
        Polygon { corners: corners.to_vec(), material: 0, smoothing: 1, triangles: Vec::new(), hidden_edges }
    }

    /// A unit square 0 (0,0) 1 (1,0) 2 (1,1) 3 (0,1) as two triangles 0-1-2 and 0-2-3 whose
    /// shared diagonal 2→0 / 0→2 is edge 2 of the first and edge 0 of the second.
    fn square(hidden_first: u8, hidden_second: u8) -> EvalMesh {
        EvalMesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y],
            polygons: vec![tri([0, 1, 2], hidden_first), tri([0, 2, 3], hidden_second)],
            uv: Some(MapChannel {
                vertices: vec![Vec2::ZERO, Vec2::X, Vec2::ONE, Vec2::Y],
                faces: vec![vec![0, 1, 2], vec![0, 2, 3]],
            }),
            rule: FaceRule::Triangles,
        }
    }

    #[test]
    fn a_diagonal_hidden_on_both_sides_makes_one_quad() {
        // Hand-worked: the outline of the pair is 0→1, 1→2 (first triangle), 2→3, 3→0
        // (second): the quad 0-1-2-3, its map corners the same numbers.
        let joined = join_hidden_edges(&square(0b100, 0b001));
        assert_eq!(joined.polygons.len(), 1);
        assert_eq!(joined.polygons[0].corners, vec![0, 1, 2, 3]);
        assert_eq!(joined.uv.as_ref().unwrap().faces, vec![vec![0, 1, 2, 3]]);
        assert!(joined.uv.as_ref().unwrap().lines_up_with(&joined.polygons));
    }

    #[test]
    fn an_edge_hidden_on_one_side_only_joins_nothing() {
        for (a, b) in [(0b100, 0), (0, 0b001), (0, 0)] {
            let joined = join_hidden_edges(&square(a, b));
            assert_eq!(joined.polygons.len(), 2, "hidden bits {a:#b} {b:#b}");
            assert_eq!(joined.polygons[1].corners, vec![0, 2, 3]);
        }
    }

    #[test]
    fn a_fan_with_every_inner_edge_hidden_is_one_polygon() {
        // A hexagon fanned from vertex 0 into 4 triangles: the inner edges 0-2, 0-3, 0-4
        // are hidden on both sides; the outline is the hexagon.
        let mut polygons = Vec::new();
        for i in 1..5u32 {
            // Corners [0, i, i + 1]: edge 0 is 0 → i, edge 2 is i + 1 → 0.
            let mut h = 0u8;
            if i > 1 {
                h |= 0b001; // edge 0: 0 → i, shared with the previous triangle
            }
            if i < 4 {
                h |= 0b100; // edge 2: i + 1 → 0, shared with the next triangle
            }
            polygons.push(tri([0, i, i + 1], h));
        }
        let mesh = EvalMesh {
            positions: (0..6).map(|i| Vec3::new(i as f32, (i * i) as f32, 0.0)).collect(),
            polygons,
            uv: None,
            rule: FaceRule::Triangles,
        };
        let joined = join_hidden_edges(&mesh);
        assert_eq!(joined.polygons.len(), 1);
        assert_eq!(joined.polygons[0].corners, vec![0, 1, 2, 3, 4, 5]);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn joining_keeps_every_outline_edge_and_the_corner_count_rule(
            n in 2usize..7, w in 1usize..5, hidden in proptest::collection::vec(proptest::bool::ANY, 64)
        ) {
            // An n × w grid of quads, each split on its diagonal; each diagonal hidden (on
            // both sides) or not. Joined quads have 4 corners, the rest stay triangles:
            // polygons = 2nw − h and corners = 6nw − 2h for h hidden diagonals; every
            // directed edge of a polygon is an edge of the original triangles.
            let idx = |i: usize, j: usize| (j * (n + 1) + i) as u32;
            let mut polygons = Vec::new();
            let mut h = 0;
            for j in 0..w {
                for i in 0..n {
                    let hide = hidden[(j * n + i) % hidden.len()];
                    h += usize::from(hide);
                    let (a, b, c, d) = (idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1));
                    polygons.push(tri([a, b, c], if hide { 0b100 } else { 0 }));
                    polygons.push(tri([a, c, d], if hide { 0b001 } else { 0 }));
                }
            }
            let positions = (0..(n + 1) * (w + 1)).map(|k| Vec3::new((k % (n + 1)) as f32, (k / (n + 1)) as f32, 0.0)).collect();
            let mesh = EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles };
            let joined = join_hidden_edges(&mesh);
            proptest::prop_assert_eq!(joined.polygons.len(), 2 * n * w - h);
            proptest::prop_assert_eq!(joined.polygons.iter().map(|p| p.corners.len()).sum::<usize>(), 6 * n * w - 2 * h);
            let edges: std::collections::HashSet<(u32, u32)> = mesh.polygons.iter()
                .flat_map(|p| (0..3).map(move |k| (p.corners[k], p.corners[(k + 1) % 3]))).collect();
            for p in &joined.polygons {
                for k in 0..p.corners.len() {
                    proptest::prop_assert!(edges.contains(&(p.corners[k], p.corners[(k + 1) % p.corners.len()])));
                }
            }
        }
    }
}
