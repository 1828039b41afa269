//! Max's own account of the scene, written at save time into `\x05DocumentSummaryInformation`:
//! the heading pairs (heading text, part count) and the document parts beneath them, typed
//! into sections. This is the T3 reference of the `summary` exporter, so it is read from
//! the structure, never from English-only greps:
//! - a heading is recognised by its label in any language the corpora show (English,
//!   Simplified Chinese: `常规`, `网格总计`, …), else by the shape of its parts (the first
//!   heading is General; two `label: integer` parts are Mesh Totals, seven are Scene Totals;
//!   `Key=Value` parts are Render Data);
//! - keys inside a section are matched against the known key sets per language, else by
//!   their position, which is the same in every file measured (241 real files).
//!
//! Measured facts this relies on (public + wild + pairs):
//! - code pages 65001 (210 files), 1200 (27) and 1252 (1: `public/dakahler__room.max`, Max 3);
//! - `wild/mateusz-gosciniak__{dron,patelnia,robot}.max` have a 70-byte set with no headings;
//! - Render Data keys stay English (`Render Width=1280`) even under Chinese headings, and its
//!   heading is `Render Data` in every file (`wild/kelvinleesm__chair.max`);
//! - the release is written with a decimal comma in some locales (`22,00`, `9,0`).

use super::property_set::{headed_parts, Section};

/// The sections Max writes, in the order it writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum SectionKind {
    /// Release, compression flag, build, saved-as version.
    General,
    /// Vertex and face totals.
    MeshTotals,
    /// Node counts by category.
    SceneTotals,
    /// Files the scene uses.
    ExternalDependencies,
    /// Node names.
    Objects,
    /// Material names.
    Materials,
    /// Plug-in files.
    UsedPlugins,
    /// Render size, renderer, animation range, flags.
    RenderData,
}

/// Heading labels per language, as the corpora show them.
const HEADINGS: &[(SectionKind, &[&str])] = &[
    (SectionKind::General, &["General", "常规"]),
    (SectionKind::MeshTotals, &["Mesh Totals", "网格总计"]),
    (SectionKind::SceneTotals, &["Scene Totals", "场景总计"]),
    (SectionKind::ExternalDependencies, &["External Dependencies", "外部从属关系"]),
    (SectionKind::Objects, &["Objects", "对象"]),
    (SectionKind::Materials, &["Materials", "材质"]),
    (SectionKind::UsedPlugins, &["Used Plug-Ins", "使用的插件"]),
    (SectionKind::RenderData, &["Render Data"]),
];

/// General keys per language: release, build, saved-as, and the compression words.
const KEY_RELEASE: &[&str] = &["3ds Max Version", "3ds max Version", "3D Studio MAX Version", "3ds Max 版本"];
const KEY_BUILD: &[&str] = &["Build", "版本"];
const KEY_SAVED_AS: &[&str] = &["Saved As Version", "另存为版本"];
const WORD_COMPRESSED: &[&str] = &["Compressed", "压缩"];
const WORD_UNCOMPRESSED: &[&str] = &["Uncompressed", "未压缩"];

/// Scene Totals keys per language, in Max's order.
const SCENE_TOTAL_KEYS: [&[&str]; 7] = [
    &["Objects", "对象"],
    &["Shapes", "图形"],
    &["Lights", "灯光"],
    &["Cameras", "摄影机"],
    &["Helpers", "辅助对象"],
    &["Space Warps", "空间扭曲"],
    &["Total", "总计"],
];

/// Mesh Totals keys per language, in Max's order.
const MESH_TOTAL_KEYS: [&[&str]; 2] = [&["Vertices", "顶点"], &["Faces", "面数"]];

/// The General section.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct General {
    /// Release that wrote the file with a decimal point (`22.00`, `9.0`).
    pub release: Option<String>,
    /// Release as written (`22,00`).
    pub release_raw: Option<String>,
    /// Build string (`22.0.0.757`, `M100 SC 01`).
    pub build: Option<String>,
    /// Release whose format the file was saved in, with a decimal point.
    pub saved_as: Option<String>,
    /// `Compressed` / `Uncompressed` (in any known language).
    pub compressed: Option<bool>,
}

/// Scene Totals: node counts by category.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct SceneTotals {
    /// Geometry nodes.
    pub objects: u64,
    /// Shape nodes.
    pub shapes: u64,
    /// Light nodes.
    pub lights: u64,
    /// Camera nodes.
    pub cameras: u64,
    /// Helper nodes.
    pub helpers: u64,
    /// Space-warp nodes.
    pub space_warps: u64,
    /// Sum as Max wrote it.
    pub total: u64,
}

impl SceneTotals {
    /// The seven values in Max's order.
    pub fn values(&self) -> [u64; 7] {
        [self.objects, self.shapes, self.lights, self.cameras, self.helpers, self.space_warps, self.total]
    }

    /// English names of the seven values.
    pub(crate) const NAMES: [&'static str; 7] =
        ["Objects", "Shapes", "Lights", "Cameras", "Helpers", "Space Warps", "Total"];
}

/// Mesh Totals.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MeshTotals {
    /// Vertices.
    pub vertices: u64,
    /// Faces (polygons for Editable Poly, triangles for Editable Mesh).
    pub faces: u64,
}

/// Render Data: `Key=Value` pairs in stored order, with the values the summary compares.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct RenderData {
    /// Every pair as stored.
    pub pairs: Vec<(String, String)>,
}

impl RenderData {
    /// Value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
    }

    /// Integer value of `key`.
    pub fn int(&self, key: &str) -> Option<i64> {
        self.get(key)?.trim().parse().ok()
    }
}

/// The whole document summary, typed. A section the file lacks is `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DocSummary {
    /// General.
    pub general: Option<General>,
    /// Mesh Totals.
    pub mesh_totals: Option<MeshTotals>,
    /// Scene Totals.
    pub scene_totals: Option<SceneTotals>,
    /// External Dependencies (file names as written).
    pub dependencies: Option<Vec<String>>,
    /// Node names.
    pub objects: Option<Vec<String>>,
    /// Material names.
    pub materials: Option<Vec<String>>,
    /// Plug-in files.
    pub plugins: Option<Vec<String>>,
    /// Render Data.
    pub render: Option<RenderData>,
    /// Headings recognised neither by label nor by shape, with their parts.
    pub unrecognised: Vec<(String, Vec<String>)>,
    /// Sections whose parts did not have the expected form (heading, why).
    pub malformed: Vec<(String, String)>,
}

impl DocSummary {
    /// Types the heading groups of a parsed `\x05DocumentSummaryInformation`.
    pub fn from_sections(sections: &[Section]) -> DocSummary {
        Self::from_groups(&headed_parts(sections))
    }

    /// Types heading groups (heading text, parts).
    pub(crate) fn from_groups(groups: &[(String, Vec<String>)]) -> DocSummary {
        let mut out = DocSummary::default();
        for (position, (heading, parts)) in groups.iter().enumerate() {
            let Some(kind) = section_kind(heading, parts, position) else {
                out.unrecognised.push((heading.clone(), parts.clone()));
                continue;
            };
            match kind {
                SectionKind::General => out.general = Some(general(parts)),
                SectionKind::MeshTotals => match counted(parts, &MESH_TOTAL_KEYS) {
                    Ok(v) => out.mesh_totals = Some(MeshTotals { vertices: v[0], faces: v[1] }),
                    Err(why) => out.malformed.push((heading.clone(), why)),
                },
                SectionKind::SceneTotals => match counted(parts, &SCENE_TOTAL_KEYS) {
                    Ok(v) => {
                        out.scene_totals = Some(SceneTotals {
                            objects: v[0],
                            shapes: v[1],
                            lights: v[2],
                            cameras: v[3],
                            helpers: v[4],
                            space_warps: v[5],
                            total: v[6],
                        })
                    }
                    Err(why) => out.malformed.push((heading.clone(), why)),
                },
                SectionKind::ExternalDependencies => out.dependencies = Some(parts.clone()),
                SectionKind::Objects => out.objects = Some(parts.clone()),
                SectionKind::Materials => out.materials = Some(parts.clone()),
                SectionKind::UsedPlugins => out.plugins = Some(parts.clone()),
                SectionKind::RenderData => {
                    let pairs = parts
                        .iter()
                        .map(|p| match p.split_once('=') {
                            Some((k, v)) => (k.to_string(), v.to_string()),
                            None => (p.clone(), String::new()),
                        })
                        .collect();
                    out.render = Some(RenderData { pairs })
                }
            }
        }
        out
    }

    /// True when the set holds no heading at all (the three Max 7 files).
    pub fn is_empty(&self) -> bool {
        *self == DocSummary::default()
    }
}

/// Which section a heading is: by label in a known language, else by the shape of its parts.
fn section_kind(heading: &str, parts: &[String], position: usize) -> Option<SectionKind> {
    let heading = heading.trim();
    if let Some((kind, _)) = HEADINGS.iter().find(|(_, labels)| labels.contains(&heading)) {
        return Some(*kind);
    }
    let counts = parts.iter().filter(|p| labelled_count(p).is_some()).count();
    if position == 0 && parts.first().is_some_and(|p| release_of(p).is_some()) {
        Some(SectionKind::General)
    } else if counts == parts.len() && counts == 2 {
        Some(SectionKind::MeshTotals)
    } else if counts == parts.len() && counts == 7 {
        Some(SectionKind::SceneTotals)
    } else if !parts.is_empty() && parts.iter().all(|p| p.contains('=')) {
        Some(SectionKind::RenderData)
    } else {
        None
    }
}

/// Splits `label: value` at the last colon (ASCII or full-width).
fn label_value(part: &str) -> Option<(&str, &str)> {
    let at = part.rfind([':', '：'])?;
    let colon = part[at..].chars().next().map_or(1, char::len_utf8);
    Some((part[..at].trim(), part[at + colon..].trim()))
}

fn labelled_count(part: &str) -> Option<(&str, u64)> {
    let (label, value) = label_value(part)?;
    Some((label, value.parse().ok()?))
}

/// A release number with a decimal point: `22,00` → `22.00`, `9,0` → `9.0`; `None` for
/// anything that is not digits with at most one separator (a build string never passes).
pub fn normalize_release(value: &str) -> Option<String> {
    let value = value.trim();
    let (major, minor) = match value.split_once(['.', ',']) {
        Some((a, b)) => (a, Some(b)),
        None => (value, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(major) || minor.is_some_and(|m| !digits(m)) {
        return None;
    }
    Some(match minor {
        Some(m) => format!("{major}.{m}"),
        None => major.to_string(),
    })
}

fn release_of(part: &str) -> Option<String> {
    normalize_release(label_value(part)?.1)
}

fn general(parts: &[String]) -> General {
    let mut g = General::default();
    for (i, part) in parts.iter().enumerate() {
        let word = part.trim();
        if WORD_UNCOMPRESSED.contains(&word) {
            g.compressed = Some(false);
            continue;
        }
        if WORD_COMPRESSED.contains(&word) {
            g.compressed = Some(true);
            continue;
        }
        let Some((label, value)) = label_value(part) else { continue };
        // Known labels first; the position (release, flag, build, saved-as — the same in
        // every file measured) decides for a label in a language not listed.
        let slot = if KEY_RELEASE.contains(&label) {
            0
        } else if KEY_SAVED_AS.contains(&label) {
            3
        } else if KEY_BUILD.contains(&label) {
            2
        } else {
            i
        };
        match slot {
            0 => {
                g.release_raw = Some(value.to_string());
                g.release = normalize_release(value);
            }
            2 => g.build = Some(value.to_string()),
            3 => g.saved_as = normalize_release(value),
            _ => {}
        }
    }
    g
}

/// Values of a `label: integer` section, by known key per language, else by position.
fn counted<const N: usize>(parts: &[String], keys: &[&[&str]; N]) -> Result<[u64; N], String> {
    if parts.len() != N {
        return Err(format!("{} parts, expected {N}", parts.len()));
    }
    let mut out = [0u64; N];
    let mut filled = [false; N];
    for (i, part) in parts.iter().enumerate() {
        let Some((label, value)) = labelled_count(part) else {
            return Err(format!("part {i} `{part}` is not `label: integer`"));
        };
        let slot = keys.iter().position(|k| k.contains(&label)).unwrap_or(i);
        if std::mem::replace(&mut filled[slot], true) {
            return Err(format!("part {i} `{part}` repeats a key"));
        }
        out[slot] = value;
    }
    Ok(out)
}

#[cfg(test)]
/// The saving release with a decimal point whatever the locale (`18.00`, `22,00` → `22.00`,
/// `9,0` → `9.0`): the number of the release part of General, in any known language, never
/// the build string.
pub(crate) fn saving_release(sections: &[Section]) -> Option<String> {
    DocSummary::from_sections(sections).general?.release
}

#[cfg(test)]
mod tests {
    use super::*;

    fn groups(list: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        list.iter().map(|(h, p)| (h.to_string(), p.iter().map(|s| s.to_string()).collect())).collect()
    }

    #[test]
    fn releases_take_a_point_whatever_the_locale_and_never_the_build() {
        assert_eq!(normalize_release("22,00").as_deref(), Some("22.00"));
        assert_eq!(normalize_release("9,0").as_deref(), Some("9.0"));
        assert_eq!(normalize_release(" 18.00 ").as_deref(), Some("18.00"));
        assert_eq!(normalize_release("22.0.0.757"), None);
        assert_eq!(normalize_release("M100 SC 01"), None);
        assert_eq!(normalize_release(""), None);
    }

    #[test]
    fn chinese_labels_type_like_english_ones() {
        // As written by wild/langwenchong__project.max (headings and keys in Chinese).
        let s = DocSummary::from_groups(&groups(&[
            ("常规", &["3ds Max 版本: 22,00", "未压缩", "版本: 22.0.0.757", "另存为版本: 22,00"]),
            ("网格总计", &["顶点: 805", "面数: 706"]),
            ("场景总计", &["对象: 2", "图形: 4", "灯光: 0", "摄影机: 0", "辅助对象: 0", "空间扭曲: 0", "总计: 6"]),
            ("外部从属关系", &[]),
            ("对象", &["Box001"]),
        ]));
        let g = s.general.unwrap();
        assert_eq!(
            (g.release.as_deref(), g.build.as_deref(), g.saved_as.as_deref(), g.compressed),
            (Some("22.00"), Some("22.0.0.757"), Some("22.00"), Some(false))
        );
        assert_eq!(s.mesh_totals, Some(MeshTotals { vertices: 805, faces: 706 }));
        assert_eq!(s.scene_totals.unwrap().values(), [2, 4, 0, 0, 0, 0, 6]);
        assert_eq!(s.dependencies, Some(vec![]));
        assert_eq!(s.objects, Some(vec!["Box001".to_string()]));
        assert_eq!(s.materials, None);
    }

    #[test]
    fn unknown_languages_fall_back_to_shape_and_position() {
        let s = DocSummary::from_groups(&groups(&[
            ("Allgemein", &["3ds Max-Version: 9,0", "Unkomprimiert", "Build: M100"]),
            ("Netz", &["Scheitel: 8", "Flächen: 6"]),
            ("Szene", &["a: 1", "b: 0", "c: 0", "d: 0", "e: 0", "f: 0", "g: 1"]),
            ("Rendern", &["Render Width=640"]),
            ("Sonstiges", &["x"]),
        ]));
        assert_eq!(s.general.as_ref().and_then(|g| g.release.as_deref()), Some("9.0"));
        assert_eq!(s.general.as_ref().and_then(|g| g.build.as_deref()), Some("M100"));
        assert_eq!(s.mesh_totals, Some(MeshTotals { vertices: 8, faces: 6 }));
        assert_eq!(s.scene_totals.map(|t| t.total), Some(1));
        assert_eq!(s.render.as_ref().and_then(|r| r.int("Render Width")), Some(640));
        assert_eq!(s.unrecognised.len(), 1);
    }

    #[test]
    fn malformed_totals_are_reported_not_guessed() {
        let s = DocSummary::from_groups(&groups(&[("Mesh Totals", &["Vertices: many", "Faces: 2"])]));
        assert_eq!(s.mesh_totals, None);
        assert_eq!(s.malformed.len(), 1);
        assert!(DocSummary::from_groups(&[]).is_empty());
    }
}
