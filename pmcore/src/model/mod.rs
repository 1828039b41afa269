//! Typed model of a `.max` file. [`directory`] reads DllDirectory and ClassDirectory3;
//! [`scene_index`] resolves every Scene object to its class and exposes references and
//! node names read-only — the view triage and the exporters navigate.
//!
//! The round-trip model (T2): [`file`] decodes every chunk stream into runs of
//! [`part::Part`]s — typed where a decoder understands the chunk, raw spans otherwise —
//! and rebuilds each stream from typed state plus the raw spans of a source buffer.
//! [`scene`] is the Scene class container with the [`registry`]; [`appdata`] and
//! [`references`] are the Animatable / ReferenceMaker overlays; [`streams`] types the
//! directories, ClassData and Config; [`normalize`] is the whitelist.

pub mod appdata;
pub(crate) mod appdata_ids;
pub(crate) mod assets;
pub mod biped;
pub mod controllers;
pub(crate) mod decode_state;
pub mod directory;
pub mod file;
pub mod geometry;
pub(crate) mod key_records;
pub(crate) mod key_tables;
pub mod keys;
pub mod keys_linear;
pub mod keys_tcb;
pub mod link_constraint;
pub mod list_controllers;
pub mod mesh_chunks;
pub mod normalize;
pub(crate) mod object_parts;
pub mod paramblock;
pub mod part;
pub(crate) mod references;
pub mod registry;
pub mod scene;
pub mod scene_index;
pub(crate) mod scene_use;
pub mod skin;
pub mod streams;
pub mod time_config;
pub(crate) mod value;
pub mod writer;

/// Decodes UTF-16LE bytes (odd trailing byte ignored, invalid units replaced).
pub(crate) fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
    String::from_utf16_lossy(&units)
}

/// Little-endian `i32`s of a payload whose length is a multiple of 4.
pub(crate) fn i32s(bytes: &[u8]) -> Option<Vec<i32>> {
    bytes
        .len()
        .is_multiple_of(4)
        .then(|| bytes.chunks_exact(4).map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[cfg(test)]
mod tests;
