//! 3ds Max's own ASCII export (ASE, `*3DSMAX_ASCIIEXPORT 200`), read for what the
//! `animation` comparison needs: the scene's timing (`*SCENE_FIRSTFRAME`,
//! `*SCENE_FRAMESPEED`, `*SCENE_TICKSPERFRAME`), each node's name, parent and `*NODE_TM`
//! (its world matrix, rows as Max's row vectors), and the `*TM_ANIMATION` samples.
//!
//! What the samples mean, read from the files (`assimp__assimp/test/models/ASE`): times are
//! Max ticks (`*SCENE_TICKSPERFRAME 160` at 30 fps); `*CONTROL_POS_SAMPLE t x y z` is the
//! node's position relative to its parent; `*CONTROL_ROT_SAMPLE t ax ay az angle` is, for
//! the first sample, the absolute rotation — it repeats the node's `*TM_ROTAXIS` /
//! `*TM_ROTANGLE` (RotatingCube Box01: `1 0 0 0.1425` both) — and, for each later sample,
//! the rotation *since the previous sample* (RotatingCube: `-1 0 0 0.0008`, `0.0024`, … small
//! steps; the exporter leaves a sample out where nothing changed). The angle sense is Max's:
//! `*TM_ROTAXIS 1 0 0`, `*TM_ROTANGLE 0.1425` stands beside `*TM_ROW1 0 0.9899 -0.1420`,
//! which is a right-handed turn of −0.1425 about X. So a sample `(a, θ)` is the ordinary
//! quaternion of −θ about `a`, and the absolute rotation after it is `delta · previous`
//! (Max's quaternion ratio `q / prev` conjugated into right-handed quaternions). Values are
//! printed with 4 decimals: each key carries the bound of the rounding it may hold, which
//! grows sample by sample for the rotation deltas ([`RefTrack::printed_error`]).

use crate::scene::{Format, Interpolation, RefNode, RefScene, RefTrack, SampledAnimation, TimeOrigin, TrackPath};
use glam::{DMat4, DQuat, DVec3, DVec4};

/// Half the last printed decimal (`%.4f`).
pub const ASE_PRINT_STEP: f64 = 5e-5;

/// Why an ASE file could not be read.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AseError {
    /// Not an ASE file (no `*3DSMAX_ASCIIEXPORT` first).
    #[error("not an ASE file: the first word is {0:?}, not *3DSMAX_ASCIIEXPORT")]
    NotAse(String),
    /// A line whose numbers cannot be read.
    #[error("line {line}: {what}")]
    Bad {
        /// 1-based line.
        line: usize,
        /// What was wrong.
        what: String,
    },
    /// Braces that do not close.
    #[error("line {line}: unbalanced braces")]
    Braces {
        /// 1-based line.
        line: usize,
    },
}

/// One node as the file describes it.
#[derive(Default)]
struct AseNode {
    name: String,
    kind: String,
    parent: Option<String>,
    world: Option<DMat4>,
    offset: u64,
}

/// One `*TM_ANIMATION` block.
struct AseAnimation {
    node: String,
    offset: u64,
    positions: Vec<(i64, DVec3)>,
    rotations: Vec<(i64, DVec3, f64)>,
    keyed_tracks: Vec<String>,
}

/// Timing from `*SCENE`.
struct Timing {
    first_frame: f64,
    frame_speed: f64,
    ticks_per_frame: f64,
}

fn numbers(words: &[&str], line: usize, n: usize) -> Result<Vec<f64>, AseError> {
    let values: Vec<f64> = words.iter().skip(1).take(n).filter_map(|w| w.parse().ok()).collect();
    if values.len() != n || values.iter().any(|v| !v.is_finite()) {
        return Err(AseError::Bad { line, what: format!("{} needs {n} numbers: {:?}", words[0], words) });
    }
    Ok(values)
}

fn quoted(line: &str) -> String {
    line.split_once('"').and_then(|(_, rest)| rest.rsplit_once('"')).map(|(s, _)| s.to_string()).unwrap_or_default()
}

/// Reads an ASE file.
pub fn read_scene(bytes: &[u8]) -> Result<RefScene, AseError> {
    let text = String::from_utf8_lossy(bytes);
    let first = text.split_whitespace().next().unwrap_or_default();
    if first != "*3DSMAX_ASCIIEXPORT" {
        return Err(AseError::NotAse(first.chars().take(40).collect()));
    }
    let version = text.split_whitespace().nth(1).and_then(|v| v.parse::<u32>().ok()).unwrap_or(0);
    let mut timing = Timing { first_frame: 0.0, frame_speed: 30.0, ticks_per_frame: 160.0 };
    let mut nodes: Vec<AseNode> = Vec::new();
    let mut animations: Vec<AseAnimation> = Vec::new();
    // Block stack: the keyword that opened each level.
    let mut stack: Vec<&str> = Vec::new();
    let mut object_kind = String::new();
    let mut pending_parent: Option<String> = None;
    let mut offset = 0u64;
    let mut row = [DVec3::ZERO; 4];
    for (i, raw) in text.split('\n').enumerate() {
        let line_no = i + 1;
        let at = offset;
        offset += raw.len() as u64 + 1;
        let line = raw.trim();
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&key) = words.first() else { continue };
        if key == "}" {
            match stack.pop() {
                Some("*NODE_TM") => {
                    if let Some(n) = nodes.last_mut() {
                        n.world = Some(DMat4::from_cols(
                            row[0].extend(0.0),
                            row[1].extend(0.0),
                            row[2].extend(0.0),
                            DVec4::new(row[3].x, row[3].y, row[3].z, 1.0),
                        ));
                    }
                }
                Some(_) => {}
                None => return Err(AseError::Braces { line: line_no }),
            }
            continue;
        }
        let opens = words.last() == Some(&"{");
        let parent_block = stack.last().copied();
        match key {
            "*SCENE_FIRSTFRAME" => timing.first_frame = numbers(&words, line_no, 1)?[0],
            "*SCENE_FRAMESPEED" => timing.frame_speed = numbers(&words, line_no, 1)?[0],
            "*SCENE_TICKSPERFRAME" => timing.ticks_per_frame = numbers(&words, line_no, 1)?[0],
            "*GEOMOBJECT" | "*CAMERAOBJECT" | "*LIGHTOBJECT" | "*HELPEROBJECT" | "*SHAPEOBJECT" if stack.is_empty() => {
                object_kind = key.trim_start_matches('*').trim_end_matches("OBJECT").to_lowercase();
                pending_parent = None;
            }
            "*NODE_TM" => nodes.push(AseNode {
                kind: object_kind.clone(),
                parent: pending_parent.take(),
                offset: at,
                ..Default::default()
            }),
            "*TM_ANIMATION" => animations.push(AseAnimation {
                node: String::new(),
                offset: at,
                positions: Vec::new(),
                rotations: Vec::new(),
                keyed_tracks: Vec::new(),
            }),
            "*NODE_NAME" => match parent_block {
                Some("*NODE_TM") => {
                    if let Some(n) = nodes.last_mut() {
                        n.name = quoted(line);
                    }
                }
                Some("*TM_ANIMATION") => {
                    if let Some(a) = animations.last_mut() {
                        a.node = quoted(line);
                    }
                }
                _ => {}
            },
            // The parent line sits in the object block before its `*NODE_TM`s; it belongs to
            // the object's own node, the next one read (a camera's target comes second).
            "*NODE_PARENT" if stack.len() == 1 => pending_parent = Some(quoted(line)),
            "*TM_ROW0" | "*TM_ROW1" | "*TM_ROW2" | "*TM_ROW3" if parent_block == Some("*NODE_TM") => {
                let v = numbers(&words, line_no, 3)?;
                let r = (key.as_bytes()[7] - b'0') as usize;
                row[r] = DVec3::new(v[0], v[1], v[2]);
            }
            "*CONTROL_POS_SAMPLE" => {
                let v = numbers(&words, line_no, 4)?;
                if let Some(a) = animations.last_mut() {
                    a.positions.push((v[0] as i64, DVec3::new(v[1], v[2], v[3])));
                }
            }
            "*CONTROL_ROT_SAMPLE" => {
                let v = numbers(&words, line_no, 5)?;
                if let Some(a) = animations.last_mut() {
                    a.rotations.push((v[0] as i64, DVec3::new(v[1], v[2], v[3]), v[4]));
                }
            }
            k if k.starts_with("*CONTROL_") && k.ends_with("_KEY") => {
                // Key-form tracks (Bezier/TCB/linear keys written as keys): not read.
                if let Some(a) = animations.last_mut() {
                    if !a.keyed_tracks.iter().any(|t| t == k) {
                        a.keyed_tracks.push(k.to_string());
                    }
                }
            }
            _ => {}
        }
        if opens {
            stack.push(key);
        }
    }
    if !stack.is_empty() {
        return Err(AseError::Braces { line: text.split('\n').count() });
    }
    build(nodes, animations, timing, version)
}

fn build(
    nodes: Vec<AseNode>,
    animations: Vec<AseAnimation>,
    timing: Timing,
    version: u32,
) -> Result<RefScene, AseError> {
    let index_of = |name: &str| nodes.iter().position(|n| n.name == name);
    let worlds: Vec<DMat4> = nodes.iter().map(|n| n.world.unwrap_or(DMat4::IDENTITY)).collect();
    let ref_nodes: Vec<RefNode> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let parent = n.parent.as_deref().and_then(index_of);
            let local = match parent {
                Some(p) if worlds[p].determinant().abs() > f64::MIN_POSITIVE => worlds[p].inverse() * worlds[i],
                _ => worlds[i],
            };
            RefNode {
                name: n.name.clone(),
                kind: n.kind.clone(),
                parent,
                local,
                pre_rotation: [0.0; 3],
                geometric: DMat4::IDENTITY,
                mesh: None,
                offset: n.offset,
                fbx_transform: None,
            }
        })
        .collect();
    let seconds_per_tick = 1.0 / (timing.ticks_per_frame * timing.frame_speed).max(f64::MIN_POSITIVE);
    let mut tracks = Vec::new();
    for a in &animations {
        let Some(node) = index_of(&a.node) else { continue };
        if !a.positions.is_empty() {
            tracks.push(RefTrack {
                node,
                path: TrackPath::Translation,
                clip: None,
                times: a.positions.iter().map(|(t, _)| *t as f64 * seconds_per_tick).collect(),
                values: a.positions.iter().map(|(_, p)| p.to_array().to_vec()).collect(),
                interpolation: Interpolation::Linear,
                printed_error: vec![ASE_PRINT_STEP * 3f64.sqrt(); a.positions.len()],
                offset: a.offset,
            });
        }
        if !a.rotations.is_empty() {
            let (values, bounds) = absolute_rotations(&a.rotations);
            tracks.push(RefTrack {
                node,
                path: TrackPath::Rotation,
                clip: None,
                times: a.rotations.iter().map(|(t, _, _)| *t as f64 * seconds_per_tick).collect(),
                values,
                interpolation: Interpolation::Linear,
                printed_error: bounds,
                offset: a.offset,
            });
        }
    }
    let keyed: Vec<String> = animations
        .iter()
        .filter(|a| !a.keyed_tracks.is_empty())
        .map(|a| format!("{} ({})", a.node, a.keyed_tracks.join(", ")))
        .collect();
    let mut time_base = format!(
        "ASE ticks: {} per frame at {} fps; file time 0 is frame {}",
        timing.ticks_per_frame, timing.frame_speed, timing.first_frame
    );
    if !keyed.is_empty() {
        time_base.push_str(&format!("; key-form tracks not read: {}", keyed.join("; ")));
    }
    Ok(RefScene {
        position_resolution: Some(ASE_PRINT_STEP),
        sampled: Some(SampledAnimation { tracks, origin: TimeOrigin::MaxZero, time_base }),
        ..RefScene::of_nodes(Format::Ase(version), ref_nodes)
    })
}

/// The absolute rotation at each `*CONTROL_ROT_SAMPLE` (right-handed quaternions `x y z w`)
/// and the bound of the printing error each carries, in radians: the first sample is
/// absolute, each later one the delta since the previous (see the module notes). Each
/// printed sample may be off by 5e-5 in its angle and by 5e-5 in each axis component (an
/// angle error of up to `θ · 1e-4`), and the errors add up along the deltas.
pub(crate) fn absolute_rotations(samples: &[(i64, DVec3, f64)]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let mut current = DQuat::IDENTITY;
    let mut bound = 0.0;
    let mut values = Vec::with_capacity(samples.len());
    let mut bounds = Vec::with_capacity(samples.len());
    for (i, (_, axis, angle)) in samples.iter().enumerate() {
        let q = if axis.length_squared() > 1e-12 {
            DQuat::from_axis_angle(axis.normalize(), -angle)
        } else {
            DQuat::IDENTITY
        };
        current = if i == 0 { q } else { (q * current).normalize() };
        bound += ASE_PRINT_STEP + angle.abs() * 2.0 * ASE_PRINT_STEP * 3f64.sqrt();
        values.push(current.to_array().to_vec());
        bounds.push(bound);
    }
    (values, bounds)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = "*3DSMAX_ASCIIEXPORT\t200\n*SCENE {\n\t*SCENE_FIRSTFRAME 0\n\t*SCENE_FRAMESPEED 30\n\t*SCENE_TICKSPERFRAME 160\n}\n\
*GEOMOBJECT {\n\t*NODE_NAME \"Box01\"\n\t*NODE_TM {\n\t\t*NODE_NAME \"Box01\"\n\t\t*TM_ROW0 1 0 0\n\t\t*TM_ROW1 0 1 0\n\t\t*TM_ROW2 0 0 1\n\t\t*TM_ROW3 1 2 3\n\t}\n\
\t*TM_ANIMATION {\n\t\t*NODE_NAME \"Box01\"\n\t\t*CONTROL_ROT_TRACK {\n\t\t\t*CONTROL_ROT_SAMPLE 0 1 0 0 0.5\n\t\t\t*CONTROL_ROT_SAMPLE 160 1 0 0 0.25\n\t\t}\n\t}\n}\n\
*GEOMOBJECT {\n\t*NODE_NAME \"Child\"\n\t*NODE_PARENT \"Box01\"\n\t*NODE_TM {\n\t\t*NODE_NAME \"Child\"\n\t\t*TM_ROW0 1 0 0\n\t\t*TM_ROW1 0 1 0\n\t\t*TM_ROW2 0 0 1\n\t\t*TM_ROW3 1 2 4\n\t}\n}\n";

    #[test]
    fn rotation_deltas_accumulate_in_max_angle_sense() {
        let scene = read_scene(SMALL.as_bytes()).unwrap();
        let track = &scene.sampled.as_ref().unwrap().tracks[0];
        assert_eq!(track.path, TrackPath::Rotation);
        assert_eq!(track.times, [0.0, 1.0 / 30.0]);
        // 0.5 then +0.25 about X, Max's sense: −0.75 rad right-handed.
        let q = DQuat::from_slice(&track.values[1]);
        assert!(q.angle_between(DQuat::from_rotation_x(-0.75)) < 1e-12, "{q:?}");
        assert!(track.printed_error[1] > track.printed_error[0]);
    }

    #[test]
    fn parents_and_local_matrices_come_from_node_tm() {
        let scene = read_scene(SMALL.as_bytes()).unwrap();
        assert_eq!(scene.nodes.len(), 2);
        assert_eq!(scene.nodes[1].parent, Some(0));
        assert_eq!(scene.nodes[1].local.w_axis.truncate(), DVec3::new(0.0, 0.0, 1.0));
    }

    #[test]
    fn bad_input_is_a_typed_error() {
        assert!(matches!(read_scene(b"solid x"), Err(AseError::NotAse(_))));
        assert!(matches!(read_scene(b"*3DSMAX_ASCIIEXPORT 200\n}\n"), Err(AseError::Braces { line: 2 })));
        let bad = "*3DSMAX_ASCIIEXPORT 200\n*X {\n*CONTROL_POS_SAMPLE 0 nan 1\n}\n";
        assert!(matches!(read_scene(bad.as_bytes()), Err(AseError::Bad { line: 3, .. })));
    }

    #[test]
    fn every_truncation_reads_or_is_a_typed_error() {
        for end in 0..SMALL.len() {
            let _ = read_scene(&SMALL.as_bytes()[..end]);
        }
    }
}
