//! The edge list of a poly mesh as Max's `MNMesh` numbers it, for the Edit Poly operations
//! whose records index edges (insert vertex in edge) or that add edges and faces (connect
//! vertices), and the order extrude-like operations take a cluster's border in.
//!
//! Established on `NewModularWallSingleDoor.max` (a box under an Edit Poly that deletes
//! three faces, a Normal modifier that flips every face, then an Edit Poly cutting a door
//! with 6 × insert vertex + connect vertices, extrude, bevel), whose records give Max's own
//! counts at every step (each operation's stored selection is as long as Max's vertex, edge
//! or face list was) and whose export `ModularWallSingleDoor.fbx` gives the positions:
//!
//! * edges are numbered by first use: faces in order, each face's corners in order, an
//!   edge `a → b` created the first time a face walks it, that face its `f1`; a face flipped
//!   by a Normal modifier afterwards keeps the numbering and walks its edges forwards again
//!   ([`fill_edges`] with `turned`: the numbering of the faces before the flip) — with it
//!   the inserted vertices land on the door's lines (x = ±17.7165, z = 86.6141 after the
//!   stored offsets, as the export has them) and every stored selection has Max's length;
//! * inserting a vertex at `prop` on edge `e = a → b` puts it at `a + prop·(b − a)`; `e`
//!   becomes `a → new`, the edge `new → b` is appended (`MNMesh::SplitEdge`);
//! * connecting two vertices of a face (`MNMesh::SeparateFace` between corners `i < j`):
//!   the face keeps corners `0 … i, j … n−1`, the new face (appended) takes `i … j`, the new
//!   edge `corner i → corner j` (appended) has the kept face as `f1`;
//! * deleting faces keeps the survivors' order; an edge whose `f1` died is turned around.

use super::mesh::{EvalMesh, Polygon};

/// One edge: end vertices in the order its first face walks it, and its faces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// First vertex (the edge runs `v1 → v2` in face `f1`).
    pub v1: u32,
    /// Second vertex.
    pub v2: u32,
    /// The face that walks `v1 → v2`.
    pub f1: usize,
    /// The face on the other side, if any.
    pub f2: Option<usize>,
}

/// The edges of `mesh` in order of first use (see the module notes); `turned`: the faces
/// were flipped since the edges were numbered, so they are numbered along the faces as
/// they were (corner 0, then the others backwards) and run the way the flipped faces walk
/// them.
pub fn fill_edges(mesh: &EvalMesh, turned: bool) -> Vec<Edge> {
    let mut out: Vec<Edge> = Vec::new();
    let mut by_pair: std::collections::HashMap<(u32, u32), usize> = std::collections::HashMap::new();
    for (f, p) in mesh.polygons.iter().enumerate() {
        let c = &p.corners;
        let n = c.len();
        for i in 0..n {
            // Unflipped, corner k of the face as it was is corner (n − k) mod n now.
            let (a, b) = if turned { (c[(n - (i + 1) % n) % n], c[(n - i) % n]) } else { (c[i], c[(i + 1) % n]) };
            let key = (a.min(b), a.max(b));
            match by_pair.get(&key) {
                Some(&e) if out[e].f2.is_none() && out[e].v1 == b => out[e].f2 = Some(f),
                Some(_) => {}
                None => {
                    by_pair.insert(key, out.len());
                    out.push(Edge { v1: a, v2: b, f1: f, f2: None });
                }
            }
        }
    }
    out
}

/// Inserts a vertex on edge `e` at `prop` of the way from `v1` to `v2` (see the module
/// notes); returns it. `Err` when `e` is out of range or a face does not walk the edge.
pub fn split_edge(mesh: &mut EvalMesh, edges: &mut Vec<Edge>, e: usize, prop: f32) -> Result<u32, String> {
    let edge = *edges.get(e).ok_or_else(|| format!("insert vertex: edge {e} of {}", edges.len()))?;
    let (a, b) = (mesh.positions[edge.v1 as usize], mesh.positions[edge.v2 as usize]);
    let nv = mesh.positions.len() as u32;
    mesh.positions.push(a + (b - a) * prop);
    edges[e].v2 = nv;
    edges.push(Edge { v1: nv, v2: edge.v2, f1: edge.f1, f2: edge.f2 });
    insert_between(&mut mesh.polygons[edge.f1], edge.v1, edge.v2, nv)?;
    if let Some(f2) = edge.f2 {
        insert_between(&mut mesh.polygons[f2], edge.v2, edge.v1, nv)?;
    }
    Ok(nv)
}

/// Puts `v` between consecutive corners `a → b` of `p`.
fn insert_between(p: &mut Polygon, a: u32, b: u32, v: u32) -> Result<(), String> {
    let n = p.corners.len();
    let i = (0..n)
        .find(|&i| p.corners[i] == a && p.corners[(i + 1) % n] == b)
        .ok_or_else(|| format!("insert vertex: no face walks edge {a} → {b}"))?;
    p.corners.insert(i + 1, v);
    p.triangles.clear();
    Ok(())
}

/// Splits every face holding exactly two marked, non-adjacent vertices along the line
/// between them (`MNMesh::ConnectVertices`), faces in order; a face holding more than two
/// stops (the order Max joins them in is not established).
pub fn connect_vertices(mesh: &mut EvalMesh, edges: &mut Vec<Edge>, marked: &[bool]) -> Result<(), String> {
    let mut by_ends: std::collections::HashMap<(u32, u32), usize> =
        edges.iter().enumerate().map(|(i, e)| ((e.v1, e.v2), i)).collect();
    for f in 0..mesh.polygons.len() {
        let c = &mesh.polygons[f].corners;
        let n = c.len();
        let at: Vec<usize> = (0..n).filter(|&i| marked.get(c[i] as usize).copied().unwrap_or(false)).collect();
        match at[..] {
            [] | [_] => {}
            [i, j] if j == i + 1 || (i == 0 && j == n - 1) => {}
            [i, j] => separate_face(mesh, edges, &mut by_ends, f, i, j),
            _ => return Err(format!("connect vertices: face {f} holds {} marked vertices", at.len())),
        }
    }
    Ok(())
}

/// Splits face `f` between its corners `i < j` (see the module notes).
fn separate_face(
    mesh: &mut EvalMesh,
    edges: &mut Vec<Edge>,
    by_ends: &mut std::collections::HashMap<(u32, u32), usize>,
    f: usize,
    i: usize,
    j: usize,
) {
    let c = mesh.polygons[f].corners.clone();
    let kept: Vec<u32> = c[..=i].iter().chain(&c[j..]).copied().collect();
    let new: Vec<u32> = c[i..=j].to_vec();
    let nf = mesh.polygons.len();
    // The edges along the new face's part now border it.
    for w in 0..new.len() - 1 {
        let (a, b) = (new[w], new[w + 1]);
        if let Some(e) = by_ends.get(&(a, b)).map(|&k| &mut edges[k]).filter(|e| e.f1 == f) {
            e.f1 = nf;
        } else if let Some(e) = by_ends.get(&(b, a)).map(|&k| &mut edges[k]).filter(|e| e.f2 == Some(f)) {
            e.f2 = Some(nf);
        }
    }
    let mut q = mesh.polygons[f].clone();
    q.corners = new;
    q.triangles.clear();
    mesh.polygons[f].corners = kept;
    mesh.polygons[f].triangles.clear();
    mesh.polygons.push(q);
    by_ends.insert((c[i], c[j]), edges.len());
    edges.push(Edge { v1: c[i], v2: c[j], f1: f, f2: Some(nf) });
}

/// Brings the edge list along a face deletion and the collapse after it: an edge whose
/// faces both died dies; one whose first face died is turned around (its second face
/// becomes its first); faces and vertices are renumbered (`face_map` / `vertex_map`: new
/// index, `None` for the dead).
pub fn after_delete(
    edges: &mut Vec<Edge>,
    face_map: &[Option<usize>],
    vertex_map: &[Option<u32>],
) -> Result<(), String> {
    let mut out = Vec::with_capacity(edges.len());
    for e in edges.iter() {
        let f1 = face_map.get(e.f1).copied().flatten();
        let f2 = e.f2.and_then(|f| face_map.get(f).copied().flatten());
        let (v1, v2, f1, f2) = match (f1, f2) {
            (None, None) => continue,
            (Some(a), b) => (e.v1, e.v2, a, b),
            (None, Some(b)) => (e.v2, e.v1, b, None),
        };
        let map = |v: u32| vertex_map.get(v as usize).copied().flatten().ok_or("edge on a deleted vertex");
        out.push(Edge { v1: map(v1)?, v2: map(v2)?, f1, f2 });
    }
    *edges = out;
    Ok(())
}

/// Decodes an insert-vertex-in-edge record (`0x1600`: `u32` count, the edge indices, then
/// one `f32` proportion per edge; `LocalInsertVertexEdgeData::Save` in the SDK sample).
pub fn insert_records(payload: &[u8]) -> Option<Vec<(usize, f32)>> {
    let n = u32::from_le_bytes(payload.get(..4)?.try_into().ok()?) as usize;
    if payload.len() != 4 + 8 * n {
        return None;
    }
    let word =
        |k: usize| u32::from_le_bytes([payload[4 + 4 * k], payload[5 + 4 * k], payload[6 + 4 * k], payload[7 + 4 * k]]);
    Some((0..n).map(|k| (word(k) as usize, f32::from_bits(word(n + k)))).collect())
}

/// The border edges of the marked faces in edge index order, each as the marked face walks
/// it (`a → b`): an extrude walks each cluster's border from the first of these
/// (`ModularWallSingleDoor.fbx`'s frame vertices come in that order).
pub fn directed_border(edges: &[Edge], mesh: &EvalMesh, faces: &[bool]) -> Vec<(u32, u32)> {
    let marked = |f: Option<usize>| f.is_some_and(|f| faces.get(f).copied().unwrap_or(false));
    let walks = |f: usize, a: u32, b: u32| {
        let c = &mesh.polygons[f].corners;
        (0..c.len()).any(|k| c[k] == a && c[(k + 1) % c.len()] == b)
    };
    edges
        .iter()
        .filter(|e| marked(Some(e.f1)) != marked(e.f2))
        .map(|e| {
            let f = if marked(Some(e.f1)) { e.f1 } else { e.f2.unwrap_or(e.f1) };
            if walks(f, e.v1, e.v2) {
                (e.v1, e.v2)
            } else {
                (e.v2, e.v1)
            }
        })
        .collect()
}

/// Largest mesh (vertices + corners) on which a weld without a known edge direction is
/// tried both ways to see whether the choice matters.
const WELD_COMPARE_LIMIT: usize = 200_000;

/// Decodes target-weld records (`0x06c0` starts, `0x06c4` targets: `u32` count, then the
/// vertex indices; `LocalTargetWeldData::Save` in the SDK sample).
pub fn weld_records(starts: &[u8], targets: &[u8]) -> Option<Vec<(u32, u32)>> {
    let list = |p: &[u8]| -> Option<Vec<u32>> {
        let n = u32::from_le_bytes(p.get(..4)?.try_into().ok()?) as usize;
        (p.len() == 4 + 4 * n)
            .then(|| p[4..].chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect())
    };
    let (s, t) = (list(starts)?, list(targets)?);
    (s.len() == t.len()).then(|| s.into_iter().zip(t).collect())
}

/// Welds vertex `start` onto `target` (`PolyOpTargetWeldVertex`; the records index the
/// living vertices, so each weld works on the mesh the previous one left): the survivor
/// takes `target`'s position. Joined by an edge, the edge collapses (`MNMesh::WeldEdge`:
/// faces along it lose a corner, a face left with two dies) and the edge's `v1` survives
/// (`known`: the directed edges whose direction is established; on
/// `NewModularWallSingleDoor.max` the 11 welds whose outcome depends on it all agree).
/// Otherwise both must lie on the border (`MNMesh::WeldBorderVerts`), else nothing
/// happens. When both choices of survivor give the same mesh (the two are neighbours in
/// the vertex list) no direction is needed; else an unknown direction stops.
pub fn target_weld(
    mesh: &mut EvalMesh,
    known: &mut Option<Vec<(u32, u32)>>,
    start: u32,
    target: u32,
) -> Result<(), String> {
    let n = mesh.positions.len() as u32;
    if start >= n || target >= n || start == target {
        return Ok(());
    }
    let consecutive = |p: &Polygon| {
        let c = &p.corners;
        (0..c.len()).any(|k| {
            let (a, b) = (c[k], c[(k + 1) % c.len()]);
            (a, b) == (start, target) || (a, b) == (target, start)
        })
    };
    let shares_edge = mesh.polygons.iter().any(consecutive);
    let border_pair = on_border(mesh, start) && on_border(mesh, target);
    if !shares_edge && !border_pair {
        return Ok(());
    }
    let dest = mesh.positions[target as usize];
    let direction = known
        .as_ref()
        .filter(|_| shares_edge)
        .and_then(|k| k.iter().find(|&&(a, b)| (a, b) == (start, target) || (a, b) == (target, start)));
    let keep = match direction {
        Some(&(v1, _)) => v1,
        None => {
            // Without a direction, only when both choices give the same mesh (compared on
            // copies: bounded to meshes of moderate size).
            let size = mesh.positions.len() + mesh.polygons.iter().map(|p| p.corners.len()).sum::<usize>();
            let same = size <= WELD_COMPARE_LIMIT
                && weld_into(mesh.clone(), start, target, dest) == weld_into(mesh.clone(), target, start, dest);
            if !same {
                return Err(if shares_edge {
                    format!("target weld {start} → {target}: the edge's direction is not known")
                } else {
                    format!("target weld {start} → {target} of border vertices: which one stays is not established")
                });
            }
            start
        }
    };
    let kill = if keep == start { target } else { start };
    let taken = std::mem::replace(mesh, EvalMesh::empty(mesh.rule));
    *mesh = weld_into(taken, keep, kill, dest);
    if let Some(k) = known.as_mut() {
        let renumber = |v: u32| {
            let v = if v == kill { keep } else { v };
            if v > kill {
                v - 1
            } else {
                v
            }
        };
        let moved: Vec<(u32, u32)> =
            k.iter().map(|&(a, b)| (renumber(a), renumber(b))).filter(|(a, b)| a != b).collect();
        // Edges that now coincide merged; which direction survives is not established.
        let key = |&(a, b): &(u32, u32)| (a.min(b), a.max(b));
        *k = moved.iter().filter(|e| moved.iter().filter(|f| key(f) == key(e)).count() == 1).copied().collect();
    }
    Ok(())
}

/// The mesh after `kill` merges into `keep` (placed at `dest`), the dead removed.
fn weld_into(mut mesh: EvalMesh, keep: u32, kill: u32, dest: glam::Vec3) -> EvalMesh {
    mesh.positions[keep as usize] = dest;
    for p in &mut mesh.polygons {
        if p.corners.contains(&kill) {
            if p.corners.contains(&keep) {
                p.corners.retain(|&c| c != kill);
            } else {
                for c in p.corners.iter_mut().filter(|c| **c == kill) {
                    *c = keep;
                }
            }
            p.triangles.clear();
        }
    }
    mesh.polygons.retain(|p| p.corners.len() >= 3);
    mesh.positions.remove(kill as usize);
    for c in mesh.polygons.iter_mut().flat_map(|p| p.corners.iter_mut()) {
        if *c > kill {
            *c -= 1;
        }
    }
    mesh
}

/// Whether `v` lies on an edge only one face walks.
fn on_border(mesh: &EvalMesh, v: u32) -> bool {
    let mut walked: std::collections::HashMap<(u32, u32), u32> = std::collections::HashMap::new();
    for c in mesh.polygons.iter().map(|p| &p.corners) {
        for k in 0..c.len() {
            let (a, b) = (c[k], c[(k + 1) % c.len()]);
            if a == v || b == v {
                *walked.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
    }
    walked.values().any(|&n| n == 1)
}

/// Welds the marked vertices within `threshold` (`PolyOpWeldVertex`): first marked
/// border vertices close to each other (`MNMesh::WeldBorderVerts`: which one stays is not
/// established, so any such pair stops), then every edge between marked vertices no
/// longer than the threshold collapses (`WeldShortPolyEdges` → `CollapseEdges`): the lower
/// index stays (`Chair.max`'s `UpperChairBody`: its two collapsed edges leave the 509
/// vertices in the order `Chair.fbx` has them). Only edges whose ends coincide (within
/// 1e-4) are collapsed — where the survivor ends up otherwise is not established — and a
/// vertex on two such edges stops.
pub fn weld_vertices(mesh: &mut EvalMesh, marked: &[bool], threshold: f32) -> Result<(), String> {
    use std::collections::HashMap;
    let n = mesh.positions.len();
    let is_marked = |v: u32| marked.get(v as usize).copied().unwrap_or(false);
    let mut walked: HashMap<(u32, u32), u32> = HashMap::new();
    for c in mesh.polygons.iter().map(|p| &p.corners) {
        for k in 0..c.len() {
            let (a, b) = (c[k], c[(k + 1) % c.len()]);
            *walked.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    let mut border = vec![false; n];
    for (&(a, b), &m) in &walked {
        if m == 1 {
            border[a as usize] = true;
            border[b as usize] = true;
        }
    }
    border_vertices_apart(mesh, &border, &is_marked, threshold)?;
    let mut target: Vec<u32> = (0..n as u32).collect();
    let mut shorts: Vec<(u32, u32)> = walked
        .keys()
        .copied()
        .filter(|&(a, b)| {
            is_marked(a) && is_marked(b) && mesh.positions[a as usize].distance(mesh.positions[b as usize]) <= threshold
        })
        .collect();
    shorts.sort_unstable();
    let mut on_short = vec![false; n];
    for (a, b) in shorts {
        if mesh.positions[a as usize].distance(mesh.positions[b as usize]) > 1e-4 {
            return Err(format!(
                "weld vertex: edge {a}–{b} collapses with its ends apart (where the survivor goes is not established)"
            ));
        }
        if std::mem::replace(&mut on_short[a as usize], true) || std::mem::replace(&mut on_short[b as usize], true) {
            return Err(format!("weld vertex: vertex {a} or {b} on two short edges"));
        }
        target[b as usize] = a;
    }
    if target.iter().enumerate().all(|(i, &t)| t == i as u32) {
        return Ok(());
    }
    merge_into_targets(mesh, &target);
    Ok(())
}

/// Marked border vertices within the threshold of each other stop the weld (which one
/// stays is not established); found through a grid of threshold-sized cells.
fn border_vertices_apart(
    mesh: &EvalMesh,
    border: &[bool],
    is_marked: &dyn Fn(u32) -> bool,
    threshold: f32,
) -> Result<(), String> {
    use std::collections::HashMap;
    let n = mesh.positions.len();
    let cell = threshold.max(1e-6);
    let key = |p: glam::Vec3| [(p.x / cell).floor() as i64, (p.y / cell).floor() as i64, (p.z / cell).floor() as i64];
    let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
    for v in (0..n as u32).filter(|&v| is_marked(v) && border[v as usize]) {
        let p = mesh.positions[v as usize];
        let [x, y, z] = key(p);
        for (dx, dy, dz) in (-1..=1).flat_map(|a| (-1..=1).flat_map(move |b| (-1..=1).map(move |c| (a, b, c)))) {
            for &w in grid.get(&[x + dx, y + dy, z + dz]).into_iter().flatten() {
                if mesh.positions[w as usize].distance(p) <= threshold {
                    return Err(format!("weld vertex: border vertices {w} and {v} within the threshold (which one stays is not established)"));
                }
            }
        }
        grid.entry([x, y, z]).or_default().push(v);
    }
    Ok(())
}

/// Moves every corner to its target vertex, drops the faces that collapse and the
/// vertices that are no longer their own target.
fn merge_into_targets(mesh: &mut EvalMesh, target: &[u32]) {
    let n = mesh.positions.len();
    for p in &mut mesh.polygons {
        for c in p.corners.iter_mut() {
            *c = target[*c as usize];
        }
        p.corners.dedup();
        while p.corners.len() > 1 && p.corners.first() == p.corners.last() {
            p.corners.pop();
        }
        p.triangles.clear();
    }
    mesh.polygons.retain(|p| p.corners.len() >= 3);
    let mut remap = vec![u32::MAX; n];
    let mut kept = Vec::with_capacity(n);
    for (i, p) in mesh.positions.iter().enumerate() {
        if target[i] == i as u32 {
            remap[i] = kept.len() as u32;
            kept.push(*p);
        }
    }
    mesh.positions = kept;
    for c in mesh.polygons.iter_mut().flat_map(|p| p.corners.iter_mut()) {
        *c = remap[*c as usize];
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    use crate::eval::primitive::r#box::unit_poly_box as poly_box;

    fn ends(edges: &[Edge]) -> Vec<(u32, u32)> {
        edges.iter().map(|e| (e.v1, e.v2)).collect()
    }

    #[test]
    fn edges_are_numbered_by_first_use() {
        // Bottom: 0→2, 2→3, 3→1, 1→0; top: 4→5, 5→7, 7→6, 6→4; front (0 1 5 4) walks
        // 0→1 (edge 3 backwards: its f2), then 1→5 new, 5→4 (edge 4's f2), 4→0 new; right
        // adds 3→7; back adds 2→6; left adds none. 12 edges.
        let e = fill_edges(&poly_box(), false);
        assert_eq!(
            ends(&e),
            vec![(0, 2), (2, 3), (3, 1), (1, 0), (4, 5), (5, 7), (7, 6), (6, 4), (1, 5), (4, 0), (3, 7), (2, 6)]
        );
        assert_eq!((e[3].f1, e[3].f2), (0, Some(2)));
        // Turned (the faces were flipped after numbering): the bottom was (0 1 3 2), whose
        // edges 0→1, 1→3, 3→2, 2→0 were numbered first and now run backwards.
        let t = fill_edges(&poly_box(), true);
        assert_eq!(ends(&t[..4]), vec![(1, 0), (3, 1), (2, 3), (0, 2)]);
        assert_eq!(t.len(), 12);
    }

    #[test]
    fn split_then_connect_cuts_the_front_in_two() {
        // Edge 8 (1→5) at 0.25: vertex 8 = (0.5, −0.5, 0) + 0.25·(0, 0, 1); edge 8 becomes
        // 1→8, edge 12 = 8→5; the front (0 1 5 4) takes it after 1, the right (1 3 7 5),
        // walking 5→1, after 5. Edge 9 (4→0) at 0.75: vertex 9 = (−0.5, −0.5, 0.25).
        let mut m = poly_box();
        let mut e = fill_edges(&m, false);
        assert_eq!(split_edge(&mut m, &mut e, 8, 0.25).unwrap(), 8);
        assert_eq!(m.positions[8], Vec3::new(0.5, -0.5, 0.25));
        assert_eq!((e[8].v1, e[8].v2, e[12].v1, e[12].v2), (1, 8, 8, 5));
        assert_eq!(m.polygons[2].corners, vec![0, 1, 8, 5, 4]);
        assert_eq!(m.polygons[3].corners, vec![1, 3, 7, 5, 8]);
        split_edge(&mut m, &mut e, 9, 0.75).unwrap();
        assert_eq!(m.positions[9], Vec3::new(-0.5, -0.5, 0.25));
        assert_eq!(m.polygons[2].corners, vec![0, 1, 8, 5, 4, 9]);
        // Connect 8 and 9 (front corners 2 and 5): the front keeps (0 1 8 9), the new face
        // 6 is (8 5 4 9), the new edge 14 runs 8→9 with the front as f1. The right holds
        // only vertex 8: unchanged.
        let marked: Vec<bool> = (0..10).map(|v| v == 8 || v == 9).collect();
        connect_vertices(&mut m, &mut e, &marked).unwrap();
        assert_eq!(m.polygons.len(), 7);
        assert_eq!(m.polygons[2].corners, vec![0, 1, 8, 9]);
        assert_eq!(m.polygons[6].corners, vec![8, 5, 4, 9]);
        assert_eq!(e[14], Edge { v1: 8, v2: 9, f1: 2, f2: Some(6) });
        // The top edge 5→4 (edge 4 walked backwards by the front) now borders face 6.
        assert_eq!(e[4].f2, Some(6));
        // Three marked vertices in one face (the front holds 0, 1 and 8): not replayed.
        let three: Vec<bool> = (0..10).map(|v| [0, 1, 8].contains(&v)).collect();
        assert!(connect_vertices(&mut m, &mut e, &three).is_err());
    }

    #[test]
    fn deleting_a_face_turns_edges_it_owned() {
        // Delete the bottom (face 0) of the box: edge 3 (1→0, f1 bottom, f2 front) turns
        // into 0→1 with the front (now face 1) as f1; edge 0 (0→2, f2 left) likewise.
        let m = poly_box();
        let mut e = fill_edges(&m, false);
        let face_map = [None, Some(0), Some(1), Some(2), Some(3), Some(4)];
        let vertex_map: Vec<Option<u32>> = (0..8).map(Some).collect();
        after_delete(&mut e, &face_map, &vertex_map).unwrap();
        assert_eq!(e.len(), 12);
        assert_eq!(e[3], Edge { v1: 0, v2: 1, f1: 1, f2: None });
        assert_eq!(e[0], Edge { v1: 2, v2: 0, f1: 4, f2: None });
    }

    #[test]
    fn a_target_weld_along_an_edge_keeps_its_first_vertex() {
        // Weld 1 onto 5 along edge 8 (1→5): vertex 1 stays, at 5's place (0.5, −0.5, 1);
        // 5 goes and 6, 7 move down to 5, 6. The front (0 1 5 4) and the right (1 3 7 5)
        // lose the corner: (0 1 4) and (1 3 6); the top (4 5 7 6) takes 1: (4 1 6 5).
        let dirs = |m: &EvalMesh| Some(fill_edges(m, false).iter().map(|e| (e.v1, e.v2)).collect::<Vec<_>>());
        let mut m = poly_box();
        let mut known = dirs(&m);
        target_weld(&mut m, &mut known, 1, 5).unwrap();
        assert_eq!(m.positions.len(), 7);
        assert_eq!(m.positions[1], Vec3::new(0.5, -0.5, 1.0));
        assert_eq!(m.polygons[2].corners, vec![0, 1, 4]);
        assert_eq!(m.polygons[3].corners, vec![1, 3, 6]);
        assert_eq!(m.polygons[1].corners, vec![4, 1, 6, 5]);
        // The old edge 5→7 is now 1→6.
        assert!(known.as_ref().unwrap().contains(&(1, 6)));
        // Without known directions the survivor of 1 and 5 is not established; for
        // neighbours in the vertex list (6 onto 7) both choices give the same mesh.
        let mut m = poly_box();
        assert!(target_weld(&mut m, &mut None, 1, 5).unwrap_err().contains("direction"));
        target_weld(&mut m, &mut None, 6, 7).unwrap();
        assert_eq!(m.positions.len(), 7);
        assert_eq!(m.positions[6], Vec3::new(0.5, 0.5, 1.0));
    }

    #[test]
    fn welding_collapses_a_zero_length_edge_onto_its_lower_vertex() {
        // Split the box's edge 8 (1→5) at 1e-7: vertex 8 sits on vertex 1, the front is
        // (0 1 8 5 4) and the right (1 3 7 5 8). Welding every vertex by 0.01 collapses the
        // edge 1–8 (both faces around it: not a border): 1 stays, the box comes back.
        let mut m = poly_box();
        let mut e = fill_edges(&m, false);
        split_edge(&mut m, &mut e, 8, 1e-7).unwrap();
        weld_vertices(&mut m, &[true; 9], 0.01).unwrap();
        assert_eq!(m, poly_box());
        // Two border vertices within the threshold: not replayed.
        let mut open = poly_box();
        open.polygons.truncate(1);
        open.positions[2] = open.positions[0];
        assert!(weld_vertices(&mut open, &[true; 8], 0.01).is_err());
    }

    #[test]
    fn insert_records_are_count_edges_then_proportions() {
        // NewModularWallSingleDoor.max's first record: 2 edges, 8 and 9, at 0.2139 and 0.7861.
        let mut p = Vec::new();
        for w in [2u32, 8, 9, 0.25f32.to_bits(), 0.75f32.to_bits()] {
            p.extend(w.to_le_bytes());
        }
        assert_eq!(insert_records(&p), Some(vec![(8, 0.25), (9, 0.75)]));
        assert_eq!(insert_records(&p[..16]), None);
    }
}
