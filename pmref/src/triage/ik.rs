//! `ik`: the node is driven by an IK solve pmcore does not model (`pmcore::eval::ik_solve`
//! solves planar two-bone HI chains; a non-planar chain, another solver …). The comparison
//! names the controller objects it could not sample (`object #N`); each is looked up in
//! the Scene and matched by Class ID.

use super::objects::{class_id_text, classes_of, named_objects};
use super::{class, Detector, TriageInput, Triaged};
use pmcore::classes::ids;
use serde_json::{json, Value};

/// IK controllers by Class ID, from the class catalogue: IKControl (a bone under an IK
/// chain) and IKChainControl (the HI solver's chain).
pub const IK_CLASS_IDS: [[u32; 2]; 2] = [ids::IK_CONTROL, ids::IK_CHAIN_CONTROL];

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
            message: format!("{} controller object(s) are IK solves pmcore does not model", ik.len()),
            evidence: json!({ "controllers": ik }),
        })
    }
}
