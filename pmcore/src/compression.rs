//! Stream compression, recognised by content and never by name: gzip members (Max 8/9
//! "Compress on save") and zstd frames (Max 2024+ "Compressed": `FF FF` + one frame per
//! stream, measured on two real files; a bare frame is accepted too but no real file shows
//! one). Output is bounded by one inflation budget per file ([`file_budget`]): what the
//! input can legitimately expand to and what fits the worker's memory cap.

use std::io::Read;

/// Compression scheme of one stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Compression {
    /// Stored as is.
    None,
    /// One gzip member (`1F 8B 08`).
    Gzip,
    /// A zstd frame starting at `offset` (0, or 2 after an `FF FF` prefix).
    Zstd { offset: u8 },
}

impl Compression {
    /// Name used in events and buckets.
    pub fn name(&self) -> &'static str {
        match self {
            Compression::None => "none",
            Compression::Gzip => "gzip",
            Compression::Zstd { .. } => "zstd",
        }
    }
}

/// Why a compressed stream could not be inflated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecompressError {
    /// The decoder reported corrupt data.
    #[error("{scheme} data corrupt: {message}")]
    Corrupt { scheme: &'static str, message: String },
    /// Output would exceed what is left of the file's inflation budget.
    #[error("{scheme} output exceeds the file's inflation budget ({limit} bytes left of it)")]
    TooLarge { scheme: &'static str, limit: u64 },
    /// An allocation for the output failed although the budget allowed it: the process is
    /// out of memory (the worker ends as `oom`, never with a verdict on the file).
    #[error("{scheme}: out of memory while inflating ({bytes} bytes)")]
    OutOfMemory { scheme: &'static str, bytes: u64 },
    /// Bytes after the end of the compressed member.
    #[error("{scheme}: {count} bytes after the end of the compressed data")]
    TrailingBytes { scheme: &'static str, count: u64 },
}

impl DecompressError {
    /// Failure kind of a stream that could not be inflated: `inflation-limit` past the
    /// budget, `oom` when memory ran out, else `decompress`.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            DecompressError::TooLarge { .. } => "inflation-limit",
            DecompressError::OutOfMemory { .. } => "oom",
            DecompressError::Corrupt { .. } | DecompressError::TrailingBytes { .. } => "decompress",
        }
    }
}

const GZIP_MAGIC: [u8; 3] = [0x1F, 0x8B, 0x08];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Deflate expands at most ~1032:1; zstd can in theory do more, but a file claiming more
/// than this per input byte is treated as hostile.
const MAX_RATIO: u64 = 1100;
/// Absolute bound on the inflated bytes of one file.
pub(crate) const MAX_INFLATED: u64 = 8 << 30;
/// Share of the address-space cap the inflated streams of a file may take: the worker
/// peaks at about 3 × its decoded bytes + 32 MiB (docs/performance.md), and the cap also
/// covers the allocator's reservations, so a fifth leaves room for the rest.
pub(crate) const MEMORY_SHARE_DIVISOR: u64 = 5;
/// First growth step of an output buffer with no (or a tiny) size hint.
const MIN_GROWTH: usize = 64 << 10;

/// Inflation budget of one file (all its streams together), checked as output grows:
/// `min(1100 × input + 4 KiB, cap / 5, 8 GiB)`, where `cap` is the worker's address-space
/// cap (`None`: no cap). A file over it fails with kind `inflation-limit`.
pub fn file_budget(input_len: u64, memory_cap: Option<u64>) -> u64 {
    let by_ratio = input_len.saturating_mul(MAX_RATIO).saturating_add(4096);
    let by_memory = memory_cap.map_or(u64::MAX, |cap| cap / MEMORY_SHARE_DIVISOR);
    by_ratio.min(by_memory).min(MAX_INFLATED)
}

/// What is left of one file's inflation budget while its streams are decoded in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Bytes that may still be inflated.
    pub remaining: u64,
}

impl Budget {
    /// A budget of `bytes`.
    pub fn new(bytes: u64) -> Self {
        Budget { remaining: bytes }
    }

    /// The budget [`file_budget`] gives a file of `input_len` bytes under no memory cap.
    pub(crate) fn for_input(input_len: u64) -> Self {
        Budget::new(file_budget(input_len, None))
    }
}

/// Recognises the scheme from the first bytes.
pub fn detect(bytes: &[u8]) -> Compression {
    if bytes.starts_with(&GZIP_MAGIC) {
        Compression::Gzip
    } else if bytes.starts_with(&ZSTD_MAGIC) {
        Compression::Zstd { offset: 0 }
    } else if bytes.len() >= 6 && bytes[..2] == [0xFF, 0xFF] && bytes[2..6] == ZSTD_MAGIC {
        Compression::Zstd { offset: 2 }
    } else {
        Compression::None
    }
}

/// Inflates `bytes` with `scheme`; [`Compression::None`] returns a copy. Inflated bytes
/// are taken from `budget`.
pub fn decompress(bytes: &[u8], scheme: Compression, budget: &mut Budget) -> Result<Vec<u8>, DecompressError> {
    let limit = budget.remaining;
    let out = match scheme {
        Compression::None => return Ok(bytes.to_vec()),
        Compression::Gzip => {
            let mut decoder = flate2::bufread::GzDecoder::new(bytes);
            // The trailer's ISIZE (length mod 2^32) presizes the output, so it is not built
            // by doubling (which briefly holds twice the stream); never trusted past `limit`.
            let isize =
                bytes.len().checked_sub(4).map(|at| u32::from_le_bytes(bytes[at..].try_into().expect("4 bytes")));
            let hint = isize.map_or(0, |n| u64::from(n).min(hint_cap(bytes.len(), limit)));
            let out = read_bounded(&mut decoder, limit, "gzip", hint)?;
            let rest = decoder.into_inner().len() as u64;
            if rest > 0 {
                return Err(DecompressError::TrailingBytes { scheme: "gzip", count: rest });
            }
            out
        }
        Compression::Zstd { offset } => {
            let frame = &bytes[offset as usize..];
            let mut decoder =
                zstd::stream::read::Decoder::with_buffer(frame).map_err(|e| io_error("zstd", e, 0))?.single_frame();
            let declared = zstd::zstd_safe::get_frame_content_size(frame).ok().flatten();
            let hint = declared.map_or(0, |n| n.min(hint_cap(bytes.len(), limit)));
            read_bounded(&mut decoder, limit, "zstd", hint)?
        }
    };
    budget.remaining -= out.len() as u64;
    Ok(out)
}

/// A declared output size is a hint only up to 32 × the compressed bytes (real `.max`
/// streams compress 2–11×): a hostile header cannot make us reserve more than that up
/// front; past it the buffer grows as data actually arrives.
fn hint_cap(input_len: usize, limit: u64) -> u64 {
    (input_len as u64).saturating_mul(32).min(limit)
}

/// Decoder I/O error as a typed error: an allocation failure (Rust's `OutOfMemory` kind,
/// or zstd's "allocation error") is [`DecompressError::OutOfMemory`], the rest corrupt data.
fn io_error(scheme: &'static str, e: std::io::Error, bytes: u64) -> DecompressError {
    let message = e.to_string();
    if e.kind() == std::io::ErrorKind::OutOfMemory || message.to_ascii_lowercase().contains("allocation") {
        DecompressError::OutOfMemory { scheme, bytes }
    } else {
        DecompressError::Corrupt { scheme, message }
    }
}

/// Reads `reader` to its end into a buffer that never holds more than `limit + 1` bytes:
/// it starts at `size_hint`, grows by at most its own size (so no step doubles past the
/// budget) and every step is checked before it is taken. An allocation that fails is
/// [`DecompressError::OutOfMemory`].
fn read_bounded(
    reader: &mut impl Read,
    limit: u64,
    scheme: &'static str,
    size_hint: u64,
) -> Result<Vec<u8>, DecompressError> {
    // At most `limit + 1` bytes ever: reading one byte past the limit proves the excess.
    let ceiling = usize::try_from(limit.saturating_add(1)).unwrap_or(usize::MAX);
    let mut out: Vec<u8> = Vec::new();
    // One extra byte so reading exactly `size_hint` bytes and probing for more never regrows.
    let first = usize::try_from(size_hint).unwrap_or(usize::MAX).saturating_add(1).min(ceiling);
    out.try_reserve_exact(first).map_err(|_| DecompressError::OutOfMemory { scheme, bytes: first as u64 })?;
    crate::pages::advise_huge(&out);
    out.resize(out.capacity().min(ceiling), 0);
    let mut filled = 0;
    loop {
        if filled == out.len() {
            if out.len() >= ceiling {
                return Err(DecompressError::TooLarge { scheme, limit });
            }
            let step = out.len().max(MIN_GROWTH).min(ceiling - out.len());
            out.try_reserve_exact(step)
                .map_err(|_| DecompressError::OutOfMemory { scheme, bytes: (out.len() + step) as u64 })?;
            out.resize(out.capacity().min(ceiling), 0);
        }
        match reader.read(&mut out[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(io_error(scheme, e, out.len() as u64)),
        }
    }
    out.truncate(filled);
    if out.len() as u64 > limit {
        return Err(DecompressError::TooLarge { scheme, limit });
    }
    Ok(out)
}

/// Compresses with `scheme` (for fixtures and synthetic corpora; a rewrite of a real
/// file keeps its original compressed bytes).
pub fn compress(bytes: &[u8], scheme: Compression) -> Vec<u8> {
    use std::io::Write;
    match scheme {
        Compression::None => bytes.to_vec(),
        Compression::Gzip => {
            let mut e = flate2::GzBuilder::new().mtime(0).write(Vec::new(), flate2::Compression::default());
            e.write_all(bytes).expect("in-memory write");
            e.finish().expect("in-memory write")
        }
        Compression::Zstd { offset } => {
            let mut out = if offset == 2 { vec![0xFF, 0xFF] } else { Vec::new() };
            out.extend(zstd::bulk::compress(bytes, 3).expect("in-memory zstd"));
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_and_round_trips_each_scheme() {
        let data = b"chunk bytes chunk bytes chunk bytes".repeat(20);
        for scheme in [Compression::Gzip, Compression::Zstd { offset: 0 }, Compression::Zstd { offset: 2 }] {
            let packed = compress(&data, scheme);
            assert_eq!(detect(&packed), scheme);
            let mut budget = Budget::for_input(packed.len() as u64);
            let before = budget.remaining;
            assert_eq!(decompress(&packed, scheme, &mut budget).unwrap(), data);
            assert_eq!(budget.remaining, before - data.len() as u64, "inflated bytes are taken from the budget");
        }
        assert_eq!(detect(b"\x12\x20\x00\x00"), Compression::None);
    }

    #[test]
    fn corrupt_payloads_are_errors() {
        let mut gz = compress(b"hello hello hello", Compression::Gzip);
        let n = gz.len();
        gz[n / 2] ^= 0xFF;
        gz.truncate(n - 3);
        assert!(decompress(&gz, Compression::Gzip, &mut Budget::new(1 << 20)).is_err());
        let mut zs = compress(&b"abc".repeat(100), Compression::Zstd { offset: 2 });
        zs.truncate(10);
        assert!(matches!(
            decompress(&zs, Compression::Zstd { offset: 2 }, &mut Budget::new(1 << 20)),
            Err(DecompressError::Corrupt { .. })
        ));
    }

    #[test]
    fn trailing_bytes_after_gzip_member_are_reported() {
        let mut gz = compress(b"hello", Compression::Gzip);
        gz.extend_from_slice(b"junk");
        assert_eq!(
            decompress(&gz, Compression::Gzip, &mut Budget::new(1 << 20)),
            Err(DecompressError::TrailingBytes { scheme: "gzip", count: 4 })
        );
    }

    #[test]
    fn budget_is_the_smallest_of_ratio_memory_and_absolute_bounds() {
        assert_eq!(file_budget(1000, None), 1000 * 1100 + 4096);
        assert_eq!(file_budget(10 << 20, Some(4 << 30)), (4 << 30) / 5);
        assert_eq!(file_budget(u64::MAX, None), MAX_INFLATED);
    }

    #[test]
    fn output_past_the_budget_is_inflation_limit_and_exact_fit_passes() {
        let data = vec![0u8; 300_000];
        for scheme in [Compression::Gzip, Compression::Zstd { offset: 2 }] {
            let packed = compress(&data, scheme);
            let mut budget = Budget::new(data.len() as u64);
            assert_eq!(decompress(&packed, scheme, &mut budget).unwrap().len(), data.len());
            assert_eq!(budget.remaining, 0);
            let mut short = Budget::new(data.len() as u64 - 1);
            let err = decompress(&packed, scheme, &mut short).unwrap_err();
            assert_eq!(err, DecompressError::TooLarge { scheme: scheme.name(), limit: data.len() as u64 - 1 });
            assert_eq!(err.kind(), "inflation-limit");
            assert_eq!(short.remaining, data.len() as u64 - 1, "a failed stream takes nothing");
        }
    }

    /// Reader that records the largest buffer it was handed.
    struct Spy<'a> {
        inner: &'a [u8],
        largest_request: usize,
    }

    impl Read for Spy<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.largest_request = self.largest_request.max(buf.len());
            self.inner.read(buf)
        }
    }

    /// Reader whose allocations fail, as a decoder under an exhausted address space does.
    struct OutOfMemoryReader;

    impl Read for OutOfMemoryReader {
        fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from(std::io::ErrorKind::OutOfMemory))
        }
    }

    #[test]
    fn an_allocation_failure_under_the_budget_is_oom_not_corrupt_data() {
        let err = read_bounded(&mut OutOfMemoryReader, 1 << 20, "zstd", 0).unwrap_err();
        assert!(matches!(err, DecompressError::OutOfMemory { scheme: "zstd", .. }), "{err:?}");
        assert_eq!(err.kind(), "oom");
        // zstd's own message for a failed allocation of its window.
        let e = std::io::Error::other("Allocation error : not enough memory");
        assert!(matches!(io_error("zstd", e, 0), DecompressError::OutOfMemory { .. }));
        let e = std::io::Error::other("Unknown frame descriptor");
        assert!(matches!(io_error("zstd", e, 0), DecompressError::Corrupt { .. }));
    }

    #[test]
    fn growth_never_reaches_past_the_budget() {
        // 1 MiB of input and a budget of 700 000 bytes: doubling would ask for 1 MiB+.
        let data = vec![7u8; 1 << 20];
        let mut spy = Spy { inner: &data, largest_request: 0 };
        let err = read_bounded(&mut spy, 700_000, "test", 0).unwrap_err();
        assert_eq!(err, DecompressError::TooLarge { scheme: "test", limit: 700_000 });
        assert!(spy.largest_request <= 700_001, "asked for {} bytes", spy.largest_request);
        let mut spy = Spy { inner: &data[..5000], largest_request: 0 };
        assert_eq!(read_bounded(&mut spy, 700_000, "test", 0).unwrap().len(), 5000);
    }
}
