//! The breadcrumb slot: a one-page file the coordinator hands each worker
//! (`PMWORKER_BREADCRUMB_SLOT`). The worker maps it and overwrites it at every breadcrumb —
//! a memory copy, no system call — so the fine-grained breadcrumbs (one per Scene object)
//! need not travel as stdout lines; after the worker has ended the coordinator reads the
//! slot for the exact last location. Without the variable (a worker run by hand) every
//! breadcrumb goes to stdout as before.
//!
//! Layout: `u32 seq` (odd while a write is in progress), `u32 len`, then `len` bytes of the
//! breadcrumb as JSON. A worker killed in the middle of a write leaves an odd `seq`, and
//! the reader then falls back to the last breadcrumb on stdout.

use crate::events::Breadcrumb;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Environment variable naming the slot file.
pub const SLOT_VAR: &str = "PMWORKER_BREADCRUMB_SLOT";
/// The [`SLOT_VAR`] value that names the slot a worker inherits as descriptor `fd`.
pub fn inherited(fd: std::os::fd::RawFd) -> String {
    format!("/proc/self/fd/{fd}")
}

/// Size of the slot file; the coordinator writes it out in full (no sparse pages).
pub const SLOT_BYTES: usize = 4096;
const HEADER: usize = 8;

/// A mapped slot.
pub struct Slot {
    base: *mut u8,
}

// SAFETY: the mapping lives for the whole process and writes go through `&self` with a
// sequence counter; the worker writes from one thread at a time (the pipeline's).
unsafe impl Send for Slot {}
unsafe impl Sync for Slot {}

static SLOT: OnceLock<Option<Slot>> = OnceLock::new();

/// The slot of this process, when the coordinator gave one and it could be mapped.
pub fn slot() -> Option<&'static Slot> {
    SLOT.get_or_init(|| map(&std::env::var_os(SLOT_VAR)?)).as_ref()
}

fn map(path: &std::ffi::OsStr) -> Option<Slot> {
    use std::os::unix::io::AsRawFd;
    let file = std::fs::OpenOptions::new().read(true).write(true).open(path).ok()?;
    if file.metadata().ok()?.len() < SLOT_BYTES as u64 {
        return None;
    }
    // SAFETY: a fresh shared mapping of a file we opened read-write and checked is large enough.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            SLOT_BYTES,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            file.as_raw_fd(),
            0,
        )
    };
    (ptr != libc::MAP_FAILED).then(|| Slot { base: ptr.cast() })
}

impl Slot {
    fn seq(&self) -> &AtomicU32 {
        // SAFETY: the mapping is page-aligned and at least 4 bytes long.
        unsafe { &*(self.base as *const AtomicU32) }
    }

    /// Overwrites the slot with `crumb` (shortened when its JSON would not fit).
    pub fn write(&self, crumb: &Breadcrumb) {
        let mut json = serde_json::to_vec(crumb).unwrap_or_default();
        if json.len() > SLOT_BYTES - HEADER {
            let short = Breadcrumb {
                chunk_path: crumb.chunk_path.as_ref().map(|p| cut(p, 1024)),
                class: None,
                ..crumb.clone()
            };
            json = serde_json::to_vec(&short).unwrap_or_default();
            json.truncate(SLOT_BYTES - HEADER); // unparsable if still too long: the reader falls back
        }
        let seq = self.seq();
        seq.fetch_add(1, Ordering::AcqRel); // odd: write in progress
                                            // SAFETY: both copies stay inside the mapping (HEADER + len ≤ SLOT_BYTES).
        unsafe {
            std::ptr::copy_nonoverlapping(json.as_ptr(), self.base.add(HEADER), json.len());
            std::ptr::copy_nonoverlapping((json.len() as u32).to_le_bytes().as_ptr(), self.base.add(4), 4);
        }
        seq.fetch_add(1, Ordering::AcqRel); // even: complete
    }
}

fn cut(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_string()
}

/// The sequence number in a slot's bytes (changes at every breadcrumb: a liveness signal).
pub fn read_seq(bytes: &[u8]) -> Option<u32> {
    bytes.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

/// The breadcrumb in a slot's bytes, when one was completely written.
pub fn read_slot(bytes: &[u8]) -> Option<Breadcrumb> {
    let seq = read_seq(bytes)?;
    if seq == 0 || seq % 2 == 1 {
        return None;
    }
    let len = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?) as usize;
    serde_json::from_slice(bytes.get(HEADER..HEADER + len)?).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn written_crumbs_read_back_and_torn_ones_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("slot");
        std::fs::write(&path, vec![0u8; SLOT_BYTES]).unwrap();
        assert_eq!(read_slot(&std::fs::read(&path).unwrap()), None, "never written");
        let slot = map(path.as_os_str()).unwrap();
        let crumb = Breadcrumb {
            tier: "t2".into(),
            stream: "Scene".into(),
            chunk_path: Some("Scene/0x2012/[7]0x0005".into()),
            class: Some("Editable Poly".into()),
        };
        slot.write(&crumb);
        let bytes = std::fs::read(&path).unwrap();
        assert_eq!(read_slot(&bytes), Some(crumb.clone()));
        assert_eq!(read_seq(&bytes), Some(2));
        let long = Breadcrumb { chunk_path: Some("x".repeat(10_000)), ..crumb };
        slot.write(&long);
        let back = read_slot(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(back.chunk_path.unwrap().len(), 1024);
        let mut torn = std::fs::read(&path).unwrap();
        torn[0] |= 1;
        assert_eq!(read_slot(&torn), None);
    }
}
