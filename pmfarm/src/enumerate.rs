//! What to run: `.max` files from directories (recursive), single files, a manifest, or
//! a Ryzom workspace listing — each with the corpus root its relative path is taken from.
//! Relative paths (with `/`) are the key of every output.
//!
//! Every path the walk meets ends in a status: a `*.max` that is a FIFO, socket or device
//! (`not-a-file`), a dangling symlink (`dangling-link`) or a symlink loop (`symlink-loop`)
//! becomes a `skip` with that reason class; a folder or file that cannot be read becomes an
//! `infra-error` naming the path and the OS error. Symlinked folders are followed once
//! (a folder reached again, by a loop or a second link, is not walked twice). File names
//! are kept as bytes for the worker and shown escaped ([`escape`]), so two files never
//! share a name.

use crate::results::Status;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::{OsStr, OsString};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::fs::MetadataExt;
use std::path::{Component, Path, PathBuf};

/// One file to check.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Item {
    /// Absolute path given to the worker (bytes as on disk).
    pub abs: PathBuf,
    /// Path relative to the corpus root, `/` separators, escaped ([`escape`]).
    pub rel: String,
    /// Set when enumeration already decided the status: no worker runs for this path.
    pub blocked: Option<Blocked>,
}

/// A status decided by enumeration: a skip with its reason class, or an infra error.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocked {
    /// `skip` or `infra-error`.
    pub status: Status,
    /// `not-a-file: FIFO`, `dangling-link: …`, `symlink-loop: …`, `cannot read folder …: …`.
    pub reason: String,
}

/// Shows a path component sequence as text, injectively: valid UTF-8 as is, a backslash
/// as `\\`, every byte that is not UTF-8 as `\xHH`. [`unescape`] gives the bytes back.
pub fn escape(path: &OsStr) -> String {
    let mut out = String::new();
    for chunk in path.as_bytes().utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

/// The bytes [`escape`] showed.
pub fn unescape(shown: &str) -> OsString {
    let bytes = shown.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            if bytes.get(i + 1) == Some(&b'\\') {
                out.push(b'\\');
                i += 2;
                continue;
            }
            if bytes.get(i + 1) == Some(&b'x') {
                if let Some(b) = shown.get(i + 2..i + 4).and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    out.push(b);
                    i += 4;
                    continue;
                }
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    OsString::from_vec(out)
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
    rel.components().map(|c| escape(c.as_os_str())).collect::<Vec<_>>().join("/")
}

/// What the walk found at one path.
enum Found {
    /// A readable regular `*.max` file (possibly through a symlink).
    File(PathBuf),
    /// A path with a status decided here.
    Blocked(PathBuf, Blocked),
}

fn blocked(path: &Path, status: Status, reason: String) -> Found {
    Found::Blocked(path.to_path_buf(), Blocked { status, reason })
}

/// `not-a-file` kind of a special file.
fn special_kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "not a regular file"
    }
}

/// A `*.max` name: checks what it really is and that it can be opened.
fn examine_max(p: &Path) -> Found {
    let meta = match std::fs::metadata(p) {
        Ok(m) => m,
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return blocked(p, Status::Skip, format!("symlink-loop: {} ({e})", escape(p.as_os_str())))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let target = std::fs::read_link(p).map(|t| escape(t.as_os_str())).unwrap_or_default();
            return blocked(p, Status::Skip, format!("dangling-link: {} -> {target}", escape(p.as_os_str())));
        }
        Err(e) => return blocked(p, Status::InfraError, format!("cannot stat {}: {e}", escape(p.as_os_str()))),
    };
    if !meta.is_file() {
        let kind = special_kind(&meta.file_type());
        return blocked(p, Status::Skip, format!("not-a-file: {} is a {kind}", escape(p.as_os_str())));
    }
    match std::fs::File::open(p) {
        Ok(_) => Found::File(p.to_path_buf()),
        Err(e) => blocked(p, Status::InfraError, format!("cannot open {}: {e}", escape(p.as_os_str()))),
    }
}

/// Walks `dir` recursively. `seen` holds (device, inode) of every folder walked, so a
/// folder reached again through a symlink (or a loop) is walked once.
fn walk(dir: &Path, seen: &mut BTreeSet<(u64, u64)>, out: &mut Vec<Found>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) => {
            out.push(blocked(dir, Status::InfraError, format!("cannot read folder {}: {e}", escape(dir.as_os_str()))));
            return;
        }
    };
    for entry in entries {
        let e = match entry {
            Ok(e) => e,
            Err(err) => {
                out.push(blocked(
                    dir,
                    Status::InfraError,
                    format!("cannot list folder {}: {err}", escape(dir.as_os_str())),
                ));
                return;
            }
        };
        let p = e.path();
        let Ok(t) = e.file_type() else {
            if is_checked(&p) {
                out.push(examine_max(&p));
            }
            continue;
        };
        let is_dir = t.is_dir() || (t.is_symlink() && std::fs::metadata(&p).is_ok_and(|m| m.is_dir()));
        if is_dir {
            match std::fs::metadata(&p) {
                Ok(m) if !seen.insert((m.dev(), m.ino())) => {} // walked already: followed once
                _ => walk(&p, seen, out),
            }
        } else if is_checked(&p) {
            out.push(examine_max(&p));
        }
    }
}

/// Walks every root folder, each folder once.
fn walk_roots(dirs: &[PathBuf], out: &mut Vec<Found>) {
    let mut seen = BTreeSet::new();
    for d in dirs {
        if let Ok(m) = std::fs::metadata(d) {
            if !seen.insert((m.dev(), m.ino())) {
                continue;
            }
        }
        walk(d, &mut seen, out);
    }
}

fn corpus(root: PathBuf, files: Vec<PathBuf>) -> Corpus {
    corpus_of(root, files.into_iter().map(Found::File).collect())
}

fn corpus_of(root: PathBuf, found: Vec<Found>) -> Corpus {
    let mut by_rel = BTreeMap::new();
    for f in found {
        let (abs, blocked) = match f {
            Found::File(p) => (p, None),
            Found::Blocked(p, b) => (p, Some(b)),
        };
        let mut rel = rel_of(&root, &abs);
        if rel.is_empty() {
            rel = ".".into();
        }
        by_rel.entry(rel).or_insert((abs, blocked));
    }
    Corpus { root, items: by_rel.into_iter().map(|(rel, (abs, blocked))| Item { abs, rel, blocked }).collect() }
}

/// Directories (recursive) and files. The root is the single directory given, else the
/// deepest folder holding everything.
pub fn from_paths(paths: &[PathBuf]) -> Result<Corpus, EnumerateError> {
    let mut found = Vec::new();
    let mut anchors = Vec::new();
    let mut dirs = Vec::new();
    for p in paths {
        let abs = absolute(p);
        if abs.is_dir() {
            dirs.push(abs.clone());
            anchors.push(abs);
        } else if abs.exists() || abs.symlink_metadata().is_ok() {
            // A file given by name is checked whatever its name (FIFO, dangling link … included).
            anchors.push(abs.parent().map(Path::to_path_buf).unwrap_or_default());
            found.push(examine_max(&abs));
        } else {
            return Err(EnumerateError::Missing(abs));
        }
    }
    walk_roots(&dirs, &mut found);
    let root = common_ancestor(&anchors);
    Ok(corpus_of(root, found))
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
/// directory read non-recursively. Paths are relative to the graphics root. A listed
/// directory that does not exist, and a failed statement the process does not need, are
/// notices, not errors.
pub fn from_workspace(
    workspace: &Path,
    graphics: &Path,
    process: &str,
    defines: &BTreeMap<String, String>,
    notify: &crate::notice::Notifier,
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
    let dirs = crate::workspace::source_directories(workspace, process, defines, notify).map_err(|errors| {
        EnumerateError::Config(errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
    })?;
    let mut found = Vec::new();
    for d in dirs {
        let dir = absolute(&root.join(&d));
        match std::fs::read_dir(&dir) {
            Ok(entries) => {
                for entry in entries {
                    match entry {
                        Ok(e) if is_max(&e.path()) && !e.path().is_dir() => found.push(examine_max(&e.path())),
                        Ok(_) => {}
                        Err(err) => {
                            let why = format!("cannot list source directory {} ({d}): {err}", escape(dir.as_os_str()));
                            found.push(blocked(&dir, Status::InfraError, why));
                            break;
                        }
                    }
                }
            }
            // The build pipeline finds nothing in a listed folder that does not exist either.
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
                notify.send(crate::notice::Notice::SourceDirectoryMissing { dir, entry: d, error })
            }
            Err(e) => {
                let why = format!("cannot read source directory {} ({d}): {e}", escape(dir.as_os_str()));
                found.push(blocked(&dir, Status::InfraError, why));
            }
        }
    }
    Ok(corpus_of(root, found))
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

    #[test]
    fn names_differing_in_invalid_bytes_stay_apart_and_round_trip() {
        let t = tempfile::tempdir().unwrap();
        for name in [&b"d\xe9cor.max"[..], b"d\xe8cor.max", b"back\\x41.max"] {
            std::fs::write(t.path().join(OsStr::from_bytes(name)), b"").unwrap();
        }
        let c = from_paths(&[t.path().to_path_buf()]).unwrap();
        let rels: Vec<_> = c.items.iter().map(|i| i.rel.as_str()).collect();
        assert_eq!(rels, vec!["back\\\\x41.max", "d\\xE8cor.max", "d\\xE9cor.max"]);
        for i in &c.items {
            assert_eq!(c.root.join(unescape(&i.rel)), i.abs);
        }
    }

    #[test]
    fn special_files_links_and_loops_end_in_a_status() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        std::fs::create_dir_all(d.join("real")).unwrap();
        std::fs::write(d.join("real/a.max"), b"").unwrap();
        std::os::unix::fs::symlink(d.join("real"), d.join("linked")).unwrap();
        std::os::unix::fs::symlink(d, d.join("real/up")).unwrap();
        std::os::unix::fs::symlink(d.join("missing.max"), d.join("dangling.max")).unwrap();
        std::os::unix::fs::symlink(d.join("loop.max"), d.join("loop.max")).unwrap();
        let fifo = std::ffi::CString::new(d.join("pipe.max").as_os_str().as_bytes()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        let c = from_paths(&[d.to_path_buf()]).unwrap();
        let got: BTreeMap<&str, Option<String>> = c
            .items
            .iter()
            .map(|i| (i.rel.as_str(), i.blocked.as_ref().map(|b| format!("{} {}", b.status, b.reason))))
            .collect();
        assert_eq!(got.len(), 4, "the real folder is walked once: {got:?}");
        assert!(got["dangling.max"].as_deref().unwrap().starts_with("skip dangling-link: "));
        assert!(got["loop.max"].as_deref().unwrap().starts_with("skip symlink-loop: "));
        assert!(got["pipe.max"].as_deref().unwrap().starts_with("skip not-a-file: "));
        assert!(got.keys().any(|k| k.ends_with("a.max")));
    }
}
