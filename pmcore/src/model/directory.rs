//! DllDirectory and ClassDirectory3 (or `ClassDirectory`/`ClassDirectory2` in older
//! files), read-only: entry lists in stored order. Index = position among entry chunks.

use super::utf16;
use crate::chunk::Chunk;

/// Chunk ids of the directories.
pub(crate) mod ids {
    /// DllDirectory entry container.
    pub(crate) const DLL_ENTRY: u16 = 0x2038;
    /// DllEntry description (UTF-16).
    pub(crate) const DLL_DESCRIPTION: u16 = 0x2039;
    /// DllEntry file name (UTF-16).
    pub(crate) const DLL_FILE: u16 = 0x2037;
    /// ClassDirectory entry container.
    pub(crate) const CLASS_ENTRY: u16 = 0x2040;
    /// ClassEntry header: s32 dll index, u32 class a, u32 class b, u32 superclass.
    pub(crate) const CLASS_HEADER: u16 = 0x2060;
    /// ClassEntry display name (UTF-16).
    pub(crate) const CLASS_NAME: u16 = 0x2042;
}

/// One DllDirectory entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DllEntry {
    /// Description (e.g. `Editable Poly Object (Autodesk)`).
    pub description: String,
    /// File name (e.g. `EPoly.dlo`).
    pub file: String,
}

/// One ClassDirectory3 entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassEntry {
    /// DllDirectory index; −1 = Builtin, −2 = Script.
    pub dll_index: i32,
    /// ClassId pair.
    pub class_id: [u32; 2],
    /// SuperClass id.
    pub superclass: u32,
    /// Display name.
    pub name: String,
}

/// Read-only directories of a file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Directories {
    /// DLL entries in stored order.
    pub dlls: Vec<DllEntry>,
    /// Class entries in stored order.
    pub classes: Vec<ClassEntry>,
    /// Entries that did not have the documented shape, with their position (kept raw by
    /// the typed model; listed here so triage never trusts a half-read entry).
    pub malformed: Vec<String>,
}

/// Names of the class directory stream, newest first.
pub const CLASS_DIRECTORY_STREAMS: &[&str] = &["ClassDirectory3", "ClassDirectory2", "ClassDirectory"];

impl Directories {
    /// Reads both directories from their parsed top-level chunk runs.
    pub fn read(dll_directory: &[Chunk<'_>], class_directory: &[Chunk<'_>]) -> Self {
        let mut d = Directories::default();
        for (pos, c) in dll_directory.iter().enumerate().filter(|(_, c)| c.id == ids::DLL_ENTRY) {
            match (
                c.child(ids::DLL_DESCRIPTION).and_then(Chunk::payload),
                c.child(ids::DLL_FILE).and_then(Chunk::payload),
            ) {
                (Some(desc), Some(file)) => d.dlls.push(DllEntry { description: utf16(desc), file: utf16(file) }),
                _ => {
                    d.malformed.push(format!("DllDirectory/[{pos}]0x2038"));
                    d.dlls.push(DllEntry { description: String::new(), file: String::new() });
                }
            }
        }
        for (pos, c) in class_directory.iter().enumerate().filter(|(_, c)| c.id == ids::CLASS_ENTRY) {
            let header = c.child(ids::CLASS_HEADER).and_then(Chunk::payload).filter(|p| p.len() == 16);
            let name = c.child(ids::CLASS_NAME).and_then(Chunk::payload).map(utf16);
            match header {
                Some(h) => {
                    let u = |i: usize| u32::from_le_bytes([h[i], h[i + 1], h[i + 2], h[i + 3]]);
                    d.classes.push(ClassEntry {
                        dll_index: u(0) as i32,
                        class_id: [u(4), u(8)],
                        superclass: u(12),
                        name: name.unwrap_or_default(),
                    });
                }
                None => {
                    d.malformed.push(format!("ClassDirectory3/[{pos}]0x2040"));
                    d.classes.push(ClassEntry {
                        dll_index: -1,
                        class_id: [0, 0],
                        superclass: 0,
                        name: name.unwrap_or_default(),
                    });
                }
            }
        }
        d
    }

    /// DLL file name for an entry's index (`Builtin` for −1, `Script` for −2).
    pub(crate) fn dll_name(&self, dll_index: i32) -> String {
        match dll_index {
            -1 => "Builtin".to_string(),
            -2 => "Script".to_string(),
            i if i >= 0 => {
                self.dlls.get(i as usize).map(|d| d.file.clone()).unwrap_or_else(|| format!("<dll #{i} missing>"))
            }
            i => format!("<dll #{i}>"),
        }
    }
}
