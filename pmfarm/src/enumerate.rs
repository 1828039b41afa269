//! What to run: `.max` files from directories (recursive), single files, a manifest, or
//! a Ryzom workspace listing — each with the corpus root its relative path is taken from.
//! Relative paths (with `/`) are the key of every output.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

/// One file to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Absolute path given to the worker.
    pub abs: PathBuf,
    /// Path relative to the corpus root, `/` separators.
    pub rel: String,
}

/// The enumerated corpus.
#[derive(Clone, Debug)]
pub struct Corpus {
    /// Root the relative paths start from.
    pub root: PathBuf,
    /// Files, sorted by `rel`, unique.
    pub items: Vec<Item>,
}

/// Why enumeration could not produce a corpus.
#[derive(Debug, thiserror::Error)]
pub enum EnumerateError {
    /// A given path (or the graphics root) does not exist: nothing runnable (exit 77).
    #[error("corpus path {0} does not exist")]
    Missing(PathBuf),
    /// A manifest or workspace file is malformed: a configuration error (exit 2).
    #[error("{0}")]
    Config(String),
}

/// True for a `*.max` name, case-insensitively.
pub fn is_max(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("max"))
}

/// True for a name the farm checks: `*.max`, or a NeL file (`*.skel`, `*.anim`,
/// `*.shape`, `*.ig`) whose T1 is the NeL round trip.
pub fn is_checked(path: &Path) -> bool {
    is_max(path) || path.file_name().is_some_and(|n| pmcore::nel::is_nel_name(&n.to_string_lossy()))
}

/// Absolute, lexically normalised form of `p` (no symlink resolution).
pub fn absolute(p: &Path) -> PathBuf {
    let joined = if p.is_absolute() { p.to_path_buf() } else { std::env::current_dir().unwrap_or_default().join(p) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

fn rel_of(root: &Path, abs: &Path) -> String {
    let rel = abs.strip_prefix(root).unwrap_or(abs);
    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => walk(&p, out),
            Ok(_) if is_checked(&p) && p.is_file() => out.push(p),
            _ => {}
        }
    }
}

fn corpus(root: PathBuf, files: Vec<PathBuf>) -> Corpus {
    let mut by_rel = BTreeMap::new();
    for abs in files {
        by_rel.entry(rel_of(&root, &abs)).or_insert(abs);
    }
    Corpus { root, items: by_rel.into_iter().map(|(rel, abs)| Item { abs, rel }).collect() }
}

/// Directories (recursive) and files. The root is the single directory given, else the
/// deepest folder holding everything.
pub fn from_paths(paths: &[PathBuf]) -> Result<Corpus, EnumerateError> {
    let mut files = Vec::new();
    let mut anchors = Vec::new();
    for p in paths {
        let abs = absolute(p);
        if abs.is_dir() {
            walk(&abs, &mut files);
            anchors.push(abs);
        } else if abs.is_file() {
            anchors.push(abs.parent().map(Path::to_path_buf).unwrap_or_default());
            files.push(abs);
        } else {
            return Err(EnumerateError::Missing(abs));
        }
    }
    let root = common_ancestor(&anchors);
    Ok(corpus(root, files))
}

fn common_ancestor(paths: &[PathBuf]) -> PathBuf {
    let mut iter = paths.iter();
    let Some(first) = iter.next() else { return PathBuf::from("/") };
    let mut root = first.clone();
    for p in iter {
        while !p.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    root
}

/// A manifest: one path per line (relative to the manifest's folder, `#` comments), or a
/// TSV whose header has a `file` column (the shared corpus `manifest.tsv`).
pub fn from_manifest(manifest: &Path) -> Result<Corpus, EnumerateError> {
    let abs = absolute(manifest);
    let text = std::fs::read_to_string(&abs).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => EnumerateError::Missing(abs.clone()),
        _ => EnumerateError::Config(format!("{}: {e}", abs.display())),
    })?;
    let root = abs.parent().map(Path::to_path_buf).unwrap_or_default();
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let mut column = None;
    let mut names = Vec::new();
    if let Some((n, first)) = lines.next() {
        if first.contains('\t') {
            let col = first.split('\t').position(|c| c == "file").ok_or_else(|| {
                EnumerateError::Config(format!("{}:{}: TSV header has no `file` column", abs.display(), n + 1))
            })?;
            column = Some(col);
        } else {
            names.push((n, first.trim().to_string()));
        }
    }
    for (n, l) in lines {
        match column {
            Some(c) => match l.split('\t').nth(c) {
                Some(v) => names.push((n, v.trim().to_string())),
                None => {
                    return Err(EnumerateError::Config(format!("{}:{}: missing `file` column", abs.display(), n + 1)))
                }
            },
            None => names.push((n, l.trim().to_string())),
        }
    }
    let mut files = Vec::new();
    for (n, name) in names {
        let p = absolute(&root.join(&name));
        if !p.is_file() {
            return Err(EnumerateError::Config(format!("{}:{}: {} is not a file", abs.display(), n + 1, p.display())));
        }
        files.push(p);
    }
    Ok(corpus(root, files))
}

/// A Ryzom workspace: `<Process>SourceDirectories` joined to the graphics root, each
/// directory read non-recursively. Paths are relative to the graphics root.
pub fn from_workspace(
    workspace: &Path,
    graphics: &Path,
    process: &str,
    defines: &BTreeMap<String, String>,
) -> Result<Corpus, EnumerateError> {
    let root = absolute(graphics);
    if !root.is_dir() {
        return Err(EnumerateError::Missing(root));
    }
    if !workspace.exists() {
        // An absent workspace is an absent corpus: nothing runnable (77), as for a folder.
        return Err(EnumerateError::Missing(absolute(workspace)));
    }
    if !workspace.is_dir() {
        return Err(EnumerateError::Config(format!("workspace {} is not a folder", workspace.display())));
    }
    let dirs = crate::workspace::source_directories(workspace, process, defines).map_err(|errors| {
        EnumerateError::Config(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    })?;
    let mut files = Vec::new();
    for d in dirs {
        let dir = absolute(&root.join(&d));
        match crate::workspace::max_files_in(&dir) {
            Ok(found) => files.extend(found),
            Err(e) => eprintln!("pmfarm: warning: source directory {} ({d}): {e}", dir.display()),
        }
    }
    Ok(corpus(root, files))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nel_files_are_enumerated_beside_max_files() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["a.max", "b.SKEL", "c.anim", "d.shape", "e.ig", "f.tga"] {
            std::fs::write(dir.path().join(f), b"x").unwrap();
        }
        let c = from_paths(&[dir.path().to_path_buf()]).unwrap();
        let rels: Vec<_> = c.items.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, vec!["a.max", "b.SKEL", "c.anim", "d.shape", "e.ig"]);
    }

    #[test]
    fn directories_recurse_and_paths_are_relative() {
        let t = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(t.path().join("a/b")).unwrap();
        for f in ["a/x.max", "a/b/Y.MAX", "a/b/z.txt"] {
            std::fs::write(t.path().join(f), b"").unwrap();
        }
        let c = from_paths(&[t.path().join("a")]).unwrap();
        let rels: Vec<_> = c.items.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, vec!["b/Y.MAX", "x.max"]);
        assert!(matches!(from_paths(&[t.path().join("nope")]), Err(EnumerateError::Missing(_))));
    }
}
