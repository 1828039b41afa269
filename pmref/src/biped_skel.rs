//! T3 of a Biped rig's NeL skeleton (pmcore `export::biped_rig`) against what 3ds Max wrote
//! and against the real `.skel` files, in two parts:
//!
//! * (a) **InvBindPos** of every placed bone against the inverse of the FBX `BindPose`
//!   matrix of the node of that name, brought to NeL's conventions: NeL keeps Max's axes
//!   and units, the FBX global is `C · Max world` with `C` the file's declared conversion
//!   (`GlobalSettings`: `Rx(−90°)` from a Z-up scene to a Y-up file, the unit factor), so
//!   the expected InvBindPos is `(C⁻¹ · bind)⁻¹`.
//!   Tolerance: Max builds each world matrix in float32 through three to six compositions
//!   (COM, pelvis, limb, hinge) and stores it as float32; the FBX `BindPose` is that
//!   float32 matrix widened, the `.skel` our float32 inverse. The figure placement differs
//!   from the FBX by at most 3.3e-6 per rotation element (about 28 float32 steps at 1.0,
//!   the compositions' rounding) and 1.9e-4 cm in position (tests/biped_bind_pose.rs);
//!   the float32 step of a 100–200 cm translation is 7.6e-6–1.5e-5. So rotation elements
//!   within [`ROTATION_TOLERANCE`] = 1e-5, and the InvBindPos translation (`−Rᵀ t`) within
//!   [`POSITION_TOLERANCE`] = 5e-4 plus the rotation tolerance over the bone's lever arm
//!   `|t|`.
//! * (c) **Default tracks** of every placed bone under a placed father whose FBX parent is
//!   that father: DefaultPos against the FBX node's local translation and DefaultRotQuat
//!   (NeL's negated quaternion, up to sign) against its local rotation — Max writes a
//!   non-root node's local transform unchanged (only roots take the axis turn). The same
//!   tolerances: a local is two worlds' difference, each within the bind tolerance.
//! * (b) **Bone set, order and naming**: the rules of [`crate::skel_conventions`] (read off
//!   the real Ryzom `.skel` files), and every bone's father against its node's parent in
//!   the FBX (the hierarchy Max wrote), for the bones the FBX holds.
//!
//! * (d) **Link Constraint helpers**: a rig whose FBX binds helpers instead of its Biped bones
//!   (LD35: the BindPose holds only the `B_*` helpers) still says where the bones were, since
//!   3ds Max places a Link-Constrained helper at `target world · offset`. For each helper
//!   linked to a placed bone (`pmcore::export::biped_helper_links`: the offset is data read
//!   from the `.max`, at tick 0), the bone's figure world (the inverse of its InvBindPos) ·
//!   the offset is compared with the helper's BindPose matrix exactly as (a) compares a
//!   bone: same conversion, same tolerances (one more float32 composition is far inside
//!   them).
//!
//! A bone pmcore could not place is counted and named, never compared as if placed: a
//! skeleton with unplaced bones does not pass. A placed bone the FBX does not hold is counted
//! in `bind_absent` and compared with nothing here: on the Rocketbox rigs the 41 nubs (the
//! FBX plug-in writes none), `Bip01 Footsteps` and the facial xtras outside the BindPose
//! (their FBX locals are still compared by (c)). The nubs' placement rule is checked on the
//! files that do hold nubs instead (`tests/tests/biped_nubs.rs`).

use crate::compare::axes::conversions;
use crate::scene::RefScene;
use crate::skel_conventions::{check, ConventionMiss, RULES};
use glam::{DMat4, DVec3};
use pmcore::export::biped_rig::BipedSkeleton;
use pmcore::export::skel::Skeleton;
use std::collections::BTreeMap;

/// Largest difference of an InvBindPos rotation element (see the module notes).
pub const ROTATION_TOLERANCE: f64 = 1e-5;
/// Largest InvBindPos translation difference at the origin, in scene units.
pub const POSITION_TOLERANCE: f64 = 5e-4;
/// Most entries listed per kind of miss (all are counted).
pub const MAX_LISTED: usize = 50;

/// One bone whose InvBindPos is off.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BindOff {
    /// Bone index.
    pub index: usize,
    /// Bone name.
    pub bone: String,
    /// Largest rotation-element difference.
    pub rotation_diff: f64,
    /// Translation difference (scene units).
    pub translation_diff: f64,
    /// The translation tolerance at this bone.
    pub translation_tolerance: f64,
}

/// One helper whose bone-and-offset placement is off its BindPose matrix (part (d)).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct LinkOff {
    /// Index of the bone the helper links to.
    pub index: usize,
    /// That bone's name.
    pub bone: String,
    /// The helper's name.
    pub helper: String,
    /// Largest rotation-element difference.
    pub rotation_diff: f64,
    /// Translation difference (scene units).
    pub translation_diff: f64,
    /// The translation tolerance at this helper.
    pub translation_tolerance: f64,
}

/// One bone whose default tracks are off its FBX local transform.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrackOff {
    /// Bone index.
    pub index: usize,
    /// Bone name.
    pub bone: String,
    /// DefaultPos difference (scene units).
    pub position_diff: f64,
    /// Largest DefaultRotQuat component difference (up to sign).
    pub rotation_diff: f64,
}

/// One bone whose father is not its node's FBX parent.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FatherMiss {
    /// Bone index.
    pub index: usize,
    /// Bone name.
    pub bone: String,
    /// Its father in the skeleton.
    pub father: Option<String>,
    /// Its node's parent in the FBX.
    pub reference_parent: Option<String>,
}

/// The Biped skel T3 detail.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BipedSkelComparison {
    /// Bones in the skeleton.
    pub bones: usize,
    /// Of which pmcore could not place.
    pub unplaced: usize,
    /// The axis and unit conversion applied.
    pub conversion: String,
    /// Matrices the FBX BindPose holds (any node).
    pub bind_entries: usize,
    /// Placed bones compared with a BindPose matrix.
    pub bind_compared: usize,
    /// Of which within tolerance.
    pub bind_within: usize,
    /// Placed bones the BindPose does not hold (not compared), first [`MAX_LISTED`].
    pub bind_absent: Vec<String>,
    /// How many placed bones the BindPose does not hold.
    pub bind_absent_count: usize,
    /// Bones off, first [`MAX_LISTED`].
    pub bind_off: Vec<BindOff>,
    /// How many bones are off.
    pub bind_off_count: usize,
    /// Largest rotation-element difference over the compared bones.
    pub max_rotation_diff: f64,
    /// Largest translation difference over the compared bones.
    pub max_translation_diff: f64,
    /// Part (d): helpers linked to placed bones compared with their BindPose matrix.
    pub links_compared: usize,
    /// Of which within tolerance.
    pub links_within: usize,
    /// The compared links as `helper → bone`, first [`MAX_LISTED`].
    pub links: Vec<String>,
    /// Helpers off, first [`MAX_LISTED`].
    pub link_off: Vec<LinkOff>,
    /// How many helpers are off.
    pub link_off_count: usize,
    /// Linked helpers the BindPose does not hold (not compared), first [`MAX_LISTED`].
    pub links_absent: Vec<String>,
    /// Linked helpers whose offset was not read, with why (not compared).
    pub links_refused: Vec<String>,
    /// Largest rotation-element difference over the compared helpers.
    pub max_link_rotation_diff: f64,
    /// Largest translation difference over the compared helpers.
    pub max_link_translation_diff: f64,
    /// Bones whose default tracks were compared with their FBX local transform.
    pub tracks_compared: usize,
    /// Bones whose tracks are off, first [`MAX_LISTED`].
    pub tracks_off: Vec<TrackOff>,
    /// How many bones' tracks are off.
    pub tracks_off_count: usize,
    /// Largest DefaultPos difference over the compared bones.
    pub max_track_position_diff: f64,
    /// Largest DefaultRotQuat component difference over the compared bones.
    pub max_track_rotation_diff: f64,
    /// Bones whose father was compared with an FBX parent.
    pub fathers_compared: usize,
    /// Fathers that differ, first [`MAX_LISTED`].
    pub father_misses: Vec<FatherMiss>,
    /// The convention rules checked.
    pub conventions_checked: Vec<String>,
    /// The rules broken, first [`MAX_LISTED`].
    pub convention_misses: Vec<ConventionMiss>,
}

impl BipedSkelComparison {
    /// Pass: every bone placed, some compared, nothing off, every father and rule kept.
    pub fn passed(&self) -> bool {
        self.unplaced == 0 && self.placed_part_passed()
    }

    /// The placed bones compare: some compared, none off, fathers and rules kept.
    pub fn placed_part_passed(&self) -> bool {
        self.bind_compared + self.links_compared > 0
            && self.bind_off_count == 0
            && self.link_off_count == 0
            && self.tracks_off_count == 0
            && self.father_misses.is_empty()
            && self.convention_misses.is_empty()
    }

    /// The first difference: (where, what), `None` when the placed part passes.
    pub fn first_miss(&self) -> Option<(String, String)> {
        if let Some(m) = self.convention_misses.first() {
            return Some((m.locator(), format!("convention {}: {}", m.rule, m.found)));
        }
        if let Some(m) = self.father_misses.first() {
            return Some((
                format!("bones[{}] {:?}", m.index, m.bone),
                format!("father {:?}, FBX parent {:?}", m.father, m.reference_parent),
            ));
        }
        if let Some(b) = self.bind_off.first() {
            return Some((
                format!("bones[{}] {:?}", b.index, b.bone),
                format!(
                    "InvBindPos off the FBX BindPose: rotation {:.2e} (tolerance {ROTATION_TOLERANCE:e}), translation {:.2e} (tolerance {:.2e})",
                    b.rotation_diff, b.translation_diff, b.translation_tolerance
                ),
            ));
        }
        if let Some(l) = self.link_off.first() {
            return Some((
                format!("bones[{}] {:?}", l.index, l.bone),
                format!(
                    "figure world · Link Constraint offset of {:?} off its FBX BindPose: rotation {:.2e} (tolerance {ROTATION_TOLERANCE:e}), translation {:.2e} (tolerance {:.2e})",
                    l.helper, l.rotation_diff, l.translation_diff, l.translation_tolerance
                ),
            ));
        }
        if let Some(t) = self.tracks_off.first() {
            return Some((
                format!("bones[{}] {:?}", t.index, t.bone),
                format!(
                    "default tracks off the FBX local transform: DefaultPos {:.2e}, DefaultRotQuat {:.2e}",
                    t.position_diff, t.rotation_diff
                ),
            ));
        }
        (self.bind_compared + self.links_compared == 0)
            .then(|| ("skeleton".into(), "no placed bone or linked helper has a BindPose matrix".into()))
    }
}

/// The NeL-convention world of a bind matrix: `C⁻¹ · bind`, with `C` the reference's
/// declared conversion; an error when the file declares none that places roots.
fn max_conversion(reference: &RefScene) -> Result<(DMat4, String), String> {
    let c = conversions(reference)?
        .into_iter()
        .find(|c| c.roots_comparable && !c.similarity)
        .ok_or("the reference declares no axis and unit conversion of its roots")?;
    Ok((c.matrix.inverse(), c.note))
}

fn nel_matrix(s: &Skeleton, i: usize) -> DMat4 {
    let d = s.bones[i].inv_bind_pos.decoded().map(f64::from);
    let row = |r: usize| [d[4 * r], d[4 * r + 1], d[4 * r + 2], d[4 * r + 3]];
    DMat4::from_cols_array_2d(&[
        [row(0)[0], row(1)[0], row(2)[0], 0.0],
        [row(0)[1], row(1)[1], row(2)[1], 0.0],
        [row(0)[2], row(1)[2], row(2)[2], 0.0],
        [row(0)[3], row(1)[3], row(2)[3], 1.0],
    ])
}

/// Part (a) on bone `i`: its differences from the expected InvBindPos.
fn bind_difference(produced: &DMat4, expected_world: &DMat4, rotation_tolerance: f64) -> (f64, f64, f64) {
    let expected = expected_world.inverse();
    let mut rotation: f64 = 0.0;
    for c in 0..3 {
        rotation = rotation.max((produced.col(c) - expected.col(c)).truncate().abs().max_element());
    }
    let translation = (produced.w_axis - expected.w_axis).truncate().length();
    let lever: DVec3 = expected_world.w_axis.truncate();
    (rotation, translation, POSITION_TOLERANCE + rotation_tolerance * lever.length())
}

/// Part (c) on bone `i` against the FBX local `local`: (position, rotation) differences.
fn track_difference(bone: &pmcore::export::skel::Bone, local: &DMat4) -> (f64, f64) {
    let p = DVec3::from_array(bone.default_pos.map(f64::from));
    let position = (p - local.w_axis.truncate()).length();
    let axes = glam::DMat3::from_cols(
        local.x_axis.truncate().normalize(),
        local.y_axis.truncate().normalize(),
        local.z_axis.truncate().normalize(),
    );
    let q = glam::DQuat::from_mat3(&axes).normalize().to_array();
    let nel = bone.default_rot_quat.map(f64::from);
    let diff = |sign: f64| q.iter().zip(&nel).map(|(a, b)| (sign * a - b).abs()).fold(0.0, f64::max);
    (position, diff(1.0).min(diff(-1.0)))
}

/// Part (c): the default tracks of the placed bones under placed fathers that are their
/// FBX parents.
fn compare_tracks(
    c: &mut BipedSkelComparison,
    skel: &Skeleton,
    placed: &[bool],
    rotation_spread: &[f64],
    reference: &RefScene,
) {
    let is_placed = |i: usize| placed.get(i).copied().unwrap_or(false);
    for (i, bone) in skel.bones.iter().enumerate().skip(1) {
        let Some(f) = usize::try_from(bone.father_id).ok().filter(|&f| is_placed(f) && is_placed(i)) else { continue };
        let Some(r) = reference.node_by_name(&bone.name) else { continue };
        if reference.nodes[r].parent.map(|p| reference.nodes[p].name.as_str())
            != skel.bones.get(f).map(|b| b.name.as_str())
        {
            continue;
        }
        let (position, rotation) = track_difference(bone, &reference.nodes[r].local);
        c.tracks_compared += 1;
        c.max_track_position_diff = c.max_track_position_diff.max(position);
        c.max_track_rotation_diff = c.max_track_rotation_diff.max(rotation);
        let lever = reference.nodes[r].local.w_axis.truncate().length();
        let rotation_tolerance = ROTATION_TOLERANCE + rotation_spread.get(i).copied().unwrap_or(0.0);
        if !(position <= POSITION_TOLERANCE + rotation_tolerance * lever && rotation <= rotation_tolerance) {
            c.tracks_off_count += 1;
            if c.tracks_off.len() < MAX_LISTED {
                let off =
                    TrackOff { index: i, bone: bone.name.clone(), position_diff: position, rotation_diff: rotation };
                c.tracks_off.push(off);
            }
        }
    }
}

/// Compares a Biped skeleton (`placed[i]`: bone i's InvBindPos is real; `rotation_spread[i]`:
/// the `f32` spread of its placed rotation, added to the rotation tolerance — only xtras near
/// gimbal lock have one, `pmcore::eval::biped::FigurePose::rotation_spread`) with the FBX's
/// bind pose and hierarchy and with the real-file conventions.
pub fn compare(
    skel: &Skeleton,
    placed: &[bool],
    rotation_spread: &[f64],
    bind: &BTreeMap<String, DMat4>,
    reference: &RefScene,
) -> Result<BipedSkelComparison, String> {
    let (to_max, conversion) = max_conversion(reference)?;
    let mut c = BipedSkelComparison {
        bones: skel.bones.len(),
        unplaced: placed.iter().filter(|p| !**p).count(),
        conversion,
        bind_entries: bind.len(),
        conventions_checked: RULES.iter().map(|r| r.to_string()).collect(),
        ..Default::default()
    };
    for (i, bone) in skel.bones.iter().enumerate().filter(|(i, _)| placed.get(*i).copied().unwrap_or(false)) {
        let Some(m) = bind.get(&bone.name) else {
            c.bind_absent_count += 1;
            if c.bind_absent.len() < MAX_LISTED {
                c.bind_absent.push(bone.name.clone());
            }
            continue;
        };
        let rotation_tolerance = ROTATION_TOLERANCE + rotation_spread.get(i).copied().unwrap_or(0.0);
        let (rotation, translation, tolerance) =
            bind_difference(&nel_matrix(skel, i), &(to_max * *m), rotation_tolerance);
        c.bind_compared += 1;
        c.max_rotation_diff = c.max_rotation_diff.max(rotation);
        c.max_translation_diff = c.max_translation_diff.max(translation);
        // NaN is off too.
        if rotation <= rotation_tolerance && translation <= tolerance {
            c.bind_within += 1;
        } else {
            let off = BindOff {
                index: i,
                bone: bone.name.clone(),
                rotation_diff: rotation,
                translation_diff: translation,
                translation_tolerance: tolerance,
            };
            listed(&mut c.bind_off, &mut c.bind_off_count, off);
        }
    }
    compare_tracks(&mut c, skel, placed, rotation_spread, reference);
    let bone_names: std::collections::BTreeSet<&str> = skel.bones.iter().map(|b| b.name.as_str()).collect();
    for (i, bone) in skel.bones.iter().enumerate() {
        let Some(r) = reference.node_by_name(&bone.name) else { continue };
        let parent = reference.nodes[r].parent.map(|p| reference.nodes[p].name.clone());
        if parent.as_deref().is_some_and(|p| !bone_names.contains(p)) {
            continue;
        }
        let father = usize::try_from(bone.father_id).ok().and_then(|f| skel.bones.get(f)).map(|f| f.name.clone());
        c.fathers_compared += 1;
        if father != parent && c.father_misses.len() < MAX_LISTED {
            c.father_misses.push(FatherMiss { index: i, bone: bone.name.clone(), father, reference_parent: parent });
        }
    }
    // `biped-nub-turn` reads a bone's default tracks, which an unplaced bone (or one under an
    // unplaced father) does not have: it is counted among the unplaced, not as a miss.
    let tracked = |i: usize| {
        let father = usize::try_from(skel.bones[i].father_id).ok();
        placed.get(i) == Some(&true) && father.is_none_or(|f| placed.get(f) == Some(&true))
    };
    let misses = check(skel, true).into_iter().filter(|m| m.rule != "biped-nub-turn" || m.bone.is_some_and(tracked));
    c.convention_misses = misses.take(MAX_LISTED).collect();
    Ok(c)
}

/// Counts one more entry and keeps it when fewer than [`MAX_LISTED`] are listed.
fn listed<T>(list: &mut Vec<T>, count: &mut usize, item: T) {
    *count += 1;
    if list.len() < MAX_LISTED {
        list.push(item);
    }
}

/// Where 3ds Max puts a helper Link-Constrained to a bone: the bone's world (the inverse of
/// its InvBindPos) · the link offset (Max's row-vector `offset · target`).
fn linked_world(bone_inv_bind: &DMat4, offset: &DMat4) -> DMat4 {
    bone_inv_bind.inverse() * *offset
}

/// Part (d): each helper Link-Constrained to a placed bone — the bone's figure world (the
/// inverse of its InvBindPos) · the link offset — against the helper's BindPose matrix,
/// with (a)'s conversion and tolerances. Linked helpers whose offset was not read
/// (`helper_links_refused`) are listed, not compared.
pub fn compare_helper_links(
    c: &mut BipedSkelComparison,
    biped: &BipedSkeleton,
    bind: &BTreeMap<String, DMat4>,
    reference: &RefScene,
) -> Result<(), String> {
    let (to_max, _) = max_conversion(reference)?;
    let (skel, placed, rotation_spread) = (biped.structure(), &biped.placed, &biped.rotation_spread);
    let (links, refused) = (&biped.helper_links, &biped.helper_links_refused);
    c.links_refused = refused.iter().take(MAX_LISTED).cloned().collect();
    for link in links.iter().filter(|l| placed.get(l.bone).copied().unwrap_or(false)) {
        let Some(m) = bind.get(&link.helper) else {
            if c.links_absent.len() < MAX_LISTED {
                c.links_absent.push(link.helper.clone());
            }
            continue;
        };
        let helper_world = linked_world(&nel_matrix(skel, link.bone), &link.offset);
        let rotation_tolerance = ROTATION_TOLERANCE + rotation_spread.get(link.bone).copied().unwrap_or(0.0);
        let (rotation, translation, tolerance) =
            bind_difference(&helper_world.inverse(), &(to_max * *m), rotation_tolerance);
        c.links_compared += 1;
        if c.links.len() < MAX_LISTED {
            c.links.push(format!("{} → {}", link.helper, skel.bones[link.bone].name));
        }
        c.max_link_rotation_diff = c.max_link_rotation_diff.max(rotation);
        c.max_link_translation_diff = c.max_link_translation_diff.max(translation);
        if rotation <= rotation_tolerance && translation <= tolerance {
            c.links_within += 1;
        } else {
            let off = LinkOff {
                index: link.bone,
                bone: skel.bones[link.bone].name.clone(),
                helper: link.helper.clone(),
                rotation_diff: rotation,
                translation_diff: translation,
                translation_tolerance: tolerance,
            };
            listed(&mut c.link_off, &mut c.link_off_count, off);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    #[test]
    fn a_linked_helper_sits_at_its_offset_in_the_bones_frame() {
        // A bone at (0, 0, 100) turned 90° about Z; a helper 10 along the bone's X.
        let bone = DMat4::from_translation(DVec3::new(0.0, 0.0, 100.0)) * DMat4::from_rotation_z(FRAC_PI_2);
        let offset = DMat4::from_translation(DVec3::new(10.0, 0.0, 0.0));
        let helper = linked_world(&bone.inverse(), &offset);
        assert!((helper.w_axis.truncate() - DVec3::new(0.0, 10.0, 100.0)).length() < 1e-12, "{helper:?}");
        assert!((helper.x_axis.truncate() - DVec3::Y).length() < 1e-12);
    }

    #[test]
    fn the_translation_tolerance_grows_with_the_lever_arm() {
        let world = DMat4::from_translation(DVec3::new(0.0, 0.0, 100.0));
        let produced = world.inverse() * DMat4::from_translation(DVec3::new(0.0, 0.0, 1e-3));
        let (r, t, tol) = bind_difference(&produced, &world, ROTATION_TOLERANCE);
        assert!(r < 1e-12 && (t - 1e-3).abs() < 1e-9, "{r} {t}");
        assert!((tol - (5e-4 + 1e-3)).abs() < 1e-12, "{tol}");
        let turned = DMat4::from_rotation_z(2e-5) * world.inverse();
        assert!(bind_difference(&turned, &world, ROTATION_TOLERANCE).0 > ROTATION_TOLERANCE);
    }
}
