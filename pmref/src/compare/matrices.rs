//! Local matrices on both sides: Max's local matrix of a reference node at a time, the
//! error between two local matrices, and how a first difference is described.

use super::axes::Conversion;
use super::matching::{Matching, MaxTree};
use crate::scene::RefScene;
use glam::DMat4;
use pmcore::eval::biped::{to_max_axes, FigurePose};
use pmcore::eval::ik_solve::world_at as ik_world_at;
use pmcore::model::keys::world_matrix_at;
use serde_json::{json, Value};

/// A Max `f32` matrix widened to `f64`.
pub(super) fn to_dmat(m: glam::Mat4) -> DMat4 {
    DMat4::from_cols_array(&m.to_cols_array().map(|v| v as f64))
}

/// Translation and linear differences between two local matrices.
pub(super) fn matrix_error(expected: &DMat4, actual: &DMat4) -> (f64, f64) {
    let te = expected.w_axis.truncate();
    let ta = actual.w_axis.truncate();
    let t = (te - ta).length() / te.length().max(ta.length()).max(1.0);
    let mut l: f64 = 0.0;
    let mut size: f64 = f64::MIN_POSITIVE;
    for c in 0..3 {
        let (a, b) = (expected.col(c).truncate(), actual.col(c).truncate());
        size = size.max(a.length()).max(b.length());
        l = l.max((a - b).abs().max_element());
    }
    (t, l / size)
}

/// A local matrix as translation, rotation and scale, for a first difference.
pub(super) fn describe(m: &DMat4) -> Value {
    let (s, r, t) = m.to_scale_rotation_translation();
    let (x, y, z) = r.to_euler(glam::EulerRot::ZYX);
    json!({
        "translation": [t.x, t.y, t.z],
        "rotation_xyz_deg": [z.to_degrees(), y.to_degrees(), x.to_degrees()],
        "scale": [s.x, s.y, s.z],
    })
}

/// A Max node's world matrix at `tick`: its controllers (`pmcore::model::keys`), through
/// the IK chains it depends on (`pmcore::eval::ik_solve`), or the figure placement of a
/// static Biped's bone ([`biped_world`]).
pub(super) fn node_world(tree: &MaxTree<'_, '_>, storage: usize, tick: f64) -> Result<DMat4, String> {
    node_world_within(tree, storage, tick, 0)
}

/// [`node_world`], `depth` links deep (a Link Constraint's target is evaluated the same way;
/// a chain of links longer than the scene is a loop).
fn node_world_within(tree: &MaxTree<'_, '_>, storage: usize, tick: f64, depth: usize) -> Result<DMat4, String> {
    let node = &tree.index.objects[storage];
    match world_matrix_at(tree.index, node, tick) {
        Ok(world) => Ok(to_dmat(world)),
        Err(e) => linked_world(tree, storage, tick, depth)
            .or_else(|| ik_world_at(tree.index, node, tick).map(|solved| solved.map_err(|why| why.to_string())))
            .or_else(|| keyed_biped_world(tree, storage, tick))
            .or_else(|| biped_world(tree, storage))
            .or_else(|| parented_world(tree, storage, tick, depth))
            .unwrap_or_else(|| Err(e.to_string())),
    }
}

/// The world matrix of a node with its own Position/Rotation/Scale under a parent pmcore's
/// controllers cannot chain through (a Biped bone, a Link Constraint): the parent's world
/// ([`node_world`]) times the node's local at `tick`; `None` for a node without a PRS or
/// parent. Red@Spawn's `Biped_WingL1` … hang under Biped bones.
fn parented_world(tree: &MaxTree<'_, '_>, storage: usize, tick: f64, depth: usize) -> Option<Result<DMat4, String>> {
    let index = tree.index;
    let node = &index.objects[storage];
    let parent = node.node_parent().filter(|&p| index.get(p).is_some_and(|o| o.reference(0).is_some()))?;
    let Ok(pmcore::model::controllers::TransformRefs::Prs { position, rotation, scale }) =
        pmcore::model::controllers::transform_refs(index, node)
    else {
        return None;
    };
    if depth > index.objects.len() {
        return Some(Err(format!("node #{storage}: parents loop")));
    }
    let local = match pmcore::model::keys::prs_local_at(index, [position, rotation, scale], tick) {
        Ok(local) => to_dmat(local.matrix()),
        Err(e) => return Some(Err(e.to_string())),
    };
    Some(node_world_within(tree, parent, tick, depth + 1).map(|p| p * local))
}

/// The world matrix of a node under a Link Constraint (`pmcore::model::link_constraint`):
/// its target's world (or its parent's, without a target) times the constraint's offset
/// PRS at `tick`; `None` for any other node.
fn linked_world(tree: &MaxTree<'_, '_>, storage: usize, tick: f64, depth: usize) -> Option<Result<DMat4, String>> {
    let index = tree.index;
    let node = &index.objects[storage];
    let link = match pmcore::model::link_constraint::link_constraint(index, node) {
        Ok(Some(link)) => link,
        Ok(None) => return None,
        Err(e) => return Some(Err(e.to_string())),
    };
    if depth > index.objects.len() {
        return Some(Err(format!("node #{storage}: Link Constraint targets loop")));
    }
    let offset = match pmcore::model::keys::prs_local_at(index, link.offset, tick) {
        Ok(local) => to_dmat(local.matrix()),
        Err(e) => return Some(Err(format!("Link Constraint offset: {e}"))),
    };
    let parent =
        link.target.or_else(|| node.node_parent().filter(|&p| index.get(p).is_some_and(|o| o.reference(0).is_some())));
    let base = match parent {
        Some(p) => node_world_within(tree, p, tick, depth + 1),
        None => Ok(DMat4::IDENTITY),
    };
    Some(base.map(|b| b * offset))
}

/// The world matrix of a node driven by a keyed Biped at `tick` (`pmcore::eval::biped_keys`)
/// in Max axes; `None` for any other node.
fn keyed_biped_world(tree: &MaxTree<'_, '_>, storage: usize, tick: f64) -> Option<Result<DMat4, String>> {
    let rig = tree.keyed_biped.as_ref()?;
    let (bone, link) = rig.bone_of(storage)?;
    let controller = tree.index.objects[storage].reference(0).map_or(String::new(), |c| format!("object #{c}, "));
    let in_between = pmcore::eval::biped_keys::InBetween::Refuse;
    let placed = match pmcore::eval::biped_keys::keyed_bone(&rig.system, tick, (bone, link), in_between) {
        Ok(pose) => pose.world().map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    Some(placed.map(to_max_axes).map_err(|why| format!("{controller}keyed Biped bone ({bone}, {link}): {why}")))
}

/// The world matrix of a node driven by a Biped without keys — whose figure pose is then its
/// pose at every time — from its figure-mode placement (`pmcore::eval::biped`) in Max axes;
/// `None` for any other node. pmcore's controllers cannot evaluate Biped controllers.
pub(super) fn biped_world(tree: &MaxTree<'_, '_>, storage: usize) -> Option<Result<DMat4, String>> {
    let rig = tree.static_biped.as_ref()?;
    let (bone, link) = rig.bone_of(storage)?;
    let placed = FigurePose::new(&rig.system).bone(bone, link).world();
    // The controller is named (`object #N`) so that triage can tell which class stops it.
    let controller = tree.index.objects[storage].reference(0).map_or(String::new(), |c| format!("object #{c}, "));
    Some(placed.map(to_max_axes).map_err(|why| format!("{controller}Biped bone ({bone}, {link}): {why}")))
}

/// The `f32` spread of a static Biped bone's placed rotation (`FigurePose::rotation_spread`:
/// non-zero only for xtras near gimbal lock); 0 for any other node.
pub(super) fn biped_rotation_spread(tree: &MaxTree<'_, '_>, storage: usize) -> f64 {
    let Some(rig) = tree.static_biped.as_ref() else { return 0.0 };
    rig.bone_of(storage).map_or(0.0, |(bone, link)| FigurePose::new(&rig.system).rotation_spread(bone, link))
}

/// The world matrix of a static Biped's COM (its figure-mode placement), if the file holds one.
pub(super) fn biped_com_world(tree: &MaxTree<'_, '_>) -> Option<DMat4> {
    let (com, _) = tree.static_biped.as_ref()?.com_node.as_ref()?;
    biped_world(tree, *com)?.ok()
}

/// Max's side of a reference node's local matrix at Max time `tick`: relative to the Max
/// node of its reference parent, or `conversion · world` for a root.
pub(super) fn max_local_at(
    tree: &MaxTree<'_, '_>,
    m: &Matching,
    reference: &RefScene,
    r: usize,
    tick: f64,
    conversion: &Conversion,
) -> Result<DMat4, String> {
    let mx = m.max_of[r].ok_or("no Max node of that name")?;
    let world = node_world(tree, tree.nodes[mx].storage, tick)?;
    match reference.nodes[r].parent.map(|p| m.max_of[p]) {
        Some(Some(pm)) => {
            let parent = node_world(tree, tree.nodes[pm].storage, tick).map_err(|e| format!("(parent) {e}"))?;
            Ok(parent.inverse() * world)
        }
        Some(None) => Err("the reference parent has no Max node".into()),
        None if conversion.similarity => Ok(conversion.matrix * world * conversion.matrix.inverse()),
        None if !conversion.roots_comparable => Err(conversion.note.clone()),
        None => Ok(conversion.matrix * world),
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    #[test]
    fn linear_error_is_relative_to_the_axis_length_even_below_one() {
        // A root scaled 0.0254 (inches to metres) turned by 0.01 rad: the columns move by
        // 0.0254 · 0.01, which is 0.01 of their length — not 2.5e-4 of a unit.
        let a = DMat4::from_scale(DVec3::splat(0.0254));
        let b = DMat4::from_rotation_z(0.01) * a;
        let (_, l) = matrix_error(&a, &b);
        assert!((l - 0.01).abs() < 1e-4, "{l}");
    }

    #[test]
    fn matrix_error_is_relative_in_translation() {
        let a = DMat4::from_translation(DVec3::new(1000.0, 0.0, 0.0));
        let b = DMat4::from_translation(DVec3::new(1000.001, 0.0, 0.0));
        let (t, l) = matrix_error(&a, &b);
        assert!((t - 1e-6).abs() < 1e-9 && l == 0.0, "{t} {l}");
    }
}
