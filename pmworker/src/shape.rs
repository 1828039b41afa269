//! The `shape` exporter in the worker: one NeL `CMesh` per evaluated geometry node
//! (`pmcore::export::nel_shape`), written as `<stem>.<node>.shape`, and its T3
//! `nel-shape` against the `.shape` files the NeL 3ds Max exporter wrote from the same
//! scene.
//!
//! References: a `--reference` folder holding a NeL corpus `manifest.tsv` pairs the scene
//! (row `max/<file name>`) with the shapes whose `source_repo:path` its `pairs_with` lists;
//! without a manifest row, `<stem>.shape` in the folder is the reference. Each reference is
//! compared with the node of its name (the file stem without `owner__` and `@commit`), and
//! with every other node; the result names the best-matching reference and node and the
//! level reached (structure / counts / positions). Only the positions level passes; a scene
//! without a reference is a counted skip.

use crate::emit::Sink;
use crate::events::{Breadcrumb, Event, ExportStatus};
use crate::exporter::{write_output, ExportVerdict};
use crate::options::Options;
use pmcore::export::nel_shape::{self, NodeShape};
use pmcore::export::shape_t3::{self, Level, ShapeComparison, ShapeFacts};
use pmcore::verify::{Mismatch, Verdict};
use pmcore::MaxFile;
use pmschema::hex;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// Exporter name.
pub const NAME: &str = "shape";
/// Stream of its T3 result.
pub const T3_STREAM: &str = "nel-shape";

/// Where the references of a scene are, or why there are none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum References {
    /// Reference files.
    Found(Vec<PathBuf>),
    /// None: the skip reason.
    Missing(String),
}

/// A manifest's rows as (column → value) lookups by header name.
fn manifest_rows(text: &str) -> Vec<Vec<(String, String)>> {
    let mut lines = text.lines();
    let Some(header) = lines.next() else { return Vec::new() };
    let names: Vec<&str> = header.split('\t').collect();
    lines.map(|l| names.iter().zip(l.split('\t')).map(|(n, v)| (n.to_string(), v.to_string())).collect()).collect()
}

fn field<'a>(row: &'a [(String, String)], name: &str) -> &'a str {
    row.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str()).unwrap_or("")
}

/// The reference shapes of the scene file `source` (see the module notes).
pub fn references(source: &str, stem: &str, dirs: &[PathBuf]) -> References {
    let file_name = Path::new(source).file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(dir.join("manifest.tsv")) else { continue };
        let rows = manifest_rows(&text);
        let scene = rows.iter().find(|r| {
            field(r, "kind") == "max"
                && Path::new(field(r, "file")).file_name().is_some_and(|n| n == file_name.as_str())
        });
        let Some(scene) = scene else { continue };
        let pairs: Vec<&str> = field(scene, "pairs_with").split(';').filter(|s| !s.is_empty()).collect();
        let found: Vec<PathBuf> = rows
            .iter()
            .filter(|r| field(r, "kind") == "nel_shape")
            .filter(|r| pairs.contains(&format!("{}:{}", field(r, "source_repo"), field(r, "path")).as_str()))
            .map(|r| dir.join(field(r, "file")))
            .collect();
        return if found.is_empty() {
            References::Missing(format!(
                "no-reference: {} pairs {file_name} with no .shape",
                dir.join("manifest.tsv").display()
            ))
        } else {
            References::Found(found)
        };
    }
    let direct: Vec<PathBuf> = dirs.iter().map(|d| d.join(format!("{stem}.shape"))).filter(|p| p.is_file()).collect();
    match direct.into_iter().next() {
        Some(p) => References::Found(vec![p]),
        None if dirs.is_empty() => References::Missing("no-reference: no reference folder given (--reference)".into()),
        None => References::Missing(format!("no-reference: no manifest row for {file_name} and no {stem}.shape")),
    }
}

/// The node name a reference shape was exported from: its file stem without the corpus
/// `owner__` prefix and `@commit` suffix.
pub fn reference_node_name(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = stem.split_once("__").map(|(_, s)| s.to_string()).unwrap_or(stem);
    stem.split('@').next().unwrap_or("").to_string()
}

/// One reference compared with the best node.
struct Compared {
    reference: PathBuf,
    node: String,
    name_match: bool,
    comparison: ShapeComparison,
}

fn rank(c: &Compared) -> (Level, bool, bool, bool, std::cmp::Reverse<usize>, bool) {
    let s = &c.comparison;
    (s.level, s.counts_exact, s.positions_within, s.structure_equal, std::cmp::Reverse(s.misses()), c.name_match)
}

/// Compares every reference with every node; the best per reference, best first.
fn compare_all(shapes: &[(NodeShape, ShapeFacts)], refs: &[(PathBuf, ShapeFacts)]) -> Vec<Compared> {
    let mut out: Vec<Compared> = refs
        .iter()
        .filter_map(|(path, facts)| {
            let wanted = reference_node_name(path);
            shapes
                .iter()
                .map(|(shape, ours)| Compared {
                    reference: path.clone(),
                    node: shape.node.clone(),
                    name_match: shape.node.eq_ignore_ascii_case(&wanted),
                    comparison: shape_t3::compare(ours, facts),
                })
                .max_by_key(rank)
        })
        .collect();
    out.sort_by_key(|c| std::cmp::Reverse(rank(c)));
    out
}

fn detail_of(c: &Compared) -> Value {
    json!({
        "reference": c.reference.file_name().map(|n| n.to_string_lossy().into_owned()),
        "node": c.node,
        "node_name_matches": c.name_match,
        "level": c.comparison.level,
        "structure_equal": c.comparison.structure_equal,
        "counts_exact": c.comparison.counts_exact,
        "positions_within": c.comparison.positions_within,
        "checks": c.comparison.checks,
    })
}

fn safe_name(node: &str) -> String {
    node.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

/// Runs the exporter and its T3.
pub fn run(source: &str, stem: &str, file: &MaxFile, opts: &Options, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
    let mut event = crate::exporter::begin(NAME, sink);
    let verdict = |verdict, detail| vec![ExportVerdict::new(T3_STREAM, verdict, detail)];
    let (shapes, summary) = match nel_shape::export(file) {
        Ok(x) => x,
        Err(e) => {
            event.status = ExportStatus::Error;
            event.summary = json!({ "error": e.to_string(), "chunk_path": "Scene" });
            sink.emit(Event::Export(event));
            let m = Mismatch {
                kind: "export-error".into(),
                message: e.to_string(),
                chunk_path: "Scene".into(),
                ..Default::default()
            };
            return verdict(Verdict::Fail(m), None);
        }
    };
    event.summary = serde_json::to_value(&summary).unwrap_or(Value::Null);
    if shapes.is_empty() {
        // Geometry that stopped is a gap of the evaluator (not-implemented); a scene without
        // geometry is not-applicable.
        let gap = !(summary.stopped.is_empty() && summary.count_only.is_empty() && summary.unplaced.is_empty());
        event.status = if gap { ExportStatus::NotImplemented } else { ExportStatus::NotApplicable };
        sink.emit(Event::Export(event));
        let mut classes: Vec<String> =
            summary.stopped.iter().map(|s| format!("{} {}", s.class_name, s.class_id)).collect();
        classes.sort();
        classes.dedup();
        let why = format!(
            "{}: no geometry node evaluated ({} stopped: {}; {} over budget, {} unplaced)",
            event_status_word(gap),
            summary.stopped.len(),
            classes.join(", "),
            summary.count_only.len(),
            summary.unplaced.len()
        );
        return verdict(Verdict::Skip { reason: why }, Some(json!({ "summary": event_summary_copy(&summary) })));
    }
    let mut digest = Sha256::new();
    let mut written = Vec::with_capacity(shapes.len());
    for s in &shapes {
        let bytes = nel_shape::write(&s.mesh);
        let name = format!("{stem}.{}.shape", safe_name(&s.node));
        if let Err(e) = write_output(opts.out.as_deref(), &name, &bytes) {
            event.status = ExportStatus::Error;
            event.summary = json!({ "error": format!("cannot write {name}: {e}") });
            sink.emit(Event::Export(event));
            let m = Mismatch {
                kind: "export-error".into(),
                message: format!("cannot write {name}: {e}"),
                chunk_path: format!("@export/{name}"),
                ..Default::default()
            };
            return verdict(Verdict::Fail(m), None);
        }
        digest.update(&bytes);
        event.files.push(name);
        written.push(bytes);
    }
    let sha = hex(&digest.finalize());
    event.status = ExportStatus::Ok;
    event.sha256 = Some(sha.clone());
    sink.emit(Event::Export(event));
    sink.breadcrumb(Breadcrumb { tier: "t3".into(), stream: T3_STREAM.into(), ..Default::default() });
    let paths = match references(source, stem, &opts.reference) {
        References::Found(p) => p,
        References::Missing(reason) => return verdict(Verdict::Skip { reason }, Some(json!({ "sha256": sha }))),
    };
    let mut refs = Vec::new();
    let mut unreadable = Vec::new();
    for p in &paths {
        match std::fs::read(p)
            .map_err(|e| e.to_string())
            .and_then(|b| shape_t3::file_facts(&b).map_err(|e| e.to_string()))
        {
            Ok(f) => refs.push((p.clone(), f)),
            Err(e) => unreadable.push(format!("{}: {e}", p.display())),
        }
    }
    // Our side is read back from the bytes written, with the reader the references go
    // through: a writer fault shows here, not only in the unit tests.
    let mut ours: Vec<(NodeShape, ShapeFacts)> = Vec::with_capacity(shapes.len());
    for (s, bytes) in shapes.into_iter().zip(&written) {
        match shape_t3::file_facts(bytes) {
            Ok(f) => ours.push((s, f)),
            Err(e) => {
                let m = Mismatch {
                    kind: "export-error".into(),
                    message: format!("written shape of node {} does not read back: {e}", s.node),
                    chunk_path: format!("@export/{stem}.{}.shape", safe_name(&s.node)),
                    ..Default::default()
                };
                return verdict(Verdict::Fail(m), Some(json!({ "sha256": sha })));
            }
        }
    }
    let compared = compare_all(&ours, &refs);
    let Some(best) = compared.first() else {
        let m = Mismatch {
            kind: "t3-reference-unreadable".into(),
            message: unreadable.join("; "),
            chunk_path: "@reference".into(),
            ..Default::default()
        };
        return verdict(Verdict::Fail(m), Some(json!({ "sha256": sha })));
    };
    let mut detail = json!({
        "sha256": sha,
        "best": detail_of(best),
        "references": compared.iter().map(detail_of).collect::<Vec<_>>(),
        "unreadable": unreadable,
        "stopped": &summary.stopped,
        "tolerance": shape_t3::TOLERANCE,
    });
    let reference_name = best.reference.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // The node a reference was exported from did not evaluate: that is the miss's reason.
    let stopped = (!best.name_match)
        .then(|| {
            compared.iter().find_map(|c| {
                let wanted = reference_node_name(&c.reference);
                summary.stopped.iter().find(|n| n.node.eq_ignore_ascii_case(&wanted))
            })
        })
        .flatten();
    let revision = best.comparison.counts_exact
        && best.comparison.first_miss().is_some_and(|m| m.field == "normals")
        && other_release_matches(file, best);
    if best.comparison.first_miss().is_some() && stopped.is_none() && !revision {
        if let Some(other) = agreeing_revision(source, &best.reference, &opts.reference) {
            detail["other_revision"] = other;
        } else if let Some(evidence) = map_revision(&ours, &refs, best) {
            detail["map_revision"] = evidence;
        }
    }
    let v = match (best.comparison.first_miss(), stopped) {
        (None, _) => Verdict::pass(),
        (Some(miss), None) if revision => Verdict::Fail(Mismatch {
            kind: "t3-nel-shape-revision".into(),
            message: format!(
                "level {:?} against {reference_name} (node {}): {} ours {}; with the other Max release's normal rule \
                 every vertex matches: the reference was exported from a revision saved by another release",
                best.comparison.level, best.node, miss.field, miss.ours
            ),
            chunk_path: format!("@reference/{reference_name}"),
            ..Default::default()
        }),
        (Some(_), Some(node)) => Verdict::Fail(Mismatch {
            kind: "t3-nel-shape-eval-stopped".into(),
            message: format!(
                "node {} (reference {reference_name}) not evaluated: {} {} ({}); best other node {} reached level {:?}",
                node.node, node.class_name, node.class_id, node.why, best.node, best.comparison.level
            ),
            chunk_path: format!("@reference/{reference_name}"),
            ..Default::default()
        }),
        (Some(miss), None) => Verdict::Fail(Mismatch {
            kind: format!("t3-nel-shape-{}", miss.field),
            message: format!(
                "level {:?} against {reference_name} (node {}): {} ours {} reference {}",
                best.comparison.level, best.node, miss.field, miss.ours, miss.reference
            ),
            chunk_path: format!("@reference/{reference_name}"),
            ..Default::default()
        }),
    };
    verdict(v, Some(detail))
}

/// Evidence that a vertex-count miss is the reference's UV splits from another mapping:
/// the node's geometry equals the reference's but for UVs (same triangles, every position
/// and normal on both sides), and the reference holds UVs outside the box of the map
/// channel the node's base stores — which every UV derived from it lies in (the node is
/// a tri object under MeshSmooth / TurboSmooth only). `None` otherwise.
fn map_revision(ours: &[(NodeShape, ShapeFacts)], refs: &[(PathBuf, ShapeFacts)], best: &Compared) -> Option<Value> {
    if best.comparison.first_miss()?.field != "vertices" {
        return None;
    }
    let (shape, facts) = ours.iter().find(|(s, _)| s.node == best.node)?;
    let (_, reference) = refs.iter().find(|(p, _)| *p == best.reference)?;
    if !shape_t3::same_geometry_but_uvs(facts, reference, shape_t3::TOLERANCE) {
        return None;
    }
    let [lo, hi] = shape.source_map_range()?;
    let tol = shape_t3::TOLERANCE.uv;
    // NeL writes (u, 1 − v): back to Max's map space.
    let uvs: Vec<[f32; 2]> = reference.attributes.iter().map(|a| [a[6], 1.0 - a[7]]).collect();
    let outside = uvs.iter().filter(|uv| (0..2).any(|k| uv[k] < lo[k] - tol || uv[k] > hi[k] + tol)).count();
    if outside == 0 {
        return None;
    }
    let (mut rlo, mut rhi) = ([f32::MAX; 2], [f32::MIN; 2]);
    for uv in &uvs {
        for k in 0..2 {
            rlo[k] = rlo[k].min(uv[k]);
            rhi[k] = rhi[k].max(uv[k]);
        }
    }
    Some(json!({
        "reference": best.reference.file_name().map(|n| n.to_string_lossy().into_owned()),
        "node": best.node,
        "stored_map_range": [lo, hi],
        "reference_uv_range": [rlo, rhi],
        "reference_uvs_outside": outside,
        "agrees_with": "every position and normal matches; the reference's UVs lie outside the stored map channel, \
                        which every UV the smoothing derives from it lies in: an earlier mapping",
    }))
}

/// `scene@commit.max` and `scene.max` are revisions of one scene: the file name without its
/// `@commit` part.
fn scene_of(file_name: &str) -> String {
    let (stem, ext) = file_name.rsplit_once('.').unwrap_or((file_name, ""));
    format!("{}.{ext}", stem.split('@').next().unwrap_or(stem))
}

/// Another saved revision of the same scene that the reference folder's manifest pairs with
/// `reference` and whose evaluated shapes match it at the positions level: evidence that
/// the reference was written from that revision (`other_revision`, docs/triage.md). `None`
/// when no such revision agrees.
fn agreeing_revision(source: &str, reference: &Path, dirs: &[PathBuf]) -> Option<Value> {
    let file_name = Path::new(source).file_name()?.to_string_lossy().into_owned();
    let facts = shape_t3::file_facts(&std::fs::read(reference).ok()?).ok()?;
    for dir in dirs {
        let Ok(text) = std::fs::read_to_string(dir.join("manifest.tsv")) else { continue };
        let rows = manifest_rows(&text);
        let Some(key) = rows
            .iter()
            .find(|r| field(r, "kind") == "nel_shape" && dir.join(field(r, "file")) == reference)
            .map(|r| format!("{}:{}", field(r, "source_repo"), field(r, "path")))
        else {
            continue;
        };
        for row in rows.iter().filter(|r| field(r, "kind") == "max") {
            let other = Path::new(field(row, "file")).file_name().map(|n| n.to_string_lossy().into_owned());
            let revision = other.is_some_and(|o| o != file_name && scene_of(&o) == scene_of(&file_name));
            if !revision || !field(row, "pairs_with").split(';').any(|p| p == key) {
                continue;
            }
            let Ok(bytes) = std::fs::read(dir.join(field(row, "file"))) else { continue };
            let pmcore::input::Input::Ole(ole) = pmcore::input::classify(&bytes) else { continue };
            let Ok((shapes, _)) = nel_shape::export_with(&MaxFile::new(ole), None) else { continue };
            let agrees = shapes.iter().find(|s| {
                shape_t3::mesh_facts(&s.mesh)
                    .is_ok_and(|ours| shape_t3::compare(&ours, &facts).level == Level::Positions)
            });
            if let Some(node) = agrees {
                return Some(json!({
                    "max": field(row, "file"),
                    "reference": reference.file_name().map(|n| n.to_string_lossy().into_owned()),
                    "node": node.node,
                    "agrees_with": "the other revision's evaluated mesh matches the reference at every vertex",
                }));
            }
        }
    }
    None
}

/// True when the best node, built with the other release's normal weighting, matches its
/// reference at the positions level (a diagnostic: the level stays what it was).
fn other_release_matches(file: &MaxFile, best: &Compared) -> bool {
    let Some(root) = pmcore::model::scene_index::SceneTrees::of(file).and_then(|t| t.index().map(|i| i.root_id)) else {
        return false;
    };
    let other = nel_shape::NormalWeighting::for_scene_root(root).other();
    let Ok((shapes, _)) = nel_shape::export_with(file, Some(other)) else { return false };
    let reference = std::fs::read(&best.reference).ok().and_then(|b| shape_t3::file_facts(&b).ok());
    let ours = shapes.iter().find(|s| s.node == best.node).and_then(|s| shape_t3::mesh_facts(&s.mesh).ok());
    match (ours, reference) {
        (Some(o), Some(r)) => shape_t3::compare(&o, &r).level == Level::Positions,
        _ => false,
    }
}

fn event_status_word(gap: bool) -> &'static str {
    if gap {
        "not-implemented"
    } else {
        "not-applicable"
    }
}

fn event_summary_copy(s: &nel_shape::ShapeSummary) -> Value {
    serde_json::to_value(s).unwrap_or(Value::Null)
}

/// The `shape` exporter in the registry.
pub struct ShapeExporter;

impl crate::exporter::Exporter for ShapeExporter {
    fn kind(&self) -> crate::events::ExportKind {
        crate::events::ExportKind::Shape
    }
    fn run(&self, input: &crate::exporter::ExportInput<'_>, sink: &mut dyn Sink) -> Vec<ExportVerdict> {
        run(input.source, input.stem, input.file, input.opts, sink)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn revisions_of_one_scene_share_the_name_without_the_commit() {
        assert_eq!(scene_of("skeetmtp__snow_target_100_flat@21758ca9.max"), "skeetmtp__snow_target_100_flat.max");
        assert_eq!(scene_of("skeetmtp__snow_target_100_flat.max"), "skeetmtp__snow_target_100_flat.max");
        assert_ne!(scene_of("a__b@1.max"), scene_of("a__c@1.max"));
    }

    #[test]
    fn reference_names_drop_owner_and_commit() {
        assert_eq!(reference_node_name(Path::new("shape/skeetmtp__snow_bowl@4760fd6b.shape")), "snow_bowl");
        assert_eq!(reference_node_name(Path::new("ryzom__sphere01.shape")), "sphere01");
        assert_eq!(reference_node_name(Path::new("plain.shape")), "plain");
    }

    #[test]
    fn a_manifest_pairs_a_scene_with_its_shapes_and_an_unpaired_scene_is_a_named_skip() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = "file\tkind\tsource_repo\tpath\tpairs_with\n\
            max/a__s.max\tmax\to/r\tsrc/s.max\to/r:out/s.shape;o/r:out/missing.shape\n\
            max/a__lonely.max\tmax\to/r\tsrc/l.max\t\n\
            shape/a__s.shape\tnel_shape\to/r\tout/s.shape\t\n\
            shape/a__t.shape\tnel_shape\to/r\tout/t.shape\t\n";
        std::fs::write(dir.path().join("manifest.tsv"), manifest).unwrap();
        let dirs = vec![dir.path().to_path_buf()];
        assert_eq!(
            references("x/a__s.max", "a__s", &dirs),
            References::Found(vec![dir.path().join("shape/a__s.shape")])
        );
        assert!(
            matches!(references("a__lonely.max", "a__lonely", &dirs), References::Missing(r) if r.contains("no .shape"))
        );
        assert!(
            matches!(references("other.max", "other", &dirs), References::Missing(r) if r.starts_with("no-reference"))
        );
        assert!(matches!(references("other.max", "other", &[]), References::Missing(r) if r.contains("--reference")));
    }
}
