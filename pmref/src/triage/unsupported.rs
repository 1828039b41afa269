//! `unsupported`: the miss sits under a class pmcore does not evaluate, named with its
//! Class ID. The Class IDs come from the objects the comparison could not sample
//! (`object #N`, looked up in the Scene) or from the Class IDs the comparison's words
//! and misses name (`(0x2c693321, 0x63be1109)`, `0x51db4f2f:0x1c596b1a`); each is checked
//! against the Scene's classes (`in_file`). A summary section of a file without an asset
//! table (Max 2009 and older) is named by the streams it lacks.

use super::objects::{class_id_text, classes_of, named_objects};
use super::{class, first_line, Detector, TriageInput, Triaged};
use pmcore::model::scene_index::SceneIndex;
use serde_json::{json, Value};

/// The streams an asset table is kept in (Max 2010 and later).
const ASSET_TABLES: [&str; 2] = ["FileAssetMetaData3", "FileAssetMetaData2"];

/// The detector.
pub struct Unsupported;

/// Class IDs written as `0xA, 0xB` or `0xA:0xB` in `text`.
pub fn class_ids_in(text: &str) -> Vec<[u32; 2]> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let hex_at = |i: usize| -> Option<(u32, usize)> {
        let rest = text.get(i..)?.strip_prefix("0x")?;
        let digits: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
        if digits.is_empty() || digits.len() > 8 {
            return None;
        }
        Some((u32::from_str_radix(&digits, 16).ok()?, i + 2 + digits.len()))
    };
    let mut i = 0;
    while i < bytes.len() {
        if let Some((a, end)) = hex_at(i) {
            let next = [", ", ":"].iter().find_map(|sep| text.get(end..)?.strip_prefix(sep).map(|_| end + sep.len()));
            if let Some((b, end2)) = next.and_then(hex_at) {
                if !out.contains(&[a, b]) {
                    out.push([a, b]);
                }
                i = end2;
                continue;
            }
            i = end;
            continue;
        }
        i += 1;
    }
    out
}

fn in_file(index: Option<&SceneIndex<'_>>, id: [u32; 2]) -> Option<bool> {
    index.map(|ix| ix.objects.iter().any(|o| o.class.as_ref().is_some_and(|c| c.class_id == id)))
}

impl Detector for Unsupported {
    fn class(&self) -> &'static str {
        class::UNSUPPORTED
    }
    fn detect(&self, input: &TriageInput<'_, '_>) -> Option<Triaged> {
        let mut classes: Vec<Value> = Vec::new();
        if input.fail_kind().is_some_and(|k| k.ends_with("-unreadable")) {
            if let Some(index) = input.index {
                for (n, id, s) in classes_of(index, &named_objects(input)) {
                    classes
                        .push(json!({ "object": n, "class_id": class_id_text(id), "superclass": s, "in_file": true }));
                }
            }
        }
        if classes.is_empty() {
            let mut texts = vec![input.words().to_string()];
            // A skip's misses are what made it a skip; a fail's are other meshes' (a class
            // that stopped another mesh, or the exporter's `detail.stopped` list, does not
            // explain a difference on a mesh that evaluated).
            if let (Some(_), Some(Value::Array(misses))) =
                (input.skip_reason(), input.detail.and_then(|d| d.get("misses")))
            {
                texts.extend(misses.iter().filter_map(|m| m.get("reason").and_then(Value::as_str).map(String::from)));
            }
            let mut seen = Vec::new();
            for id in texts.iter().flat_map(|t| class_ids_in(t)) {
                if !seen.contains(&id) {
                    seen.push(id);
                    classes.push(json!({ "class_id": class_id_text(id), "in_file": in_file(input.index, id) }));
                }
            }
        }
        if !classes.is_empty() {
            return Some(Triaged {
                class: self.class(),
                message: format!("not evaluated by pmcore: {}", first_line(input.words())),
                evidence: json!({ "classes": classes }),
            });
        }
        let reason = input.skip_reason()?;
        let no_table = ASSET_TABLES.iter().all(|t| !input.text.has_stream(t));
        if reason.contains("no asset table") && no_table {
            return Some(Triaged {
                class: self.class(),
                message: "the file keeps no asset table (Max 2009 and older): dependencies are not derived".into(),
                evidence: json!({ "streams_absent": ASSET_TABLES, "reason": reason }),
            });
        }
        None
    }
}
