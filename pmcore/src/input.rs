//! What the bytes of an input are, decided before any parsing: an OLE compound file,
//! a Git-LFS pointer, an empty file, something else, or an OLE file whose structure is
//! broken. The farm buckets and skips on this, so each is a distinct outcome.

use crate::container::{self, OleFile};

/// The eight-byte OLE2 compound file signature.
pub(crate) const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];
const LFS_PREFIX: &[u8] = b"version https://git-lfs.github.com/spec/v1";

/// The class of an input file.
#[derive(Debug)]
pub enum Input {
    /// A readable OLE compound file with its streams.
    Ole(OleFile),
    /// A Git-LFS pointer: the real file lives elsewhere.
    LfsPointer(LfsPointer),
    /// Zero bytes.
    Empty,
    /// Not an OLE file at all (no signature).
    NotOle,
    /// The OLE signature is right but the structure is broken.
    CorruptOle(container::ContainerError),
}

/// Fields of a Git-LFS pointer file.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct LfsPointer {
    /// `oid` line value, e.g. `sha256:826c…`.
    pub oid: Option<String>,
    /// Size of the real object in bytes.
    pub size: Option<u64>,
}

impl Input {
    /// Stable name used in events (`ole`, `lfs-pointer`, `empty`, `not-ole`, `corrupt-ole`).
    pub fn class_name(&self) -> &'static str {
        match self {
            Input::Ole(_) => "ole",
            Input::LfsPointer(_) => "lfs-pointer",
            Input::Empty => "empty",
            Input::NotOle => "not-ole",
            Input::CorruptOle(_) => "corrupt-ole",
        }
    }
}

/// Classifies `bytes` and, for OLE files, opens the container.
pub fn classify(bytes: &[u8]) -> Input {
    if bytes.is_empty() {
        return Input::Empty;
    }
    if bytes.starts_with(LFS_PREFIX) {
        return Input::LfsPointer(parse_lfs_pointer(bytes));
    }
    if !bytes.starts_with(&OLE_MAGIC) {
        return Input::NotOle;
    }
    match container::open(bytes) {
        Ok(file) => Input::Ole(file),
        Err(e) => Input::CorruptOle(e),
    }
}

fn parse_lfs_pointer(bytes: &[u8]) -> LfsPointer {
    let text = String::from_utf8_lossy(bytes);
    let mut pointer = LfsPointer::default();
    for line in text.lines() {
        if let Some(oid) = line.strip_prefix("oid ") {
            pointer.oid = Some(oid.trim().to_string());
        } else if let Some(size) = line.strip_prefix("size ") {
            pointer.size = size.trim().parse().ok();
        }
    }
    pointer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_each_non_ole_kind() {
        assert!(matches!(classify(b""), Input::Empty));
        assert!(matches!(classify(b"hello world\n"), Input::NotOle));
        let lfs = b"version https://git-lfs.github.com/spec/v1\noid sha256:abcd\nsize 3244032\n";
        match classify(lfs) {
            Input::LfsPointer(p) => {
                assert_eq!(p.oid.as_deref(), Some("sha256:abcd"));
                assert_eq!(p.size, Some(3244032));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn magic_with_garbage_is_corrupt_ole() {
        let mut bytes = OLE_MAGIC.to_vec();
        bytes.extend(std::iter::repeat_n(0xAB, 600));
        assert!(matches!(classify(&bytes), Input::CorruptOle(_)));
        assert!(matches!(classify(&OLE_MAGIC), Input::CorruptOle(_)));
    }
}
