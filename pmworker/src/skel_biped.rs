//! The skel T3 of a Biped rig: its skeleton (complete or with unplaced bones,
//! `pmcore::export::biped_rig`) against the FBX 3ds Max wrote from the same `.max` (found
//! like the pairs references, `pmref::pairs::lookup`) and the real `.skel` conventions
//! (`pmref::biped_skel`). One verdict, stream `skel`:
//!
//! * pass: every bone placed, every placed bone's InvBindPos within tolerance of the FBX
//!   BindPose, and every helper Link-Constrained to a placed bone within tolerance there as
//!   bone world · link offset (part (d), the LD35 rigs whose BindPose holds only `B_*`
//!   helpers), fathers as the FBX hierarchy, every convention kept (bones the FBX does not
//!   hold, such as the nubs, are listed in `bind_absent`);
//! * `t3-skel-unplaced` fail: the placed part passes but some bones are not placed — the
//!   message names them and the Biped class (triage: `unsupported`);
//! * `t3-skel-biped` fail: something placed is off (located at the bone), unplaced bones or
//!   not (its own kind: the `t3-skel` era rules read a same-named `.skel` comparison);
//! * skip `not-applicable`: the FBX's BindPose holds none of the placed bones nor a helper
//!   linked to one;
//! * skip `not-implemented` (no FBX found) naming the unplaced bones, or a `no-reference`
//!   skip for a complete skeleton.

use crate::exporter::ExportVerdict;
use crate::options::Options;
use pmcore::export::biped_rig::BipedSkeleton;
use pmcore::verify::{Mismatch, Verdict};
use pmref::biped_skel::{compare, compare_helper_links, BipedSkelComparison, MAX_LISTED};
use pmref::pairs::{lookup, Lookup, ReferenceFile};
use serde_json::{json, Value};
use std::path::Path;

const NAME: &str = "skel";

fn verdict(v: Verdict, detail: Value) -> ExportVerdict {
    ExportVerdict::new(NAME, v, Some(detail))
}

fn fail(kind: &str, message: String, chunk_path: String) -> Verdict {
    Verdict::Fail(Mismatch { kind: kind.into(), message, chunk_path, ..Default::default() })
}

/// The FBX among the references of `source`, or the skip reason saying why there is none.
fn fbx_reference(source: &str, opts: &Options) -> Result<(ReferenceFile, &'static str), String> {
    if opts.reference.is_empty() {
        return Err("no-reference: no reference folder given (--reference)".into());
    }
    match lookup(Path::new(source), &opts.reference) {
        Lookup::Found(files, how) => {
            let fbx = files.into_iter().find(|f| f.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("fbx")));
            fbx.map(|f| (f, how)).ok_or_else(|| "no-reference: the pairs references hold no FBX".into())
        }
        Lookup::Missing(why) => Err(format!("no-reference: missing reference: {why}")),
        Lookup::Ambiguous(why) => Err(format!("no-reference: ambiguous reference: {why}")),
    }
}

/// Reads the FBX and compares.
fn compared(reference: &ReferenceFile, biped: &BipedSkeleton) -> Result<BipedSkelComparison, String> {
    let bytes = std::fs::read(&reference.path).map_err(|e| e.to_string())?;
    let doc = pmref::fbx::binary::read(&bytes).map_err(|e| e.to_string())?;
    let scene = pmref::fbx::scene::scene_of(&doc).map_err(|e| e.to_string())?;
    let bind = pmref::fbx::bind::bind_pose(&doc).map_err(|e| e.to_string())?;
    let mut c = compare(biped.structure(), &biped.placed, &biped.rotation_spread, &bind, &scene)?;
    compare_helper_links(&mut c, biped, &bind, &scene)?;
    Ok(c)
}

/// The skel T3 verdict of a Biped rig; `stem` names the produced `.skel` in locators.
pub fn t3(source: &str, stem: &str, biped: &BipedSkeleton, opts: &Options) -> ExportVerdict {
    let unplaced: Vec<Value> = biped.unplaced.iter().take(MAX_LISTED).map(|u| json!(u)).collect();
    let (reference, how) = match fbx_reference(source, opts) {
        Ok(r) => r,
        // Without an FBX, unplaced bones are still the reason nothing is written or passes.
        Err(lookup) if !biped.unplaced.is_empty() => {
            let reason = format!("not-implemented: {}", biped.unplaced_message());
            return verdict(Verdict::Skip { reason }, json!({ "unplaced_bones": unplaced, "reference": lookup }));
        }
        Err(reason) => return verdict(Verdict::Skip { reason }, json!({ "unplaced_bones": unplaced })),
    };
    let at_reference = format!("@reference/{}", reference.name);
    let c = match compared(&reference, biped) {
        Ok(c) => c,
        Err(e) => {
            let message = format!("{}: {e}", reference.path.display());
            return verdict(fail("t3-reference-unreadable", message, at_reference), json!({}));
        }
    };
    let mut detail = serde_json::to_value(&c).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut detail {
        map.insert("unplaced_bones".into(), Value::Array(unplaced));
        map.insert("lookup".into(), json!(how));
        map.insert("reference".into(), json!(reference.name));
    }
    let at_bone = |locator: String| format!("@export/{stem}.skel/{locator}");
    let v = if c.passed() {
        Verdict::pass()
    } else if c.bind_compared + c.links_compared == 0 && c.father_misses.is_empty() && c.convention_misses.is_empty() {
        Verdict::Skip {
            reason: format!(
                "not-applicable: the reference holds no BindPose matrix of the {} placed bones or of a helper linked to them (its BindPose holds {} other nodes; {}); {}",
                c.bones - c.unplaced,
                c.bind_entries,
                c.conversion,
                biped.unplaced_message()
            ),
        }
    } else if c.placed_part_passed() {
        let first = biped.unplaced.first().map(|u| format!("bones[{}] {:?}", u.index, u.name)).unwrap_or_default();
        let message = format!(
            "{}; the {} placed bones and {} linked helpers compared match the FBX BindPose, its hierarchy and the .skel conventions",
            biped.unplaced_message(),
            c.bind_compared,
            c.links_compared
        );
        fail("t3-skel-unplaced", message, at_bone(first))
    } else {
        let (locator, what) = c.first_miss().unwrap_or_default();
        let also = if c.unplaced > 0 { format!("; also {} bones not placed", c.unplaced) } else { String::new() };
        fail("t3-skel-biped", format!("{what}{also}"), at_bone(locator))
    };
    verdict(v, detail)
}
