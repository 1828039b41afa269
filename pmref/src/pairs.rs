//! Finding the references of a `.max` among pairs folders: a folder with a `manifest.tsv`
//! (columns `max` and `exports`, exports separated by ` ; ` or `,` — `../anim` uses commas), paths relative to the folder,
//! `../wild/x.max` allowed), or a folder laid out like one without a manifest (each export
//! beside a `.max` of the same stem, or anywhere below with that stem).
//!
//! Lookup goes by relative name first (the manifest's `max` path resolves to the file
//! being checked), then by base name when exactly one row across all folders has it; no
//! row, or several, is a [`Lookup::Missing`] / [`Lookup::Ambiguous`] with its reason —
//! the caller reports it as a counted skip.

use std::path::{Path, PathBuf};

/// Export kinds the readers take.
pub const EXPORT_EXTENSIONS: [&str; 6] = ["fbx", "obj", "x", "ase", "gltf", "3ds"];

/// One reference export of a `.max`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReferenceFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its path relative to the pairs folder (the result streams' name).
    pub name: String,
}

/// What a lookup found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Lookup {
    /// The references (one or more), and how they were found (`relative name`, `base name`).
    Found(Vec<ReferenceFile>, &'static str),
    /// No reference, with why.
    Missing(String),
    /// Several candidates by base name, with which.
    Ambiguous(String),
}

/// One manifest row: the `.max` path as written and its exports.
#[derive(Clone, Debug)]
struct Row {
    folder: PathBuf,
    max: String,
    exports: Vec<String>,
}

fn rows_of(folder: &Path) -> Result<Vec<Row>, String> {
    let manifest = folder.join("manifest.tsv");
    if manifest.is_file() {
        let text = std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap_or_default().split('\t').collect();
        let col = |name: &str| header.iter().position(|h| *h == name);
        let (Some(max_col), Some(exports_col)) = (col("max"), col("exports")) else {
            return Err(format!("{}: no `max` / `exports` columns", manifest.display()));
        };
        return Ok(lines
            .filter(|l| !l.trim().is_empty())
            .filter_map(|l| {
                let cells: Vec<&str> = l.split('\t').collect();
                let exports = cells
                    .get(exports_col)?
                    .split([';', ','])
                    .map(str::trim)
                    .filter(|e| is_export(Path::new(e)))
                    .map(str::to_string)
                    .collect();
                Some(Row { folder: folder.to_path_buf(), max: cells.get(max_col)?.to_string(), exports })
            })
            .collect());
    }
    if !folder.is_dir() {
        return Err(format!("{} is not a folder", folder.display()));
    }
    // No manifest: every `.max` below with the exports of the same stem beside it.
    let mut rows = Vec::new();
    let mut todo = vec![folder.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut files = Vec::new();
        for e in entries.flatten() {
            seen += 1;
            if seen > 1_000_000 {
                return Err(format!("{}: more than a million entries", folder.display()));
            }
            let p = e.path();
            if p.is_dir() {
                todo.push(p);
            } else {
                files.push(p);
            }
        }
        for max in files.iter().filter(|p| has_extension(p, "max")) {
            let stem = max.file_stem().map(|s| s.to_string_lossy().to_lowercase());
            let exports = files
                .iter()
                .filter(|p| is_export(p) && p.file_stem().map(|s| s.to_string_lossy().to_lowercase()) == stem)
                .filter_map(|p| relative(folder, p))
                .collect();
            if let Some(rel) = relative(folder, max) {
                rows.push(Row { folder: folder.to_path_buf(), max: rel, exports });
            }
        }
    }
    rows.sort_by(|a, b| a.max.cmp(&b.max));
    Ok(rows)
}

fn relative(folder: &Path, p: &Path) -> Option<String> {
    p.strip_prefix(folder).ok().map(|r| r.to_string_lossy().replace('\\', "/"))
}

fn has_extension(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

fn is_export(p: &Path) -> bool {
    EXPORT_EXTENSIONS.iter().any(|e| has_extension(p, e))
}

/// Reads one reference; a glTF's buffers are loaded from beside it (a URI that leaves that
/// folder is not followed).
pub fn read(reference: &ReferenceFile) -> Result<crate::scene::RefScene, crate::ReadError> {
    let bytes = std::fs::read(&reference.path)
        .map_err(|e| crate::ReadError::Io(format!("{}: {e}", reference.path.display())))?;
    let extension = reference.path.extension().map(|e| e.to_string_lossy().into_owned()).unwrap_or_default();
    let folder = reference.path.parent().map(Path::to_path_buf).unwrap_or_default();
    let load = |uri: &str| -> Option<Vec<u8>> {
        let relative = Path::new(uri);
        if relative.is_absolute() || relative.components().any(|c| matches!(c, std::path::Component::ParentDir)) {
            return None;
        }
        std::fs::read(folder.join(relative)).ok()
    };
    crate::read_reference_with(&extension, &bytes, &load)
}

fn canonical(p: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(p).ok()
}

fn found(row: &Row) -> Vec<ReferenceFile> {
    row.exports.iter().map(|e| ReferenceFile { path: row.folder.join(e), name: e.clone() }).collect()
}

/// Finds the references of `max_file` in `folders` (each a pairs folder).
pub fn lookup(max_file: &Path, folders: &[PathBuf]) -> Lookup {
    let mut rows = Vec::new();
    let mut problems = Vec::new();
    for f in folders {
        match rows_of(f) {
            Ok(r) => rows.extend(r),
            Err(e) => problems.push(e),
        }
    }
    let wanted = canonical(max_file);
    let by_path: Vec<&Row> =
        rows.iter().filter(|r| wanted.is_some() && canonical(&r.folder.join(&r.max)) == wanted).collect();
    if let Some(row) = by_path.first() {
        let files: Vec<ReferenceFile> = by_path.iter().flat_map(|r| found(r)).collect();
        if files.is_empty() {
            return Lookup::Missing(format!("{} is listed in the pairs manifest without a readable export", row.max));
        }
        return Lookup::Found(files, "relative name");
    }
    let base = max_file.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
    let by_base: Vec<&Row> = rows
        .iter()
        .filter(|r| Path::new(&r.max).file_name().map(|n| n.to_string_lossy().to_lowercase()) == Some(base.clone()))
        .collect();
    match by_base.len() {
        0 => {
            let mut reason = format!("no reference for {base:?} in {} pairs folder(s)", folders.len());
            if !problems.is_empty() {
                reason.push_str(&format!(" ({})", problems.join("; ")));
            }
            Lookup::Missing(reason)
        }
        1 if !by_base[0].exports.is_empty() => Lookup::Found(found(by_base[0]), "base name"),
        1 => Lookup::Missing(format!("{} is listed without a readable export", by_base[0].max)),
        n => Lookup::Ambiguous(format!(
            "{n} pairs rows share the base name {base:?}: {}",
            by_base.iter().map(|r| r.max.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_rows_resolve_by_relative_name_then_unique_base_name() {
        let root = tempfile::tempdir().unwrap();
        let pairs = root.path().join("pairs");
        let wild = root.path().join("wild");
        std::fs::create_dir_all(pairs.join("a")).unwrap();
        std::fs::create_dir_all(pairs.join("b")).unwrap();
        std::fs::create_dir_all(&wild).unwrap();
        for f in ["a/s.max", "a/s.FBX", "b/s.max", "b/s.fbx", "a/t.obj", "a/t.mtl"] {
            std::fs::write(pairs.join(f), b"").unwrap();
        }
        std::fs::write(wild.join("w.max"), b"").unwrap();
        std::fs::write(
            pairs.join("manifest.tsv"),
            "max\tmax_sha256\texports\n\
             a/s.max\t-\ta/s.FBX\n\
             b/s.max\t-\tb/s.fbx\n\
             ../wild/w.max\t-\ta/t.obj ; a/t.mtl\n",
        )
        .unwrap();
        let folders = vec![pairs.clone()];
        match lookup(&pairs.join("b/s.max"), &folders) {
            Lookup::Found(files, how) => {
                assert_eq!((files.len(), files[0].name.as_str(), how), (1, "b/s.fbx", "relative name"))
            }
            other => panic!("{other:?}"),
        }
        match lookup(&wild.join("w.max"), &folders) {
            Lookup::Found(files, _) => assert_eq!(files[0].name, "a/t.obj"),
            other => panic!("{other:?}"),
        }
        // A copy elsewhere: two rows share the base name `s.max`.
        std::fs::write(root.path().join("s.max"), b"").unwrap();
        assert!(matches!(lookup(&root.path().join("s.max"), &folders), Lookup::Ambiguous(_)));
        std::fs::write(root.path().join("w.max"), b"").unwrap();
        assert!(matches!(lookup(&root.path().join("w.max"), &folders), Lookup::Found(_, "base name")));
        assert!(matches!(lookup(&root.path().join("none.max"), &folders), Lookup::Missing(_)));
    }

    #[test]
    fn a_folder_without_manifest_pairs_exports_by_stem() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("x/y")).unwrap();
        for f in ["x/y/rig.max", "x/y/rig.fbx", "x/y/other.fbx"] {
            std::fs::write(root.path().join(f), b"").unwrap();
        }
        match lookup(&root.path().join("x/y/rig.max"), &[root.path().to_path_buf()]) {
            Lookup::Found(files, _) => {
                assert_eq!(files.iter().map(|f| f.name.as_str()).collect::<Vec<_>>(), ["x/y/rig.fbx"])
            }
            other => panic!("{other:?}"),
        }
    }
}
