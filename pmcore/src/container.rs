//! The OLE2 envelope, through `cfb`: every stream (in directory order), the root CLSID,
//! and a writer that builds a new compound file in memory. `cfb` can panic on
//! malformed input; every call into it here is contained and reported as corruption.

use crate::guard;
use std::io::{Cursor, Read, Write};

/// A stream's bytes as stored in the container (still compressed, if it was).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OleStream {
    /// Path inside the container without the leading `/` (`Scene`, `\u{5}SummaryInformation`).
    pub name: String,
    /// Stored bytes.
    pub bytes: Vec<u8>,
}

/// An opened compound file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OleFile {
    /// Root storage CLSID (16 bytes as stored).
    pub clsid: [u8; 16],
    /// Streams in directory order.
    pub streams: Vec<OleStream>,
}

/// Why a compound file could not be read or written.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// `cfb` refused the structure.
    #[error("OLE structure: {0}")]
    Structure(String),
    /// `cfb` panicked on it (contained).
    #[error("OLE reader panicked: {0}")]
    ReaderPanic(String),
    /// A stream claims more bytes than the whole file holds.
    #[error("stream {stream}: claims {claimed} bytes in a {file}-byte file")]
    OversizedStream { stream: String, claimed: u64, file: u64 },
    /// Reading one stream failed.
    #[error("stream {stream}: {message}")]
    StreamRead { stream: String, message: String },
    /// Writing a new compound file failed.
    #[error("OLE write: {0}")]
    Write(String),
}

impl OleFile {
    /// Stream by exact name.
    pub fn stream(&self, name: &str) -> Option<&OleStream> {
        self.streams.iter().find(|s| s.name == name)
    }

    /// CLSID in the usual `XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX` form.
    pub fn clsid_string(&self) -> String {
        uuid::Uuid::from_bytes_le(self.clsid).hyphenated().to_string().to_uppercase()
    }
}

/// Opens a compound file held in memory.
pub fn open(bytes: &[u8]) -> Result<OleFile, ContainerError> {
    match guard::contain(|| open_uncontained(bytes)) {
        Ok(result) => result,
        Err(message) => Err(ContainerError::ReaderPanic(message)),
    }
}

fn open_uncontained(bytes: &[u8]) -> Result<OleFile, ContainerError> {
    let file_len = bytes.len() as u64;
    let mut cf = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(|e| ContainerError::Structure(e.to_string()))?;
    let clsid = uuid_to_le_bytes(cf.root_entry().clsid());
    let entries: Vec<(String, u64)> = cf
        .walk()
        .filter(|e| e.is_stream())
        .map(|e| (e.path().to_string_lossy().trim_start_matches('/').to_string(), e.len()))
        .collect();
    let mut streams = Vec::with_capacity(entries.len());
    for (name, len) in entries {
        if len > file_len {
            return Err(ContainerError::OversizedStream { stream: name, claimed: len, file: file_len });
        }
        let mut data = Vec::with_capacity(len as usize);
        crate::pages::advise_huge(&data);
        let mut s = cf
            .open_stream(format!("/{name}"))
            .map_err(|e| ContainerError::StreamRead { stream: name.clone(), message: e.to_string() })?;
        s.read_to_end(&mut data)
            .map_err(|e| ContainerError::StreamRead { stream: name.clone(), message: e.to_string() })?;
        streams.push(OleStream { name, bytes: data });
    }
    Ok(OleFile { clsid, streams })
}

/// Writes a new compound file (version 3, 512-byte sectors) holding `streams` under
/// their names and `clsid` on the root storage.
pub fn write<'s>(
    clsid: &[u8; 16],
    streams: impl IntoIterator<Item = (&'s str, &'s [u8])>,
) -> Result<Vec<u8>, ContainerError> {
    let werr = |e: std::io::Error| ContainerError::Write(e.to_string());
    let streams: Vec<(&str, &[u8])> = streams.into_iter().collect();
    // Presize the output: sectors plus directory and FAT overhead, so the buffer never regrows.
    let payload: usize = streams.iter().map(|(_, b)| b.len().div_ceil(512) * 512 + 128).sum();
    let estimate = payload + payload / 64 + 16 * 1024;
    let mut cf = cfb::CompoundFile::create_with_version(cfb::Version::V3, Cursor::new(Vec::with_capacity(estimate)))
        .map_err(werr)?;
    for (name, bytes) in streams {
        let path = format!("/{name}");
        if let Some(parent) = std::path::Path::new(&path).parent() {
            if parent != std::path::Path::new("/") && !cf.is_storage(parent) {
                cf.create_storage_all(parent).map_err(werr)?;
            }
        }
        let mut s = cf.create_stream(&path).map_err(werr)?;
        s.write_all(bytes).map_err(werr)?;
        s.flush().map_err(werr)?;
    }
    cf.set_storage_clsid("/", uuid::Uuid::from_bytes_le(*clsid)).map_err(werr)?;
    cf.flush().map_err(werr)?;
    Ok(cf.into_inner().into_inner())
}

/// Writes an [`OleFile`] back (stream bytes as stored).
pub fn write_file(file: &OleFile) -> Result<Vec<u8>, ContainerError> {
    write(&file.clsid, file.streams.iter().map(|s| (s.name.as_str(), s.bytes.as_slice())))
}

/// How one stream of a reopened file compares with what was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum StreamCheck {
    /// Same bytes.
    Same,
    /// Not present in the reopened file.
    Missing,
    /// Differs; carries the reopened bytes for the report (the rare path).
    Differs(Vec<u8>),
}

/// What a rewritten file looked like when reopened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Reopened {
    /// Root CLSID of the reopened file.
    pub clsid: [u8; 16],
    /// One check per expected stream, same order.
    pub checks: Vec<StreamCheck>,
    /// Stream names of the reopened file in directory order.
    pub names: Vec<String>,
}

/// Reopens `bytes` and compares each expected stream, streaming through a small buffer
/// (no copy of the streams).
pub(crate) fn reopen_and_compare(bytes: &[u8], expected: &[(&str, &[u8])]) -> Result<Reopened, ContainerError> {
    match guard::contain(|| reopen_and_compare_uncontained(bytes, expected)) {
        Ok(r) => r,
        Err(message) => Err(ContainerError::ReaderPanic(message)),
    }
}

fn reopen_and_compare_uncontained(bytes: &[u8], expected: &[(&str, &[u8])]) -> Result<Reopened, ContainerError> {
    let mut cf = cfb::CompoundFile::open(Cursor::new(bytes)).map_err(|e| ContainerError::Structure(e.to_string()))?;
    let clsid = uuid_to_le_bytes(cf.root_entry().clsid());
    let names: Vec<String> = cf
        .walk()
        .filter(|e| e.is_stream())
        .map(|e| e.path().to_string_lossy().trim_start_matches('/').to_string())
        .collect();
    let mut checks = Vec::with_capacity(expected.len());
    let mut buf = vec![0u8; 64 * 1024];
    for (name, want) in expected {
        if !names.iter().any(|n| n == name) {
            checks.push(StreamCheck::Missing);
            continue;
        }
        let read_err =
            |e: std::io::Error| ContainerError::StreamRead { stream: name.to_string(), message: e.to_string() };
        let mut s = cf.open_stream(format!("/{name}")).map_err(read_err)?;
        let mut same = s.len() == want.len() as u64;
        let mut pos = 0usize;
        while same {
            let n = s.read(&mut buf).map_err(read_err)?;
            if n == 0 {
                break;
            }
            same = want.get(pos..pos + n) == Some(&buf[..n]);
            pos += n;
        }
        if same {
            checks.push(StreamCheck::Same);
        } else {
            let mut all = Vec::new();
            let mut s = cf.open_stream(format!("/{name}")).map_err(read_err)?;
            s.read_to_end(&mut all).map_err(read_err)?;
            checks.push(StreamCheck::Differs(all));
        }
    }
    Ok(Reopened { clsid, checks, names })
}

fn uuid_to_le_bytes(u: &uuid::Uuid) -> [u8; 16] {
    u.to_bytes_le()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_then_open_keeps_names_bytes_and_clsid() {
        let clsid = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
        let big = vec![7u8; 70_000];
        let streams: Vec<(&str, &[u8])> =
            vec![("Scene", &big), ("\u{5}SummaryInformation", b"abc"), ("Empty", b""), ("Sub/Inner", b"xyz")];
        let bytes = write(&clsid, streams.clone()).unwrap();
        let file = open(&bytes).unwrap();
        assert_eq!(file.clsid, clsid);
        for (name, data) in streams {
            assert_eq!(file.stream(name).unwrap().bytes, data, "{name}");
        }
    }
}
