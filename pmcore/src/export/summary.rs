//! The `summary` exporter: the account of a scene that 3ds Max writes into its document
//! summary at save time, derived here from pmcore's typed model **only** (directories, the
//! resolved Scene, the OBJ exporter), never from the property set. [`compare`] then sets it
//! against Max's own account ([`DocSummary`]) section by section: that is a T3 whose
//! reference every real `.max` file carries.
//!
//! Max's rules, as measured on the real corpora, are documented in `docs/exporters.md`.

use crate::classes::ids::superclass;
use crate::facts::doc_summary::{DocSummary, SceneTotals};
use crate::model::scene_index::{SceneIndex, SceneObject, SceneTrees, NODE_IMPL, OSM_DERIVED, WSM_DERIVED};
use crate::model::scene_use::SceneUse;
use crate::model::time_config::TimeConfig;
use crate::MaxFile;
use std::collections::BTreeMap;

/// Scene Totals as derived, with the nodes whose category could not be decided.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub(crate) struct DerivedTotals {
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
    pub(crate) totals: DerivedTotals,
    /// Plug-in files.
    pub plugins: Vec<String>,
    /// External files: the asset table's file names, or why not.
    pub dependencies: Result<Vec<String>, Vec<String>>,
    /// Material names (see [`materials`]), or the classes whose names cannot be read.
    pub materials: Result<Vec<String>, Vec<String>>,
    /// Render size and range as Max's Render Data lines, or the classes that stop it.
    pub render: Result<Vec<String>, Vec<String>>,
    /// Mesh totals (vertices, faces) from the OBJ export, or why not.
    pub mesh: Result<(u64, u64), Vec<String>>,
    /// Nodes (storage index) by category, for the detail.
    #[serde(skip)]
    pub(crate) categories: BTreeMap<usize, Category>,
}

/// A node's Scene Totals category.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub(crate) enum Category {
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
    account_with(file, &SceneTrees::of(file).ok_or(SummaryError::NoScene)?)
}

/// [`account`] on Scene trees already parsed from `file` (the worker's, kept from T1).
pub fn account_with(file: &MaxFile, trees: &SceneTrees<'_>) -> Result<SceneAccount, SummaryError> {
    let index = trees.index().ok_or(SummaryError::NoScene)?;
    let mut account = account_of(&index, &TimeConfig::of(file));
    account.dependencies = dependencies(file, &index);
    Ok(account)
}

/// Asset types Max leaves out of External Dependencies: `Other` (OSL shader sources of
/// OSL maps, `pairs/MichaelDonalGallagher__3D-Modelling/Battery.max`: seven in the table,
/// none listed).
const UNLISTED_ASSET_TYPES: &[&str] = &["Other"];

/// External files as Max lists them: the distinct file names (without folders, without
/// case) of the asset table (`FileAssetMetaData3` / `2`) that the scene uses. An asset is
/// used when a Scene object stores its GUID (a Bitmap's ParamBlock2, a DirectX Shader, a
/// WaveObject, …) — except when the only such objects are the render environment itself
/// (its background file, never listed) or hang below a left-over material-library entry
/// (Unwrap UVW's `UV_Checker.png`); assets of type `Other` are never listed. Files
/// without an asset table (Max 2009 and older) are unsupported.
pub(crate) fn dependencies(file: &MaxFile, index: &SceneIndex<'_>) -> Result<Vec<String>, Vec<String>> {
    let table =
        crate::model::assets::of(file).ok_or_else(|| vec!["no asset table (Max 2009 and older)".to_string()])?;
    if let Some(at) = table.stopped_at {
        return Err(vec![format!("asset table unreadable at byte {at}")]);
    }
    let usage = SceneUse::of(index).map_err(|e| vec![e])?;
    let ids: Vec<[u8; 16]> = table.assets.iter().map(|a| a.guid).collect();
    let holders = crate::model::scene_use::holders_of(index, &ids);
    let is_environment =
        |h: &usize| index.get(*h).and_then(|o| o.class.as_ref()).is_some_and(|c| c.class_id == RENDER_ENVIRONMENT);
    // Max lists a file name once, whatever folders the table holds it under
    // (`public/nekidaem__01-teapot_no_cams_vray.max`: two BARK5.jpg records, one line).
    let mut names: Vec<String> = Vec::new();
    for (asset, holders) in table.assets.iter().zip(&holders) {
        let listed = !UNLISTED_ASSET_TYPES.contains(&asset.kind.as_str())
            && !holders.is_empty()
            && !holders.iter().all(is_environment)
            && !holders.iter().all(|&h| usage.only_left_over(h));
        if listed && !names.iter().any(|n| n.to_lowercase() == asset.file_name().to_lowercase()) {
            names.push(asset.file_name().to_string());
        }
    }
    Ok(names)
}

fn is_scene_node(o: &SceneObject<'_>) -> bool {
    o.class.as_ref().is_some_and(|c| c.class_id == NODE_IMPL && c.superclass == 1)
}

/// The account of a resolved Scene.
pub(crate) fn account_of(index: &SceneIndex<'_>, time: &Result<TimeConfig, String>) -> SceneAccount {
    let mut out = SceneAccount {
        objects: Vec::new(),
        totals: DerivedTotals::default(),
        plugins: Vec::new(),
        dependencies: Err(Vec::new()),
        materials: Err(Vec::new()),
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
    out.render = render(index, time);
    out.mesh = mesh_totals(index);
    out
}

/// MtlBase header children: name (UTF-16) and flags; Max 3 writes the flags as 0x4002
/// (`nel/max/ryzom__road_flag.max`: 0x4000 holds 0x4001, 0x4002, 0x4020, 0x4030).
const MTL_NAME: u16 = 0x4001;
const MTL_FLAGS: u16 = 0x4003;
const MTL_FLAGS_MAX3: u16 = 0x4002;

/// Material names as Max lists them: the entries of the scene material library (SceneImpl
/// reference slot 1, `MtlBaseLib` 0x3333:0) in stored order — materials and texmaps alike
/// (environment maps such as `Map #0`, `DefaultVRaySky`) — except entries no other Scene
/// object references (left over: Unwrap UVW's `uvchecker_mat`, Max 2017–2019 files); Max 4
/// and older (Scene root ≤ 0x2006) list those too (`nel/max/skeetmtp__snow_island.max`: two
/// Multi/Sub-Objects `neige` only the library holds). No real file between them holds a
/// left-over entry; they get the newer rule. Sub-materials are listed only when
/// the library holds them. A name is the MtlBase header's 0x4001 (see [`mtl_name`]); an
/// entry whose name cannot be read makes the section unsupported, naming its class — so
/// does a scripted material in a Max 4 file (see [`max4_scripted_name`]).
pub(crate) fn materials(index: &SceneIndex<'_>) -> Result<Vec<String>, Vec<String>> {
    let usage = SceneUse::of(index).map_err(|e| vec![e])?;
    let lists_left_over = index.root_id <= MAX4_ROOT;
    let mut names = Vec::new();
    let mut unreadable = Vec::new();
    for &(entry, _) in usage.entries.iter().filter(|(_, used)| *used || lists_left_over) {
        match index.get(entry) {
            Some(o) if max4_scripted_name(index, o) => unreadable.push(format!(
                "{}: scripted material in a Max 4 file, listed under a name the file does not store",
                class_label(o)
            )),
            Some(o) => match mtl_name(o) {
                Some(name) => names.push(name),
                None => unreadable.push(format!("{}: material name not found", class_label(o))),
            },
            None => unreadable.push(format!("library entry {entry} outside the Scene")),
        }
    }
    if unreadable.is_empty() {
        Ok(names)
    } else {
        unreadable.sort();
        unreadable.dedup();
        Err(unreadable)
    }
}

/// True for a scripted material (its MtlBase header is the object chunk itself, see
/// [`mtl_header`]) in a Max 4 file or older. Max 4 lists such a material under a fresh
/// `Material #N` that no stream holds, N differing from file to file while the stored
/// name is the same: NeL Material (0x64C75FEC:0x222B9EB9) stores `Material #87` in
/// `nel/max/skeetmtp__snow_island.max`, `snow_island2`, `snow_island3` and `snow_ramp`,
/// whose summaries name it `Material #25`, `#26`, `#29` and `#47`. From Max 6 on the stored
/// name is the listed one (`skeetmtp__snow_bowl.max`, `water_light.max`: NeL Material;
/// `pairs/…/Shotgun.max`: PBR Material).
fn max4_scripted_name(index: &SceneIndex<'_>, o: &SceneObject<'_>) -> bool {
    index.root_id <= MAX4_ROOT && mtl_header(o).is_some_and(|h| std::ptr::eq(h, o.chunk))
}

fn class_label(o: &SceneObject<'_>) -> String {
    match &o.class {
        Some(c) => format!("{} ({:#x}:{:#x})", c.name, c.class_id[0], c.class_id[1]),
        None => format!("<class of chunk 0x{:04x}>", o.chunk.id),
    }
}

/// A material's or texmap's MtlBase header: the chunk holding 0x4001 and 0x4003 — a direct
/// child container of the object (0x4000 in Standard, 0x5431 in VRayMtl: measured, not a
/// fixed id), else such a container with Max 3's 0x4002 flags, else the object chunk itself
/// (scripted materials such as PBR Material 0xD00F1E00:0xBE77E500,
/// `pairs/RicoBarrett__3DSMax/…/Shotgun.max`).
fn mtl_header<'a>(o: &SceneObject<'a>) -> Option<&'a crate::chunk::Chunk<'a>> {
    let holds = |c: &crate::chunk::Chunk<'_>, flags: u16| c.child(MTL_NAME).is_some() && c.child(flags).is_some();
    // The header container first: some texmaps (OSL Map) hold other 0x4001/0x4003 chunks
    // at their top level (`wild/ricobarrett__meetingtable.max`).
    let containers = || o.chunk.children().iter().filter(|c| c.is_container());
    containers()
        .find(|c| holds(c, MTL_FLAGS))
        .or_else(|| containers().find(|c| holds(c, MTL_FLAGS_MAX3)))
        .or_else(|| holds(o.chunk, MTL_FLAGS).then_some(o.chunk))
}

/// A material's or texmap's name: 0x4001 of its MtlBase header ([`mtl_header`]).
pub(crate) fn mtl_name(o: &SceneObject<'_>) -> Option<String> {
    mtl_header(o).and_then(|h| h.child(MTL_NAME)).and_then(crate::chunk::Chunk::payload).map(crate::model::utf16)
}

/// RenderEnvironment (Class ID 0xEE448B23:0): holds the render settings.
pub(crate) use crate::classes::ids::RENDER_ENVIRONMENT;

/// Scene root chunk id of Max 4 (`facts::version`): files this old (and older) follow
/// Max 4's summary rules, which differ from Max 6 on (render range, material library).
pub(crate) const MAX4_ROOT: u16 = 0x2006;

/// Render Width / Height and Animation Start / End, from RenderEnvironment 0x110/0x2000:
/// 0x190 width, 0x200 height, 0x100 time type (the render dialog's Time Output), 0x110 /
/// 0x120 its range start / end in ticks; frames at the scene's frame rate (Config 0x20B0,
/// [`TimeConfig`]). Time type (low byte): 1 single frame — Max names the animation range's
/// start twice; 2 active time segment — the animation range; 3 range, 4 frames — the
/// stored range; 0 (one Max 2020 file) reads as a single frame. For a single frame, Max 4
/// and older (Scene root ≤ 0x2006) name the whole animation range (12 NeL files).
pub(crate) fn render(index: &SceneIndex<'_>, time: &Result<TimeConfig, String>) -> Result<Vec<String>, Vec<String>> {
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
    let time = time.as_ref().map_err(|e| vec![e.clone()])?;
    let (start, end) = match kind & 0xff {
        0 | 1 if index.root_id <= MAX4_ROOT => (time.start, time.end),
        0 | 1 => (time.start, time.start),
        2 => (time.start, time.end),
        3 | 4 => {
            let start = int(0x110).ok_or_else(|| missing("range start 0x110"))?;
            let end = int(0x120).ok_or_else(|| missing("range end 0x120"))?;
            (start, end)
        }
        other => return Err(vec![format!("render time type {other}")]),
    };
    Ok(vec![
        format!("Render Width={width}"),
        format!("Render Height={height}"),
        format!("Animation Start={}", time.frame(start)),
        format!("Animation End={}", time.frame(end)),
    ])
}

/// The category of a node from the object at the top of its stack: the base object's
/// superclass, turned into Objects by a geometry-making modifier above a shape. `Ok(None)`
/// for a node without an object; `Err(class)` when the superclass is none of the six.
fn category(index: &SceneIndex<'_>, node: &SceneObject<'_>) -> Result<Option<Category>, String> {
    let Some((current, modifiers)) = stack(index, node) else { return Ok(None) };
    let makes_geometry =
        modifiers.iter().any(|m| m.class.as_ref().is_some_and(|c| crate::classes::makes_geometry(c.class_id)));
    let Some(class) = &current.class else { return Err(format!("<class of chunk 0x{:04x}>", current.chunk.id)) };
    let category = match class.superclass {
        superclass::GEOM_OBJECT => Category::Objects,
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
    /// The reason classes behind a skip or fail, for ranking over a run: the classes that
    /// stop the derivation (`Edit Poly (0x…)`), `absent-in-file`, or the kind of
    /// difference (`Vertices differ`, `Max lists names ours lacks`). Empty for a pass.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub classes: Vec<String>,
}

fn skip(section: &'static str, reason: String, max: Option<Vec<String>>, classes: Vec<String>) -> SectionVerdict {
    SectionVerdict { section, outcome: SectionOutcome::Skip { reason }, max, ours: None, same_order: None, classes }
}

/// The reason class of a section the file lacks.
pub const ABSENT_IN_FILE: &str = "absent-in-file";

fn absent(section: &'static str) -> SectionVerdict {
    skip(section, ABSENT_IN_FILE.to_string(), None, vec![ABSENT_IN_FILE.to_string()])
}

fn unsupported(section: &'static str, classes: &[String], max: Vec<String>) -> SectionVerdict {
    skip(section, format!("unsupported: {}", classes.join(", ")), Some(max), classes.to_vec())
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
            Some(names) => match &ours.materials {
                Err(classes) => unsupported("materials", classes, names.clone()),
                Ok(mine) => multiset("materials", names, mine),
            },
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
    let (outcome, classes) = match first {
        None => (SectionOutcome::Pass, Vec::new()),
        Some(i) => {
            // The class is the differing line's key (`Vertices: 12` → `Vertices differ`).
            let class = match max.get(i).or(ours.get(i)).and_then(|l| l.split([':', '=']).next()) {
                Some(key) if max.get(i).is_some() && ours.get(i).is_some() => format!("{key} differ"),
                _ => "line count differs".to_string(),
            };
            let first_difference = format!(
                "line {i}: Max {:?}, ours {:?}",
                max.get(i).map(String::as_str).unwrap_or("<none>"),
                ours.get(i).map(String::as_str).unwrap_or("<none>")
            );
            (SectionOutcome::Fail { first_difference }, vec![class])
        }
    };
    SectionVerdict { section, outcome, max: Some(max), ours: Some(ours), same_order: None, classes }
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
    // Classes of a difference: names Max lists more often than we do, and the reverse.
    let mut classes = Vec::new();
    if a.iter().any(|(n, x)| b.get(n).copied().unwrap_or(0) < *x) {
        classes.push("Max lists names ours lacks".to_string());
    }
    if b.iter().any(|(n, y)| a.get(n).copied().unwrap_or(0) < *y) {
        classes.push("ours lists names Max lacks".to_string());
    }
    SectionVerdict {
        section,
        outcome,
        max: Some(max.to_vec()),
        ours: Some(ours.to_vec()),
        same_order: Some(max == ours),
        classes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn a_fail_names_its_reason_class_and_a_pass_none() {
        let v =
            lines_equal("mesh-totals", strings(&["Vertices: 8", "Faces: 12"]), strings(&["Vertices: 8", "Faces: 6"]));
        assert_eq!(v.classes, ["Faces differ"]);
        let v = lines_equal("render", strings(&["Render Width=640"]), strings(&[]));
        assert_eq!(v.classes, ["line count differs"]);
        let v = multiset("materials", &strings(&["a", "b"]), &strings(&["b", "c"]));
        assert_eq!(v.classes, ["Max lists names ours lacks", "ours lists names Max lacks"]);
        let v = multiset("materials", &strings(&["a", "b"]), &strings(&["b", "a"]));
        assert_eq!((v.outcome, v.classes.len(), v.same_order), (SectionOutcome::Pass, 0, Some(false)));
    }

    use crate::chunk::Chunk;
    use crate::model::scene_index::{ResolvedClass, REFS_FLAT};

    fn refs(targets: &[i32]) -> Chunk<'static> {
        Chunk::leaf(REFS_FLAT, targets.iter().flat_map(|t| t.to_le_bytes()).collect::<Vec<u8>>())
    }

    fn utf16(text: &str) -> Vec<u8> {
        text.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn class(name: &str, class_id: [u32; 2], superclass: u32) -> Option<ResolvedClass> {
        Some(ResolvedClass { class_id, superclass, name: name.into(), dll: String::new(), directory_index: None })
    }

    fn index<'a>(root_id: u16, chunks: &'a [Chunk<'static>], classes: Vec<Option<ResolvedClass>>) -> SceneIndex<'a> {
        SceneIndex::of_objects(root_id, chunks, classes)
    }

    /// 0 unused (a reference to object 0 reads as empty); 1 Standard `used` (Max 6 header:
    /// 0x4000 = 0x4001, 0x4003), held by the node; 2 Multi/Sub-Object `old` (Max 3 header:
    /// 0x4000 = 0x4001, 0x4002; 0x4003 at the top), held by the library alone; 3 a scripted
    /// material (header in the object chunk), held by 2; 4 node; 5 the library (entries 1,
    /// 2 and, with `scripted`, 3); 6 SceneImpl.
    fn library_scene(scripted: bool) -> (Vec<Chunk<'static>>, Vec<Option<ResolvedClass>>) {
        let header = |name: &str, flags: u16| {
            Chunk::container(0x4000, vec![Chunk::leaf(MTL_NAME, utf16(name)), Chunk::leaf(flags, vec![0; 4])])
        };
        let entries: &[i32] = if scripted { &[1, 2, 3] } else { &[1, 2] };
        let chunks = vec![
            Chunk::container(1, vec![]),
            Chunk::container(2, vec![refs(&[-1]), header("used", MTL_FLAGS)]),
            Chunk::container(3, vec![refs(&[3]), header("old", MTL_FLAGS_MAX3), Chunk::leaf(MTL_FLAGS, vec![])]),
            Chunk::container(
                4,
                vec![refs(&[-1]), Chunk::leaf(MTL_NAME, utf16("Material #87")), Chunk::leaf(MTL_FLAGS, vec![0; 4])],
            ),
            Chunk::container(5, vec![refs(&[-1, -1, -1, 1])]),
            Chunk::container(6, vec![refs(entries)]),
            Chunk::container(7, vec![refs(&[-1, 5])]),
        ];
        let classes = vec![
            None,
            class("Standard", [2, 0], 0xc00),
            class("Multi/Sub-Object", [0x200, 0], 0xc00),
            class("NeL Material", [0x64c7_5fec, 0x222b_9eb9], 0xc00),
            class("Node", NODE_IMPL, 1),
            class("MtlBaseLib", crate::model::scene_use::MTL_BASE_LIB, 0x100),
            class("Scene", crate::model::scene_use::SCENE_IMPL, 0x100),
        ];
        (chunks, classes)
    }

    #[test]
    fn max4_lists_every_library_entry_and_max6_only_the_referenced_ones() {
        let (chunks, classes) = library_scene(false);
        assert_eq!(materials(&index(0x2009, &chunks, classes.clone())), Ok(strings(&["used"])));
        assert_eq!(materials(&index(0x2006, &chunks, classes)), Ok(strings(&["used", "old"])), "Max 3 header read");
        let (chunks, classes) = library_scene(true);
        assert_eq!(materials(&index(0x2009, &chunks, classes.clone())), Ok(strings(&["used", "Material #87"])));
        let err = materials(&index(0x2006, &chunks, classes)).unwrap_err();
        assert_eq!(err.len(), 1);
        assert!(
            err[0].starts_with("NeL Material (0x64c75fec:0x222b9eb9): scripted material in a Max 4 file"),
            "{err:?}"
        );
    }

    /// A RenderEnvironment whose settings hold time type `kind` and the stored range 0–16000.
    fn render_scene(kind: i32) -> (Vec<Chunk<'static>>, Vec<Option<ResolvedClass>>) {
        let int = |id: u16, v: i32| Chunk::leaf(id, v.to_le_bytes().to_vec());
        let settings =
            vec![int(0x100, 0x500 | kind), int(0x110, 0), int(0x120, 16000), int(0x190, 640), int(0x200, 480)];
        let chunks = vec![Chunk::container(1, vec![Chunk::container(0x110, vec![Chunk::container(0x2000, settings)])])];
        (chunks, vec![class("RenderEnvironment", RENDER_ENVIRONMENT, 0x1010)])
    }

    #[test]
    fn render_frames_follow_the_time_type_the_frame_rate_and_the_release() {
        let range = |root: u16, kind: i32, time: TimeConfig| -> Result<Vec<String>, Vec<String>> {
            let (chunks, classes) = render_scene(kind);
            render(&index(root, &chunks, classes), &Ok(time)).map(|l| l[2..].to_vec())
        };
        let at24 = TimeConfig { frame_rate: 24, start: 200, end: 40000 };
        let at60 = TimeConfig { frame_rate: 60, start: 0, end: 32000 };
        let lines = |s: i64, e: i64| Ok(vec![format!("Animation Start={s}"), format!("Animation End={e}")]);
        assert_eq!(range(0x2025, 1, at24), lines(1, 1), "single frame: the range start, twice");
        assert_eq!(range(0x2025, 0, at24), lines(1, 1));
        assert_eq!(range(0x2006, 1, at24), lines(1, 200), "Max 4 single frame: the whole range");
        assert_eq!(range(0x2025, 2, at60), lines(0, 400), "active segment: the animation range");
        assert_eq!(range(0x2025, 3, at60), lines(0, 200), "range: the stored ticks at 60 fps");
        assert_eq!(range(0x2025, 4, at24), lines(0, 80));
        assert!(range(0x2025, 5, at24).is_err());
        let (chunks, classes) = render_scene(1);
        assert_eq!(
            render(&index(0x2025, &chunks, classes), &Err("no Config stream".into())),
            Err(strings(&["no Config stream"]))
        );
    }

    #[test]
    fn skips_name_their_classes() {
        assert_eq!(absent("render").classes, [ABSENT_IN_FILE]);
        let v = unsupported("mesh-totals", &strings(&["Lathe (0xb0:0x0)", "ProBoolean (0x…)"]), Vec::new());
        assert_eq!(v.classes, ["Lathe (0xb0:0x0)", "ProBoolean (0x…)"]);
        assert_eq!(
            v.outcome,
            SectionOutcome::Skip { reason: "unsupported: Lathe (0xb0:0x0), ProBoolean (0x…)".into() }
        );
    }
}
