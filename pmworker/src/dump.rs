//! Diagnostic tree dump for humans triaging a file. Never asserted on by tests beyond
//! "it runs": its format may change freely.

use pmcore::chunk::Chunk;
use pmcore::{classify, Input, MaxFile};
use std::io::Write;
use std::path::Path;

/// Prints every stream (or `only`) of the file at `path` as an indented chunk tree.
pub fn dump_path(path: &Path, only: Option<&str>, depth: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let bytes = std::fs::read(path)?;
    let file = match classify(&bytes) {
        Input::Ole(ole) => MaxFile::new(ole),
        other => {
            writeln!(out, "{}: {}", path.display(), other.class_name())?;
            return Ok(());
        }
    };
    writeln!(out, "{}: CLSID {}", path.display(), file.ole.clsid_string())?;
    for (i, s) in file.streams.iter().enumerate() {
        if only.is_some_and(|o| o != s.name) {
            continue;
        }
        let stored = file.ole.streams[i].bytes.len();
        writeln!(out, "== {:?}: {} bytes stored, {} ({:?})", s.name, stored, s.compression.name(), s.kind)?;
        match file.tree(i) {
            Some(tree) => print_level(&tree, 1, depth, out)?,
            None => {
                if let Some(e) = &s.parse_error {
                    writeln!(out, "   not a chunk tree: {e}")?;
                }
            }
        }
    }
    Ok(())
}

fn print_level(chunks: &[Chunk<'_>], level: usize, max: usize, out: &mut dyn Write) -> std::io::Result<()> {
    if level > max {
        return Ok(());
    }
    for (i, c) in chunks.iter().enumerate() {
        let indent = "  ".repeat(level);
        let width = match c.width {
            pmcore::chunk::HeaderWidth::Short => "",
            pmcore::chunk::HeaderWidth::Long => " (14-byte)",
            pmcore::chunk::HeaderWidth::ShortToEnd => " (6-byte, to end of stream)",
            pmcore::chunk::HeaderWidth::LongToEnd => " (14-byte, to end of stream)",
        };
        match c.payload() {
            Some(p) => {
                let preview: String = p.iter().take(24).map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ");
                writeln!(out, "{indent}[{i}] 0x{:04x}{width} leaf {} bytes: {preview}", c.id, p.len())?;
            }
            None => {
                writeln!(out, "{indent}[{i}] 0x{:04x}{width} container, {} children", c.id, c.children().len())?;
                print_level(c.children(), level + 1, max, out)?;
            }
        }
    }
    Ok(())
}
