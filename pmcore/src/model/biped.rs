//! Read-only decoder of a Character Studio Biped: the Biped system object (Class ID 0x9155,
//! superclass 0x60; one per scene, a flat list of leaf chunks) and its BipSlave controllers
//! (0x9154, chunk 0x0200 = bone id, link index) — the figure-mode structure and pose the
//! bind-pose evaluator (`eval::biped`) places bones from.
//!
//! Layout measured on the Rocketbox rigs and the LD35 files against their FBX exports
//! (`docs/biped-format-notes.md`, which names the file and chunk of every fact). What this
//! reads, and why:
//! - **Which copy.** Copy Collections repeat the figure/keytrack block; the live one is
//!   after the *last* 0x0108, header chunks (0x0100, 0x0110, …) occur once before it. Each
//!   id is looked up in the live block first, then in the whole object.
//! - **Sides.** Limb records (0x000f, 0x0010, 0x0069, 0x006a) are two equal halves, the
//!   **right side first** (0x0069[18] = R Foot world x on FA16), although the bone ids put
//!   the left side first (0 = L arm, 4 = L leg).
//! - **Axes.** Values are in the Biped's internal Y-up frame, in scene units: the frame the
//!   FBX exporter writes with `UpAxis = Y` (Max = (x, −z, y) of the stored).
//!
//! Every read is bounded by its chunk: a short record is a [`BipedError`] naming the stream
//! path, the chunk and the byte offset, never a panic.

use super::scene_index::{SceneIndex, SceneObject};
use super::utf16;
use crate::chunk::{Chunk, ChunkPath};
use crate::classes::ids;

/// Chunk ids of the 0x9155 object this decoder reads.
pub mod chunk_ids {
    /// Links per bone id (26 dwords: 22 counts, fingers, toes, height, 0).
    pub const LINKS: u16 = 0x0100;
    /// The (id, link) → node storage index table.
    pub const NODE_TABLE: u16 = 0x0110;
    /// Xtra chains: count, then per xtra (links, link nodes…, nub node).
    pub const XTRA_NODES: u16 = 0x0205;
    /// Xtra definitions (lengths, matrix, parent, name, mirror).
    pub const XTRA_DEFS: u16 = 0x0022;
    /// Xtra figure angles: per xtra 3 × links, the angles, 4 zero floats (0x0266: the
    /// current pose, measured on yellow).
    pub const XTRA_ANGLES: u16 = 0x0073;
    /// Spine chain struct.
    pub const SPINE: u16 = 0x000b;
    /// Neck chain struct (the spec's "pelvis struct"; it is the neck, measured).
    pub const NECK: u16 = 0x000d;
    /// Head link length (one float): the head node's `0x096c` x on every corpus rig, the
    /// head nub's offset (docs/biped-format-notes.md "Nubs").
    pub const HEAD_LENGTH: u16 = 0x000c;
    /// Legs (two halves, right first).
    pub const LEGS: u16 = 0x000f;
    /// Arms (two halves, right first).
    pub const ARMS: u16 = 0x0010;
    /// Figure centre-of-mass record (position, orientation).
    pub const COM: u16 = 0x006c;
    /// Head record (orientation quaternion first).
    pub const HEAD: u16 = 0x0064;
    /// Neck angles.
    pub const NECK_ANGLES: u16 = 0x0065;
    /// Spine angles.
    pub const SPINE_ANGLES: u16 = 0x0067;
    /// Pelvis record: a quaternion, identity in figure mode.
    pub const PELVIS: u16 = 0x0066;
    /// Leg pose (two halves of 120 floats, right first).
    pub const LEG_POSE: u16 = 0x0069;
    /// Arm pose (two halves of 290 floats, right first).
    pub const ARM_POSE: u16 = 0x006a;
    /// Body type (0 Rocketbox, 3 LD35; equal to every Biped Object's 0x2603).
    pub const BODY_TYPE: u16 = 0x0115;
    /// Start of the live block (Copy Collections store earlier copies before it).
    pub const LIVE_MARK: u16 = 0x0108;
    /// BipSlave Control: (bone id, link index).
    pub const SLAVE_BONE: u16 = 0x0200;
    /// First keytrack time chunk (0x012c/0x012d: data/time of the first track).
    pub const KEYTRACKS_FIRST_TIME: u16 = 0x012d;
    /// Last keytrack time chunk (the tail's, 0x0142/0x0143).
    pub const KEYTRACKS_LAST_TIME: u16 = 0x0143;
}
use chunk_ids as c;

/// Bone ids of chunk 0x0200 and the 0x0110 table (the spec's 0-based table, extended).
pub mod bone {
    /// Left arm: clavicle, upper arm, forearm, hand.
    pub const L_ARM: i32 = 0;
    /// Right arm.
    pub const R_ARM: i32 = 1;
    /// Left fingers (link = finger × links + joint).
    pub const L_FINGERS: i32 = 2;
    /// Right fingers.
    pub const R_FINGERS: i32 = 3;
    /// Left leg: thigh, calf, foot (horse link between on 4-link legs).
    pub const L_LEG: i32 = 4;
    /// Right leg.
    pub const R_LEG: i32 = 5;
    /// Left toes (link = toe × links + joint).
    pub const L_TOES: i32 = 6;
    /// Right toes.
    pub const R_TOES: i32 = 7;
    /// Spine links.
    pub const SPINE: i32 = 8;
    /// Tail links.
    pub const TAIL: i32 = 9;
    /// Head.
    pub const HEAD: i32 = 10;
    /// Pelvis.
    pub const PELVIS: i32 = 11;
    /// COM vertical track (the COM node; 13 horizontal and 14 turn name it too).
    pub const COM_VERTICAL: i32 = 12;
    /// Footsteps.
    pub const FOOTSTEPS: i32 = 15;
    /// Neck links.
    pub const NECK: i32 = 16;
    /// Number of ids with a link count in 0x0100.
    pub const LINKED_IDS: usize = 22;
    /// Right finger nubs (link = finger).
    pub const R_FINGER_NUB: i32 = 22;
    /// Left finger nubs.
    pub const L_FINGER_NUB: i32 = 23;
    /// Left toe nubs (link = toe).
    pub const L_TOE_NUB: i32 = 24;
    /// Right toe nubs.
    pub const R_TOE_NUB: i32 = 25;
    /// Tail nub.
    pub const TAIL_NUB: i32 = 26;
    /// Head nub.
    pub const HEAD_NUB: i32 = 27;
    /// First xtra id: xtra k is `XTRA + k` (0x0022 / 0x0205 order).
    pub const XTRA: i32 = 200;
    /// First xtra nub id: `XTRA_NUB + k`.
    pub const XTRA_NUB: i32 = 400;
}

/// Why a Biped could not be read.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BipedError {
    /// A record is shorter than the field read needs.
    #[error("{path} (chunk 0x{chunk:04x}{}): byte {offset} needs {needed} byte(s), the payload holds {len}", at_stream(*header))]
    Truncated {
        /// Locator of the chunk.
        path: ChunkPath,
        /// Offset of the chunk's header in the Scene stream, when it was read from one.
        header: Option<u64>,
        /// Chunk id.
        chunk: u16,
        /// Byte offset of the field in the payload.
        offset: usize,
        /// Bytes the field needs.
        needed: usize,
        /// Payload length.
        len: usize,
    },
    /// A chunk the figure needs is absent (the COM record 0x006c, the link table 0x0100 …).
    #[error("{path}: no chunk 0x{chunk:04x} ({what})")]
    Missing {
        /// Locator of the Biped object.
        path: ChunkPath,
        /// The chunk id looked for.
        chunk: u16,
        /// What it holds.
        what: &'static str,
    },
    /// A count or field holds a value the layout cannot have.
    #[error("{path} (chunk 0x{chunk:04x}{}): byte {offset}: {what}", at_stream(*header))]
    Invalid {
        /// Locator of the chunk.
        path: ChunkPath,
        /// Offset of the chunk's header in the Scene stream, when it was read from one.
        header: Option<u64>,
        /// Chunk id.
        chunk: u16,
        /// Byte offset of the field.
        offset: usize,
        /// What is wrong.
        what: String,
    },
    /// No Scene object of class 0x9155.
    #[error("Scene holds no Biped system object (0x9155)")]
    NoSystem,
    /// A BipSlave's (bone id, link) names no slot of the node table, or a slot of another node.
    #[error("{path}: BipSlave ({bone}, {link}) of node {node} {why}")]
    SlaveSlot {
        /// Locator of the controller's 0x0200.
        path: ChunkPath,
        /// Bone id.
        bone: i32,
        /// Link index.
        link: i32,
        /// The node's storage index.
        node: usize,
        /// "names no slot" or which node the slot holds.
        why: String,
    },
}

fn at_stream(header: Option<u64>) -> String {
    header.map(|h| format!(", header at Scene byte {h}")).unwrap_or_default()
}

/// A bounded little-endian reader over one chunk's payload, locating its errors.
struct Record<'a> {
    bytes: &'a [u8],
    path: ChunkPath,
    chunk: u16,
    header: Option<u64>,
}

impl Record<'_> {
    fn dword(&self, index: usize) -> Result<[u8; 4], BipedError> {
        let offset = index.saturating_mul(4);
        self.bytes.get(offset..offset.saturating_add(4)).and_then(|b| b.try_into().ok()).ok_or(BipedError::Truncated {
            path: self.path.clone(),
            header: self.header,
            chunk: self.chunk,
            offset,
            needed: 4,
            len: self.bytes.len(),
        })
    }

    fn f(&self, index: usize) -> Result<f32, BipedError> {
        self.dword(index).map(f32::from_le_bytes)
    }

    fn i(&self, index: usize) -> Result<i32, BipedError> {
        self.dword(index).map(i32::from_le_bytes)
    }

    fn floats<const N: usize>(&self, start: usize) -> Result<[f32; N], BipedError> {
        let mut out = [0.0; N];
        for (k, v) in out.iter_mut().enumerate() {
            *v = self.f(start + k)?;
        }
        Ok(out)
    }

    fn dwords(&self) -> usize {
        self.bytes.len() / 4
    }

    fn invalid(&self, index: usize, what: impl Into<String>) -> BipedError {
        BipedError::Invalid {
            path: self.path.clone(),
            header: self.header,
            chunk: self.chunk,
            offset: index * 4,
            what: what.into(),
        }
    }

    /// A count at `index` that must lie in `0..=max`.
    fn count(&self, index: usize, max: usize) -> Result<usize, BipedError> {
        let v = self.i(index)?;
        usize::try_from(v)
            .ok()
            .filter(|&n| n <= max)
            .ok_or_else(|| self.invalid(index, format!("count {v} outside 0..={max}")))
    }
}

/// Where a Scene object is: the Scene root's id and the object's storage index (for locators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ObjectAt {
    /// Scene root chunk id (0x2017 …).
    pub root_id: u16,
    /// Position among the root's children.
    pub storage_index: usize,
}

impl ObjectAt {
    fn steps(self, object_id: u16) -> Vec<(usize, u16)> {
        vec![(0, self.root_id), (self.storage_index, object_id)]
    }
}

/// The chunks of one 0x9155 object, live block first.
struct Chunks<'c, 'a> {
    object: &'c Chunk<'a>,
    path_steps: Vec<(usize, u16)>,
    live_start: usize,
}

impl<'c, 'a> Chunks<'c, 'a> {
    fn new(object: &'c Chunk<'a>, at: ObjectAt) -> Self {
        let live_start = object.children().iter().rposition(|k| k.id == c::LIVE_MARK).unwrap_or(0);
        Chunks { object, path_steps: at.steps(object.id), live_start }
    }

    fn object_path(&self) -> ChunkPath {
        ChunkPath::from_steps("Scene", &self.path_steps)
    }

    fn find(&self, id: u16) -> Option<(usize, &'c Chunk<'a>)> {
        let kids = self.object.children();
        let live = kids.iter().enumerate().skip(self.live_start).find(|(_, k)| k.id == id);
        live.or_else(|| kids.iter().enumerate().find(|(_, k)| k.id == id))
    }

    fn get(&self, id: u16) -> Option<Record<'c>> {
        let (pos, chunk) = self.find(id)?;
        let mut steps = self.path_steps.clone();
        steps.push((pos, id));
        let path = ChunkPath::from_steps("Scene", &steps);
        Some(Record { bytes: chunk.payload().unwrap_or(&[]), path, chunk: id, header: chunk.offset })
    }

    /// A chunk of the live block only (keytracks: a stored collection's copy is not the
    /// animation).
    fn get_live(&self, id: u16) -> Option<Record<'c>> {
        let (pos, _) = self.find(id).filter(|(pos, _)| *pos >= self.live_start)?;
        let chunk = &self.object.children()[pos];
        let mut steps = self.path_steps.clone();
        steps.push((pos, id));
        let path = ChunkPath::from_steps("Scene", &steps);
        Some(Record { bytes: chunk.payload().unwrap_or(&[]), path, chunk: id, header: chunk.offset })
    }

    /// Keys counted from the live block's time chunks (40-byte header, 40 bytes per key).
    fn keys(&self) -> usize {
        let time_chunk = |id: u16| (c::KEYTRACKS_FIRST_TIME..=c::KEYTRACKS_LAST_TIME).contains(&id) && id % 2 == 1;
        let kids = self.object.children().iter().skip(self.live_start);
        kids.filter(|k| time_chunk(k.id)).map(|k| k.payload().map_or(0, |p| p.len().saturating_sub(40) / 40)).sum()
    }

    fn need(&self, id: u16, what: &'static str) -> Result<Record<'c>, BipedError> {
        self.get(id).ok_or(BipedError::Missing { path: self.object_path(), chunk: id, what })
    }
}

/// Links per bone id and the figure's counts (0x0100).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkTable {
    /// Links of ids 0..22 (fingers and toes: per finger / per toe).
    pub links: [u32; bone::LINKED_IDS],
    /// Number of fingers per hand.
    pub fingers: u32,
    /// Number of toes per foot.
    pub toes: u32,
    /// The figure's height (FA16 172.708).
    pub height: f32,
}

impl LinkTable {
    fn read(r: &Record<'_>) -> Result<Self, BipedError> {
        let mut links = [0; bone::LINKED_IDS];
        for (k, l) in links.iter_mut().enumerate() {
            *l = r.count(k, 64)? as u32;
        }
        Ok(LinkTable { links, fingers: r.count(22, 16)? as u32, toes: r.count(23, 16)? as u32, height: r.f(24)? })
    }

    /// Links of a bone id (0 for ids without a count).
    pub fn of(&self, id: i32) -> u32 {
        usize::try_from(id).ok().and_then(|k| self.links.get(k)).copied().unwrap_or(0)
    }

    /// Node-table entries of an id: its links (× fingers or toes for those ids), and the nubs.
    pub fn slots(&self, id: i32) -> u32 {
        let present = |links: u32, n: u32| if links > 0 { n } else { 0 };
        match id {
            bone::L_FINGERS | bone::R_FINGERS => self.of(id) * self.fingers,
            bone::L_TOES | bone::R_TOES => self.of(id) * self.toes,
            0..=21 => self.of(id),
            bone::R_FINGER_NUB => present(self.of(bone::R_FINGERS), self.fingers),
            bone::L_FINGER_NUB => present(self.of(bone::L_FINGERS), self.fingers),
            bone::L_TOE_NUB => present(self.of(bone::L_TOES), self.toes),
            bone::R_TOE_NUB => present(self.of(bone::R_TOES), self.toes),
            bone::TAIL_NUB => present(self.of(bone::TAIL), 1),
            bone::HEAD_NUB => present(self.of(bone::HEAD), 1),
            _ => 0,
        }
    }
}

/// A spine, neck, tail or pony chain struct: `[0]` = 3 × links, the link lengths, a 4×4.
#[derive(Clone, Debug, PartialEq)]
pub struct ChainStruct {
    /// Link lengths.
    pub lengths: Vec<f32>,
    /// The 4×4, row-major, translation row last (the chain's attach offset, Y-up rows).
    pub matrix: [f32; 16],
}

impl ChainStruct {
    fn read(r: &Record<'_>) -> Result<Self, BipedError> {
        let n = r.count(0, 3 * 64)?;
        if n % 3 != 0 {
            return Err(r.invalid(0, format!("angle count {n} is not 3 × links")));
        }
        let links = n / 3;
        let lengths = (0..links).map(|k| r.f(1 + k)).collect::<Result<_, _>>()?;
        Ok(ChainStruct { lengths, matrix: r.floats(1 + links)? })
    }
}

/// One side of the legs record 0x000f.
#[derive(Clone, Debug, PartialEq)]
pub struct LegFigure {
    /// Distance of the hip from the pelvis centre along the pelvis Z axis (positive).
    pub side_offset: f32,
    /// Thigh length (Calf T.x).
    pub thigh: f32,
    /// Calf length (Foot T.x).
    pub calf: f32,
    /// The ankle's height over the ground (0x000f[7], also the toe's attach along the foot's X,
    /// Toe0 T.x): foot height minus it is the Footsteps height on all 20 Rocketbox rigs.
    pub ankle_height: f32,
    /// Per toe: its 4×4 (translation = the toe's attach on the foot) and link lengths.
    pub toes: Vec<DigitChain>,
}

/// A finger or toe: its 4×4 as stored (row-major, translation row last) and link lengths.
#[derive(Clone, Debug, PartialEq)]
pub struct DigitChain {
    /// The 4×4 (translation = the digit's attach on the hand or foot).
    pub matrix: [f32; 16],
    /// Link lengths.
    pub lengths: Vec<f32>,
}

/// (bone id, link), as 0x0200 and 0x0110 name a bone.
pub type BoneSlot = (i32, i32);

/// One side of the arms record 0x0010.
#[derive(Clone, Debug, PartialEq)]
pub struct ArmFigure {
    /// Upper-arm length (Forearm T.x).
    pub upper_arm: f32,
    /// Forearm length (Hand T.x).
    pub forearm: f32,
    /// Clavicle length (UpperArm T.x).
    pub clavicle: f32,
    /// Clavicle angles (a, b) of the clavicle rule.
    pub clavicle_angles: [f32; 2],
    /// Clavicle attach on the neck (Y-up; [2] = Clavicle T.z, negated on the right).
    pub clavicle_attach: [f32; 3],
    /// Per finger: its 4×4 and link lengths (the last one is the nub).
    pub fingers: Vec<DigitChain>,
}

/// Reads `count` (links, 4×4, lengths) blocks from float `start`; returns them and the end.
fn sub_chains(r: &Record<'_>, start: usize, count: usize) -> Result<(Vec<DigitChain>, usize), BipedError> {
    let mut at = start;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let links = r.count(at, 64)?;
        let matrix = r.floats(at + 1)?;
        let lengths = (0..links).map(|k| r.f(at + 17 + k)).collect::<Result<_, _>>()?;
        out.push(DigitChain { matrix, lengths });
        at += 17 + links;
    }
    Ok((out, at))
}

/// The two halves of a limb record, right first; `None` for an empty record (no such limb).
fn halves(r: &Record<'_>) -> Result<Option<[usize; 2]>, BipedError> {
    let n = r.dwords();
    if n == 0 {
        return Ok(None);
    }
    if !n.is_multiple_of(2) || !r.bytes.len().is_multiple_of(4) {
        return Err(r.invalid(0, format!("{} bytes do not make two equal halves of floats", r.bytes.len())));
    }
    Ok(Some([0, n / 2]))
}

impl LegFigure {
    fn read(r: &Record<'_>, h: usize) -> Result<Self, BipedError> {
        let n_toes = r.count(h + 10, 16)?;
        let (toes, _) = sub_chains(r, h + 11, n_toes)?;
        Ok(LegFigure {
            side_offset: r.f(h + 1)?,
            thigh: r.f(h + 2)?,
            calf: r.f(h + 3)?,
            ankle_height: r.f(h + 7)?,
            toes,
        })
    }
}

impl ArmFigure {
    fn read(r: &Record<'_>, h: usize) -> Result<Self, BipedError> {
        let n_fingers = r.count(h + 16, 16)?;
        let (fingers, _) = sub_chains(r, h + 17, n_fingers)?;
        Ok(ArmFigure {
            upper_arm: r.f(h + 1)?,
            forearm: r.f(h + 2)?,
            clavicle: r.f(h + 5)?,
            clavicle_angles: r.floats(h + 6)?,
            clavicle_attach: r.floats(h + 8)?,
            fingers,
        })
    }
}

/// Right and left values of a limb record (stored right first).
#[derive(Clone, Debug, PartialEq)]
pub struct Sides<T> {
    /// The left side (the record's second half).
    pub left: T,
    /// The right side (the record's first half).
    pub right: T,
}

/// One side of the leg pose 0x0069 (figure mode).
#[derive(Clone, Debug, PartialEq)]
pub struct LegPose {
    /// Knee angle: Calf local Rz + π.
    pub knee: f32,
    /// Thigh orientation (x, y, z, w) in the pelvis frame's convention (§5.1 of the notes).
    pub thigh: [f32; 4],
    /// Foot orientation (x, y, z, w).
    pub foot: [f32; 4],
}

/// One side of the arm pose 0x006a (figure mode).
#[derive(Clone, Debug, PartialEq)]
pub struct ArmPose {
    /// Elbow angle: Forearm local Rz + π.
    pub elbow: f32,
    /// Upper-arm orientation (x, y, z, w).
    pub upper_arm: [f32; 4],
    /// Hand orientation (x, y, z, w).
    pub hand: [f32; 4],
    /// Per finger block (46 floats each from [46]).
    pub fingers: Vec<FingerPose>,
}

/// One finger block of the arm pose.
#[derive(Clone, Debug, PartialEq)]
pub struct FingerPose {
    /// The base's pose quaternion (x, y, z, w), block [1..4]: identity on 19 of the 20
    /// Rocketbox rigs, not on `Female_Child_01` (L Finger0 (−0, 0.01047, 0, 0.99995)).
    pub base: [f32; 4],
    /// The bends of joints 1 and 2 (block [39], [42]): Finger01 / Finger02 local Rz
    /// (FA16 L Finger0: 0.24863, 0.05592).
    pub bends: [f32; 2],
}

/// First finger block of an arm-pose half, and the block stride.
const FINGER_BLOCKS: (usize, usize) = (46, 46);

/// The figure's centre of mass (0x006c): the bind pose, not the pose at the saved time.
#[derive(Clone, Debug, PartialEq)]
pub struct ComRecord {
    /// Position (Y-up).
    pub position: [f32; 3],
    /// Orientation (x, y, z, w).
    pub rotation: [f32; 4],
}

/// One xtra chain: its definition (0x0022), its figure angles (0x0073) and its nodes (0x0205).
#[derive(Clone, Debug, PartialEq)]
pub struct Xtra {
    /// Name (`LEye`, `Xtra01`).
    pub name: String,
    /// Link lengths.
    pub lengths: Vec<f32>,
    /// The 4×4 of the chain's base on its parent's frame (rows; translation row last), in
    /// the swapped axes (y, x, −z) of the other chain structs: identity rotation under the
    /// head on every rig measured, 110° about Z under `MJaw` (FA16 `MTongue`).
    pub matrix: [f32; 16],
    /// Parent (bone id, link): (10, 0) the head, (200 + k, link) another xtra.
    pub parent: (i32, i32),
    /// Mirror pairing: (0 none, 1 left, 2 right; the opposite xtra's index), FA16 LCaninus
    /// (1, 18) ↔ RCaninus (2, 0), yellow Xtra01 (2, 1) ↔ Xtra01Opp (1, 0).
    pub mirror: (i32, i32),
    /// Figure-mode angles (a1, a2, a3) per link (0x0073); empty when the record is absent.
    pub angles: Vec<[f32; 3]>,
    /// Link node storage indices, then the nub's.
    pub nodes: Vec<i32>,
}

/// A decoded Biped system object.
#[derive(Clone, Debug, PartialEq)]
pub struct BipedSystem {
    /// Storage index of the 0x9155 object.
    pub storage_index: usize,
    /// Keys in the live block's keytracks: time chunks (odd ids 0x012d..=0x0143) hold 40
    /// bytes plus 40 per key (0 on every Rocketbox rig, thousands on LD35). Without keys the
    /// figure pose is the pose at every time.
    pub keys: usize,
    /// Body type (0x0115): 0 on the Rocketbox rigs, 3 on LD35; `None` when absent.
    pub body_type: Option<i32>,
    /// Links per id (0x0100).
    pub links: LinkTable,
    /// (id, link) → node storage index, in id order then nubs (0x0110).
    pub node_table: Vec<(BoneSlot, i32)>,
    /// Spine chain (0x000b).
    pub spine: ChainStruct,
    /// Neck chain (0x000d).
    pub neck: ChainStruct,
    /// Head link length (0x000c); `None` when absent.
    pub head_length: Option<f32>,
    /// Legs (0x000f); `None` when the figure has none.
    pub legs: Option<Sides<LegFigure>>,
    /// Arms (0x0010); `None` when the figure has none (yellow).
    pub arms: Option<Sides<ArmFigure>>,
    /// Figure COM (0x006c).
    pub com: ComRecord,
    /// Spine angles (a1, a2, a3) per link (0x0067).
    pub spine_angles: Vec<[f32; 3]>,
    /// Neck angles per link (0x0065).
    pub neck_angles: Vec<[f32; 3]>,
    /// Head orientation (0x0064[0..3]).
    pub head: [f32; 4],
    /// The head's attach on the neck's end (0x0064[16], [17]): (y, x) in the neck's internal
    /// frame (yellow (1.40807, −0.31458): FBX `Bip01 Head` T = (10.019287, 1.408325) on a
    /// 10.33277 neck).
    pub head_offset: [f32; 2],
    /// Pelvis orientation (0x0066[0..3]; identity on every figure measured, the pelvis
    /// keytrack's quaternion on a keyed pose).
    pub pelvis: [f32; 4],
    /// Leg pose (0x0069).
    pub leg_pose: Option<Sides<LegPose>>,
    /// Arm pose (0x006a).
    pub arm_pose: Option<Sides<ArmPose>>,
    /// Xtra chains (0x0022 with 0x0205), in id order (xtra k = id 200 + k).
    pub xtras: Vec<Xtra>,
    /// The live block's keytracks ([`keytracks`]); an error here leaves the figure readable.
    pub keytracks: Result<keytracks::KeyTracks, BipedError>,
}

fn angle_record(r: &Record<'_>) -> Result<Vec<[f32; 3]>, BipedError> {
    let n = r.count(0, 3 * 64)?;
    (0..n / 3).map(|k| r.floats::<3>(1 + 3 * k)).collect()
}

fn sides<T>(
    r: &Record<'_>,
    read: impl Fn(&Record<'_>, usize) -> Result<T, BipedError>,
) -> Result<Option<Sides<T>>, BipedError> {
    Ok(match halves(r)? {
        Some([right, left]) => Some(Sides { right: read(r, right)?, left: read(r, left)? }),
        None => None,
    })
}

fn node_table(r: &Record<'_>, links: &LinkTable) -> Result<Vec<(BoneSlot, i32)>, BipedError> {
    let ids = (0..=bone::HEAD_NUB).flat_map(|id| (0..links.slots(id) as i32).map(move |l| (id, l)));
    let slots: Vec<BoneSlot> = ids.collect();
    if slots.len() != r.dwords() {
        return Err(r.invalid(0, format!("{} entries, the link table 0x0100 makes {}", r.dwords(), slots.len())));
    }
    slots.into_iter().enumerate().map(|(k, s)| Ok((s, r.i(k)?))).collect()
}

fn xtras(
    defs: Option<Record<'_>>,
    angles: Option<Record<'_>>,
    nodes: Option<Record<'_>>,
) -> Result<Vec<Xtra>, BipedError> {
    let Some(r) = defs else { return Ok(Vec::new()) };
    let mut cur = Cursor { r: &r, at: 0 };
    let count = cur.count(1000)?;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let angles = cur.count(3 * 64)?;
        let lengths = (0..angles / 3).map(|_| cur.f32()).collect::<Result<_, _>>()?;
        let mut matrix = [0.0; 16];
        for m in matrix.iter_mut() {
            *m = cur.f32()?;
        }
        let parent = (cur.i32()?, cur.i32()?);
        cur.skip(8)?; // (0, 1) under a Biped bone, (0, 2) under another xtra: not needed
        let name_len = cur.count(1024)?;
        let name = utf16(cur.take(2 * name_len)?);
        let mirror = (cur.i32()?, cur.i32()?);
        out.push(Xtra { name, lengths, matrix, parent, mirror, angles: Vec::new(), nodes: Vec::new() });
    }
    let out = attach_xtra_angles(out, angles)?;
    attach_xtra_nodes(out, nodes)
}

/// 0x0073: per xtra, 3 × links, the angles, then 4 floats (zero on every rig measured).
fn attach_xtra_angles(mut out: Vec<Xtra>, angles: Option<Record<'_>>) -> Result<Vec<Xtra>, BipedError> {
    let Some(r) = angles else { return Ok(out) };
    let mut at = 0;
    for x in out.iter_mut() {
        let n = r.count(at, 3 * 64)?;
        if n != 3 * x.lengths.len() {
            return Err(r.invalid(at, format!("{n} angles, xtra {:?} has {} links", x.name, x.lengths.len())));
        }
        x.angles = (0..n / 3).map(|k| r.floats::<3>(at + 1 + 3 * k)).collect::<Result<_, _>>()?;
        at += 1 + n + 4;
    }
    Ok(out)
}

/// A byte cursor over a record: xtra names are UTF-16, so later fields leave the dword grid.
struct Cursor<'r, 'a> {
    r: &'r Record<'a>,
    at: usize,
}

impl Cursor<'_, '_> {
    fn take(&mut self, n: usize) -> Result<&[u8], BipedError> {
        let r = self.r;
        let bytes = r.bytes.get(self.at..self.at.saturating_add(n)).ok_or(BipedError::Truncated {
            path: r.path.clone(),
            header: r.header,
            chunk: r.chunk,
            offset: self.at,
            needed: n,
            len: r.bytes.len(),
        })?;
        self.at += n;
        Ok(bytes)
    }

    fn skip(&mut self, n: usize) -> Result<(), BipedError> {
        self.take(n).map(drop)
    }

    fn dword(&mut self) -> Result<[u8; 4], BipedError> {
        let b = self.take(4)?;
        Ok([b[0], b[1], b[2], b[3]])
    }

    fn f32(&mut self) -> Result<f32, BipedError> {
        self.dword().map(f32::from_le_bytes)
    }

    fn i32(&mut self) -> Result<i32, BipedError> {
        self.dword().map(i32::from_le_bytes)
    }

    fn count(&mut self, max: usize) -> Result<usize, BipedError> {
        let at = self.at;
        let v = self.i32()?;
        usize::try_from(v).ok().filter(|&n| n <= max).ok_or_else(|| BipedError::Invalid {
            path: self.r.path.clone(),
            header: self.r.header,
            chunk: self.r.chunk,
            offset: at,
            what: format!("count {v} outside 0..={max}"),
        })
    }
}

fn attach_xtra_nodes(mut out: Vec<Xtra>, nodes: Option<Record<'_>>) -> Result<Vec<Xtra>, BipedError> {
    let Some(r) = nodes else { return Ok(out) };
    let count = r.count(0, 1000)?;
    if count != out.len() {
        return Err(r.invalid(0, format!("{count} xtras, 0x0022 defines {}", out.len())));
    }
    let mut at = 1;
    for x in out.iter_mut() {
        let links = r.count(at, 64)?;
        x.nodes = (0..=links).map(|k| r.i(at + 1 + k)).collect::<Result<_, _>>()?;
        at += 2 + links;
    }
    Ok(out)
}

impl BipedSystem {
    /// Decodes the 0x9155 object `object`, found at `at`.
    pub fn decode(object: &Chunk<'_>, at: ObjectAt) -> Result<Self, BipedError> {
        let cs = Chunks::new(object, at);
        let links = LinkTable::read(&cs.need(c::LINKS, "links per bone id")?)?;
        let node_table = match cs.get(c::NODE_TABLE) {
            Some(r) => node_table(&r, &links)?,
            None => Vec::new(),
        };
        let com = cs.need(c::COM, "figure centre of mass")?;
        let head_record = cs.need(c::HEAD, "head record")?;
        let head = head_record.floats(0)?;
        let head_offset = if head_record.dwords() >= 18 { head_record.floats(16)? } else { [0.0; 2] };
        Ok(BipedSystem {
            storage_index: at.storage_index,
            keys: cs.keys(),
            body_type: cs.get(c::BODY_TYPE).map(|r| r.i(0)).transpose()?,
            node_table,
            spine: ChainStruct::read(&cs.need(c::SPINE, "spine chain")?)?,
            neck: ChainStruct::read(&cs.need(c::NECK, "neck chain")?)?,
            head_length: cs.get(c::HEAD_LENGTH).map(|r| r.f(0)).transpose()?,
            legs: cs.get(c::LEGS).map(|r| sides(&r, LegFigure::read)).transpose()?.flatten(),
            arms: cs.get(c::ARMS).map(|r| sides(&r, ArmFigure::read)).transpose()?.flatten(),
            com: ComRecord { position: com.floats(4)?, rotation: com.floats(8)? },
            spine_angles: angle_record(&cs.need(c::SPINE_ANGLES, "spine angles")?)?,
            neck_angles: angle_record(&cs.need(c::NECK_ANGLES, "neck angles")?)?,
            head,
            head_offset,
            pelvis: cs.get(c::PELVIS).map(|r| r.floats(0)).transpose()?.unwrap_or([0.0, 0.0, 0.0, 1.0]),
            leg_pose: cs.get(c::LEG_POSE).map(|r| sides(&r, leg_pose)).transpose()?.flatten(),
            arm_pose: cs.get(c::ARM_POSE).map(|r| sides(&r, arm_pose)).transpose()?.flatten(),
            xtras: xtras(cs.get(c::XTRA_DEFS), cs.get(c::XTRA_ANGLES), cs.get(c::XTRA_NODES))?,
            keytracks: keytracks::KeyTracks::decode(&cs),
            links,
        })
    }

    /// The node storage index of (bone id, link), from 0x0110 or the xtra list.
    pub fn node_of(&self, id: i32, link: i32) -> Option<usize> {
        let raw = if id >= bone::XTRA {
            let (k, nub) = if id >= bone::XTRA_NUB { (id - bone::XTRA_NUB, true) } else { (id - bone::XTRA, false) };
            let x = self.xtras.get(usize::try_from(k).ok()?)?;
            let at = if nub {
                x.nodes.len().checked_sub(1)?
            } else {
                usize::try_from(link).ok().filter(|&l| l + 1 < x.nodes.len())?
            };
            *x.nodes.get(at)?
        } else {
            self.node_table.iter().find(|(s, _)| *s == (id, link))?.1
        };
        usize::try_from(raw).ok()
    }
}

fn leg_pose(r: &Record<'_>, h: usize) -> Result<LegPose, BipedError> {
    Ok(LegPose { knee: r.f(h)?, thigh: r.floats(h + 2)?, foot: r.floats(h + 28)? })
}

fn arm_pose(r: &Record<'_>, h: usize) -> Result<ArmPose, BipedError> {
    let half = r.dwords() / 2;
    let (first, stride) = FINGER_BLOCKS;
    let blocks = half.saturating_sub(first) / stride;
    let fingers = (0..blocks)
        .map(|f| {
            let b = h + first + f * stride;
            Ok(FingerPose { base: r.floats(b + 1)?, bends: [r.f(b + 39)?, r.f(b + 42)?] })
        })
        .collect::<Result<_, _>>()?;
    Ok(ArmPose { elbow: r.f(h)?, upper_arm: r.floats(h + 2)?, hand: r.floats(h + 28)?, fingers })
}

/// A node driven by a BipSlave Control.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SlaveNode {
    /// Node storage index.
    pub node: usize,
    /// Node name.
    pub name: String,
    /// Bone id (chunk 0x0200).
    pub bone: i32,
    /// Link index.
    pub link: i32,
}

/// The Biped of a scene: the system object and the nodes its controllers drive.
#[derive(Clone, Debug, PartialEq)]
pub struct BipedRig {
    /// The system object, decoded.
    pub system: BipedSystem,
    /// The COM node (Vertical/Horizontal/Turn controller) and its name.
    pub com_node: Option<(usize, String)>,
    /// The Footsteps node (the node table's footsteps slot, id 15) and its name: its
    /// controller has the COM's class on every measured rig, so only the table tells them apart.
    pub footsteps_node: Option<(usize, String)>,
    /// Nodes driven by BipSlave Controls, in storage order.
    pub slaves: Vec<SlaveNode>,
}

fn class_is(o: &SceneObject<'_>, id: [u32; 2]) -> bool {
    o.class.as_ref().is_some_and(|k| k.class_id == id)
}

impl BipedRig {
    /// Reads the scene's (first) Biped system and checks every BipSlave against its node table.
    pub fn read(index: &SceneIndex<'_>) -> Result<Self, BipedError> {
        let sys = index.objects.iter().find(|o| class_is(o, ids::BIPED_SYSTEM)).ok_or(BipedError::NoSystem)?;
        let at = |storage_index| ObjectAt { root_id: index.root_id, storage_index };
        let system = BipedSystem::decode(sys.chunk, at(sys.storage_index))?;
        let mut slaves = Vec::new();
        let mut com_node = None;
        let mut footsteps_node = None;
        let footsteps = system.node_of(bone::FOOTSTEPS, 0);
        for node in index.objects.iter().filter(|o| o.is_node()) {
            let Some(ctl) = node.reference(0).and_then(|k| index.get(k)) else { continue };
            let name = node.node_name().unwrap_or_default();
            if footsteps == Some(node.storage_index) {
                footsteps_node.get_or_insert((node.storage_index, name));
            } else if class_is(ctl, ids::BIPED_COM) {
                com_node.get_or_insert((node.storage_index, name));
            } else if class_is(ctl, ids::BIPED_PART) {
                slaves.push(slave_node(&system, node.storage_index, name, ctl, at(ctl.storage_index))?);
            }
        }
        Ok(BipedRig { system, com_node, footsteps_node, slaves })
    }
}

impl BipedRig {
    /// The Biped bone `(id, link)` that drives node `node`: the COM, the Footsteps marker or a
    /// BipSlave; `None` for a node the Biped does not drive.
    pub fn bone_of(&self, node: usize) -> Option<(i32, i32)> {
        match (&self.com_node, &self.footsteps_node) {
            (Some((com, _)), _) if *com == node => Some((bone::COM_VERTICAL, 0)),
            (_, Some((footsteps, _))) if *footsteps == node => Some((bone::FOOTSTEPS, 0)),
            _ => self.slaves.iter().find(|s| s.node == node).map(|s| (s.bone, s.link)),
        }
    }
}

fn slave_node(
    system: &BipedSystem,
    node: usize,
    name: String,
    ctl: &SceneObject<'_>,
    at: ObjectAt,
) -> Result<SlaveNode, BipedError> {
    let pos = ctl.chunk.children().iter().position(|k| k.id == c::SLAVE_BONE);
    let mut steps = at.steps(ctl.chunk.id);
    steps.push((pos.unwrap_or(0), c::SLAVE_BONE));
    let path = ChunkPath::from_steps("Scene", &steps);
    let Some(pos) = pos else {
        return Err(BipedError::Missing { path, chunk: c::SLAVE_BONE, what: "BipSlave bone id and link" });
    };
    let leaf = &ctl.chunk.children()[pos];
    let r = Record { bytes: leaf.payload().unwrap_or(&[]), path, chunk: c::SLAVE_BONE, header: leaf.offset };
    let (bone, link) = (r.i(0)?, r.i(1)?);
    let slave = |why: String| BipedError::SlaveSlot { path: r.path.clone(), bone, link, node, why };
    match system.node_of(bone, link) {
        None if system.node_table.is_empty() => {}
        None => return Err(slave("names no slot of the node table 0x0110 or the xtra list 0x0205".into())),
        Some(n) if n != node => return Err(slave(format!("has a slot holding node {n}"))),
        Some(_) => {}
    }
    Ok(SlaveNode { node, name, bone, link })
}

pub mod keytracks;

#[cfg(test)]
pub(crate) mod tests;
