//! Figure-mode (bind-pose) placement of Biped bones from the decoded system object
//! ([`crate::model::biped`]): each bone's world rotation and position in the Biped's Y-up
//! frame (the frame the FBX exporter writes with `UpAxis = Y`; Max = (x, −z, y)).
//!
//! Only rules measured exact against the FBX bind pose are used: those of
//! `docs/biped-format-notes.md` §4.1 and §5.1 (three Rocketbox rigs that store different
//! values) and those its "pmcore reads" section adds (the same three, then all 20). `M(q)` is
//! the column-vector rotation of a stored (x, y, z, w), `conj q` its inverse:
//! - COM: position 0x006c[4..6], rotation `M(conj q) · Rx(−90°)` (every rig measured stores the
//!   same quaternion, −90° about Y, so this form is not discriminated); pelvis: the COM position,
//!   rotation `COM · Ry(−90°) · Rx(−90°)` (the constant local Euler (−90°, −90°, 0°)).
//! - Thighs at the COM ± the side offset along the pelvis Z axis; L `pelvis · M(conj q) ·
//!   Ry(π)`, R `pelvis · Rz(π) · M(conj q) · Rx(π)`. Calves: `thigh · T(thigh length) ·
//!   Rz(knee − π)`; feet: at the calf end, `pelvis · F · M(conj q)`.
//! - Spine and neck: internal links start at the 0x000b translation row (read (y, x, −z) in
//!   the pelvis frame; 0x000d's row likewise on the spine's end) and turn by −a1 per link
//!   (0x0067, 0x0065) *without* ε; each exported node is that link turned by +ε about the
//!   link's end (rotation `link · Rz(ε)`, pivot `end − R · (L, 0, 0)`): this is why the FBX
//!   spine translations are ≈ L·ε off the stored rows. The head sits on the neck's end with
//!   `pelvis · Rx(π) · M(conj q) · Rx(π)`. ε = π/2 − 1.57: Character Studio's right angle.
//! - Clavicles hang off the spine's internal end frame E: at E · (−y, −x, z) of the attach
//!   0x0010[8..10] on the left, E · (y, x, −z) on the right; L `E · Rx(−a) · B(b)`, R `E ·
//!   Rz(π) · Rx(−a) · B(b) · Rz(π)`. Upper arms (L `pelvis · Rx(π) · M(conj q) · Ry(π)`, R
//!   `pelvis · Ry(π) · M(conj q) · Rx(π)`), forearms `upper arm · Rz(elbow − π)`, hands
//!   `forearm · M(conj q) · Rx(−1.57)` (R: the mirrored quaternion and `Rx(1.57)`), each at
//!   the end of its parent's length.
//! - Fingers: the 0x0010 finger matrix (rows = axes) times `M(conj q)` of the finger's base
//!   quaternion (0x006a finger block [1..4]) on the hand's internal frame (`hand · Rx(1.57)`;
//!   the right side mirrored through Z and `Rx(−1.57)`), at the matrix translation; each
//!   joint bends about Z by block [39], [42] at the end of the previous link.
//! - Toes: the toe matrix of 0x000f on the foot (the same Rz(90°) on every rig measured).
//! - Xtras: a chain on its parent's frame P (the head node, or another xtra's internal link
//!   end): base `P · S · M · S` (M the 0x0022 matrix read as rows, S the (y, x, −z) swap) at
//!   `P · (y, x, −z)` of its translation row; each link turns by `Rx(a3) · Rz(−a1) · Ry(a2)`
//!   of its 0x0073 angles, and its node is turned by +ε about the link's end, as the spine's.
//!   Measured on the 20 Rocketbox rigs (560 facial xtras) and yellow's two-link ears.
//!
//! - Nubs: at the end of their father (the chain's last link), along its X by that link's
//!   stored length, turned by a constant per kind ([`nub_on_link_end`]).
//!
//! What no measured rule places is [`Unplaced`] with the reason, never a guess: toe links
//! past the first, tails (and so their nubs), ponytails, props, 4-link legs and xtras on
//! other parents than the head or an xtra (no rig measured has them).

use crate::model::biped::{bone, BipedSystem, Sides};
use glam::{DMat3, DMat4, DQuat, DVec3};
use std::f64::consts::{FRAC_PI_2, PI};

/// Character Studio's right angle is the literal 1.57: ε = π/2 − 1.57 turns up in the
/// spine, neck, hand and finger rules (measured on FA16, MA11, MC01, then all 20 rigs).
pub const EPSILON: f64 = FRAC_PI_2 - 1.57;

/// A Y-up world matrix in Max's Z-up axes: `Rx(90°) · W` (the point (x, y, z) is Max's
/// (x, −z, y)); node axes are the same on both sides. Measured on `Female_Adult_16`: its
/// skinned mesh's FBX world is `Rx(−90°) ·` pmcore's Max world, exactly.
pub fn to_max_axes(world: DMat4) -> DMat4 {
    DMat4::from_rotation_x(FRAC_PI_2) * world
}

/// Why a bone has no bind-pose rotation or position yet.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unplaced {
    /// A finger joint past the stored bends, or a toe link past the first (not measured).
    #[error("finger joints past the second and toe links past the first are not decoded")]
    DigitRotation,
    /// A nub whose father (the last link of its chain) is not placed.
    #[error("nub whose father is not placed: {0}")]
    NubFather(Box<Unplaced>),
    /// An xtra hung on a part no measured rig hangs one on (only the head and other xtras
    /// are measured), or on a chain of xtras that loops.
    #[error("xtra on bone id {0} link {1}: no measured parent rule")]
    XtraParent(i32, i32),
    /// A part the measured rigs do not have (tail, pony, props, 4-link legs …).
    #[error("bone id {0} link {1}: no measured rule for this part")]
    NoRule(i32, i32),
    /// The figure lacks the record the rule reads (no legs, no arms, short angle record).
    #[error("the figure stores no {0}")]
    NotStored(&'static str),
    /// A keyed Biped's part whose keyed rule was not measured (hands, fingers, toes, xtras,
    /// tails, ponytails: the LD35 FBX hold no helper linked to them, `eval::biped_keys`).
    #[error("keyed Biped bone id {0} link {1}: no measured keyed rule")]
    Keyed(i32, i32),
    /// A stored matrix the rule reads as a rotation is not one (every real one is
    /// orthonormal to 1.2e-6: the 0x0022 matrices of the 20 Rocketbox rigs and yellow).
    #[error("the {0} is not a rotation")]
    NotARotation(&'static str),
}

/// A bone's figure-mode world placement, each half on its own, so that a rule for one need
/// not wait for the other.
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
    /// The pelvis frame without the pelvis key's turn: what the limbs, spine and head hang from.
    body: DMat3,
    origin: DVec3,
}

impl<'s> FigurePose<'s> {
    /// Prepares the COM and pelvis frames (0x006c).
    pub fn new(system: &'s BipedSystem) -> Self {
        let com = m(conj(system.com.rotation)) * DMat3::from_rotation_x(-FRAC_PI_2);
        let body = com * DMat3::from_rotation_y(-FRAC_PI_2) * DMat3::from_rotation_x(-FRAC_PI_2);
        // The pelvis quaternion turns the pelvis node in the body frame seen through A, the
        // half turn about (1, 1, 0) (x ↔ y, z → −z): `body · A · M(conj q) · A` (identity in
        // figure mode; keyed: found among the 48 axis-turn × conjugation forms on player, the
        // only one that places B_Pelvis at its 20° and 10° keys). The limbs, spine and head
        // keep the unturned body frame (design §10c: they hang off the COM); only the hips
        // ride the pelvis.
        let pelvis = body * PELVIS_AXES * m(conj(system.pelvis)) * PELVIS_AXES;
        FigurePose { system, com, pelvis, body, origin: v3(system.com.position) }
    }

    /// Places bone (id, link) as 0x0200 / 0x0110 name it; `id = 12` (COM vertical) is the COM.
    pub fn bone(&self, id: i32, link: i32) -> BonePose {
        let side = |left: i32| if id == left { Side::Left } else { Side::Right };
        match (id, link) {
            (bone::COM_VERTICAL, 0) => BonePose::placed(self.com, self.origin),
            (bone::PELVIS, 0) => BonePose::placed(self.pelvis, self.origin),
            (bone::FOOTSTEPS, 0) => self.footsteps(),
            (bone::L_LEG | bone::R_LEG, _) => self.leg(side(bone::L_LEG), link),
            (bone::L_ARM | bone::R_ARM, _) => self.arm(side(bone::L_ARM), link),
            (bone::SPINE, _) => self.spine(link),
            (bone::NECK, 0) => self.neck(),
            (bone::HEAD, 0) => self.head(),
            (bone::L_TOES | bone::R_TOES, _) => self.digit(id, link),
            (bone::L_FINGERS | bone::R_FINGERS, _) => self.finger(side(bone::L_FINGERS), link),
            (bone::R_FINGER_NUB..=bone::HEAD_NUB, _) => self.nub(id, link),
            _ if id >= bone::XTRA_NUB => self.nub(id, link),
            _ if id >= bone::XTRA => self.xtra(id - bone::XTRA, link),
            _ => BonePose::unplaced(Unplaced::NoRule(id, link)),
        }
    }

    /// Footsteps in figure mode: below the COM on the ground the feet stand on, unrotated in
    /// Max's axes ([`FigurePose::ground`]; design §10: figure-mode footsteps rotations are not
    /// stored, the node snaps back under the COM). A figure without legs keeps design §10's
    /// ground plane, y = 0 (no rig measured lacks legs).
    fn footsteps(&self) -> BonePose {
        let ground = match self.ground() {
            Ok(y) => y,
            Err(Unplaced::NotStored(_)) => 0.0,
            Err(e) => return BonePose::unplaced(e),
        };
        // Max (x, y, ground) with an identity rotation, in the Y-up figure frame (`to_max_axes`).
        BonePose::placed(DMat3::from_rotation_x(-FRAC_PI_2), DVec3::new(self.origin.x, ground, self.origin.z))
    }

    /// The ground's height (Y-up y): each foot's pivot height minus its ankle height
    /// (0x000f[7]), averaged over both feet. Measured against the FBX `Bip0N Footsteps` of the
    /// 20 Rocketbox rigs: within 3.5e-5 cm from either foot (the two feet differ by float32
    /// noise, ±3e-5, so which one Biped reads cannot be told; the mean is within 1.7e-5), and
    /// it is what puts `Female_Child_01`'s marker 0.0075150 cm above the origin: its feet
    /// stand at 6.59230 over an ankle height of 6.58479.
    pub fn ground(&self) -> Result<f64, Unplaced> {
        let legs = self.system.legs.as_ref().ok_or(Unplaced::NotStored("legs (0x000f)"))?;
        let mut sum = 0.0;
        for side in [Side::Left, Side::Right] {
            let foot = self.leg(side, 2).position?;
            sum += foot.y - f64::from(pick(legs, side).ankle_height);
        }
        Ok(sum / 2.0)
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
            Side::Left => self.body * m(conj(pose.thigh)) * DMat3::from_rotation_y(PI),
            Side::Right => self.body * DMat3::from_rotation_z(PI) * m(conj(pose.thigh)) * DMat3::from_rotation_x(PI),
        };
        let knee = hip + thigh * DVec3::X * fig.thigh as f64;
        let calf = thigh * DMat3::from_rotation_z(pose.knee as f64 - PI);
        match link {
            0 => BonePose::placed(thigh, hip),
            1 => BonePose::placed(calf, knee),
            2 => {
                BonePose::placed(self.body * FOOT_FRAME * m(conj(pose.foot)), knee + calf * DVec3::X * fig.calf as f64)
            }
            _ => BonePose::unplaced(Unplaced::NoRule(bone::L_LEG, link)),
        }
    }

    fn arm(&self, side: Side, link: i32) -> BonePose {
        let (Some(fig), Some(pose)) = (&self.system.arms, &self.system.arm_pose) else {
            return BonePose::unplaced(Unplaced::NotStored("arms (0x0010 / 0x006a)"));
        };
        if self.system.links.of(bone::L_ARM) != 4 {
            return BonePose::unplaced(Unplaced::NoRule(bone::L_ARM, link));
        }
        let chain = match self.spine_chain() {
            Ok(c) => c,
            Err(e) => return BonePose::unplaced(e),
        };
        let (fig, pose) = (pick(fig, side), pick(pose, side));
        let [a, b] = fig.clavicle_angles.map(f64::from);
        let at = v3(fig.clavicle_attach);
        // The attach is stored mirrored per half: (−y, −x, z) on the left, (y, x, −z) on the right.
        let (clavicle, shoulder) = match side {
            Side::Left => {
                (chain.spine.end_frame * DMat3::from_rotation_x(-a) * clavicle_turn(b), DVec3::new(-at.y, -at.x, at.z))
            }
            Side::Right => (
                chain.spine.end_frame
                    * DMat3::from_rotation_z(PI)
                    * DMat3::from_rotation_x(-a)
                    * clavicle_turn(b)
                    * DMat3::from_rotation_z(PI),
                DVec3::new(at.y, at.x, -at.z),
            ),
        };
        let clavicle_at = chain.spine.end + chain.spine.end_frame * shoulder;
        let upper = match side {
            Side::Left => self.body * DMat3::from_rotation_x(PI) * m(conj(pose.upper_arm)) * DMat3::from_rotation_y(PI),
            Side::Right => {
                self.body * DMat3::from_rotation_y(PI) * m(conj(pose.upper_arm)) * DMat3::from_rotation_x(PI)
            }
        };
        let upper_at = clavicle_at + clavicle * DVec3::X * fig.clavicle as f64;
        let forearm = upper * DMat3::from_rotation_z(pose.elbow as f64 - PI);
        let forearm_at = upper_at + upper * DVec3::X * fig.upper_arm as f64;
        match link {
            0 => BonePose::placed(clavicle, clavicle_at),
            1 => BonePose::placed(upper, upper_at),
            2 => BonePose::placed(forearm, forearm_at),
            3 => {
                let hand = match side {
                    Side::Left => forearm * m(conj(pose.hand)) * DMat3::from_rotation_x(-1.57),
                    Side::Right => forearm * m(conj(mirror(pose.hand))) * DMat3::from_rotation_x(1.57),
                };
                BonePose::placed(hand, forearm_at + forearm * DVec3::X * fig.forearm as f64)
            }
            _ => BonePose::unplaced(Unplaced::NoRule(bone::L_ARM, link)),
        }
    }

    /// The spine, then the neck, as Character Studio chains them: internal link frames
    /// without ε (`pelvis · Rz(−Σa)`) whose ends are the joints, and exported nodes turned by
    /// +ε about each link's end, so a node's pivot is `end − R_node · (L, 0, 0)`.
    fn spine_chain(&self) -> Result<Chain, Unplaced> {
        let s = self.system;
        let start = self.origin + self.body * swap_xy(s.spine.matrix);
        let spine = links(self.body, start, &s.spine.lengths, &s.spine_angles, "spine angles (0x0067)")?;
        let neck_start = spine.end + spine.end_frame * swap_xy(s.neck.matrix);
        let neck = links(spine.end_frame, neck_start, &s.neck.lengths, &s.neck_angles, "neck angles (0x0065)")?;
        Ok(Chain { spine, neck })
    }

    fn spine(&self, link: i32) -> BonePose {
        self.chain_bone(link, |c| &c.spine.nodes)
    }

    fn neck(&self) -> BonePose {
        self.chain_bone(0, |c| &c.neck.nodes)
    }

    fn chain_bone(&self, link: i32, nodes: impl Fn(&Chain) -> &Vec<(DMat3, DVec3)>) -> BonePose {
        let chain = match self.spine_chain() {
            Ok(c) => c,
            Err(e) => return BonePose::unplaced(e),
        };
        match usize::try_from(link).ok().and_then(|l| nodes(&chain).get(l)) {
            Some(&(r, p)) => BonePose::placed(r, p),
            None => BonePose::unplaced(Unplaced::NotStored("chain link")),
        }
    }

    /// The head sits on the neck's last internal end; its rotation is its own quaternion.
    fn head(&self) -> BonePose {
        // `body · Rx(π) · Rz(−90°) · M(conj q) · Rz(90°) · Rx(π)`: the Rz(∓90°) pair is the
        // identity on the z-only head quaternions of every Rocketbox figure; keyed, it is the
        // only one of the 48 axis-turn × conjugation forms that places `player@idle`'s and
        // `player`'s B_Head at their keys.
        let turn = DMat3::from_rotation_x(PI) * DMat3::from_rotation_z(-FRAC_PI_2);
        let rotation = self.body * turn * m(conj(self.system.head)) * turn.transpose();
        let [y, x] = self.system.head_offset.map(f64::from);
        let position = self.spine_chain().map(|c| c.neck.end + c.neck.end_frame * DVec3::new(x, y, 0.0));
        BonePose { rotation: Ok(rotation), position }
    }

    /// Fingers: the base matrix of 0x0010 (rows = axes) times the base's pose `M(conj q)`
    /// (0x006a) on the hand's internal frame (the hand node turned back by Rx(±1.57);
    /// mirrored through Z on the right), then each joint bends by its 0x006a angle about Z
    /// at the end of the previous link.
    fn finger(&self, side: Side, link: i32) -> BonePose {
        let (Some(fig), Some(pose)) = (&self.system.arms, &self.system.arm_pose) else {
            return BonePose::unplaced(Unplaced::NotStored("arms (0x0010 / 0x006a)"));
        };
        let per_finger = self.system.links.of(bone::L_FINGERS).max(1) as usize;
        let Ok(link) = usize::try_from(link) else { return BonePose::unplaced(Unplaced::DigitRotation) };
        let (f, joint) = (link / per_finger, link % per_finger);
        let (Some(chain), Some(finger)) = (pick(fig, side).fingers.get(f), pick(pose, side).fingers.get(f)) else {
            return BonePose::unplaced(Unplaced::NotStored("finger"));
        };
        let bends = &finger.bends;
        if joint > bends.len() || joint >= chain.lengths.len() {
            return BonePose::unplaced(Unplaced::DigitRotation);
        }
        let hand = self.arm(side, 3);
        let (Ok(hr), Ok(hp)) = (hand.rotation, hand.position) else {
            return BonePose::unplaced(Unplaced::NotStored("hand"));
        };
        let t = &chain.matrix;
        let axes = rows(t) * m(conj(finger.base));
        let offset = DVec3::new(t[12] as f64, t[13] as f64, t[14] as f64);
        let (mut r, mut p) = match side {
            Side::Left => (hr * DMat3::from_rotation_x(1.57) * axes, hp + hr * DMat3::from_rotation_x(1.57) * offset),
            Side::Right => {
                let inner = hr * DMat3::from_rotation_x(-1.57);
                (inner * MIRROR_Z * axes * MIRROR_Z, hp + inner * MIRROR_Z * offset)
            }
        };
        for (length, bend) in chain.lengths.iter().zip(bends).take(joint) {
            p += r * DVec3::X * *length as f64;
            r *= DMat3::from_rotation_z(*bend as f64);
        }
        BonePose::placed(r, p)
    }

    /// Toes: the toe matrix of 0x000f on the foot (its left-half Z row is stored negated);
    /// the figure's toe quaternions in 0x0069 are identity on every rig measured.
    fn digit(&self, id: i32, link: i32) -> BonePose {
        let toe_side = match id {
            bone::L_TOES => Side::Left,
            bone::R_TOES => Side::Right,
            _ => return BonePose::unplaced(Unplaced::DigitRotation),
        };
        let per_toe = self.system.links.of(id).max(1) as i32;
        if link % per_toe != 0 {
            return BonePose::unplaced(Unplaced::DigitRotation);
        }
        let Some(fig) = self.system.legs.as_ref() else {
            return BonePose::unplaced(Unplaced::NotStored("legs (0x000f)"));
        };
        let Some(toe) = pick(fig, toe_side).toes.get((link / per_toe) as usize) else {
            return BonePose::unplaced(Unplaced::NotStored("toe"));
        };
        let foot = self.leg(toe_side, 2);
        let (Ok(r), Ok(p)) = (foot.rotation, foot.position) else {
            return BonePose::unplaced(Unplaced::NotStored("foot"));
        };
        let t = &toe.matrix;
        let z = if toe_side == Side::Left { -1.0 } else { 1.0 };
        let axes = DMat3::from_cols(rows(t).x_axis, rows(t).y_axis, z * rows(t).z_axis);
        BonePose::placed(r * axes, p + r * DVec3::new(t[12] as f64, t[13] as f64, t[14] as f64))
    }

    /// How far Max's own `f32` angles leave bone (id, link)'s world rotation undetermined
    /// beyond the usual rounding, in radians: 0 but for xtra links whose stored middle angle
    /// sits near gimbal lock (docs/biped-format-notes.md, "Xtras"), where the Euler
    /// decomposition Max wrote the angles from resolves a2 and a3 from `atan2` of two
    /// numbers of size |cos a1| that carry `f32` rounding, so each is off by up to
    /// 2⁻²⁴ / |cos a1|: [`F32_EULER_SPREAD`] / |cos a1| per link (×2 for a2 − a3, ×2 margin),
    /// summed down the chain. Measured: every xtra over the 1e-4 pairs rotation tolerance has
    /// |cos a1| of 1.4–2.1e-4 (bound 1.1–1.7e-3) and is 1.4–4.5e-4 off. At |cos a1| below
    /// 1e-6 the decomposition takes its exact-lock branch, which is well conditioned
    /// (`MBottomLip`, a = (−π/2, −π/2, −π/2), fits to 2.7e-6): 0.
    pub fn rotation_spread(&self, id: i32, link: i32) -> f64 {
        self.xtra_spread(id, link, 0)
    }

    fn xtra_spread(&self, id: i32, link: i32, depth: usize) -> f64 {
        if !(bone::XTRA..bone::XTRA_NUB).contains(&id) || depth > self.system.xtras.len() {
            return 0.0;
        }
        let Some(x) = usize::try_from(id - bone::XTRA).ok().and_then(|k| self.system.xtras.get(k)) else { return 0.0 };
        let links = usize::try_from(link).map_or(0, |l| l + 1);
        let own: f64 = x.angles.iter().take(links).map(|a| euler_spread(f64::from(a[0]))).sum();
        own + self.xtra_spread(x.parent.0, x.parent.1, depth + 1)
    }

    /// Xtra link `link` of xtra `k`: the internal link turned by +ε about its end, as the
    /// spine's nodes are (docs/biped-format-notes.md, "Xtras").
    fn xtra(&self, k: i32, link: i32) -> BonePose {
        let links = match self.xtra_links(k, 0) {
            Ok(l) => l,
            Err(e) => return BonePose::unplaced(e),
        };
        match usize::try_from(link).ok().and_then(|l| links.get(l)) {
            Some(l) => {
                let node = l.frame * DMat3::from_rotation_z(EPSILON);
                BonePose::placed(node, l.end() - node * DVec3::X * l.length)
            }
            None => BonePose::unplaced(Unplaced::NotStored("xtra link")),
        }
    }

    /// An xtra's internal links: the chain's base is its parent's frame P times `S · M · S`
    /// (M the 0x0022 matrix read as rows, S the (y, x, −z) swap), at P's point plus
    /// `P · (y, x, −z)` of the matrix translation; each link then turns by
    /// `Rx(a3) · Rz(−a1) · Ry(a2)` of its 0x0073 angles and runs its length along X.
    fn xtra_links(&self, k: i32, depth: usize) -> Result<Vec<XtraLink>, Unplaced> {
        let x = usize::try_from(k).ok().and_then(|k| self.system.xtras.get(k)).ok_or(Unplaced::NotStored("xtra"))?;
        if x.angles.len() != x.lengths.len() {
            return Err(Unplaced::NotStored("xtra angles (0x0073)"));
        }
        let stored = rows(&x.matrix);
        if !is_rotation(stored) {
            return Err(Unplaced::NotARotation("xtra base matrix (0x0022)"));
        }
        // The float32 rows, re-orthonormalised (≤ 1.2e-6 on real files) so each link is a rotation.
        let base = DMat3::from_quat(DQuat::from_mat3(&stored).normalize());
        let (parent, at) = self.xtra_anchor(x.parent, depth)?;
        let mut frame = parent * SWAP_XY * base * SWAP_XY;
        let mut start = at + parent * swap_xy(x.matrix);
        let mut out = Vec::with_capacity(x.lengths.len());
        for (length, [a1, a2, a3]) in x.lengths.iter().zip(&x.angles) {
            frame = frame
                * DMat3::from_rotation_x(*a3 as f64)
                * DMat3::from_rotation_z(-(*a1 as f64))
                * DMat3::from_rotation_y(*a2 as f64);
            let link = XtraLink { frame, start, length: *length as f64 };
            start = link.end();
            out.push(link);
        }
        Ok(out)
    }

    /// The frame and point an xtra hangs from: the head node, or the internal end of another
    /// xtra's link (at most as many levels deep as there are xtras: a loop is refused).
    fn xtra_anchor(&self, (id, link): (i32, i32), depth: usize) -> Result<(DMat3, DVec3), Unplaced> {
        if id == bone::HEAD {
            let head = self.head();
            return Ok((head.rotation?, head.position?));
        }
        if !(bone::XTRA..bone::XTRA_NUB).contains(&id) || depth >= self.system.xtras.len() {
            return Err(Unplaced::XtraParent(id, link));
        }
        let links = self.xtra_links(id - bone::XTRA, depth + 1)?;
        let l = usize::try_from(link).ok().and_then(|i| links.get(i)).ok_or(Unplaced::XtraParent(id, link))?;
        Ok((l.frame, l.end()))
    }

    /// Nub (id, link) as 0x0110 / 0x0205 name it: on the last link of its chain
    /// ([`nub_on_link_end`]), by the length the chain stores for that link.
    fn nub(&self, id: i32, link: i32) -> BonePose {
        match self.nub_father(id, link) {
            Ok((father, length, turn)) => match (father.rotation, father.position) {
                (Ok(r), Ok(p)) => {
                    let (rotation, position) = nub_on_link_end(r, p, length, turn);
                    BonePose::placed(rotation, position)
                }
                (Err(e), _) | (_, Err(e)) => BonePose::unplaced(Unplaced::NubFather(Box::new(e))),
            },
            Err(e) => BonePose::unplaced(e),
        }
    }

    /// A nub's father (its chain's last link), that link's stored length and the nub's turn.
    fn nub_father(&self, id: i32, link: i32) -> Result<(BonePose, f64, NubTurn), Unplaced> {
        let last = |lengths: &[f32]| lengths.last().map(|l| f64::from(*l)).ok_or(Unplaced::NotStored("link lengths"));
        // The last link of chain `link` of part `of` (a link count no i32 holds names none).
        let last_link = |of: i32| {
            let n = i32::try_from(self.system.links.of(of).max(1)).ok();
            n.and_then(|n| link.checked_mul(n)?.checked_add(n - 1)).ok_or(Unplaced::NotStored("nub link"))
        };
        let chain = usize::try_from(link).map_err(|_| Unplaced::NotStored("nub link"))?;
        match id {
            bone::R_FINGER_NUB | bone::L_FINGER_NUB => {
                let (side, fingers, turn) = match id {
                    bone::L_FINGER_NUB => (Side::Left, bone::L_FINGERS, NubTurn::Straight),
                    _ => (Side::Right, bone::R_FINGERS, NubTurn::HalfTurnZ),
                };
                let arms = self.system.arms.as_ref().ok_or(Unplaced::NotStored("arms (0x0010)"))?;
                let finger = pick(arms, side).fingers.get(chain).ok_or(Unplaced::NotStored("finger"))?;
                Ok((self.finger(side, last_link(fingers)?), last(&finger.lengths)?, turn))
            }
            bone::L_TOE_NUB | bone::R_TOE_NUB => {
                let (side, toes, turn) = match id {
                    bone::L_TOE_NUB => (Side::Left, bone::L_TOES, NubTurn::HalfTurnZ),
                    _ => (Side::Right, bone::R_TOES, NubTurn::Straight),
                };
                let legs = self.system.legs.as_ref().ok_or(Unplaced::NotStored("legs (0x000f)"))?;
                let toe = pick(legs, side).toes.get(chain).ok_or(Unplaced::NotStored("toe"))?;
                Ok((self.digit(toes, last_link(toes)?), last(&toe.lengths)?, turn))
            }
            bone::HEAD_NUB => {
                let length = self.system.head_length.ok_or(Unplaced::NotStored("head length (0x000c)"))?;
                Ok((self.head(), f64::from(length), NubTurn::Straight))
            }
            _ if id >= bone::XTRA_NUB => {
                let k = id - bone::XTRA_NUB;
                let x = usize::try_from(k).ok().and_then(|k| self.system.xtras.get(k));
                let x = x.ok_or(Unplaced::NotStored("xtra"))?;
                let end = x.lengths.len().checked_sub(1).ok_or(Unplaced::NotStored("xtra links"))?;
                let end = i32::try_from(end).map_err(|_| Unplaced::NotStored("xtra links"))?;
                Ok((self.xtra(k, end), last(&x.lengths)?, NubTurn::ChainEnd))
            }
            // The tail nub (26) hangs on the tail's last link, which no measured rule places yet.
            bone::TAIL_NUB => {
                let last = i32::try_from(self.system.links.of(bone::TAIL)).unwrap_or(1).saturating_sub(1);
                Err(Unplaced::NubFather(Box::new(Unplaced::NoRule(bone::TAIL, last))))
            }
            _ => Err(Unplaced::NoRule(id, link)),
        }
    }
}

/// How a nub turns from its father's node: the constant local rotations of the real files.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NubTurn {
    /// None: left finger nubs, right toe nubs, the head nub.
    Straight,
    /// 180° about Z: right finger nubs, left toe nubs.
    HalfTurnZ,
    /// `Rz(1.57) · Rx(π)`: the nubs of chains whose nodes turn by ε (xtras, tails, ponytails);
    /// on the internal link frame that is `Rz(π/2) · Rx(π)`.
    ChainEnd,
}

impl NubTurn {
    /// The nub's rotation relative to its father's node.
    pub fn local(self) -> DMat3 {
        match self {
            NubTurn::Straight => DMat3::IDENTITY,
            NubTurn::HalfTurnZ => DMat3::from_rotation_z(PI),
            NubTurn::ChainEnd => DMat3::from_rotation_z(1.57) * DMat3::from_rotation_x(PI),
        }
    }
}

/// A Biped nub sits at the end of its father, the last link of its chain: at the father's
/// pivot plus `length` along the father node's X, where `length` is the link length the
/// figure stores for that last link (the finger's last 0x0010 length, the toe's last 0x000f
/// length, 0x000c for the head, the xtra's last 0x0022 length — each equal to the father
/// node's object-offset scale `0x096c` x on all 24 rigs of `../shared/corpus/biped`), turned
/// from the father's node by [`NubTurn`]. Evidence (docs/biped-format-notes.md, "Nubs"):
///
/// - `biped/tae8838__LD35/Yellow@Spawn.FBX` (from `wild/tae8838__yellow@spawn.max`):
///   `Bip01 Xtra01Nub` / `Xtra01OppNub` have `Lcl Translation` (24.87048, 0, −6e-5) /
///   (24.87036, −6e-5, −6e-5) under `Bip01 R/L Ear1` (stored length 24.870491) and
///   `Lcl Rotation` (180°, −0.00016°, 89.95438°) = `Rz(1.57) · Rx(π)`; `Bip01 TailNub`
///   (38.38574, 0, 0) under `Tail2` (stored 38.385914), the same rotation;
///   `Red@Spawn.FBX`: `TailNub` (28.34839, 0, 0) under `Tail` (stored 28.348467), the same.
/// - The Ryzom `.skel` of `../shared/corpus/nel/skel` (NeL's exporter, Max 3 era): all 90 nubs
///   (29 files) have DefaultPos (L, ≤ 3e-7, ≤ 3e-7) on their father, DefaultRotQuat the identity
///   (left finger, right toe, head nubs: `Dummy02`, `Dummy03`, `Dummy05` of
///   `fy_hom_skel_mid_fat.skel`), 180° about Z (right finger, left toe: `Dummy01`,
///   `Dummy04`) or (0.7073883, 0.7068252, 0, 0) = `Rz(1.57) · Rx(π)` (ponytail and tail nubs:
///   `Dummy06`, `tr_mo_kitin_queen.skel` `Bip01 TailNub`).
///
/// The Rocketbox FBX hold no nub, so on those rigs the rule is checked through these files
/// only; their finger/toe/head node conventions are the Ryzom files' (toes `Rz(90°)` on the
/// foot on both sides, finger bases mirrored, joints about Z).
pub fn nub_on_link_end(father: DMat3, pivot: DVec3, length: f64, turn: NubTurn) -> (DMat3, DVec3) {
    (father * turn.local(), pivot + father * DVec3::X * length)
}

/// Four half-ulps of `f32` at 1 (2⁻²²): the spread of an Euler angle pair an `f32`
/// decomposition resolves near gimbal lock, times |cos a1| ([`FigurePose::rotation_spread`]).
pub const F32_EULER_SPREAD: f64 = 1.0 / 4_194_304.0;

/// [`F32_EULER_SPREAD`] / |cos a1|, or 0 off the lock and at the exact lock.
fn euler_spread(a1: f64) -> f64 {
    let c = a1.cos().abs();
    if c < 1e-6 || !c.is_finite() {
        return 0.0;
    }
    F32_EULER_SPREAD / c
}

/// One internal xtra link: its frame (no ε), start and length.
struct XtraLink {
    frame: DMat3,
    start: DVec3,
    length: f64,
}

impl XtraLink {
    fn end(&self) -> DVec3 {
        self.start + self.frame * DVec3::X * self.length
    }
}

/// The spine and the neck placed.
struct Chain {
    spine: Links,
    neck: Links,
}

/// One run of links: its exported nodes (rotation, pivot), its last internal end and frame.
struct Links {
    nodes: Vec<(DMat3, DVec3)>,
    end: DVec3,
    end_frame: DMat3,
}

/// Walks links from `start` in `frame`: each turns by [`link_turn`], runs its length along X.
fn links(
    frame: DMat3,
    start: DVec3,
    lengths: &[f32],
    angles: &[[f32; 3]],
    what: &'static str,
) -> Result<Links, Unplaced> {
    if lengths.len() != angles.len() {
        return Err(Unplaced::NotStored(what));
    }
    let (mut end, mut frame) = (start, frame);
    let mut nodes = Vec::with_capacity(lengths.len());
    for (l, a) in lengths.iter().zip(angles) {
        frame *= link_turn(*a);
        let run = DVec3::X * *l as f64;
        end += frame * run;
        let node = frame * DMat3::from_rotation_z(EPSILON);
        nodes.push((node, end - node * run));
    }
    Ok(Links { nodes, end, end_frame: frame })
}

/// A chain link's turn from its stored angles (a1, a2, a3): `Rx(a3) · Rz(−a1) · Ry(a2)`, the
/// xtras' rule (design §10c: spine, tail, pony and neck links alike). The Rocketbox figures
/// store a2 = a3 = 0 on the spine; LD35 keys turn a3 (`player@idle`: 0.1745 at tick 0).
fn link_turn([a1, a2, a3]: [f32; 3]) -> DMat3 {
    DMat3::from_rotation_x(f64::from(a3))
        * DMat3::from_rotation_z(-f64::from(a1))
        * DMat3::from_rotation_y(f64::from(a2))
}

/// A chain struct's translation row as stored (x, y, z) → (y, x, −z) in the parent frame.
fn swap_xy(m: [f32; 16]) -> DVec3 {
    DVec3::new(m[13] as f64, m[12] as f64, -(m[14] as f64))
}

/// B(b) of the clavicle rule: 180° about (cos(π/4 + b/2), 0, sin(π/4 + b/2)).
fn clavicle_turn(b: f64) -> DMat3 {
    let axis = DVec3::new((PI / 4.0 + b / 2.0).cos(), 0.0, (PI / 4.0 + b / 2.0).sin());
    DMat3::from_axis_angle(axis, PI)
}

/// A stored 4×4's rotation, its rows read as the images of X, Y, Z.
fn rows(t: &[f32; 16]) -> DMat3 {
    let row = |k: usize| DVec3::new(t[4 * k] as f64, t[4 * k + 1] as f64, t[4 * k + 2] as f64);
    DMat3::from_cols(row(0), row(1), row(2))
}

/// Orthonormal and right-handed within 1e-4 (float32 storage of a real rotation: 1.2e-6).
fn is_rotation(m: DMat3) -> bool {
    let off = (m.transpose() * m - DMat3::IDENTITY).to_cols_array().iter().fold(0.0f64, |a, v| a.max(v.abs()));
    off <= 1e-4 && m.determinant() > 0.0
}

/// The (y, x, −z) swap between the chain structs' stored axes and the link frames.
const SWAP_XY: DMat3 = DMat3::from_cols(DVec3::Y, DVec3::X, DVec3::NEG_Z);

/// The mirror through the Z plane (right-side records are the left's, mirrored).
const MIRROR_Z: DMat3 = DMat3::from_cols(DVec3::X, DVec3::Y, DVec3::NEG_Z);

/// The half turn about (1, 1, 0): the pelvis key's axes in the body frame (x ↔ y, z → −z).
const PELVIS_AXES: DMat3 = DMat3::from_cols(DVec3::Y, DVec3::X, DVec3::NEG_Z);

/// The foot frame F of the foot rule: `pelvis · F · M(conj q)` on both sides.
const FOOT_FRAME: DMat3 = DMat3::from_cols(DVec3::Y, DVec3::X, DVec3::NEG_Z);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::biped::chunk_ids as c;
    use crate::model::biped::tests::{fa16_object, fa16_with_three_xtras, replaced, replaced_in, FA16_AT};

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
    fn fa16_spine_nodes_turn_by_epsilon_about_their_link_ends() {
        // FBX Bip01 Spine world rows (0, 0, 1 | 0.00002), (0.99976, 0.02180, 0 | 104.35529),
        // (−0.02180, 0.99976, 0 | −0.16053): Lcl Rz −0.021799 = −0.0225954 + ε, and a pivot
        // L·ε ≈ 9.9e-3 off the stored row (−0.150675, 12.026491). Spine1 and Spine2 pivots
        // (FBX Lcl chain, `scripts/research/fbx_bind.py`): (0.00003, 116.76039, −0.44065),
        // (0.00005, 128.88059, −1.76309).
        let s = fa16();
        let pose = FigurePose::new(&s);
        assert_fbx(
            &pose.bone(bone::SPINE, 0),
            [[0., 0., 1., 0.00002], [0.99976, 0.02180, 0., 104.35529], [-0.02180, 0.99976, 0., -0.16053]],
        );
        for (link, want) in [(1, [0.00003, 116.76039, -0.44065]), (2, [0.00005, 128.88059, -1.76309])] {
            let p = pose.bone(bone::SPINE, link).position.unwrap();
            assert!((p - DVec3::from_array(want)).abs().max_element() < 1e-4, "Spine{link}: {p:?} vs FBX {want:?}");
        }
        assert!((EPSILON - 7.9633e-4).abs() < 1e-8);
    }

    #[test]
    fn fa16_footsteps_stand_on_the_ground_below_the_com_unrotated_in_max_axes() {
        // FBX `Bip01 Footsteps` world: Rx(−90°) (the Y-up conversion) at (0, 0, −5.7e-15):
        // Max's identity at the origin, the COM standing at (0, 0, 92.32903) above it. The
        // ground is the feet's height less the ankle height 9.96947: 0 to float32 noise.
        let s = fa16();
        let pose = FigurePose::new(&s);
        let max = to_max_axes(pose.bone(bone::FOOTSTEPS, 0).world().unwrap());
        assert!(max.abs_diff_eq(DMat4::IDENTITY, 5e-5), "{max:?}");
        assert!(pose.ground().unwrap().abs() < 5e-5);
        // Feet raised by 0.0075 (a taller ankle stored 0.0075 shorter) lift the marker with them.
        let mut lifted = fa16();
        let legs = lifted.legs.as_mut().unwrap();
        for half in [&mut legs.left, &mut legs.right] {
            half.ankle_height -= 0.0075;
        }
        let ground = FigurePose::new(&lifted).ground().unwrap();
        assert!((ground - 0.0075).abs() < 5e-5, "{ground}");
        // Without legs: design §10's ground plane.
        let mut legless = fa16();
        legless.legs = None;
        let at = FigurePose::new(&legless).bone(bone::FOOTSTEPS, 0).position.unwrap();
        assert_eq!(at.y, 0.0);
    }

    #[test]
    fn the_rotation_spread_is_zero_off_the_lock_and_grows_near_it() {
        // Hand-worked: |cos a1| = 1.4e-4 → 2⁻²² / 1.4e-4 = 1.70e-3; cos 0 = 1 → 2.4e-7; the
        // exact lock (cos below 1e-6) takes the well-conditioned branch: 0.
        assert!((euler_spread(1.5 * PI + 1.4e-4) - 1.7030e-3).abs() < 1e-6);
        assert!((euler_spread(0.0) - F32_EULER_SPREAD).abs() < 1e-15);
        assert_eq!(euler_spread(FRAC_PI_2), 0.0);
        let s = fa16();
        assert_eq!(FigurePose::new(&s).rotation_spread(bone::L_LEG, 0), 0.0);
    }

    #[test]
    fn what_no_rule_places_says_why() {
        let s = fa16();
        let pose = FigurePose::new(&s);
        assert_eq!(pose.bone(bone::L_ARM, 1).rotation, Err(Unplaced::NotStored("arms (0x0010 / 0x006a)")));
        let tailless = Unplaced::NubFather(Box::new(Unplaced::NoRule(bone::TAIL, -1)));
        assert_eq!(pose.bone(bone::TAIL_NUB, 0).position, Err(tailless));
        let no_arms = Unplaced::NotStored("arms (0x0010)");
        assert_eq!(pose.bone(bone::L_FINGER_NUB, 0).position, Err(no_arms));
        assert_eq!(pose.bone(bone::XTRA + 3, 0).rotation, Err(Unplaced::NotStored("xtra")));
        assert_eq!(pose.bone(bone::TAIL, 0).rotation, Err(Unplaced::NoRule(bone::TAIL, 0)));
        assert_eq!(pose.bone(bone::L_FINGERS, 0).rotation, Err(Unplaced::NotStored("arms (0x0010 / 0x006a)")));
        assert!(pose.bone(bone::L_TOES, 0).world().is_ok());
        assert_eq!(pose.bone(bone::L_LEG, 3).world(), Err(Unplaced::NoRule(bone::L_LEG, 3)));
    }

    /// Rotation rows of `Female_Adult_16.fbx` (Lcl chain, 6 decimals) and the position
    /// relative to `Bip01 Head` (the head itself is placed 1.3e-4 cm off the FBX: see the notes).
    fn assert_fbx_under_head(pose: &FigurePose<'_>, id: i32, rows: [[f64; 3]; 3], from_head: [f64; 3]) {
        let (b, head) = (pose.bone(id, 0), pose.bone(bone::HEAD, 0));
        let r = b.rotation.unwrap();
        for (i, row) in rows.iter().enumerate() {
            for (j, want) in row.iter().enumerate() {
                assert!((r.col(j)[i] - want).abs() < 1e-5, "{id}: row {i} col {j}: {r:?}");
            }
        }
        let d = b.position.unwrap() - head.position.unwrap();
        assert!((d - DVec3::from_array(from_head)).abs().max_element() < 5e-5, "{id}: {d:?} vs FBX {from_head:?}");
    }

    #[test]
    fn fa16_xtras_hang_from_the_head_and_from_each_other_as_the_fbx_places_them() {
        // Xtra 0 MJaw (a = 4.544609, 0.021884, 0.029640) and 2 LEye (−1.401331, 1.8e-5,
        // 1.7e-5) hang on the head (identity 0x0022 rotation); xtra 1 MTongue hangs on
        // MJaw's end with 0x0022's rotation (≈ −110° about Z). FBX numbers from
        // `scripts/research/fbx_bind.py`.
        let s = BipedSystem::decode(&fa16_with_three_xtras(), FA16_AT).unwrap();
        let pose = FigurePose::new(&s);
        let mjaw =
            [[0.007337, -0.004959, 0.999961], [-0.321337, -0.946962, -0.002339], [0.946937, -0.321307, -0.008541]];
        assert_fbx_under_head(&pose, bone::XTRA, mjaw, [7e-6, 2.83383, 1.618991]);
        let tongue =
            [[-0.018737, -0.000838, 0.999824], [0.026168, -0.999658, -0.000348], [0.999482, 0.026157, 0.018753]];
        assert_fbx_under_head(&pose, bone::XTRA + 1, tongue, [0.12195, 1.987138, 8.988176]);
        let eye = [[0.0, -1e-6, 1.0], [0.010059, -0.99995, -1e-6], [0.99995, 0.010059, 0.0]];
        assert_fbx_under_head(&pose, bone::XTRA + 2, eye, [3.000034, 8.969756, 8.55117]);
        assert_eq!(pose.bone(bone::XTRA + 3, 0).rotation, Err(Unplaced::NotStored("xtra")));
        assert_eq!(pose.bone(bone::XTRA, 1).rotation, Err(Unplaced::NotStored("xtra link")));
        // MJaw's nub: at MJaw's end, 14.992931 along the node's X, turned by Rz(1.57) · Rx(π).
        let (jaw, nub) = (pose.bone(bone::XTRA, 0), pose.bone(bone::XTRA_NUB, 0));
        let (r, p) = (jaw.rotation.unwrap(), jaw.position.unwrap());
        let want = r * DMat3::from_rotation_z(1.57) * DMat3::from_rotation_x(PI);
        assert!((nub.rotation.unwrap() - want).to_cols_array().iter().all(|v| v.abs() < 1e-12));
        assert!((nub.position.unwrap() - (p + r * DVec3::X * 14.992_931)).length() < 1e-5);
        assert!(pose.bone(bone::XTRA_NUB + 1, 0).world().is_ok(), "MTongue's nub, on MJaw's chain");
        assert_eq!(pose.bone(bone::XTRA_NUB + 3, 0).rotation, Err(Unplaced::NotStored("xtra")));
    }

    #[test]
    fn fa16_head_nub_sits_the_head_length_along_the_head_unturned() {
        // 0x000c = 19.274731 (the head node's 0x096c x); the Ryzom head nubs (`Dummy05`) are
        // (L, 0, 0) with the identity rotation.
        let s = fa16();
        let pose = FigurePose::new(&s);
        let (head, nub) = (pose.bone(bone::HEAD, 0), pose.bone(bone::HEAD_NUB, 0));
        let (r, p) = (head.rotation.unwrap(), head.position.unwrap());
        assert_eq!(nub.rotation, Ok(r));
        assert!((nub.position.unwrap() - (p + r * DVec3::X * 19.274_731)).length() < 1e-5);
        let mut headless = fa16();
        headless.head_length = None;
        let why = Unplaced::NotStored("head length (0x000c)");
        assert_eq!(FigurePose::new(&headless).bone(bone::HEAD_NUB, 0).position, Err(why));
    }

    #[test]
    fn nub_turns_are_the_ryzom_skel_rotations() {
        // DefaultRotQuat of `fy_hom_skel_mid_fat.skel` (NeL writes −q): `Dummy06` (ponytail
        // nub) (−0.7073883, −0.70682514, −9.7e-7, 9.8e-7), `Dummy01` (right finger nub)
        // (2.3e-9, 6.5e-9, −1, 7.6e-9), `Dummy02` (left finger nub) (…, −1).
        let q = |t: NubTurn| DQuat::from_mat3(&t.local());
        let chain_end = DQuat::from_xyzw(0.707_388_3, 0.706_825_14, 0.0, 0.0).normalize();
        assert!(q(NubTurn::ChainEnd).dot(chain_end).abs() > 1.0 - 1e-12);
        assert!(q(NubTurn::HalfTurnZ).dot(DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0)).abs() > 1.0 - 1e-12);
        assert_eq!(NubTurn::Straight.local(), DMat3::IDENTITY);
        // On the internal link frame of an ε-turned chain node, ChainEnd is Rz(π/2) · Rx(π).
        let on_link = DMat3::from_rotation_z(EPSILON) * NubTurn::ChainEnd.local();
        let want = DMat3::from_rotation_z(FRAC_PI_2) * DMat3::from_rotation_x(PI);
        assert!((on_link - want).to_cols_array().iter().all(|v| v.abs() < 1e-12));
    }

    fn le(dwords: &[u32]) -> Vec<u8> {
        dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
    }

    /// A hand-worked xtra: one link of length 2 on `parent`, 0x0022 identity with translation
    /// (1, 2, 3), angles (a1, a2, a3) = (−π/2, 0, 0).
    fn one_xtra(parent: i32) -> BipedSystem {
        let f = |v: f32| v.to_bits();
        let mut m = [0.0f32; 16];
        (m[0], m[5], m[10], m[15], m[12], m[13], m[14]) = (1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 3.0);
        let mut defs = le(&[1, 3, f(2.0)]);
        defs.extend(le(&m.map(f)));
        defs.extend(le(&[parent as u32, 0, 0, 1, 1])); // parent, 0, kind, name length 1
        defs.extend("X".encode_utf16().flat_map(|u| u.to_le_bytes()));
        defs.extend(le(&[0, 0])); // no mirror
        let angles = le(&[3, f(-FRAC_PI_2 as f32), 0, 0, 0, 0, 0, 0]);
        let object = replaced_in(fa16_with_three_xtras(), c::XTRA_DEFS, defs);
        let object = replaced_in(replaced_in(object, c::XTRA_ANGLES, angles), c::XTRA_NODES, le(&[1, 1, 7, 8]));
        BipedSystem::decode(&object, FA16_AT).unwrap()
    }

    #[test]
    fn a_hand_worked_xtra_starts_at_the_swapped_row_and_turns_by_epsilon_at_its_end() {
        let s = one_xtra(bone::HEAD);
        let pose = FigurePose::new(&s);
        let head = pose.bone(bone::HEAD, 0);
        let (h, hp) = (head.rotation.unwrap(), head.position.unwrap());
        // Start: head + H · (y, x, −z) = H · (2, 1, −3). Link: H · Rz(π/2) runs 2 along the
        // head's Y. Node: H · Rz(π/2 + ε), pivot at the end minus 2 along the node's X.
        let start = hp + h * DVec3::new(2.0, 1.0, -3.0);
        let end = start + h * DVec3::new(0.0, 2.0, 0.0);
        let node = h * DMat3::from_rotation_z(FRAC_PI_2 + EPSILON);
        let placed = pose.bone(bone::XTRA, 0).world().unwrap();
        assert!((DMat3::from_mat4(placed) - node).to_cols_array().iter().all(|v| v.abs() < 1e-7), "{placed:?}");
        let want = end - node * DVec3::new(2.0, 0.0, 0.0);
        assert!((placed.w_axis.truncate() - want).length() < 1e-6, "{placed:?} vs {want:?}");
        // On a part no rig measured hangs xtras (the pelvis), or on itself: refused, named.
        let on_pelvis = one_xtra(bone::PELVIS);
        assert_eq!(FigurePose::new(&on_pelvis).bone(bone::XTRA, 0).position, Err(Unplaced::XtraParent(11, 0)));
        let on_itself = one_xtra(bone::XTRA);
        assert_eq!(FigurePose::new(&on_itself).bone(bone::XTRA, 0).position, Err(Unplaced::XtraParent(200, 0)));
        // A base matrix that is no rotation (a scale of 2 in the first row) is refused.
        let mut scaled = one_xtra(bone::HEAD);
        scaled.xtras[0].matrix[0] = 2.0;
        let why = Unplaced::NotARotation("xtra base matrix (0x0022)");
        assert_eq!(FigurePose::new(&scaled).bone(bone::XTRA, 0).rotation, Err(why));
    }

    proptest::proptest! {
        #[test]
        fn any_xtra_record_places_or_refuses_every_xtra(id in proptest::sample::select(vec![
            c::XTRA_DEFS, c::XTRA_ANGLES, c::XTRA_NODES,
        ]), floats in proptest::collection::vec(proptest::prelude::any::<f32>(), 0..120)) {
            let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
            let Ok(s) = BipedSystem::decode(&replaced_in(fa16_with_three_xtras(), id, bytes), FA16_AT) else {
                return Ok(());
            };
            let pose = FigurePose::new(&s);
            for k in 0..5 {
                for link in -1..3 {
                    // Whatever the floats, a placed xtra's rotation is a rotation (or NaN).
                    if let Ok(r) = pose.bone(bone::XTRA + k, link).rotation {
                        let cols = r.to_cols_array();
                        let finite = cols.iter().all(|v| v.is_finite());
                        proptest::prop_assert!(!finite || cols.iter().all(|v| v.abs() <= 1.0 + 1e-6), "{r:?}");
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn any_figure_record_places_or_refuses_every_bone(id in proptest::sample::select(vec![
            c::LINKS, c::SPINE, c::NECK, c::LEGS, c::COM, c::HEAD, c::NECK_ANGLES, c::SPINE_ANGLES, c::LEG_POSE,
        ]), floats in proptest::collection::vec(proptest::prelude::any::<f32>(), 0..260)) {
            // Never a panic, whatever floats (NaN, infinities, huge counts) one record holds.
            let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
            let Ok(s) = BipedSystem::decode(&replaced(id, bytes), FA16_AT) else { return Ok(()) };
            let pose = FigurePose::new(&s);
            for bone in (0..30).chain([200, 400]) {
                for link in -1..20 {
                    let _ = pose.bone(bone, link).world();
                }
            }
        }
    }
}
