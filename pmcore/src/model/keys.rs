//! Read-only decoders of keyframe controller key tables, and sampling of a node's local
//! transform at a time — what the pairs T3 `animation` comparison needs to check 3ds Max's
//! own exported curves against the `.max`.
//!
//! The other keyframe families live beside this module: TCB in `keys_tcb`, Linear and Bezier
//! Position in `keys_linear`, the List controllers in `list_controllers`; the samplers below
//! dispatch to them by key-table chunk and Class ID.
//!
//! Key-table layouts (design doc §10b, little-endian dwords, ticks = 1/4800 s): Bezier
//! Float 0x2525, 28 bytes per key = `time, flags, value, in tangent, out tangent, in length,
//! out length` (tangents in units per tick); Bezier Scale 0x2528, 148 bytes per key = `time,
//! flags, scale[3], axis quaternion[4]`, then four 7-word groups (a Point3 and an identity
//! quaternion each): in tangent, out tangent, in length, out length — measured on
//! `wild/tae8838__blue.max` (smooth keys store in = −out, lengths 0.3333 or the −1
//! sentinel at the ends, quaternion words `0 0 0 1` in every key). The table sits beside the
//! default value: in the controller's chunk, or inside the 0x7127 wrapper newer files put
//! float controllers' chunks in. A table whose size is not a whole number of keys is a typed
//! error, never read partly.
//!
//! Sampling (Max's own rules where the data shows them): before the first key and after the
//! last the end key's value holds (Max's default out-of-range type, constant); at a key time
//! the key's value; between two keys a Bezier float is the cubic through `(t0, v0)`,
//! `(t0 + Δ/3, v0 + T_out·Δ/3)`, `(t1 − Δ/3, v1 + T_in·Δ/3)`, `(t1, v1)` in (time, value)
//! — the in tangent points back in time, so a smooth key stores `T_in = −T_out` — with the
//! out tangent type *step* (flag bits 10..12 = 2) holding `v0`. The stored in/out lengths
//! are not used: Max keeps the handles at a third unless a key has a free handle (see
//! [`HANDLE_THIRD`]); a table with a free-handle key is reported, not sampled.
//! A Bezier Scale is sampled per scale component like a Bezier Float with its in/out
//! tangents (the scale axis must be the same on both keys; a rotating scale axis is reported,
//! not interpolated): `Blue.FBX` B_Root, keys (1, 1, 1) at −320 and 0 ticks with out tangent
//! (−8.238e-5, −5.049e-5) and in tangent (−6.487e-4, −3.976e-4) give (0.970755, 0.982075) at
//! frame −1, where the file holds (0.971, 0.982).

use super::controllers::{
    self, class_name, has_class, object, ControllerError, LocalTransform, EULER_ORDER, EULER_XYZ, POSITION_XYZ,
    SCALE_XYZ,
};
pub use super::key_tables::FloatKey;
use super::key_tables::{bad, table, words};
use super::list_controllers::{self as lists, ListKind};
use super::scene_index::{SceneIndex, SceneObject};
use super::{keys_linear, keys_tcb};
use glam::{Quat, Vec3};

/// Bezier Float key table chunk.
pub(crate) const BEZIER_FLOAT_KEYS: u16 = 0x2525;
/// Bezier Scale key table chunk.
pub(crate) const BEZIER_SCALE_KEYS: u16 = 0x2528;
/// Bytes per Bezier Float key.
pub(crate) const BEZIER_FLOAT_KEY_BYTES: usize = 28;
/// Bytes per Bezier Scale key.
pub(crate) const BEZIER_SCALE_KEY_BYTES: usize = 148;

/// One Bezier Scale key (value part).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScaleKey {
    /// Time in ticks.
    pub time: i32,
    /// Flags.
    pub flags: u32,
    /// Scale factors.
    pub scale: Vec3,
    /// Scale axis (right-handed, converted from Max's stored quaternion).
    pub axis: Quat,
    /// In tangent per scale component (units per tick, pointing back in time).
    pub in_tangent: Vec3,
    /// Out tangent per scale component (units per tick).
    pub out_tangent: Vec3,
}

impl ScaleKey {
    /// The key's component `c` as a Bezier Float key (same flags, times and tangents).
    fn component(&self, c: usize) -> FloatKey {
        FloatKey {
            time: self.time,
            flags: self.flags,
            value: self.scale[c],
            in_tangent: self.in_tangent[c],
            out_tangent: self.out_tangent[c],
            in_length: HANDLE_THIRD as f32,
            out_length: HANDLE_THIRD as f32,
        }
    }
}

/// The Bezier Float keys of a controller; `None` when it holds no 0x2525 table.
pub fn float_keys(o: &SceneObject<'_>) -> Result<Option<Vec<FloatKey>>, ControllerError> {
    let Some(p) = table(o, BEZIER_FLOAT_KEYS) else { return Ok(None) };
    if !p.len().is_multiple_of(BEZIER_FLOAT_KEY_BYTES) {
        return Err(bad(o, BEZIER_FLOAT_KEYS, p.len(), BEZIER_FLOAT_KEY_BYTES));
    }
    let keys = p
        .chunks_exact(BEZIER_FLOAT_KEY_BYTES)
        .map(|k| {
            let w: Vec<[u8; 4]> = words(k).collect();
            let f = |i: usize| f32::from_le_bytes(w[i]);
            FloatKey {
                time: i32::from_le_bytes(w[0]),
                flags: u32::from_le_bytes(w[1]),
                value: f(2),
                in_tangent: f(3),
                out_tangent: f(4),
                in_length: f(5),
                out_length: f(6),
            }
        })
        .collect();
    Ok(Some(keys))
}

/// The Bezier Scale keys of a controller; `None` when it holds no 0x2528 table.
pub fn scale_keys(o: &SceneObject<'_>) -> Result<Option<Vec<ScaleKey>>, ControllerError> {
    let Some(p) = table(o, BEZIER_SCALE_KEYS) else { return Ok(None) };
    if !p.len().is_multiple_of(BEZIER_SCALE_KEY_BYTES) {
        return Err(bad(o, BEZIER_SCALE_KEYS, p.len(), BEZIER_SCALE_KEY_BYTES));
    }
    let keys = p
        .chunks_exact(BEZIER_SCALE_KEY_BYTES)
        .map(|k| {
            let w: Vec<[u8; 4]> = words(k).take(19).collect();
            let f = |i: usize| f32::from_le_bytes(w[i]);
            ScaleKey {
                time: i32::from_le_bytes(w[0]),
                flags: u32::from_le_bytes(w[1]),
                scale: Vec3::new(f(2), f(3), f(4)),
                axis: controllers::max_quat([f(5), f(6), f(7), f(8)]),
                in_tangent: Vec3::new(f(9), f(10), f(11)),
                out_tangent: Vec3::new(f(16), f(17), f(18)),
            }
        })
        .collect();
    Ok(Some(keys))
}

/// Number of keys a controller's key table holds, whatever its kind (`None`: no table).
pub(crate) fn key_count(o: &SceneObject<'_>) -> Option<(u16, usize)> {
    const SIZES: [(u16, usize); 9] = [
        (0x2513, 20),
        (0x2514, 24),
        (0x2515, 36),
        (0x2521, 64),
        (0x2522, 92),
        (0x2523, 112),
        (0x2525, 28),
        (0x2526, 80),
        (0x2528, 148),
    ];
    SIZES.iter().find_map(|&(id, size)| table(o, id).map(|p| (id, p.len() / size)))
}

/// Cubic Bezier coordinate at parameter `u`.
pub(crate) fn bezier(p0: f64, p1: f64, p2: f64, p3: f64, u: f64) -> f64 {
    let v = 1.0 - u;
    v * v * v * p0 + 3.0 * v * v * u * p1 + 3.0 * v * u * u * p2 + u * u * u * p3
}

/// Where Max puts a Bezier key's time handles: a third of the interval to the neighbour
/// key, whatever in/out length the key stores, unless the key has a free handle
/// ([`FREE_HANDLE`]). Measured on the pairs: `tae8838` Green@Run B-Root's Z position,
/// smooth key 0 (68.7038, out tangent 0.14866725/tick, stored out length `f32` 0.3333) to
/// custom key 640 (112.332535, flat): the cubic with handles at Δ/3 gives 102.411548 at
/// tick 320, the file's frame 2 holds 102.411545; with the stored 0.3333 it is 102.41039
/// (1.1e-5 relative, outside the tolerance). Over the 24 animated `.max` of the pairs
/// (10,900+ keys, lengths 0.3333, 0.333333, −1 and, on `buwaka`, 0.0585…0.33) no key has
/// the free-handle flag, and handles at Δ/3 make every in-between of `Green@Run`, `Blue`
/// and `Blue@Idle` agree.
const HANDLE_THIRD: f64 = 1.0 / 3.0;

/// Key flag `BEZKEY_UNCONSTRAINHANDLE` (bit 20, the 3ds Max SDK's key flag list): the
/// key's handle lengths are free. No pair `.max` holds one, so their meaning is not
/// measured: a table with such a key is reported, never sampled with a guess.
pub(crate) const FREE_HANDLE: u32 = 1 << 20;

/// Bezier Float value at `tick` (see the module notes for the rules).
pub(crate) fn sample_float_keys(keys: &[FloatKey], tick: f64) -> Option<f64> {
    let first = keys.first()?;
    let last = keys.last()?;
    if tick <= first.time as f64 {
        return Some(first.value as f64);
    }
    if tick >= last.time as f64 {
        return Some(last.value as f64);
    }
    let k = keys.windows(2).position(|w| tick >= w[0].time as f64 && tick <= w[1].time as f64)?;
    let (a, b) = (&keys[k], &keys[k + 1]);
    let (t0, t1) = (a.time as f64, b.time as f64);
    if tick == t0 {
        return Some(a.value as f64);
    }
    if tick == t1 {
        return Some(b.value as f64);
    }
    if a.is_step_out() {
        return Some(a.value as f64);
    }
    let dt = t1 - t0;
    let (lo, li) = (HANDLE_THIRD, HANDLE_THIRD);
    let x = [t0, t0 + lo * dt, t1 - li * dt, t1];
    let y = [
        a.value as f64,
        a.value as f64 + a.out_tangent as f64 * lo * dt,
        b.value as f64 + b.in_tangent as f64 * li * dt,
        b.value as f64,
    ];
    // The time coordinate is monotonic for handle lengths in [0, 1]: bisection finds u.
    let (mut lo_u, mut hi_u) = (0.0f64, 1.0f64);
    for _ in 0..60 {
        let mid = 0.5 * (lo_u + hi_u);
        if bezier(x[0], x[1], x[2], x[3], mid) < tick {
            lo_u = mid;
        } else {
            hi_u = mid;
        }
    }
    Some(bezier(y[0], y[1], y[2], y[3], 0.5 * (lo_u + hi_u)))
}

/// Is `tick` strictly between two keys one of which has a free handle?
fn in_free_handle_segment(keys: &[FloatKey], tick: f64) -> bool {
    keys.windows(2)
        .any(|w| tick > w[0].time as f64 && tick < w[1].time as f64 && (w[0].flags | w[1].flags) & FREE_HANDLE != 0)
}

/// The key tables sampled here and in `keys_tcb` / `keys_linear`.
const SAMPLED: [u16; 9] = [
    BEZIER_FLOAT_KEYS,
    BEZIER_SCALE_KEYS,
    keys_linear::BEZIER_POSITION_KEYS,
    keys_linear::LINEAR_POSITION_KEYS,
    keys_linear::LINEAR_ROTATION_KEYS,
    keys_linear::LINEAR_SCALE_KEYS,
    keys_tcb::TCB_POSITION_KEYS,
    keys_tcb::TCB_ROTATION_KEYS,
    keys_tcb::TCB_SCALE_KEYS,
];

/// Linear Float key table chunk: its layout is not established (see `keys_linear`), so a
/// float controller holding one is refused, never read as its default.
const LINEAR_FLOAT_KEYS: u16 = 0x2511;

/// The key times of a controller's table, whichever kind this module samples (`None`: no
/// table, or one not sampled here; an undecodable table gives no times).
fn key_times(o: &SceneObject<'_>) -> Option<Vec<i32>> {
    let (id, _) = key_count(o)?;
    let times = match id {
        BEZIER_FLOAT_KEYS => float_keys(o).ok()??.iter().map(|k| k.time).collect(),
        BEZIER_SCALE_KEYS => scale_keys(o).ok()??.iter().map(|k| k.time).collect(),
        keys_linear::BEZIER_POSITION_KEYS => {
            keys_linear::bezier_position_keys(o).ok()??[0].iter().map(|k| k.time).collect()
        }
        keys_tcb::TCB_POSITION_KEYS | keys_tcb::TCB_SCALE_KEYS => {
            keys_tcb::tcb_vec_keys(o).ok()??.iter().map(|k| k.time).collect()
        }
        keys_tcb::TCB_ROTATION_KEYS => keys_tcb::tcb_rot_keys(o).ok()??.iter().map(|k| k.time).collect(),
        _ => keys_linear::linear_keys(o).ok()??.iter().map(|k| k.time).collect(),
    };
    Some(times)
}

/// A keyframe controller whose key table this module does not sample.
fn untyped(o: &SceneObject<'_>, role: &'static str) -> Option<ControllerError> {
    key_count(o).filter(|(id, n)| *n > 0 && !SAMPLED.contains(id)).map(|(id, n)| ControllerError::Unsupported {
        object: o.storage_index,
        class: format!("{} with {n} key(s) in table 0x{id:04x} (not sampled)", class_name(o)),
        role,
    })
}

/// A float controller's value at `tick`: its Bezier Float keys, else its default.
pub(crate) fn float_at(index: &SceneIndex<'_>, slot: Option<usize>, tick: f64) -> Result<f32, ControllerError> {
    let o = object(index, slot, "float")?;
    if lists::list_kind(o) == Some(ListKind::Float) {
        let entries = lists::list_entries(index, o, "float")?.entries;
        let values = entries
            .iter()
            .map(|(s, w)| Ok((Vec3::splat(float_at(index, *s, tick)?), *w)))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(lists::weighted_sum(&values).x);
    }
    if let Some(e) = untyped(o, "float") {
        return Err(e);
    }
    if table(o, LINEAR_FLOAT_KEYS).is_some_and(|p| !p.is_empty()) {
        return Err(refused(o, "key table 0x2511 (layout not established, not sampled)", "float"));
    }
    match float_keys(o)? {
        Some(keys) if in_free_handle_segment(&keys, tick) => Err(ControllerError::Unsupported {
            object: o.storage_index,
            class: format!("{} between free-handle keys (handle lengths: shape not modelled)", class_name(o)),
            role: "float",
        }),
        Some(keys) if !keys.is_empty() => Ok(sample_float_keys(&keys, tick).unwrap_or(0.0) as f32),
        _ => controllers::float_default(index, slot),
    }
}

fn refused(o: &SceneObject<'_>, what: &str, role: &'static str) -> ControllerError {
    ControllerError::Unsupported { object: o.storage_index, class: format!("{} {what}", class_name(o)), role }
}

/// A Bezier Position, TCB Position or Linear Position's keyed value at `tick` (`None`: no
/// such table, or an empty one).
fn keyed_position(o: &SceneObject<'_>, tick: f64) -> Result<Option<Vec3>, ControllerError> {
    if let Some(tracks) = keys_linear::bezier_position_keys(o)?.filter(|t| !t[0].is_empty()) {
        if tracks.iter().any(|t| in_free_handle_segment(t, tick)) {
            return Err(refused(o, "between free-handle keys (handle lengths: shape not modelled)", "position"));
        }
        let c = |i: usize| sample_float_keys(&tracks[i], tick).unwrap_or(0.0) as f32;
        return Ok(Some(Vec3::new(c(0), c(1), c(2))));
    }
    if let Some(keys) = keys_tcb::tcb_vec_keys(o)?.filter(|k| !k.is_empty()) {
        return Ok(keys_tcb::sample_tcb_vec(&keys, tick).map(|v| v.as_vec3()));
    }
    Ok(keys_linear::linear_keys(o)?.and_then(|k| keys_linear::sample_linear_vec(&k, tick)))
}

/// A TCB Rotation or Linear Rotation's keyed value at `tick` (right-handed).
fn keyed_rotation(o: &SceneObject<'_>, tick: f64) -> Result<Option<Quat>, ControllerError> {
    if let Some(keys) = keys_tcb::tcb_rot_keys(o)?.filter(|k| !k.is_empty()) {
        return keys_tcb::sample_tcb_rot(&keys, tick).map_err(|i| {
            refused(o, &format!("key {i} turns more than half a turn (multi-turn spin not modelled)"), "rotation")
        });
    }
    Ok(keys_linear::linear_keys(o)?.and_then(|k| keys_linear::sample_linear_rot(&k, tick)))
}

/// A TCB Scale or Linear Scale's keyed value and scale axis at `tick`; keys whose scale
/// axes differ around `tick` are refused (a rotating scale axis is not modelled).
fn keyed_scale(o: &SceneObject<'_>, tick: f64) -> Result<Option<(Vec3, Quat)>, ControllerError> {
    let axes: Vec<(i32, Quat)>;
    let value = if let Some(keys) = keys_tcb::tcb_vec_keys(o)?.filter(|k| !k.is_empty()) {
        axes = keys.iter().map(|k| (k.time, k.axis)).collect();
        keys_tcb::sample_tcb_vec(&keys, tick).map(|v| v.as_vec3())
    } else if let Some(keys) = keys_linear::linear_keys(o)?.filter(|k| !k.is_empty()) {
        axes = keys.iter().map(|k| (k.time, k.rotation)).collect();
        keys_linear::sample_linear_vec(&keys, tick)
    } else {
        return Ok(None);
    };
    let near = axes.windows(2).find(|w| tick > w[0].0 as f64 && tick < w[1].0 as f64);
    if near.is_some_and(|w| w[0].1 != w[1].1) {
        return Err(refused(o, "between keys of different scale axes (shape not modelled)", "scale"));
    }
    let axis = match axes.iter().rev().find(|(t, _)| *t as f64 <= tick) {
        Some((_, a)) => *a,
        None => axes[0].1,
    };
    Ok(value.map(|v| (v, axis)))
}

pub(crate) fn position_at(index: &SceneIndex<'_>, slot: Option<usize>, tick: f64) -> Result<Vec3, ControllerError> {
    let o = object(index, slot, "position")?;
    if has_class(o, POSITION_XYZ) {
        let axis = |s| float_at(index, o.reference(s), tick);
        return Ok(Vec3::new(axis(0)?, axis(1)?, axis(2)?));
    }
    if lists::list_kind(o) == Some(ListKind::Position) {
        let entries = lists::list_entries(index, o, "position")?.entries;
        let values =
            entries.iter().map(|(s, w)| Ok((position_at(index, *s, tick)?, *w))).collect::<Result<Vec<_>, _>>()?;
        return Ok(lists::weighted_sum(&values));
    }
    if let Some(v) = keyed_position(o, tick)? {
        return Ok(v);
    }
    if let Some(e) = untyped(o, "position") {
        return Err(e);
    }
    controllers::position_default(index, slot)
}

pub(crate) fn rotation_at(index: &SceneIndex<'_>, slot: Option<usize>, tick: f64) -> Result<Quat, ControllerError> {
    let o = object(index, slot, "rotation")?;
    if has_class(o, EULER_XYZ) {
        let order = o.chunk.child(EULER_ORDER).and_then(|c| c.payload()).map(|p| p.to_vec());
        if order.is_some_and(|p| p != [0, 0, 0, 0]) {
            return Err(ControllerError::Unsupported {
                object: o.storage_index,
                class: format!("{} (axis order other than XYZ)", class_name(o)),
                role: "rotation",
            });
        }
        let angle = |s| float_at(index, o.reference(s), tick);
        return Ok(Quat::from_euler(glam::EulerRot::ZYX, angle(2)?, angle(1)?, angle(0)?));
    }
    if lists::list_kind(o) == Some(ListKind::Rotation) {
        let entries = lists::list_entries(index, o, "rotation")?.entries;
        let values =
            entries.iter().map(|(s, w)| Ok((rotation_at(index, *s, tick)?, *w))).collect::<Result<Vec<_>, _>>()?;
        return lists::combined_rotation(&values).ok_or_else(|| {
            refused(o, "with weights or several turning entries (composition not established)", "rotation")
        });
    }
    if let Some(q) = keyed_rotation(o, tick)? {
        return Ok(q);
    }
    if let Some(e) = untyped(o, "rotation") {
        return Err(e);
    }
    controllers::rotation_default(index, slot)
}

pub(crate) fn scale_at(
    index: &SceneIndex<'_>,
    slot: Option<usize>,
    tick: f64,
) -> Result<(Vec3, Quat), ControllerError> {
    let o = object(index, slot, "scale")?;
    if has_class(o, SCALE_XYZ) {
        let axis = |s| float_at(index, o.reference(s), tick);
        return Ok((Vec3::new(axis(0)?, axis(1)?, axis(2)?), Quat::IDENTITY));
    }
    if lists::list_kind(o) == Some(ListKind::Scale) {
        let entries = lists::list_entries(index, o, "scale")?.entries;
        let values =
            entries.iter().map(|(s, w)| Ok((scale_at(index, *s, tick)?, *w))).collect::<Result<Vec<_>, _>>()?;
        return lists::combined_scale(&values)
            .ok_or_else(|| refused(o, "with weights or several scaling entries (product not established)", "scale"));
    }
    if let Some(v) = keyed_scale(o, tick)? {
        return Ok(v);
    }
    if let Some(e) = untyped(o, "scale") {
        return Err(e);
    }
    match scale_keys(o)? {
        Some(keys) if !keys.is_empty() => {
            let first = &keys[0];
            let last = &keys[keys.len() - 1];
            let pick = |k: &ScaleKey| (k.scale, k.axis);
            if tick <= first.time as f64 {
                return Ok(pick(first));
            }
            if tick >= last.time as f64 {
                return Ok(pick(last));
            }
            for w in keys.windows(2) {
                let (a, b) = (&w[0], &w[1]);
                if tick == a.time as f64 {
                    return Ok(pick(a));
                }
                if tick == b.time as f64 {
                    return Ok(pick(b));
                }
                if tick > a.time as f64 && tick < b.time as f64 {
                    if a.axis != b.axis {
                        return Err(ControllerError::Unsupported {
                            object: o.storage_index,
                            class: format!(
                                "{} between keys of different scale axes (shape not modelled)",
                                class_name(o)
                            ),
                            role: "scale",
                        });
                    }
                    let at = |c: usize| {
                        sample_float_keys(&[a.component(c), b.component(c)], tick).unwrap_or(a.scale[c] as f64) as f32
                    };
                    return Ok((Vec3::new(at(0), at(1), at(2)), a.axis));
                }
            }
            Ok(pick(last))
        }
        _ => controllers::scale_default(index, slot),
    }
}

/// The node's local transform at `tick` (Max ticks, fractional allowed): Position XYZ,
/// Euler XYZ and Scale XYZ from their float sub-controllers' keys, Bezier Scale from its
/// keys, anything else from its default — and a controller with a key table this module
/// does not sample is an error naming it, never its default.
pub(crate) fn local_transform_at(
    index: &SceneIndex<'_>,
    node: &SceneObject<'_>,
    tick: f64,
) -> Result<LocalTransform, ControllerError> {
    match controllers::transform_refs(index, node)? {
        controllers::TransformRefs::Prs { position, rotation, scale } => {
            prs_local_at(index, [position, rotation, scale], tick)
        }
        controllers::TransformRefs::LookAt { .. } => Err(ControllerError::Unsupported {
            object: node.reference(0).unwrap_or(usize::MAX),
            class: "Look At (rotation needs the target)".into(),
            role: "transform",
        }),
    }
}

/// The local transform of a Position/Rotation/Scale controller whose sub-controller slots are
/// `[position, rotation, scale]`, at `tick`: what a node under it gets, and what a Link
/// Constraint applies on its target (`model::link_constraint`).
pub fn prs_local_at(
    index: &SceneIndex<'_>,
    [position, rotation, scale]: [Option<usize>; 3],
    tick: f64,
) -> Result<LocalTransform, ControllerError> {
    let (scale, scale_axis) = scale_at(index, scale, tick)?;
    Ok(LocalTransform {
        translation: position_at(index, position, tick)?,
        rotation: rotation_at(index, rotation, tick)?.normalize(),
        scale,
        scale_axis: scale_axis.normalize(),
    })
}

/// World matrix of `node` at `tick` (parents' sampled locals accumulated from the root; a
/// Look At node's world rotation from its target, see [`look_at_world`]).
pub fn world_matrix_at(
    index: &SceneIndex<'_>,
    node: &SceneObject<'_>,
    tick: f64,
) -> Result<glam::Mat4, ControllerError> {
    world_at_depth(index, node, tick, 0)
}

/// Targets looked at through targets deeper than this are refused (a loop of Look At
/// nodes has no world matrix).
const LOOK_AT_DEPTH: usize = 8;

fn world_at_depth(
    index: &SceneIndex<'_>,
    node: &SceneObject<'_>,
    tick: f64,
    depth: usize,
) -> Result<glam::Mat4, ControllerError> {
    let mut chain = vec![node];
    let mut current = node;
    while let Some(parent) = current.node_parent().and_then(|p| index.get(p)) {
        if chain.len() > index.objects.len() || parent.reference(0).is_none() {
            break;
        }
        chain.push(parent);
        current = parent;
    }
    let mut world = glam::Mat4::IDENTITY;
    for n in chain.iter().rev() {
        world = match controllers::transform_refs(index, n)? {
            controllers::TransformRefs::LookAt { target, position, roll, scale } => {
                let refs = LookAtRefs { target, position, roll, scale };
                look_at_world(index, n, &refs, &world, tick, depth)?
            }
            controllers::TransformRefs::Prs { .. } => world * local_transform_at(index, n, tick)?.matrix(),
        };
    }
    Ok(world)
}

/// The world rotation of a Look At node at `position` looking at `target`, rolled by `roll`
/// radians (see [`look_at_world`]); `None` on the vertical through the target.
fn look_at_rotation(position: Vec3, target: Vec3, roll: f32) -> Option<glam::Mat4> {
    let z = position - target;
    let x = Vec3::Z.cross(z);
    if z.length_squared() < 1e-12 || x.length_squared() < 1e-12 * z.length_squared() {
        return None;
    }
    let (z, x) = (z.normalize(), x.normalize());
    let y = z.cross(x);
    Some(
        glam::Mat4::from_cols(x.extend(0.0), y.extend(0.0), z.extend(0.0), glam::Vec4::W)
            * glam::Mat4::from_rotation_z(roll),
    )
}

/// The sub-controllers of a Look At controller.
struct LookAtRefs {
    target: Option<usize>,
    position: Option<usize>,
    roll: Option<usize>,
    scale: Option<usize>,
}

/// A Look At node's world matrix: its position (the position controller, relative to the
/// parent) and a rotation that depends on the target alone — local +Z points from the
/// target to the node, local +X lies in the world XY plane (`world Z × z`), +Y completes
/// the right-handed frame — turned by the roll angle about local Z, then the node's scale.
/// Measured on `assimp/CameraRollAnim.ase` (Max 2009's own ASCII export): Camera01 at
/// (−152.36, 3.25, 22.79) looking at its target (−36.51, −0.24, 25.04) has `*TM_ROW2`
/// (−0.9994, 0.0301, −0.0194) = normalize(camera − target) and `*TM_ROW0`
/// (−0.0301, −0.9995, 0) = normalize(Z × row2). The roll turns the frame by +roll (the
/// float controller's value, radians) about local Z: with −roll, Camera01's 121 rotation
/// samples of `CameraRollAnim.ase` miss by 1.8e-3 rad at frame 0 (beyond the file's printing
/// bound, 8.7e-4); with +roll every one is within 2.1e-4. A node straight above or below its
/// target (no horizontal direction) is refused, not guessed.
fn look_at_world(
    index: &SceneIndex<'_>,
    node: &SceneObject<'_>,
    refs: &LookAtRefs,
    parent_world: &glam::Mat4,
    tick: f64,
    depth: usize,
) -> Result<glam::Mat4, ControllerError> {
    let unsupported = |class: &str| ControllerError::Unsupported {
        object: node.reference(0).unwrap_or(usize::MAX),
        class: format!("Look At ({class})"),
        role: "transform",
    };
    let target = refs.target.and_then(|t| index.get(t)).filter(|t| t.is_node()).ok_or(unsupported("no target node"))?;
    if depth >= LOOK_AT_DEPTH {
        return Err(unsupported("targets chained deeper than 8"));
    }
    let target_at = world_at_depth(index, target, tick, depth + 1)?.w_axis.truncate();
    let position = parent_world.transform_point3(position_at(index, refs.position, tick)?);
    let roll = match refs.roll {
        Some(_) => float_at(index, refs.roll, tick)?,
        None => 0.0,
    };
    let rotation = look_at_rotation(position, target_at, roll)
        .ok_or_else(|| unsupported("node on the vertical through its target: up direction not modelled"))?;
    let (scale, axis) = match refs.scale {
        Some(_) => scale_at(index, refs.scale, tick)?,
        None => (Vec3::ONE, Quat::IDENTITY),
    };
    let axis = glam::Mat4::from_quat(axis.normalize());
    Ok(glam::Mat4::from_translation(position) * rotation * axis * glam::Mat4::from_scale(scale) * axis.inverse())
}

/// Does any transform sub-controller of `node` (PRS slots, and the float controllers under
/// Position/Euler/Scale XYZ) hold keys?
pub fn has_keys(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> bool {
    let Ok(controllers::TransformRefs::Prs { position, rotation, scale }) = controllers::transform_refs(index, node)
    else {
        return false;
    };
    let keyed = |slot: Option<usize>| -> bool {
        let Some(o) = slot.and_then(|s| index.get(s)) else { return false };
        if key_count(o).is_some_and(|(_, n)| n > 0) {
            return true;
        }
        (0..3).any(|s| o.reference(s).and_then(|r| index.get(r)).and_then(key_count).is_some_and(|(_, n)| n > 0))
    };
    keyed(position) || keyed(rotation) || keyed(scale)
}

/// The span of `node`'s own transform keys, `(first, last)` in ticks, over its PRS slots and
/// their float sub-controllers — `None` when it holds no key, when its transform is not a
/// PRS, or when some slot holds a key table this module does not decode (its times are
/// then not known). Outside the span every sampled channel holds its end value (the
/// constant out-of-range rule of the module notes): the triage's `take_beyond_keys`
/// evidence reads this (`docs/triage.md`).
pub fn key_span(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Option<(i32, i32)> {
    let Ok(controllers::TransformRefs::Prs { position, rotation, scale }) = controllers::transform_refs(index, node)
    else {
        return None;
    };
    let mut span: Option<(i32, i32)> = None;
    let mut undecoded = false;
    let mut visit = |o: &SceneObject<'_>| {
        let times: Vec<i32> = match key_count(o) {
            Some((_, 0)) | None => return,
            Some((id, _)) if SAMPLED.contains(&id) => key_times(o).unwrap_or_default(),
            Some(_) => {
                undecoded = true;
                return;
            }
        };
        if times.is_empty() {
            undecoded = true;
        }
        for t in times {
            span = Some(span.map_or((t, t), |(a, b)| (a.min(t), b.max(t))));
        }
    };
    for slot in [position, rotation, scale].into_iter().flatten() {
        let Some(o) = index.get(slot) else { continue };
        visit(o);
        for s in 0..3 {
            if let Some(sub) = o.reference(s).and_then(|r| index.get(r)) {
                visit(sub);
            }
        }
    }
    if undecoded {
        None
    } else {
        span
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: i32, value: f32, in_tangent: f32, out_tangent: f32) -> FloatKey {
        FloatKey { time, flags: 0, value, in_tangent, out_tangent, in_length: 1.0 / 3.0, out_length: 1.0 / 3.0 }
    }

    #[test]
    fn outside_the_keys_the_end_values_hold() {
        let keys = [key(0, 1.0, 0.0, 0.0), key(100, 3.0, 0.0, 0.0)];
        assert_eq!(sample_float_keys(&keys, -50.0), Some(1.0));
        assert_eq!(sample_float_keys(&keys, 150.0), Some(3.0));
        assert_eq!(sample_float_keys(&keys, 100.0), Some(3.0));
        assert_eq!(sample_float_keys(&[], 0.0), None);
    }

    #[test]
    fn a_straight_ramp_stays_straight() {
        // Slope 0.02 per tick: out tangent +0.02 at the first key, in tangent −0.02 (pointing
        // back) at the second; thirds-length handles put the value at 1 + 0.02·25 = 1.5.
        let keys = [key(0, 1.0, 0.0, 0.02), key(100, 3.0, -0.02, 0.0)];
        let v = sample_float_keys(&keys, 25.0).unwrap();
        assert!((v - 1.5).abs() < 1e-6, "{v}");
    }

    #[test]
    fn flat_tangents_ease_in_and_out() {
        // Flat handles: at the midpoint the cubic is (v0 + v1) / 2 by symmetry, and at a
        // quarter of the way 1 + 2·(3·0.75·0.0625 + 0.015625) = 1.3125.
        let keys = [key(0, 1.0, 0.0, 0.0), key(100, 3.0, 0.0, 0.0)];
        assert!((sample_float_keys(&keys, 50.0).unwrap() - 2.0).abs() < 1e-6);
        assert!((sample_float_keys(&keys, 25.0).unwrap() - 1.3125).abs() < 1e-6);
    }

    fn controller(table: Vec<u8>) -> crate::chunk::Chunk<'static> {
        // A Bezier Float as newer files store it: the key table inside the 0x7127 wrapper.
        crate::chunk::Chunk::container(
            0x2007,
            vec![crate::chunk::Chunk::container(
                controllers::FLOAT_VALUE_WRAPPER,
                vec![crate::chunk::Chunk::leaf(BEZIER_FLOAT_KEYS, table)],
            )],
        )
    }

    #[test]
    fn a_stored_key_reads_field_by_field() {
        // time 160, flags 0x1680, value 2.5, in −0.5, out 0.25, lengths −1 (sentinel) and ⅓.
        let mut bytes = Vec::new();
        bytes.extend(160i32.to_le_bytes());
        bytes.extend(0x1680u32.to_le_bytes());
        for f in [2.5f32, -0.5, 0.25, -1.0, 1.0 / 3.0] {
            bytes.extend(f.to_le_bytes());
        }
        let chunk = controller(bytes);
        let o = SceneObject { storage_index: 7, chunk: &chunk, class: None };
        let keys = float_keys(&o).unwrap().unwrap();
        assert_eq!(keys.len(), 1);
        let k = keys[0];
        assert_eq!((k.time, k.flags, k.value, k.in_tangent, k.out_tangent), (160, 0x1680, 2.5, -0.5, 0.25));
        assert_eq!((k.in_type(), k.out_type()), (5, 5));
        assert_eq!(key_count(&o), Some((BEZIER_FLOAT_KEYS, 1)));
    }

    proptest::proptest! {
        /// Any table bytes: a whole number of keys reads, anything else is a typed error
        /// naming the chunk; sampling decoded keys never panics.
        #[test]
        fn any_table_reads_or_is_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), tick in -1e6f64..1e6) {
            let chunk = controller(bytes.clone());
            let o = SceneObject { storage_index: 1, chunk: &chunk, class: None };
            match float_keys(&o) {
                Ok(Some(keys)) => {
                    proptest::prop_assert_eq!(keys.len() * BEZIER_FLOAT_KEY_BYTES, bytes.len());
                    let _ = sample_float_keys(&keys, tick);
                }
                Ok(None) => proptest::prop_assert!(false, "the table is there"),
                Err(ControllerError::BadValue { chunk, .. }) => {
                    proptest::prop_assert_eq!(chunk, BEZIER_FLOAT_KEYS);
                    proptest::prop_assert!(bytes.len() % BEZIER_FLOAT_KEY_BYTES != 0);
                }
                Err(e) => proptest::prop_assert!(false, "unexpected {e}"),
            }
        }
    }

    #[test]
    fn step_out_holds_the_value() {
        let mut a = key(0, 1.0, 0.0, 0.0);
        a.flags = 2 << 10;
        assert!(a.is_step_out());
        assert_eq!(sample_float_keys(&[a, key(100, 3.0, 0.0, 0.0)], 99.0), Some(1.0));
    }

    #[test]
    fn stored_handle_lengths_do_not_move_the_handles() {
        // Green@Run B-Root Z, keys 0 → 640 ticks: 68.7038 (out tangent 0.14866725/tick)
        // to 112.332535 (flat). Handles at Δ/3 = 213.33 ticks: control values 68.7038,
        // 68.7038 + 0.14866725·213.33 = 100.41948, 112.332535, 112.332535; at u = ½ (tick 320,
        // the time coordinate is linear) (68.7038 + 3·100.41948 + 4·112.332535) / 8 = 102.411548
        // — the file's 102.411545, not the 102.41039 a stored length of 0.3333 gives.
        let mut a = key(0, 68.7038, 0.0, 0.148_667_25);
        let mut b = key(640, 112.332_535, 0.0, 0.0);
        a.out_length = 0.3333;
        b.in_length = 0.3333;
        let v = sample_float_keys(&[a, b], 320.0).unwrap();
        assert!((v - 102.411548).abs() < 5e-6, "{v}");
    }

    #[test]
    fn free_handle_in_betweens_are_not_guessed() {
        let mut a = key(0, 1.0, 0.0, 0.0);
        a.flags = FREE_HANDLE;
        let keys = [a, key(100, 3.0, 0.0, 0.0)];
        assert!(in_free_handle_segment(&keys, 50.0));
        assert!(!in_free_handle_segment(&keys, 0.0) && !in_free_handle_segment(&keys, 100.0));
    }

    #[test]
    fn a_scale_key_reads_its_tangents() {
        // Blue B_Root's key at −320 ticks as stored: 37 words, tangents at words 9 and 16.
        let mut w = [0f32; 37];
        w[2..5].copy_from_slice(&[1.0, 1.0, 1.0]);
        w[8] = 1.0;
        w[9..12].copy_from_slice(&[8.238_01e-5, 5.049_26e-5, 0.0]);
        w[16..19].copy_from_slice(&[-8.238_01e-5, -5.049_26e-5, 0.0]);
        let mut bytes = Vec::new();
        bytes.extend((-320i32).to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        for f in &w[2..] {
            bytes.extend(f.to_le_bytes());
        }
        let chunk = crate::chunk::Chunk::container(0x2010, vec![crate::chunk::Chunk::leaf(BEZIER_SCALE_KEYS, bytes)]);
        let o = SceneObject { storage_index: 3, chunk: &chunk, class: None };
        let keys = scale_keys(&o).unwrap().unwrap();
        assert_eq!(keys[0].time, -320);
        assert_eq!(keys[0].out_tangent, Vec3::new(-8.238_01e-5, -5.049_26e-5, 0.0));
        // With the next key (1 at tick 0, in tangent −6.487433e-4 in X): control values 1,
        // 1 − 8.23801e-5·106.667 = 0.991213, 1 − 6.487433e-4·106.667 = 0.930801, 1; at u = ½
        // (2 + 3·0.991213 + 3·0.930801) / 8 = 0.970755 (the file's frame −1 holds 0.971).
        let next = ScaleKey { time: 0, in_tangent: Vec3::new(-6.487_433e-4, 0.0, 0.0), ..keys[0] };
        let v = sample_float_keys(&[keys[0].component(0), next.component(0)], -160.0).unwrap();
        assert!((v - 0.970755).abs() < 2e-6, "{v}");
    }

    #[test]
    fn look_at_frame_is_hand_worked() {
        // At (0, −10, 0) looking at the origin: z = (0, −1, 0) (from target to node),
        // x = Z × z = (1, 0, 0), y = z × x = (0, 0, 1) — the view axis −z points at the target
        // and the up axis is world Z.
        let r = super::look_at_rotation(Vec3::new(0.0, -10.0, 0.0), Vec3::ZERO, 0.0).unwrap();
        let close = |a: Vec3, b: Vec3| (a - b).length() < 1e-6;
        assert!(close(r.x_axis.truncate(), Vec3::X) && close(r.y_axis.truncate(), Vec3::Z));
        assert!(close(r.z_axis.truncate(), Vec3::NEG_Y));
        // A roll of +90° turns x onto the unrolled y: x' = (0, 0, 1), y' = −x = (−1, 0, 0).
        let rolled =
            super::look_at_rotation(Vec3::new(0.0, -10.0, 0.0), Vec3::ZERO, std::f32::consts::FRAC_PI_2).unwrap();
        assert!(close(rolled.x_axis.truncate(), Vec3::Z) && close(rolled.y_axis.truncate(), Vec3::NEG_X));
        // Straight above the target: no horizontal direction, refused.
        assert!(super::look_at_rotation(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 0.0).is_none());
    }
}
