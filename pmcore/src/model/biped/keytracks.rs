//! The Biped keytracks of the live block (issue 40): chunk pairs (data, time) on the 0x9155
//! object, one pair per track, read-only.
//!
//! Layout measured on the four LD35 files (Max 2013, `wild/tae8838__*.max`; the design
//! §10c table was measured on Max 3–9 and **differs** where marked, docs/biped-format-notes.md
//! §"Keytracks"):
//! - **Time chunk** (odd id): a 10-dword header (`[0]` = key count; §10c says 7 dwords) then
//!   one record per key, `(dwords − 10) / count` dwords long (10; the tail's 16 on a 1-link
//!   tail, 26 on a 3-link one): `[0]` tick (`i32`), `[1]` the key's index as `f32`, `[2..6]`
//!   five floats (0 on every key measured: the ease values are among them, not told apart),
//!   `[7..9]` tension, continuity, bias in Max's UI units (25 = default). Ticks rise strictly.
//! - **Data chunk** (even id): a track header of `h` dwords (`[0]` = key count) then one
//!   record of `r` floats per key, exactly: horizontal (h 1, r 10), turn (3, 13), vertical
//!   (two banks: 1 + 13·n each, the first read), pelvis (3, 7), arms and legs (6, 290 / 120:
//!   the pose records 0x006a / 0x0069 per half), spine / tail / ponytails (4, 1 + 3·links +
//!   4), head (3, 16; §10c says 12).
//!
//! Every read is bounded by its chunk; a count beyond the chunk, ticks out of order, or a
//! data and a time chunk that disagree is a [`BipedError`] with the chunk's locator.

use super::{BipedError, Chunks, Record};

/// The tracks, in chunk order: the data chunk's id (its time chunk is the next id).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Track {
    /// 0x012c: COM horizontal (position x, z in Y-up at record [0], [2]).
    Horizontal,
    /// 0x012e: COM turn (quaternion at record [4..7]).
    Turn,
    /// 0x0130: COM vertical (height at record [2]).
    Vertical,
    /// 0x0132: pelvis (quaternion at record [0..3]).
    Pelvis,
    /// 0x0134: right arm (the 0x006a half layout).
    RightArm,
    /// 0x0136: left arm.
    LeftArm,
    /// 0x0138: right leg (the 0x0069 half layout).
    RightLeg,
    /// 0x013a: left leg.
    LeftLeg,
    /// 0x013c: spine angles (`[0]` = 3 × links, the angles, 4 zeros).
    Spine,
    /// 0x013e: head quaternion [0..3], neck angles from [8] (`[7]` = 3 × links).
    Head,
    /// 0x0142: tail (the spine's layout).
    Tail,
    /// 0x0147: ponytail 1.
    Pony1,
    /// 0x0149: ponytail 2.
    Pony2,
}

impl Track {
    /// Every track with its data chunk id, in chunk order.
    pub const ALL: [(Track, u16); 13] = [
        (Track::Horizontal, 0x012c),
        (Track::Turn, 0x012e),
        (Track::Vertical, 0x0130),
        (Track::Pelvis, 0x0132),
        (Track::RightArm, 0x0134),
        (Track::LeftArm, 0x0136),
        (Track::RightLeg, 0x0138),
        (Track::LeftLeg, 0x013a),
        (Track::Spine, 0x013c),
        (Track::Head, 0x013e),
        (Track::Tail, 0x0142),
        (Track::Pony1, 0x0147),
        (Track::Pony2, 0x0149),
    ];

    /// Data header dwords and the record length in floats (`None`: 1 + 3·links + 4, read
    /// from each record's count).
    fn layout(self) -> (usize, Option<usize>) {
        match self {
            Track::Horizontal => (1, Some(10)),
            Track::Turn => (3, Some(13)),
            Track::Vertical => (1, Some(13)),
            Track::Pelvis => (3, Some(7)),
            Track::RightArm | Track::LeftArm => (6, Some(290)),
            Track::RightLeg | Track::LeftLeg => (6, Some(120)),
            Track::Head => (3, Some(16)),
            Track::Spine | Track::Tail | Track::Pony1 | Track::Pony2 => (4, None),
        }
    }
}

/// One key's time record.
#[derive(Clone, Debug, PartialEq)]
pub struct TimeKey {
    /// Max time in ticks (160 per frame at 30 fps).
    pub tick: i32,
    /// Tension, continuity, bias in Max's UI units (25 = the default 0 of the formulas).
    pub tcb: [f32; 3],
    /// Record dwords [2..6]: 0 on every key measured; the ease-to / ease-from values are
    /// among them (not told apart by these files).
    pub params: [f32; 5],
}

/// One decoded track: its keys' times and their data records.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyTrack {
    /// Which track.
    pub track: Track,
    /// The keys' time records, ticks strictly rising.
    pub times: Vec<TimeKey>,
    /// One data record per key (floats, raw; the evaluator reads the fields).
    pub records: Vec<Vec<f32>>,
}

impl KeyTrack {
    /// The index of the key at `tick` exactly, if any.
    pub fn key_at(&self, tick: i32) -> Option<usize> {
        self.times.binary_search_by_key(&tick, |k| k.tick).ok()
    }
}

/// Every non-empty track of the live block.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct KeyTracks {
    /// The tracks with one key or more, in chunk order.
    pub tracks: Vec<KeyTrack>,
}

impl KeyTracks {
    /// The track `track`, when it holds keys.
    pub fn get(&self, track: Track) -> Option<&KeyTrack> {
        self.tracks.iter().find(|t| t.track == track)
    }

    pub(super) fn decode(cs: &Chunks<'_, '_>) -> Result<Self, BipedError> {
        let mut tracks = Vec::new();
        for (track, id) in Track::ALL {
            let (Some(data), Some(time)) = (cs.get_live(id), cs.get_live(id + 1)) else { continue };
            let decoded = decode_track(track, &data, &time)?;
            if !decoded.times.is_empty() {
                tracks.push(decoded);
            }
        }
        Ok(KeyTracks { tracks })
    }
}

/// Time header dwords.
const TIME_HEADER: usize = 10;
/// The shortest time record (the tail's carry more per link).
const TIME_RECORD: usize = 10;

/// One track from its data and time chunks.
fn decode_track(track: Track, data: &Record<'_>, time: &Record<'_>) -> Result<KeyTrack, BipedError> {
    let times = time_keys(time)?;
    let records = data_records(track, data, times.len())?;
    Ok(KeyTrack { track, times, records })
}

fn time_keys(r: &Record<'_>) -> Result<Vec<TimeKey>, BipedError> {
    if r.dwords() == 0 {
        return Ok(Vec::new());
    }
    let n = r.count(0, r.dwords().saturating_sub(TIME_HEADER) / TIME_RECORD)?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let body = r.dwords() - TIME_HEADER;
    if !body.is_multiple_of(n) {
        return Err(r.invalid(0, format!("{body} dwords after the header do not make {n} equal time records")));
    }
    let len = body / n;
    let mut keys: Vec<TimeKey> = Vec::with_capacity(n);
    for k in 0..n {
        let at = TIME_HEADER + k * len;
        let tick = r.i(at)?;
        if let Some(prev) = keys.last().filter(|p| p.tick >= tick) {
            return Err(
                r.invalid(at, format!("key {k} at tick {tick} is not after key {} at tick {}", k - 1, prev.tick))
            );
        }
        keys.push(TimeKey { tick, params: r.floats(at + 2)?, tcb: r.floats(at + 7)? });
    }
    Ok(keys)
}

fn data_records(track: Track, r: &Record<'_>, n: usize) -> Result<Vec<Vec<f32>>, BipedError> {
    let (header, fixed) = track.layout();
    let count = r.count(0, r.dwords())?;
    if count != n {
        return Err(r.invalid(0, format!("{count} data records, the time chunk holds {n} keys")));
    }
    let mut at = header;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let len = match fixed {
            Some(len) => len,
            None => 1 + r.count(at, 3 * 64)? + 4,
        };
        out.push((at..at + len).map(|k| r.f(k)).collect::<Result<Vec<_>, _>>()?);
        at += len;
    }
    let expected = if track == Track::Vertical { 2 * at } else { at };
    if r.dwords() != expected {
        return Err(r.invalid(0, format!("{} dwords, {n} records of this track make {expected}", r.dwords())));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::ChunkPath;

    fn record(dwords: &[u32]) -> Vec<u8> {
        dwords.iter().flat_map(|d| d.to_le_bytes()).collect()
    }

    fn rec(bytes: &[u8], chunk: u16) -> Record<'_> {
        Record { bytes, path: ChunkPath::from_steps("Scene", &[(0, 0x2017)]), chunk, header: None }
    }

    fn time_chunk(ticks: &[i32]) -> Vec<u8> {
        let mut d = vec![ticks.len() as u32, 0, 0, 0, 0, 1, 0, 0, 0, 0];
        for (k, &t) in ticks.iter().enumerate() {
            d.extend([t as u32, (k as f32).to_bits(), 0, 0, 0, 0, 0]);
            d.extend([25.0f32, 25.0, 0.0].map(f32::to_bits));
        }
        record(&d)
    }

    fn pelvis_chunk(n: usize) -> Vec<u8> {
        let mut d = vec![n as u32, 0, 0];
        for _ in 0..n {
            d.extend([0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0].map(f32::to_bits));
        }
        record(&d)
    }

    #[test]
    fn a_pelvis_track_reads_its_ticks_tcb_and_records() {
        let (t, d) = (time_chunk(&[0, 1600, 3200]), pelvis_chunk(3));
        let track = decode_track(Track::Pelvis, &rec(&d, 0x0132), &rec(&t, 0x0133)).unwrap();
        assert_eq!(track.times.iter().map(|k| k.tick).collect::<Vec<_>>(), [0, 1600, 3200]);
        assert_eq!(track.times[1].tcb, [25.0, 25.0, 0.0]);
        assert_eq!(track.records[2], [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(track.key_at(1600), Some(1));
        assert_eq!(track.key_at(1601), None);
    }

    #[test]
    fn ticks_out_of_order_are_a_typed_error() {
        let (t, d) = (time_chunk(&[0, 3200, 1600]), pelvis_chunk(3));
        let e = decode_track(Track::Pelvis, &rec(&d, 0x0132), &rec(&t, 0x0133)).unwrap_err();
        assert!(e.to_string().contains("is not after key 1"), "{e}");
    }

    #[test]
    fn a_count_beyond_the_chunk_is_a_typed_error() {
        let mut t = time_chunk(&[0, 1600]);
        t[0] = 200;
        let e = decode_track(Track::Pelvis, &rec(&pelvis_chunk(2), 0x0132), &rec(&t, 0x0133)).unwrap_err();
        assert!(e.to_string().contains("count 200 outside"), "{e}");
        let mut d = pelvis_chunk(2);
        d[0] = 3;
        let e = decode_track(Track::Pelvis, &rec(&d, 0x0132), &rec(&time_chunk(&[0, 1600]), 0x0133)).unwrap_err();
        assert!(e.to_string().contains("3 data records, the time chunk holds 2"), "{e}");
    }

    #[test]
    fn a_data_chunk_longer_than_its_records_is_a_typed_error() {
        let mut d = pelvis_chunk(2);
        d.extend([0; 4]);
        let e = decode_track(Track::Pelvis, &rec(&d, 0x0132), &rec(&time_chunk(&[0, 1600]), 0x0133)).unwrap_err();
        assert!(e.to_string().contains("dwords, 2 records"), "{e}");
    }

    #[test]
    fn spine_records_take_their_length_from_their_count() {
        let mut d = vec![2u32, 3, 0, 0];
        for a in [0.1f32, 0.2] {
            d.push(3);
            d.extend([a, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0].map(f32::to_bits));
        }
        let track = decode_track(Track::Spine, &rec(&record(&d), 0x013c), &rec(&time_chunk(&[0, 160]), 0x013d));
        let track = track.unwrap();
        assert_eq!(track.records[1][1], 0.2);
        assert_eq!(track.records[1].len(), 8);
    }
}
