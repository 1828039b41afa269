//! `hierarchy`: every reference node has a Max node of its name, whose nearest exported
//! ancestor is the reference node's parent; the Max nodes the exporter left out are tallied
//! by class family.

use super::matching::{exported_ancestor, Pair};
use super::outcome::{fail, locator, Comparison};
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The name this comparison reports under.
pub(super) const NAME: &str = "hierarchy";

pub(super) fn compare(pair: &Pair<'_, '_, '_>) -> Comparison {
    let Pair { tree, matching: m, reference, name, .. } = *pair;
    let mut detail = json!({
        "reference_nodes": reference.nodes.len(),
        "max_nodes": tree.nodes.len(),
        "exporter_added": reference.exporter_added,
    });
    if !reference.format.has_hierarchy() {
        let verdict = Verdict::Skip { reason: "format carries no hierarchy (OBJ)".into() };
        return Comparison { name: NAME, verdict, detail };
    }
    let mut first: Option<Verdict> = None;
    let (mut matched, mut parents_ok, mut unmatched, mut parent_off) = (0, 0, 0, 0);
    for (r, node) in reference.nodes.iter().enumerate() {
        let Some(mx) = m.max_of[r] else {
            unmatched += 1;
            first.get_or_insert_with(|| {
                let message = format!("reference node {:?} ({}) has no Max node of that name", node.name, node.kind);
                fail("t3-pairs-hierarchy", message, locator(name, node), node.offset)
            });
            continue;
        };
        matched += 1;
        let expected = exported_ancestor(tree, m, mx).map(|p| tree.nodes[p].name.clone());
        let actual = node.parent.map(|p| reference.nodes[p].name.clone());
        let same = match (&expected, &actual) {
            (Some(e), Some(a)) => e.to_lowercase() == a.to_lowercase(),
            (None, None) => true,
            _ => false,
        };
        if same {
            parents_ok += 1;
        } else {
            parent_off += 1;
            first.get_or_insert_with(|| {
                let message = format!(
                    "node {:?}: parent in the reference {:?}, in Max (nearest exported ancestor) {:?}",
                    node.name,
                    actual.as_deref().unwrap_or("<scene root>"),
                    expected.as_deref().unwrap_or("<scene root>")
                );
                fail("t3-pairs-hierarchy", message, locator(name, node), node.offset)
            });
        }
    }
    let mut dropped: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (i, n) in tree.nodes.iter().enumerate() {
        if m.ref_of[i].is_none() {
            dropped.entry(tree.family(n)).or_default().push(n.name.clone());
        }
    }
    let dropped_counts: BTreeMap<&String, usize> = dropped.iter().map(|(k, v)| (k, v.len())).collect();
    let dropped_names: BTreeMap<&String, Vec<&String>> =
        dropped.iter().map(|(k, v)| (k, v.iter().take(10).collect())).collect();
    if let Value::Object(map) = &mut detail {
        map.insert("matched".into(), json!(matched));
        map.insert("parents_agree".into(), json!(parents_ok));
        map.insert("unmatched_reference_nodes".into(), json!(unmatched));
        map.insert("parent_differences".into(), json!(parent_off));
        map.insert("max_nodes_not_exported".into(), json!(dropped_counts));
        map.insert("max_nodes_not_exported_names".into(), json!(dropped_names));
    }
    Comparison { name: NAME, verdict: first.unwrap_or_else(Verdict::pass), detail }
}
