//! Skin weights of a writer that splits vertices (glTF: one vertex per distinct position,
//! normal and uv, so its vertex indices are not Max's): each vertex's influence set — the
//! bones and weights — compared as a set, without the vertex identity.
//!
//! Every glTF vertex's set must be the set of some Max vertex, and every Max vertex's set
//! must be some glTF vertex's (a Max vertex that no face uses may have none: counted).
//! A Max set of more than [`MAX_INFLUENCES`] bones is cut to its first four in the Skin's
//! stored order, with the weights Max normalised over all its bones (not renormalised), as
//! the Babylon.js exporter writes `JOINTS_0`/`WEIGHTS_0` (four per vertex). Measured on
//! `RiggedFigure.gltf` (exporter v1.0.5, 28 of 312 Max vertices on five bones or more):
//! cut so, all 768 glTF sets have a Max partner; cut to the largest four, renormalised or
//! not, vertex 26 or 27 has none (5e-2 and 0.49 off). The Elf files cut none (no vertex on
//! more than four bones), so they do not tell the rule apart. How many were cut is reported. One changed weight in Max leaves its set without a
//! partner, so the check still catches a single perturbed vertex.

use pmcore::model::skin::VertexInfluences;
use std::collections::BTreeMap;

/// Influences per vertex a glTF `JOINTS_0`/`WEIGHTS_0` pair carries.
pub(super) const MAX_INFLUENCES: usize = 4;

/// Weight tolerance for glTF sets (absolute): `f32` weights renormalised by the writer in
/// `f32` — a few roundings of 6e-8; 1e-5 leaves room and is far below any edit.
pub(super) const SET_WEIGHT_TOLERANCE: f64 = 1e-5;

/// One influence set: bone names (lower case, sorted) and their weights.
type InfluenceSet = (Vec<String>, Vec<f64>);

/// Counters and the first difference of a set comparison.
#[derive(Debug, Default)]
pub(super) struct SetTally {
    pub(super) reference_vertices: usize,
    pub(super) max_vertices: usize,
    pub(super) cut_to_four: usize,
    pub(super) max_sets_unused: usize,
    pub(super) max_error: f64,
}

/// Max's stored weights as influence sets, cut to four and renormalised (module notes).
fn max_sets(bones: &[Option<String>], stored: &[VertexInfluences], tally: &mut SetTally) -> Vec<InfluenceSet> {
    stored
        .iter()
        .map(|v| {
            let mut w: Vec<(String, f64)> = v
                .weights()
                .into_iter()
                .filter(|&(_, w)| w > 0.0)
                .map(|(b, w)| (bones.get(b as usize).cloned().flatten().unwrap_or_default().to_lowercase(), w))
                .collect();
            if w.len() > MAX_INFLUENCES {
                tally.cut_to_four += 1;
                w.truncate(MAX_INFLUENCES);
            }
            canonical(w)
        })
        .collect()
}

fn canonical(mut w: Vec<(String, f64)>) -> InfluenceSet {
    w.sort_by(|a, b| a.0.cmp(&b.0));
    w.into_iter().unzip()
}

/// The reference's clusters turned back into per-vertex sets.
fn reference_sets(clusters: &[crate::scene::RefCluster]) -> Vec<InfluenceSet> {
    let mut per_vertex: BTreeMap<u32, Vec<(String, f64)>> = BTreeMap::new();
    for c in clusters {
        for (&v, &w) in c.indices.iter().zip(&c.weights) {
            per_vertex.entry(v).or_default().push((c.bone.to_lowercase(), w));
        }
    }
    per_vertex.into_values().map(canonical).collect()
}

fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

/// Compares the sets both ways; the first difference as a message.
pub(super) fn compare_sets(
    bones: &[Option<String>],
    stored: &[VertexInfluences],
    clusters: &[crate::scene::RefCluster],
    tally: &mut SetTally,
) -> Option<String> {
    let max = max_sets(bones, stored, tally);
    let reference = reference_sets(clusters);
    tally.reference_vertices = reference.len();
    tally.max_vertices = max.len();
    let mut by_bones: BTreeMap<&[String], Vec<(usize, &[f64])>> = BTreeMap::new();
    for (i, (b, w)) in max.iter().enumerate() {
        by_bones.entry(b.as_slice()).or_default().push((i, w.as_slice()));
    }
    let mut used = vec![false; max.len()];
    for (v, (b, w)) in reference.iter().enumerate() {
        let candidates = by_bones.get(b.as_slice()).map(Vec::as_slice).unwrap_or_default();
        let best = candidates.iter().map(|&(i, m)| (i, distance(m, w))).min_by(|a, b| a.1.total_cmp(&b.1));
        match best {
            Some((i, d)) if d <= SET_WEIGHT_TOLERANCE => {
                tally.max_error = tally.max_error.max(d);
                for &(j, m) in candidates {
                    if distance(m, w) <= SET_WEIGHT_TOLERANCE {
                        used[j] = true;
                    }
                }
                used[i] = true;
            }
            Some((i, d)) => {
                return Some(format!(
                    "reference vertex {v}: bones {b:?} weights {w:?}; nearest Max vertex {i} {:?} is {d:.3e} off",
                    max[i].1
                ))
            }
            None => return Some(format!("reference vertex {v}: no Max vertex has the bone set {b:?} (weights {w:?})")),
        }
    }
    tally.max_sets_unused = used.iter().filter(|u| !**u).count();
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::RefCluster;

    fn cluster(bone: &str, indices: &[u32], weights: &[f64]) -> RefCluster {
        RefCluster { bone: bone.into(), indices: indices.to_vec(), weights: weights.to_vec(), offset: 0 }
    }

    #[test]
    fn split_vertices_match_by_their_sets_and_a_changed_weight_is_caught() {
        let bones = vec![Some("A".to_string()), Some("B".to_string())];
        let stored = vec![
            VertexInfluences { flags: 0, influences: vec![(0, 0.25), (1, 0.75)] },
            VertexInfluences { flags: 0, influences: vec![(0, 1.0)] },
        ];
        // Three reference vertices: the first Max vertex split in two.
        let clusters = vec![cluster("A", &[0, 1, 2], &[0.25, 0.25, 1.0]), cluster("b", &[0, 1], &[0.75, 0.75])];
        let mut tally = SetTally::default();
        assert_eq!(compare_sets(&bones, &stored, &clusters, &mut tally), None);
        assert_eq!((tally.reference_vertices, tally.max_vertices, tally.max_sets_unused), (3, 2, 0));
        let moved = vec![cluster("A", &[0, 1, 2], &[0.25, 0.2501, 1.0]), cluster("B", &[0, 1], &[0.75, 0.7499])];
        let why = compare_sets(&bones, &stored, &moved, &mut SetTally::default()).unwrap();
        assert!(why.contains("reference vertex 1"), "{why}");
    }

    #[test]
    fn more_than_four_bones_are_cut_to_the_first_four_stored_without_renormalising() {
        let bones: Vec<Option<String>> = ["a", "b", "c", "d", "e"].iter().map(|b| Some(b.to_string())).collect();
        let stored =
            vec![VertexInfluences { flags: 0, influences: vec![(4, 0.1), (0, 0.4), (1, 0.3), (2, 0.1), (3, 0.1)] }];
        let clusters = vec![
            cluster("e", &[0], &[0.1]),
            cluster("a", &[0], &[0.4]),
            cluster("b", &[0], &[0.3]),
            cluster("c", &[0], &[0.1]),
        ];
        let mut tally = SetTally::default();
        assert_eq!(compare_sets(&bones, &stored, &clusters, &mut tally), None);
        assert_eq!(tally.cut_to_four, 1);
    }
}
