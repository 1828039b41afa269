//! The HI solver (`IKHISolver`) on a two-bone chain, and the world matrix of any node
//! whose transform or ancestry goes through an IK controller — what 3ds Max's exporters
//! bake (measured on `wild/tae8838__green@idle.max` against `Green.FBX` and
//! `Green@Idle.FBX`, docs/exporters.md "IK").
//!
//! The model, each part measured on that file:
//! * joint positions are the bones' FK sub-controller positions (IK only turns joints);
//! * the *preferred pose* (each IKControl's preferred rotation, FK positions) gives the
//!   chain triangle start S0, middle M0, end E0, the end-effector axis `a0 = E0 − S0` and
//!   the triangle normal `n0 = (M0 − S0) × (E0 − S0)`;
//! * at a time, the axis is `a = goal − S`, the *zero plane* normal is `n0` projected
//!   perpendicular to `a` (not parallel-transported from `a0`: that is 1.4° off on
//!   `IK Chain001`/`004`), turned by the swivel angle about `a`;
//! * the two bones keep their lengths and bend in that plane on the preferred side
//!   (law of cosines, the reach clamped to the chain length); each bone turns by the
//!   rotation that takes its preferred (bone direction, normal) frame to the solved one;
//! * the end joint and anything below keep their FK local transforms.
//!
//! Not modelled, reported as [`IkError::Unsupported`] naming the IKChainControl: other
//! solvers than `IKHISolver`, chains of other than two bones, a swivel in the goal's parent
//! space (its sphere's frame at assignment time is not stored), and chains whose preferred
//! triangle normal is not the middle joint's local X axis (`IK Chain003` of that file: its
//! end joint stands 4.13 units off the bones' YZ plane, and Max bends its knee about an
//! axis 4° from the triangle normal — a rule these bytes do not show).

use super::ik::{fk_at, goal_at, IkBone, IkChain, IkError, IK_CHAIN_CONTROL, IK_CONTROL};
use crate::model::controllers::{class_name, has_class};
use crate::model::keys;
use crate::model::scene_index::{SceneIndex, SceneObject};
use glam::{DMat3, DMat4, DQuat, DVec3, Mat4};

/// The solver name the model covers.
const HI_SOLVER: &str = "IKHISolver";
/// Swivel-angle parent space `kSAInStartJoint` (the SDK's `SAParentSpace`: 0 goal, 1 start
/// joint): the zero-plane sphere hangs from the start joint's parent, so the preferred pose
/// is built under that parent as it stands at the time.
const SWIVEL_IN_START_JOINT: i32 = 1;
/// How far the preferred triangle normal may stand from the middle joint's X axis
/// (`f32` noise of the stored poses measured up to 7e-7 on the three planar chains).
const PLANAR_TOLERANCE: f64 = 1e-4;

fn dmat(m: Mat4) -> DMat4 {
    DMat4::from_cols_array(&m.to_cols_array().map(f64::from))
}

fn is_ik(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> bool {
    node.reference(0)
        .and_then(|c| index.get(c))
        .is_some_and(|c| has_class(c, IK_CONTROL) || has_class(c, IK_CHAIN_CONTROL))
}

/// Does `node`'s world matrix depend on an IK controller (its own or an ancestor's)?
pub fn depends_on_ik(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> bool {
    let mut current = Some(node);
    let mut steps = 0;
    while let Some(n) = current {
        if is_ik(index, n) {
            return true;
        }
        steps += 1;
        if steps > index.objects.len() {
            return false;
        }
        current = n.node_parent().and_then(|p| index.get(p));
    }
    false
}

/// World matrix of `node` at `tick` through IK controllers; `None` when nothing on its
/// path is IK-controlled (the ordinary controllers then apply).
pub fn world_at(index: &SceneIndex<'_>, node: &SceneObject<'_>, tick: f64) -> Option<Result<DMat4, IkError>> {
    depends_on_ik(index, node).then(|| world(index, node, tick, 0))
}

fn parent_world(index: &SceneIndex<'_>, node: &SceneObject<'_>, tick: f64, depth: usize) -> Result<DMat4, IkError> {
    match node.node_parent().and_then(|p| index.get(p)) {
        Some(p) if p.reference(0).is_some() => world(index, p, tick, depth + 1),
        _ => Ok(DMat4::IDENTITY), // the root node carries no transform controller
    }
}

fn world(index: &SceneIndex<'_>, node: &SceneObject<'_>, tick: f64, depth: usize) -> Result<DMat4, IkError> {
    if depth > index.objects.len() {
        return Err(IkError::Degenerate {
            object: node.storage_index,
            class: class_name(node),
            what: "parent cycle".into(),
        });
    }
    let ctrl = node.reference(0).and_then(|c| index.get(c));
    if ctrl.is_some_and(|c| has_class(c, IK_CHAIN_CONTROL)) {
        let chain = IkChain::of(index, node)?;
        return Ok(parent_world(index, node, tick, depth)? * dmat(goal_at(index, &chain, tick)?.matrix()));
    }
    if ctrl.is_some_and(|c| has_class(c, IK_CONTROL)) {
        return bone_world(index, node, tick, depth);
    }
    Ok(parent_world(index, node, tick, depth)? * dmat(keys::local_transform_at(index, node, tick)?.matrix()))
}

/// The chain whose start..end path holds `node`, if any.
fn chain_of(index: &SceneIndex<'_>, node: usize) -> Result<Option<IkChain>, IkError> {
    for n in index.objects.iter().filter(|o| o.is_node()) {
        let is_chain = n.reference(0).and_then(|c| index.get(c)).is_some_and(|c| has_class(c, IK_CHAIN_CONTROL));
        if !is_chain {
            continue;
        }
        let chain = IkChain::of(index, n)?;
        if chain.bones.iter().any(|b| b.node == node) {
            return Ok(Some(chain));
        }
    }
    Ok(None)
}

fn bone_world(index: &SceneIndex<'_>, node: &SceneObject<'_>, tick: f64, depth: usize) -> Result<DMat4, IkError> {
    let chain = chain_of(index, node.storage_index)?;
    let place = chain.as_ref().and_then(|c| c.bones.iter().position(|b| b.node == node.storage_index));
    match (chain, place) {
        (Some(chain), Some(i)) if i + 1 < chain.bones.len() => {
            let start = &index.objects[chain.bones[0].node];
            let solved = solve_two_bone(index, &chain, parent_world(index, start, tick, depth)?, tick)?;
            Ok(solved[i])
        }
        _ => {
            let bone = IkBone {
                node: node.storage_index,
                controller: node.reference(0).unwrap_or(usize::MAX),
                preferred_position: glam::Vec3::ZERO,
                preferred_euler: glam::Vec3::ZERO,
            };
            Ok(parent_world(index, node, tick, depth)? * dmat(fk_at(index, &bone, tick)?.matrix()))
        }
    }
}

fn unsupported(index: &SceneIndex<'_>, chain: &IkChain, what: String) -> IkError {
    super::ik::unsupported(&index.objects[chain.controller], what)
}

fn degenerate(index: &SceneIndex<'_>, chain: &IkChain, what: &str) -> IkError {
    let ctrl = &index.objects[chain.controller];
    IkError::Degenerate { object: ctrl.storage_index, class: class_name(ctrl), what: what.into() }
}

/// A bone's preferred local matrix: FK position (and scale), preferred rotation.
fn preferred_local(index: &SceneIndex<'_>, bone: &IkBone, tick: f64) -> Result<DMat4, IkError> {
    let mut fk = fk_at(index, bone, tick)?;
    fk.rotation = bone.preferred_rotation();
    Ok(dmat(fk.matrix()))
}

/// The rotation taking the frame (`u0`, `n0`) to (`u`, `n`) (both orthonormalised).
fn frame_rotation(u0: DVec3, n0: DVec3, u: DVec3, n: DVec3) -> DMat3 {
    let frame = |u: DVec3, n: DVec3| {
        let n = (n - u * n.dot(u)).normalize();
        DMat3::from_cols(u, n, u.cross(n))
    };
    frame(u, n) * frame(u0, n0).transpose()
}

/// A two-bone chain's joint positions (world).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Triangle {
    /// Start joint.
    pub start: DVec3,
    /// Middle joint.
    pub middle: DVec3,
    /// End joint.
    pub end: DVec3,
}

/// A solved two-bone chain: the middle joint's position and each bone's turn from its
/// preferred orientation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Solved {
    /// The middle joint.
    pub middle: DVec3,
    /// The start bone's turn (world).
    pub turn_start: DMat3,
    /// The middle bone's turn (world).
    pub turn_middle: DMat3,
}

impl Triangle {
    /// The normal of the preferred triangle, `(M0 − S0) × (E0 − S0)`, normalised.
    pub fn normal(&self) -> DVec3 {
        (self.middle - self.start).cross(self.end - self.start).normalize()
    }

    /// The HI solve toward `goal` with `swivel` (radians): the zero plane is the preferred
    /// normal projected perpendicular to the goal axis, turned by the swivel about it; the
    /// bones keep their lengths and bend on the preferred side; the reach is clamped to
    /// what the bones span. `None` when a value is not finite or the plane is undefined.
    pub fn solve(&self, goal: DVec3, swivel: f64) -> Option<Solved> {
        let (s, m0, e0) = (self.start, self.middle, self.end);
        let n0 = self.normal();
        let (l1, l2) = ((m0 - s).length(), (e0 - m0).length());
        let to_goal = goal - s;
        let a = to_goal.normalize();
        let zero = (n0 - a * n0.dot(a)).normalize();
        if !(n0.is_finite() && a.is_finite() && zero.is_finite() && swivel.is_finite()) || l1 <= 0.0 || l2 <= 0.0 {
            return None;
        }
        let n = DQuat::from_axis_angle(a, swivel) * zero;
        let d = to_goal.length().clamp((l1 - l2).abs(), l1 + l2);
        let cos_alpha = ((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d)).clamp(-1.0, 1.0);
        // `n0` is oriented by the preferred triangle, whose middle joint lies on the `a0 × n0`
        // side of the goal axis: the solved one lies on `a × n`.
        let middle = s + (a * cos_alpha + a.cross(n) * (1.0 - cos_alpha * cos_alpha).sqrt()) * l1;
        let reach = s + a * d;
        let solved = Solved {
            middle,
            turn_start: frame_rotation((m0 - s).normalize(), n0, (middle - s).normalize(), n),
            turn_middle: frame_rotation((e0 - m0).normalize(), n0, (reach - middle).normalize(), n),
        };
        (solved.middle.is_finite() && solved.turn_start.is_finite() && solved.turn_middle.is_finite()).then_some(solved)
    }
}

/// World matrices of the start and middle joints of a two-bone HI chain at `tick`, the start
/// joint's parent standing at `parent`.
fn solve_two_bone(index: &SceneIndex<'_>, chain: &IkChain, parent: DMat4, tick: f64) -> Result<[DMat4; 2], IkError> {
    if chain.solver != HI_SOLVER {
        return Err(unsupported(index, chain, format!("solver {:?} (only {HI_SOLVER} is modelled)", chain.solver)));
    }
    if chain.swivel_parent != SWIVEL_IN_START_JOINT {
        return Err(unsupported(
            index,
            chain,
            format!("swivel-angle parent space {} (only the start joint's, 1, is modelled)", chain.swivel_parent),
        ));
    }
    if chain.bones.len() != 3 {
        return Err(unsupported(
            index,
            chain,
            format!("{} joints (only two-bone chains are modelled)", chain.bones.len()),
        ));
    }
    let start0 = parent * preferred_local(index, &chain.bones[0], tick)?;
    let mid0 = start0 * preferred_local(index, &chain.bones[1], tick)?;
    let end0 = mid0 * preferred_local(index, &chain.bones[2], tick)?;
    let p = |m: &DMat4| m.w_axis.truncate();
    let (s, m0, e0) = (p(&start0), p(&mid0), p(&end0));
    let n0 = (m0 - s).cross(e0 - s).normalize();
    let mid_x = mid0.x_axis.truncate().normalize();
    if !n0.is_finite() || !mid_x.is_finite() {
        return Err(degenerate(index, chain, "preferred chain triangle has no normal (straight or zero-length bones)"));
    }
    if n0.cross(mid_x).length() > PLANAR_TOLERANCE {
        return Err(unsupported(
            index,
            chain,
            format!(
                "preferred triangle normal {:.3}° off the middle joint's X axis (non-planar chain: bend axis not modelled)",
                n0.cross(mid_x).length().asin().to_degrees()
            ),
        ));
    }
    let goal = parent_world(index, &index.objects[chain.node], tick, 0)? * dmat(goal_at(index, chain, tick)?.matrix());
    let preferred = Triangle { start: s, middle: m0, end: e0 };
    let solved = preferred.solve(goal.w_axis.truncate(), f64::from(chain.swivel)).ok_or_else(|| {
        degenerate(index, chain, "goal on the start joint or along the chain normal, or a non-finite swivel or goal")
    })?;
    let place = |pose: &DMat4, turn: DMat3, at: DVec3| {
        let linear = turn * DMat3::from_mat4(*pose);
        DMat4::from_cols(
            linear.x_axis.extend(0.0),
            linear.y_axis.extend(0.0),
            linear.z_axis.extend(0.0),
            at.extend(1.0),
        )
    };
    Ok([place(&start0, solved.turn_start, s), place(&mid0, solved.turn_middle, solved.middle)])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two unit bones bent at a right angle in the XY plane, reaching along the diagonal.
    fn right_angle() -> Triangle {
        Triangle { start: DVec3::ZERO, middle: DVec3::X, end: DVec3::new(1.0, 1.0, 0.0) }
    }

    #[test]
    fn a_goal_where_the_end_stands_leaves_the_pose() {
        let t = right_angle();
        let s = t.solve(t.end, 0.0).unwrap();
        assert!((s.middle - t.middle).length() < 1e-12, "{:?}", s.middle);
        assert!((s.turn_start - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, 1e-12));
        assert!((s.turn_middle - DMat3::IDENTITY).abs_diff_eq(DMat3::ZERO, 1e-12));
    }

    #[test]
    fn a_straight_reach_unbends_the_knee() {
        // Goal 2 away along X: both bones along X, the knee at (1, 0, 0).
        let s = right_angle().solve(DVec3::new(2.0, 0.0, 0.0), 0.0).unwrap();
        assert!((s.middle - DVec3::X).length() < 1e-9, "{:?}", s.middle);
        // Beyond reach: clamped, the same pose.
        let far = right_angle().solve(DVec3::new(5.0, 0.0, 0.0), 0.0).unwrap();
        assert!((far.middle - DVec3::X).length() < 1e-9);
    }

    #[test]
    fn the_swivel_turns_the_knee_about_the_goal_axis() {
        // Hand-worked: goal (1, 1, 0), a = (1, 1, 0)/√2, n0 = X × (1, 1, 0) = +Z. A quarter
        // turn about a takes n to a × Z = (1, −1, 0)/√2, so a × n = (0, 0, −1): the knee,
        // 1/√2 along a and 1/√2 off it, moves from (1, 0, 0) to (0.5, 0.5, −1/√2).
        let s = right_angle().solve(DVec3::new(1.0, 1.0, 0.0), std::f64::consts::FRAC_PI_2).unwrap();
        let h = std::f64::consts::FRAC_1_SQRT_2;
        assert!((s.middle - DVec3::new(0.5, 0.5, -h)).length() < 1e-9, "{:?}", s.middle);
    }

    #[test]
    fn non_finite_or_degenerate_input_is_refused() {
        let t = right_angle();
        assert!(t.solve(DVec3::new(f64::NAN, 0.0, 0.0), 0.0).is_none());
        assert!(t.solve(t.end, f64::INFINITY).is_none());
        assert!(t.solve(t.start, 0.0).is_none(), "goal on the start joint");
        let straight = Triangle { start: DVec3::ZERO, middle: DVec3::X, end: DVec3::new(2.0, 0.0, 0.0) };
        assert!(straight.solve(DVec3::Y, 0.0).is_none(), "no preferred plane");
        let collapsed = Triangle { start: DVec3::ZERO, middle: DVec3::ZERO, end: DVec3::X };
        assert!(collapsed.solve(DVec3::Y, 0.0).is_none());
    }

    proptest::proptest! {
        #[test]
        fn any_input_solves_or_is_refused(v in proptest::collection::vec(-1e6f64..1e6, 13), nan in 0usize..14) {
            let mut v = v;
            if nan < 13 { v[nan] = f64::NAN; }
            let p = |i: usize| DVec3::new(v[i], v[i + 1], v[i + 2]);
            let t = Triangle { start: p(0), middle: p(3), end: p(6) };
            if let Some(s) = t.solve(p(9), v[12]) {
                proptest::prop_assert!(s.middle.is_finite());
            }
        }
    }
}
