//! Parameter values of a primitive or modifier, from the parameter block its reference
//! slot points at: the values [`crate::model::paramblock`] decodes (ParamBlock2 records
//! and old ParamBlock parameters), with controller-backed (animated) parameters read from
//! their controller's default value. Evaluation only needs numbers by parameter id.

use crate::model::controllers::float_default;
use crate::model::paramblock::{self as pb, ParamBlock, ParamBlock2};
use crate::model::scene_index::{SceneIndex, SceneObject};

/// Superclass of an old ParamBlock.
pub(crate) const PARAM_BLOCK_SUPERCLASS: u32 = 0x08;
/// Superclass of a ParamBlock2.
pub(crate) const PARAM_BLOCK2_SUPERCLASS: u32 = 0x82;

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
    pub(crate) fn as_f32(self) -> f32 {
        match self {
            ParamValue::Float(f) => f,
            ParamValue::Int(i) => i as f32,
            ParamValue::Point3(p) => p[0],
        }
    }

    /// As an integer (floats rounded the way Max's spinners store counts: truncated).
    pub(crate) fn as_i32(self) -> i32 {
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

/// Evaluation's view of a decoded value (numbers only).
fn number(v: &pb::ParamValue) -> Option<ParamValue> {
    match *v {
        pb::ParamValue::Float(f) => Some(ParamValue::Float(f)),
        pb::ParamValue::Int(i) | pb::ParamValue::Bool(i) => Some(ParamValue::Int(i)),
        pb::ParamValue::Point3(p) => Some(ParamValue::Point3(p)),
        _ => None,
    }
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
        let Ok(decoded) = ParamBlock::of_object(block.chunk) else { return out };
        for p in &decoded.params {
            let Ok(id) = u16::try_from(p.index) else { continue };
            out.push(index, block, id, &p.value, p.controller_slot);
        }
        out
    }

    fn pb2(index: &SceneIndex<'_>, block: &SceneObject<'_>) -> Params {
        let mut out = Params::default();
        let Ok(decoded) = ParamBlock2::of_object(block.chunk) else { return out };
        for (p, slot) in decoded.params.iter().zip(&decoded.controller_slots) {
            if !p.is_tab() {
                out.push(index, block, p.id, &p.value, *slot);
            }
        }
        out
    }

    /// Records one parameter: its inline number, else its controller's default.
    fn push(
        &mut self,
        index: &SceneIndex<'_>,
        block: &SceneObject<'_>,
        id: u16,
        value: &pb::ParamValue,
        slot: Option<usize>,
    ) {
        if let Some(v) = number(value) {
            self.values.push((id, v));
            return;
        }
        match slot.map(|s| float_default(index, block.reference(s))) {
            Some(Ok(f)) => self.values.push((id, ParamValue::Float(f))),
            Some(Err(_)) => self.animated.push(id),
            None => {}
        }
    }

    /// Parameter `id`.
    pub(crate) fn get(&self, id: u16) -> Result<ParamValue, ParamError> {
        if let Some((_, v)) = self.values.iter().find(|(i, _)| *i == id) {
            return Ok(*v);
        }
        if self.animated.contains(&id) {
            return Err(ParamError::Animated(id));
        }
        Err(ParamError::Missing(id))
    }

    /// Parameter `id` as a float.
    pub(crate) fn float(&self, id: u16) -> Result<f32, ParamError> {
        self.get(id).map(ParamValue::as_f32)
    }

    /// Parameter `id` as an integer.
    pub(crate) fn int(&self, id: u16) -> Result<i32, ParamError> {
        self.get(id).map(ParamValue::as_i32)
    }

    /// Parameter `id` as an integer, `default` when the block does not store it (older
    /// releases omit parameters added later).
    pub(crate) fn int_or(&self, id: u16, default: i32) -> Result<i32, ParamError> {
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
