//! What every key-table decoder shares (`model::keys`, `keys_tcb`, `keys_linear`): where a
//! controller keeps its table (in its chunk, or inside the 0x7127 wrapper newer files put
//! float controllers' chunks in), the typed error for a table that is not a whole number of
//! keys, and the Bezier Float key the Bezier Position tables reuse per component.

use super::controllers::{self, ControllerError};
use super::scene_index::SceneObject;

/// One Bezier Float key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatKey {
    /// Time in ticks.
    pub time: i32,
    /// Flags (tangent types at bits 7..9 in, 10..12 out).
    pub flags: u32,
    /// Value.
    pub value: f32,
    /// In tangent (units per tick, pointing back in time).
    pub in_tangent: f32,
    /// Out tangent (units per tick).
    pub out_tangent: f32,
    /// In handle length (fraction of the interval before the key).
    pub in_length: f32,
    /// Out handle length (fraction of the interval after the key).
    pub out_length: f32,
}

impl FloatKey {
    /// Out tangent type *step*: the value holds until the next key.
    pub(crate) fn is_step_out(&self) -> bool {
        self.out_type() == 2
    }

    #[cfg(test)]
    /// In tangent type (flag bits 7..9: 0 smooth, 1 linear, 2 step, 3 fast, 4 slow, 5 custom…).
    pub(crate) fn in_type(&self) -> u32 {
        (self.flags >> 7) & 7
    }

    /// Out tangent type (flag bits 10..12).
    pub(crate) fn out_type(&self) -> u32 {
        (self.flags >> 10) & 7
    }
}

/// The little-endian dwords of a key.
pub(crate) fn words(p: &[u8]) -> impl Iterator<Item = [u8; 4]> + '_ {
    p.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]])
}

/// Payload of chunk `id` on a controller, directly or inside the 0x7127 wrapper.
pub(crate) fn table<'a>(o: &'a SceneObject<'a>, id: u16) -> Option<&'a [u8]> {
    o.chunk
        .child(id)
        .and_then(|c| c.payload())
        .or_else(|| o.chunk.child(controllers::FLOAT_VALUE_WRAPPER).and_then(|w| w.child(id)).and_then(|c| c.payload()))
}

/// The typed error for a table of `bytes` that is not a whole number of `per_key` keys.
pub(crate) fn bad(o: &SceneObject<'_>, chunk: u16, bytes: usize, per_key: usize) -> ControllerError {
    ControllerError::BadValue {
        object: o.storage_index,
        chunk,
        what: format!("has {bytes} bytes, not a whole number of {per_key}-byte keys"),
    }
}
