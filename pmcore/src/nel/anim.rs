//! NeL `.anim` files (`CAnimation::serial`, `animation.cpp`): the `_LEN` `MINA` tags, a
//! version (≤ 2), the animation name, the channel-name → track-id map, the tracks as poly
//! pointers, then (v1+) the minimum end time and (v2+) the SSS shape names.
//!
//! Keyframer tracks (`ITrackKeyFramer<K>::serial`): version 0, a `map<float, K>` (time then
//! key), range lock, range begin, range end, loop mode. Every key starts with version 0;
//! the key classes differ only by how many floats follow (vector 3, quaternion 4, TCB adds
//! tension, continuity, bias, ease-to, ease-from; a TCB quaternion key holds an angle-axis;
//! a Bezier key holds value, in tangent, out tangent and a `Step` bool byte — `key.h`).
//! A track class not listed in [`KeyKind`] stops typed reading: it and everything after
//! it stay one opaque run.
//!
//! The channel-name map is a `std::map<std::string, uint32>`: written sorted by name, the
//! ids counting tracks in the order they were added ([`Animation::new`] keeps both rules;
//! `ryzom__idle@f39cac9d.anim` shows them).

use super::stream::{NelError, Part, Reader, Writer};

/// The tag `serialCheck(NELID("_LEN"))`, `serialCheck(NELID("MINA"))` leaves.
pub const MAGIC: [u8; 8] = *b"NEL_ANIM";

/// Key layouts of the keyframer track classes this reader types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum KeyKind {
    /// `CTrackKeyFramerLinearFloat`: one float.
    LinearFloat,
    /// `CTrackKeyFramerLinearVector`: x, y, z.
    LinearVector,
    /// `CTrackKeyFramerLinearQuat`: x, y, z, w.
    LinearQuat,
    /// `CTrackKeyFramerTCBFloat`: value + TCB/ease.
    TcbFloat,
    /// `CTrackKeyFramerTCBVector`: x, y, z + TCB/ease.
    TcbVector,
    /// `CTrackKeyFramerTCBQuat`: axis x, y, z, angle + TCB/ease.
    TcbQuat,
    /// `CTrackKeyFramerBezierVector`: value, in tangent, out tangent (3 floats each), then
    /// the `Step` byte.
    BezierVector,
}

impl KeyKind {
    /// All kinds, for lookups by class name.
    pub(crate) const ALL: [KeyKind; 7] = [
        KeyKind::LinearFloat,
        KeyKind::LinearVector,
        KeyKind::LinearQuat,
        KeyKind::TcbFloat,
        KeyKind::TcbVector,
        KeyKind::TcbQuat,
        KeyKind::BezierVector,
    ];

    /// The NeL class name (what the poly pointer stores).
    pub fn class_name(self) -> &'static str {
        match self {
            KeyKind::LinearFloat => "CTrackKeyFramerLinearFloat",
            KeyKind::LinearVector => "CTrackKeyFramerLinearVector",
            KeyKind::LinearQuat => "CTrackKeyFramerLinearQuat",
            KeyKind::TcbFloat => "CTrackKeyFramerTCBFloat",
            KeyKind::TcbVector => "CTrackKeyFramerTCBVector",
            KeyKind::TcbQuat => "CTrackKeyFramerTCBQuat",
            KeyKind::BezierVector => "CTrackKeyFramerBezierVector",
        }
    }

    /// Floats per key after its version byte.
    pub fn floats(self) -> usize {
        match self {
            KeyKind::LinearFloat => 1,
            KeyKind::LinearVector => 3,
            KeyKind::LinearQuat => 4,
            KeyKind::TcbFloat => 6,
            KeyKind::TcbVector => 8,
            KeyKind::TcbQuat => 9,
            KeyKind::BezierVector => 9,
        }
    }

    /// True for the Bezier keys, which end with the `Step` bool byte.
    pub fn has_step(self) -> bool {
        self == KeyKind::BezierVector
    }

    /// The kind of a class name.
    pub(crate) fn of_class(name: &str) -> Option<KeyKind> {
        KeyKind::ALL.into_iter().find(|k| k.class_name() == name)
    }
}

/// One key: its time and its floats (value first, then tangent data).
#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    /// Time in seconds (the map key).
    pub time: f32,
    /// Value and TCB parameters, [`KeyKind::floats`] of them.
    pub values: Vec<f32>,
    /// The Bezier `Step` byte (kept raw), for the kinds that have one.
    pub step: Option<u8>,
}

/// One keyframer track.
#[derive(Clone, Debug, PartialEq)]
pub struct Track {
    /// Poly-pointer id.
    pub ptr_id: u64,
    /// Key layout (from the class name).
    pub kind: KeyKind,
    /// Keys in file order (ascending time: a `std::map`).
    pub keys: Vec<Key>,
    /// `_RangeLock` byte (kept raw: NeL may write it uninitialised).
    pub range_lock: u8,
    /// `_RangeBegin`.
    pub range_begin: f32,
    /// `_RangeEnd`.
    pub range_end: f32,
    /// `_LoopMode` byte.
    pub loop_mode: u8,
}

/// A `CAnimation`.
#[derive(Clone, Debug, PartialEq)]
pub struct Animation {
    /// Serial version (0..=2).
    pub version: u32,
    /// Animation name.
    pub name: String,
    /// Channel name → track index, in file order.
    pub id_by_name: Vec<(String, u32)>,
    /// Tracks, then min end time and SSS shapes; opaque from the first untyped track on.
    pub(crate) body: Part<AnimationBody>,
}

/// What follows the name map.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AnimationBody {
    /// Tracks in id order (`None` for a null pointer).
    pub tracks: Vec<Option<Track>>,
    /// `_MinEndTime` (v1+).
    pub min_end_time: f32,
    /// `_SSSShapes` (v2+).
    pub sss_shapes: Vec<String>,
}

/// `_MinEndTime` as a fresh `CAnimation` holds it (`-FLT_MAX`: no minimum end time).
pub const NO_MIN_END_TIME: f32 = -f32::MAX;

impl Animation {
    /// A version-2 animation (what current NeL writes: `ryzom__neck.anim`) of `tracks` in the
    /// order they were added: ids count from 0 in that order, poly-pointer ids from 1, the
    /// name map sorted by name (`std::map`), no SSS shapes.
    pub fn new(tracks: Vec<(String, Track)>) -> Self {
        let mut id_by_name: Vec<(String, u32)> =
            tracks.iter().enumerate().map(|(i, (name, _))| (name.clone(), i as u32)).collect();
        id_by_name.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        let tracks =
            tracks.into_iter().enumerate().map(|(i, (_, t))| Some(Track { ptr_id: i as u64 + 1, ..t })).collect();
        Animation {
            version: 2,
            name: String::new(),
            id_by_name,
            body: Part::Typed(AnimationBody { tracks, min_end_time: NO_MIN_END_TIME, sss_shapes: Vec::new() }),
        }
    }

    /// The named tracks, in track-id order: `None` when the tracks were not typed.
    pub fn tracks(&self) -> Option<Vec<(&str, &Track)>> {
        let body = self.body.typed()?;
        let mut named: Vec<(u32, &str)> = self.id_by_name.iter().map(|(n, id)| (*id, n.as_str())).collect();
        named.sort_unstable();
        Some(named.into_iter().filter_map(|(id, n)| body.tracks.get(id as usize)?.as_ref().map(|t| (n, t))).collect())
    }

    /// The track named `name`, if typed and present.
    pub fn track(&self, name: &str) -> Option<&Track> {
        let id = self.id_by_name.iter().find(|(n, _)| n == name)?.1;
        self.body.typed()?.tracks.get(id as usize)?.as_ref()
    }

    /// Renames track `from` to `to` (keeping the map sorted); false when there is no `from`.
    /// Tests use it to perturb an export.
    pub fn rename_track(&mut self, from: &str, to: &str) -> bool {
        let Some(entry) = self.id_by_name.iter_mut().find(|(n, _)| n == from) else { return false };
        entry.0 = to.to_string();
        self.id_by_name.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        true
    }
}

impl Track {
    /// A track with unlocked range `[first key, last key]` and loop mode off — what
    /// `createKeyFramer` leaves when the controller's range is FOREVER/NEVER.
    pub fn over_keys(kind: KeyKind, keys: Vec<Key>) -> Self {
        let range_begin = keys.first().map_or(0.0, |k| k.time);
        let range_end = keys.last().map_or(0.0, |k| k.time);
        Track { ptr_id: 0, kind, keys, range_lock: 0, range_begin, range_end, loop_mode: 0 }
    }
}

/// Reads an `.anim` file. Only the tag, version and name map must be readable; the rest
/// falls back to an opaque run.
pub(crate) fn read(r: &mut Reader) -> Result<Animation, NelError> {
    r.within("CAnimation", |r| {
        r.check(&MAGIC)?;
        let version = r.version(2)?;
        let name = r.string()?;
        let id_by_name = r.vec(8, |r| {
            let n = r.string()?;
            Ok((n, r.u32()?))
        })?;
        let body = r.part("tracks", |r| {
            let tracks = r.vec(8, read_track)?;
            let min_end_time = if version >= 1 { r.f32()? } else { 0.0 };
            let sss_shapes = if version >= 2 { r.vec(4, |r| r.string())? } else { Vec::new() };
            r.finish()?;
            Ok(AnimationBody { tracks, min_end_time, sss_shapes })
        });
        Ok(Animation { version, name, id_by_name, body })
    })
}

fn read_track(r: &mut Reader) -> Result<Option<Track>, NelError> {
    let Some((ptr_id, class)) = r.poly_ptr_head()? else { return Ok(None) };
    let class = class.ok_or_else(|| r.error(format!("track pointer {ptr_id} shared with an earlier track")))?;
    let kind = KeyKind::of_class(&class).ok_or_else(|| r.error(format!("track class {class} is not typed")))?;
    r.version(0)?;
    let floats = kind.floats();
    let step_bytes = usize::from(kind.has_step());
    let keys = r.vec(5 + 4 * floats + step_bytes, |r| {
        let time = r.f32()?;
        r.version(0)?;
        let values = (0..floats).map(|_| r.f32()).collect::<Result<_, _>>()?;
        let step = if kind.has_step() { Some(r.u8()?) } else { None };
        Ok(Key { time, values, step })
    })?;
    let range_lock = r.u8()?;
    let range_begin = r.f32()?;
    let range_end = r.f32()?;
    let loop_mode = r.u8()?;
    Ok(Some(Track { ptr_id, kind, keys, range_lock, range_begin, range_end, loop_mode }))
}

/// Writes an `.anim` file.
pub(crate) fn write(w: &mut Writer, a: &Animation) {
    w.bytes(&MAGIC);
    w.version(a.version);
    w.string(&a.name);
    w.vec(&a.id_by_name, |w, (n, id)| {
        w.string(n);
        w.u32(*id);
    });
    w.part(&a.body, |w, b| {
        w.vec(&b.tracks, |w, t| match t {
            None => w.u64(0),
            Some(t) => {
                w.poly_ptr_head(&Some((t.ptr_id, Some(t.kind.class_name().to_string()))));
                w.version(0);
                w.vec(&t.keys, |w, k| {
                    w.f32(k.time);
                    w.version(0);
                    w.f32s(&k.values);
                    if t.kind.has_step() {
                        w.u8(k.step.unwrap_or(0));
                    }
                });
                w.u8(t.range_lock);
                w.f32(t.range_begin);
                w.f32(t.range_end);
                w.u8(t.loop_mode);
            }
        });
        if a.version >= 1 {
            w.f32(b.min_end_time);
        }
        if a.version >= 2 {
            w.vec(&b.sss_shapes, |w, s| w.string(s));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes_of(a: &Animation) -> Vec<u8> {
        let mut w = Writer::default();
        write(&mut w, a);
        w.0
    }

    fn sample() -> Animation {
        let track = Track {
            ptr_id: 1,
            kind: KeyKind::TcbQuat,
            keys: vec![Key { time: 0.0, values: vec![0.0, 0.0, 1.0, 0.5, 0.0, 0.0, 0.0, 0.0, 0.0], step: None }],
            range_lock: 0x7c,
            range_begin: f32::from_bits(0x6870737c),
            range_end: 1.0,
            loop_mode: 0,
        };
        Animation {
            version: 2,
            name: String::new(),
            id_by_name: vec![("Bip01.rotquat".into(), 0)],
            body: Part::Typed(AnimationBody {
                tracks: vec![Some(track), None],
                min_end_time: -f32::MAX,
                sss_shapes: vec![],
            }),
        }
    }

    #[test]
    fn garbage_bytes_in_flags_and_floats_survive_a_round_trip() {
        let bytes = bytes_of(&sample());
        let back = read(&mut Reader::new(&bytes)).unwrap();
        assert_eq!(back, sample());
        assert_eq!(bytes_of(&back), bytes);
    }

    #[test]
    fn an_unknown_track_class_leaves_the_tracks_opaque_but_in_place() {
        let mut a = sample();
        let mut bytes = bytes_of(&a);
        let at = bytes.windows(5).position(|w| w == b"CTrac").unwrap();
        bytes[at + 12] = b'X'; // "CTrackKeyFraXer..."
        let back = read(&mut Reader::new(&bytes)).unwrap();
        assert!(matches!(&back.body, Part::Opaque(o) if o.why.what.contains("not typed")));
        assert_eq!(bytes_of(&back), bytes);
        a.body = back.body.clone();
        assert_eq!(back, a);
    }

    proptest! {
        #[test]
        fn write_then_read_is_identity(
            version in 0u32..3, name in "[a-z_.]{0,12}",
            keys in prop::collection::vec((any::<u32>(), prop::collection::vec(any::<u32>(), 9)), 0..5),
            kind in prop::sample::select(KeyKind::ALL.to_vec()), lock in any::<u8>(), end in any::<u32>(),
        ) {
            let keys = keys.into_iter().map(|(t, v)| Key { time: f32::from_bits(t),
                values: v[..kind.floats()].iter().map(|b| f32::from_bits(*b)).collect(),
                step: kind.has_step().then_some((t & 0xff) as u8) }).collect();
            let track = Track { ptr_id: 1, kind, keys, range_lock: lock, range_begin: 0.0,
                range_end: f32::from_bits(end), loop_mode: lock ^ 1 };
            let a = Animation { version, name, id_by_name: vec![("a.pos".into(), 0)],
                body: Part::Typed(AnimationBody { tracks: vec![Some(track)],
                    min_end_time: if version >= 1 { 2.5 } else { 0.0 },
                    sss_shapes: if version >= 2 { vec!["s".into()] } else { vec![] } }) };
            let bytes = bytes_of(&a);
            let back = read(&mut Reader::new(&bytes)).unwrap();
            prop_assert_eq!(bytes_of(&back), bytes);
            prop_assert!(back.body.typed().is_some());
        }

        #[test]
        fn arbitrary_bytes_never_panic(tail in prop::collection::vec(any::<u8>(), 0..200)) {
            let mut bytes = MAGIC.to_vec();
            bytes.extend(tail);
            if let Ok(a) = read(&mut Reader::new(&bytes)) {
                prop_assert_eq!(bytes_of(&a), bytes);
            }
        }
    }
}
