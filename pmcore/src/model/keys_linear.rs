//! Linear Position 0x2002, Linear Rotation 0x2003 and Linear Scale 0x2004 key tables, and
//! Bezier Position 0x2008 / Bezier Point3 0x200a tables: typed read-only decoders and
//! evaluation at any time.
//!
//! Layouts (design §10b): Linear Position 0x2513, 20 bytes = `time, flags, value[3]`; Linear
//! Rotation 0x2514, 24 bytes = `time, flags, absolute quaternion[4]` (Max's convention);
//! Linear Scale 0x2515, 36 bytes = `time, flags, scale[3], axis quaternion[4]`; Bezier
//! Position 0x2526, 80 bytes = `time, flags, value[3], in tangent[3], out tangent[3],
//! lengths[6], 3 words` — the public `paolohilario__clr-*.max` cameras (4 keys, custom flat
//! tangents, lengths −1) are the corpus's keyed instances.
//!
//! Evaluation: Linear is straight-line in time between keys (rotations slerped the short
//! way), constant outside the keys; a Bezier Position is three Bezier Floats (one per
//! component, `model::keys` rules, handles at a third). No file with an exported reference
//! keys one of these tables: the rules are checked on hand-worked values. Linear Float
//! (0x2511) is not decoded — its one keyed layout in the corpus (72 bytes under the Path
//! Constraints of `wild/ryu-ko__9_2.max`) divides into neither 12- nor 20-byte keys with
//! consistent times, so it stays refused.

use super::controllers::{max_quat, ControllerError};
use super::key_tables::{bad, table, words, FloatKey};
use super::scene_index::SceneObject;
use glam::{Quat, Vec3};

/// Linear Position key table chunk.
pub(crate) const LINEAR_POSITION_KEYS: u16 = 0x2513;
/// Linear Rotation key table chunk.
pub(crate) const LINEAR_ROTATION_KEYS: u16 = 0x2514;
/// Linear Scale key table chunk.
pub(crate) const LINEAR_SCALE_KEYS: u16 = 0x2515;
/// Bezier Position / Point3 key table chunk.
pub(crate) const BEZIER_POSITION_KEYS: u16 = 0x2526;

/// One Linear key: time, value (position or scale factors; for rotations unused) and
/// rotation (the rotation key's, or the scale axis; identity for positions).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LinearKey {
    /// Time in ticks.
    pub time: i32,
    /// Position or scale value.
    pub value: Vec3,
    /// Rotation (right-handed) or scale axis.
    pub rotation: Quat,
}

fn decode<'a>(
    o: &'a SceneObject<'a>,
    id: u16,
    size: usize,
    read: impl Fn(i32, &[f32]) -> LinearKey,
) -> Result<Option<Vec<LinearKey>>, ControllerError> {
    let Some(p) = table(o, id) else { return Ok(None) };
    if !p.len().is_multiple_of(size) {
        return Err(bad(o, id, p.len(), size));
    }
    Ok(Some(
        p.chunks_exact(size)
            .map(|k| {
                let w: Vec<[u8; 4]> = words(k).collect();
                let f: Vec<f32> = w.iter().map(|b| f32::from_le_bytes(*b)).collect();
                read(i32::from_le_bytes(w[0]), &f)
            })
            .collect(),
    ))
}

/// The keys of a Linear Position, Rotation or Scale table (whichever the controller holds).
pub fn linear_keys(o: &SceneObject<'_>) -> Result<Option<Vec<LinearKey>>, ControllerError> {
    if let Some(k) = decode(o, LINEAR_POSITION_KEYS, 20, |time, f| LinearKey {
        time,
        value: Vec3::new(f[2], f[3], f[4]),
        rotation: Quat::IDENTITY,
    })? {
        return Ok(Some(k));
    }
    if let Some(k) = decode(o, LINEAR_ROTATION_KEYS, 24, |time, f| LinearKey {
        time,
        value: Vec3::ZERO,
        rotation: max_quat([f[2], f[3], f[4], f[5]]),
    })? {
        return Ok(Some(k));
    }
    decode(o, LINEAR_SCALE_KEYS, 36, |time, f| LinearKey {
        time,
        value: Vec3::new(f[2], f[3], f[4]),
        rotation: max_quat([f[5], f[6], f[7], f[8]]),
    })
}

/// Segment of `tick`: `(i, u)` between key `i` and `i + 1` at fraction `u` (0 on a key or
/// outside the range, where key `i` holds).
fn segment(keys: &[LinearKey], tick: f64) -> Option<(usize, f32)> {
    let n = keys.len();
    if n == 0 {
        return None;
    }
    if tick <= keys[0].time as f64 {
        return Some((0, 0.0));
    }
    if tick >= keys[n - 1].time as f64 {
        return Some((n - 1, 0.0));
    }
    let i = keys.windows(2).position(|w| tick < w[1].time as f64).unwrap_or(n - 2);
    let (t0, t1) = (keys[i].time as f64, keys[i + 1].time as f64);
    Some((i, if t1 > t0 { ((tick - t0) / (t1 - t0)) as f32 } else { 0.0 }))
}

/// A Linear position/scale track's value at `tick`.
pub fn sample_linear_vec(keys: &[LinearKey], tick: f64) -> Option<Vec3> {
    let (i, u) = segment(keys, tick)?;
    Some(if u == 0.0 { keys[i].value } else { keys[i].value.lerp(keys[i + 1].value, u) })
}

/// A Linear rotation track's value at `tick` (right-handed, slerped the short way).
pub fn sample_linear_rot(keys: &[LinearKey], tick: f64) -> Option<Quat> {
    let (i, u) = segment(keys, tick)?;
    if u == 0.0 {
        return Some(keys[i].rotation);
    }
    let (a, b) = (keys[i].rotation.normalize(), keys[i + 1].rotation.normalize());
    let b = if a.dot(b) < 0.0 { -b } else { b };
    Some(a.slerp(b, u).normalize())
}

/// The keys of a Bezier Position / Point3 table as three Bezier Float tracks (x, y, z).
pub fn bezier_position_keys(o: &SceneObject<'_>) -> Result<Option<[Vec<FloatKey>; 3]>, ControllerError> {
    let Some(p) = table(o, BEZIER_POSITION_KEYS) else { return Ok(None) };
    if !p.len().is_multiple_of(80) {
        return Err(bad(o, BEZIER_POSITION_KEYS, p.len(), 80));
    }
    let mut tracks: [Vec<FloatKey>; 3] = Default::default();
    for k in p.chunks_exact(80) {
        let w: Vec<[u8; 4]> = words(k).collect();
        let f = |i: usize| f32::from_le_bytes(w[i]);
        for (c, track) in tracks.iter_mut().enumerate() {
            track.push(FloatKey {
                time: i32::from_le_bytes(w[0]),
                flags: u32::from_le_bytes(w[1]),
                value: f(2 + c),
                in_tangent: f(5 + c),
                out_tangent: f(8 + c),
                in_length: f(11 + c),
                out_length: f(14 + c),
            });
        }
    }
    Ok(Some(tracks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: i32, value: Vec3, rotation: Quat) -> LinearKey {
        LinearKey { time, value, rotation }
    }

    #[test]
    fn linear_positions_are_straight_in_time() {
        // (0,0,0) at 0 and (10, −20, 4) at 200: at tick 50 a quarter of the way,
        // (2.5, −5, 1); outside the keys the end values hold.
        let k = [key(0, Vec3::ZERO, Quat::IDENTITY), key(200, Vec3::new(10.0, -20.0, 4.0), Quat::IDENTITY)];
        assert_eq!(sample_linear_vec(&k, 50.0), Some(Vec3::new(2.5, -5.0, 1.0)));
        assert_eq!(sample_linear_vec(&k, -10.0), Some(Vec3::ZERO));
        assert_eq!(sample_linear_vec(&k, 999.0), Some(Vec3::new(10.0, -20.0, 4.0)));
    }

    #[test]
    fn linear_rotations_slerp() {
        // Identity to 90° about Z: halfway is 45° about Z.
        let k = [
            key(0, Vec3::ZERO, Quat::IDENTITY),
            key(160, Vec3::ZERO, Quat::from_rotation_z(std::f32::consts::FRAC_PI_2)),
        ];
        let q = sample_linear_rot(&k, 80.0).unwrap();
        assert!(q.angle_between(Quat::from_rotation_z(std::f32::consts::FRAC_PI_4)) < 1e-6);
    }

    proptest::proptest! {
        /// Any table bytes under the three chunks read or are a typed error; sampling never
        /// panics and stays between the key values for positions.
        #[test]
        fn any_linear_table_reads_or_is_refused(bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..200), tick in -1e6f64..1e6, id in 0usize..3) {
            let chunk_id = [LINEAR_POSITION_KEYS, LINEAR_ROTATION_KEYS, LINEAR_SCALE_KEYS][id];
            let chunk = crate::chunk::Chunk::container(0x2002, vec![crate::chunk::Chunk::leaf(chunk_id, bytes.clone())]);
            let o = SceneObject { storage_index: 1, chunk: &chunk, class: None };
            match linear_keys(&o) {
                Ok(Some(keys)) => {
                    let _ = sample_linear_vec(&keys, tick);
                    let _ = sample_linear_rot(&keys, tick);
                }
                Ok(None) => proptest::prop_assert!(false, "the table is there"),
                Err(ControllerError::BadValue { chunk, .. }) => proptest::prop_assert_eq!(chunk, chunk_id),
                Err(e) => proptest::prop_assert!(false, "unexpected {e}"),
            }
        }
    }
}
