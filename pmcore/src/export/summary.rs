//! The `summary` exporter: the account of a scene that 3ds Max writes into its document
//! summary at save time, derived here from pmcore's typed model **only** (directories, the
//! resolved Scene, the OBJ exporter), never from the property set. [`compare`] then sets it
//! against Max's own account ([`DocSummary`]) section by section: that is a T3 whose
//! reference every real `.max` file carries.
//!
//! Max's rules, as measured on the real corpora, are documented in `docs/exporters.md`.

use crate::facts::doc_summary::{DocSummary, SceneTotals};
use crate::model::scene_index::{SceneIndex, SceneObject, SceneTrees, NODE_IMPL, OSM_DERIVED, WSM_DERIVED};
use crate::MaxFile;
use std::collections::BTreeMap;

/// Superclass ids that decide a node's Scene Totals category (Max SDK `SClass_ID`).
pub mod superclass {
    /// Geometric object.
    pub const GEOMOBJECT: u32 = 0x10;
    /// Camera.
    pub const CAMERA: u32 = 0x20;
    /// Light.
    pub const LIGHT: u32 = 0x30;
    /// Shape (splines).
    pub const SHAPE: u32 = 0x40;
    /// Helper.
    pub const HELPER: u32 = 0x50;
    /// Space-warp object.
    pub const WSM_OBJECT: u32 = 0x60;
    /// Object-space modifier.
    pub const OSM: u32 = 0x810;
}

/// Modifiers whose output is geometry whatever their input: a shape under one of them is
/// counted under Objects by Max. Matched by Class ID (names are localized: `车削` is Lathe,
/// `挤出` Extrude). Measured: with this list the categories of 235 of 236 readable real
/// files agree with Max's Scene Totals; shapes under only Bend / Noise / UVW Map / XForm /
/// FFD / Wave / Squeeze / Melt never occur without one of these, and shapes without any
/// modifier (renderable or not) are always Shapes.
pub const GEOMETRY_MAKING_MODIFIERS: &[([u32; 2], &str)] = &[
    ([0x0000_00a0, 0], "Extrude"),
    ([0x0000_00b0, 0], "Lathe"),
    ([0x0000_1017, 0x0000_7f9e], "Bevel"),
    ([0x7a42_02d0, 0x1196_1722], "Bevel Profile"),
    ([0x3b9b_1a16, 0x6d84_e8d0], "Shell"),
    ([0x79aa_6e1d, 0x71a0_75b7], "Edit Poly"),
    ([0x0000_0050, 0], "Edit Mesh"),
    ([0x0d72_7b3e, 0x491d_29a7], "TurboSmooth"),
];

/// Scene Totals as derived, with the nodes whose category could not be decided.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DerivedTotals {
    /// Counts in Max's order (Objects, Shapes, Lights, Cameras, Helpers, Space Warps, Total).
    pub counts: [u64; 7],
    /// Class names of the objects at the top of stacks whose category is unknown.
    pub unsupported: Vec<String>,
}

/// What the model says, per section. `Err` = the section cannot be derived yet, with the
/// classes that stop it.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SceneAccount {
    /// Node names without the root, in storage order.
    pub objects: Vec<String>,
    /// Scene Totals.
    pub totals: DerivedTotals,
    /// Plug-in files.
    pub plugins: Vec<String>,
    /// External files: the asset table's file names, or why not.
    pub dependencies: Result<Vec<String>, Vec<String>>,
    /// Material names (see [`materials`]).
    pub materials: Vec<String>,
    /// Render size and range as Max's Render Data lines, or the classes that stop it.
    pub render: Result<Vec<String>, Vec<String>>,
    /// Mesh totals (vertices, faces) from the OBJ export, or why not.
    pub mesh: Result<(u64, u64), Vec<String>>,
    /// Nodes (storage index) by category, for the detail.
    #[serde(skip)]
    pub categories: BTreeMap<usize, Category>,
}

/// A node's Scene Totals category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub enum Category {
    /// Geometry.
    Objects,
    /// Splines.
    Shapes,
    /// Lights.
    Lights,
    /// Cameras.
    Cameras,
    /// Helpers.
    Helpers,
    /// Space warps.
    SpaceWarps,
}

/// Why the account could not be built at all.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SummaryError {
    /// The Scene stream is not a chunk tree with a root container.
    #[error("Scene is not a readable chunk tree")]
    NoScene,
}

/// Derives the account of `file` from the typed model.
pub fn account(file: &MaxFile) -> Result<SceneAccount, SummaryError> {
    let trees = SceneTrees::of(file).ok_or(SummaryError::NoScene)?;
    let index = trees.index().ok_or(SummaryError::NoScene)?;
    let mut account = account_of(&index);
    account.dependencies = dependencies(file);
    Ok(account)
}

/// External files: the distinct file names of the asset table (`FileAssetMetaData3`/`2`),
/// every asset type, in stored order. Files without an asset table (Max 2009 and older) are
/// unsupported: their dependencies live in the texmaps (`3dsmax` placeholders in Max 9).
pub fn dependencies(file: &MaxFile) -> Result<Vec<String>, Vec<String>> {
    let table = crate::model::assets::of(file).ok_or_else(|| vec!["no FileAssetMetaData stream".to_string()])?;
    if let Some(at) = table.stopped_at {
        return Err(vec![format!("asset table unreadable at byte {at}")]);
    }
    // Max lists a file name once, whatever folders the table holds it under
    // (`public/nekidaem__01-teapot_no_cams_vray.max`: two BARK5.jpg records, one line).
    let mut names: Vec<String> = Vec::new();
    for a in &table.assets {
        if !names
            .iter()
            .any(|n| n.eq_ignore_ascii_case(a.file_name()) || n.to_lowercase() == a.file_name().to_lowercase())
        {
            names.push(a.file_name().to_string());
        }
    }
    Ok(names)
}

fn is_scene_node(o: &SceneObject<'_>) -> bool {
    o.class.as_ref().is_some_and(|c| c.class_id == NODE_IMPL && c.superclass == 1)
}

/// The account of a resolved Scene.
pub fn account_of(index: &SceneIndex<'_>) -> SceneAccount {
    let mut out = SceneAccount {
        objects: Vec::new(),
        totals: DerivedTotals::default(),
        plugins: Vec::new(),
        dependencies: Err(Vec::new()),
        materials: Vec::new(),
        render: Err(Vec::new()),
        mesh: Err(Vec::new()),
        categories: BTreeMap::new(),
    };
    for node in index.objects.iter().filter(|o| is_scene_node(o)) {
        out.objects.push(node.node_name().unwrap_or_default());
        match category(index, node) {
            Ok(Some(c)) => {
                out.categories.insert(node.storage_index, c);
                out.totals.counts[c as usize] += 1;
                out.totals.counts[6] += 1;
            }
            Ok(None) => {}
            Err(class) => out.totals.unsupported.push(class),
        }
    }
    // Max's Used Plug-Ins is the DllDirectory's file names in stored order, case kept
    // (236 of 236 readable real files).
    out.plugins = index.directories.dlls.iter().map(|d| d.file.clone()).collect();
    out.materials = materials(index);
    out.render = render(index);
    out.mesh = mesh_totals(index);
    out
}

/// Superclass of materials (`MATERIAL_CLASS_ID`).
pub const MATERIAL_SUPERCLASS: u32 = 0x0c00;
/// Node reference slot of the material (slot 0 = transform, 1 = object).
pub const NODE_MATERIAL_SLOT: usize = 3;
/// MtlBase header children: name (UTF-16) and flags.
const MTL_NAME: u16 = 0x4001;
const MTL_FLAGS: u16 = 0x4003;

/// Material names as Max lists them: from every node's material (reference slot 3), the
/// materials reachable through references (sub-materials of Multi/Sub-Object, blends …),
/// each instance once, children before their parent. A material's name is the 0x4001
/// child of its MtlBase header: the direct child container that holds 0x4001 and 0x4003
/// (0x4000 in Standard, 0x5431 in VRayMtl — measured, not a fixed id).
pub fn materials(index: &SceneIndex<'_>) -> Vec<String> {
    let mut seen = vec![false; index.objects.len()];
    let mut out = Vec::new();
    for node in index.objects.iter().filter(|o| is_scene_node(o)) {
        if let Some(m) = node.reference(NODE_MATERIAL_SLOT) {
            visit_material(index, m, &mut seen, &mut out);
        }
    }
    out
}

fn visit_material(index: &SceneIndex<'_>, start: usize, seen: &mut [bool], out: &mut Vec<String>) {
    // Iterative post-order walk (bounded by the object count; no recursion on hostile input).
    let mut stack: Vec<(usize, bool)> = vec![(start, false)];
    while let Some((i, children_done)) = stack.pop() {
        let Some(o) = index.get(i) else { continue };
        if children_done {
            if o.class.as_ref().is_some_and(|c| c.superclass == MATERIAL_SUPERCLASS) {
                out.push(mtl_name(o).unwrap_or_default());
            }
            continue;
        }
        if std::mem::replace(&mut seen[i], true) || o.is_node() {
            continue;
        }
        stack.push((i, true));
        let mut targets: Vec<usize> = o.references().into_iter().filter_map(|(_, t)| t).collect();
        targets.reverse();
        stack.extend(targets.into_iter().map(|t| (t, false)));
    }
}

fn mtl_name(o: &SceneObject<'_>) -> Option<String> {
    o.chunk
        .children()
        .iter()
        .find(|c| c.is_container() && c.child(MTL_NAME).is_some() && c.child(MTL_FLAGS).is_some())
        .and_then(|c| c.child(MTL_NAME))
        .and_then(crate::chunk::Chunk::payload)
        .map(crate::model::utf16)
}

/// RenderEnvironment (Class ID 0xEE448B23:0): holds the render settings.
pub const RENDER_ENVIRONMENT: [u32; 2] = [0xee44_8b23, 0];
/// Ticks per frame at Max's default 30 frames per second.
pub const TICKS_PER_FRAME: i64 = 160;

/// Render Width / Height and Animation Start / End, from RenderEnvironment 0x110/0x2000:
/// 0x190 width, 0x200 height, 0x100 time type, 0x110 / 0x120 range start / end in ticks.
/// Time type (low byte) 1 = single frame (Max writes 0 and 0), 2 = active segment as
/// stored, 4 = range as stored, 3 = the scene's active time segment (stored elsewhere:
/// unsupported); 0 (one Max 8 file) reads as a single frame.
pub fn render(index: &SceneIndex<'_>) -> Result<Vec<String>, Vec<String>> {
    let settings = index
        .objects
        .iter()
        .filter(|o| o.class.as_ref().is_some_and(|c| c.class_id == RENDER_ENVIRONMENT))
        .find_map(|o| o.chunk.child(0x110)?.child(0x2000))
        .ok_or_else(|| vec!["RenderEnvironment settings (0x110/0x2000) not found".to_string()])?;
    let int = |id: u16| -> Option<i64> {
        let p = settings.child(id)?.payload().filter(|p| p.len() == 4)?;
        Some(i64::from(i32::from_le_bytes([p[0], p[1], p[2], p[3]])))
    };
    let missing = |what: &str| vec![format!("RenderEnvironment {what} not stored")];
    let width = int(0x190).ok_or_else(|| missing("width 0x190"))?;
    let height = int(0x200).ok_or_else(|| missing("height 0x200"))?;
    let kind = int(0x100).ok_or_else(|| missing("time type 0x100"))?;
    let (start, end) = match kind & 0xff {
        0 | 1 => (0, 0),
        2 | 4 => {
            let start = int(0x110).ok_or_else(|| missing("range start 0x110"))?;
            let end = int(0x120).ok_or_else(|| missing("range end 0x120"))?;
            (start / TICKS_PER_FRAME, end / TICKS_PER_FRAME)
        }
        other => return Err(vec![format!("render time type {other} (scene animation range)")]),
    };
    Ok(vec![
        format!("Render Width={width}"),
        format!("Render Height={height}"),
        format!("Animation Start={start}"),
        format!("Animation End={end}"),
    ])
}

/// The category of a node from the object at the top of its stack: the base object's
/// superclass, turned into Objects by a geometry-making modifier above a shape. `Ok(None)`
/// for a node without an object; `Err(class)` when the superclass is none of the six.
fn category(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Result<Option<Category>, String> {
    let Some((current, modifiers)) = stack(index, node) else { return Ok(None) };
    let makes_geometry = modifiers
        .iter()
        .any(|m| m.class.as_ref().is_some_and(|c| GEOMETRY_MAKING_MODIFIERS.iter().any(|(id, _)| *id == c.class_id)));
    let Some(class) = &current.class else { return Err(format!("<class of chunk 0x{:04x}>", current.chunk.id)) };
    let category = match class.superclass {
        superclass::GEOMOBJECT => Category::Objects,
        superclass::SHAPE if makes_geometry => Category::Objects,
        superclass::SHAPE => Category::Shapes,
        superclass::LIGHT => Category::Lights,
        superclass::CAMERA => Category::Cameras,
        superclass::HELPER => Category::Helpers,
        superclass::WSM_OBJECT => Category::SpaceWarps,
        _ => return Err(class.name.clone()),
    };
    Ok(Some(category))
}

/// Mesh totals from pmcore's evaluated meshes (base object + modifier stack, `crate::eval`),
/// faces under each node's face rule as Max counts them (polygons for Editable Poly,
/// triangles for Editable Mesh and primitives; measured on the pairs); count-only above the
/// memory budget. A node whose evaluation stopped makes the totals incomplete: the section
/// is then unsupported, naming the classes that stopped it (by Class ID).
fn mesh_totals(index: &SceneIndex<'_>) -> Result<(u64, u64), Vec<String>> {
    let nodes = crate::eval::evaluate_index(index, crate::eval::DEFAULT_BUDGET_VERTICES, false);
    let totals = crate::eval::totals_of(&nodes);
    if !totals.stopped.is_empty() {
        let mut blocking: Vec<String> =
            totals.stopped.iter().map(|s| format!("{} ({})", s.class_name, s.class_id)).collect();
        blocking.sort();
        blocking.dedup();
        return Err(blocking);
    }
    Ok((totals.vertices, totals.faces))
}

/// A node's base object and the modifiers above it (through OSM/WSM derived objects, last
/// reference = the object below); bounded by the object count.
fn stack<'b, 'a>(
    index: &'b SceneIndex<'a>,
    node: &SceneObject<'a>,
) -> Option<(&'b SceneObject<'a>, Vec<&'b SceneObject<'a>>)> {
    let mut current = index.get(node.reference(1)?)?;
    let mut modifiers = Vec::new();
    for _ in 0..index.objects.len() {
        if !matches!(current.chunk.id, OSM_DERIVED | WSM_DERIVED) {
            return Some((current, modifiers));
        }
        let refs: Vec<usize> = current.references().into_iter().filter_map(|(_, t)| t).collect();
        let (&last, rest) = refs.split_last()?;
        modifiers.extend(rest.iter().filter_map(|&m| index.get(m)));
        current = index.get(last)?;
    }
    None
}

/// Sections compared, in Max's order, with their result names (`summary/<name>`).
pub const SECTIONS: [&str; 7] =
    ["objects", "scene-totals", "plugins", "materials", "dependencies", "render", "mesh-totals"];

/// A section's verdict.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "status")]
pub enum SectionOutcome {
    /// Equal.
    Pass,
    /// Different: the first difference.
    Fail {
        /// The first difference, in words.
        first_difference: String,
    },
    /// Not compared: `absent-in-file` or `unsupported: <classes>`.
    Skip {
        /// Why.
        reason: String,
    },
}

/// One section compared.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SectionVerdict {
    /// Section name (see [`SECTIONS`]).
    pub section: &'static str,
    /// Verdict.
    pub outcome: SectionOutcome,
    /// Max's value, as lines (absent when the file lacks the section).
    pub max: Option<Vec<String>>,
    /// Ours, as lines (absent when not derived).
    pub ours: Option<Vec<String>>,
    /// Multisets only: whether the order agrees too (reported, not judged).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub same_order: Option<bool>,
}

fn skip(section: &'static str, reason: impl Into<String>, max: Option<Vec<String>>) -> SectionVerdict {
    SectionVerdict {
        section,
        outcome: SectionOutcome::Skip { reason: reason.into() },
        max,
        ours: None,
        same_order: None,
    }
}

fn absent(section: &'static str) -> SectionVerdict {
    skip(section, "absent-in-file", None)
}

fn unsupported(section: &'static str, classes: &[String], max: Vec<String>) -> SectionVerdict {
    skip(section, format!("unsupported: {}", classes.join(", ")), Some(max))
}

/// Compares Max's account with ours, one verdict per section of [`SECTIONS`].
pub fn compare(max: &DocSummary, ours: Result<&SceneAccount, &SummaryError>) -> Vec<SectionVerdict> {
    let ours = match ours {
        Ok(a) => a,
        Err(e) => {
            let present = present_sections(max);
            return SECTIONS
                .iter()
                .map(|&s| if present.contains(&s) { unsupported(s, &[e.to_string()], Vec::new()) } else { absent(s) })
                .collect();
        }
    };
    vec![
        match &max.objects {
            None => absent("objects"),
            Some(names) => multiset("objects", names, &ours.objects),
        },
        match &max.scene_totals {
            None => absent("scene-totals"),
            Some(t) => totals(t, &ours.totals),
        },
        match &max.plugins {
            None => absent("plugins"),
            Some(files) => multiset("plugins", files, &ours.plugins),
        },
        match &max.materials {
            None => absent("materials"),
            Some(names) => multiset("materials", names, &ours.materials),
        },
        match &max.dependencies {
            None => absent("dependencies"),
            Some(files) => match &ours.dependencies {
                Err(classes) => unsupported("dependencies", classes, files.clone()),
                // Windows file names: compared without case (Max 2015+ writes them lower-cased).
                Ok(mine) => {
                    let lower = |l: &[String]| l.iter().map(|f| f.to_lowercase()).collect::<Vec<_>>();
                    let mut v = multiset("dependencies", &lower(files), &lower(mine));
                    (v.max, v.ours) = (Some(files.clone()), Some(mine.clone()));
                    v
                }
            },
        },
        match &max.render {
            None => absent("render"),
            Some(r) => {
                let keys = ["Render Width", "Render Height", "Animation Start", "Animation End"];
                let theirs: Vec<String> =
                    keys.iter().map(|k| format!("{k}={}", r.get(k).unwrap_or("<absent>"))).collect();
                match &ours.render {
                    Err(classes) => unsupported("render", classes, theirs),
                    Ok(mine) => lines_equal("render", theirs, mine.clone()),
                }
            }
        },
        match &max.mesh_totals {
            None => absent("mesh-totals"),
            Some(m) => {
                let theirs = vec![format!("Vertices: {}", m.vertices), format!("Faces: {}", m.faces)];
                match &ours.mesh {
                    Err(classes) => unsupported("mesh-totals", classes, theirs),
                    Ok((v, f)) => {
                        let mine = vec![format!("Vertices: {v}"), format!("Faces: {f}")];
                        lines_equal("mesh-totals", theirs, mine)
                    }
                }
            }
        },
    ]
}

fn present_sections(max: &DocSummary) -> Vec<&'static str> {
    let mut out = Vec::new();
    let flags = [
        max.objects.is_some(),
        max.scene_totals.is_some(),
        max.plugins.is_some(),
        max.materials.is_some(),
        max.dependencies.is_some(),
        max.render.is_some(),
        max.mesh_totals.is_some(),
    ];
    for (s, present) in SECTIONS.iter().zip(flags) {
        if present {
            out.push(*s);
        }
    }
    out
}

fn totals(max: &SceneTotals, ours: &DerivedTotals) -> SectionVerdict {
    let theirs: Vec<String> = SceneTotals::NAMES.iter().zip(max.values()).map(|(n, v)| format!("{n}: {v}")).collect();
    if !ours.unsupported.is_empty() {
        let mut classes = ours.unsupported.clone();
        classes.sort();
        classes.dedup();
        return unsupported("scene-totals", &classes, theirs);
    }
    let mine = SceneTotals::NAMES.iter().zip(ours.counts).map(|(n, v)| format!("{n}: {v}")).collect();
    lines_equal("scene-totals", theirs, mine)
}

/// Line lists compared in order.
fn lines_equal(section: &'static str, max: Vec<String>, ours: Vec<String>) -> SectionVerdict {
    let first = max
        .iter()
        .zip(&ours)
        .position(|(a, b)| a != b)
        .or((max.len() != ours.len()).then(|| max.len().min(ours.len())));
    let outcome = match first {
        None => SectionOutcome::Pass,
        Some(i) => SectionOutcome::Fail {
            first_difference: format!(
                "line {i}: Max {:?}, ours {:?}",
                max.get(i).map(String::as_str).unwrap_or("<none>"),
                ours.get(i).map(String::as_str).unwrap_or("<none>")
            ),
        },
    };
    SectionVerdict { section, outcome, max: Some(max), ours: Some(ours), same_order: None }
}

/// Name lists compared as multisets; the order is reported, not judged.
fn multiset(section: &'static str, max: &[String], ours: &[String]) -> SectionVerdict {
    fn count(list: &[String]) -> BTreeMap<&str, i64> {
        let mut m: BTreeMap<&str, i64> = BTreeMap::new();
        list.iter().for_each(|n| *m.entry(n.as_str()).or_default() += 1);
        m
    }
    let (a, b) = (count(max), count(ours));
    let mut difference = None;
    // First difference in Max's order, then in ours.
    for name in max.iter().chain(ours).map(String::as_str) {
        let (x, y) = (a.get(name).copied().unwrap_or(0), b.get(name).copied().unwrap_or(0));
        if x != y {
            difference = Some(format!("{name:?}: {x} in Max's list, {y} in ours"));
            break;
        }
    }
    let outcome = match difference {
        None => SectionOutcome::Pass,
        Some(first_difference) => SectionOutcome::Fail { first_difference },
    };
    SectionVerdict {
        section,
        outcome,
        max: Some(max.to_vec()),
        ours: Some(ours.to_vec()),
        same_order: Some(max == ours),
    }
}
