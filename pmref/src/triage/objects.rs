//! The Scene objects a comparison names (`object #528` in its message and misses) and their
//! Class IDs: what the `ik` and `unsupported` detectors match, by Class ID.

use super::TriageInput;
use pmcore::model::scene_index::SceneIndex;
use serde_json::Value;

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
