//! Figure-mode (bind-pose) placement of Biped bones from the decoded system object
//! ([`crate::model::biped`]): each bone's world rotation and position in the Biped's Y-up
//! frame (the frame the FBX exporter writes with `UpAxis = Y`; Max = (x, −z, y)).
//!
//! Only the rules measured exact against the FBX bind pose of three Rocketbox rigs that store
//! different values (`docs/biped-format-notes.md` §4.1, §5.1) are used; `M(q)` is the
//! column-vector rotation of a stored (x, y, z, w), `conj q` its inverse:
//! - COM: position 0x006c[4..6], rotation `M(conj q) · Rx(−90°)`; pelvis: the COM position,
//!   rotation `COM · Ry(−90°) · Rx(−90°)` (the constant local Euler (−90°, −90°, 0°)).
//! - Thighs at the COM ± the side offset along the pelvis Z axis; L `pelvis · M(conj q) ·
//!   Ry(π)`, R `pelvis · Rz(π) · M(conj q) · Rx(π)`. Calves: `thigh · T(thigh length) ·
//!   Rz(knee − π)`; feet: at the calf end, `pelvis · F · M(conj q)`.
//! - Spine, neck: rotations `pelvis · Rz(−a1 + ε)`, then `Rz(−a)` per link; head `pelvis ·
//!   Rx(π) · M(conj q) · Rx(π)`. ε = π/2 − 1.57: Character Studio's literal right angle.
//! - Upper arms (L `pelvis · Rx(π) · M(conj q) · Ry(π)`, R `pelvis · Ry(π) · M(conj q) ·
//!   Rx(π)`), forearms `upper arm · Rz(elbow − π)`, hands `forearm · M(conj q) · Rx(−1.57)`
//!   (R: the mirrored quaternion and `Rx(1.57)`).
//!
//! What no measured rule places is [`Unplaced`] with the reason, never a guess: the
//! positions of the spine chain and of everything attached above it (its translation rows
//! are 1e-4 to 1.2e-2 cm off the FBX, open question 1 of the notes), clavicle rotations
//! (6.4e-5 residual), toes', fingers' and xtras' rotations, nubs, tails and ponytails.

use crate::model::biped::{bone, BipedSystem, Sides};
use glam::{DMat3, DMat4, DQuat, DVec3};
use std::f64::consts::{FRAC_PI_2, PI};

/// Character Studio's right angle is the literal 1.57: ε = π/2 − 1.57 turns up in the
/// spine base and hand rules (measured on FA16, MA11, MC01).
pub const EPSILON: f64 = FRAC_PI_2 - 1.57;

/// Why a bone has no bind-pose rotation or position yet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unplaced {
    /// The spine chain's link positions are not decoded (stored rows 1e-4–1.2e-2 cm off).
    #[error("spine chain positions are not decoded (0x000b/0x000d rows off the FBX by up to 1.2e-2 cm)")]
    SpineChainPosition,
    /// The clavicle rotation rule leaves 6.4e-5, above float32 noise.
    #[error("the clavicle rotation rule leaves a 6.4e-5 residual (not float32 noise)")]
    ClavicleRotation,
    /// Finger and toe base matrices are not decoded.
    #[error("finger/toe base rotations (0x0010/0x000f matrices, 0x006a/0x0069 blocks) are not decoded")]
    DigitRotation,
    /// Nubs carry no pose of their own in the FBX to check a rule against.
    #[error("nubs are not exported; no rule checked")]
    Nub,
    /// Xtras: translation within 2e-3 only, rotation not decoded.
    #[error("xtra chains are not decoded (translation within 2e-3 only)")]
    Xtra,
    /// A part the measured rigs do not have (tail, pony, props, 4-link legs …).
    #[error("bone id {0} link {1}: no measured rule for this part")]
    NoRule(i32, i32),
    /// The figure lacks the record the rule reads (no legs, no arms, short angle record).
    #[error("the figure stores no {0}")]
    NotStored(&'static str),
}

/// A bone's figure-mode world placement, each half on its own: several bones have an exact
/// rotation but no exact position yet.
#[derive(Clone, Debug, PartialEq)]
pub struct BonePose {
    /// World rotation (column vectors, Y-up).
    pub rotation: Result<DMat3, Unplaced>,
    /// World position (scene units, Y-up).
    pub position: Result<DVec3, Unplaced>,
}

impl BonePose {
    /// The world matrix, when both halves are placed.
    pub fn world(&self) -> Result<DMat4, Unplaced> {
        let r = self.rotation.clone()?;
        let p = self.position.clone()?;
        Ok(DMat4::from_cols(r.x_axis.extend(0.0), r.y_axis.extend(0.0), r.z_axis.extend(0.0), p.extend(1.0)))
    }

    fn placed(rotation: DMat3, position: DVec3) -> Self {
        BonePose { rotation: Ok(rotation), position: Ok(position) }
    }

    fn unplaced(why: Unplaced) -> Self {
        BonePose { rotation: Err(why.clone()), position: Err(why) }
    }
}

fn m(q: [f32; 4]) -> DMat3 {
    let q = DQuat::from_xyzw(q[0] as f64, q[1] as f64, q[2] as f64, q[3] as f64);
    DMat3::from_quat(q.normalize())
}

fn conj(q: [f32; 4]) -> [f32; 4] {
    [-q[0], -q[1], -q[2], q[3]]
}

/// The mirrored quaternion (x, y, −z, −w) the right hand stores.
fn mirror(q: [f32; 4]) -> [f32; 4] {
    [q[0], q[1], -q[2], -q[3]]
}

fn v3(v: [f32; 3]) -> DVec3 {
    DVec3::new(v[0] as f64, v[1] as f64, v[2] as f64)
}

/// Left or right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

fn pick<T>(s: &Sides<T>, side: Side) -> &T {
    match side {
        Side::Left => &s.left,
        Side::Right => &s.right,
    }
}

/// The figure-mode evaluator of one decoded system.
pub struct FigurePose<'s> {
    system: &'s BipedSystem,
    com: DMat3,
    pelvis: DMat3,
    origin: DVec3,
}

impl<'s> FigurePose<'s> {
    /// Prepares the COM and pelvis frames (0x006c).
    pub fn new(system: &'s BipedSystem) -> Self {
        let com = m(conj(system.com.rotation)) * DMat3::from_rotation_x(-FRAC_PI_2);
        let pelvis = com * DMat3::from_rotation_y(-FRAC_PI_2) * DMat3::from_rotation_x(-FRAC_PI_2);
        FigurePose { system, com, pelvis, origin: v3(system.com.position) }
    }

    /// Places bone (id, link) as 0x0200 / 0x0110 name it; `id = 12` (COM vertical) is the COM.
    pub fn bone(&self, id: i32, link: i32) -> BonePose {
        let side = |left: i32| if id == left { Side::Left } else { Side::Right };
        match (id, link) {
            (bone::COM_VERTICAL, 0) => BonePose::placed(self.com, self.origin),
            (bone::PELVIS, 0) => BonePose::placed(self.pelvis, self.origin),
            (bone::L_LEG | bone::R_LEG, _) => self.leg(side(bone::L_LEG), link),
            (bone::L_ARM | bone::R_ARM, _) => self.arm(side(bone::L_ARM), link),
            (bone::SPINE, _) => self.spine(link),
            (bone::NECK, 0) => self.neck(),
            (bone::HEAD, 0) => self.head(),
            (bone::L_TOES | bone::R_TOES | bone::L_FINGERS | bone::R_FINGERS, _) => self.digit(id, link),
            (bone::R_FINGER_NUB..=bone::HEAD_NUB, _) => BonePose::unplaced(Unplaced::Nub),
            _ if id >= bone::XTRA_NUB => BonePose::unplaced(Unplaced::Nub),
            _ if id >= bone::XTRA => BonePose::unplaced(Unplaced::Xtra),
            _ => BonePose::unplaced(Unplaced::NoRule(id, link)),
        }
    }

    fn leg(&self, side: Side, link: i32) -> BonePose {
        let (Some(fig), Some(pose)) = (&self.system.legs, &self.system.leg_pose) else {
            return BonePose::unplaced(Unplaced::NotStored("legs (0x000f / 0x0069)"));
        };
        if self.system.links.of(bone::L_LEG) != 3 {
            return BonePose::unplaced(Unplaced::NoRule(bone::L_LEG, link));
        }
        let (fig, pose) = (pick(fig, side), pick(pose, side));
        let sign = if side == Side::Left { 1.0 } else { -1.0 };
        let hip = self.origin + self.pelvis * DVec3::new(0.0, 0.0, sign * fig.side_offset as f64);
        let thigh = match side {
            Side::Left => self.pelvis * m(conj(pose.thigh)) * DMat3::from_rotation_y(PI),
            Side::Right => self.pelvis * DMat3::from_rotation_z(PI) * m(conj(pose.thigh)) * DMat3::from_rotation_x(PI),
        };
        let knee = hip + thigh * DVec3::X * fig.thigh as f64;
        let calf = thigh * DMat3::from_rotation_z(pose.knee as f64 - PI);
        match link {
            0 => BonePose::placed(thigh, hip),
            1 => BonePose::placed(calf, knee),
            2 => BonePose::placed(
                self.pelvis * FOOT_FRAME * m(conj(pose.foot)),
                knee + calf * DVec3::X * fig.calf as f64,
            ),
            _ => BonePose::unplaced(Unplaced::NoRule(bone::L_LEG, link)),
        }
    }

    fn arm(&self, side: Side, link: i32) -> BonePose {
        let (Some(fig), Some(pose)) = (&self.system.arms, &self.system.arm_pose) else {
            return BonePose::unplaced(Unplaced::NotStored("arms (0x0010 / 0x006a)"));
        };
        let (_fig, pose) = (pick(fig, side), pick(pose, side));
        let upper = match side {
            Side::Left => {
                self.pelvis * DMat3::from_rotation_x(PI) * m(conj(pose.upper_arm)) * DMat3::from_rotation_y(PI)
            }
            Side::Right => {
                self.pelvis * DMat3::from_rotation_y(PI) * m(conj(pose.upper_arm)) * DMat3::from_rotation_x(PI)
            }
        };
        let forearm = upper * DMat3::from_rotation_z(pose.elbow as f64 - PI);
        let rotation = match link {
            0 => Err(Unplaced::ClavicleRotation),
            1 => Ok(upper),
            2 => Ok(forearm),
            3 => Ok(match side {
                Side::Left => forearm * m(conj(pose.hand)) * DMat3::from_rotation_x(-1.57),
                Side::Right => forearm * m(conj(mirror(pose.hand))) * DMat3::from_rotation_x(1.57),
            }),
            _ => return BonePose::unplaced(Unplaced::NoRule(bone::L_ARM, link)),
        };
        BonePose { rotation, position: Err(Unplaced::SpineChainPosition) }
    }

    /// Spine link rotations: `pelvis · Rz(−a1 + ε)` for the base, then `Rz(−a1)` per link.
    fn spine_rotation(&self, link: i32) -> Result<DMat3, Unplaced> {
        let angles = &self.system.spine_angles;
        let n = usize::try_from(link).ok().filter(|&l| l < angles.len()).ok_or(Unplaced::NotStored("spine angle"))?;
        let mut r = self.pelvis * DMat3::from_rotation_z(EPSILON);
        for a in &angles[..=n] {
            r *= DMat3::from_rotation_z(-(a[0] as f64));
        }
        Ok(r)
    }

    fn spine(&self, link: i32) -> BonePose {
        BonePose { rotation: self.spine_rotation(link), position: Err(Unplaced::SpineChainPosition) }
    }

    fn neck(&self) -> BonePose {
        let last = self.system.spine_angles.len() as i32 - 1;
        let rotation = self.spine_rotation(last).and_then(|r| {
            let a = self.system.neck_angles.first().ok_or(Unplaced::NotStored("neck angle (0x0065)"))?;
            Ok(r * DMat3::from_rotation_z(-(a[0] as f64)))
        });
        BonePose { rotation, position: Err(Unplaced::SpineChainPosition) }
    }

    fn head(&self) -> BonePose {
        let rotation =
            self.pelvis * DMat3::from_rotation_x(PI) * m(conj(self.system.head)) * DMat3::from_rotation_x(PI);
        BonePose { rotation: Ok(rotation), position: Err(Unplaced::SpineChainPosition) }
    }

    /// Toes: position from the toe matrix translation on the foot; rotation not decoded.
    fn digit(&self, id: i32, link: i32) -> BonePose {
        let toe_side = match id {
            bone::L_TOES => Side::Left,
            bone::R_TOES => Side::Right,
            _ => {
                return BonePose { rotation: Err(Unplaced::DigitRotation), position: Err(Unplaced::SpineChainPosition) }
            }
        };
        let per_toe = self.system.links.of(id).max(1) as i32;
        let position = (|| {
            if link % per_toe != 0 {
                return Err(Unplaced::DigitRotation);
            }
            let fig = self.system.legs.as_ref().ok_or(Unplaced::NotStored("legs (0x000f)"))?;
            let toe = pick(fig, toe_side).toes.get((link / per_toe) as usize).ok_or(Unplaced::NotStored("toe"))?;
            let foot = self.leg(toe_side, 2);
            let (r, p) = (foot.rotation?, foot.position?);
            Ok(p + r * DVec3::new(toe.matrix[12] as f64, toe.matrix[13] as f64, toe.matrix[14] as f64))
        })();
        BonePose { rotation: Err(Unplaced::DigitRotation), position }
    }
}

/// The foot frame F of the foot rule: `pelvis · F · M(conj q)` on both sides.
const FOOT_FRAME: DMat3 = DMat3::from_cols(DVec3::Y, DVec3::X, DVec3::NEG_Z);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::biped::tests::{fa16_object, FA16_AT};

    /// Rows of a world matrix as `Female_Adult_16.fbx` holds it (Lcl chain, 5 decimals,
    /// docs/biped-format-notes.md §5), against the placed bone.
    fn assert_fbx(pose: &BonePose, rows: [[f64; 4]; 3]) {
        let w = pose.world().unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (col, want) in row.iter().enumerate() {
                let got = w.col(col)[r];
                let tol = if col == 3 { 5e-5 } else { 2e-5 };
                assert!((got - want).abs() <= tol, "row {r} col {col}: {got} vs FBX {want}\n{w:?}");
            }
        }
    }

    fn fa16() -> BipedSystem {
        BipedSystem::decode(&fa16_object(), FA16_AT).unwrap()
    }

    #[test]
    fn fa16_com_pelvis_and_left_thigh_match_the_fbx_bind_pose() {
        let s = fa16();
        let pose = FigurePose::new(&s);
        assert_fbx(&pose.bone(bone::COM_VERTICAL, 0), [[0., 1., 0., 0.], [0., 0., 1., 92.32903], [1., 0., 0., 0.]]);
        assert_fbx(&pose.bone(bone::PELVIS, 0), [[0., 0., 1., 0.], [1., 0., 0., 92.32903], [0., 1., 0., 0.]]);
        assert_fbx(
            &pose.bone(bone::L_LEG, 0),
            [
                [0.03652, 0.27791, -0.95991, 8.83685],
                [-0.99650, -0.06212, -0.05590, 92.32901],
                [-0.07516, 0.95860, 0.27467, -0.00001],
            ],
        );
    }

    #[test]
    fn fa16_spine_base_turns_by_minus_a1_plus_epsilon() {
        // FBX Bip01 Spine world rows (0, 0, 1), (0.99976, 0.02180, 0), (−0.02180, 0.99976, 0):
        // Lcl Rz −0.021799 = −0.0225954 + ε; its position is not placed.
        let s = fa16();
        let spine = FigurePose::new(&s).bone(bone::SPINE, 0);
        let r = spine.rotation.unwrap();
        let want = DMat3::from_cols(
            DVec3::new(0.0, 0.99976, -0.02180),
            DVec3::new(0.0, 0.02180, 0.99976),
            DVec3::new(1.0, 0.0, 0.0),
        );
        assert!((r - want).to_cols_array().iter().all(|d| d.abs() < 1e-5), "{r:?}");
        assert_eq!(spine.position, Err(Unplaced::SpineChainPosition));
        assert!((EPSILON - 7.9633e-4).abs() < 1e-8);
    }

    #[test]
    fn what_no_rule_places_says_why() {
        let s = fa16();
        let pose = FigurePose::new(&s);
        assert_eq!(pose.bone(bone::L_ARM, 1).rotation, Err(Unplaced::NotStored("arms (0x0010 / 0x006a)")));
        assert_eq!(pose.bone(bone::HEAD_NUB, 0).position, Err(Unplaced::Nub));
        assert_eq!(pose.bone(bone::XTRA + 3, 0).rotation, Err(Unplaced::Xtra));
        assert_eq!(pose.bone(bone::TAIL, 0).rotation, Err(Unplaced::NoRule(bone::TAIL, 0)));
        assert_eq!(pose.bone(bone::L_TOES, 0).rotation, Err(Unplaced::DigitRotation));
        assert!(pose.bone(bone::L_TOES, 0).position.is_ok());
        assert_eq!(pose.bone(bone::L_LEG, 3).world(), Err(Unplaced::NoRule(bone::L_LEG, 3)));
    }
}
