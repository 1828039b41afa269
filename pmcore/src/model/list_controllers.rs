//! Float / Position / Rotation / Scale List controllers (Class IDs 0x4b4b1000, 0x4b4b1002,
//! 0x4b4b1003, 0x4b4b1004): which sub-controllers a list holds and with what weights, and
//! their combination at a time.
//!
//! Layout measured on `wild/ryu-ko__9_2.max` and `wild/prantoahmed__animation.max` (Max
//! 2022 / 2014; every node under a Position List there): chunk 0x1010 holds the number of
//! sub-controllers `n` (`u32`), 0x1020 the active entry; references `0 … n−1` are the
//! sub-controllers and reference `2n` a ParamBlock2 whose parameter 0 is a Tab of `n`
//! float weights (1.0 = Max's 100 %).
//!
//! Combination: a float or position list is the weighted sum `Σ wᵢ·vᵢ` (a list adds its
//! entries' values, each scaled by its weight); a rotation list composes its entries, and a
//! scale list multiplies them, which no reference in the corpus checks — so rotation and
//! scale lists are combined only when at most one entry differs from the identity and every
//! weight is 1 (the order and the weighting of rotations and scales are then immaterial);
//! anything else is refused with its reason. An animated weight (no inline value) is
//! refused too. The corpus's keyed lists all hold a Path Constraint, which pmcore does not
//! evaluate: their nodes now stop at the Path Constraint, named, instead of the list.

use super::controllers::{class_name, ControllerError};
use super::paramblock::{ParamBlock2, ParamValue};
use super::scene_index::{SceneIndex, SceneObject};
use crate::classes::ids::{FLOAT_LIST, PARAM_BLOCK2, POSITION_LIST, ROTATION_LIST, SCALE_LIST};
use glam::{Quat, Vec3};

/// Sub-controller count chunk of a list controller.
const LIST_COUNT: u16 = 0x1010;

/// The kinds of list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ListKind {
    /// Float List.
    Float,
    /// Position List.
    Position,
    /// Rotation List.
    Rotation,
    /// Scale List.
    Scale,
}

/// A list controller's entries: `(sub-controller slot, weight)`.
#[derive(Clone, Debug, PartialEq)]
pub struct ListEntries {
    /// What the list combines.
    pub kind: ListKind,
    /// Sub-controller storage index and weight, in list order.
    pub entries: Vec<(Option<usize>, f32)>,
}

/// The list kind of `o`, `None` when it is no list controller.
pub fn list_kind(o: &SceneObject<'_>) -> Option<ListKind> {
    let id = o.class.as_ref()?.class_id;
    [
        (FLOAT_LIST, ListKind::Float),
        (POSITION_LIST, ListKind::Position),
        (ROTATION_LIST, ListKind::Rotation),
        (SCALE_LIST, ListKind::Scale),
    ]
    .into_iter()
    .find_map(|(c, k)| (c == id).then_some(k))
}

fn refused(o: &SceneObject<'_>, what: String, role: &'static str) -> ControllerError {
    ControllerError::Unsupported { object: o.storage_index, class: format!("{} ({what})", class_name(o)), role }
}

/// The entries of list controller `o` (see the module notes for the layout).
pub fn list_entries(
    index: &SceneIndex<'_>,
    o: &SceneObject<'_>,
    role: &'static str,
) -> Result<ListEntries, ControllerError> {
    let Some(kind) = list_kind(o) else { return Err(refused(o, "not a list controller".into(), role)) };
    let count = o
        .chunk
        .child(LIST_COUNT)
        .and_then(|c| c.payload())
        .filter(|p| p.len() == 4)
        .map(|p| u32::from_le_bytes([p[0], p[1], p[2], p[3]]) as usize)
        .ok_or(ControllerError::BadValue {
            object: o.storage_index,
            chunk: LIST_COUNT,
            what: "missing or not 4 bytes".into(),
        })?;
    let block = o
        .reference(2 * count)
        .and_then(|s| index.get(s))
        .filter(|b| b.class.as_ref().is_some_and(|c| c.class_id == PARAM_BLOCK2))
        .ok_or_else(|| refused(o, format!("no weight ParamBlock2 at reference {}", 2 * count), role))?;
    let pb = ParamBlock2::of_object(block.chunk).map_err(|e| refused(o, format!("weights: {e}"), role))?;
    let weights: Vec<Option<f32>> = match pb.params.iter().find(|p| p.id == 0).map(|p| &p.value) {
        Some(ParamValue::Tab(items)) => items
            .iter()
            .map(|i| match i.value {
                ParamValue::Float(f) => Some(f),
                _ => None,
            })
            .collect(),
        _ => return Err(refused(o, "weight parameter 0 is not a Tab".into(), role)),
    };
    if weights.len() != count {
        return Err(refused(o, format!("{} weights for {count} entries", weights.len()), role));
    }
    let entries = weights
        .iter()
        .enumerate()
        .map(|(i, w)| w.map(|w| (o.reference(i), w)))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| refused(o, "an animated weight (not evaluated)".into(), role))?;
    // A list inside a list is refused: it keeps the evaluation's recursion one level deep
    // whatever references a file holds (a list naming itself cannot loop).
    if entries.iter().any(|(s, _)| s.and_then(|s| index.get(s)).is_some_and(|e| list_kind(e).is_some())) {
        return Err(refused(o, "a list inside the list (not evaluated)".into(), role));
    }
    Ok(ListEntries { kind, entries })
}

/// Weighted sum of float or position values.
pub fn weighted_sum(values: &[(Vec3, f32)]) -> Vec3 {
    values.iter().map(|(v, w)| *v * *w).sum()
}

/// Rotation list value: the one non-identity entry (all weights 1), or the identity;
/// `None` when the combination is not established (see the module notes).
pub fn combined_rotation(values: &[(Quat, f32)]) -> Option<Quat> {
    let moving: Vec<Quat> =
        values.iter().filter(|(q, _)| q.angle_between(Quat::IDENTITY) > 1e-7).map(|(q, _)| *q).collect();
    if values.iter().any(|(_, w)| *w != 1.0) || moving.len() > 1 {
        return None;
    }
    Some(moving.first().copied().unwrap_or(Quat::IDENTITY))
}

/// Scale list value: the one non-unit entry with its axis (all weights 1), or unit scale;
/// `None` when the combination is not established.
pub fn combined_scale(values: &[((Vec3, Quat), f32)]) -> Option<(Vec3, Quat)> {
    let moving: Vec<(Vec3, Quat)> =
        values.iter().filter(|((s, _), _)| (*s - Vec3::ONE).abs().max_element() > 1e-7).map(|(v, _)| *v).collect();
    if values.iter().any(|(_, w)| *w != 1.0) || moving.len() > 1 {
        return None;
    }
    Some(moving.first().copied().unwrap_or((Vec3::ONE, Quat::IDENTITY)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_lists_add_weighted_entries() {
        // (1, 2, 3) at 100 % and (10, 0, −4) at 50 %: (6, 2, 1).
        let v = weighted_sum(&[(Vec3::new(1.0, 2.0, 3.0), 1.0), (Vec3::new(10.0, 0.0, -4.0), 0.5)]);
        assert_eq!(v, Vec3::new(6.0, 2.0, 1.0));
    }

    #[test]
    fn rotation_and_scale_lists_combine_only_when_established() {
        let z = Quat::from_rotation_z(0.5);
        assert_eq!(combined_rotation(&[(Quat::IDENTITY, 1.0), (z, 1.0)]), Some(z));
        assert_eq!(combined_rotation(&[(z, 1.0), (z, 1.0)]), None);
        assert_eq!(combined_rotation(&[(z, 0.5)]), None);
        let s = (Vec3::new(2.0, 1.0, 1.0), Quat::IDENTITY);
        assert_eq!(combined_scale(&[((Vec3::ONE, Quat::IDENTITY), 1.0), (s, 1.0)]), Some(s));
        assert_eq!(combined_scale(&[(s, 1.0), (s, 1.0)]), None);
    }

    proptest::proptest! {
        /// The weighted sum is linear: doubling every weight doubles the sum.
        #[test]
        fn weighted_sums_are_linear(v in proptest::collection::vec((-1e3f32..1e3, -1e3f32..1e3, -1e3f32..1e3, 0f32..2.0), 0..6)) {
            let values: Vec<(Vec3, f32)> = v.iter().map(|(x, y, z, w)| (Vec3::new(*x, *y, *z), *w)).collect();
            let doubled: Vec<(Vec3, f32)> = values.iter().map(|(p, w)| (*p, w * 2.0)).collect();
            let (a, b) = (weighted_sum(&values), weighted_sum(&doubled));
            proptest::prop_assert!((b - a * 2.0).length() <= 1e-3 * (1.0 + a.length()));
        }
    }
}
