//! ReferenceMaker references, in the form they were stored (digest §5.2):
//! - 0x2034 flat: `s32` per slot, value = target storage index; −1 **and 0** mean empty.
//!   Every slot is kept, trailing −1s and literal 0s included.
//! - 0x2035 map: a leading `s32` (meaning unknown, kept), then `(slot, storage index)`
//!   pairs **in stored order**.

use super::decode_state::{Ctx, Span, Surprise};
use super::writer::{BuildError, Writer};
use crate::chunk::{Chunk, HeaderWidth};

/// Flat reference chunk id.
pub(crate) const FLAT: u16 = 0x2034;
/// Map reference chunk id.
pub(crate) const MAP: u16 = 0x2035;

/// A decoded reference chunk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum References {
    /// 0x2034: one stored value per slot.
    Flat {
        /// Header width as read.
        width: HeaderWidth,
        /// Stored value per slot (storage index, or −1 / 0 for empty).
        slots: Vec<i32>,
    },
    /// 0x2035: leading value then pairs.
    Map {
        /// Header width as read.
        width: HeaderWidth,
        /// The leading value, kept verbatim.
        leading: i32,
        /// `(slot, storage index)` in stored order.
        pairs: Vec<(i32, i32)>,
    },
}

fn i32_at(p: &[u8], i: usize) -> i32 {
    i32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]])
}

impl References {
    /// Decodes a 0x2034 or 0x2035 leaf; a container or a length that does not fit the
    /// form is a surprise.
    pub(crate) fn decode(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Result<References, Surprise> {
        let Some(p) = c.payload() else {
            return Err(ctx.surprise(format!("references 0x{:04x} is a container", c.id)));
        };
        let refs = match c.id {
            FLAT if p.len().is_multiple_of(4) => {
                References::Flat { width: c.width, slots: (0..p.len() / 4).map(|i| i32_at(p, 4 * i)).collect() }
            }
            MAP if p.len() >= 4 && (p.len() - 4) % 8 == 0 => References::Map {
                width: c.width,
                leading: i32_at(p, 0),
                pairs: (0..(p.len() - 4) / 8).map(|i| (i32_at(p, 4 + 8 * i), i32_at(p, 8 + 8 * i))).collect(),
            },
            _ => {
                return Err(ctx.surprise(format!(
                    "references 0x{:04x} has {} bytes, which does not fit its form",
                    c.id,
                    p.len()
                )))
            }
        };
        ctx.claims.claim(span);
        Ok(refs)
    }

    /// Chunk id of the stored form.
    pub(crate) fn id(&self) -> u16 {
        match self {
            References::Flat { .. } => FLAT,
            References::Map { .. } => MAP,
        }
    }

    #[cfg(test)]
    /// `(slot, target)` for every bound slot (targets > 0), in stored order.
    pub(crate) fn targets(&self) -> Vec<(usize, usize)> {
        match self {
            References::Flat { slots, .. } => {
                slots.iter().enumerate().filter(|(_, &t)| t > 0).map(|(s, &t)| (s, t as usize)).collect()
            }
            References::Map { pairs, .. } => {
                pairs.iter().filter(|(s, t)| *s >= 0 && *t > 0).map(|&(s, t)| (s as usize, t as usize)).collect()
            }
        }
    }

    #[cfg(test)]
    /// Target storage index of `slot`, when bound.
    pub(crate) fn target(&self, slot: usize) -> Option<usize> {
        match self {
            References::Flat { slots, .. } => slots.get(slot).filter(|&&t| t > 0).map(|&t| t as usize),
            References::Map { pairs, .. } => pairs
                .iter()
                .find(|(s, _)| *s as usize == slot && *s >= 0)
                .filter(|(_, t)| *t > 0)
                .map(|&(_, t)| t as usize),
        }
    }

    /// Number of slots as stored: flat length, or the number of map pairs.
    pub(crate) fn slot_count(&self) -> usize {
        match self {
            References::Flat { slots, .. } => slots.len(),
            References::Map { pairs, .. } => pairs.len(),
        }
    }

    /// Writes the chunk in its stored form.
    pub(crate) fn build(&self, w: &mut Writer<'_>) -> Result<(), BuildError> {
        match self {
            References::Flat { width, slots } => {
                w.leaf_with(FLAT, *width, |o| slots.iter().for_each(|v| o.extend_from_slice(&v.to_le_bytes())))
            }
            References::Map { width, leading, pairs } => w.leaf_with(MAP, *width, |o| {
                o.extend_from_slice(&leading.to_le_bytes());
                for (s, t) in pairs {
                    o.extend_from_slice(&s.to_le_bytes());
                    o.extend_from_slice(&t.to_le_bytes());
                }
            }),
        }
    }
}
