//! The run folder's outputs as one set: a run marks the folder in progress (`OUT/in-progress`)
//! before it deletes anything, removes every output of an earlier run (results, summary,
//! baseline diff, report) so none can pass for this run's, and clears the mark only once
//! the new set is complete. Each output set carries a fresh run id (`summary.json` →
//! `timing.run_id`, and the report's stamp) so `verify-ledger` can tell a report that belongs to the
//! results from a stale one. The report is rendered into a temporary folder and swapped in
//! with one rename, so no reader ever sees a torn or half-old report.

use std::path::{Path, PathBuf};

/// The in-progress mark: present from before the first deletion until the outputs are complete.
pub const IN_PROGRESS: &str = crate::run_files::IN_PROGRESS;

/// Outputs a run writes after its journal; removed before a new run or a resumption starts.
pub const OUTPUTS: [&str; 3] = [crate::run_files::RESULTS, crate::run_files::SUMMARY, crate::run_files::BASELINE_DIFF];

/// The report folder inside the run folder.
pub const REPORT_DIR: &str = crate::run_files::REPORT;

/// Prefix of the temporary folders a report is rendered into (`OUT/.report-tmp-<pid>`).
pub const REPORT_TMP_PREFIX: &str = ".report-tmp-";

/// Marks `out` in progress (synced, so a crash cannot lose the mark) and then removes every
/// earlier output, the report included.
pub fn begin(out: &Path, what: &str) -> std::io::Result<()> {
    let mark = out.join(IN_PROGRESS);
    let text = format!("{what} by pid {} since {}\n", std::process::id(), crate::lock::utc_now());
    let file = std::fs::File::create(&mark)?;
    std::io::Write::write_all(&mut &file, text.as_bytes())?;
    file.sync_all()?;
    sync_dir(out);
    for name in OUTPUTS {
        remove_file_if_present(&out.join(name))?;
    }
    remove_dir_if_present(&out.join(REPORT_DIR))?;
    remove_report_leftovers(out);
    Ok(())
}

/// Clears the in-progress mark: the outputs are complete.
pub fn finish(out: &Path) -> std::io::Result<()> {
    remove_file_if_present(&out.join(IN_PROGRESS))?;
    sync_dir(out);
    Ok(())
}

/// True while a run is writing `out` or after one was interrupted there.
pub fn in_progress(out: &Path) -> bool {
    out.join(IN_PROGRESS).exists()
}

/// A fresh id for one output set: time and pid, unique on one machine.
pub fn new_run_id() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    format!("{nanos:x}-{:x}", std::process::id())
}

/// A temporary folder for rendering the report, removed again by [`swap_in_report`] or on error.
pub fn report_tmp(out: &Path) -> PathBuf {
    out.join(format!("{REPORT_TMP_PREFIX}{}", std::process::id()))
}

/// Puts the rendered folder `tmp` in place of `OUT/report` with one atomic rename
/// (`renameat2(RENAME_EXCHANGE)` when a report exists, then the old one is deleted).
pub fn swap_in_report(out: &Path, tmp: &Path) -> std::io::Result<()> {
    let dest = out.join(REPORT_DIR);
    if dest.exists() {
        if exchange(tmp, &dest).is_ok() {
            // `tmp` now holds the old report.
            let _ = std::fs::remove_dir_all(tmp);
            sync_dir(out);
            return Ok(());
        }
        // No RENAME_EXCHANGE (old kernel or file system): the old report goes first, so a
        // reader sees the new report or none, never a mixture.
        std::fs::remove_dir_all(&dest)?;
    }
    std::fs::rename(tmp, &dest)?;
    sync_dir(out);
    Ok(())
}

fn exchange(a: &Path, b: &Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let ca = std::ffi::CString::new(a.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    let cb = std::ffi::CString::new(b.as_os_str().as_bytes()).map_err(std::io::Error::other)?;
    // SAFETY: two NUL-terminated paths; the call only renames.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Removes temporary report folders a killed render left behind.
pub fn remove_report_leftovers(out: &Path) {
    let Ok(entries) = std::fs::read_dir(out) else { return };
    for e in entries.flatten() {
        if e.file_name().to_string_lossy().starts_with(REPORT_TMP_PREFIX) {
            let _ = std::fs::remove_dir_all(e.path());
        }
    }
}

fn remove_file_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn remove_dir_if_present(path: &Path) -> std::io::Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Makes renames and deletions in `dir` durable (best effort: not every file system can).
fn sync_dir(dir: &Path) {
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn begin_marks_then_removes_every_earlier_output_and_finish_clears_the_mark() {
        let t = tempfile::tempdir().unwrap();
        for name in OUTPUTS {
            std::fs::write(t.path().join(name), "old").unwrap();
        }
        std::fs::create_dir_all(t.path().join(REPORT_DIR)).unwrap();
        std::fs::write(t.path().join("report/junit.xml"), "old").unwrap();
        std::fs::create_dir_all(report_tmp(t.path())).unwrap();
        begin(t.path(), "run").unwrap();
        assert!(in_progress(t.path()));
        let left: Vec<String> =
            std::fs::read_dir(t.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(left, [IN_PROGRESS]);
        finish(t.path()).unwrap();
        assert!(!in_progress(t.path()));
    }

    #[test]
    fn a_report_is_swapped_in_whole() {
        let t = tempfile::tempdir().unwrap();
        let old = t.path().join(REPORT_DIR);
        std::fs::create_dir_all(&old).unwrap();
        std::fs::write(old.join("index.html"), "old").unwrap();
        std::fs::write(old.join("bucket-x.html"), "old").unwrap();
        let tmp = report_tmp(t.path());
        std::fs::create_dir_all(&tmp).unwrap();
        std::fs::write(tmp.join("index.html"), "new").unwrap();
        swap_in_report(t.path(), &tmp).unwrap();
        assert_eq!(std::fs::read_to_string(old.join("index.html")).unwrap(), "new");
        assert!(!old.join("bucket-x.html").exists());
        assert!(!tmp.exists());
    }
}
