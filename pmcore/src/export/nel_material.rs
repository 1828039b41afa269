//! The texture slots of a NeL Material — the scripted material of the Ryzom / NeL 3ds Max
//! exporter (Class ID [`NEL_MATERIAL`]) — as the NeL exporter reads them
//! (`export_material.cpp`, facts only): for stage `i` < 4 (`IDRV_MAT_MAXTEXTURES`), when
//! `bEnableSlot_<i+1>` is on and `tTexture_<i+1>` holds a texmap, that texture goes on stage
//! `i`; a disabled slot, or an enabled one without texmap, leaves the stage empty.
//!
//! The script keeps its slots in one ParamBlock2 whose parameters are `bEnableSlot_1..8`
//! (bools, ids 0–7), `bTexGen_1..8` (bools, ids 8–15) and `tTexture_1..8` (texmaps, ids
//! 0x10–0x17). Which block that is depends on the script's version (block 1 in the Max 4 /
//! Max 6 scenes of mtp-target, block 2 in neloid's Max 2010 `tile.max`, where block 1 holds
//! the main settings), so the block is found by that parameter layout, never by a name.
//! The texmaps are the block's references, in the order of its reference-holding
//! parameters (`skeetmtp__snow_island.max`: the 0x2035 map names slot 0 → the Bitmap of
//! `tTexture_1`).

use crate::model::paramblock::{ParamBlock2, ParamValue};
use crate::model::scene_index::{SceneIndex, SceneObject};

pub(crate) use crate::classes::ids::NEL_MATERIAL;

/// Stages the NeL exporter fills from the slots (`IDRV_MAT_MAXTEXTURES`).
pub(crate) const STAGES: usize = 4;
/// Parameter ids of the slot block.
const ENABLE_SLOT_1: u16 = 0x00;
const TEXTURE_1: u16 = 0x10;
/// Slots the script has.
const SLOTS: u16 = 8;
/// `ParamType2` numbers: bool, texmap.
const TYPE_BOOL: u16 = 4;
const TYPE_TEXMAP: u16 = 0xf;

/// Why a NeL Material's slots cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum NelMaterialError {
    /// No parameter block of the material has the slot layout.
    #[error("NeL Material #{0}: no parameter block with the texture-slot layout (bEnableSlot / tTexture)")]
    NoSlotBlock(usize),
}

/// The texmap object of each stage (storage indices; `None` for an empty stage) of the NeL
/// Material `m`.
pub(crate) fn stage_texmaps(
    index: &SceneIndex<'_>,
    m: &SceneObject<'_>,
) -> Result<[Option<usize>; STAGES], NelMaterialError> {
    let (block_object, block) = m
        .references()
        .into_iter()
        .filter_map(|(_, t)| index.get(t?))
        .filter_map(|o| Some((o, ParamBlock2::of_object(o.chunk).ok()?)))
        .find(|(_, b)| is_slot_block(b))
        .ok_or(NelMaterialError::NoSlotBlock(m.storage_index))?;
    let slots = reference_slots(&block);
    let mut stages = [None; STAGES];
    for (i, stage) in stages.iter_mut().enumerate() {
        let enabled = block
            .params
            .iter()
            .find(|p| p.id == ENABLE_SLOT_1 + i as u16)
            .is_some_and(|p| matches!(p.value, ParamValue::Bool(v) | ParamValue::Int(v) if v != 0));
        if !enabled {
            continue;
        }
        let slot = slots.iter().find(|(id, _)| *id == TEXTURE_1 + i as u16).map(|&(_, s)| s);
        *stage = slot.and_then(|s| block_object.reference(s));
    }
    Ok(stages)
}

/// True for the block holding `bEnableSlot_1..8` (bools 0–7) and `tTexture_1..8` (texmaps
/// 0x10–0x17).
fn is_slot_block(block: &ParamBlock2) -> bool {
    let has = |id: u16, ty: u16| block.params.iter().any(|p| p.id == id && p.param_type == ty);
    (0..SLOTS).all(|k| has(ENABLE_SLOT_1 + k, TYPE_BOOL) && has(TEXTURE_1 + k, TYPE_TEXMAP))
}

/// (parameter id, reference slot) of the block's reference-holding parameters: controller-
/// backed values and reference-typed parameters, numbered in stored order.
fn reference_slots(block: &ParamBlock2) -> Vec<(u16, usize)> {
    block
        .params
        .iter()
        .filter(|p| !p.is_tab() && (p.is_controller_backed() || p.holds_reference()))
        .enumerate()
        .map(|(slot, p)| (p.id, slot))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::paramblock::Param;

    /// A record; a value-type record without a value is controller-backed (tag 0).
    fn param(id: u16, param_type: u16, value: ParamValue) -> Param {
        let tag = if value == ParamValue::None && param_type != TYPE_TEXMAP { 0 } else { 0x40 };
        Param { form: 0x000a, id, param_type, word4: 0, word6: 0, flags: 0, extra: [0; 2], tag, value }
    }

    fn slot_block(enabled: [bool; 8]) -> ParamBlock2 {
        let mut params: Vec<Param> =
            (0..8).map(|k| param(k, TYPE_BOOL, ParamValue::Bool(i32::from(enabled[k as usize])))).collect();
        params.extend((8..16).map(|k| param(k, TYPE_BOOL, ParamValue::Bool(0))));
        params.extend((0x10..0x18).map(|k| param(k, TYPE_TEXMAP, ParamValue::None)));
        ParamBlock2::from_params(params)
    }

    #[test]
    fn the_slot_block_is_found_by_its_layout_and_texmaps_number_the_references() {
        let block = slot_block([true; 8]);
        assert!(is_slot_block(&block));
        // Bools hold no reference; the eight texmaps are references 0..7 in stored order.
        assert_eq!(reference_slots(&block), (0..8).map(|k| (0x10 + k as u16, k)).collect::<Vec<_>>());
        // A block missing one texmap is not the slot block.
        let mut short = slot_block([true; 8]);
        short.params.retain(|p| p.id != 0x13);
        assert!(!is_slot_block(&short));
    }

    proptest::proptest! {
        #[test]
        fn reference_slots_count_only_reference_holders(extra in proptest::collection::vec(0u16..3, 0..12)) {
            // Interleaving inline ints before the texmaps never shifts the texmaps' slots;
            // each texmap's slot is the number of reference holders before it.
            let mut params: Vec<Param> = extra.iter().enumerate()
                .map(|(i, &k)| param(0x40 + i as u16, 1, if k == 0 { ParamValue::None } else { ParamValue::Int(k as i32) }))
                .collect();
            params.extend((0x10..0x18).map(|k| param(k, TYPE_TEXMAP, ParamValue::None)));
            let block = ParamBlock2::from_params(params);
            let before = extra.iter().filter(|&&k| k == 0).count(); // controller-backed ints
            let slots = reference_slots(&block);
            for k in 0..8usize {
                proptest::prop_assert!(slots.contains(&(0x10 + k as u16, before + k)));
            }
        }
    }
}
