//! Ryzom triage detectors, read from the file's own Scene (never from file names or from
//! DLL names alone): Map Extender modifiers, NeL flares, biped systems and their figure
//! era, plus the directory entries no Scene object uses.
//!
//! A class counts as present only when a Scene object instantiates it: most real files
//! list `biped.dlc` in DllDirectory without holding a biped (corpus_facts.md "Classes"),
//! so a directory entry alone is informational (`unused_entries`), never a detection.
//! Where a value cannot be read from a documented layout it is reported as unread, never
//! guessed (digest §8.1: the ParamBlock2 record layout is partly inferred).

use crate::classes::ids;
use crate::maxfile::MaxFile;
use crate::model::scene_index::{SceneIndex, SceneObject, SceneTrees};
use std::collections::BTreeSet;

/// Map Extender modifier ClassId (`mapext198m3.dlm`, design §9 T3 caveats).
pub(crate) use crate::classes::ids::MAP_EXTENDER as MAPEXT_CLASS;
/// Map Extender superclass: OSModifier.
pub(crate) const MAPEXT_SUPERCLASS: u32 = 0x810;
/// NeL flare scripted plugin, ClassId part A (digest §8.2).
pub(crate) const FLARE_CLASS_A: u32 = 0x4e913532;
/// Biped system root (superclass Object): the one that carries the figure era.
pub(crate) use crate::classes::ids::BIPED_SYSTEM;
/// The four confirmed Biped ClassIds (design §10): system, COM controller, per-part
/// controller, per-part geometry.
pub(crate) const BIPED_CLASSES: [[u32; 2]; 4] =
    [ids::BIPED_SYSTEM, ids::BIPED_COM, ids::BIPED_PART, ids::BIPED_GEOMETRY];
/// Chunk on a biped system object holding the figure-format flag (3 legacy, 0 fresh).
pub(crate) const FIGURE_ERA_CHUNK: u16 = 0x0115;
/// ParamBlock2 ClassId and superclass (digest §8.1).
pub(crate) use crate::classes::ids::PARAM_BLOCK2 as PARAM_BLOCK2_CLASS;
/// ParamBlock2 superclass.
pub(crate) const PARAM_BLOCK2_SUPERCLASS: u32 = 0x82;
/// ParamBlock2 header leaf: owner ClassId (8 bytes) first.
pub(crate) const PB2_OWNER_CHUNK: u16 = 0x000b;
/// ParamBlock2 parameter record leaf.
pub(crate) const PB2_PARAM_CHUNK: u16 = 0x000e;
/// Parameter id of `FirstFlareKeepSize` in the flare's `pblock` (digest §8.2).
pub(crate) const FIRST_FLARE_KEEP_SIZE_PARAM: u16 = 45;
/// ParamType2 code of a boolean (TYPE_BOOL, stored as a 4-byte integer).
pub(crate) const PB2_TYPE_BOOL: u16 = 4;
/// Length of a parameter record with a 4-byte inline value.
const PB2_VALUE_RECORD_LEN: usize = 19;
/// Offset of that inline value.
const PB2_VALUE_OFFSET: usize = 15;
/// NodeImpl reference slot holding the node's object (base object or derived object).
pub(crate) const NODE_OBJECT_SLOT: usize = 1;

/// Where a detected object sits: the node(s) whose object stack holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// Scene storage index of the detected object.
    pub object: usize,
    /// Name of the node whose stack holds it (`node #N` for an unnamed node); `None`
    /// when no node reaches the object.
    pub node: Option<String>,
}

impl Placement {
    /// Node name, or `object #N` when no node holds the object.
    pub fn label(&self) -> String {
        self.node.clone().unwrap_or_else(|| format!("object #{}", self.object))
    }
}

/// One Map Extender modifier on one node: the explicit asset list T3 needs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MapExtHit {
    /// Node and object.
    pub at: Placement,
    /// DLL file name of the class entry.
    pub dll: String,
    /// Class display name of the entry.
    pub class_name: String,
}

/// One NeL flare object on one node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FlareHit {
    /// Node and object.
    pub at: Placement,
    /// `FirstFlareKeepSize` when exactly one well-formed boolean record with id 45 was
    /// found in the flare's own ParamBlock2; `None` = unread.
    pub first_flare_keep_size: Option<bool>,
}

/// Biped systems found in Scene.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BipedReport {
    /// Scene objects of any of the four biped classes.
    pub objects: usize,
    /// Biped system objects (0x9155).
    pub systems: usize,
    /// Raw 0x0115 value per system in storage order (`None` when the chunk is absent or
    /// not a 4-byte integer).
    pub figure_era: Vec<Option<i64>>,
}

/// Which directory an unused entry is listed in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum DirectoryKind {
    /// DllDirectory.
    Dll,
    /// ClassDirectory3 (or an older class directory).
    Class,
}

/// A directory entry no Scene object uses: informational, never a detection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnusedEntry {
    /// Directory.
    pub directory: DirectoryKind,
    /// Position in that directory.
    pub index: usize,
    /// DLL file name or class display name.
    pub name: String,
}

/// Everything the Scene-based detectors found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SceneTriage {
    /// Map Extender modifiers, one per (node, modifier).
    pub mapext: Vec<MapExtHit>,
    /// NeL flares, one per (node, flare object).
    pub flare: Vec<FlareHit>,
    /// Biped systems; `None` when no Scene object is of a biped class.
    pub biped: Option<BipedReport>,
    /// Directory entries nobody instantiates.
    pub unused_entries: Vec<UnusedEntry>,
}

/// Runs the detectors on a file; `None` when its Scene is not a chunk tree with a root
/// container (nothing to detect from).
pub fn detect_file(file: &MaxFile) -> Option<SceneTriage> {
    detect_trees(&SceneTrees::of(file)?)
}

/// [`detect_file`] on Scene trees already parsed (the worker's, kept from T1).
pub fn detect_trees(trees: &SceneTrees<'_>) -> Option<SceneTriage> {
    let index = trees.index()?;
    Some(detect(&index))
}

/// Runs the detectors on a resolved Scene.
pub(crate) fn detect(index: &SceneIndex<'_>) -> SceneTriage {
    let holders = node_holders(index);
    let placements = |object: usize| -> Vec<Placement> {
        let nodes = &holders[object];
        if nodes.is_empty() {
            vec![Placement { object, node: None }]
        } else {
            nodes.iter().map(|n| Placement { object, node: Some(n.clone()) }).collect()
        }
    };
    let mut out = SceneTriage::default();
    let mut biped = BipedReport { objects: 0, systems: 0, figure_era: Vec::new() };
    for o in &index.objects {
        let Some(class) = &o.class else { continue };
        if class.class_id == MAPEXT_CLASS && class.superclass == MAPEXT_SUPERCLASS {
            for at in placements(o.storage_index) {
                out.mapext.push(MapExtHit { at, dll: class.dll.clone(), class_name: class.name.clone() });
            }
        }
        if class.class_id[0] == FLARE_CLASS_A {
            let keep = first_flare_keep_size(index, o);
            for at in placements(o.storage_index) {
                out.flare.push(FlareHit { at, first_flare_keep_size: keep });
            }
        }
        if BIPED_CLASSES.contains(&class.class_id) {
            biped.objects += 1;
            if class.class_id == BIPED_SYSTEM {
                biped.systems += 1;
                biped.figure_era.push(figure_era(o));
            }
        }
    }
    if biped.objects > 0 {
        out.biped = Some(biped);
    }
    out.unused_entries = unused_entries(index);
    out
}

/// For each object, the names of the nodes whose object stack (reference slot 1, then
/// through derived objects) holds it, in node storage order.
fn node_holders(index: &SceneIndex<'_>) -> Vec<Vec<String>> {
    let mut holders: Vec<Vec<String>> = vec![Vec::new(); index.objects.len()];
    for node in index.objects.iter().filter(|o| o.is_node()) {
        let Some(object) = node.reference(NODE_OBJECT_SLOT) else { continue };
        let name = node.node_name().unwrap_or_else(|| format!("node #{}", node.storage_index));
        for held in index.stack_of(object) {
            if !holders[held].contains(&name) {
                holders[held].push(name.clone());
            }
        }
    }
    holders
}

/// Reads `FirstFlareKeepSize` from the ParamBlock2 objects the flare references directly.
/// A ParamBlock2 whose header names another owner class is not the flare's. Only a
/// 19-byte boolean record with id 45 and value 0 or 1 counts; zero or conflicting
/// readings give `None`.
fn first_flare_keep_size(index: &SceneIndex<'_>, flare: &SceneObject<'_>) -> Option<bool> {
    let flare_class = flare.class.as_ref()?.class_id;
    let mut readings = BTreeSet::new();
    for (_, target) in flare.references() {
        let Some(block) = target.and_then(|t| index.get(t)) else { continue };
        let is_pb2 = block
            .class
            .as_ref()
            .is_some_and(|c| c.class_id == PARAM_BLOCK2_CLASS && c.superclass == PARAM_BLOCK2_SUPERCLASS);
        if !is_pb2 {
            continue;
        }
        let owner = block.chunk.child(PB2_OWNER_CHUNK).and_then(|c| c.payload()).filter(|p| p.len() >= 8);
        if let Some(p) = owner {
            let owner_class = [u32_at(p, 0), u32_at(p, 4)];
            if owner_class != flare_class {
                continue;
            }
        }
        for record in block.chunk.children().iter().filter(|c| c.id == PB2_PARAM_CHUNK) {
            let Some(p) = record.payload().filter(|p| p.len() == PB2_VALUE_RECORD_LEN) else { continue };
            let id = u16::from_le_bytes([p[0], p[1]]);
            let kind = u16::from_le_bytes([p[2], p[3]]);
            if id != FIRST_FLARE_KEEP_SIZE_PARAM {
                continue;
            }
            match (kind, u32_at(p, PB2_VALUE_OFFSET)) {
                (PB2_TYPE_BOOL, v @ (0 | 1)) => {
                    readings.insert(v == 1);
                }
                _ => return None, // a record we do not understand: unread, never guessed
            }
        }
    }
    match readings.len() {
        1 => readings.into_iter().next(),
        _ => None,
    }
}

/// Raw figure-era value of a biped system object: its 0x0115 child as a 4-byte integer.
fn figure_era(system: &SceneObject<'_>) -> Option<i64> {
    let p = system.chunk.child(FIGURE_ERA_CHUNK)?.payload()?;
    (p.len() == 4).then(|| i64::from(i32::from_le_bytes([p[0], p[1], p[2], p[3]])))
}

/// Class entries no Scene object instantiates, and DLL entries no instantiated class
/// comes from.
fn unused_entries(index: &SceneIndex<'_>) -> Vec<UnusedEntry> {
    let dirs = &index.directories;
    let mut class_used = vec![false; dirs.classes.len()];
    for o in &index.objects {
        if let Some(i) = o.class.as_ref().and_then(|c| c.directory_index) {
            if let Some(flag) = class_used.get_mut(i) {
                *flag = true;
            }
        }
    }
    let mut dll_used = vec![false; dirs.dlls.len()];
    for (entry, _) in dirs.classes.iter().zip(&class_used).filter(|(_, used)| **used) {
        if let Some(flag) = usize::try_from(entry.dll_index).ok().and_then(|i| dll_used.get_mut(i)) {
            *flag = true;
        }
    }
    let dlls = dirs.dlls.iter().enumerate().filter(|(i, _)| !dll_used[*i]).map(|(index, d)| UnusedEntry {
        directory: DirectoryKind::Dll,
        index,
        name: d.file.clone(),
    });
    let classes = dirs.classes.iter().enumerate().filter(|(i, _)| !class_used[*i]).map(|(index, c)| UnusedEntry {
        directory: DirectoryKind::Class,
        index,
        name: c.name.clone(),
    });
    dlls.chain(classes).collect()
}

fn u32_at(p: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;
    use crate::model::directory::Directories;
    use crate::model::scene_index::{resolve, OSM_DERIVED};

    fn utf16(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn dll(file: &str) -> Chunk<'static> {
        Chunk::container(0x2038, vec![Chunk::leaf(0x2039, utf16("desc")), Chunk::leaf(0x2037, utf16(file))])
    }

    fn class(dll: i32, id: [u32; 2], superclass: u32, name: &str) -> Chunk<'static> {
        let header: Vec<u8> = [dll as u32, id[0], id[1], superclass].iter().flat_map(|v| v.to_le_bytes()).collect();
        Chunk::container(0x2040, vec![Chunk::leaf(0x2060, header), Chunk::leaf(0x2042, utf16(name))])
    }

    fn refs(slots: &[i32]) -> Chunk<'static> {
        Chunk::leaf(0x2034, slots.iter().flat_map(|v| v.to_le_bytes()).collect::<Vec<u8>>())
    }

    fn node(name: &str, object: i32) -> Chunk<'static> {
        Chunk::container(
            0,
            vec![
                Chunk::leaf(0x0960, [0xffu8, 0xff, 0xff, 0xff, 0, 0, 0, 0].to_vec()),
                Chunk::leaf(0x0962, utf16(name)),
                refs(&[-1, object]),
            ],
        )
    }

    fn pb2_record(id: u16, kind: u16, value: u32) -> Chunk<'static> {
        let mut p = Vec::new();
        p.extend(id.to_le_bytes());
        p.extend(kind.to_le_bytes());
        p.extend([0u8; 10]);
        p.push(0x40);
        p.extend(value.to_le_bytes());
        Chunk::leaf(PB2_PARAM_CHUNK, p)
    }

    /// Directories: 0 NodeImpl, 1 MapExt, 2 flare, 3 ParamBlock2, 4 biped system, 5 unused biped COM.
    fn directories() -> (Vec<Chunk<'static>>, Vec<Chunk<'static>>) {
        let dlls = vec![dll("mapext198m3.dlm"), dll("nelflare.ms"), dll("biped.dlc"), dll("unused.dlo")];
        let classes = vec![
            class(-1, [1, 0], 1, "Node"),
            class(0, MAPEXT_CLASS, MAPEXT_SUPERCLASS, "Map Extender"),
            class(-2, [FLARE_CLASS_A, 0x3c2f2307], 0x10, "nel_flare"),
            class(-1, PARAM_BLOCK2_CLASS, PARAM_BLOCK2_SUPERCLASS, "ParamBlock2"),
            class(2, BIPED_SYSTEM, 0x60, "Biped"),
            class(2, [0x9156, 0], 0x9008, "Vertical_Horizontal_Turn"),
        ];
        (dlls, classes)
    }

    fn run(objects: &[Chunk<'static>]) -> SceneTriage {
        let (dlls, classes) = directories();
        let directories = Directories::read(&dlls, &classes);
        let objects = objects
            .iter()
            .enumerate()
            .map(|(i, chunk)| SceneObject { storage_index: i, chunk, class: resolve(chunk.id, &directories) })
            .collect();
        detect(&SceneIndex { root_id: 0x2012, objects, directories })
    }

    fn with_id(mut c: Chunk<'static>, id: u16) -> Chunk<'static> {
        c.id = id;
        c
    }

    #[test]
    fn mapext_on_a_node_stack_is_named_with_its_entry() {
        let scene = vec![
            Chunk::container(0x3fff, vec![]),                   // 0: placeholder, never a target
            with_id(node("Box01", 2), 0),                       // 1: node → derived object
            Chunk::container(OSM_DERIVED, vec![refs(&[4, 3])]), // 2: derived: base 4, modifier 3
            Chunk::container(1, vec![Chunk::leaf(0x0100, vec![0])]), // 3: Map Extender
            Chunk::container(0x3ffe, vec![]),                   // 4: base object (unresolved)
        ];
        let t = run(&scene);
        assert_eq!(t.mapext.len(), 1);
        assert_eq!(t.mapext[0].at, Placement { object: 3, node: Some("Box01".into()) });
        assert_eq!(t.mapext[0].dll, "mapext198m3.dlm");
        assert_eq!(t.mapext[0].class_name, "Map Extender");
        assert!(t.flare.is_empty() && t.biped.is_none());
    }

    #[test]
    fn wrong_superclass_is_not_mapext_and_orphans_are_labelled_by_object() {
        let (dlls, mut classes) = directories();
        classes[1] = class(0, MAPEXT_CLASS, 0x820, "lookalike");
        let directories = Directories::read(&dlls, &classes);
        let chunk = Chunk::container(1, vec![]);
        let objects = vec![SceneObject { storage_index: 0, chunk: &chunk, class: resolve(1, &directories) }];
        assert!(detect(&SceneIndex { root_id: 0x2012, objects, directories }).mapext.is_empty());

        let t = run(&[Chunk::container(0x3fff, vec![]), Chunk::container(1, vec![])]);
        assert_eq!(t.mapext[0].at.label(), "object #1");
    }

    #[test]
    fn flare_keep_size_is_read_only_from_a_well_formed_record() {
        let pb2 = |records: Vec<Chunk<'static>>| {
            let mut owner = Vec::new();
            owner.extend(FLARE_CLASS_A.to_le_bytes());
            owner.extend(0x3c2f2307u32.to_le_bytes());
            owner.extend([0u8; 16]);
            let mut children = vec![Chunk::leaf(PB2_OWNER_CHUNK, owner)];
            children.extend(records);
            Chunk::container(3, children)
        };
        let scene = |block: Chunk<'static>| {
            vec![
                Chunk::container(0x3fff, vec![]),
                with_id(node("Flare01", 2), 0),
                Chunk::container(2, vec![refs(&[3])]),
                block,
            ]
        };
        let t = run(&scene(pb2(vec![pb2_record(44, 4, 0), pb2_record(45, 4, 1)])));
        assert_eq!(t.flare.len(), 1);
        assert_eq!(t.flare[0].at.label(), "Flare01");
        assert_eq!(t.flare[0].first_flare_keep_size, Some(true));
        let t = run(&scene(pb2(vec![pb2_record(45, 4, 0)])));
        assert_eq!(t.flare[0].first_flare_keep_size, Some(false));
        // Unknown type code, out-of-range value, missing record: unread.
        for records in [vec![pb2_record(45, 2, 1)], vec![pb2_record(45, 4, 7)], vec![pb2_record(44, 4, 1)]] {
            assert_eq!(run(&scene(pb2(records))).flare[0].first_flare_keep_size, None);
        }
    }

    #[test]
    fn biped_needs_an_instance_and_reports_each_era() {
        let era = |v: i32| Chunk::leaf(FIGURE_ERA_CHUNK, v.to_le_bytes().to_vec());
        let t = run(&[
            Chunk::container(4, vec![era(3)]),
            Chunk::container(4, vec![era(0)]),
            Chunk::container(4, vec![Chunk::leaf(0x0100, vec![1])]),
        ]);
        let b = t.biped.expect("biped detected");
        assert_eq!((b.objects, b.systems), (3, 3));
        assert_eq!(b.figure_era, vec![Some(3), Some(0), None]);

        // Directory entries alone (biped.dlc, the biped classes) are not a biped.
        let t = run(&[Chunk::container(0x3fff, vec![])]);
        assert!(t.biped.is_none());
        let names: Vec<_> = t.unused_entries.iter().map(|e| e.name.as_str()).collect();
        assert!(names.contains(&"biped.dlc") && names.contains(&"Biped"));
    }

    #[test]
    fn used_entries_are_not_listed_as_unused() {
        let t = run(&[Chunk::container(4, vec![])]);
        assert!(!t.unused_entries.iter().any(|e| e.name == "biped.dlc" || e.name == "Biped"));
        assert!(t.unused_entries.iter().any(|e| e.directory == DirectoryKind::Dll && e.name == "unused.dlo"));
        assert!(t
            .unused_entries
            .iter()
            .any(|e| e.directory == DirectoryKind::Class && e.name == "Vertical_Horizontal_Turn"));
    }
}
