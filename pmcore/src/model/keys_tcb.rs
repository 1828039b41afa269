//! TCB (Kochanek–Bartels) key tables of the TCB Position 0x442312, TCB Rotation 0x442313
//! and TCB Scale 0x442315 controllers: typed read-only decoders and evaluation at any time.
//!
//! Layouts (design §10b, little-endian dwords): TCB Position 0x2521, 64 bytes = `time, flags,
//! value[3], tension, continuity, bias, ease in, ease out, cache[6]`; TCB Scale 0x2523,
//! 112 bytes = `time, flags, scale[3], axis quaternion[4], t, c, b, ease in, ease out,
//! cache[14]`; TCB Rotation 0x2522, 92 bytes = `time, flags, absolute quaternion[4] (Max's
//! convention), t, c, b, ease in, ease out, relative axis[3], relative angle, cache[8]`.
//! Tension, continuity and bias are stored in Max's internal −1…1 (0 = the UI's 25), the
//! eases as fractions of the interval — the NeL exporter copies them unchanged and its
//! `.anim` readers evaluate them so (`export::nel_anim_keys`).
//!
//! Evaluation follows Max's rules as NeL's `track_tcb.h` reproduces them (the spec calls
//! them "Max TCB"): Hermite segments between keys, tangents from the neighbours with the
//! speed correction `fp, fn` (times to the neighbours over half the neighbours' span,
//! blended toward 1 by |continuity|), two keys are joined by `Δv·(1 − tension)` tangents,
//! and the end keys of three or more take `½(1 − t)·(3·Δv − neighbour's tangent)`. The ease
//! warps the segment parameter (piecewise quadratic of the previous key's ease out and the
//! next key's ease in, normalised when they sum over 1). Outside the keys the end values
//! hold (constant out-of-range, as for Bezier). Rotations interpolate with squad between
//! the absolute key quaternions, control quaternions `A, B` from the logarithms of the
//! neighbouring relative rotations with the same factors; a key more than half a turn from
//! its predecessor (a multi-turn spin the absolute quaternions cannot carry) is refused.
//!
//! **Real reference.** Max writes the tangents it computed into each TCB Position key's
//! cache (words 10..12 the incoming tangent, 13..15 the outgoing): on
//! `wild/buwaka__poltrona-swan.max` (object #9092, six keys, all TCB parameters 0) the
//! tangents computed here, for the middle keys and the first key's boundary rule alike,
//! equal the cached ones times a constant 1/2.54 = 0.3937008 on every component to 2e-6
//! relative (the keys hold centimetres, the cache inches: the file was rescaled after the
//! cache was written). The rotation caches (words 15..18 `A`, 19..22 `B`) of its 44 keyed
//! TCB Rotations agree with the `A, B` computed here (see the tests). No file with an
//! exported reference keys a TCB track, so the in-between values, the tension/continuity/
//! bias factors other than 0 and the ease are checked on hand-worked values only.

use super::controllers::{max_quat, ControllerError};
use super::key_tables::{bad, table, words};
use super::scene_index::SceneObject;
use glam::{Quat, Vec3, Vec4};

/// TCB Position key table chunk.
pub(crate) const TCB_POSITION_KEYS: u16 = 0x2521;
/// TCB Rotation key table chunk.
pub(crate) const TCB_ROTATION_KEYS: u16 = 0x2522;
/// TCB Scale key table chunk.
pub(crate) const TCB_SCALE_KEYS: u16 = 0x2523;

/// The TCB parameters of one key.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Tcb {
    /// Tension (−1…1, 0 neutral).
    pub tension: f32,
    /// Continuity (−1…1, 0 neutral).
    pub continuity: f32,
    /// Bias (−1…1, 0 neutral).
    pub bias: f32,
    /// Ease into this key (fraction of the previous interval).
    pub ease_in: f32,
    /// Ease out of this key (fraction of the next interval).
    pub ease_out: f32,
}

/// One TCB key of a vector track (position, or scale factors).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcbVecKey {
    /// Time in ticks.
    pub time: i32,
    /// Flags.
    pub flags: u32,
    /// Value.
    pub value: Vec3,
    /// Scale axis (right-handed; identity for positions).
    pub axis: Quat,
    /// TCB parameters.
    pub tcb: Tcb,
    /// Tangents Max cached (incoming, outgoing) — positions only, `None` for scales.
    pub cache: Option<[Vec3; 2]>,
}

/// One TCB Rotation key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcbRotKey {
    /// Time in ticks.
    pub time: i32,
    /// Flags (0x10: the stored angle-axis is stale).
    pub flags: u32,
    /// Absolute rotation (right-handed, converted from Max's stored quaternion).
    pub rotation: Quat,
    /// TCB parameters.
    pub tcb: Tcb,
    /// Relative angle to the previous key (radians, as stored).
    pub angle: f32,
    /// Control quaternions `A, B` Max cached (right-handed).
    pub cache: [Quat; 2],
}

fn floats(k: &[u8]) -> Vec<f32> {
    words(k).map(f32::from_le_bytes).collect()
}

fn tcb_at(f: &[f32], at: usize) -> Tcb {
    Tcb { tension: f[at], continuity: f[at + 1], bias: f[at + 2], ease_in: f[at + 3], ease_out: f[at + 4] }
}

fn head(k: &[u8]) -> (i32, u32) {
    (i32::from_le_bytes([k[0], k[1], k[2], k[3]]), u32::from_le_bytes([k[4], k[5], k[6], k[7]]))
}

fn rows<'a>(
    o: &'a SceneObject<'a>,
    id: u16,
    size: usize,
) -> Result<Option<std::slice::ChunksExact<'a, u8>>, ControllerError> {
    let Some(p) = table(o, id) else { return Ok(None) };
    if !p.len().is_multiple_of(size) {
        return Err(bad(o, id, p.len(), size));
    }
    Ok(Some(p.chunks_exact(size)))
}

/// The keys of a TCB Position (0x2521) or TCB Scale (0x2523) table; `None` without one.
pub fn tcb_vec_keys(o: &SceneObject<'_>) -> Result<Option<Vec<TcbVecKey>>, ControllerError> {
    if let Some(r) = rows(o, TCB_POSITION_KEYS, 64)? {
        return Ok(Some(
            r.map(|k| {
                let (time, flags) = head(k);
                let f = floats(k);
                let cache = [Vec3::new(f[10], f[11], f[12]), Vec3::new(f[13], f[14], f[15])];
                let value = Vec3::new(f[2], f[3], f[4]);
                TcbVecKey { time, flags, value, axis: Quat::IDENTITY, tcb: tcb_at(&f, 5), cache: Some(cache) }
            })
            .collect(),
        ));
    }
    let Some(r) = rows(o, TCB_SCALE_KEYS, 112)? else { return Ok(None) };
    Ok(Some(
        r.map(|k| {
            let (time, flags) = head(k);
            let f = floats(k);
            let axis = max_quat([f[5], f[6], f[7], f[8]]);
            TcbVecKey { time, flags, value: Vec3::new(f[2], f[3], f[4]), axis, tcb: tcb_at(&f, 9), cache: None }
        })
        .collect(),
    ))
}

/// The keys of a TCB Rotation table (0x2522); `None` without one.
pub fn tcb_rot_keys(o: &SceneObject<'_>) -> Result<Option<Vec<TcbRotKey>>, ControllerError> {
    let Some(r) = rows(o, TCB_ROTATION_KEYS, 92)? else { return Ok(None) };
    Ok(Some(
        r.map(|k| {
            let (time, flags) = head(k);
            let f = floats(k);
            let q = |at: usize| max_quat([f[at], f[at + 1], f[at + 2], f[at + 3]]);
            TcbRotKey { time, flags, rotation: q(2), tcb: tcb_at(&f, 6), angle: f[14], cache: [q(15), q(19)] }
        })
        .collect(),
    ))
}

/// The tangent factors `(ksm, ksp, kdm, kdp)` of a key with neighbour times `before` and
/// `after` (`None` at an end of the track: `fp = fn = 1`).
fn factors(tcb: &Tcb, before: Option<f64>, time: f64, after: Option<f64>) -> [f64; 4] {
    let (mut fp, mut fnn) = (1.0, 1.0);
    if let (Some(b), Some(a)) = (before, after) {
        let dtm = 0.5 * (a - b);
        if dtm > 0.0 {
            fp = (time - b) / dtm;
            fnn = (a - time) / dtm;
        }
        let c = (tcb.continuity as f64).abs();
        fp = fp + c - c * fp;
        fnn = fnn + c - c * fnn;
    }
    let cm = 1.0 - tcb.continuity as f64;
    let tm = 0.5 * (1.0 - tcb.tension as f64);
    let cp = 2.0 - cm;
    let bm = 1.0 - tcb.bias as f64;
    let bp = 2.0 - bm;
    [tm * cm * bp * fp, tm * cp * bm * fp, tm * cp * bp * fnn, tm * cm * bm * fnn]
}

/// Max's tangents `(incoming, outgoing)` of every key of a vector track, in value units per
/// segment (the Hermite form): the rules of the module notes.
pub fn tcb_tangents(keys: &[TcbVecKey]) -> Vec<[glam::DVec3; 2]> {
    let v: Vec<glam::DVec3> = keys.iter().map(|k| k.value.as_dvec3()).collect();
    let n = keys.len();
    let mut t = vec![[glam::DVec3::ZERO; 2]; n];
    if n < 2 {
        return t;
    }
    if n == 2 {
        let dv = v[1] - v[0];
        t[0][1] = dv * (1.0 - keys[0].tcb.tension as f64);
        t[1][0] = dv * (1.0 - keys[1].tcb.tension as f64);
        return t;
    }
    for i in 1..n - 1 {
        let time = |j: usize| keys[j].time as f64;
        let [ksm, ksp, kdm, kdp] = factors(&keys[i].tcb, Some(time(i - 1)), time(i), Some(time(i + 1)));
        let (delm, delp) = (v[i] - v[i - 1], v[i + 1] - v[i]);
        t[i] = [delm * ksm + delp * ksp, delm * kdm + delp * kdp];
    }
    let tm = |k: &TcbVecKey| 0.5 * (1.0 - k.tcb.tension as f64);
    t[0][1] = ((v[1] - v[0]) * 3.0 - t[1][0]) * tm(&keys[0]);
    t[n - 1][0] = ((v[n - 1] - v[n - 2]) * 3.0 - t[n - 2][1]) * tm(&keys[n - 1]);
    t
}

/// The eased segment parameter: `d` in 0..1 warped by the previous key's ease out `e0` and
/// the next key's ease in `e1` (piecewise quadratic, linear in the middle).
pub(crate) fn ease(d: f64, e0: f32, e1: f32) -> f64 {
    let (mut e0, mut e1) = (e0.clamp(0.0, 1.0) as f64, e1.clamp(0.0, 1.0) as f64);
    let s = e0 + e1;
    if d <= 0.0 || d >= 1.0 || s == 0.0 {
        return d.clamp(0.0, 1.0);
    }
    if s > 1.0 {
        e0 /= s;
        e1 /= s;
    }
    let k = 1.0 / (2.0 - e0 - e1);
    if d < e0 {
        k / e0 * d * d
    } else if d < 1.0 - e1 {
        k * (2.0 * d - e0)
    } else {
        let r = 1.0 - d;
        1.0 - k / e1 * r * r
    }
}

/// Where `tick` falls: `Ok(i)` exactly on key `i` or held by it outside the range, `Err((i,
/// d))` inside segment `i → i + 1` at eased parameter `d`.
fn locate(times: &[i32], ease_pairs: impl Fn(usize) -> (f32, f32), tick: f64) -> Result<usize, (usize, f64)> {
    let n = times.len();
    if tick <= times[0] as f64 {
        return Ok(0);
    }
    if tick >= times[n - 1] as f64 {
        return Ok(n - 1);
    }
    let i = times.windows(2).position(|w| tick < w[1] as f64).unwrap_or(n - 2);
    let (t0, t1) = (times[i] as f64, times[i + 1] as f64);
    if tick == t0 || t1 <= t0 {
        return Ok(i);
    }
    let (e0, e1) = ease_pairs(i);
    Err((i, ease((tick - t0) / (t1 - t0), e0, e1)))
}

/// A TCB vector track's value at `tick`; `None` without keys.
pub fn sample_tcb_vec(keys: &[TcbVecKey], tick: f64) -> Option<glam::DVec3> {
    if keys.is_empty() {
        return None;
    }
    let times: Vec<i32> = keys.iter().map(|k| k.time).collect();
    match locate(&times, |i| (keys[i].tcb.ease_out, keys[i + 1].tcb.ease_in), tick) {
        Ok(i) => Some(keys[i].value.as_dvec3()),
        Err((i, d)) => {
            let t = tcb_tangents(keys);
            let (d2, d3) = (d * d, d * d * d);
            let a = 3.0 * d2 - 2.0 * d3;
            let (p0, p1) = (keys[i].value.as_dvec3(), keys[i + 1].value.as_dvec3());
            Some(p0 * (1.0 - a) + p1 * a + t[i][1] * (d3 - 2.0 * d2 + d) + t[i + 1][0] * (d3 - d2))
        }
    }
}

fn dquat(q: Quat) -> glam::DQuat {
    glam::DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64)
}

/// Logarithm of a unit quaternion (a pure quaternion, as a vector).
fn ln(q: glam::DQuat) -> glam::DVec3 {
    let v = glam::DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s < 1e-12 {
        return glam::DVec3::ZERO;
    }
    v * (s.atan2(q.w) / s)
}

/// Exponential of a pure quaternion `v`.
fn exp(v: glam::DVec3) -> glam::DQuat {
    let a = v.length();
    if a < 1e-12 {
        return glam::DQuat::IDENTITY;
    }
    let s = a.sin() / a;
    glam::DQuat::from_xyzw(v.x * s, v.y * s, v.z * s, a.cos())
}

/// `ln(a⁻¹·b)` with `b` taken on `a`'s side of the double cover.
fn ln_dif(a: glam::DQuat, b: glam::DQuat) -> glam::DVec3 {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    ln((a.conjugate() * b).normalize())
}

/// A relative turn beyond this (radians) is a spin the absolute quaternions cannot carry.
const HALF_TURN: f32 = std::f32::consts::PI + 1e-4;

/// Max's squad control quaternions `(A, B)` of every key of a TCB rotation track;
/// `Err(i)` when key `i` turns more than half a turn from key `i − 1`.
pub fn tcb_controls(keys: &[TcbRotKey]) -> Result<Vec<[glam::DQuat; 2]>, usize> {
    if let Some(i) = keys.iter().skip(1).position(|k| k.angle.abs() > HALF_TURN) {
        return Err(i + 1);
    }
    let q: Vec<glam::DQuat> = keys.iter().map(|k| dquat(k.rotation).normalize()).collect();
    let n = keys.len();
    Ok((0..n)
        .map(|i| {
            if n < 2 {
                return [q[i], q[i]];
            }
            let qm = (i > 0).then(|| ln_dif(q[i - 1], q[i]));
            let qp = (i + 1 < n).then(|| ln_dif(q[i], q[i + 1]));
            let (qm, qp) = (qm.or(qp).unwrap_or_default(), qp.or(qm).unwrap_or_default());
            let time = |j: usize| keys[j].time as f64;
            let before = (i > 0).then(|| time(i - 1));
            let after = (i + 1 < n).then(|| time(i + 1));
            let [ksm, ksp, kdm, kdp] = factors(&keys[i].tcb, before, time(i), after);
            let qb = (qm * (1.0 - ksm) - qp * ksp) * 0.5;
            let qa = (qm * kdm + qp * (kdp - 1.0)) * 0.5;
            [q[i] * exp(qa), q[i] * exp(qb)]
        })
        .collect())
}

fn slerp(a: glam::DQuat, b: glam::DQuat, t: f64) -> glam::DQuat {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    a.slerp(b, t)
}

/// A TCB rotation track's value at `tick` (right-handed): squad between the keys;
/// `Ok(None)` without keys, `Err(i)` for a spin at key `i` (see [`tcb_controls`]).
pub fn sample_tcb_rot(keys: &[TcbRotKey], tick: f64) -> Result<Option<Quat>, usize> {
    if keys.is_empty() {
        return Ok(None);
    }
    let times: Vec<i32> = keys.iter().map(|k| k.time).collect();
    match locate(&times, |i| (keys[i].tcb.ease_out, keys[i + 1].tcb.ease_in), tick) {
        Ok(i) => Ok(Some(keys[i].rotation)),
        Err((i, d)) => {
            let c = tcb_controls(keys)?;
            let (q0, q1) = (dquat(keys[i].rotation).normalize(), dquat(keys[i + 1].rotation).normalize());
            let q = slerp(slerp(q0, q1, d), slerp(c[i][0], c[i + 1][1], d), 2.0 * d * (1.0 - d));
            let v = Vec4::new(q.x as f32, q.y as f32, q.z as f32, q.w as f32);
            Ok(Some(Quat::from_vec4(v).normalize()))
        }
    }
}

#[cfg(test)]
mod tests;
