//! Exporters inside the worker (OBJ, NeL .skel) and their T3 comparisons; and the pairs
//! comparisons (`pairs`: the file against what 3ds Max itself exported, `pmref`).
//!
//! Each exporter runs in this process, so an exporter crash is a crash of this file only:
//! a breadcrumb (tier `export`, stream = exporter name) is written before the exporter
//! runs and another (tier `t3`) before its comparison, so the last breadcrumb names it.
//! Outputs go to `--out DIR` or to a temporary folder per exporter, named after the input
//! file (`<stem>.obj`, `<stem>.skel`); with `--reference DIR` (repeatable) the file of the
//! same name in the first folder holding one is the T3 reference. Without one, T3 is `skip` and the export digest is the
//! result (for baseline diffs).

use crate::emit::Sink;
use crate::events::{Breadcrumb, Event, ExportKind, ExportStatus};
pub use crate::exporter::ExportVerdict;
use crate::exporter::{write_output, ExportInput, Exporter};
use crate::options::Options;
use pmcore::export::biped_rig::BipedSkeleton;
use pmcore::export::obj::{self, ObjObject};
use pmcore::export::rig::{self, RigOutcome};
use pmcore::export::skel::{self, Skeleton};
use pmcore::export::t3;
use pmcore::model::scene_index::SceneTrees;
use pmcore::verify::{Mismatch, Verdict};
use pmcore::MaxFile;
use pmschema::hex;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

// The exporters `--export` accepts are `pmschema::ExportKind`; which run when none is named
// is decided with the rest of the checks (`pmschema::work`, through `Options::asked`).

/// What an exporter produced, kept in memory for T3.
enum Produced {
    Obj(Vec<ObjObject>),
    Skel(Skeleton),
    /// A complete Biped skeleton: compared with the FBX Max wrote (`skel_biped`).
    BipedSkel(Box<BipedSkeleton>),
}

/// An exporter's outcome before it is written.
enum Outcome {
    Built {
        produced: Produced,
        extension: &'static str,
        bytes: Vec<u8>,
        summary: Value,
    },
    NotApplicable(String),
    NotImplemented(String),
    /// A Biped skeleton with bones pmcore cannot place: nothing is written, T3 still
    /// compares the placed bones and names the others.
    Unplaced(Box<BipedSkeleton>),
    /// Message, and the chunk path and offset it is about.
    Error(String, (String, u64)),
}

/// Runs the exporters the checks name on the file read from `source` and returns one T3
/// verdict per comparison.
/// `scene`: the file's Scene trees, parsed once for all exporters.
pub fn run(
    source: &str,
    file: &MaxFile,
    scene: Option<&SceneTrees<'_>>,
    opts: &Options,
    sink: &mut dyn Sink,
) -> Vec<ExportVerdict> {
    let mut kinds = opts.checks.exports().to_vec();
    let stem =
        Path::new(source).file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "export".into());
    // The pairs comparisons run last, once.
    let pairs_asked = kinds.contains(&ExportKind::Pairs);
    kinds.retain(|k| *k != ExportKind::Pairs);
    if pairs_asked {
        kinds.push(ExportKind::Pairs);
    }
    let input = ExportInput { source, stem: &stem, file, scene, opts };
    kinds
        .iter()
        .filter_map(|kind| REGISTRY.iter().find(|e| e.kind() == *kind))
        .flat_map(|exporter| exporter.run(&input, sink))
        .collect()
}

/// Every exporter the worker has, by `--export` name. Adding one is its module, its name
/// in `pmschema::ExportKind`, and one line here (a test checks every name has one).
pub const REGISTRY: &[&dyn Exporter] = &[
    &SingleOutput(ExportKind::Obj),
    &SingleOutput(ExportKind::ObjBase),
    &SingleOutput(ExportKind::Skel),
    &crate::summary::SummaryExporter,
    &crate::shape::ShapeExporter,
    &crate::pairs::PairsExporter,
    &crate::anim::AnimExporter,
];

/// The exporters that write one output file compared byte-wise or field-wise with a
/// same-named reference: OBJ (evaluated or base meshes) and the NeL skeleton.
struct SingleOutput(ExportKind);

impl Exporter for SingleOutput {
    fn kind(&self) -> ExportKind {
        self.0
    }
    fn run(&self, input: &ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
        vec![run_one(self.0, input, sink)]
    }
}

/// Chunk path and offset of an exporter error: the Scene object it names, else the Scene
/// stream itself.
fn locate(file: &MaxFile, object: Option<usize>, offset: Option<u64>) -> (String, u64) {
    let trees = pmcore::model::scene_index::SceneTrees::of(file);
    let index = trees.as_ref().and_then(|t| t.index());
    match (object, index) {
        (Some(i), Some(index)) => match index.get(i) {
            Some(o) => (
                format!("Scene/0x{:04x}/[{i}]0x{:04x}", index.root_id, o.chunk.id),
                offset.or(o.chunk.offset).unwrap_or(0),
            ),
            None => (format!("Scene/0x{:04x}/[{i}]", index.root_id), offset.unwrap_or(0)),
        },
        _ => ("Scene".into(), offset.unwrap_or(0)),
    }
}

fn crumb(sink: &mut dyn Sink, tier: &str, exporter: &str) {
    sink.breadcrumb(Breadcrumb { tier: tier.into(), stream: exporter.into(), ..Default::default() });
}

/// OBJ options of exporter `kind` (`obj-base`: modifier stacks not applied).
fn obj_options(kind: ExportKind) -> obj::ExportOptions {
    obj::ExportOptions { base_only: kind == ExportKind::ObjBase, ..Default::default() }
}

fn produce(kind: ExportKind, file: &MaxFile) -> Outcome {
    match kind {
        ExportKind::Obj | ExportKind::ObjBase => match obj::export_with(file, obj_options(kind)) {
            Ok((objects, summary)) => Outcome::Built {
                bytes: obj::write(&objects).into_bytes(),
                produced: Produced::Obj(objects),
                extension: "obj",
                summary: serde_json::to_value(summary).unwrap_or(Value::Null),
            },
            Err(e) => Outcome::Error(e.to_string(), locate(file, e.object(), e.stream_offset())),
        },
        ExportKind::Skel => match rig::export(file) {
            Ok(RigOutcome::Built { skeleton, summary }) => Outcome::Built {
                bytes: skel::write(&skeleton),
                produced: Produced::Skel(skeleton),
                extension: "skel",
                summary: serde_json::to_value(summary).unwrap_or(Value::Null),
            },
            Ok(RigOutcome::NotApplicable(why)) => Outcome::NotApplicable(why),
            Ok(RigOutcome::NotImplemented(why)) => Outcome::NotImplemented(why),
            Ok(RigOutcome::Biped(biped)) => match biped.complete().map(skel::write) {
                Some(bytes) => Outcome::Built {
                    bytes,
                    summary: serde_json::to_value(&biped.summary).unwrap_or(Value::Null),
                    produced: Produced::BipedSkel(biped),
                    extension: "skel",
                },
                None => Outcome::Unplaced(biped),
            },
            Err(e) => Outcome::Error(e.to_string(), locate(file, e.object(), None)),
        },
        other => Outcome::Error(format!("exporter `{other}` writes no single output"), ("Scene".into(), 0)),
    }
}

fn run_one(kind: ExportKind, input: &ExportInput<'_>, sink: &mut dyn Sink) -> ExportVerdict {
    let (source, stem, file, opts) = (input.source, input.stem, input.file, input.opts);
    let name = kind.name();
    let mut event = crate::exporter::begin(name, sink);
    let outcome = produce(kind, file);
    let verdict = |verdict, detail| ExportVerdict::new(name, verdict, detail);
    let (produced, file_name, digest) = match outcome {
        Outcome::Built { produced, extension, bytes, summary } => {
            let file_name = format!("{stem}.{extension}");
            event.summary = summary;
            match write_output(opts.out.as_deref(), &file_name, &bytes) {
                Ok(()) => {
                    let digest = hex(&Sha256::digest(&bytes));
                    event.status = ExportStatus::Ok;
                    event.files = vec![file_name.clone()];
                    event.sha256 = Some(digest.clone());
                    sink.emit(Event::Export(event));
                    (produced, file_name, digest)
                }
                Err(e) => {
                    let message = format!("cannot write {file_name}: {e}");
                    event.status = ExportStatus::Error;
                    event.summary = json!({ "error": message });
                    sink.emit(Event::Export(event));
                    let locator = (format!("@export/{file_name}"), 0);
                    return verdict(fail_at("export-error", message, locator), None);
                }
            }
        }
        Outcome::NotApplicable(why) => {
            event.status = ExportStatus::NotApplicable;
            event.summary = json!({ "reason": why });
            sink.emit(Event::Export(event));
            return verdict(Verdict::Skip { reason: format!("not-applicable: {why}") }, era_detail(kind, file));
        }
        Outcome::NotImplemented(why) => {
            event.status = ExportStatus::NotImplemented;
            event.summary = json!({ "reason": why });
            sink.emit(Event::Export(event));
            return verdict(Verdict::Skip { reason: format!("not-implemented: {why}") }, era_detail(kind, file));
        }
        Outcome::Unplaced(biped) => {
            event.status = ExportStatus::NotImplemented;
            event.summary = json!({
                "reason": biped.unplaced_message(),
                "unplaced": biped.unplaced.len(),
                "bones": biped.summary.bones,
            });
            sink.emit(Event::Export(event));
            crumb(sink, "t3", name);
            return crate::skel_biped::t3(source, stem, &biped, opts);
        }
        Outcome::Error(message, locator) => {
            event.status = ExportStatus::Error;
            event.summary = json!({ "error": message, "chunk_path": locator.0 });
            sink.emit(Event::Export(event));
            return verdict(fail_at("export-error", message, locator), None);
        }
    };
    crumb(sink, "t3", name);
    if let Produced::BipedSkel(biped) = &produced {
        let mut v = crate::skel_biped::t3(source, stem, biped, opts);
        if let Some(Value::Object(map)) = &mut v.detail {
            map.insert("sha256".into(), Value::String(digest));
        }
        return v;
    }
    if opts.reference.is_empty() {
        let detail = json!({ "sha256": digest });
        return verdict(
            Verdict::Skip { reason: "no-reference: no reference folder given (--reference)".into() },
            Some(detail),
        );
    }
    let candidates: Vec<PathBuf> = opts.reference.iter().map(|dir| dir.join(&file_name)).collect();
    let Some((reference_path, reference)) =
        candidates.iter().find_map(|p| std::fs::read(p).ok().map(|bytes| (p.clone(), bytes)))
    else {
        let detail = json!({ "sha256": digest });
        let reason = format!("no-reference: no reference output {}", candidates[0].display());
        return verdict(Verdict::Skip { reason }, Some(detail));
    };
    let (v, mut detail) = compare(&produced, &reference, &reference_path);
    if let Value::Object(map) = &mut detail {
        map.insert("sha256".into(), Value::String(digest));
        if let Produced::Skel(_) = produced {
            if let Some(Value::Object(era)) = era_detail(kind, file) {
                map.extend(era);
            }
        }
    }
    verdict(v, Some(detail))
}

/// Compares a produced output with the reference bytes: the verdict and the counters.
fn compare(produced: &Produced, reference: &[u8], path: &Path) -> (Verdict, Value) {
    // T3 failures are located in the reference output they were compared with.
    let at = || (format!("@reference/{}", path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()), 0);
    let fail = |kind: &str, message: String| fail_at(kind, message, at());
    match produced {
        Produced::Skel(skeleton) => match skel::read(reference) {
            Ok(reference) => {
                let c = t3::compare_skel(skeleton, &reference);
                let v = if c.passed() { Verdict::pass() } else { fail("t3-skel", c.message()) };
                (v, serde_json::to_value(&c).unwrap_or(Value::Null))
            }
            Err(e) => (fail("t3-reference-unreadable", format!("{}: {e}", path.display())), json!({})),
        },
        Produced::BipedSkel(_) => (fail("t3-skel", "a Biped skeleton is compared with its FBX".into()), json!({})),
        Produced::Obj(objects) => match std::str::from_utf8(reference).map_err(|e| e.to_string()).and_then(obj::read) {
            Ok(reference) => {
                let c = t3::compare_obj(objects, &reference);
                let v = if c.passed() { Verdict::pass() } else { fail("t3-obj", c.message()) };
                (v, serde_json::to_value(&c).unwrap_or(Value::Null))
            }
            Err(e) => (fail("t3-reference-unreadable", format!("{}: {e}", path.display())), json!({})),
        },
    }
}

/// For skel: the biped figure era from triage (the `_big/_small` era-mismatch input),
/// `None` when the file has no biped system.
fn era_detail(kind: ExportKind, file: &MaxFile) -> Option<Value> {
    let biped = (kind == ExportKind::Skel).then(|| pmcore::triage::detect_file(file)).flatten()?.biped?;
    Some(json!({ "figure_era": biped.figure_era }))
}

/// A failure that names the chunk (or output file) it is about.
fn fail_at(kind: &str, message: String, (chunk_path, offset): (String, u64)) -> Verdict {
    Verdict::Fail(Mismatch { kind: kind.into(), message, chunk_path, offset, ..Default::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exporter_name_has_exactly_one_registry_entry() {
        for kind in ExportKind::ALL {
            let n = REGISTRY.iter().filter(|e| e.kind() == kind).count();
            assert_eq!(n, 1, "`{kind}` has {n} registry entries");
        }
        assert_eq!(REGISTRY.len(), ExportKind::ALL.len());
    }
}
