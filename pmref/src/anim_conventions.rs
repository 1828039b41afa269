//! The structure every real NeL `.anim` shows — track names, key types, key spacing — as
//! checks on any [`Animation`]: the `nel-anim/structure` part of the `.anim` T3. The rules
//! were read off the 20 Ryzom files of `../shared/corpus/nel/anim` (`ryzom/werewolf2`,
//! `ryzom/opennel_svn`: 16 `Bip01` rigs — v0 TCB exports and v1 per-frame oversampled ones
//! — a v2 facial rig and three v2 test skeletons); a test holds every real file to every rule.
//!
//! * `name-map`: the name map lists each name once, sorted (`std::map`), and its ids are the
//!   typed tracks' `0..n` (v0 files also hold tracks no name reaches: those are allowed).
//! * `value-names`: every name is `pos`, `rotquat` or `scale`, bare or after `<node>.`.
//! * `value-kinds`: `rotquat` tracks hold quaternions (Linear/TCB Quat), `pos` and `scale`
//!   tracks vectors (Linear/TCB/Bezier Vector).
//! * `ascending-times`: key times strictly ascending.
//! * `unlocked-range`: a track with its range unlocked (lock byte 0) spans its first to last
//!   key (v2 files leave the range uninitialised and locked: not checked there).
//! * `unit-quaternions`: Linear Quat keys are unit length (±1e-3).
//! * `closest-quaternions`: consecutive Linear Quat keys lie on the same hemisphere (the
//!   exporter's `makeClosest`), so NeL's interpolation takes the short way.
//! * `frame-spacing`: the keys of a Linear (oversampled) track are evenly spaced (spread
//!   ≤ 1e-4 s): one per frame, 1/30 s in the v1 `Bip01` files, 1/24 s in the v2 ones.
//! * `biped-positions`: in a `Bip01` rig, position tracks exist only for the root (`pos`,
//!   `Bip01.pos`) and the spine, clavicle and tail first links (`Bip01 Spine.pos`,
//!   `Bip01 L Clavicle.pos` …) — `mustExportBipedBonePos`.

use pmcore::nel::anim::{Animation, KeyKind};
use serde::Serialize;

/// Rule names, in the order they are checked.
pub const RULES: [&str; 9] = [
    "name-map",
    "value-names",
    "value-kinds",
    "ascending-times",
    "unlocked-range",
    "unit-quaternions",
    "closest-quaternions",
    "frame-spacing",
    "biped-positions",
];

/// Value names a transform track ends with.
const VALUES: [&str; 3] = ["pos", "rotquat", "scale"];

/// One track that breaks one rule.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnimConventionMiss {
    /// Rule name ([`RULES`]).
    pub rule: String,
    /// The track's name (empty for a file-wide rule).
    pub track: String,
    /// What was found.
    pub found: String,
}

/// Every rule `a` breaks (empty: all hold); `None` when its tracks are not typed.
pub fn check(a: &Animation) -> Option<Vec<AnimConventionMiss>> {
    let tracks = a.tracks()?;
    let mut out = Vec::new();
    let mut miss = |rule: &str, track: &str, found: String| {
        out.push(AnimConventionMiss { rule: rule.into(), track: track.into(), found });
    };
    let sorted = a.id_by_name.windows(2).all(|w| w[0].0.as_bytes() < w[1].0.as_bytes());
    let mut ids: Vec<u32> = a.id_by_name.iter().map(|(_, id)| *id).collect();
    ids.sort_unstable();
    let distinct = ids.windows(2).all(|w| w[0] != w[1]) && tracks.len() == a.id_by_name.len();
    if !sorted || !distinct {
        miss("name-map", "", format!("sorted {sorted}, every id names one typed track {distinct}"));
    }
    let biped = tracks.iter().any(|(n, _)| n.starts_with("Bip01"));
    for (name, t) in &tracks {
        let value = name.rsplit_once('.').map_or(*name, |(_, v)| v);
        if !VALUES.contains(&value) {
            miss("value-names", name, format!("value {value:?}"));
        }
        let quat = matches!(t.kind, KeyKind::LinearQuat | KeyKind::TcbQuat);
        if (value == "rotquat") != quat && VALUES.contains(&value) {
            miss("value-kinds", name, t.kind.class_name().into());
        }
        let times: Vec<f32> = t.keys.iter().map(|k| k.time).collect();
        if times.windows(2).any(|w| w[1] <= w[0]) {
            miss("ascending-times", name, "a key time repeats or goes back".into());
        }
        if let (0, Some(first), Some(last)) = (t.range_lock, times.first(), times.last()) {
            if t.range_begin != *first || t.range_end != *last {
                miss(
                    "unlocked-range",
                    name,
                    format!("range [{}, {}], keys [{first}, {last}]", t.range_begin, t.range_end),
                );
            }
        }
        if t.kind == KeyKind::LinearQuat {
            let q = |v: &[f32]| glam::Vec4::new(v[0], v[1], v[2], v[3]);
            if let Some(k) = t.keys.iter().find(|k| (q(&k.values).length() - 1.0).abs() > 1e-3) {
                miss("unit-quaternions", name, format!("|q| = {} at {} s", q(&k.values).length(), k.time));
            }
            if let Some(w) = t.keys.windows(2).find(|w| q(&w[0].values).dot(q(&w[1].values)) < 0.0) {
                miss("closest-quaternions", name, format!("opposite hemispheres at {} s", w[1].time));
            }
        }
        if matches!(t.kind, KeyKind::LinearQuat | KeyKind::LinearVector) && times.len() > 2 {
            let steps: Vec<f32> = times.windows(2).map(|w| w[1] - w[0]).collect();
            let (lo, hi) = steps.iter().fold((f32::MAX, f32::MIN), |(a, b), s| (a.min(*s), b.max(*s)));
            if hi - lo > 1e-4 {
                miss("frame-spacing", name, format!("steps from {lo} to {hi} s"));
            }
        }
        if biped && value == "pos" && !biped_position(name) {
            miss(
                "biped-positions",
                name,
                "a position track on a Biped bone outside the root, spine, clavicles and tail".into(),
            );
        }
    }
    Some(out)
}

/// The root's and the spine, clavicle and tail first links' position tracks; a node not
/// named `Bip01…` is no Biped bone (the file holds names only): its PRS tracks ride the
/// keyframer path, positions included (LD35 `red@spawn`'s `Biped_WingR1` under Biped bones).
fn biped_position(name: &str) -> bool {
    let Some((node, _)) = name.rsplit_once('.') else { return true };
    let node = node.rsplit_once('.').map_or(node, |(_, last)| last);
    !node.starts_with("Bip01")
        || node == "Bip01"
        || [" Spine", " L Clavicle", " R Clavicle", " Tail", " Clavicle"].iter().any(|s| node.ends_with(s))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmcore::nel::anim::{Key, Track};

    fn track(kind: KeyKind, times: &[f32], values: &[f32]) -> Track {
        Track::over_keys(kind, times.iter().map(|&time| Key { time, values: values.to_vec(), step: None }).collect())
    }

    #[test]
    fn a_written_rig_keeps_every_rule() {
        let a = Animation::new(vec![
            ("rotquat".into(), track(KeyKind::LinearQuat, &[0.0, 0.5, 1.0], &[0.0, 0.0, 0.0, 1.0])),
            ("Box.pos".into(), track(KeyKind::LinearVector, &[0.0, 0.5, 1.0], &[1.0, 2.0, 3.0])),
        ]);
        assert_eq!(check(&a), Some(vec![]));
    }

    #[test]
    fn a_renamed_value_and_a_wrong_kind_are_caught() {
        let mut a = Animation::new(vec![
            ("Box.pos".into(), track(KeyKind::LinearQuat, &[0.0, 1.0], &[0.0, 0.0, 0.0, 1.0])),
            ("Bip01 L Thigh.pos".into(), track(KeyKind::LinearVector, &[0.0, 1.0], &[0.0; 3])),
        ]);
        assert!(a.rename_track("Box.pos", "Box.position"));
        let rules: Vec<String> = check(&a).unwrap().into_iter().map(|m| m.rule).collect();
        assert_eq!(rules, ["value-names", "biped-positions"]);
    }

    #[test]
    fn a_non_biped_node_under_a_biped_bone_may_hold_a_position() {
        // LD35 red@spawn: `Biped_WingR1` (a PRS node) hangs under Biped bones.
        let a = Animation::new(vec![
            ("pos".into(), track(KeyKind::LinearVector, &[0.0, 1.0], &[0.0; 3])),
            ("Biped_WingR1.pos".into(), track(KeyKind::LinearVector, &[0.0, 1.0], &[0.0; 3])),
            ("Bip01.Bip01 Spine.pos".into(), track(KeyKind::LinearVector, &[0.0, 1.0], &[0.0; 3])),
        ]);
        assert_eq!(check(&a), Some(vec![]));
    }
}
