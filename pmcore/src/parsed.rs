//! The chunk trees of a file's streams, parsed once and handed on: T1 parses every chunk
//! stream for its round trip and keeps the trees ([`crate::verify::t1::run_keeping_trees`]),
//! T2 decodes from them, and the Scene trees move on to triage and the exporters
//! ([`crate::model::scene_index::SceneTrees::from_parsed`]). Each tree borrows its payloads
//! from the file's stream bytes; nothing is copied. Before this, a worker parsed the Scene
//! up to five times per file (issue #43, docs/performance.md).
//!
//! A stream with no kept tree (T1 did not run, or the stream is not a chunk tree) is parsed
//! where it is asked for, as before; so every caller sees the same tree either way.

use crate::chunk::{self, Chunk};
use crate::maxfile::MaxFile;
use std::borrow::Cow;

/// Kept trees by stream index (the file's stream order).
#[derive(Debug, Default)]
pub struct ParsedStreams<'f> {
    trees: Vec<Option<Vec<Chunk<'f>>>>,
}

impl<'f> ParsedStreams<'f> {
    /// Keeps the tree of stream `index`.
    pub(crate) fn keep(&mut self, index: usize, tree: Vec<Chunk<'f>>) {
        if self.trees.len() <= index {
            self.trees.resize_with(index + 1, || None);
        }
        self.trees[index] = Some(tree);
    }

    /// Number of kept trees.
    pub fn len(&self) -> usize {
        self.trees.iter().flatten().count()
    }

    /// True when no tree is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole tree of stream `index`: the kept one, else parsed now ([`MaxFile::tree`]).
    pub(crate) fn tree<'s>(&'s self, file: &'f MaxFile, index: usize) -> Option<Cow<'s, [Chunk<'f>]>> {
        match self.trees.get(index).and_then(Option::as_ref) {
            Some(tree) => Some(Cow::Borrowed(tree)),
            None => file.tree(index).map(Cow::Owned),
        }
    }

    /// The content of the stream called `name` ([`MaxFile::tree_of`]), kept or parsed now.
    pub(crate) fn content_of<'s>(&'s self, file: &'f MaxFile, name: &str) -> Option<Cow<'s, [Chunk<'f>]>> {
        Some(match self.tree(file, file.index_of(name)?)? {
            Cow::Borrowed(tree) => Cow::Borrowed(chunk::content(tree)),
            Cow::Owned(tree) => Cow::Owned(chunk::into_content(tree)),
        })
    }

    /// The content of the stream called `name`, moved out of the kept trees (parsed now
    /// when none is kept): for the owners that outlive T2 ([`crate::model::scene_index::SceneTrees`]).
    pub(crate) fn take_content_of(&mut self, file: &'f MaxFile, name: &str) -> Option<Vec<Chunk<'f>>> {
        let index = file.index_of(name)?;
        match self.trees.get_mut(index).and_then(Option::take) {
            Some(tree) => Some(chunk::into_content(tree)),
            None => file.tree(index).map(chunk::into_content),
        }
    }
}
