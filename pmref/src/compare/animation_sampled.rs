//! `animation` for references that store sampled tracks (ASE, glTF): every key of every
//! track against pmcore's controllers at the same Max time, channel by channel —
//! translation, rotation, scale — in the file's axes and units.
//!
//! Time: a track's key at `s` seconds of its clip is Max tick `clip start + s · 4800` (Max
//! keeps 4800 ticks a second whatever the frame rate). ASE times are Max ticks already
//! (`*SCENE_TICKSPERFRAME` × `*SCENE_FRAMESPEED` = 4800 in every file read). A glTF clip
//! written by the Babylon.js exporter starts at the range of its animation group, which the
//! exporter keeps in the Max scene root's user properties (`<guid> = Run;0;3360;2;3;…`,
//! name, first and last tick, node handles — `RiggedElf.max`); a clip without a group
//! (`All Animations`) is the whole timeline and starts at the scene's animation range start
//! (Config 0x20B0): `AnimatedSpotlights.max` (24 fps) starts at tick 200 (frame 1), and its
//! glTF key at 0 s holds Max's pose at tick 200 (read as tick 0, each key of the 443 is Max's
//! pose one frame later: up to 6.5e-2 rad off).
//!
//! Axes and units: ASE writes Max's own axes and units. Babylon writes every node's local
//! transform turned into glTF's Y-up frame, `(x, y, z)` → `(x, z, −y)` (`AnimatedCubePosition`:
//! Box001 at Max (−4.599, 2.451, 0) is glTF (−4.599, 0, −2.451)), as the similarity
//! `C · L · C⁻¹`, and scales lengths by the scene unit's size in metres; the factor is
//! measured from the nodes' rest translations (glTF node vs Max at tick 0), snapped to the
//! nearest Max unit and reported.

use super::axes::Conversion;
use super::matching::Pair;
use super::matrices::node_world;
use super::outcome::{fail, locator};
use super::tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};
use crate::scene::{Format, RefTrack, SampledAnimation, TimeOrigin, TrackPath};
use glam::{DMat4, DQuat, DVec3};
use pmcore::model::scene_index::SceneIndex;
use pmcore::verify::Verdict;
use serde_json::{json, Value};
use std::collections::BTreeMap;

/// Max ticks per second.
const TICKS_PER_SECOND: f64 = 4800.0;

/// Scene-unit sizes in metres a Max scene can use (inch, foot, mile… metric), for snapping
/// a measured glTF unit factor.
const UNIT_METRES: [f64; 9] = [0.0254, 0.3048, 0.9144, 1609.344, 0.001, 0.01, 1.0, 1000.0, 0.1];

/// Scale tolerance, relative to `max(1, |scale|)`: the same `f32` argument as rotations.
pub(super) const SCALE_TOLERANCE: f64 = 1e-4;

/// The comparison of a reference with sampled tracks.
pub(super) fn compare(pair: &Pair<'_, '_, '_>, sampled: &SampledAnimation, _name: &'static str) -> (Verdict, Value) {
    let reference = pair.reference;
    let tracks: Vec<&RefTrack> = sampled.tracks.iter().filter(|t| !t.times.is_empty()).collect();
    let keys: usize = tracks.iter().map(|t| t.times.len()).sum();
    let mut detail = json!({
        "curves": tracks.len(),
        "keys": keys,
        "time_base": sampled.time_base,
        "tolerance": {
            "translation_relative": POSITION_TOLERANCE,
            "rotation_rad": LINEAR_TOLERANCE,
            "scale_relative": SCALE_TOLERANCE,
            "printed_error": "ASE: plus each key's printing bound (4 decimals; rotation deltas add up)",
        },
    });
    if tracks.is_empty() {
        return (Verdict::Skip { reason: "reference carries no animation".into() }, detail);
    }
    let clips = clip_starts(pair.tree.index);
    let conversion = match reference.format {
        Format::Gltf => match gltf_conversion(pair) {
            Ok(c) => c,
            Err(why) => {
                return (Verdict::Skip { reason: format!("axis and unit conversion not found: {why}") }, detail)
            }
        },
        _ => Conversion {
            matrix: DMat4::IDENTITY,
            similarity: true,
            note: "Max's own axes and units (ASE, .3ds)".into(),
            roots_comparable: true,
        },
    };
    let mut tally = Tally::default();
    for track in &tracks {
        compare_track(pair, &conversion, &clips, sampled, track, &mut tally);
    }
    if let Value::Object(map) = &mut detail {
        map.insert("axes".into(), json!(conversion.note));
        map.insert("clip_starts".into(), json!(clips));
        map.insert("scene_range_start_tick".into(), json!(pair.time.map(|t| t.start)));
        map.insert("scene_frame_rate".into(), json!(pair.time.map(|t| t.frame_rate)));
        map.insert("curves_compared".into(), json!(tally.curves));
        map.insert("keys_compared".into(), json!(tally.keys));
        map.insert("keys_off".into(), json!(tally.keys_off));
        map.insert("worst".into(), tally.worst.as_ref().map_or(Value::Null, |w| w.json()));
        map.insert("misses".into(), json!(tally.misses));
        map.insert("first_difference".into(), tally.first_detail.take().unwrap_or(Value::Null));
    }
    (tally.verdict(pair), detail)
}

/// The worst error seen: its ratio to the tolerance, node, channel, Max tick and values.
struct Worst {
    ratio: f64,
    error: f64,
    tolerance: f64,
    node: String,
    channel: &'static str,
    clip: Option<String>,
    tick: f64,
}

impl Worst {
    fn json(&self) -> Value {
        json!({ "node": self.node, "channel": self.channel, "clip": self.clip, "max_tick": self.tick,
            "frame_at_30fps": self.tick / 160.0, "error": self.error, "tolerance": self.tolerance,
            "error_over_tolerance": self.ratio })
    }
}

#[derive(Default)]
struct Tally {
    curves: usize,
    keys: usize,
    keys_off: usize,
    worst: Option<Worst>,
    first: Option<Verdict>,
    first_detail: Option<Value>,
    misses: BTreeMap<String, Vec<String>>,
    /// The first track that could not be sampled on Max's side: message and offset.
    unsupported: Option<(String, usize, u64)>,
}

impl Tally {
    fn verdict(&self, pair: &Pair<'_, '_, '_>) -> Verdict {
        if let Some(v) = &self.first {
            return v.clone();
        }
        if let Some((why, r, offset)) = &self.unsupported {
            return fail(
                "t3-pairs-animation-unreadable",
                format!("a node's controllers cannot be sampled in Max: {why}"),
                locator(pair.name, &pair.reference.nodes[*r]),
                *offset,
            );
        }
        if self.keys == 0 {
            let why: Vec<String> = self.misses.iter().map(|(k, v)| format!("{k}: {}", v.join("; "))).collect();
            return Verdict::Skip { reason: format!("no key compared ({})", why.join(" | ")) };
        }
        let mut note = format!("{} curve(s), {} key(s) within tolerance", self.curves, self.keys);
        if let Some(w) = &self.worst {
            note.push_str(&format!(
                "; worst {} {} at tick {:.0}: {:.3e} (tolerance {:.3e})",
                w.node, w.channel, w.tick, w.error, w.tolerance
            ));
        }
        if !self.misses.is_empty() {
            let list: Vec<String> = self.misses.iter().map(|(k, v)| format!("{k} ({})", v.len())).collect();
            note.push_str(&format!("; not compared: {}", list.join(", ")));
        }
        Verdict::Pass { note: Some(note) }
    }
}

/// Every key of `track` against Max at the same time.
fn compare_track(
    pair: &Pair<'_, '_, '_>,
    conversion: &Conversion,
    clips: &BTreeMap<String, (i64, i64)>,
    sampled: &SampledAnimation,
    track: &RefTrack,
    tally: &mut Tally,
) {
    let node = &pair.reference.nodes[track.node];
    let what = format!("{} {}", node.name, track.path.name());
    if max_node_of(pair, track.node).is_none() {
        tally.misses.entry("no-max-node".into()).or_default().push(what);
        return;
    }
    if track.path == TrackPath::Weights {
        let why = morph_source(pair, track.node);
        tally.misses.entry("morph-weights-not-evaluated".into()).or_default().push(what.clone());
        tally.unsupported.get_or_insert((format!("{what}: {why}"), track.node, track.offset));
        return;
    }
    // ASE counts from Max's time 0. A glTF clip of a Babylon animation group starts at the
    // group's first tick; any other clip (`All Animations`, or an unnamed one) is the whole
    // timeline, from the scene's range start. `.3ds` keys are frames at the scene's rate.
    let group = track.clip.as_ref().and_then(|c| clips.get(c)).map(|(s, _)| *s);
    let (start, per_unit) = match sampled.origin {
        TimeOrigin::MaxZero => (Some(0), Some(TICKS_PER_SECOND)),
        TimeOrigin::ClipStart => (group.or(pair.time.map(|t| t.start)), Some(TICKS_PER_SECOND)),
        TimeOrigin::MaxFrames => (Some(0), pair.time.map(|t| TICKS_PER_SECOND / t.frame_rate as f64)),
    };
    let (Some(start), Some(per_unit)) = (start, per_unit) else {
        tally.misses.entry("time-configuration-unknown".into()).or_default().push(what);
        return;
    };
    let start = start as f64;
    tally.curves += 1;
    for (k, (&time, value)) in track.times.iter().zip(&track.values).enumerate() {
        let tick = whole_tick(start + time * per_unit);
        let local = match local_in_file(pair, track.node, tick, conversion) {
            Ok(l) => l,
            Err(why) => {
                tally.misses.entry("controller-not-sampled".into()).or_default().push(format!("{what}: {why}"));
                tally.unsupported.get_or_insert((format!("{}: {why}", node.name), track.node, node.offset));
                return;
            }
        };
        let printed = track.printed_error.get(k).copied().unwrap_or(0.0);
        let (error, tolerance) = channel_error(&local, track.path, value, printed);
        tally.keys += 1;
        let ratio = error / tolerance;
        if tally.worst.as_ref().is_none_or(|w| ratio > w.ratio) {
            tally.worst = Some(Worst {
                ratio,
                error,
                tolerance,
                node: node.name.clone(),
                channel: track.path.name(),
                clip: track.clip.clone(),
                tick,
            });
        }
        if error > tolerance {
            tally.keys_off += 1;
            if tally.first.is_none() {
                let message = format!(
                    "node {:?} {} at tick {tick:.1} (frame {:.2} at 30 fps{}): error {error:.3e} over tolerance {tolerance:.3e}; reference {value:?}",
                    node.name,
                    track.path.name(),
                    tick / 160.0,
                    track.clip.as_ref().map(|c| format!(", clip {c}")).unwrap_or_default()
                );
                tally.first = Some(fail("t3-pairs-animation", message, locator(pair.name, node), track.offset));
                tally.first_detail = Some(json!({ "node": node.name, "channel": track.path.name(),
                    "max_tick": tick, "reference": value, "max": describe_channel(&local, track.path) }));
            }
        }
    }
}

/// Max's local matrix of reference node `r` at `tick` (relative to the Max node of its
/// reference parent), in the file's axes and units: `C · L · C⁻¹` on every node, roots and
/// children alike (the writers compared here convert each local transform). glTF cameras
/// and lights get their own frame turned once more, `F`, and their children the inverse:
/// `F(parent)⁻¹ · C·L·C⁻¹ · F(node)`. Measured on `AnimatedMeshCameraLight` (`all.gltf`,
/// 24 channels): a camera (Max superclass 0x20) turns by `Rx(−90°)` — the same turn as the
/// axes, which carries Max's view direction −Z back onto glTF's −Z — and a light
/// (superclass 0x30: spot, directional, omni, sky alike) by `Rx(+90°)`; without them every
/// camera rotation is 90° off and every light rotation 90° the other way.
fn local_in_file(pair: &Pair<'_, '_, '_>, r: usize, tick: f64, conversion: &Conversion) -> Result<DMat4, String> {
    let (tree, reference) = (pair.tree, pair.reference);
    let m = max_node_of(pair, r).ok_or("no Max node of that name")?;
    let world = node_world(tree, tree.nodes[m].storage, tick)?;
    let local = match reference.nodes[r].parent {
        Some(p) => {
            let pm = max_node_of(pair, p).ok_or("the reference parent has no Max node")?;
            let parent = node_world(tree, tree.nodes[pm].storage, tick).map_err(|e| format!("(parent) {e}"))?;
            parent.inverse() * world
        }
        None => world,
    };
    let converted = conversion.matrix * local * conversion.matrix.inverse();
    if !matches!(reference.format, Format::Gltf) {
        return Ok(converted);
    }
    let turn = |r: Option<usize>| {
        let r = r.filter(|&r| pair.matching.max_of[r].is_some());
        let family = r.and_then(|r| pair.matching.max_of[r]).map(|m| tree.family(&tree.nodes[m]));
        match family.as_deref() {
            Some("camera") => DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2),
            Some("light") => DMat4::from_rotation_x(std::f64::consts::FRAC_PI_2),
            _ => DMat4::IDENTITY,
        }
    };
    Ok(turn(reference.nodes[r].parent).inverse() * converted * turn(Some(r)))
}

/// The Max node reference node `r` stands for: its name match, else — for a glTF light
/// the Babylon exporter split in two — the Max light it wraps. Babylon (`AnimatedSpotlights`,
/// generator `… 2020 vCustom.Build.Version`) writes a Max light `X` with children as a node
/// `_X_` carrying `X`'s transform (and its animation) with the light itself as child `X`
/// (the light's turn alone: rotation `Rx(−90°)`) beside `X`'s Max children. The wrapper is
/// found by its name and that child; the light's own frame turn is then on the child, none
/// on the wrapper.
fn max_node_of(pair: &Pair<'_, '_, '_>, r: usize) -> Option<usize> {
    pair.matching.max_of[r].or_else(|| {
        let reference = pair.reference;
        let inner = reference.nodes[r].name.strip_prefix('_')?.strip_suffix('_')?;
        let child = reference.nodes.iter().position(|n| n.parent == Some(r) && n.name == inner)?;
        pair.matching.max_of[child]
    })
}

/// A key time read from `f32` seconds lands within 1e-2 tick of the whole tick the writer
/// sampled (Babylon samples whole frames: 0.7 s is `f32` 0.699999988 = tick 3359.99994); it
/// is taken as that tick. Other times are kept as they are.
fn whole_tick(tick: f64) -> f64 {
    if (tick - tick.round()).abs() < 1e-2 {
        tick.round()
    } else {
        tick
    }
}

/// Morpher modifier Class ID (the 3ds Max SDK's `MR3_CLASS_ID`).
const MORPHER_CLASS_ID: [u32; 2] = [0x17bb6854, 0xa5cba2a3];

/// Where a glTF morph-weights track comes from in Max, named for the `unsupported` triage:
/// the node's Morpher modifier (`object #N`, Class ID), whose channel weights pmcore does
/// not evaluate — never a guessed pass.
fn morph_source(pair: &Pair<'_, '_, '_>, r: usize) -> String {
    let index = pair.tree.index;
    let morpher = pair.matching.max_of[r]
        .and_then(|m| pmcore::eval::stack::stack_with_data(index, &index.objects[pair.tree.nodes[m].storage]))
        .and_then(|(_, modifiers)| {
            modifiers.into_iter().find(|m| m.object.class.as_ref().is_some_and(|c| c.class_id == MORPHER_CLASS_ID))
        });
    match morpher {
        Some(m) => format!(
            "object #{} (Morpher, Class ID 0x{:08x}, 0x{:08x}) is not an evaluable morph controller: its channel weights are not evaluated",
            m.object.storage_index, MORPHER_CLASS_ID[0], MORPHER_CLASS_ID[1]
        ),
        None => "morph target weights without a Morpher modifier (Class ID 0x17bb6854, 0xa5cba2a3) on the Max node".into(),
    }
}

/// Max's local matrix's channel `path` against the reference value: (error, tolerance).
fn channel_error(local: &DMat4, path: TrackPath, value: &[f64], printed: f64) -> (f64, f64) {
    let (s, r, t) = local.to_scale_rotation_translation();
    let get3 = |v: &[f64]| DVec3::new(*v.first().unwrap_or(&0.0), *v.get(1).unwrap_or(&0.0), *v.get(2).unwrap_or(&0.0));
    match path {
        TrackPath::Translation => {
            let v = get3(value);
            ((t - v).length(), POSITION_TOLERANCE * v.length().max(t.length()).max(1.0) + printed)
        }
        TrackPath::Rotation => {
            let q = DQuat::from_xyzw(
                *value.first().unwrap_or(&0.0),
                *value.get(1).unwrap_or(&0.0),
                *value.get(2).unwrap_or(&0.0),
                *value.get(3).unwrap_or(&1.0),
            )
            .normalize();
            (rotation_angle(r, q), LINEAR_TOLERANCE + printed)
        }
        TrackPath::Scale | TrackPath::Weights => {
            let v = get3(value);
            ((s - v).abs().max_element(), SCALE_TOLERANCE * v.abs().max_element().max(1.0) + printed)
        }
    }
}

/// The angle of the rotation between `a` and `b` (either sign of each quaternion), computed
/// as `2·atan2(|v|, |w|)` of `a⁻¹·b`: `acos` of a dot product near 1 loses half the digits
/// (two `f32`-equal quaternions read 1e-4 rad apart through it).
pub(super) fn rotation_angle(a: DQuat, b: DQuat) -> f64 {
    let d = a.inverse() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

fn describe_channel(local: &DMat4, path: TrackPath) -> Value {
    let (s, r, t) = local.to_scale_rotation_translation();
    match path {
        TrackPath::Translation => json!(t.to_array()),
        TrackPath::Rotation => json!(r.to_array()),
        _ => json!(s.to_array()),
    }
}

/// The Babylon exporter's animation groups as the Max scene root keeps them (module notes):
/// `babylonjs_AnimationList = <guid>;<guid>…` and per guid `name;first tick;last tick;node
/// handles…`: clip name → (first, last) tick.
pub(super) fn clip_starts(index: &SceneIndex<'_>) -> BTreeMap<String, (i64, i64)> {
    let mut out = BTreeMap::new();
    for o in index.objects.iter().filter(|o| o.is_node() && o.reference(0).is_none()) {
        let Some(text) = o.chunk.child(USER_PROPERTIES).and_then(|c| c.payload()).map(utf16) else { continue };
        out.extend(babylon_groups(&text));
    }
    out
}

/// The animation groups of one user-property text (see [`clip_starts`]).
fn babylon_groups(text: &str) -> BTreeMap<String, (i64, i64)> {
    let properties: BTreeMap<&str, &str> = text.lines().filter_map(|l| l.split_once(" = ")).collect();
    let mut out = BTreeMap::new();
    let Some(list) = properties.get("babylonjs_AnimationList") else { return out };
    for guid in list.split(';').map(str::trim).filter(|g| !g.is_empty()) {
        let Some(fields) = properties.get(guid).map(|v| v.split(';').collect::<Vec<_>>()) else { continue };
        if let (Some(name), Some(Ok(first)), Some(Ok(last))) =
            (fields.first(), fields.get(1).map(|f| f.trim().parse()), fields.get(2).map(|f| f.trim().parse()))
        {
            out.insert(name.to_string(), (first, last));
        }
    }
    out
}

/// The scene root node's user-property text (UTF-16): where the Babylon exporter keeps its
/// settings and animation groups (`RiggedElf.max`, Scene object of the root node).
const USER_PROPERTIES: u16 = 0x0120;

fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    String::from_utf16_lossy(&units)
}

/// The glTF writer's conversion: the Y-up turn `(x, y, z)` → `(x, z, −y)` as a similarity,
/// times the unit factor measured from the rest translations (module notes).
fn gltf_conversion(pair: &Pair<'_, '_, '_>) -> Result<Conversion, String> {
    let turn = DMat4::from_rotation_x(-std::f64::consts::FRAC_PI_2);
    let probe = Conversion { matrix: turn, similarity: true, note: String::new(), roots_comparable: true };
    let max_local_at = |_, _, _, r, tick, c: &Conversion| local_in_file(pair, r, tick, c);
    let mut ratios = Vec::new();
    for (r, node) in pair.reference.nodes.iter().enumerate() {
        let reference_t = node.local.w_axis.truncate();
        let Ok(max) = max_local_at(pair.tree, pair.matching, pair.reference, r, 0.0, &probe) else { continue };
        let max_t = max.w_axis.truncate();
        if reference_t.length() > 1e-4 && max_t.length() > 1e-4 {
            ratios.push(reference_t.length() / max_t.length());
        }
    }
    ratios.sort_by(f64::total_cmp);
    let Some(&median) = ratios.get(ratios.len() / 2) else {
        return Ok(Conversion {
            matrix: turn,
            similarity: true,
            note: "glTF Y-up turn (x, z, -y); no rest translation to measure units: factor 1".into(),
            roots_comparable: true,
        });
    };
    let unit = UNIT_METRES
        .iter()
        .copied()
        .min_by(|a, b| (a / median - 1.0).abs().total_cmp(&(b / median - 1.0).abs()))
        .unwrap_or(1.0);
    if (unit / median - 1.0).abs() > 1e-3 {
        return Err(format!("rest translations give a unit factor {median} (of {} nodes), no Max unit", ratios.len()));
    }
    let note = format!(
        "glTF Y-up turn (x, z, -y) on every node; unit factor {unit} (measured median {median:.6} over {} node(s))",
        ratios.len()
    );
    Ok(Conversion {
        matrix: turn * DMat4::from_scale(DVec3::splat(unit)),
        similarity: true,
        note,
        roots_comparable: true,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn babylon_groups_are_the_listed_guids_only() {
        // As `RiggedElf.max` stores them (two of its four groups), with a look-alike line.
        let text = "babylonjs_gravity_x = 0,000000\r\n\
            5c4fdaac-9a31-42f1-9c6a-064ec49bfb6e = Run;0;3360;2;3;4\r\n\
            unlisted = Fake;5;6;7\r\n\
            babylonjs_AnimationList = 5c4fdaac-9a31-42f1-9c6a-064ec49bfb6e;0a0f5ec7-ca43-48bc-8ab2-511f38021a30\r\n\
            0a0f5ec7-ca43-48bc-8ab2-511f38021a30 = StepOver;3520;7680;2;3\r\n";
        let groups = babylon_groups(text);
        assert_eq!(groups.len(), 2);
        assert_eq!((groups["Run"], groups["StepOver"]), ((0, 3360), (3520, 7680)));
    }

    #[test]
    fn rotation_angle_reads_either_sign_and_small_angles() {
        let a = DQuat::from_rotation_z(1e-6);
        assert!((rotation_angle(DQuat::IDENTITY, a) - 1e-6).abs() < 1e-12);
        assert!((rotation_angle(DQuat::IDENTITY, -a) - 1e-6).abs() < 1e-12);
    }
}
