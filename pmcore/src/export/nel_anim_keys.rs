//! Max keyframe tables → NeL keyframer tracks, for the controllers NeL's `buildATrack`
//! exports natively (`buildNelKey`, design §10b; layouts little-endian dwords):
//!
//! | Max controller | key chunk, bytes | NeL track | conversion |
//! |---|---|---|---|
//! | Linear Position 0x2002 | 0x2513, 20: time, flags, v[3] | Linear Vector | — |
//! | Linear Rotation 0x2003 | 0x2514, 24: time, flags, q[4] (absolute) | Linear Quat | `w` negated |
//! | Linear Scale 0x2004 | 0x2515, 36: time, flags, s[3], q[4] | Linear Vector | scale diagonal |
//! | Bezier Position 0x2008 | 0x2526, 80: time, flags, v[3], in[3], out[3], … | Bezier Vector | tangents ×4800, `Step` |
//! | TCB Position 0x442312 | 0x2521, 64: time, flags, v[3], t, c, b, ease in, ease out, … | TCB Vector | — |
//! | TCB Rotation 0x442313 | 0x2522, 92: time, flags, q[4], t, c, b, ei, eo, axis[3], angle, … | TCB Quat | relative angle-axis, angle negated, axis renormalised (f64 norm) |
//! | TCB Scale 0x442315 | 0x2523, 112: time, flags, s[3], q[4], t, c, b, ei, eo, … | TCB Vector | scale diagonal |
//!
//! (Bezier Scale, 0x2010, is [`super::nel_anim`]'s own: its table is `model::keys`'.) A TCB
//! Rotation key flagged 0x10 holds a stale angle-axis: Max rederives it from the absolute
//! quaternion — known for the first key only (relative to identity: axis `xyz/‖xyz‖`,
//! angle `2·asin ‖xyz‖`, or for `w < 0` axis `−xyz/‖xyz‖`, angle `2·acos(−w)`); a flagged
//! later key is an error, never a guess. None of these tables is keyed in the pairs or
//! Biped corpora (`scripts/nel_anim_sweep.py` lists none): the layouts and rules are the
//! design's, validated there against the Ryzom references.

use crate::model::controllers::max_quat;
use crate::model::scene_index::SceneObject;
use crate::model::time_config::TICKS_PER_SECOND;
use crate::nel::anim::{Key, KeyKind, Track};
use glam::{Mat3, Quat, Vec3};

/// The value a PRS slot holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Want {
    /// Position (and the vector controllers a scale slot may hold).
    Vector,
    /// Scale.
    Scale,
    /// Rotation.
    Rotation,
}

/// One native controller class: its Class ID, key chunk, bytes per key, and which values
/// NeL builds a track of it for.
struct Layout {
    class: [u32; 2],
    chunk: u16,
    bytes: usize,
    rotation: bool,
}

const LAYOUTS: [Layout; 7] = [
    Layout { class: [0x2002, 0], chunk: 0x2513, bytes: 20, rotation: false },
    Layout { class: [0x2003, 0], chunk: 0x2514, bytes: 24, rotation: true },
    Layout { class: [0x2004, 0], chunk: 0x2515, bytes: 36, rotation: false },
    Layout { class: [0x2008, 0], chunk: 0x2526, bytes: 80, rotation: false },
    Layout { class: [0x442312, 0], chunk: 0x2521, bytes: 64, rotation: false },
    Layout { class: [0x442313, 0], chunk: 0x2522, bytes: 92, rotation: true },
    Layout { class: [0x442315, 0], chunk: 0x2523, bytes: 112, rotation: false },
];

/// TCB Rotation key flag: the stored angle-axis is a stale cache.
const STALE_ANGLE_AXIS: u32 = 0x10;

/// The NeL track of a native keyframer controller `c` in a slot wanting `want`: `Ok(None)`
/// when `c` is not one of these classes, holds no key, or is not a track NeL builds for
/// that slot (`buildATrack` returns none); the keys' range is set by the caller.
pub(crate) fn native_track(c: &SceneObject<'_>, want: Want) -> Result<Option<Track>, String> {
    let Some(class) = c.class.as_ref().map(|k| k.class_id) else { return Ok(None) };
    let Some(layout) = LAYOUTS.iter().find(|l| l.class == class) else { return Ok(None) };
    if layout.rotation != (want == Want::Rotation) {
        return Ok(None);
    }
    let Some(table) = c.chunk.child(layout.chunk).and_then(|t| t.payload()) else { return Ok(None) };
    if table.len() % layout.bytes != 0 {
        return Err(format!(
            "key table 0x{:04x} has {} bytes, not a whole number of {}-byte keys",
            layout.chunk,
            table.len(),
            layout.bytes
        ));
    }
    let words: Vec<Vec<u32>> = table
        .chunks_exact(layout.bytes)
        .map(|k| k.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect())
        .collect();
    if words.is_empty() {
        return Ok(None);
    }
    let mut kind = KeyKind::LinearVector;
    let mut keys = Vec::with_capacity(words.len());
    for (i, w) in words.iter().enumerate() {
        let f = |at: usize| f32::from_bits(w[at]);
        let fs = |from: usize, n: usize| (from..from + n).map(f).collect::<Vec<f32>>();
        let time = w[0] as i32 as f32 / TICKS_PER_SECOND as f32;
        let scale = |at: usize| {
            let q = max_quat([f(at + 3), f(at + 4), f(at + 5), f(at + 6)]);
            nel_scale(Vec3::new(f(at), f(at + 1), f(at + 2)), q).to_array().to_vec()
        };
        let (k, values, step) = match layout.chunk {
            0x2513 => (KeyKind::LinearVector, fs(2, 3), None),
            0x2514 => (KeyKind::LinearQuat, vec![f(2), f(3), f(4), -f(5)], None),
            0x2515 => (KeyKind::LinearVector, scale(2), None),
            0x2526 => {
                let tangents: Vec<f32> = fs(5, 6).iter().map(|t| t * TICKS_PER_SECOND as f32).collect();
                (KeyKind::BezierVector, [fs(2, 3), tangents].concat(), Some(u8::from((w[1] >> 10) & 7 == 2)))
            }
            0x2521 => (KeyKind::TcbVector, fs(2, 8), None),
            0x2522 => (KeyKind::TcbQuat, [tcb_angle_axis(i, w)?, fs(6, 5)].concat(), None),
            _ => (KeyKind::TcbVector, [scale(2), fs(9, 5)].concat(), None),
        };
        kind = k;
        keys.push(Key { time, values, step });
    }
    Ok(Some(Track::over_keys(kind, keys)))
}

/// A TCB Rotation key's NeL angle-axis: the stored relative axis renormalised in `f64` and
/// its angle negated; a stale first key rederived from its absolute quaternion.
fn tcb_angle_axis(index: usize, w: &[u32]) -> Result<Vec<f32>, String> {
    let f = |at: usize| f32::from_bits(w[at]) as f64;
    if w[1] & STALE_ANGLE_AXIS != 0 {
        if index > 0 {
            return Err(format!(
                "TCB Rotation key {index} holds a stale angle-axis (flag 0x10): only a first key is rederived"
            ));
        }
        let (x, y, z, qw) = (f(2), f(3), f(4), f(5));
        let n = (x * x + y * y + z * z).sqrt();
        if n == 0.0 {
            return Ok(vec![0.0, 0.0, 1.0, 0.0]);
        }
        let (sign, angle) =
            if qw >= 0.0 { (1.0, 2.0 * n.min(1.0).asin()) } else { (-1.0, 2.0 * (-qw).min(1.0).acos()) };
        return Ok(vec![(sign * x / n) as f32, (sign * y / n) as f32, (sign * z / n) as f32, angle as f32]);
    }
    let (x, y, z) = (f(11), f(12), f(13));
    let n = (x * x + y * y + z * z).sqrt();
    let axis = if n > 0.0 { [x / n, y / n, z / n] } else { [x, y, z] };
    Ok(vec![axis[0] as f32, axis[1] as f32, axis[2] as f32, -f32::from_bits(w[14])])
}

/// NeL's scale value of a Max scale and scale axis: the diagonal of `srtm · stm · srtm⁻¹`,
/// srtm = Max's `MakeMatrix` of the stored axis quaternion (§10b, validated there to 1e-6).
pub(crate) fn nel_scale(scale: Vec3, axis: Quat) -> Vec3 {
    if axis.xyz() == Vec3::ZERO {
        return scale;
    }
    // The stored Max quaternion is the right-handed one with x, y, z negated.
    let (x, y, z, w) = (-axis.x, -axis.y, -axis.z, axis.w);
    let rows = [
        [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y + w * z), 2.0 * (x * z - w * y)],
        [2.0 * (x * y - w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z + w * x)],
        [2.0 * (x * z + w * y), 2.0 * (y * z - w * x), 1.0 - 2.0 * (x * x + y * y)],
    ];
    let srtm = Mat3::from_cols_array_2d(&rows).transpose();
    let m = srtm * Mat3::from_diagonal(scale) * srtm.inverse();
    Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(values: &[f32]) -> Vec<u32> {
        values.iter().map(|v| v.to_bits()).collect()
    }

    #[test]
    fn a_tcb_rotation_key_negates_its_angle_and_renormalises_its_axis() {
        // time, flags, q[4], t, c, b, ei, eo, axis (length 2), angle 0.5.
        let mut w = words(&[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.0, 0.0, 2.0, 0.5]);
        w[0] = 160;
        assert_eq!(tcb_angle_axis(1, &w).unwrap(), vec![0.0, 0.0, 1.0, -0.5]);
    }

    #[test]
    fn a_stale_first_key_is_rederived_and_a_stale_later_key_is_refused() {
        // Absolute quaternion: 60° about x (Max convention), stale flag.
        let (s, c) = (30f32.to_radians().sin(), 30f32.to_radians().cos());
        let mut w = words(&[0.0, 0.0, s, 0.0, 0.0, c, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0, 7.0, 7.0, 0.0]);
        w[1] = STALE_ANGLE_AXIS;
        let aa = tcb_angle_axis(0, &w).unwrap();
        assert!((aa[0] - 1.0).abs() < 1e-6 && (aa[3] - 60f32.to_radians()).abs() < 1e-6, "{aa:?}");
        assert!(tcb_angle_axis(2, &w).is_err());
        // w < 0: the rotation's other sign, axis flipped.
        let mut neg = w.clone();
        neg[2] = (-s).to_bits();
        neg[5] = (-c).to_bits();
        let aa = tcb_angle_axis(0, &neg).unwrap();
        assert!((aa[0] - 1.0).abs() < 1e-6 && (aa[3] - 60f32.to_radians()).abs() < 1e-5, "{aa:?}");
    }
}
