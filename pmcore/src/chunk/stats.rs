//! Header counts and depth: the shape facts that bucket files and that the corpus
//! manifest checks.

#[cfg(test)]
use super::{Chunk, HeaderWidth};

/// Shape of a parsed tree.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct TreeStats {
    /// Chunks with a 6-byte header.
    pub headers_6: u64,
    /// Chunks with a 14-byte header.
    pub headers_14: u64,
    /// Of those, run-to-end headers (Max 2024+ zstd streams; counted in their width too).
    #[serde(default)]
    pub headers_to_end: u64,
    /// Deepest level (top-level chunks are level 1; an empty run is 0).
    pub max_depth: usize,
    /// Containers holding direct children of both header widths.
    pub mixed_containers: u64,
    /// Largest number of direct children of one container.
    pub max_children: usize,
}

impl TreeStats {
    /// Walks `chunks` once (the tests' reference for [`super::scan_stream`], which counts
    /// the same while parsing).
    #[cfg(test)]
    pub(crate) fn of(chunks: &[Chunk<'_>]) -> Self {
        let mut s = TreeStats::default();
        s.visit(chunks, 1);
        s
    }

    #[cfg(test)]
    fn visit(&mut self, chunks: &[Chunk<'_>], depth: usize) {
        let (mut short, mut long) = (false, false);
        self.max_children = self.max_children.max(chunks.len());
        for c in chunks {
            self.max_depth = self.max_depth.max(depth);
            match c.width {
                HeaderWidth::Short | HeaderWidth::ShortToEnd => {
                    self.headers_6 += 1;
                    short = true;
                }
                HeaderWidth::Long | HeaderWidth::LongToEnd => {
                    self.headers_14 += 1;
                    long = true;
                }
            }
            if c.width.runs_to_end() {
                self.headers_to_end += 1;
            }
            if c.is_container() {
                self.visit(c.children(), depth + 1);
            }
        }
        if short && long {
            self.mixed_containers += 1;
        }
    }
}
