//! The NeL `.anim` exporter (`--export anim`): the scene's animation as NeL's exporter writes
//! it (`pmcore::export::nel_anim`; a keyed Biped sampled by `pmcore::export::nel_anim_biped`,
//! its in-between samples marked as guesses), written as `<stem>.anim`, read back through the NeL
//! reader, and compared (stream `nel-anim/…`):
//!
//! * `nel-anim/structure`: the bytes read back rewrite byte-identically
//!   (`t3-nel-anim-round-trip` otherwise) and keep the conventions of the real Ryzom `.anim`
//!   files (`pmref::anim_conventions`, `t3-nel-anim-structure`). A file with no track is a
//!   skip: `not-implemented` naming the tracks not written (Class IDs) when there are some,
//!   `not-applicable` when nothing is animated.
//! * `nel-anim/values/<FBX>`: per FBX 3ds Max wrote from the same `.max` (the pairs lookup),
//!   the tracks sampled at the FBX key times against its curves
//!   (`pmref::compare::nel_anim`), a keyed Biped node only at its exact (key) ticks. No FBX: one `nel-anim/values` skip (`no-reference`).

use crate::emit::Sink;
use crate::events::{Breadcrumb, Event, ExportKind, ExportStatus};
use crate::exporter::{begin, write_output, ExportInput, ExportVerdict, Exporter};
use pmcore::export::nel_anim::AnimExport;
use pmcore::export::nel_anim_biped;
use pmcore::model::scene_index::SceneTrees;
use pmcore::nel::anim::Animation;
use pmcore::nel::NelFile;
use pmcore::verify::{Mismatch, Verdict};
use pmref::pairs::{lookup, Lookup};
use pmschema::hex;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::Path;

/// Stream of the structure verdict.
const STRUCTURE: &str = "nel-anim/structure";
/// Stream prefix of the values verdicts.
const VALUES: &str = "nel-anim/values";

fn fail(kind: &str, message: String, chunk_path: String) -> Verdict {
    Verdict::Fail(Mismatch { kind: kind.into(), message, chunk_path, ..Default::default() })
}

/// The `anim` exporter in the registry.
pub struct AnimExporter;

impl Exporter for AnimExporter {
    fn kind(&self) -> ExportKind {
        ExportKind::Anim
    }
    fn run(&self, input: &ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
        run(input, sink)
    }
}

/// The `.anim` bytes of an export.
pub fn bytes_of(animation: &Animation) -> Vec<u8> {
    pmcore::nel::write(&NelFile::Animation(Box::new(animation.clone())))
}

fn run(input: &ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
    let mut event = begin("anim", sink);
    let export = match nel_anim_biped::export(input.file) {
        Ok(x) => x,
        Err(e) => {
            event.summary = json!({ "error": e.to_string(), "chunk_path": "Scene" });
            sink.emit(Event::Export(event));
            return vec![ExportVerdict::new(STRUCTURE, fail("export-error", e.to_string(), "Scene".into()), None)];
        }
    };
    let bytes = bytes_of(&export.animation);
    let name = format!("{}.anim", input.stem);
    event.summary = serde_json::to_value(&export.summary).unwrap_or(Value::Null);
    if let Err(e) = write_output(input.opts.out.as_deref(), &name, &bytes) {
        let message = format!("cannot write {name}: {e}");
        event.summary = json!({ "error": message });
        sink.emit(Event::Export(event));
        return vec![ExportVerdict::new(STRUCTURE, fail("export-error", message, format!("@export/{name}")), None)];
    }
    let digest = hex(&Sha256::digest(&bytes));
    event.status = ExportStatus::Ok;
    event.files = vec![name.clone()];
    event.sha256 = Some(digest.clone());
    sink.emit(Event::Export(event));
    sink.breadcrumb(Breadcrumb { tier: "t3".into(), stream: STRUCTURE.into(), ..Default::default() });
    let back = match read_back(&bytes) {
        Ok(a) => a,
        Err(why) => {
            let v = fail("t3-nel-anim-round-trip", format!("{name}: {why}"), format!("@export/{name}"));
            return vec![ExportVerdict::new(STRUCTURE, v, Some(json!({ "sha256": digest })))];
        }
    };
    let mut out = vec![structure(&back, &export, &name, &digest)];
    out.extend(values(input, &back, &export, sink));
    out
}

/// The written bytes read back through the NeL reader, which must rewrite them unchanged.
pub fn read_back(bytes: &[u8]) -> Result<Animation, String> {
    let parsed = pmcore::nel::read(bytes).map_err(|e| format!("does not read back: {e}"))?;
    if !parsed.opaque_runs.is_empty() {
        return Err(format!("reads back with {} opaque run(s)", parsed.opaque_runs.len()));
    }
    let NelFile::Animation(a) = parsed.file else { return Err("reads back as another NeL format".into()) };
    let again = bytes_of(&a);
    if again != bytes {
        let at = again.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(again.len().min(bytes.len()));
        return Err(format!("rewrites differently from byte {at}"));
    }
    Ok(*a)
}

/// Tracks not written, as `(node, why)`, and as one line for a skip reason.
fn unsupported(export: &AnimExport) -> (Vec<(String, String)>, String) {
    let list: Vec<(String, String)> = export
        .summary
        .unsupported
        .iter()
        .map(|u| (u.node.clone(), format!("{} {} {}: {}", u.track, u.class, u.class_id, u.why)))
        .collect();
    let mut classes: Vec<String> =
        export.summary.unsupported.iter().map(|u| format!("{} {}", u.class, u.class_id)).collect();
    classes.sort();
    classes.dedup();
    let line = format!("{} track(s) not written ({})", list.len(), classes.join(", "));
    (list, line)
}

fn structure(back: &Animation, export: &AnimExport, name: &str, digest: &str) -> ExportVerdict {
    let mut detail = json!({ "sha256": digest, "round_trip": "identical", "rules": pmref::anim_conventions::RULES });
    let Some(misses) = pmref::anim_conventions::check(back) else {
        let v = fail("t3-nel-anim-structure", "the tracks do not read back typed".into(), format!("@export/{name}"));
        return ExportVerdict::new(STRUCTURE, v, Some(detail));
    };
    if let Value::Object(map) = &mut detail {
        map.insert("tracks".into(), json!(export.summary.tracks));
        map.insert("misses".into(), json!(misses));
    }
    let v = if let Some(m) = misses.first() {
        let message = format!("track {:?} breaks `{}`: {} ({} misses)", m.track, m.rule, m.found, misses.len());
        fail("t3-nel-anim-structure", message, format!("@export/{name}/{}", m.track))
    } else if export.summary.tracks == 0 {
        let (list, line) = unsupported(export);
        let reason = if list.is_empty() {
            "not-applicable: nothing in the scene is animated (no track written)".to_string()
        } else {
            format!("not-implemented: no track written; {line}")
        };
        Verdict::Skip { reason }
    } else {
        Verdict::pass()
    };
    ExportVerdict::new(STRUCTURE, v, Some(detail))
}

fn values(input: &ExportInput<'_>, back: &Animation, export: &AnimExport, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
    let skip = |reason: String| vec![ExportVerdict::new(VALUES, Verdict::Skip { reason }, None)];
    if input.opts.reference.is_empty() {
        return skip("no-reference: no reference folder given (--reference)".into());
    }
    let files = match lookup(Path::new(input.source), &input.opts.reference) {
        Lookup::Found(files, _) => files,
        Lookup::Missing(why) => return skip(format!("no-reference: missing reference: {why}")),
        Lookup::Ambiguous(why) => return skip(format!("no-reference: ambiguous reference: {why}")),
    };
    let fbx: Vec<_> =
        files.into_iter().filter(|f| f.path.extension().is_some_and(|e| e.eq_ignore_ascii_case("fbx"))).collect();
    if fbx.is_empty() {
        return skip("no-reference: the pairs references hold no FBX".into());
    }
    let trees = SceneTrees::of(input.file);
    let Some(index) = trees.as_ref().and_then(|t| t.index()) else {
        return skip("no-reference: Scene is not a readable chunk tree".into());
    };
    let (unsupported, _) = unsupported(export);
    let bare = export.summary.selected.first().filter(|_| export.summary.selection.starts_with("Bip01"));
    let guessed: Vec<(String, Vec<i32>)> = export
        .summary
        .inexact_in_betweens
        .iter()
        .flat_map(|x| x.exact_ticks.iter().map(|(node, ticks)| (node.clone(), ticks.clone())))
        .collect();
    let nel = pmref::compare::nel_anim::NelAnimInput {
        animation: back,
        bare_node: bare.map(String::as_str),
        unsupported: &unsupported,
        guessed: &guessed,
        selected: (export.summary.selection != "scene-root").then_some(export.summary.selected.as_slice()),
    };
    let mut out = Vec::new();
    for reference in fbx {
        let stream = format!("{VALUES}/{}", reference.name);
        sink.breadcrumb(Breadcrumb { tier: "t3".into(), stream: stream.clone(), ..Default::default() });
        let scene = std::fs::read(&reference.path)
            .map_err(|e| e.to_string())
            .and_then(|b| pmref::read_reference("fbx", &b).map_err(|e| e.to_string()));
        let scene = match scene {
            Ok(s) => s,
            Err(e) => {
                let v = fail(
                    "t3-reference-unreadable",
                    format!("{}: {e}", reference.path.display()),
                    format!("@reference/{}", reference.name),
                );
                out.push(ExportVerdict::new(stream, v, None));
                continue;
            }
        };
        let c = pmref::compare::nel_anim::compare(&index, &scene, &reference.name, &nel);
        out.push(ExportVerdict::new(stream, c.verdict, Some(c.detail)));
    }
    out
}
