//! `skin`: every reference skin deformer against the Skin modifier of its Max node — the
//! bone list, then the stored weights.

use super::matching::{MaxTree, Pair};
use super::modifiers::SKIN_CLASS_ID;
use super::outcome::{fail, locator, Comparison};
use crate::scene::RefSkin;
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// The name this comparison reports under.
pub(super) const NAME: &str = "skin";

/// The weight below which Max's FBX exporter leaves a bone's weight out of its cluster
/// (without renormalising the rest). Measured on `Blue.FBX` against `wild/tae8838__blue.max`:
/// the 9 stored weights left out are all below 9.47e-5 (down to 1.6e-9), the smallest one
/// written is 1.046e-4 — so a Max weight ≥ 1e-4 must be in its cluster, a smaller one may be
/// absent (and, if present, must still agree).
pub const FBX_WEIGHT_FLOOR: f64 = 1e-4;

/// Weight tolerance (absolute; weights are at most 1): Max normalises `f32` influences and the
/// exporter widens them, so a few `f32` roundings (6e-8 each). Measured largest difference on
/// `Blue.FBX`: 1.1e-7 relative.
pub const WEIGHT_TOLERANCE: f64 = 1e-6;

/// A node's Skin modifier: its bone table (`pmcore::model::skin::bone_table`: per bone index
/// the bone node's name, `None` for a bone removed from the Skin) and its per-node data on the
/// derived object.
type SkinOf<'a> =
    (Result<Vec<Option<String>>, pmcore::model::skin::SkinBonesError>, Option<&'a pmcore::chunk::Chunk<'a>>);

fn skin_of<'a, 'b>(tree: &'b MaxTree<'b, 'a>, storage: usize) -> Option<SkinOf<'a>> {
    let index = tree.index;
    let (_, modifiers) = pmcore::eval::stack::stack_with_data(index, &index.objects[storage])?;
    let skin = modifiers.into_iter().find(|m| m.object.class.as_ref().is_some_and(|c| c.class_id == SKIN_CLASS_ID))?;
    let is_node = |t: usize| index.get(t).is_some_and(|o| o.is_node());
    let bones = pmcore::model::skin::bone_table(skin.object.chunk, &skin.object.references(), is_node).map(|table| {
        table.into_iter().map(|t| t.and_then(|t| index.get(t)).map(|o| o.node_name().unwrap_or_default())).collect()
    });
    Some((bones, skin.mod_app))
}

/// The Skin's bones that hold no stored weight of at least [`FBX_WEIGHT_FLOOR`] on any vertex:
/// Max's FBX exporter writes a cluster per bone that deforms, so such a bone may have no
/// cluster. Shown by every Rocketbox avatar of `biped/rocketbox` (Max 2015): the Skin lists
/// `Bip01` (the COM, no weight on any vertex) and the FBX has no `Bip01` cluster.
fn weightless_bones<'b>(
    bones: &'b [Option<String>],
    stored: &[pmcore::model::skin::VertexInfluences],
) -> Vec<&'b String> {
    let mut deforms = vec![false; bones.len()];
    for vertex in stored {
        for (b, w) in vertex.weights() {
            if let Some(d) = deforms.get_mut(b as usize) {
                *d |= w >= FBX_WEIGHT_FLOOR;
            }
        }
    }
    bones.iter().zip(deforms).filter(|(_, d)| !d).filter_map(|(b, _)| b.as_ref()).collect()
}

/// Counters of one weight comparison.
#[derive(Default)]
struct WeightTally {
    compared: usize,
    below_floor_absent: usize,
    max_error: f64,
}

/// Compares a Skin's stored weights with the reference clusters of `s`; the first difference
/// as `(message, cluster offset)`.
fn compare_weights(
    bones: &[Option<String>],
    stored: &[pmcore::model::skin::VertexInfluences],
    s: &RefSkin,
    tally: &mut WeightTally,
) -> Option<(String, Option<u64>)> {
    let mut reference: BTreeMap<(String, u32), (f64, u64)> = BTreeMap::new();
    for c in &s.clusters {
        for (&v, &w) in c.indices.iter().zip(&c.weights) {
            reference.insert((c.bone.to_lowercase(), v), (w, c.offset));
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    for (v, vertex) in stored.iter().enumerate() {
        for (b, w) in vertex.weights() {
            let Some(slot) = bones.get(b as usize) else {
                return Some((
                    format!("vertex {v}: stored bone index {b} outside the Skin's {} bone(s)", bones.len()),
                    None,
                ));
            };
            let Some(bone) = slot else {
                if w < FBX_WEIGHT_FLOOR {
                    tally.below_floor_absent += 1;
                    continue;
                }
                return Some((format!("vertex {v}: weight {w:.7} on bone {b}, a bone removed from the Skin"), None));
            };
            let key = (bone.to_lowercase(), v as u32);
            seen.insert(key.clone());
            match reference.get(&key) {
                Some(&(r, offset)) => {
                    let error = (r - w).abs();
                    tally.max_error = tally.max_error.max(error);
                    tally.compared += 1;
                    if error > WEIGHT_TOLERANCE {
                        return Some((
                            format!("vertex {v}, bone {bone:?}: weight {w:.7} in Max, {r:.7} in the reference"),
                            Some(offset),
                        ));
                    }
                }
                None if w < FBX_WEIGHT_FLOOR => tally.below_floor_absent += 1,
                None => {
                    let offset = s.clusters.iter().find(|c| c.bone.eq_ignore_ascii_case(bone)).map(|c| c.offset);
                    return Some((
                        format!("vertex {v}, bone {bone:?}: weight {w:.7} in Max, none in the reference"),
                        offset,
                    ));
                }
            }
        }
    }
    reference.iter().find(|(k, _)| !seen.contains(*k)).map(|((bone, v), &(r, offset))| {
        (format!("vertex {v}, bone {bone:?}: weight {r:.7} in the reference, none in Max"), Some(offset))
    })
}

pub(super) fn compare(pair: &Pair<'_, '_, '_>) -> Comparison {
    let reference = pair.reference;
    let clusters: usize = reference.skins.iter().map(|s| s.clusters.len()).sum();
    let weights: usize = reference.skins.iter().flat_map(|s| &s.clusters).map(|c| c.weights.len()).sum();
    let mut detail = json!({ "skins": reference.skins.len(), "clusters": clusters, "weights": weights });
    if reference.skins.is_empty() {
        return Comparison {
            name: NAME,
            verdict: Verdict::Skip { reason: "the reference has no skin deformer".into() },
            detail,
        };
    }
    let mut first: Option<Verdict> = None;
    let mut tally = SkinTally::default();
    for s in &reference.skins {
        if let Some(failure) = check_skin(pair, s, &mut tally) {
            first.get_or_insert(failure);
        }
    }
    let SkinTally {
        skins_compared,
        bones_compared,
        weights: tally,
        weights_not_stored,
        weightless_bones_without_cluster,
        sets,
    } = tally;
    if let Value::Object(map) = &mut detail {
        map.insert("skins_compared".into(), json!(skins_compared));
        map.insert("bones_compared".into(), json!(bones_compared));
        map.insert("weights_compared".into(), json!(tally.compared));
        map.insert("max_weight_error".into(), json!(tally.max_error));
        map.insert("weights_below_export_floor_absent".into(), json!(tally.below_floor_absent));
        map.insert("skins_without_stored_weights".into(), json!(weights_not_stored));
        map.insert("weightless_bones_without_cluster".into(), json!(weightless_bones_without_cluster));
        if !sets.is_empty() {
            map.insert("influence_sets".into(), json!(sets));
            map.insert("set_weight_tolerance".into(), json!(super::skin_sets::SET_WEIGHT_TOLERANCE));
        }
        map.insert(
            "tolerance".into(),
            json!({ "weight_absolute": WEIGHT_TOLERANCE, "export_floor": FBX_WEIGHT_FLOOR }),
        );
    }
    let verdict = first.unwrap_or_else(|| {
        let mut note = format!("bone lists equal; {} weight(s) equal", tally.compared);
        if !weights_not_stored.is_empty() {
            note.push_str(&format!(
                "; {weights} reference weight(s) not compared: the Max Skin of {weights_not_stored:?} stores no weight table (Max computes its weights from the bone envelopes, not modelled)"
            ));
        }
        Verdict::Pass { note: Some(note) }
    });
    Comparison { name: NAME, verdict, detail }
}

/// Counters of the skins compared.
#[derive(Default)]
struct SkinTally {
    skins_compared: usize,
    bones_compared: usize,
    weights: WeightTally,
    /// Skinned nodes whose Max Skin stores no weight table.
    weights_not_stored: Vec<String>,
    /// Skin bones with no cluster in the reference because no vertex weighs on them.
    weightless_bones_without_cluster: Vec<String>,
    /// glTF: what each influence-set comparison counted.
    sets: Vec<String>,
}

/// One reference skin against the Skin modifier of its Max node: the bone list, then the
/// stored weights. Its failure, if any.
fn check_skin(pair: &Pair<'_, '_, '_>, s: &RefSkin, tally: &mut SkinTally) -> Option<Verdict> {
    let (tree, name) = (pair.tree, pair.name);
    let node = &pair.reference.nodes[s.node];
    let Some(mx) = pair.matching.max_of[s.node] else {
        let message = format!("skinned node {:?} has no Max node", node.name);
        return Some(fail("t3-pairs-skin", message, locator(name, node), node.offset));
    };
    let Some((bones, mod_app)) = skin_of(tree, tree.nodes[mx].storage) else {
        let message =
            format!("skinned node {:?}: no Skin modifier (Class ID 0x0095c723, 0x00015666) on the Max node", node.name);
        return Some(fail("t3-pairs-skin", message, locator(name, node), node.offset));
    };
    let bones = match bones {
        Ok(bones) => bones,
        Err(e) => {
            let message = format!("skin of {:?}: the Max Skin's bone table is unreadable: {e}", node.name);
            return Some(fail("t3-pairs-skin-unreadable", message, locator(name, node), node.offset));
        }
    };
    let live: Vec<&String> = bones.iter().flatten().collect();
    tally.skins_compared += 1;
    let stored = match mod_app.map(pmcore::model::skin::vertex_influences) {
        Some(Ok(stored)) => stored,
        None => None,
        Some(Err(e)) => {
            let message = format!("skin of {:?}: the Max Skin's weights are unreadable: {e}", node.name);
            return Some(fail("t3-pairs-skin-unreadable", message, locator(name, node), node.offset));
        }
    };
    let fbx: Vec<String> = s.clusters.iter().map(|c| c.bone.clone()).collect();
    tally.bones_compared += fbx.len();
    let weightless = stored.as_deref().map(|stored| weightless_bones(&bones, stored)).unwrap_or_default();
    let missing: Vec<&String> = live
        .iter()
        .copied()
        .filter(|b| !fbx.iter().any(|f| f.eq_ignore_ascii_case(b)))
        .filter(|b| !weightless.contains(b))
        .collect();
    let extra: Vec<&String> = fbx.iter().filter(|f| !live.iter().any(|b| b.eq_ignore_ascii_case(f))).collect();
    if !missing.is_empty() || !extra.is_empty() {
        let at = s.clusters.iter().find(|c| extra.contains(&&c.bone)).map(|c| c.offset).unwrap_or(node.offset);
        let message = format!(
            "skin of {:?}: bones of the Max Skin modifier {live:?}, clusters of the reference {fbx:?} (missing {missing:?}, extra {extra:?})",
            node.name
        );
        return Some(fail("t3-pairs-skin", message, locator(name, node), at));
    }
    tally
        .weightless_bones_without_cluster
        .extend(weightless.iter().filter(|b| !fbx.iter().any(|f| f.eq_ignore_ascii_case(b))).map(|b| b.to_string()));
    let Some(stored) = stored else {
        tally.weights_not_stored.push(node.name.clone());
        return None;
    };
    if matches!(pair.reference.format, crate::scene::Format::Gltf) {
        // glTF splits vertices: the influence sets are compared, not vertex by vertex.
        let mut sets = super::skin_sets::SetTally::default();
        let first = super::skin_sets::compare_sets(&bones, &stored, &s.clusters, &mut sets);
        tally.weights.compared += sets.reference_vertices;
        tally.weights.max_error = tally.weights.max_error.max(sets.max_error);
        tally.sets.push(format!(
            "{}: {} glTF vertex set(s) against {} Max vertices; {} Max set(s) cut to 4 bones; {} Max set(s) no glTF vertex uses",
            node.name, sets.reference_vertices, sets.max_vertices, sets.cut_to_four, sets.max_sets_unused
        ));
        let message = format!("skin of {:?}: {}", node.name, first?);
        return Some(fail(
            "t3-pairs-skin",
            message,
            locator(name, node),
            s.clusters.first().map_or(node.offset, |c| c.offset),
        ));
    }
    let (what, offset) = compare_weights(&bones, &stored, s, &mut tally.weights)?;
    let message = format!("skin of {:?}: {what}", node.name);
    Some(fail("t3-pairs-skin", message, locator(name, node), offset.unwrap_or(node.offset)))
}
