//! `ik`: the node is driven by an IK solve pmcore does not implement. The comparison
//! names the controller objects it could not sample (`object #N`); each is looked up in
//! the Scene and matched by Class ID.

use super::{class, Detector, TriageInput, Triaged};
use pmcore::model::scene_index::SceneIndex;
use serde_json::{json, Value};

/// IK controllers by Class ID: IKControl (a bone under an IK chain) and IKChainControl
/// (the HI solver's chain), measured in `wild/tae8838__green*.max`'s class directory.
pub const IK_CLASS_IDS: [[u32; 2]; 2] = [[0x0e6f_5815, 0x717f_99a4], [0x7872_4378, 0x008a_4fd9]];

/// The Scene object numbers a comparison names (`object #528`), from its message and
/// its `misses`, in order, without repeats.
pub fn named_objects(input: &TriageInput<'_, '_>) -> Vec<usize> {
    let mut texts = vec![input.words().to_string()];
    if let Some(misses) = input.detail.and_then(|d| d.get("misses")) {
        match misses {
            Value::Array(a) => {
                texts.extend(a.iter().map(|m| m.as_str().map(String::from).unwrap_or_else(|| m.to_string())))
            }
            Value::Object(o) => texts.extend(o.iter().map(|(k, v)| format!("{k} {v}"))),
            _ => {}
        }
    }
    let mut out = Vec::new();
    for text in &texts {
        for part in text.split("object #").skip(1) {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            if let Ok(n) = digits.parse::<usize>() {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
    }
    out
}

/// `(object, class id, superclass)` of each named object the Scene resolves.
pub fn classes_of(index: &SceneIndex<'_>, objects: &[usize]) -> Vec<(usize, [u32; 2], u32)> {
    objects
        .iter()
        .filter_map(|&n| index.get(n).and_then(|o| o.class.as_ref()).map(|c| (n, c.class_id, c.superclass)))
        .collect()
}

/// `0xAAAAAAAA:0xBBBBBBBB`.
pub fn class_id_text(id: [u32; 2]) -> String {
    format!("0x{:08x}:0x{:08x}", id[0], id[1])
}

/// The detector.
pub struct Ik;

impl Detector for Ik {
    fn class(&self) -> &'static str {
        class::IK
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        if !input.fail_kind()?.ends_with("-unreadable") {
            return None;
        }
        let found = classes_of(input.index?, &named_objects(input));
        let ik: Vec<Value> = found
            .iter()
            .filter(|(_, id, _)| IK_CLASS_IDS.contains(id))
            .map(|(n, id, s)| json!({ "object": n, "class_id": class_id_text(*id), "superclass": s }))
            .collect();
        (!ik.is_empty()).then(|| Triaged {
            class: self.class(),
            message: format!("{} controller object(s) are IK solves, not evaluated", ik.len()),
            evidence: json!({ "controllers": ik }),
        })
    }
}
