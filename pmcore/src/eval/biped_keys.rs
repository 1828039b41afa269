//! A keyed Biped's pose at a time (issue 40): the keytracks ([`crate::model::biped::keytracks`])
//! read at `tick` and written into the pose records the figure-mode rules read, so every bone
//! is then placed by [`FigurePose`] — the key records have the figure records' layout
//! (legs 120 and arms 290 floats per side = the 0x0069 / 0x006a halves; spine and neck
//! angles as 0x0067 / 0x0065), measured on the four LD35 files against their FBX.
//!
//! Per track (docs/biped-format-notes.md §"Keytracks"): COM position (Y-up) = (horizontal
//! [0], vertical [2], horizontal [2]), COM rotation = turn [4..7]; pelvis = its quaternion
//! [0..3]; arms and legs = their records as the pose halves, clavicle angles = figure
//! 0x0010[6..7] + arm record [9..10]; spine angles = spine record; head = head record
//! [0..3], neck angles from head record [7] (count) and [8..].
//!
//! At a key time the stored channels are the pose (exact). Between two keys of a track each
//! channel is interpolated as Max's Biped does (TCB in the stored space, [`super::biped_tcb`])
//! except in IK intervals, which are refused; outside a track's keys its first or last key
//! holds. Bones no keyed rule was measured for (hands, fingers, toes,
//! xtras, tails, ponytails) are [`Unplaced`] with the reason.

use super::biped::{BonePose, FigurePose, Unplaced};
use super::biped_tcb::{segment, TcbKey};
use crate::model::biped::keytracks::{KeyTrack, Track};
use crate::model::biped::{bone, BipedError, BipedSystem, Sides};
use glam::DQuat;

/// Why a keyed pose cannot be made at a time.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KeyedError {
    /// The keytracks did not decode.
    #[error("Biped keytracks: {0}")]
    Keytracks(BipedError),
    /// `tick` lies between two keys of `track` where Max's in-between is not modelled.
    #[error(
        "Biped {track:?} track between its keys at ticks {before} and {after} ({why}): in-between shape not modelled"
    )]
    Between {
        /// Why: an IK interval, or keys with ease.
        why: &'static str,
        /// The track.
        track: Track,
        /// The key before.
        before: i32,
        /// The key after.
        after: i32,
    },
    /// A key record holds a value that is not a finite number where the pose reads one.
    #[error("Biped {track:?} track, key {key}: field {field} is not a finite number")]
    NotFinite {
        /// The track.
        track: Track,
        /// The key index.
        key: usize,
        /// The record field.
        field: usize,
    },
    /// A key record is shorter than the field the pose reads.
    #[error("Biped {track:?} track, key {key}: record of {len} floats has no field {field}")]
    Short {
        /// The track.
        track: Track,
        /// The key index.
        key: usize,
        /// The record length.
        len: usize,
        /// The field read.
        field: usize,
    },
}

/// One key's record with its track and index, read field by field with typed errors.
struct KeyRecord<'t> {
    track: Track,
    key: usize,
    values: &'t [f32],
}

impl KeyRecord<'_> {
    fn f(&self, field: usize) -> Result<f32, KeyedError> {
        let (track, key) = (self.track, self.key);
        let v = *self.values.get(field).ok_or(KeyedError::Short { track, key, len: self.values.len(), field })?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(KeyedError::NotFinite { track, key, field })
        }
    }

    fn floats<const N: usize>(&self, start: usize) -> Result<[f32; N], KeyedError> {
        let mut out = [0.0; N];
        for (k, v) in out.iter_mut().enumerate() {
            *v = self.f(start + k)?;
        }
        Ok(out)
    }

    /// An angle list: a count (3 × links, stored as an integer) at `at`, then the angles.
    fn angles(&self, at: usize) -> Result<Vec<[f32; 3]>, KeyedError> {
        let count = self.values.get(at).map_or(0, |v| v.to_bits() as usize).min(3 * 64);
        (0..count / 3).map(|k| self.floats::<3>(at + 1 + 3 * k)).collect()
    }
}

/// The record of `track` at `tick`: the key's own at a key time, the first before the first
/// key, the last after the last; between two keys, each channel the pose reads interpolated
/// by Max's TCB ([`super::biped_tcb`]), the other fields the earlier key's. Refused
/// ([`KeyedError::Between`]) where the interpolation is not Max's: an IK interval (a limb key
/// with IK blend [12] ≠ 0 at either end: Character Studio re-solves the limb there, design
/// §10c) and keys with ease (time-record fields [2..6] ≠ 0, not told apart).
fn record_at(track: &KeyTrack, tick: f64, in_between: InBetween) -> Result<(usize, Vec<f32>), KeyedError> {
    let keys: Vec<TcbKey> = track.times.iter().map(|k| TcbKey::from_ui(k.tick, k.tcb)).collect();
    let Some((k, s)) = segment(&keys, tick) else {
        let first = track.times.first().is_none_or(|t| tick <= f64::from(t.tick));
        let key = if first { 0 } else { track.times.len().saturating_sub(1) };
        return Ok((key, track.records.get(key).cloned().unwrap_or_default()));
    };
    if s == 0.0 {
        return Ok((k, track.records[k].clone()));
    }
    let (before, after) = (track.times[k].tick, track.times[k + 1].tick);
    let refuse = |why: &'static str| KeyedError::Between { track: track.track, before, after, why };
    if in_between == InBetween::Refuse {
        return Err(refuse("TCB model not exact against the FBX"));
    }
    if track.times[k..=k + 1].iter().any(|t| t.params.iter().any(|p| *p != 0.0)) {
        return Err(refuse("keys with ease"));
    }
    let limb = matches!(track.track, Track::LeftArm | Track::RightArm | Track::LeftLeg | Track::RightLeg);
    if limb && track.records[k..=k + 1].iter().any(|r| r.get(IK_BLEND).is_some_and(|b| *b != 0.0)) {
        return Err(refuse("an IK interval"));
    }
    let (scalars, quaternions) = channels(track.track, &track.records[k]);
    let mut out = track.records[k].clone();
    let len = out.len();
    let column = |f: usize| track.records.iter().map(|r| r.get(f).map_or(0.0, |v| f64::from(*v))).collect::<Vec<_>>();
    for f in scalars.into_iter().filter(|&f| f < len) {
        out[f] = super::biped_tcb::scalar(&keys, &column(f), (k, s)) as f32;
    }
    for q in quaternions.into_iter().filter(|&q| q + 4 <= len) {
        let values: Vec<DQuat> = track
            .records
            .iter()
            .map(|r| {
                let c = |i: usize| r.get(q + i).map_or(0.0, |v| f64::from(*v));
                DQuat::from_xyzw(c(0), c(1), c(2), c(3))
            })
            .collect();
        let v = super::biped_tcb::quaternion(&keys, &values, (k, s));
        out[q..q + 4].copy_from_slice(&[v.x as f32, v.y as f32, v.z as f32, v.w as f32]);
    }
    Ok((k, out))
}

/// Limb record field holding the IK blend (0 = FK, 1 = IK; design §10c).
const IK_BLEND: usize = 12;

/// The fields of a track's record the pose reads: scalar channels and the first fields of
/// quaternion channels.
fn channels(track: Track, first: &[f32]) -> (Vec<usize>, Vec<usize>) {
    let count = |at: usize| first.get(at).map_or(0, |v| v.to_bits() as usize).min(3 * 64);
    match track {
        Track::Horizontal => (vec![0, 1, 2], vec![]),
        Track::Vertical => (vec![2], vec![]),
        Track::Turn => (vec![], vec![4]),
        Track::Pelvis => (vec![], vec![0]),
        Track::LeftArm | Track::RightArm => (vec![0, 9, 10], vec![2, 28]),
        Track::LeftLeg | Track::RightLeg => (vec![0], vec![2, 28]),
        Track::Spine | Track::Tail | Track::Pony1 | Track::Pony2 => ((1..=count(0)).collect(), vec![]),
        Track::Head => ((8..8 + count(7)).collect(), vec![0]),
    }
}

/// How a keyed pose is made between two keys of a track.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InBetween {
    /// Only at key times (and outside the keys); between two keys, [`KeyedError::Between`].
    Refuse,
    /// Max's TCB per channel ([`super::biped_tcb`]), refusing IK intervals and eased keys.
    Tcb,
}

/// The system with its pose records replaced by the keytracks' values at `tick`, for the
/// tracks `needed` (`None`: all of them).
pub fn posed_at(
    system: &BipedSystem,
    tick: f64,
    needed: Option<&[Track]>,
    in_between: InBetween,
) -> Result<BipedSystem, KeyedError> {
    let tracks = system.keytracks.as_ref().map_err(|e| KeyedError::Keytracks(e.clone()))?;
    let mut posed = system.clone();
    for track in tracks.tracks.iter().filter(|t| needed.is_none_or(|n| n.contains(&t.track))) {
        let (key, values) = record_at(track, tick, in_between)?;
        apply(&mut posed, system, &KeyRecord { track: track.track, key, values: &values })?;
    }
    Ok(posed)
}

/// The tracks bone (id, link) hangs from: the COM and pelvis for all; the spine for the
/// chain and what hangs off its end; the head track (head and neck angles) for the neck and
/// head; its own limb track for a limb bone.
fn tracks_of(id: i32) -> Vec<Track> {
    let mut t = vec![Track::Horizontal, Track::Vertical, Track::Turn, Track::Pelvis];
    match id {
        bone::SPINE => t.push(Track::Spine),
        bone::NECK | bone::HEAD => t.extend([Track::Spine, Track::Head]),
        bone::L_ARM => t.extend([Track::Spine, Track::LeftArm]),
        bone::R_ARM => t.extend([Track::Spine, Track::RightArm]),
        bone::L_LEG => t.push(Track::LeftLeg),
        bone::R_LEG => t.push(Track::RightLeg),
        _ => {}
    }
    t
}

/// Writes one key record into the pose fields its track drives.
fn apply(posed: &mut BipedSystem, figure: &BipedSystem, r: &KeyRecord<'_>) -> Result<(), KeyedError> {
    match r.track {
        Track::Horizontal => {
            posed.com.position[0] = r.f(0)?;
            posed.com.position[2] = r.f(2)?;
        }
        Track::Vertical => posed.com.position[1] = r.f(2)?,
        Track::Turn => posed.com.rotation = r.floats(4)?,
        Track::Pelvis => posed.pelvis = r.floats(0)?,
        Track::Spine => posed.spine_angles = r.angles(0)?,
        Track::Head => {
            posed.head = r.floats(0)?;
            posed.neck_angles = r.angles(7)?;
        }
        Track::RightLeg | Track::LeftLeg => {
            if let Some(legs) = posed.leg_pose.as_mut() {
                let leg = side_mut(legs, r.track == Track::LeftLeg);
                leg.knee = r.f(0)?;
                leg.thigh = r.floats(2)?;
                leg.foot = r.floats(28)?;
            }
        }
        Track::RightArm | Track::LeftArm => apply_arm(posed, figure, r)?,
        Track::Tail | Track::Pony1 | Track::Pony2 => {}
    }
    Ok(())
}

fn apply_arm(posed: &mut BipedSystem, figure: &BipedSystem, r: &KeyRecord<'_>) -> Result<(), KeyedError> {
    let left = r.track == Track::LeftArm;
    if let Some(arms) = posed.arm_pose.as_mut() {
        let arm = side_mut(arms, left);
        arm.elbow = r.f(0)?;
        arm.upper_arm = r.floats(2)?;
        arm.hand = r.floats(28)?;
    }
    // The key's clavicle angles are a change from the figure's (design §10c: [9], [10] Δ).
    let delta: [f32; 2] = r.floats(9)?;
    if let (Some(arms), Some(fig)) = (posed.arms.as_mut(), figure.arms.as_ref()) {
        let base = if left { fig.left.clavicle_angles } else { fig.right.clavicle_angles };
        side_mut(arms, left).clavicle_angles = [base[0] + delta[0], base[1] + delta[1]];
    }
    Ok(())
}

fn side_mut<T>(s: &mut Sides<T>, left: bool) -> &mut T {
    if left {
        &mut s.left
    } else {
        &mut s.right
    }
}

/// Bone (id, link) of a keyed Biped at `tick`: placed by the figure-mode rules on the posed
/// records, for the parts whose keyed rule was measured; [`Unplaced`] for the others.
pub fn keyed_bone(
    system: &BipedSystem,
    tick: f64,
    (id, link): (i32, i32),
    in_between: InBetween,
) -> Result<BonePose, KeyedError> {
    let measured = matches!(
        (id, link),
        (bone::COM_VERTICAL | bone::PELVIS | bone::HEAD | bone::NECK, 0)
            | (bone::SPINE, _)
            | (bone::L_LEG | bone::R_LEG, 0..=2)
            | (bone::L_ARM | bone::R_ARM, 0..=2)
    );
    if !measured {
        return Ok(BonePose { rotation: Err(Unplaced::Keyed(id, link)), position: Err(Unplaced::Keyed(id, link)) });
    }
    let posed = posed_at(system, tick, Some(&tracks_of(id)), in_between)?;
    Ok(FigurePose::new(&posed).bone(id, link))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::{parse_stream, Chunk};
    use crate::model::biped::ObjectAt;

    /// The fuzz seed: a hand-made figure (legs, 1-link spine and neck) with keyed COM
    /// (ticks 0, 1600: x 0 → 10, height 50 → 55, z 0 → 5), pelvis (0, 800: identity → 20°
    /// about z), right leg (0, 960) and spine (0, 1600).
    const SEED: &[u8] = include_bytes!("../../../fuzz/regressions/biped_keytracks/hand_made_keyed_legs");

    fn system(bytes: &[u8]) -> BipedSystem {
        let object = Chunk::container(0x0014, parse_stream("test", bytes).unwrap());
        BipedSystem::decode(&object, ObjectAt { root_id: 0x2017, storage_index: 1 }).unwrap()
    }

    fn com_at(s: &BipedSystem, tick: f64, mode: InBetween) -> Result<glam::DVec3, KeyedError> {
        keyed_bone(s, tick, (bone::COM_VERTICAL, 0), mode).map(|p| p.position.unwrap())
    }

    #[test]
    fn at_key_times_the_com_is_the_stored_key_and_ends_hold() {
        let s = system(SEED);
        assert_eq!(s.keytracks.as_ref().unwrap().tracks.len(), 5);
        assert_eq!(com_at(&s, 0.0, InBetween::Refuse).unwrap(), glam::DVec3::new(0.0, 50.0, 0.0));
        assert_eq!(com_at(&s, 1600.0, InBetween::Refuse).unwrap(), glam::DVec3::new(10.0, 55.0, 5.0));
        assert_eq!(com_at(&s, 5000.0, InBetween::Refuse).unwrap(), glam::DVec3::new(10.0, 55.0, 5.0));
        assert_eq!(com_at(&s, -160.0, InBetween::Refuse).unwrap(), glam::DVec3::new(0.0, 50.0, 0.0));
    }

    #[test]
    fn between_keys_refuse_names_the_track_and_tcb_interpolates() {
        let s = system(SEED);
        let e = com_at(&s, 800.0, InBetween::Refuse).unwrap_err();
        assert!(e.to_string().contains("Horizontal track between its keys at ticks 0 and 1600"), "{e}");
        // Two keys, default TCB: the Biped's end tangents are the plain difference, so the
        // midpoint is the mean.
        let mid = com_at(&s, 800.0, InBetween::Tcb).unwrap();
        assert!((mid - glam::DVec3::new(5.0, 52.5, 2.5)).length() < 1e-5, "{mid}");
    }

    #[test]
    fn a_nan_quaternion_is_a_typed_error_not_a_pose() {
        let mut bytes = SEED.to_vec();
        // The pelvis data chunk 0x0132: header 6 B, 3 header dwords, then key 0's quaternion.
        let at = bytes.windows(2).position(|w| w == [0x32, 0x01]).unwrap() + 6 + 12;
        bytes[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes());
        let e = keyed_bone(&system(&bytes), 0.0, (bone::PELVIS, 0), InBetween::Refuse).unwrap_err();
        assert_eq!(e, KeyedError::NotFinite { track: Track::Pelvis, key: 0, field: 0 });
    }

    #[test]
    fn time_records_out_of_order_leave_the_figure_readable_and_the_keys_refused() {
        let mut bytes = SEED.to_vec();
        // The horizontal time chunk 0x012d: key 1's tick (1600) set before key 0's.
        let at = bytes.windows(2).position(|w| w == [0x2d, 0x01]).unwrap() + 6 + 40 + 40;
        bytes[at..at + 4].copy_from_slice(&(-5i32).to_le_bytes());
        let s = system(&bytes);
        let e = keyed_bone(&s, 0.0, (bone::COM_VERTICAL, 0), InBetween::Refuse).unwrap_err();
        assert!(matches!(e, KeyedError::Keytracks(_)) && e.to_string().contains("is not after key 0"), "{e}");
    }
}
