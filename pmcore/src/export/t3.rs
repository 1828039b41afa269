//! T3: a produced export against a reference output, field by field (design §10
//! "Float-level field validation", digest §7.2). Counters are always produced, so an
//! aggregate percentage can never hide a systematic defect again.
//!
//! Skel: bones paired by name; structure exact (versions, count, names, father, UnheritScale,
//! InvBindPos state bits, BoneMap, LODs); every float field counted as bit-exact, close (every
//! component within [`CLOSE`]) or off; quaternions compared up to sign; an InvBindPos ULP
//! histogram; and the best uniform scale between reference and produced bone offsets (the
//! `_big/_small` ×1.2 / ×0.8 era signature). Pass = structure exact and nothing off.
//!
//! OBJ: object, vertex and face counts exact, positions within `1e-5 × max(1, |v|)`.

use super::obj::ObjObject;
use super::skel::{Bone, Skeleton};
use std::collections::BTreeMap;

/// The design's float tolerance for "close".
pub(crate) const CLOSE: f32 = 0.02;
/// Relative position tolerance for OBJ vertices.
pub(crate) const OBJ_TOLERANCE: f32 = 1e-5;
/// Labels of the InvBindPos ULP histogram buckets.
pub(crate) const ULP_BUCKETS: [&str; 6] = ["0", "1", "2-4", "5-16", "17-256", ">256"];
/// Most per-field "off" entries listed in a result (all are counted).
pub(crate) const MAX_LISTED: usize = 50;

/// A field's name, produced components, reference components and an alternative
/// reference (the negated quaternion) that counts as equal.
type FieldPair = (&'static str, Vec<f32>, Vec<f32>, Option<Vec<f32>>);

/// JSON has no infinity (serde_json writes `null`): read `null` back as infinity.
fn null_is_infinite<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    Ok(<Option<f32> as serde::Deserialize>::deserialize(d)?.unwrap_or(f32::INFINITY))
}

/// Per-field counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldCounts {
    /// Every component bit-identical.
    pub bit_exact: u64,
    /// Not bit-identical, every component within [`CLOSE`].
    pub close: u64,
    /// Some component further than [`CLOSE`].
    pub off: u64,
}

/// One field that is off.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FieldOff {
    /// Bone name.
    pub bone: String,
    /// Field name (`default_pos`, `default_rot_quat`, …).
    pub field: String,
    /// Largest absolute component difference (infinite for NaN, written `null` in JSON).
    #[serde(deserialize_with = "null_is_infinite")]
    pub max_abs_diff: f32,
}

/// Outcome of comparing two skeletons: the skel T3 `detail` the worker emits, and the type
/// its consumers (the farm's buckets and gates) read it back through.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SkelComparison {
    /// Bones in the produced file.
    pub bones_produced: usize,
    /// Bones in the reference.
    pub bones_reference: usize,
    /// Bones present in both (by name).
    pub bones_paired: usize,
    /// Structural differences, one line each.
    pub structure_differences: Vec<String>,
    /// Counters per float field.
    pub fields: BTreeMap<String, FieldCounts>,
    /// Fields that are off (first [`MAX_LISTED`]).
    pub off: Vec<FieldOff>,
    /// InvBindPos component ULP distances, bucketed as [`ULP_BUCKETS`].
    pub inv_bind_pos_ulp: BTreeMap<String, u64>,
    /// Best uniform factor `s` with reference offset ≈ s × produced offset over paired
    /// non-root bones (`None` when produced offsets are all zero).
    pub offset_scale: Option<f64>,
}

impl SkelComparison {
    /// Pass when the structure is exact and no field is off.
    pub fn passed(&self) -> bool {
        self.structure_differences.is_empty() && self.fields.values().all(|c| c.off == 0)
    }

    /// One-line summary for a failing verdict.
    pub fn message(&self) -> String {
        let off: u64 = self.fields.values().map(|c| c.off).sum();
        format!(
            "{} structure difference(s), {off} field(s) off over {} paired bones{}",
            self.structure_differences.len(),
            self.bones_paired,
            self.structure_differences.first().map(|d| format!("; first: {d}")).unwrap_or_default()
        )
    }
}

/// Distance in units in the last place between two floats (sign-aware, saturating).
pub(crate) fn ulp_distance(a: f32, b: f32) -> u64 {
    let key = |x: f32| {
        let bits = x.to_bits() as i64;
        if bits & 0x8000_0000 != 0 {
            0x8000_0000 - bits
        } else {
            bits
        }
    };
    (key(a) - key(b)).unsigned_abs()
}

fn ulp_bucket(d: u64) -> &'static str {
    match d {
        0 => ULP_BUCKETS[0],
        1 => ULP_BUCKETS[1],
        2..=4 => ULP_BUCKETS[2],
        5..=16 => ULP_BUCKETS[3],
        17..=256 => ULP_BUCKETS[4],
        _ => ULP_BUCKETS[5],
    }
}

fn max_abs(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) })
}

/// Compares a produced skeleton with a reference.
pub fn compare_skel(produced: &Skeleton, reference: &Skeleton) -> SkelComparison {
    let mut c = SkelComparison {
        bones_produced: produced.bones.len(),
        bones_reference: reference.bones.len(),
        inv_bind_pos_ulp: ULP_BUCKETS.iter().map(|b| (b.to_string(), 0)).collect(),
        ..Default::default()
    };
    let diff = &mut c.structure_differences;
    if produced.version != reference.version {
        diff.push(format!("shape version: produced {}, reference {}", produced.version, reference.version));
    }
    if produced.bones.len() != reference.bones.len() {
        diff.push(format!("bone count: produced {}, reference {}", produced.bones.len(), reference.bones.len()));
    }
    let by_name = |s: &Skeleton| -> BTreeMap<String, usize> {
        s.bones.iter().enumerate().map(|(i, b)| (b.name.clone(), i)).collect()
    };
    let (p_names, r_names) = (by_name(produced), by_name(reference));
    for name in p_names.keys().filter(|n| !r_names.contains_key(*n)) {
        diff.push(format!("bone {name:?} only in produced"));
    }
    for name in r_names.keys().filter(|n| !p_names.contains_key(*n)) {
        diff.push(format!("bone {name:?} only in reference"));
    }
    let father = |s: &Skeleton, b: &Bone| -> Option<String> {
        usize::try_from(b.father_id).ok().and_then(|f| s.bones.get(f)).map(|f| f.name.clone())
    };
    let mut sum_rp = 0f64;
    let mut sum_pp = 0f64;
    for (pi, pb) in produced.bones.iter().enumerate() {
        let Some(&ri) = r_names.get(&pb.name) else { continue };
        let rb = &reference.bones[ri];
        c.bones_paired += 1;
        let name = &pb.name;
        if pi != ri {
            diff.push(format!("bone {name:?} order: produced #{pi}, reference #{ri}"));
        }
        if pb.version != rb.version {
            diff.push(format!("bone {name:?} version: produced {}, reference {}", pb.version, rb.version));
        }
        let (pf, rf) = (father(produced, pb), father(reference, rb));
        if pf != rf {
            diff.push(format!("bone {name:?} father: produced {pf:?}, reference {rf:?}"));
        }
        if pb.unherit_scale != rb.unherit_scale {
            diff.push(format!(
                "bone {name:?} UnheritScale: produced {}, reference {}",
                pb.unherit_scale, rb.unherit_scale
            ));
        }
        if pb.inv_bind_pos.state_bit != rb.inv_bind_pos.state_bit {
            diff.push(format!(
                "bone {name:?} InvBindPos state bits: produced {}, reference {}",
                pb.inv_bind_pos.state_bit, rb.inv_bind_pos.state_bit
            ));
        }
        let (pm, rm) = (pb.inv_bind_pos.decoded(), rb.inv_bind_pos.decoded());
        for (a, b) in pm.iter().zip(&rm) {
            *c.inv_bind_pos_ulp.entry(ulp_bucket(ulp_distance(*a, *b)).to_string()).or_default() += 1;
        }
        let quat_neg = rb.default_rot_quat.map(|x| -x);
        let fields: [FieldPair; 8] = [
            ("lod_disable_distance", vec![pb.lod_disable_distance], vec![rb.lod_disable_distance], None),
            ("default_pos", pb.default_pos.to_vec(), rb.default_pos.to_vec(), None),
            ("default_rot_euler", pb.default_rot_euler.to_vec(), rb.default_rot_euler.to_vec(), None),
            ("default_rot_quat", pb.default_rot_quat.to_vec(), rb.default_rot_quat.to_vec(), Some(quat_neg.to_vec())),
            ("default_scale", pb.default_scale.to_vec(), rb.default_scale.to_vec(), None),
            ("default_pivot", pb.default_pivot.to_vec(), rb.default_pivot.to_vec(), None),
            ("skin_scale", pb.skin_scale.to_vec(), rb.skin_scale.to_vec(), None),
            ("inv_bind_pos", pm.to_vec(), rm.to_vec(), None),
        ];
        for (field, p, r, alt) in fields {
            let candidates = std::iter::once(r).chain(alt);
            let (bits, diffv) = candidates
                .map(|r| (p.iter().zip(&r).all(|(a, b)| a.to_bits() == b.to_bits()), max_abs(&p, &r)))
                .fold((false, f32::INFINITY), |(eb, ed), (b, d)| (eb || b, ed.min(d)));
            let counts = c.fields.entry(field.to_string()).or_default();
            if bits {
                counts.bit_exact += 1;
            } else if diffv <= CLOSE {
                counts.close += 1;
            } else {
                counts.off += 1;
                if c.off.len() < MAX_LISTED {
                    c.off.push(FieldOff { bone: name.clone(), field: field.to_string(), max_abs_diff: diffv });
                }
            }
        }
        if pb.father_id >= 0 {
            for k in 0..3 {
                sum_rp += f64::from(rb.default_pos[k]) * f64::from(pb.default_pos[k]);
                sum_pp += f64::from(pb.default_pos[k]) * f64::from(pb.default_pos[k]);
            }
        }
    }
    c.offset_scale = (sum_pp > 0.0).then(|| sum_rp / sum_pp);
    let map_names = |s: &Skeleton| -> Vec<(String, Option<String>)> {
        s.bone_map.iter().map(|(n, i)| (n.clone(), s.bones.get(*i as usize).map(|b| b.name.clone()))).collect()
    };
    if map_names(produced) != map_names(reference) {
        c.structure_differences.push("BoneMap differs".into());
    }
    let lods = |s: &Skeleton| -> Vec<(u32, Vec<(String, u8)>)> {
        s.lods
            .iter()
            .map(|l| {
                let mut flags: Vec<(String, u8)> =
                    s.bones.iter().map(|b| b.name.clone()).zip(l.active_bones.iter().copied()).collect();
                flags.sort();
                (l.distance.to_bits(), flags)
            })
            .collect()
    };
    if lods(produced) != lods(reference) {
        c.structure_differences.push("LOD list differs".into());
    }
    c
}

/// Outcome of comparing two OBJ exports (the obj T3 `detail`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ObjComparison {
    /// Objects produced / in the reference.
    pub objects: [usize; 2],
    /// Vertices produced / in the reference.
    pub vertices: [usize; 2],
    /// Faces produced / in the reference.
    pub faces: [usize; 2],
    /// Count and name differences, one line each (first [`MAX_LISTED`]).
    pub count_differences: Vec<String>,
    /// Vertex positions compared (objects with equal vertex counts).
    pub positions_compared: u64,
    /// Of which outside the tolerance.
    pub positions_off: u64,
    /// Largest `|Δ| / max(1, |v|)` seen.
    #[serde(deserialize_with = "null_is_infinite")]
    pub max_relative_error: f32,
}

impl ObjComparison {
    /// Pass when counts and names match and every position is within tolerance.
    pub fn passed(&self) -> bool {
        self.count_differences.is_empty() && self.positions_off == 0
    }

    /// One-line summary for a failing verdict.
    pub fn message(&self) -> String {
        format!(
            "{} count difference(s), {} of {} positions off (max relative error {:e}){}",
            self.count_differences.len(),
            self.positions_off,
            self.positions_compared,
            self.max_relative_error,
            self.count_differences.first().map(|d| format!("; first: {d}")).unwrap_or_default()
        )
    }
}

/// Compares produced OBJ objects with reference ones, paired in order.
pub fn compare_obj(produced: &[ObjObject], reference: &[ObjObject]) -> ObjComparison {
    let total = |objs: &[ObjObject], f: fn(&ObjObject) -> usize| objs.iter().map(f).sum::<usize>();
    let mut c = ObjComparison {
        objects: [produced.len(), reference.len()],
        vertices: [total(produced, |o| o.positions.len()), total(reference, |o| o.positions.len())],
        faces: [total(produced, |o| o.faces.len()), total(reference, |o| o.faces.len())],
        ..Default::default()
    };
    let note = |c: &mut ObjComparison, s: String| {
        if c.count_differences.len() < MAX_LISTED {
            c.count_differences.push(s);
        }
    };
    if produced.len() != reference.len() {
        note(&mut c, format!("object count: produced {}, reference {}", produced.len(), reference.len()));
    }
    for (i, (p, r)) in produced.iter().zip(reference).enumerate() {
        if p.name != r.name {
            note(&mut c, format!("object #{i} name: produced {:?}, reference {:?}", p.name, r.name));
        }
        if p.faces.len() != r.faces.len() {
            note(&mut c, format!("object {:?} faces: produced {}, reference {}", p.name, p.faces.len(), r.faces.len()));
        }
        if p.positions.len() != r.positions.len() {
            note(
                &mut c,
                format!(
                    "object {:?} vertices: produced {}, reference {}",
                    p.name,
                    p.positions.len(),
                    r.positions.len()
                ),
            );
            continue;
        }
        for (a, b) in p.positions.iter().zip(&r.positions) {
            let scale = 1f32.max(b.iter().map(|x| x * x).sum::<f32>().sqrt());
            let err = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum::<f32>().sqrt() / scale;
            c.positions_compared += 1;
            if err.is_nan() || err > OBJ_TOLERANCE {
                c.positions_off += 1;
            }
            if err.is_nan() || err > c.max_relative_error {
                c.max_relative_error = if err.is_nan() { f32::INFINITY } else { err };
            }
        }
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ulp_distance_counts_representable_steps_across_zero() {
        assert_eq!(ulp_distance(1.0, 1.0), 0);
        assert_eq!(ulp_distance(1.0, f32::from_bits(1.0f32.to_bits() + 3)), 3);
        assert_eq!(ulp_distance(0.0, -0.0), 0);
        assert_eq!(ulp_distance(f32::from_bits(1), -f32::from_bits(1)), 2);
    }

    #[test]
    fn obj_comparison_counts_and_tolerance() {
        let a = vec![ObjObject {
            name: "n".into(),
            positions: vec![[1000.0, 0.0, 0.0]],
            faces: vec![],
            ..Default::default()
        }];
        let mut b = a.clone();
        b[0].positions[0][0] += 0.005; // 5e-6 relative: within
        assert!(compare_obj(&a, &b).passed());
        b[0].positions[0][0] += 0.02;
        let c = compare_obj(&a, &b);
        assert_eq!((c.positions_compared, c.positions_off), (1, 1));
        assert!(!compare_obj(&a, &[]).passed());
    }
}
