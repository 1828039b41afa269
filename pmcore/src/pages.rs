//! Huge pages for the few large buffers a check fills end to end (the file's bytes, each
//! stream's bytes, inflated output): one fault per 2 MiB instead of 512, without asking
//! for huge pages on the whole heap, whose small objects are scattered over partly used
//! 2 MiB regions that would each count whole towards the peak RSS (docs/performance.md).
//!
//! Advisory only: the kernel ignores it where transparent huge pages are off (system-wide
//! `never`, or `PR_SET_THP_DISABLE` in the process, as the farm's coordinator and
//! in-process runs set it) and nothing else changes — contents, sizes and addresses stay.

/// Buffers smaller than this are not advised: they cannot hold an aligned 2 MiB page.
const HUGE_PAGE: usize = 2 << 20;

/// Asks for transparent huge pages on the aligned 2 MiB pages inside `buf`'s capacity.
/// Call it before the buffer is written (once written, its pages are already faulted).
pub fn advise_huge(buf: &Vec<u8>) {
    advise_range(buf.as_ptr() as usize, buf.capacity());
}

#[cfg(target_os = "linux")]
fn advise_range(addr: usize, len: usize) {
    if len < HUGE_PAGE {
        return;
    }
    let start = addr.next_multiple_of(HUGE_PAGE);
    let end = (addr + len) / HUGE_PAGE * HUGE_PAGE;
    if end > start {
        // SAFETY: madvise(MADV_HUGEPAGE) only sets a paging hint on whole pages inside
        // memory this buffer owns; it neither reads nor changes their contents.
        unsafe { libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE) };
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_range(_addr: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    #[test]
    fn advising_keeps_the_buffer_as_it_was() {
        let mut v: Vec<u8> = Vec::with_capacity(5 << 20);
        super::advise_huge(&v);
        v.extend((0..5u32 << 20).map(|i| i as u8));
        assert_eq!(v.len(), 5 << 20);
        assert!(v.iter().enumerate().all(|(i, b)| *b == i as u8));
        super::advise_huge(&Vec::new()); // nothing to advise
    }
}
