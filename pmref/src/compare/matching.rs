//! Which Max node each reference node stands for: the Max side as a tree of named nodes
//! ([`MaxTree`]) and the name matching between it and the reference ([`Matching`]), which
//! every comparison reads.

use crate::scene::RefScene;
use pmcore::model::geometry::Mesh;
use pmcore::model::scene_index::SceneIndex;
use std::collections::BTreeMap;

/// Base object under a node's object reference and the number of modifiers above it.
pub(super) fn base_object<'i, 'a>(
    index: &'i SceneIndex<'a>,
    node: &pmcore::model::scene_index::SceneObject<'a>,
) -> Option<(&'i pmcore::model::scene_index::SceneObject<'a>, usize)> {
    pmcore::eval::stack::stack(index, node).map(|(base, modifiers)| (base, modifiers.len()))
}

/// A Max node as the comparisons see it.
#[derive(Clone, Debug)]
pub(super) struct MaxNode {
    pub(super) storage: usize,
    pub(super) name: String,
    /// Index into the node list of the parent node; `None` under the scene root.
    pub(super) parent: Option<usize>,
}

/// The Max side: named nodes and their parents (the scene root node — the one without a
/// transform controller — is not a node here).
pub(super) struct MaxTree<'i, 'a> {
    pub(super) index: &'i SceneIndex<'a>,
    pub(super) nodes: Vec<MaxNode>,
    /// The scene's Biped when it has no keys (its figure pose is then its pose at every
    /// time): its nodes' world matrices come from `pmcore::eval::biped`, which pmcore's
    /// controllers cannot give.
    pub(super) static_biped: Option<pmcore::model::biped::BipedRig>,
    /// The scene's Biped when it has keys: its nodes' world matrices at a time come from
    /// `pmcore::eval::biped_keys`.
    pub(super) keyed_biped: Option<pmcore::model::biped::BipedRig>,
}

impl<'i, 'a> MaxTree<'i, 'a> {
    pub(super) fn of(index: &'i SceneIndex<'a>) -> Self {
        let is_scene_node = |o: &pmcore::model::scene_index::SceneObject<'_>| o.is_node() && o.reference(0).is_some();
        let storage: Vec<usize> = index.objects.iter().filter(|o| is_scene_node(o)).map(|o| o.storage_index).collect();
        let position: BTreeMap<usize, usize> = storage.iter().enumerate().map(|(i, &s)| (s, i)).collect();
        let nodes = storage
            .iter()
            .map(|&s| {
                let o = &index.objects[s];
                MaxNode {
                    storage: s,
                    name: o.node_name().unwrap_or_default(),
                    parent: o.node_parent().and_then(|p| position.get(&p).copied()),
                }
            })
            .collect();
        let (static_biped, keyed_biped) = match pmcore::model::biped::BipedRig::read(index).ok() {
            Some(rig) if rig.system.keys == 0 => (Some(rig), None),
            keyed => (None, keyed),
        };
        MaxTree { index, nodes, static_biped, keyed_biped }
    }

    /// The class family of a node's object (through its modifier stack), for the
    /// node-dropping tally.
    pub(super) fn family(&self, node: &MaxNode) -> String {
        let o = &self.index.objects[node.storage];
        match base_object(self.index, o) {
            None => "no object".into(),
            Some((base, _)) => match base.class.as_ref().map(|c| c.superclass) {
                Some(0x10) => match Mesh::of_object(base.chunk) {
                    Ok(Some(_)) => "geometry (stored mesh)".into(),
                    _ => "geometry (parametric)".into(),
                },
                Some(0x20) => "camera".into(),
                Some(0x30) => "light".into(),
                Some(0x40) => "helper".into(),
                Some(0x50) => "shape".into(),
                Some(s) => format!("superclass 0x{s:x}"),
                None => "unresolved class".into(),
            },
        }
    }
}

/// One pair as every comparison step reads it: the Max side, the node matching, the
/// reference and the reference's file name (for locators).
#[derive(Clone, Copy)]
pub(super) struct Pair<'p, 'i, 'a> {
    pub(super) tree: &'p MaxTree<'i, 'a>,
    pub(super) matching: &'p Matching,
    pub(super) reference: &'p RefScene,
    pub(super) name: &'p str,
    /// The Max scene's time configuration (Config 0x20B0), when readable: the animation
    /// range start, where a writer that exports the whole timeline puts its time 0, and the
    /// frame rate of writers that count in frames.
    pub(super) time: Option<pmcore::model::time_config::TimeConfig>,
}

/// How reference nodes map to Max nodes.
pub(super) struct Matching {
    /// For each reference node, the Max node index.
    pub(super) max_of: Vec<Option<usize>>,
    /// For each Max node, the reference node index.
    pub(super) ref_of: Vec<Option<usize>>,
}

/// Pairs every reference node with at most one Max node, by name.
pub(super) fn match_nodes(reference: &RefScene, tree: &MaxTree<'_, '_>) -> Matching {
    let mut max_of = vec![None; reference.nodes.len()];
    let mut ref_of = vec![None; tree.nodes.len()];
    let mut by_name: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, n) in tree.nodes.iter().enumerate() {
        by_name.entry(n.name.clone()).or_default().push(i);
    }
    // Exact names first, then case-insensitive (Max node names are case-insensitive), then
    // without the FBX SDK's name-clash suffix `_ncl<N>_<N>` (FBX 6.1 renames a node whose
    // name another object of the file already uses).
    for pass in 0..3 {
        for (r, node) in reference.nodes.iter().enumerate() {
            if max_of[r].is_some() {
                continue;
            }
            let wanted = match pass {
                0 => node.name.clone(),
                1 => node.name.to_lowercase(),
                _ => match strip_name_clash(&node.name) {
                    Some(stem) => stem.to_lowercase(),
                    None => continue,
                },
            };
            let candidates: Vec<usize> = if pass == 0 {
                by_name.get(&wanted).cloned().unwrap_or_default()
            } else {
                tree.nodes.iter().enumerate().filter(|(_, n)| n.name.to_lowercase() == wanted).map(|(i, _)| i).collect()
            };
            let free: Vec<usize> = candidates.into_iter().filter(|&m| ref_of[m].is_none()).collect();
            // Among namesakes, prefer the one whose parent has the reference parent's name.
            let parent_name = node.parent.map(|p| reference.nodes[p].name.to_lowercase());
            let pick = free
                .iter()
                .copied()
                .find(|&m| tree.nodes[m].parent.map(|p| tree.nodes[p].name.to_lowercase()) == parent_name)
                .or(free.first().copied());
            if let Some(m) = pick {
                max_of[r] = Some(m);
                ref_of[m] = Some(r);
            }
        }
    }
    Matching { max_of, ref_of }
}

/// `name` without a trailing FBX name-clash suffix `_ncl<digits>_<digits>`.
pub fn strip_name_clash(name: &str) -> Option<&str> {
    let (stem, tail) = name.rsplit_once("_ncl")?;
    let (a, b) = tail.split_once('_')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    (digits(a) && digits(b) && !stem.is_empty()).then_some(stem)
}

/// Nearest ancestor of Max node `m` that was exported (has a reference node).
pub(super) fn exported_ancestor(tree: &MaxTree<'_, '_>, matching: &Matching, m: usize) -> Option<usize> {
    let mut current = tree.nodes[m].parent;
    for _ in 0..tree.nodes.len() {
        let p = current?;
        if matching.ref_of[p].is_some() {
            return Some(p);
        }
        current = tree.nodes[p].parent;
    }
    None
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_clash_suffix_strips_only_its_own_form() {
        assert_eq!(strip_name_clash("B-L-FootFront_ncl1_1"), Some("B-L-FootFront"));
        assert_eq!(strip_name_clash("Box_ncl12_3"), Some("Box"));
        assert_eq!(strip_name_clash("Box_nclx_1"), None);
        assert_eq!(strip_name_clash("_ncl1_1"), None);
        assert_eq!(strip_name_clash("Box001"), None);
    }
}
