//! The `.max`'s decoded streams as one searchable text: is a name held anywhere in the
//! file, as ASCII or as UTF-16LE? Searched without ASCII case (Max node names are
//! case-insensitive), so a name this calls absent is absent in any case, a superset of an
//! exact byte search (`docs/triage.md`, missing nodes). Borrows the decoded streams: no copy.

use pmcore::MaxFile;

/// Every decoded stream of one file, and the streams' logical names.
#[derive(Debug, Default)]
pub struct MaxText<'f> {
    streams: Vec<&'f [u8]>,
    names: Vec<String>,
}

/// Whether `needle` (ASCII letters already lowered) occurs in `haystack`, ASCII case ignored.
fn contains_ignoring_ascii_case(haystack: &[u8], needle: &[u8]) -> bool {
    let Some(&first) = needle.first() else { return true };
    haystack.len() >= needle.len()
        && (0..=haystack.len() - needle.len()).any(|i| {
            haystack[i].to_ascii_lowercase() == first
                && haystack[i..i + needle.len()].iter().zip(needle).all(|(h, n)| h.to_ascii_lowercase() == *n)
        })
}

impl<'f> MaxText<'f> {
    /// Every stream of `file` that decodes (one that does not is left out: its T1 names it).
    pub fn of(file: &'f MaxFile) -> MaxText<'f> {
        let streams = (0..file.streams.len()).filter_map(|i| file.data(i).ok()).collect();
        let names = file.streams.iter().map(|s| pmcore::stream_logical_name(&s.name).to_string()).collect();
        MaxText { streams, names }
    }

    /// A text over raw stream bytes, without stream names (tests).
    pub fn from_streams(streams: &[&'f [u8]]) -> MaxText<'f> {
        MaxText { streams: streams.to_vec(), names: Vec::new() }
    }

    /// Whether the file has a stream of this (logical) name.
    pub fn has_stream(&self, name: &str) -> bool {
        self.names.iter().any(|n| n == name)
    }

    /// Whether `name` occurs in some stream as its UTF-8 bytes or as UTF-16LE, ASCII case ignored.
    pub fn holds(&self, name: &str) -> bool {
        let ascii: Vec<u8> = name.bytes().map(|b| b.to_ascii_lowercase()).collect();
        let utf16: Vec<u8> =
            name.encode_utf16().flat_map(|u| u.to_le_bytes()).map(|b| b.to_ascii_lowercase()).collect();
        self.streams.iter().any(|s| contains_ignoring_ascii_case(s, &ascii) || contains_ignoring_ascii_case(s, &utf16))
    }
}
