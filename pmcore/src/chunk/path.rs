//! Chunk paths: human-readable locators such as `Scene/0x2012/[17]0x0001/[3]0x2150`.

use super::Chunk;
use std::fmt;

/// Locator of a chunk inside a stream: the stream name then, per level, the position
/// among siblings and the chunk id. Position 0 of the top level is written without
/// its index (`Scene/0x2012`), matching how people name a stream's root chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ChunkPath(pub String);

impl ChunkPath {
    /// Path from a stream name and a stack of (position, id) pairs.
    pub(crate) fn from_steps(stream: &str, steps: &[(usize, u16)]) -> Self {
        let mut s = String::from(stream);
        for (level, (pos, id)) in steps.iter().enumerate() {
            if level == 0 && *pos == 0 {
                s.push_str(&format!("/0x{id:04x}"));
            } else {
                s.push_str(&format!("/[{pos}]0x{id:04x}"));
            }
        }
        ChunkPath(s)
    }

    #[cfg(test)]
    /// The path as text.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ChunkPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Replaces every `[n]` position with `[*]`, so one defect in one class gives one
/// failure signature across files whose sibling positions differ.
pub fn mask_positions(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_index = false;
    for ch in path.chars() {
        match ch {
            '[' => {
                in_index = true;
                out.push_str("[*]");
            }
            ']' if in_index => in_index = false,
            _ if in_index => {}
            _ => out.push(ch),
        }
    }
    out
}

/// Deepest chunk of `chunks` whose encoded span (as written by the writer) contains
/// `offset`; used to name the first differing byte of a round trip.
pub(crate) fn locate_offset(stream: &str, chunks: &[Chunk<'_>], offset: u64) -> ChunkPath {
    let mut steps = Vec::new();
    let mut level = chunks;
    let mut base = 0u64;
    'descend: loop {
        for (pos, chunk) in level.iter().enumerate() {
            let len = super::write::chunk_len(chunk);
            if offset < base + len {
                steps.push((pos, chunk.id));
                let header = chunk.width.bytes();
                if chunk.is_container() && offset >= base + header {
                    base += header;
                    level = chunk.children();
                    continue 'descend;
                }
                break 'descend;
            }
            base += len;
        }
        break;
    }
    ChunkPath::from_steps(stream, &steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_root_without_index_and_children_with_it() {
        let p = ChunkPath::from_steps("Scene", &[(0, 0x2012), (17, 0x0001), (3, 0x2150)]);
        assert_eq!(p.as_str(), "Scene/0x2012/[17]0x0001/[3]0x2150");
        let q = ChunkPath::from_steps("Config", &[(2, 0x0010)]);
        assert_eq!(q.as_str(), "Config/[2]0x0010");
    }

    #[test]
    fn masks_positions() {
        assert_eq!(mask_positions("Scene/0x2012/[17]0x0001/[3]0x2150"), "Scene/0x2012/[*]0x0001/[*]0x2150");
    }

    #[test]
    fn locates_offsets_in_nested_chunks() {
        let tree = vec![Chunk::container(
            0x2012,
            vec![Chunk::leaf(0x0001, vec![0u8; 4]), Chunk::container(0x0002, vec![Chunk::leaf(0x2150, vec![1u8; 3])])],
        )];
        assert_eq!(locate_offset("Scene", &tree, 0).as_str(), "Scene/0x2012");
        assert_eq!(locate_offset("Scene", &tree, 7).as_str(), "Scene/0x2012/[0]0x0001");
        assert_eq!(locate_offset("Scene", &tree, 6 + 10 + 6 + 7).as_str(), "Scene/0x2012/[1]0x0002/[0]0x2150");
        assert_eq!(locate_offset("Scene", &tree, 999).as_str(), "Scene");
    }
}
