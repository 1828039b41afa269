//! Delete edge (Edit Poly operation 54, `ep_op_delete_edge`): the faces on either side of
//! each selected edge go, as with delete face.
//!
//! What Max does (SDK sample `EditPolyOps.cpp`, `PolyOpDeleteEdge::Do`): every face using
//! an edge that carries the operation's selection flag is marked dead
//! (`PropegateComponentFlags` from edges to faces); an edge whose faces both died dies, one
//! whose first face died is inverted and keeps its other face as its first; a vertex left
//! without faces dies when `epm_delete_isolated_verts` is set; Edit Poly then collapses the
//! dead parts. That is the face deletion [`super::delete_marked_faces`] replays (delete face,
//! op 11), here with the faces found from Max's edge numbering ([`crate::eval::poly_edges`]).

use super::{delete_marked_faces, Operation};
use crate::eval::mesh::EvalMesh;
use crate::eval::poly_edges::Edge;

/// Deletes the faces of the edges `op` selects. `Err` (the node stops) when the operation
/// stores no selection or selects among another number of edges than `edges` holds (the
/// numbering then differs from Max's).
pub(super) fn delete_edges_op(mesh: &mut EvalMesh, edges: &mut Vec<Edge>, op: &Operation<'_>) -> Result<(), String> {
    let sel = op.selection.as_ref().filter(|s| !s.is_empty()).ok_or("delete edge stores no edge selection")?;
    if sel.len() != edges.len() {
        return Err(format!(
            "delete edge: the operation selects among {} edges, this mesh has {} (edge numbering differs from Max's)",
            sel.len(),
            edges.len()
        ));
    }
    let faces = faces_of_edges(edges, sel, mesh.polygons.len())?;
    delete_marked_faces(mesh, Some(edges), &faces, op)
}

/// The faces using a selected edge.
fn faces_of_edges(edges: &[Edge], selected: &[bool], face_count: usize) -> Result<Vec<bool>, String> {
    let mut faces = vec![false; face_count];
    for (e, _) in edges.iter().zip(selected).filter(|(_, &s)| s) {
        for f in std::iter::once(e.f1).chain(e.f2) {
            *faces.get_mut(f).ok_or_else(|| format!("delete edge: edge face {f} of {face_count}"))? = true;
        }
    }
    Ok(faces)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::poly_edges;
    use crate::eval::primitive::r#box::unit_poly_box as poly_box;
    use proptest::prelude::*;

    fn op(selection: Vec<bool>, isolated: bool) -> Operation<'static> {
        const ON: &[u8] = &[1, 0, 0, 0];
        const OFF: &[u8] = &[0, 0, 0, 0];
        Operation {
            id: 54,
            selection: Some(selection),
            parameters: vec![(26, if isolated { ON } else { OFF })],
            clone: false,
            data: None,
            unknown_settings: Vec::new(),
        }
    }

    #[test]
    fn deleting_one_box_edge_takes_its_two_faces() {
        // By hand: edge 0 of Max's box (bottom face 0's first edge, 0 → 2) borders the
        // bottom and the front side; both go, 4 quads stay, no vertex is left alone (each
        // corner of a box touches three faces, and at most two of them go).
        let mut m = poly_box();
        let mut e = poly_edges::fill_edges(&m, false);
        assert_eq!(e.len(), 12);
        let (f1, f2) = (e[0].f1, e[0].f2.unwrap());
        let mut sel = vec![false; 12];
        sel[0] = true;
        delete_edges_op(&mut m, &mut e, &op(sel, true)).unwrap();
        assert_eq!((m.positions.len(), m.polygons.len()), (8, 4));
        assert_ne!(f1, f2);
        // The edge list follows: edge 0 died with both its faces, the other 11 remain
        // (the 6 edges of the two deleted faces other than edge 0 each keep one face).
        assert_eq!(e.len(), 11);
        assert_eq!(e.iter().filter(|x| x.f2.is_none()).count(), 6);
    }

    #[test]
    fn a_selection_of_another_length_stops() {
        let mut m = poly_box();
        let mut e = poly_edges::fill_edges(&m, false);
        assert!(delete_edges_op(&mut m, &mut e, &op(vec![true; 5], true)).is_err());
    }

    proptest! {
        /// Any edge selection on the box: the faces left are exactly those using no
        /// selected edge, and the edge list keeps one entry per remaining face edge.
        #[test]
        fn faces_left_are_those_without_a_selected_edge(sel in proptest::collection::vec(any::<bool>(), 12)) {
            let mut m = poly_box();
            let mut e = poly_edges::fill_edges(&m, false);
            let doomed = faces_of_edges(&e, &sel, 6).unwrap();
            let left = doomed.iter().filter(|&&d| !d).count();
            delete_edges_op(&mut m, &mut e, &op(sel, true)).unwrap();
            prop_assert_eq!(m.polygons.len(), left);
            prop_assert_eq!(e.len(), poly_edges::fill_edges(&m, false).len());
            let used: std::collections::HashSet<u32> = m.polygons.iter().flat_map(|p| p.corners.clone()).collect();
            prop_assert_eq!(used.len(), m.positions.len());
        }
    }
}
