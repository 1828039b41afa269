//! One run folder, one coordinator: an exclusive advisory `flock` on `OUT/pmfarm.lock`,
//! held for as long as a command works in the folder (`run`, `--resume`, `merge --out`,
//! `baseline save/promote` from it, `report`). The kernel drops the lock when the holder
//! dies, even by SIGKILL, so a stale lock can never block a later run. The file is never
//! deleted (deleting a lock file while another process waits on it splits the lock); it
//! holds the holder's pid and start time so a refused second coordinator can name it.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// File name of the lock inside the run folder.
pub const LOCK_FILE: &str = crate::run_files::LOCK;

/// Why the folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another process holds the lock.
    #[error("{folder} is in use by another pmfarm (pid {pid}, started {started}); wait for it or use another --out")]
    Busy {
        /// The run folder.
        folder: PathBuf,
        /// The holder's pid as it wrote it (`?` when unreadable).
        pid: String,
        /// The holder's start time (UTC) as it wrote it.
        started: String,
    },
    /// The lock file could not be created or locked.
    #[error("cannot lock {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

/// The held lock; released when dropped or when the process ends.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock on `folder` (which must exist) without waiting.
    pub fn acquire(folder: &Path) -> Result<RunLock, LockError> {
        let path = folder.join(LOCK_FILE);
        let io = |source| LockError::Io { path: path.clone(), source };
        let mut file =
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } != 0 {
            let e = std::io::Error::last_os_error();
            if e.raw_os_error() != Some(libc::EWOULDBLOCK) {
                return Err(io(e));
            }
            let mut text = String::new();
            let _ = file.read_to_string(&mut text);
            let field = |key: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(key))
                    .map(|v| v.trim().to_string())
                    .unwrap_or_else(|| "?".into())
            };
            return Err(LockError::Busy {
                folder: folder.to_path_buf(),
                pid: field("pid "),
                started: field("started "),
            });
        }
        let holder = format!("pid {}\nstarted {}\n", std::process::id(), utc_now());
        file.set_len(0).and_then(|()| file.seek(SeekFrom::Start(0))).map_err(io)?;
        file.write_all(holder.as_bytes()).map_err(io)?;
        Ok(RunLock { _file: file })
    }
}

/// Now as `YYYY-MM-DDTHH:MM:SSZ`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc_stamp(secs)
}

/// Seconds since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian, days-from-civil
/// inverted as in Howard Hinnant's public-domain algorithm).
pub fn utc_stamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z", rem / 3600, rem % 3600 / 60, rem % 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_stamps_match_dates_worked_out_by_hand() {
        assert_eq!(utc_stamp(0), "1970-01-01T00:00:00Z");
        // 2000-02-29 is day 11016 after the epoch (30 years = 10957 days incl. 7 leap days, + 31 + 28).
        assert_eq!(utc_stamp(11_016 * 86_400 + 3661), "2000-02-29T01:01:01Z");
    }

    #[test]
    fn a_second_lock_on_the_same_folder_is_refused_and_names_the_holder() {
        let t = tempfile::tempdir().unwrap();
        let held = RunLock::acquire(t.path()).unwrap();
        match RunLock::acquire(t.path()) {
            Err(LockError::Busy { pid, started, .. }) => {
                assert_eq!(pid, std::process::id().to_string());
                assert!(started.ends_with('Z'), "{started}");
            }
            other => panic!("expected Busy, got {other:?}"),
        }
        drop(held);
        assert!(RunLock::acquire(t.path()).is_ok(), "released on drop");
    }
}
