//! The ledger: `journal.jsonl`, append-only, one flushed line per record, so a run killed
//! at any instant (even by SIGKILL) can be completed with `--resume`: results already
//! recorded are kept and never re-run; a torn last line is detected and dropped.

use crate::results::{FileResult, JournalRecord};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// File name inside the output directory (spelled in [`crate::run_files`]).
pub use crate::run_files::JOURNAL;

/// Longest time a written record may wait for `fdatasync`. A `write` already survives a
/// SIGKILL of the coordinator (the kernel has the bytes); the sync only guards against a
/// power loss, after which `--resume` re-runs at most this much work. Syncing every record
/// cost a disk flush per file (measured: the largest part of the farm's overhead over
/// `xargs` driving the same worker).
pub const SYNC_INTERVAL: std::time::Duration = std::time::Duration::from_millis(250);

/// An open journal.
pub struct Journal {
    file: File,
    last_sync: Option<std::time::Instant>,
}

impl Journal {
    /// Starts a fresh journal (truncating an old one).
    pub fn create(out: &Path) -> std::io::Result<Journal> {
        Ok(Journal { file: File::create(out.join(JOURNAL))?, last_sync: None })
    }

    /// Reopens a journal for appending, first cutting off a torn or damaged last line
    /// (refused, like [`replay`], when a damaged line is not the last one).
    pub fn reopen(out: &Path) -> std::io::Result<Journal> {
        let mut file = OpenOptions::new().read(true).write(true).open(out.join(JOURNAL))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        let keep = scan(&bytes)?.keep;
        file.set_len(keep as u64)?;
        file.seek(SeekFrom::End(0))?;
        Ok(Journal { file, last_sync: None })
    }

    /// Appends one record and hands it to the OS; `fdatasync` follows for the `run` and
    /// `finished` records and otherwise at most every [`SYNC_INTERVAL`]. A failed append
    /// (a full disk cuts the write short) is undone, so the journal only ever holds whole
    /// lines and a later record can never be glued onto half of this one.
    pub fn append(&mut self, record: &JournalRecord) -> std::io::Result<()> {
        let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
        line.push('\n');
        let before = self.file.stream_position()?;
        let written = self.file.write_all(line.as_bytes()).and_then(|()| self.file.flush());
        let boundary = matches!(record, JournalRecord::Run { .. } | JournalRecord::Finished { .. });
        let due = boundary || self.last_sync.is_none_or(|t| t.elapsed() >= SYNC_INTERVAL);
        let synced = written.and_then(|()| {
            if due {
                self.last_sync = Some(std::time::Instant::now());
                self.file.sync_data()
            } else {
                Ok(())
            }
        });
        if let Err(e) = synced {
            let _ = self.file.set_len(before);
            let _ = self.file.seek(SeekFrom::Start(before));
            return Err(std::io::Error::new(e.kind(), format!("cannot append to {JOURNAL}: {e}")));
        }
        Ok(())
    }
}

/// What a journal holds.
#[derive(Debug, Default)]
pub struct Replay {
    /// The first `run` record: corpus root, files, options.
    pub run: Option<JournalRecord>,
    /// Last result per path.
    pub results: BTreeMap<String, FileResult>,
    /// `started` records per path (for "nothing ran twice" checks).
    pub started: BTreeMap<String, u64>,
    /// Lines that did not parse (only a torn last line is expected).
    pub torn_lines: u64,
}

/// The journal cut into records: `keep` bytes of whole, parsable lines, then `torn` lines
/// (at most one: the last) that a kill inside a write left.
struct Scanned {
    records: Vec<JournalRecord>,
    keep: usize,
    torn: u64,
}

/// Parses the journal. Only the last line may be damaged — cut off without its newline, or
/// garbled — as a kill inside a write leaves it; a damaged line anywhere before it means
/// the file was corrupted after the fact, and the records around it cannot be trusted:
/// that is an error naming the line (`InvalidData`).
fn scan(bytes: &[u8]) -> std::io::Result<Scanned> {
    let mut records = Vec::new();
    let mut keep = 0;
    let mut torn = 0;
    let mut line_start = 0;
    let mut line_no = 0;
    while line_start < bytes.len() {
        line_no += 1;
        let (line, next) = match bytes[line_start..].iter().position(|b| *b == b'\n') {
            Some(i) => (&bytes[line_start..line_start + i], Some(line_start + i + 1)),
            None => (&bytes[line_start..], None),
        };
        let is_last = next.is_none_or(|n| n == bytes.len());
        let parsed = std::str::from_utf8(line).map_err(|e| e.to_string()).and_then(|l| {
            if l.trim().is_empty() {
                Ok(None)
            } else {
                serde_json::from_str(l).map(Some).map_err(|e| e.to_string())
            }
        });
        match (next, parsed) {
            // A whole line that parses (or is blank).
            (Some(n), Ok(rec)) => {
                records.extend(rec);
                keep = n;
            }
            // No newline: a write cut short, whatever its bytes (replay and reopen agree).
            (None, _) => torn += 1,
            (Some(_), Err(_)) if is_last => torn += 1,
            (Some(_), Err(e)) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "{JOURNAL}:{line_no}: a damaged record that is not the last line ({e}); \
                         the journal was corrupted after it was written, so it cannot be resumed \
                         (`pmfarm verify-ledger` shows it; start the run afresh)"
                    ),
                ));
            }
        }
        line_start = next.unwrap_or(bytes.len());
    }
    Ok(Scanned { records, keep, torn })
}

/// Reads a journal (refusing one with a damaged line before its last, see [`scan`]).
pub fn replay(out: &Path) -> std::io::Result<Replay> {
    let bytes = std::fs::read(out.join(JOURNAL))?;
    let scanned = scan(&bytes)?;
    let mut r = Replay { torn_lines: scanned.torn, ..Replay::default() };
    for rec in scanned.records {
        match rec {
            rec @ JournalRecord::Run { .. } => {
                if r.run.is_none() {
                    r.run = Some(rec);
                }
            }
            JournalRecord::Started { path } => *r.started.entry(path).or_default() += 1,
            JournalRecord::Result(res) => {
                r.results.insert(res.path.clone(), *res);
            }
            JournalRecord::Finished { .. } => {}
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::Status;

    #[test]
    fn torn_last_line_is_ignored_and_cut_before_appending() {
        let t = tempfile::tempdir().unwrap();
        let mut j = Journal::create(t.path()).unwrap();
        let r = FileResult { path: "a.max".into(), status: Status::Pass, ..Default::default() };
        j.append(&JournalRecord::Result(Box::new(r))).unwrap();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(t.path().join(JOURNAL)).unwrap();
        f.write_all(b"{\"record\":\"result\",\"path\":\"b.m").unwrap();
        assert_eq!(replay(t.path()).unwrap().torn_lines, 1);
        let mut j = Journal::reopen(t.path()).unwrap();
        j.append(&JournalRecord::Started { path: "b.max".into() }).unwrap();
        let back = replay(t.path()).unwrap();
        assert_eq!(back.torn_lines, 0);
        assert_eq!(back.results.len(), 1);
        assert_eq!(back.started["b.max"], 1);
    }

    #[test]
    fn a_damaged_line_before_the_last_is_refused_naming_it_and_a_damaged_last_line_is_cut() {
        let t = tempfile::tempdir().unwrap();
        let mut j = Journal::create(t.path()).unwrap();
        j.append(&JournalRecord::Started { path: "a.max".into() }).unwrap();
        drop(j);
        let mut f = OpenOptions::new().append(true).open(t.path().join(JOURNAL)).unwrap();
        f.write_all(b"{\"record\":\"resu\n").unwrap();
        assert_eq!(replay(t.path()).unwrap().torn_lines, 1, "a garbled last line is torn");
        f.write_all(b"{\"record\":\"started\",\"path\":\"b.max\"}\n").unwrap();
        let e = replay(t.path()).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().starts_with("journal.jsonl:2: a damaged record"), "{e}");
        assert!(Journal::reopen(t.path()).is_err());
        // Garbled last line: reopen cuts it, so the next record is not glued behind it.
        let t = tempfile::tempdir().unwrap();
        drop(Journal::create(t.path()).unwrap());
        std::fs::write(t.path().join(JOURNAL), "{\"record\":\"started\",\"path\":\"a.max\"}\n{garbled\n").unwrap();
        let mut j = Journal::reopen(t.path()).unwrap();
        j.append(&JournalRecord::Started { path: "b.max".into() }).unwrap();
        let back = replay(t.path()).unwrap();
        assert_eq!((back.torn_lines, back.started.len()), (0, 2));
    }

    #[test]
    fn a_whole_record_without_its_newline_is_torn_like_reopen_sees_it() {
        let t = tempfile::tempdir().unwrap();
        let mut j = Journal::create(t.path()).unwrap();
        j.append(&JournalRecord::Started { path: "a.max".into() }).unwrap();
        drop(j);
        let r = FileResult { path: "a.max".into(), status: Status::Pass, ..Default::default() };
        let line = serde_json::to_string(&JournalRecord::Result(Box::new(r))).unwrap();
        let mut f = OpenOptions::new().append(true).open(t.path().join(JOURNAL)).unwrap();
        f.write_all(line.as_bytes()).unwrap();
        let before = replay(t.path()).unwrap();
        assert_eq!((before.torn_lines, before.results.len()), (1, 0));
        drop(Journal::reopen(t.path()).unwrap());
        assert_eq!(replay(t.path()).unwrap().results.len(), 0, "replay and reopen agree");
    }
}
