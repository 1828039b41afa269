//! The keyframer of a `.3ds` file (chunk 0x4D4D → 0xB000), read for the `animation`
//! comparison: each node tag (0xB002 object, 0xB003 camera, 0xB004 camera target, 0xB005
//! light, 0xB006 light target, 0xB007 spot light) with its id (0xB030), header (0xB010: name,
//! two flag words, parent id, −1 for none) and tracks — position 0xB020, rotation 0xB021,
//! scale 0xB022 (camera roll 0xB024 is read and not compared: see below).
//!
//! Track layout: flags `u16`, two `u32`, key count `u32`; per key a frame `u32`, spline
//! flags `u16` and one `f32` per set bit (tension, continuity, bias, ease to, ease from),
//! then the value (position and scale 3 `f32`, rotation angle + axis 4 `f32`, roll 1).
//! What the keys mean, read from the three files of `../anim` beside the ASE of the same
//! scenes: positions are relative to the parent node (`CameraRollAnimWithChildObject.3ds`
//! Box02, child of Camera01, frame 0 (71.3652, −23.0196, −138.7689) = the ASE's
//! `*CONTROL_POS_SAMPLE 0`); rotation keys are, as in the ASE, the first absolute and each
//! later one the turn since the previous key in Max's angle sense (`RotatingCube.3DS`:
//! 0.1425 about +X, then 0.0008 about −X … = the ASE samples). Key times are frames; the
//! file declares no frame rate, so they are taken at the Max scene's. A camera target's
//! node carries its camera's name; Max names it `<camera>.Target` (the ASE of the same
//! scene does), and so does this reader. Camera roll (degrees) is a Look At parameter, not
//! a node channel: it is counted, not compared.

use crate::ase::absolute_rotations;
use crate::scene::{Format, Interpolation, RefNode, RefScene, RefTrack, SampledAnimation, TimeOrigin, TrackPath};
use glam::{DMat4, DVec3};

/// Why a `.3ds` keyframer could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum ThreeDsError {
    /// Not a `.3ds` main chunk.
    #[error("not a .3ds file: first chunk 0x{0:04x}, not 0x4d4d")]
    NotThreeDs(u16),
    /// A chunk or record that runs past its parent.
    #[error("offset {offset}: {what}")]
    Truncated {
        /// Byte offset.
        offset: u64,
        /// What was cut.
        what: String,
    },
    /// No keyframer chunk.
    #[error("no keyframer chunk (0xB000)")]
    NoKeyframer,
}

/// One chunk: id, payload range.
#[derive(Clone, Copy)]
struct Chunk {
    id: u16,
    start: usize,
    end: usize,
}

fn chunks(bytes: &[u8], start: usize, end: usize) -> Result<Vec<Chunk>, ThreeDsError> {
    let mut out = Vec::new();
    let mut at = start;
    while at + 6 <= end {
        let id = u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let len = u32::from_le_bytes([bytes[at + 2], bytes[at + 3], bytes[at + 4], bytes[at + 5]]) as usize;
        if len < 6 || at.checked_add(len).is_none_or(|e| e > end) {
            return Err(ThreeDsError::Truncated {
                offset: at as u64,
                what: format!("chunk 0x{id:04x} of {len} bytes past its parent's end {end}"),
            });
        }
        out.push(Chunk { id, start: at + 6, end: at + len });
        at += len;
    }
    Ok(out)
}

/// A little-endian reader over one chunk's payload.
struct Cursor<'b> {
    bytes: &'b [u8],
    at: usize,
    end: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], ThreeDsError> {
        if self.at + n > self.end {
            return Err(ThreeDsError::Truncated { offset: self.at as u64, what: format!("{n} bytes past the chunk") });
        }
        self.at += n;
        Ok(&self.bytes[self.at - n..self.at])
    }
    fn u16(&mut self) -> Result<u16, ThreeDsError> {
        self.take(2).map(|b| u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Result<u32, ThreeDsError> {
        self.take(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn f32(&mut self) -> Result<f64, ThreeDsError> {
        self.take(4).map(|b| f64::from(f32::from_le_bytes([b[0], b[1], b[2], b[3]])))
    }
    fn name(&mut self) -> Result<String, ThreeDsError> {
        let rest = &self.bytes[self.at..self.end];
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or(ThreeDsError::Truncated { offset: self.at as u64, what: "unterminated name".into() })?;
        let name = String::from_utf8_lossy(&rest[..n]).into_owned();
        self.at += n + 1;
        Ok(name)
    }
}

/// A track's keys: frame and value.
type Keys = Vec<(u32, Vec<f64>)>;

/// One track's keys.
fn track(bytes: &[u8], c: Chunk, values: usize) -> Result<Keys, ThreeDsError> {
    let mut r = Cursor { bytes, at: c.start, end: c.end };
    r.take(2 + 8)?;
    let count = r.u32()? as usize;
    let mut keys = Vec::with_capacity(count.min((c.end - c.start) / 10));
    for _ in 0..count {
        let frame = r.u32()?;
        let spline = r.u16()?;
        for bit in 0..5 {
            if spline >> bit & 1 == 1 {
                r.f32()?;
            }
        }
        let value = (0..values).map(|_| r.f32()).collect::<Result<Vec<f64>, _>>()?;
        keys.push((frame, value));
    }
    Ok(keys)
}

/// A node tag as read.
struct Tag {
    id: Option<u16>,
    name: String,
    parent: Option<u16>,
    offset: u64,
    tracks: Vec<(TrackPath, Keys, u64)>,
    rolls: usize,
}

fn node_tag(bytes: &[u8], tag: Chunk) -> Result<Tag, ThreeDsError> {
    let mut out =
        Tag { id: None, name: String::new(), parent: None, offset: tag.start as u64 - 6, tracks: Vec::new(), rolls: 0 };
    for c in chunks(bytes, tag.start, tag.end)? {
        let offset = c.start as u64 - 6;
        match c.id {
            0xB030 => out.id = Some(Cursor { bytes, at: c.start, end: c.end }.u16()?),
            0xB010 => {
                let mut r = Cursor { bytes, at: c.start, end: c.end };
                out.name = r.name()?;
                r.take(4)?;
                let parent = r.u16()?;
                out.parent = (parent != 0xFFFF).then_some(parent);
            }
            0xB020 => out.tracks.push((TrackPath::Translation, track(bytes, c, 3)?, offset)),
            0xB021 => out.tracks.push((TrackPath::Rotation, track(bytes, c, 4)?, offset)),
            0xB022 => out.tracks.push((TrackPath::Scale, track(bytes, c, 3)?, offset)),
            0xB024 => out.rolls += track(bytes, c, 1)?.len(),
            _ => {}
        }
    }
    if tag.id == 0xB004 || tag.id == 0xB006 {
        out.name.push_str(".Target");
    }
    Ok(out)
}

/// Reads the keyframer of a `.3ds` file.
pub fn read_scene(bytes: &[u8]) -> Result<RefScene, ThreeDsError> {
    let top = chunks(bytes, 0, bytes.len())?;
    let main = top.first().ok_or(ThreeDsError::NotThreeDs(0))?;
    if main.id != 0x4D4D {
        return Err(ThreeDsError::NotThreeDs(main.id));
    }
    let keyframer =
        chunks(bytes, main.start, main.end)?.into_iter().find(|c| c.id == 0xB000).ok_or(ThreeDsError::NoKeyframer)?;
    let mut tags = Vec::new();
    for c in chunks(bytes, keyframer.start, keyframer.end)? {
        if (0xB001..=0xB007).contains(&c.id) {
            tags.push(node_tag(bytes, c)?);
        }
    }
    let index_of =
        |id: u16| tags.iter().position(|t| t.id == Some(id)).or(Some(id as usize).filter(|&i| i < tags.len()));
    let nodes = tags
        .iter()
        .map(|t| RefNode {
            name: t.name.clone(),
            kind: "keyframer node".into(),
            parent: t.parent.and_then(index_of),
            local: DMat4::IDENTITY,
            pre_rotation: [0.0; 3],
            geometric: DMat4::IDENTITY,
            mesh: None,
            offset: t.offset,
            fbx_transform: None,
        })
        .collect();
    let mut tracks = Vec::new();
    for (node, t) in tags.iter().enumerate() {
        for (path, keys, offset) in &t.tracks {
            let values = match path {
                TrackPath::Rotation => {
                    let samples: Vec<(i64, DVec3, f64)> =
                        keys.iter().map(|(f, v)| (*f as i64, DVec3::new(v[1], v[2], v[3]), v[0])).collect();
                    absolute_rotations(&samples).0
                }
                _ => keys.iter().map(|(_, v)| v.clone()).collect(),
            };
            tracks.push(RefTrack {
                node,
                path: *path,
                clip: None,
                times: keys.iter().map(|(f, _)| *f as f64).collect(),
                values,
                interpolation: Interpolation::Linear,
                printed_error: Vec::new(),
                offset: *offset,
            });
        }
    }
    let rolls: usize = tags.iter().map(|t| t.rolls).sum();
    let time_base = format!(
        ".3ds keyframer: key times in frames of the Max scene's rate (the file declares none); {rolls} camera roll key(s) read, not compared"
    );
    Ok(RefScene {
        sampled: Some(SampledAnimation { tracks, origin: TimeOrigin::MaxFrames, time_base }),
        ..RefScene::of_nodes(Format::ThreeDs, nodes)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(id: u16, payload: &[u8]) -> Vec<u8> {
        let mut out = id.to_le_bytes().to_vec();
        out.extend(((payload.len() + 6) as u32).to_le_bytes());
        out.extend(payload);
        out
    }

    /// One object node `Box` with a two-key position track (frames 0 and 10, the second
    /// with a tension word).
    fn small() -> Vec<u8> {
        let mut header = b"Box\0".to_vec();
        header.extend([0, 0, 0, 0, 0xFF, 0xFF]);
        let mut pos = vec![0u8; 10];
        pos.extend(2u32.to_le_bytes());
        pos.extend(0u32.to_le_bytes());
        pos.extend(0u16.to_le_bytes());
        [1.0f32, 2.0, 3.0].iter().for_each(|f| pos.extend(f.to_le_bytes()));
        pos.extend(10u32.to_le_bytes());
        pos.extend(1u16.to_le_bytes());
        pos.extend(0.5f32.to_le_bytes());
        [4.0f32, 5.0, 6.0].iter().for_each(|f| pos.extend(f.to_le_bytes()));
        let tag =
            chunk(0xB002, &[chunk(0xB030, &0u16.to_le_bytes()), chunk(0xB010, &header), chunk(0xB020, &pos)].concat());
        chunk(0x4D4D, &chunk(0xB000, &tag))
    }

    #[test]
    fn a_position_track_reads_frames_and_values_past_its_spline_words() {
        let scene = read_scene(&small()).unwrap();
        assert_eq!((scene.nodes[0].name.as_str(), scene.nodes[0].parent), ("Box", None));
        let t = &scene.sampled.unwrap().tracks[0];
        assert_eq!((t.path, t.times.as_slice()), (TrackPath::Translation, &[0.0, 10.0][..]));
        assert_eq!(t.values[1], vec![4.0, 5.0, 6.0]);
    }

    #[test]
    fn every_truncation_is_a_typed_error_or_reads() {
        let bytes = small();
        for end in 0..bytes.len() {
            let _ = read_scene(&bytes[..end]);
        }
        assert!(matches!(read_scene(b"\x02\x00\x06\0\0\0"), Err(ThreeDsError::NotThreeDs(2))));
        assert!(matches!(read_scene(b"MM\x06\0\0\0"), Err(ThreeDsError::NoKeyframer)));
    }
}
