//! Parameter values of a primitive or modifier, read from the parameter block its
//! reference slot points at — read-only, only what evaluation needs (numbers by index).
//!
//! Two storages (design notes and `max_payload_formats.txt` §K.2, checked on the corpus):
//! * old ParamBlock (superclass 0x08): one 0x0002 container per parameter holding 0x0003
//!   (`s32` parameter index), an optional empty 0x0004 marker and one value chunk — 0x0101
//!   `s32`, 0x0104 `s32` boolean, 0x0102 Point3, 0x0100 (any other 4-byte chunk) `f32`. A parameter without a value chunk is animated: its controller
//!   is the block's reference with the parameter's index.
//! * ParamBlock2 (superclass 0x82): one 0x000e / 0x100e leaf per parameter (inside a
//!   0x0000 container in current files): `u16` id, `u16` type, 10 bytes, a flag byte
//!   (0x40 = constant value follows), then the value. Parameters
//!   without the flag are controller-backed and own the block's reference slots in
//!   record order.
//!
//! The typed decoder of parameter blocks belongs to the T2 model; this view only reads.

use crate::chunk::Chunk;
use crate::model::controllers::float_default;
use crate::model::scene_index::{SceneIndex, SceneObject};

/// Superclass of an old ParamBlock.
pub const PARAM_BLOCK_SUPERCLASS: u32 = 0x08;
/// Superclass of a ParamBlock2.
pub const PARAM_BLOCK2_SUPERCLASS: u32 = 0x82;

/// One parameter value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamValue {
    /// Float-like (float, angle, world units, percent).
    Float(f32),
    /// Integer-like (int, bool, index, radio button).
    Int(i32),
    /// Point3 / colour.
    Point3([f32; 3]),
}

impl ParamValue {
    /// As a float (ints converted).
    pub fn as_f32(self) -> f32 {
        match self {
            ParamValue::Float(f) => f,
            ParamValue::Int(i) => i as f32,
            ParamValue::Point3(p) => p[0],
        }
    }

    /// As an integer (floats rounded the way Max's spinners store counts: truncated).
    pub fn as_i32(self) -> i32 {
        match self {
            ParamValue::Float(f) => f as i32,
            ParamValue::Int(i) => i,
            ParamValue::Point3(p) => p[0] as i32,
        }
    }
}

/// Why a parameter could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ParamError {
    /// The object has no parameter block at the slot.
    #[error("no parameter block at reference {0}")]
    NoBlock(usize),
    /// The block has no such parameter.
    #[error("parameter {0} is not stored")]
    Missing(u16),
    /// Animated through a controller whose value is not readable.
    #[error("parameter {0} is animated by an unreadable controller")]
    Animated(u16),
}

/// The parameters of one block, by index.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Params {
    values: Vec<(u16, ParamValue)>,
    /// Parameters stored without a constant (controller-backed) that had no readable default.
    animated: Vec<u16>,
}

fn f32_at(p: &[u8], at: usize) -> Option<f32> {
    p.get(at..at + 4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn i32_at(p: &[u8], at: usize) -> Option<i32> {
    p.get(at..at + 4).map(|b| i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// PB2 type codes read as integers (int, bool, time, radio button index, index).
fn pb2_int_type(t: u16) -> bool {
    matches!(t, 1 | 4 | 12 | 13 | 25)
}

/// PB2 type codes read as floats (float, angle, percent fraction, world, colour channel).
fn pb2_float_type(t: u16) -> bool {
    matches!(t, 0 | 5 | 6 | 7 | 11)
}

impl Params {
    /// The parameters of the block referenced by `owner`'s slot `slot`.
    pub fn of(index: &SceneIndex<'_>, owner: &SceneObject<'_>, slot: usize) -> Result<Params, ParamError> {
        let block = owner.reference(slot).and_then(|i| index.get(i)).ok_or(ParamError::NoBlock(slot))?;
        let superclass = block.class.as_ref().map(|c| c.superclass);
        match superclass {
            Some(PARAM_BLOCK_SUPERCLASS) => Ok(Self::old(index, block)),
            Some(PARAM_BLOCK2_SUPERCLASS) => Ok(Self::pb2(index, block)),
            _ => Err(ParamError::NoBlock(slot)),
        }
    }

    fn old(index: &SceneIndex<'_>, block: &SceneObject<'_>) -> Params {
        let mut out = Params::default();
        for param in block.chunk.children().iter().filter(|c| c.id == 0x0002) {
            let Some(id) = param.child(0x0003).and_then(Chunk::payload).and_then(|p| i32_at(p, 0)) else { continue };
            let Ok(id) = u16::try_from(id) else { continue };
            let value = param.children().iter().filter(|c| c.id != 0x0003).find_map(|c| {
                let p = c.payload()?;
                match (c.id, p.len()) {
                    (0x0101 | 0x0104, 4) => i32_at(p, 0).map(ParamValue::Int),
                    (0x0102, 12) => Some(ParamValue::Point3([f32_at(p, 0)?, f32_at(p, 4)?, f32_at(p, 8)?])),
                    (0x0004, _) => None,
                    (_, 4) => f32_at(p, 0).map(ParamValue::Float),
                    _ => None,
                }
            });
            match value {
                Some(v) => out.values.push((id, v)),
                None => match float_default(index, block.reference(id as usize)) {
                    Ok(f) => out.values.push((id, ParamValue::Float(f))),
                    Err(_) => out.animated.push(id),
                },
            }
        }
        out
    }

    fn pb2(index: &SceneIndex<'_>, block: &SceneObject<'_>) -> Params {
        let mut out = Params::default();
        let mut controller_slot = 0usize;
        // Records sit directly under the block or one container down (0x0000 in current
        // releases, beside the 0x0009 header); their id is 0x000e or 0x100e.
        let records = block
            .chunk
            .children()
            .iter()
            .flat_map(|c| if c.is_container() { c.children().iter().collect::<Vec<_>>() } else { vec![c] })
            .filter(|c| matches!(c.id, 0x000e | 0x100e));
        for record in records {
            let Some(p) = record.payload() else { continue };
            if p.len() < 15 {
                continue;
            }
            let id = u16::from_le_bytes([p[0], p[1]]);
            let kind = u16::from_le_bytes([p[2], p[3]]);
            let constant = p[14] & 0x40 != 0;
            if !constant {
                // Controller-backed: its controller owns the next reference slot.
                let slot = controller_slot;
                controller_slot += 1;
                match float_default(index, block.reference(slot)) {
                    Ok(f) if pb2_float_type(kind) => out.values.push((id, ParamValue::Float(f))),
                    Ok(f) if pb2_int_type(kind) => out.values.push((id, ParamValue::Int(f as i32))),
                    _ => out.animated.push(id),
                }
                continue;
            }
            let value = if pb2_int_type(kind) {
                i32_at(p, 15).map(ParamValue::Int)
            } else if pb2_float_type(kind) {
                f32_at(p, 15).map(ParamValue::Float)
            } else if matches!(kind, 2 | 3 | 10) {
                (|| Some(ParamValue::Point3([f32_at(p, 15)?, f32_at(p, 19)?, f32_at(p, 23)?])))()
            } else {
                None
            };
            if let Some(v) = value {
                out.values.push((id, v));
            }
        }
        out
    }

    /// Parameter `id`.
    pub fn get(&self, id: u16) -> Result<ParamValue, ParamError> {
        if let Some((_, v)) = self.values.iter().find(|(i, _)| *i == id) {
            return Ok(*v);
        }
        if self.animated.contains(&id) {
            return Err(ParamError::Animated(id));
        }
        Err(ParamError::Missing(id))
    }

    /// Parameter `id` as a float.
    pub fn float(&self, id: u16) -> Result<f32, ParamError> {
        self.get(id).map(ParamValue::as_f32)
    }

    /// Parameter `id` as an integer.
    pub fn int(&self, id: u16) -> Result<i32, ParamError> {
        self.get(id).map(ParamValue::as_i32)
    }

    /// Parameter `id` as an integer, `default` when the block does not store it (older
    /// releases omit parameters added later).
    pub fn int_or(&self, id: u16, default: i32) -> Result<i32, ParamError> {
        match self.int(id) {
            Err(ParamError::Missing(_)) => Ok(default),
            other => other,
        }
    }

    /// Every stored (id, value), for diagnostics.
    pub fn values(&self) -> &[(u16, ParamValue)] {
        &self.values
    }
}
