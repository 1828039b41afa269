//! The structure every real NeL `.skel` of a Biped rig shows — bone set, order and naming —
//! as checks on any [`Skeleton`]: part (b) of the Biped skel T3. The rules are what
//! `CExportNel::buildSkeleton` (nel_mesh_lib `export_skinning.cpp`) does and what the 26
//! Biped-rooted files of `../shared/corpus/nel/skel` hold (a test reads all 32 and checks
//! every rule on the Biped ones; the non-Biped ones are held to the rules that are not
//! Biped-specific). The files are those of Ryzom's game data (manifest `source_repo`
//! `ryzom/ryzomcore*`, what the build pipeline exported); versions are not a convention
//! (the `_ref_scale` skeleton has version-1 bones, an older exporter's).
//!
//! * `root-first`: bone 0 alone has father −1 (the exporter starts at the root node).
//! * `fathers-before-sons`: every other bone's father index is below its own.
//! * `pre-order`: a bone's father is the bone before it or one of that bone's ancestors —
//!   the depth-first pre-order of the recursion, so every subtree is contiguous.
//! * `unique-names`: no two bones share a name (`_Second` is appended to a repeat), and
//!   the BoneMap holds each name once, sorted, naming its bone.
//! * Biped only (the root is named `Bip0N`): `biped-root-name`; `root-reset`: bone 0 has
//!   DefaultPos 0 and an identity DefaultRotQuat (the exporter resets its root; the three
//!   older non-Biped files predate that); `biped-sons-of-root`: the
//!   `<root> Pelvis` bone, when present, is a son of the root; `unherit-under-biped`: the root
//!   and every son of a `<root> …`-named bone or of the root has UnheritScale set (the
//!   exporter's `getNELUnHeritFatherScale`: a Biped parent always unherits; the COM's own
//!   controller reports its scale as not inherited — true on the root of every real file).
//! * `biped-nub-turn` (Biped only): a nub bone (childless, named `Dummy…` or `…Nub`) under a
//!   Biped finger, toe, head, ponytail or tail bone lies on its father's X axis (DefaultPos
//!   (L > 0, ≈ 0, ≈ 0)) and turns from it by the constant of its kind — what all 90 such
//!   nubs of the real files hold: identity under a left finger, a right toe or the head;
//!   180° about Z under a right finger or a left toe; (0.7073883, 0.7068252, 0, 0) (NeL's
//!   sign) under a ponytail or tail link. Nubs under other parents (xtras) are not covered:
//!   no real file has one.

use pmcore::export::skel::Skeleton;

/// Rule names, in the order they are checked.
pub const RULES: [&str; 9] = [
    "root-first",
    "fathers-before-sons",
    "pre-order",
    "unique-names",
    "biped-root-name",
    "root-reset",
    "biped-sons-of-root",
    "unherit-under-biped",
    "biped-nub-turn",
];

/// One bone that breaks one rule.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ConventionMiss {
    /// Rule name ([`RULES`]).
    pub rule: String,
    /// Index of the bone in the skeleton (`None` for a rule about the whole file).
    pub bone: Option<usize>,
    /// Its name.
    pub name: String,
    /// What was found.
    pub found: String,
}

impl ConventionMiss {
    /// Where it is: `bones[i] "name"`, or `skeleton` for a file-wide rule.
    pub fn locator(&self) -> String {
        match self.bone {
            Some(i) => format!("bones[{i}] {:?}", self.name),
            None => "skeleton".into(),
        }
    }
}

/// The `Bip0N` root name of a Biped skeleton, `None` for any other root.
pub fn biped_root(s: &Skeleton) -> Option<&str> {
    let name = s.bones.first()?.name.as_str();
    let digits = name.strip_prefix("Bip")?;
    (digits.len() == 2 && digits.bytes().all(|b| b.is_ascii_digit())).then_some(name)
}

/// Every rule `s` breaks (empty: all hold). The Biped rules apply when the root is `Bip0N`
/// or when `biped` says the skeleton comes from a Biped rig.
pub fn check(s: &Skeleton, biped: bool) -> Vec<ConventionMiss> {
    let mut out = Vec::new();
    let mut miss = |rule: &str, bone: Option<usize>, found: String| {
        let name = bone.and_then(|i| s.bones.get(i)).map(|b| b.name.clone()).unwrap_or_default();
        out.push(ConventionMiss { rule: rule.into(), bone, name, found });
    };
    let father = |i: usize| usize::try_from(s.bones[i].father_id).ok();
    for (i, b) in s.bones.iter().enumerate() {
        match (i, b.father_id) {
            (0, -1) => {}
            (0, f) => miss("root-first", Some(0), format!("the first bone has father {f}")),
            (_, -1) => miss("root-first", Some(i), "a second root (father −1)".into()),
            (_, f) if f < 0 || f as usize >= i => {
                miss("fathers-before-sons", Some(i), format!("father index {f} is not below {i}"))
            }
            _ => {}
        }
    }
    for i in 1..s.bones.len() {
        let Some(f) = father(i).filter(|&f| f < i) else { continue };
        // The father must be bone i−1 or one of its ancestors.
        let mut at = Some(i - 1);
        let mut steps = 0;
        while let Some(a) = at.filter(|&a| a != f && steps <= s.bones.len()) {
            at = father(a).filter(|&p| p < a);
            steps += 1;
        }
        if at != Some(f) {
            miss(
                "pre-order",
                Some(i),
                format!("father #{f} {:?} is not on the path of bone #{}", s.bones[f].name, i - 1),
            );
        }
    }
    let mut seen = std::collections::BTreeMap::new();
    for (i, b) in s.bones.iter().enumerate() {
        if let Some(first) = seen.insert(b.name.as_str(), i) {
            miss("unique-names", Some(i), format!("the name of bone #{first} again"));
        }
    }
    let mut expected: Vec<(String, u32)> = seen.iter().map(|(n, &i)| (n.to_string(), i as u32)).collect();
    expected.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    if s.bone_map != expected {
        miss("unique-names", None, "the BoneMap is not each bone name once, sorted, naming its bone".into());
    }
    let root = biped_root(s);
    if !biped && root.is_none() {
        return out;
    }
    let Some(root) = root else {
        miss("biped-root-name", Some(0), "the root of a Biped skeleton is not named Bip0N".into());
        return out;
    };
    if let Some(first) = s.bones.first() {
        let q = first.default_rot_quat;
        let identity = q[..3].iter().all(|&x| x == 0.0) && q[3].abs() == 1.0;
        if first.default_pos != [0.0; 3] || !identity {
            miss("root-reset", Some(0), format!("DefaultPos {:?}, DefaultRotQuat {:?}", first.default_pos, q));
        }
    }
    let prefix = format!("{root} ");
    let pelvis = format!("{root} Pelvis");
    if s.bones.first().is_some_and(|b| !b.unherit_scale) {
        miss("unherit-under-biped", Some(0), "UnheritScale false on the Biped root".into());
    }
    for (i, b) in s.bones.iter().enumerate().skip(1) {
        let f = father(i).and_then(|f| s.bones.get(f));
        if b.name == pelvis && b.father_id != 0 {
            miss("biped-sons-of-root", Some(i), format!("father {:?}", f.map(|f| f.name.as_str())));
        }
        let biped_father = f.is_some_and(|f| f.name == root || f.name.starts_with(&prefix));
        if biped_father && !b.unherit_scale {
            miss("unherit-under-biped", Some(i), "UnheritScale false under a Biped bone".into());
        }
    }
    for (i, found) in nub_turn_misses(s, &prefix) {
        miss("biped-nub-turn", Some(i), found);
    }
    out
}

/// The rotation (x, y, z, w) a nub under a Biped bone named `<root> part` has on its father,
/// read off the real files (up to sign); `None` for a part no real nub hangs from.
fn nub_turn(part: &str) -> Option<[f64; 4]> {
    const IDENTITY: [f64; 4] = [0.0, 0.0, 0.0, 1.0];
    const HALF_TURN_Z: [f64; 4] = [0.0, 0.0, 1.0, 0.0];
    // `Dummy06` of `fy_hom_skel_mid_fat.skel` (a ponytail nub), as NeL wrote it.
    const CHAIN_END: [f64; 4] = [0.707_388_3, 0.706_825_2, 0.0, 0.0];
    Some(match part {
        p if p.starts_with("L Finger") || p.starts_with("R Toe") || p == "Head" => IDENTITY,
        p if p.starts_with("R Finger") || p.starts_with("L Toe") => HALF_TURN_Z,
        p if p.starts_with("Ponytail") || p.starts_with("Tail") => CHAIN_END,
        _ => return None,
    })
}

/// Each nub under a Biped finger, toe, head, ponytail or tail bone that is off its father's X
/// axis or turned otherwise than its kind: (bone, what was found). Off-axis tolerance: 1e-5 of
/// the length plus 5e-7 (float32 noise; the kitin queens' 0.0035-long toe nubs are 1e-7 off).
fn nub_turn_misses(s: &Skeleton, prefix: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, b) in s.bones.iter().enumerate() {
        let nub = b.name.starts_with("Dummy") || b.name.ends_with("Nub");
        let leaf = !s.bones.iter().any(|o| o.father_id == i as i32);
        let father = usize::try_from(b.father_id).ok().and_then(|f| s.bones.get(f));
        let part = father.and_then(|f| f.name.strip_prefix(prefix));
        let (true, true, Some(want)) = (nub, leaf, part.and_then(nub_turn)) else { continue };
        let q = b.default_rot_quat.map(f64::from);
        let norm = q.iter().map(|v| v * v).sum::<f64>().sqrt();
        let wnorm = want.iter().map(|v| v * v).sum::<f64>().sqrt();
        let dot = q.iter().zip(want).map(|(a, b)| a * b).sum::<f64>() / (norm * wnorm);
        let [x, y, z] = b.default_pos.map(f64::from);
        let on_axis = x > 0.0 && y.abs().max(z.abs()) <= 1e-5 * x + 5e-7;
        if !(dot.abs() >= 1.0 - 1e-6 && on_axis) {
            out.push((i, format!("DefaultPos {:?}, DefaultRotQuat {:?} under {:?}", b.default_pos, q, part)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pmcore::export::skel::Bone;

    fn rig() -> Skeleton {
        let bone = |name: &str, father: i32| Bone { father_id: father, unherit_scale: true, ..Bone::new(name) };
        Skeleton::build(vec![
            bone("Bip01", -1),
            bone("Bip01 Footsteps", 0),
            bone("Bip01 Pelvis", 0),
            bone("Bip01 Spine", 2),
            bone("Bip01 L Thigh", 3),
            bone("Bip01 L Calf", 4),
            bone("Bip01 R Thigh", 3),
        ])
    }

    #[test]
    fn a_pre_order_biped_skeleton_breaks_no_rule() {
        assert_eq!(check(&rig(), true), vec![]);
    }

    #[test]
    fn a_nub_turned_otherwise_than_its_kind_or_off_its_fathers_axis_is_caught() {
        let mut bones = rig().bones;
        let nub = |name: &str, pos: [f32; 3], quat: [f32; 4]| Bone {
            father_id: 5,
            unherit_scale: true,
            default_pos: pos,
            default_rot_quat: quat,
            ..Bone::new(name)
        };
        // A left toe nub, 180° about Z on its toe, on the toe's X: kept; turned otherwise or off the axis: caught.
        bones.push(Bone { father_id: 4, unherit_scale: true, ..Bone::new("Bip01 L Toe0") });
        bones.push(nub("Dummy04", [7.3, 0.0, 0.0], [0.0, 0.0, -1.0, 0.0]));
        bones[8].father_id = 7;
        let s = Skeleton::build(bones.clone());
        assert!(nub_turn_misses(&s, "Bip01 ").is_empty(), "{:?}", nub_turn_misses(&s, "Bip01 "));
        bones[8].default_rot_quat = [0.0, 0.0, 0.0, -1.0];
        assert_eq!(nub_turn_misses(&Skeleton::build(bones.clone()), "Bip01 ")[0].0, 8);
        bones[8].default_rot_quat = [0.0, 0.0, 1.0, 0.0];
        bones[8].default_pos = [7.3, 0.01, 0.0];
        assert_eq!(nub_turn_misses(&Skeleton::build(bones), "Bip01 ")[0].0, 8);
    }

    #[test]
    fn a_swapped_father_index_is_named_with_its_bone() {
        let mut s = rig();
        // L Calf (#5) and R Thigh (#6) exchange fathers: R Thigh now hangs from L Thigh.
        s.bones[5].father_id = 3;
        s.bones[6].father_id = 4;
        let misses = check(&s, true);
        assert_eq!(misses.len(), 1, "{misses:?}");
        assert_eq!((misses[0].rule.as_str(), misses[0].locator()), ("pre-order", "bones[6] \"Bip01 R Thigh\"".into()));
    }

    #[test]
    fn a_father_after_its_son_and_a_second_root_are_caught() {
        let mut s = rig();
        s.bones[3].father_id = 5;
        s.bones[1].father_id = -1;
        let rules: Vec<String> = check(&s, true).into_iter().map(|m| m.rule).collect();
        assert!(rules.contains(&"fathers-before-sons".to_string()) && rules.contains(&"root-first".to_string()));
    }
}
