//! First-difference search and the hex windows that go with it.

use super::Mismatch;
use crate::chunk::{locate_offset, Chunk};

/// Bytes shown on each side of the first difference.
pub(crate) const WINDOW: usize = 16;

/// Hex of `data[start..start + len]` (clamped), bytes separated by spaces.
pub(crate) fn hex_window(data: &[u8], start: usize, len: usize) -> String {
    let end = start.saturating_add(len).min(data.len());
    let start = start.min(end);
    data[start..end].iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

/// Compares `expected` with `actual`; on a difference returns a [`Mismatch`] whose
/// chunk path is located in `tree` (the parsed original) when one is given.
pub(crate) fn first_mismatch(
    stream: &str,
    kind: &str,
    expected: &[u8],
    actual: &[u8],
    tree: Option<&[Chunk<'_>]>,
) -> Option<Mismatch> {
    if expected == actual {
        return None;
    }
    let offset = expected.iter().zip(actual).position(|(a, b)| a != b).unwrap_or(expected.len().min(actual.len()));
    let window_start = offset.saturating_sub(WINDOW);
    let chunk_path = match tree {
        Some(t) => locate_offset(stream, t, offset as u64).0,
        None => stream.to_string(),
    };
    Some(Mismatch {
        kind: kind.to_string(),
        chunk_path,
        offset: offset as u64,
        expected_hex: hex_window(expected, window_start, 2 * WINDOW),
        actual_hex: hex_window(actual, window_start, 2 * WINDOW),
        window_start: window_start as u64,
        message: format!(
            "{stream}: first difference at byte {offset} (expected {} bytes, got {})",
            expected.len(),
            actual.len()
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_first_difference_and_length_change() {
        let m = first_mismatch("S", "k", b"abcdef", b"abXdef", None).unwrap();
        assert_eq!(m.offset, 2);
        assert_eq!(m.expected_hex, "61 62 63 64 65 66");
        assert_eq!(m.actual_hex, "61 62 58 64 65 66");
        let m = first_mismatch("S", "k", b"abc", b"abcd", None).unwrap();
        assert_eq!(m.offset, 3);
        assert!(first_mismatch("S", "k", b"abc", b"abc", None).is_none());
    }
}
