//! Writes the embedded demo corpus (`pmcore::synth::demo`) into a folder, so a run with
//! no paths checks real generated files on any machine.

use std::path::Path;

/// Writes every demo file into `dir` (created; stale `.max` and NeL files removed); returns the count.
pub fn write(dir: &Path) -> Result<usize, String> {
    let files = pmcore::synth::demo::demo_corpus().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            if crate::enumerate::is_checked(&e.path()) && !files.iter().any(|f| e.file_name() == f.name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    for f in &files {
        let path = dir.join(f.name);
        std::fs::write(&path, &f.bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(files.len())
}
