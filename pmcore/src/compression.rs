//! Stream compression, recognised by content and never by name: gzip members (Max 8/9
//! "Compress on save") and zstd frames (reported for Max 2024+, `FF FF` + frame; no real
//! sample exists, so only the magic is trusted). Output is bounded by what the input
//! can legitimately expand to.

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
    /// Output would exceed the bound justified by the input size.
    #[error("{scheme} output exceeds {limit} bytes")]
    TooLarge { scheme: &'static str, limit: u64 },
    /// Bytes after the end of the compressed member.
    #[error("{scheme}: {count} bytes after the end of the compressed data")]
    TrailingBytes { scheme: &'static str, count: u64 },
}

const GZIP_MAGIC: [u8; 3] = [0x1F, 0x8B, 0x08];
const ZSTD_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Deflate expands at most ~1032:1; zstd can in theory do more, but a stream claiming
/// more than this per input byte is treated as hostile.
const MAX_RATIO: u64 = 1100;
/// Absolute bound on one inflated stream.
pub const MAX_INFLATED: u64 = 8 << 30;

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

/// Bound on inflated output for `input_len` compressed bytes.
pub fn inflate_limit(input_len: usize) -> u64 {
    (input_len as u64).saturating_mul(MAX_RATIO).saturating_add(4096).min(MAX_INFLATED)
}

/// Inflates `bytes` with `scheme`; [`Compression::None`] returns a copy.
pub fn decompress(bytes: &[u8], scheme: Compression) -> Result<Vec<u8>, DecompressError> {
    let limit = inflate_limit(bytes.len());
    match scheme {
        Compression::None => Ok(bytes.to_vec()),
        Compression::Gzip => {
            let mut decoder = flate2::bufread::GzDecoder::new(bytes);
            // The trailer's ISIZE (length mod 2^32) presizes the output, so it is not built
            // by doubling (which briefly holds twice the stream); never trusted past `limit`.
            let isize =
                bytes.len().checked_sub(4).map(|at| u32::from_le_bytes(bytes[at..].try_into().expect("4 bytes")));
            let hint = isize.map_or(0, |n| u64::from(n).min(hint_cap(bytes.len(), limit))) as usize;
            let out = read_bounded(&mut decoder, limit, "gzip", hint)?;
            let rest = decoder.into_inner().len() as u64;
            if rest > 0 {
                return Err(DecompressError::TrailingBytes { scheme: "gzip", count: rest });
            }
            Ok(out)
        }
        Compression::Zstd { offset } => {
            let frame = &bytes[offset as usize..];
            let corrupt = |e: std::io::Error| DecompressError::Corrupt { scheme: "zstd", message: e.to_string() };
            let mut decoder = zstd::stream::read::Decoder::with_buffer(frame).map_err(corrupt)?.single_frame();
            let declared = zstd::zstd_safe::get_frame_content_size(frame).ok().flatten();
            let hint = declared.map_or(0, |n| n.min(hint_cap(bytes.len(), limit))) as usize;
            let out = read_bounded(&mut decoder, limit, "zstd", hint)?;
            Ok(out)
        }
    }
}

/// A declared output size is a hint only up to 32 × the compressed bytes (real `.max`
/// streams compress 2–11×): a hostile header cannot make us reserve more than that up
/// front; past it the buffer grows as data actually arrives.
fn hint_cap(input_len: usize, limit: u64) -> u64 {
    (input_len as u64).saturating_mul(32).min(limit)
}

fn read_bounded(
    reader: &mut impl Read,
    limit: u64,
    scheme: &'static str,
    size_hint: usize,
) -> Result<Vec<u8>, DecompressError> {
    // One extra byte so reading exactly `size_hint` bytes and probing for more never regrows.
    let mut out = Vec::with_capacity(size_hint.saturating_add(1));
    let read = reader
        .take(limit + 1)
        .read_to_end(&mut out)
        .map_err(|e| DecompressError::Corrupt { scheme, message: e.to_string() })?;
    if read as u64 > limit {
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
            assert_eq!(decompress(&packed, scheme).unwrap(), data);
        }
        assert_eq!(detect(b"\x12\x20\x00\x00"), Compression::None);
    }

    #[test]
    fn corrupt_payloads_are_errors() {
        let mut gz = compress(b"hello hello hello", Compression::Gzip);
        let n = gz.len();
        gz[n / 2] ^= 0xFF;
        gz.truncate(n - 3);
        assert!(decompress(&gz, Compression::Gzip).is_err());
        let mut zs = compress(&b"abc".repeat(100), Compression::Zstd { offset: 2 });
        zs.truncate(10);
        assert!(matches!(decompress(&zs, Compression::Zstd { offset: 2 }), Err(DecompressError::Corrupt { .. })));
    }

    #[test]
    fn trailing_bytes_after_gzip_member_are_reported() {
        let mut gz = compress(b"hello", Compression::Gzip);
        gz.extend_from_slice(b"junk");
        assert_eq!(
            decompress(&gz, Compression::Gzip),
            Err(DecompressError::TrailingBytes { scheme: "gzip", count: 4 })
        );
    }
}
