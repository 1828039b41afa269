//! Max's TCB interpolation of Biped keytrack channels between two keys (design §10c): per
//! channel in the stored space, scalars by Kochanek–Bartels Hermite with Max's time-adjusted
//! tangents, quaternions by squad on the stored quaternions (chained to the shorter arc),
//! with the Biped's own end tangents: the plain difference to the one neighbour, scaled by
//! (1 − tension).
//!
//! Tension, continuity and bias are stored in Max's UI units (25 = 0 in the formulas):
//! `(v − 25) / 25`.

use glam::DQuat;

/// One key of a channel: its tick and TCB in formula units.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TcbKey {
    /// Max ticks.
    pub tick: f64,
    /// Tension, continuity, bias in formula units (0 = Max's default 25).
    pub tcb: [f64; 3],
}

impl TcbKey {
    /// A key from stored UI units.
    pub fn from_ui(tick: i32, ui: [f32; 3]) -> Self {
        TcbKey { tick: f64::from(tick), tcb: ui.map(|v| (f64::from(v) - 25.0) / 25.0) }
    }
}

/// Incoming and outgoing tangent weights of key `i` on its (previous, next) differences:
/// `(in_prev, in_next, out_prev, out_next)`, time-adjusted as Max does. The ends use the
/// plain difference to their one neighbour.
fn weights(keys: &[TcbKey], i: usize) -> (f64, f64, f64, f64) {
    let [t, c, b] = keys[i].tcb;
    let n = keys.len();
    if i == 0 || i + 1 == n {
        let w = 1.0 - t;
        return if i == 0 { (0.0, w, 0.0, w) } else { (w, 0.0, w, 0.0) };
    }
    let (dp, dn) = (keys[i].tick - keys[i - 1].tick, keys[i + 1].tick - keys[i].tick);
    let (fp, fn_) = (2.0 * dp / (dp + dn), 2.0 * dn / (dp + dn));
    let a = (1.0 - t) / 2.0;
    (
        fp * a * (1.0 - c) * (1.0 + b),
        fp * a * (1.0 + c) * (1.0 - b),
        fn_ * a * (1.0 + c) * (1.0 + b),
        fn_ * a * (1.0 - c) * (1.0 - b),
    )
}

/// The segment `(k, s)` holding `tick` (key k ≤ tick < key k + 1, s in [0, 1)), `None` outside.
pub fn segment(keys: &[TcbKey], tick: f64) -> Option<(usize, f64)> {
    let k = keys.windows(2).position(|w| w[0].tick <= tick && tick < w[1].tick)?;
    Some((k, (tick - keys[k].tick) / (keys[k + 1].tick - keys[k].tick)))
}

/// A scalar channel (one value per key) at segment `(k, s)`.
pub fn scalar(keys: &[TcbKey], values: &[f64], (k, s): (usize, f64)) -> f64 {
    let diff = |i: usize, j: usize| values.get(j).zip(values.get(i)).map_or(0.0, |(b, a)| b - a);
    let out_of = |i: usize| {
        let (_, _, op, on) = weights(keys, i);
        op * if i > 0 { diff(i - 1, i) } else { 0.0 } + on * diff(i, i + 1)
    };
    let in_of = |i: usize| {
        let (ip, inx, _, _) = weights(keys, i);
        ip * if i > 0 { diff(i - 1, i) } else { 0.0 } + inx * diff(i, i + 1)
    };
    let (s2, s3) = (s * s, s * s * s);
    let (h1, h2, h3, h4) = (2.0 * s3 - 3.0 * s2 + 1.0, -2.0 * s3 + 3.0 * s2, s3 - 2.0 * s2 + s, s3 - s2);
    h1 * values[k] + h2 * values[k + 1] + h3 * out_of(k) + h4 * in_of(k + 1)
}

/// A quaternion channel (stored quaternions) at segment `(k, s)`: squad between keys k and
/// k + 1 with TCB control points from the log differences to the neighbours.
pub fn quaternion(keys: &[TcbKey], values: &[DQuat], (k, s): (usize, f64)) -> DQuat {
    // Chain each key to the shorter arc from the one before.
    let mut q: Vec<DQuat> = values.iter().map(|v| v.normalize()).collect();
    for i in 1..q.len() {
        if q[i].dot(q[i - 1]) < 0.0 {
            q[i] = -q[i];
        }
    }
    let log_diff = |i: usize, j: usize| log(q[i].conjugate() * q[j]);
    let control = |i: usize, outgoing: bool| {
        let (ip, inx, op, on) = weights(keys, i);
        let prev = if i > 0 { log_diff(i - 1, i) } else { glam::DVec3::ZERO };
        let next = if i + 1 < q.len() { log_diff(i, i + 1) } else { glam::DVec3::ZERO };
        // Squad control points from the TCB tangents (Shoemake's with weights ½):
        // outgoing a = q · exp((T_out − L_next) / 2), incoming b = q · exp((L_prev − T_in) / 2).
        if outgoing {
            q[i] * exp((prev * op + next * on - next) * 0.5)
        } else {
            q[i] * exp((prev - (prev * ip + next * inx)) * 0.5)
        }
    };
    let (a, b) = (control(k, true), control(k + 1, false));
    let p = q[k].slerp(q[k + 1], s);
    let c = a.slerp(b, s);
    p.slerp(c, 2.0 * s * (1.0 - s))
}

fn log(q: DQuat) -> glam::DVec3 {
    let v = glam::DVec3::new(q.x, q.y, q.z);
    let len = v.length();
    if len < 1e-12 {
        return glam::DVec3::ZERO;
    }
    v * (len.atan2(q.w) / len)
}

fn exp(v: glam::DVec3) -> DQuat {
    let a = v.length();
    if a < 1e-12 {
        return DQuat::IDENTITY;
    }
    let s = a.sin() / a;
    DQuat::from_xyzw(v.x * s, v.y * s, v.z * s, a.cos())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(ticks: &[f64]) -> Vec<TcbKey> {
        ticks.iter().map(|&t| TcbKey { tick: t, tcb: [0.0; 3] }).collect()
    }

    #[test]
    fn a_scalar_passes_through_its_keys_and_a_line_stays_a_line() {
        let k = keys(&[0.0, 10.0, 20.0, 30.0]);
        let v = [0.0, 1.0, 2.0, 3.0];
        assert_eq!(scalar(&k, &v, (1, 0.0)), 1.0);
        // Evenly spaced keys on a line: Catmull-Rom inside, and the Biped's plain-difference
        // end tangents keep the ends on the line too.
        for (seg, s) in [(0, 0.25), (1, 0.5), (2, 0.75)] {
            let expected = seg as f64 + s;
            assert!((scalar(&k, &v, (seg, s)) - expected).abs() < 1e-12, "{seg} {s}");
        }
    }

    #[test]
    fn full_tension_makes_flat_tangents() {
        let k: Vec<TcbKey> = keys(&[0.0, 10.0]).into_iter().map(|k| TcbKey { tcb: [1.0, 0.0, 0.0], ..k }).collect();
        // h1·0 + h2·1 at s = 0.5: the smoothstep.
        assert!((scalar(&k, &[0.0, 1.0], (0, 0.5)) - 0.5).abs() < 1e-12);
        assert!((scalar(&k, &[0.0, 1.0], (0, 0.25)) - 0.15625).abs() < 1e-12);
    }

    #[test]
    fn a_quaternion_turning_evenly_about_one_axis_turns_evenly_between() {
        let k = keys(&[0.0, 10.0, 20.0]);
        let q: Vec<DQuat> = [0.0, 0.2, 0.4].iter().map(|&a| DQuat::from_rotation_z(a)).collect();
        let mid = quaternion(&k, &q, (0, 0.5));
        assert!(mid.angle_between(DQuat::from_rotation_z(0.1)) < 1e-9, "{mid:?}");
        assert!(quaternion(&k, &q, (1, 0.0)).angle_between(q[1]) < 1e-12);
    }

    #[test]
    fn segments_are_found_by_tick() {
        let k = keys(&[0.0, 10.0, 20.0]);
        assert_eq!(segment(&k, 15.0), Some((1, 0.5)));
        assert_eq!(segment(&k, 20.0), None);
        assert_eq!(segment(&k, -1.0), None);
    }
}
