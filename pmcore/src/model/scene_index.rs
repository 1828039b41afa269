//! Read-only index of the Scene: each object (a child of the Scene root container,
//! storage index = position) resolved to its class, with its references and, for nodes,
//! name and parent. Never fails: what cannot be resolved is said so per object.

use super::directory::{ClassEntry, Directories, CLASS_DIRECTORY_STREAMS};
use super::{i32s, utf16};
use crate::chunk::Chunk;
use crate::maxfile::MaxFile;
use crate::parsed::ParsedStreams;

/// Scene object chunk id meaning "OSM Derived" (modifier stack of an object).
pub const OSM_DERIVED: u16 = 0x2032;
/// Scene object chunk id meaning "WSM Derived".
pub const WSM_DERIVED: u16 = 0x2033;
/// ClassId of a NodeImpl (superclass 1).
pub(crate) use crate::classes::ids::NODE_IMPL;
/// Reference chunk, flat form: s32 storage index per slot.
pub(crate) const REFS_FLAT: u16 = 0x2034;
/// Reference chunk, map form: leading s32, then (slot, storage index) pairs.
pub(crate) const REFS_MAP: u16 = 0x2035;
/// NodeImpl parent: u32 parent storage index, u32 flags.
pub(crate) const NODE_PARENT: u16 = 0x0960;
/// NodeImpl name, UTF-16.
pub(crate) const NODE_NAME: u16 = 0x0962;

/// The class an object resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ResolvedClass {
    /// ClassId pair.
    pub class_id: [u32; 2],
    /// SuperClass id.
    pub superclass: u32,
    /// Display name.
    pub name: String,
    /// DLL file name.
    pub dll: String,
    /// ClassDirectory3 index, `None` for the derived-object special ids.
    pub directory_index: Option<usize>,
}

/// One Scene object.
#[derive(Clone, Debug)]
pub struct SceneObject<'a> {
    /// Position among the Scene root's children.
    pub storage_index: usize,
    /// The object's chunk.
    pub chunk: &'a Chunk<'a>,
    /// Its class, or `None` when the chunk id is outside ClassDirectory3.
    pub class: Option<ResolvedClass>,
}

impl SceneObject<'_> {
    /// Reference targets by slot (storage indices; `None` for an empty slot, i.e. −1 or 0).
    pub fn references(&self) -> Vec<(usize, Option<usize>)> {
        if let Some(flat) = self.chunk.child(REFS_FLAT).and_then(Chunk::payload).and_then(i32s) {
            return flat.iter().enumerate().map(|(slot, &v)| (slot, (v > 0).then_some(v as usize))).collect();
        }
        if let Some(map) = self.chunk.child(REFS_MAP).and_then(Chunk::payload).and_then(i32s) {
            return map
                .get(1..)
                .unwrap_or(&[])
                .chunks_exact(2)
                .filter(|p| p[0] >= 0)
                .map(|p| (p[0] as usize, (p[1] > 0).then_some(p[1] as usize)))
                .collect();
        }
        Vec::new()
    }

    /// Target of reference `slot`.
    pub fn reference(&self, slot: usize) -> Option<usize> {
        self.references().into_iter().find(|(s, _)| *s == slot).and_then(|(_, t)| t)
    }

    /// True for a node (superclass 1).
    pub fn is_node(&self) -> bool {
        self.class.as_ref().is_some_and(|c| c.superclass == 1)
    }

    /// Node name (0x0962), for nodes that carry one.
    pub fn node_name(&self) -> Option<String> {
        self.chunk.child(NODE_NAME).and_then(Chunk::payload).map(utf16)
    }

    /// Parent storage index (0x0960), for nodes that carry one.
    pub fn node_parent(&self) -> Option<usize> {
        let p = self.chunk.child(NODE_PARENT).and_then(Chunk::payload).filter(|p| p.len() >= 4)?;
        let v = i32::from_le_bytes([p[0], p[1], p[2], p[3]]);
        (v >= 0).then_some(v as usize)
    }
}

/// The resolved Scene.
#[derive(Debug)]
pub struct SceneIndex<'a> {
    /// Scene root chunk id (the format version).
    pub root_id: u16,
    /// Objects in storage order.
    pub objects: Vec<SceneObject<'a>>,
    /// The directories used for resolution.
    pub directories: Directories,
}

/// Owned parsed trees the index borrows from.
pub struct SceneTrees<'f> {
    scene: Vec<Chunk<'f>>,
    dll: Vec<Chunk<'f>>,
    class: Vec<Chunk<'f>>,
}

impl<'f> SceneTrees<'f> {
    /// Parses Scene, DllDirectory and the class directory of `file`; `None` when Scene is
    /// not a chunk tree.
    pub fn of(file: &'f MaxFile) -> Option<Self> {
        let scene = file.tree_of("Scene")?;
        let dll = file.tree_of("DllDirectory").unwrap_or_default();
        let class = CLASS_DIRECTORY_STREAMS.iter().find_map(|n| file.tree_of(n)).unwrap_or_default();
        Some(SceneTrees { scene, dll, class })
    }

    /// [`SceneTrees::of`] from the trees T1 kept, moved out of them (each parsed now where
    /// none was kept); the other streams' trees are dropped here.
    pub fn from_parsed(file: &'f MaxFile, mut parsed: ParsedStreams<'f>) -> Option<Self> {
        let scene = parsed.take_content_of(file, "Scene")?;
        let dll = parsed.take_content_of(file, "DllDirectory").unwrap_or_default();
        let class = CLASS_DIRECTORY_STREAMS.iter().find_map(|n| parsed.take_content_of(file, n)).unwrap_or_default();
        Some(SceneTrees { scene, dll, class })
    }

    /// Resolves every object; `None` when Scene has no root container.
    pub fn index(&self) -> Option<SceneIndex<'_>> {
        let root = self.scene.first().filter(|c| c.is_container())?;
        let directories = Directories::read(&self.dll, &self.class);
        let objects = root
            .children()
            .iter()
            .enumerate()
            .map(|(i, chunk)| SceneObject { storage_index: i, chunk, class: resolve(chunk.id, &directories) })
            .collect();
        Some(SceneIndex { root_id: root.id, objects, directories })
    }
}

/// Resolves a Scene object chunk id to its class.
pub(crate) fn resolve(id: u16, d: &Directories) -> Option<ResolvedClass> {
    match id {
        OSM_DERIVED => Some(ResolvedClass {
            class_id: crate::classes::ids::OSM_DERIVED,
            superclass: 0,
            name: "OSM Derived".into(),
            dll: "Builtin".into(),
            directory_index: None,
        }),
        WSM_DERIVED => Some(ResolvedClass {
            class_id: crate::classes::ids::WSM_DERIVED,
            superclass: 0,
            name: "WSM Derived".into(),
            dll: "Builtin".into(),
            directory_index: None,
        }),
        _ => d.classes.get(id as usize).map(|e: &ClassEntry| ResolvedClass {
            class_id: e.class_id,
            superclass: e.superclass,
            name: e.name.clone(),
            dll: d.dll_name(e.dll_index),
            directory_index: Some(id as usize),
        }),
    }
}

impl<'a> SceneIndex<'a> {
    /// An index over hand-built object chunks with the classes given, in storage order
    /// (unit tests: no directories to resolve through).
    #[cfg(test)]
    pub(crate) fn of_objects(
        root_id: u16,
        chunks: &'a [Chunk<'static>],
        classes: impl IntoIterator<Item = Option<ResolvedClass>>,
    ) -> Self {
        let objects = chunks
            .iter()
            .zip(classes)
            .enumerate()
            .map(|(storage_index, (chunk, class))| SceneObject { storage_index, chunk, class })
            .collect();
        SceneIndex { root_id, objects, directories: Default::default() }
    }

    /// Object at a storage index.
    pub fn get(&self, storage_index: usize) -> Option<&SceneObject<'a>> {
        self.objects.get(storage_index)
    }

    /// Node whose name equals `name`, case-insensitively (Max node names are).
    pub fn node_by_name(&self, name: &str) -> Option<&SceneObject<'a>> {
        let wanted = name.to_lowercase();
        self.objects.iter().find(|o| o.is_node() && o.node_name().is_some_and(|n| n.to_lowercase() == wanted))
    }

    /// Objects reachable from `start` through derived-object references (the modifier
    /// stack and base object of a node's object), never through other nodes; bounded and
    /// cycle-safe.
    pub(crate) fn stack_of(&self, start: usize) -> Vec<usize> {
        let mut seen = vec![false; self.objects.len()];
        let mut out = Vec::new();
        let mut todo = vec![start];
        while let Some(i) = todo.pop() {
            let Some(o) = self.objects.get(i) else { continue };
            if std::mem::replace(&mut seen[i], true) || o.is_node() {
                continue;
            }
            out.push(i);
            if matches!(o.chunk.id, OSM_DERIVED | WSM_DERIVED) {
                todo.extend(o.references().into_iter().filter_map(|(_, t)| t));
            }
        }
        out
    }
}
