//! Small `.max` builder on pmcore's own writer (`chunk::write_stream`,
//! `container::write`, `compression::compress`): a DllDirectory, a ClassDirectory3 and a
//! Scene whose objects instantiate chosen classes, wrapped in an OLE compound file.
//!
//! Why it exists: the farm's embedded demo corpus (so the README's main-job command works
//! on a fresh machine without the private corpus) and, later, `pmfarm synth` for
//! performance work. The layouts are the documented ones the readers in
//! [`crate::model`] and [`crate::triage`] navigate (digest §3, §4, §8), so a built file
//! really triggers the detectors; nothing here is a copy of a real file.

pub mod corpus;
pub mod demo;

use crate::chunk::{write_stream, Chunk, HeaderWidth, WriteError};
use crate::compression::{compress, Compression};
use crate::container::{self, ContainerError};

/// CLSID of the root storage of a 3ds Max scene file (as stored, little-endian form).
pub(crate) const MAX_SCENE_CLSID: [u8; 16] =
    [0xC8, 0xB4, 0x92, 0x44, 0x8D, 0x45, 0x1B, 0x4B, 0x8C, 0x91, 0x0F, 0xB9, 0x6D, 0x54, 0x11, 0x0D];

/// Why a synthetic file could not be built.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// The chunk writer refused a tree (e.g. a 14-byte size over the limit).
    #[error("chunk writer: {0}")]
    Chunk(#[from] WriteError),
    /// The compound-file writer failed.
    #[error("container writer: {0}")]
    Container(#[from] ContainerError),
}

/// A class to list in ClassDirectory3 (and its DLL in DllDirectory).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ClassSpec {
    /// DLL file name; `None` = Builtin (index −1).
    pub dll: Option<String>,
    /// ClassId pair.
    pub class_id: [u32; 2],
    /// SuperClass id.
    pub superclass: u32,
    /// Display name.
    pub name: String,
}

/// One Scene object: its class (by ClassDirectory3 index) and extra child chunks.
#[derive(Clone, Debug)]
pub(crate) struct ObjectSpec {
    /// Index into the builder's class list.
    pub class: usize,
    /// Reference slots (storage indices, −1 = empty), written as a flat 0x2034 chunk.
    pub references: Vec<i32>,
    /// Further child chunks (node name, parameter records, …).
    pub children: Vec<Chunk<'static>>,
}

/// Builds one `.max` file.
#[derive(Clone, Debug)]
pub(crate) struct SceneBuilder {
    /// Scene root chunk id: the format version (`0x2021` = Max 2016).
    pub root_id: u16,
    /// Header width of every chunk this builder writes (14 = the 64-bit headers).
    pub width: HeaderWidth,
    /// Compression applied to every chunk stream.
    pub compression: Compression,
    /// Class directory.
    pub classes: Vec<ClassSpec>,
    /// Scene objects in storage order.
    pub objects: Vec<ObjectSpec>,
}

impl SceneBuilder {
    /// An empty scene of a given version, 6-byte headers, uncompressed.
    pub(crate) fn new(root_id: u16) -> Self {
        SceneBuilder {
            root_id,
            width: HeaderWidth::Short,
            compression: Compression::None,
            classes: Vec::new(),
            objects: Vec::new(),
        }
    }

    /// Adds (or finds) a class and returns its ClassDirectory3 index.
    pub(crate) fn class(&mut self, dll: Option<&str>, class_id: [u32; 2], superclass: u32, name: &str) -> usize {
        let spec = ClassSpec { dll: dll.map(str::to_string), class_id, superclass, name: name.to_string() };
        if let Some(i) = self.classes.iter().position(|c| *c == spec) {
            return i;
        }
        self.classes.push(spec);
        self.classes.len() - 1
    }

    /// Adds an object and returns its storage index.
    pub(crate) fn object(&mut self, class: usize, references: Vec<i32>, children: Vec<Chunk<'static>>) -> usize {
        self.objects.push(ObjectSpec { class, references, children });
        self.objects.len() - 1
    }

    /// Adds a node (NodeImpl, superclass 1) named `name` whose object slot (1) points at
    /// `object`; returns its storage index.
    pub(crate) fn node(&mut self, name: &str, object: usize) -> usize {
        let class = self.class(None, crate::model::scene_index::NODE_IMPL, 1, "Node");
        let name_chunk = Chunk::leaf(crate::model::scene_index::NODE_NAME, utf16le(name));
        self.object(class, vec![-1, object as i32], vec![name_chunk])
    }

    /// The three chunk streams (DllDirectory, ClassDirectory3, Scene) as chunk trees.
    pub(crate) fn trees(&self) -> Vec<(&'static str, Vec<Chunk<'static>>)> {
        use crate::model::directory::ids;
        let mut dlls: Vec<String> = Vec::new();
        let mut class_entries = Vec::new();
        for c in &self.classes {
            let dll_index: i32 = match &c.dll {
                None => -1,
                Some(name) => match dlls.iter().position(|d| d == name) {
                    Some(i) => i as i32,
                    None => {
                        dlls.push(name.clone());
                        dlls.len() as i32 - 1
                    }
                },
            };
            let mut header = Vec::with_capacity(16);
            header.extend_from_slice(&dll_index.to_le_bytes());
            header.extend_from_slice(&c.class_id[0].to_le_bytes());
            header.extend_from_slice(&c.class_id[1].to_le_bytes());
            header.extend_from_slice(&c.superclass.to_le_bytes());
            class_entries.push(self.container(
                ids::CLASS_ENTRY,
                vec![self.leaf(ids::CLASS_HEADER, header), self.leaf(ids::CLASS_NAME, utf16le(&c.name))],
            ));
        }
        let dll_entries = dlls
            .iter()
            .map(|d| {
                self.container(
                    ids::DLL_ENTRY,
                    vec![
                        self.leaf(ids::DLL_DESCRIPTION, utf16le(&format!("{d} (synthetic)"))),
                        self.leaf(ids::DLL_FILE, utf16le(d)),
                    ],
                )
            })
            .collect();
        let objects = self
            .objects
            .iter()
            .map(|o| {
                let mut children = Vec::new();
                if !o.references.is_empty() {
                    let refs: Vec<u8> = o.references.iter().flat_map(|r| r.to_le_bytes()).collect();
                    children.push(self.leaf(crate::model::scene_index::REFS_FLAT, refs));
                }
                children.extend(o.children.iter().cloned().map(|c| c.with_width(self.width)));
                self.container(o.class as u16, children)
            })
            .collect();
        vec![
            ("Scene", vec![self.container(self.root_id, objects)]),
            ("DllDirectory", dll_entries),
            ("ClassDirectory3", class_entries),
        ]
    }

    /// The finished compound file.
    pub(crate) fn build(&self) -> Result<Vec<u8>, SynthError> {
        let mut streams: Vec<(&str, Vec<u8>)> = Vec::new();
        for (name, tree) in self.trees() {
            streams.push((name, compress(&write_stream(&tree)?, self.compression)));
        }
        Ok(container::write(&MAX_SCENE_CLSID, streams.iter().map(|(n, b)| (*n, b.as_slice())))?)
    }

    fn leaf(&self, id: u16, payload: Vec<u8>) -> Chunk<'static> {
        Chunk::leaf(id, payload).with_width(self.width)
    }

    fn container(&self, id: u16, children: Vec<Chunk<'static>>) -> Chunk<'static> {
        Chunk::container(id, children).with_width(self.width)
    }
}

/// UTF-16LE bytes of `text` without terminator (how Max stores names).
pub(crate) fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, Input, MaxFile};

    #[test]
    fn built_file_reads_back_with_its_version_and_objects() {
        let mut b = SceneBuilder::new(0x2021);
        let scene = b.class(None, [0x2000, 0], 0x1000, "Scene");
        b.object(scene, vec![], vec![]); // index 0 reads as an empty reference
        let geom = b.class(Some("prim.dlo"), [0x10, 0], 0x10, "Box");
        let obj = b.object(geom, vec![], vec![Chunk::leaf(0x0100, vec![1, 2, 3])]);
        b.node("Box01", obj);
        let bytes = b.build().unwrap();
        let Input::Ole(ole) = classify(&bytes) else { panic!("not OLE") };
        let file = MaxFile::new(ole);
        let trees = crate::model::scene_index::SceneTrees::of(&file).unwrap();
        let index = trees.index().unwrap();
        assert_eq!(index.root_id, 0x2021);
        assert_eq!(index.objects.len(), 3);
        assert_eq!(index.objects[2].node_name().as_deref(), Some("Box01"));
        assert_eq!(index.objects[2].reference(1), Some(1));
        assert_eq!(index.objects[1].class.as_ref().unwrap().dll, "prim.dlo");
    }
}
