//! Cap (Edit Poly operation 9, `ep_op_cap`): one new polygon over each open border that
//! holds a selected edge.
//!
//! What Max does: the Editable Poly's cap (SDK sample `EPoly`, `EpfnCapHoles`) has
//! `MNMesh::GetBorder` collect the border loops at edge level, marking a loop as a target
//! when one of its edges carries the selection flag, and `MNMesh::FillInBorders` add one face
//! per targeted loop. The Edit Poly modifier's cap is taken to do the same over its stored
//! edge selection (its own `Do` is not in the SDK samples at hand); replayed so, the caps of
//! `danshaub__weaponrack.max` give Max's own `Mesh Totals`. Vertices are neither added nor
//! moved, and no edge is added: every border edge of a filled loop gets the new face as its
//! second face, so Max's edge numbering ([`crate::eval::poly_edges`]) holds on.
//!
//! The new face walks its loop against the border's own direction (an edge `v1 → v2`
//! walked by its only face `f1` is walked `v2 → v1` by the cap: the one orientation a valid
//! `MNMesh` allows). Which corner the face starts at and the order of several caps made by
//! one operation are not established from the stored bytes; here the caps come in the
//! order of their loops' lowest-numbered selected edge and each starts at the `v2` of that
//! edge. Neither changes Max's counts (the `Mesh Totals` compared), only the diagonal a
//! later triangulation takes and which face index a later record names — an operation
//! after a cap that selects faces stops when it names a cap face (see [`Caps::check`]). The material id and smoothing groups of the new
//! face are not established either; it carries id 0 and no smoothing group.
//!
//! A border vertex where two loops touch (two border edges leave it) makes the walk
//! ambiguous: the node stops, naming the vertex.

use super::Operation;
use crate::eval::mesh::{EvalMesh, Polygon};
use crate::eval::poly_edges::Edge;
use std::collections::HashMap;

/// The caps made so far in one replay, for the checks on later operations.
#[derive(Default)]
pub(super) struct Caps {
    /// Indices of the cap faces.
    faces: Vec<usize>,
    /// Faces were renumbered since (a weld dropped some): cap indices no longer known.
    renumbered: bool,
}

/// Operations whose replay depends on a face's first corner or on which face is which
/// (delete and detach renumber faces; tessellate, connect and insert split faces by their
/// corner order): after a cap they stop.
const CORNER_BOUND: &[u32] = &[11, 13, 28, 44, 54, 66];

impl Caps {
    /// Fills the borders `op` (a cap) selects.
    pub(super) fn fill(&mut self, mesh: &mut EvalMesh, edges: &mut [Edge], op: &Operation<'_>) -> Result<(), String> {
        let sel = op.selection.as_ref().filter(|s| !s.is_empty()).ok_or("cap stores no edge selection")?;
        if let Some((id, _)) = op.parameters.first() {
            return Err(format!("cap with parameter {id}, whose meaning is not established"));
        }
        self.faces.extend(cap_borders(mesh, edges, sel)?);
        Ok(())
    }

    /// `Err` when `op`, coming after a cap, needs what a cap leaves open: the cap's first
    /// corner, or which face a cap is.
    pub(super) fn check(&mut self, op: &Operation<'_>, face_count: usize) -> Result<(), String> {
        if self.faces.is_empty() {
            return Ok(());
        }
        if CORNER_BOUND.contains(&op.id) {
            return Err(format!(
                "operation {} after a cap is not replayed (the cap's first corner and face order are not established)",
                op.id
            ));
        }
        if [22, 59].contains(&op.id) {
            self.renumbered = true;
        }
        if [32, 38, 41].contains(&op.id) {
            let sel = op.selected(face_count)?;
            if self.renumbered || self.faces.iter().any(|&f| sel[f]) {
                return Err(format!("operation {} selects a cap face (which cap is which is not established)", op.id));
            }
        }
        Ok(())
    }
}

/// Fills the border loops holding a selected edge (`selected[e]` for edge `e` of `edges`,
/// in Max's numbering); returns the indices of the new faces. `Err` (the node stops) when
/// the selection is not as long as the edge list (the numbering then differs from Max's)
/// or a loop cannot be walked.
pub(crate) fn cap_borders(mesh: &mut EvalMesh, edges: &mut [Edge], selected: &[bool]) -> Result<Vec<usize>, String> {
    if selected.len() != edges.len() {
        return Err(format!(
            "cap: the operation selects among {} edges, this mesh has {} (edge numbering differs from Max's)",
            selected.len(),
            edges.len()
        ));
    }
    let mut leaving: HashMap<u32, usize> = HashMap::new();
    for (i, e) in edges.iter().enumerate().filter(|(_, e)| e.f2.is_none()) {
        if leaving.insert(e.v1, i).is_some() {
            if selected.iter().any(|&s| s) {
                return Err(format!("cap: two border edges leave vertex {} (the loop to fill is ambiguous)", e.v1));
            }
            return Ok(Vec::new());
        }
    }
    let mut filled = vec![false; edges.len()];
    let mut new_faces = Vec::new();
    let starts: Vec<usize> = (0..edges.len()).filter(|&e| selected[e] && edges[e].f2.is_none()).collect();
    for start in starts {
        if filled[start] {
            continue;
        }
        let lp = walk_loop(edges, &leaving, start)?;
        let nf = mesh.polygons.len();
        let mut corners: Vec<u32> = lp.iter().map(|&e| edges[e].v2).collect();
        corners.reverse();
        // Start at the first edge's v2 (now the last corner).
        corners.rotate_right(1);
        if corners.len() < 3 {
            return Err(format!("cap: border loop through edge {start} has {} edges", corners.len()));
        }
        for &e in &lp {
            filled[e] = true;
            edges[e].f2 = Some(nf);
        }
        mesh.polygons.push(Polygon::new(corners));
        new_faces.push(nf);
    }
    Ok(new_faces)
}

/// The border edges of the loop through `start`, in the border's direction (the edge
/// leaving each edge's `v2` next).
fn walk_loop(edges: &[Edge], leaving: &HashMap<u32, usize>, start: usize) -> Result<Vec<usize>, String> {
    let mut lp = vec![start];
    let mut at = edges[start].v2;
    while at != edges[start].v1 {
        let next = *leaving.get(&at).ok_or_else(|| format!("cap: the border through edge {start} does not close"))?;
        if lp.len() > edges.len() {
            return Err(format!("cap: the border through edge {start} does not close"));
        }
        lp.push(next);
        at = edges[next].v2;
    }
    Ok(lp)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::poly_edges::fill_edges;
    use crate::eval::primitive::r#box::unit_poly_box as poly_box;
    use proptest::prelude::*;

    /// A unit box without its top face (face 1 in Max's box order), edges renumbered.
    fn open_box() -> (EvalMesh, Vec<Edge>) {
        let mut m = poly_box();
        m.polygons.remove(1);
        let e = fill_edges(&m, false);
        (m, e)
    }

    #[test]
    fn capping_the_open_top_of_a_box_adds_one_quad_walking_the_border_backwards() {
        let (mut m, mut e) = open_box();
        assert_eq!((m.positions.len(), m.polygons.len(), e.len()), (8, 5, 12));
        let border: Vec<usize> = (0..e.len()).filter(|&i| e[i].f2.is_none()).collect();
        assert_eq!(border.len(), 4);
        let mut sel = vec![false; e.len()];
        sel[border[2]] = true;
        let new = cap_borders(&mut m, &mut e, &sel).unwrap();
        assert_eq!(new, vec![5]);
        // By hand: the top of Max's box is 4 5 7 6; its border, walked by the sides, runs
        // the other way round, so the cap walks 4 → 5 → 7 → 6 again (up to the start).
        let c = &m.polygons[5].corners;
        let at = c.iter().position(|&v| v == 4).unwrap();
        let walked: Vec<u32> = (0..4).map(|k| c[(at + k) % 4]).collect();
        assert_eq!(walked, vec![4, 5, 7, 6]);
        assert!(e.iter().all(|x| x.f2.is_some()), "the box is closed again");
        assert_eq!(m.positions.len(), 8, "no vertex added");
    }

    #[test]
    fn an_unselected_border_or_a_selected_inner_edge_changes_nothing() {
        let (mut m, mut e) = open_box();
        let inner = (0..e.len()).find(|&i| e[i].f2.is_some()).unwrap();
        let mut sel = vec![false; e.len()];
        sel[inner] = true;
        assert!(cap_borders(&mut m, &mut e, &sel).unwrap().is_empty());
        assert_eq!(m.polygons.len(), 5);
    }

    #[test]
    fn a_selection_of_another_length_stops() {
        let (mut m, mut e) = open_box();
        assert!(cap_borders(&mut m, &mut e, &[true; 13]).is_err());
    }

    proptest! {
        /// Deleting any set of a box's faces leaves borders; capping with every edge
        /// selected adds one face per border loop, no vertex, and closes the mesh (each
        /// edge then has two faces) whenever the deleted faces leave simple loops.
        #[test]
        fn capping_every_border_closes_the_box(gone in proptest::collection::vec(any::<bool>(), 6)) {
            let mut m = poly_box();
            let mut k = 0;
            m.polygons.retain(|_| { k += 1; !gone[k - 1] });
            let mut e = fill_edges(&m, false);
            let (v0, f0) = (m.positions.len(), m.polygons.len());
            let sel = vec![true; e.len()];
            match cap_borders(&mut m, &mut e, &sel) {
                Ok(new) => {
                    prop_assert_eq!(m.positions.len(), v0);
                    prop_assert_eq!(m.polygons.len(), f0 + new.len());
                    prop_assert!(e.iter().all(|x| x.f2.is_some()));
                    // Every edge is walked once each way.
                    let mut walked = std::collections::HashSet::new();
                    for p in &m.polygons {
                        for i in 0..p.corners.len() {
                            prop_assert!(walked.insert((p.corners[i], p.corners[(i + 1) % p.corners.len()])));
                        }
                    }
                }
                Err(msg) => prop_assert!(msg.contains("ambiguous") || msg.contains("edges"), "{}", msg),
            }
        }
    }
}
