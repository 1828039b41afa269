//! NeL's own evaluation of the keyframer tracks the `.anim` exporter writes
//! (`track_keyframer.h`, `track_bezier.h`): what the engine plays from a written track at a
//! time, so a T3 can compare it with a reference.
//!
//! * Outside the track's keys the end key's value holds (loop mode off, range = the keys).
//! * Linear vector: `prev + (next − prev)·s`, `s` the fraction of the interval.
//! * Linear quaternion: spherical interpolation on the shorter arc (NeL's `CQuat::slerp`).
//! * Bezier vector: the cubic through `prev`, `prev + OutTan·Δ/3`, `next + InTan·Δ/3`,
//!   `next` (Δ in seconds: NeL tangents are per second); a `Step` key holds its value.
//!
//! The TCB kinds are read and written byte-exactly but not evaluated here: sampling one is
//! [`NotEvaluated`], never a guess.

use super::anim::{Key, KeyKind, Track};
use glam::{Quat, Vec3};

/// A track's value at a time.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Sampled {
    /// A vector track (`pos`, `scale`).
    Vector(Vec3),
    /// A quaternion track (`rotquat`), as NeL stores it (x, y, z, w).
    Quat(Quat),
}

/// Why a track was not sampled.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{class} is not evaluated ({why})")]
pub struct NotEvaluated {
    /// The NeL track class.
    pub class: &'static str,
    /// Why.
    pub why: &'static str,
}

/// The value NeL plays from `track` at `time` seconds.
pub fn sample(track: &Track, time: f32) -> Result<Sampled, NotEvaluated> {
    let not = |why| NotEvaluated { class: track.kind.class_name(), why };
    let keys = &track.keys;
    let (Some(first), Some(last)) = (keys.first(), keys.last()) else { return Err(not("the track has no key")) };
    let (prev, next, s) = if time <= first.time {
        (first, first, 0.0)
    } else if time >= last.time {
        (last, last, 0.0)
    } else {
        let i = keys.partition_point(|k| k.time <= time).max(1);
        let (a, b) = (&keys[i - 1], &keys[i]);
        (a, b, (time - a.time) / (b.time - a.time))
    };
    match track.kind {
        KeyKind::LinearVector => Ok(Sampled::Vector(vec3(prev, 0).lerp(vec3(next, 0), s))),
        KeyKind::LinearQuat => Ok(Sampled::Quat(quat(prev).slerp(quat(next), s))),
        KeyKind::BezierVector => Ok(Sampled::Vector(bezier(prev, next, s))),
        _ => Err(not("only the Linear and Bezier vector kinds the exporter writes are sampled")),
    }
}

fn vec3(k: &Key, at: usize) -> Vec3 {
    Vec3::new(k.values[at], k.values[at + 1], k.values[at + 2])
}

fn quat(k: &Key) -> Quat {
    Quat::from_xyzw(k.values[0], k.values[1], k.values[2], k.values[3])
}

/// NeL's Bezier in-between (`CTrackKeyFramerBezier::evalKey`).
fn bezier(prev: &Key, next: &Key, s: f32) -> Vec3 {
    if std::ptr::eq(prev, next) || prev.step.is_some_and(|b| b != 0) {
        return vec3(prev, 0);
    }
    let third = (next.time - prev.time) / 3.0;
    let cp0 = vec3(prev, 0) + vec3(prev, 6) * third;
    let cp1 = vec3(next, 0) + vec3(next, 3) * third;
    let u = 1.0 - s;
    vec3(prev, 0) * (u * u * u) + cp0 * (3.0 * u * u * s) + cp1 * (3.0 * u * s * s) + vec3(next, 0) * (s * s * s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: f32, values: Vec<f32>, step: Option<u8>) -> Key {
        Key { time, values, step }
    }

    #[test]
    fn linear_vector_interpolates_and_holds_the_end_values() {
        let t = Track::over_keys(
            KeyKind::LinearVector,
            vec![key(0.0, vec![0.0, 0.0, 0.0], None), key(1.0, vec![2.0, 4.0, 6.0], None)],
        );
        assert_eq!(sample(&t, 0.5), Ok(Sampled::Vector(Vec3::new(1.0, 2.0, 3.0))));
        assert_eq!(sample(&t, -1.0), Ok(Sampled::Vector(Vec3::ZERO)));
        assert_eq!(sample(&t, 9.0), Ok(Sampled::Vector(Vec3::new(2.0, 4.0, 6.0))));
    }

    #[test]
    fn a_bezier_with_zero_tangents_eases_and_a_step_key_holds() {
        let z = vec![0.0; 6];
        let v = |x: f32, step| key(if x == 0.0 { 0.0 } else { 1.0 }, [vec![x, x, x], z.clone()].concat(), step);
        let t = Track::over_keys(KeyKind::BezierVector, vec![v(0.0, Some(0)), v(1.0, Some(0))]);
        // Flat tangents: the cubic 3s² − 2s³, 0.5 at the middle, 0.104 at a quarter.
        let Ok(Sampled::Vector(q)) = sample(&t, 0.25) else { panic!() };
        assert!((q.x - 0.15625).abs() < 1e-6, "{q}");
        let stepped = Track::over_keys(KeyKind::BezierVector, vec![v(0.0, Some(1)), v(1.0, Some(0))]);
        assert_eq!(sample(&stepped, 0.9), Ok(Sampled::Vector(Vec3::ZERO)));
    }

    #[test]
    fn tcb_tracks_are_reported_not_sampled() {
        let t = Track::over_keys(KeyKind::TcbQuat, vec![key(0.0, vec![0.0; 9], None)]);
        assert!(sample(&t, 0.0).is_err());
        assert!(sample(&Track::over_keys(KeyKind::LinearVector, vec![]), 0.0).is_err());
    }
}
