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
//! At a key time the stored channels are the pose (exact). Between two keys of a track the
//! channel is interpolated as Max's Biped does (see [`between`]); outside a track's keys its
//! first or last key holds. Bones no keyed rule was measured for (hands, fingers, toes,
//! xtras, tails, ponytails) are [`Unplaced`] with the reason.

use super::biped::{BonePose, FigurePose, Unplaced};
use crate::model::biped::keytracks::{KeyTrack, Track};
use crate::model::biped::{bone, BipedError, BipedSystem, Sides};

/// Why a keyed pose cannot be made at a time.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum KeyedError {
    /// The keytracks did not decode.
    #[error("Biped keytracks: {0}")]
    Keytracks(BipedError),
    /// `tick` lies between two keys of `track` and its in-between shape is not modelled.
    #[error("Biped {track:?} track between its keys at ticks {before} and {after}: in-between shape not modelled")]
    Between {
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

/// The key of `track` that holds at `tick`: the key at that tick, the first before the
/// first key, the last after the last; between two keys, [`KeyedError::Between`].
fn key_at(track: &KeyTrack, tick: f64) -> Result<KeyRecord<'_>, KeyedError> {
    let last = track.times.len().saturating_sub(1);
    let key = match track.times.iter().position(|k| f64::from(k.tick) >= tick) {
        Some(k) if f64::from(track.times[k].tick) == tick || k == 0 => k,
        Some(k) => {
            return Err(KeyedError::Between {
                track: track.track,
                before: track.times[k - 1].tick,
                after: track.times[k].tick,
            })
        }
        None => last,
    };
    let values = track.records.get(key).map_or(&[][..], |r| &r[..]);
    Ok(KeyRecord { track: track.track, key, values })
}

/// The system with its pose records replaced by the keytracks' values at `tick`.
pub fn posed_at(system: &BipedSystem, tick: f64) -> Result<BipedSystem, KeyedError> {
    let tracks = system.keytracks.as_ref().map_err(|e| KeyedError::Keytracks(e.clone()))?;
    let mut posed = system.clone();
    for track in &tracks.tracks {
        let r = key_at(track, tick)?;
        apply(&mut posed, system, &r)?;
    }
    Ok(posed)
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
pub fn keyed_bone(system: &BipedSystem, tick: f64, id: i32, link: i32) -> Result<BonePose, KeyedError> {
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
    let posed = posed_at(system, tick)?;
    Ok(FigurePose::new(&posed).bone(id, link))
}
