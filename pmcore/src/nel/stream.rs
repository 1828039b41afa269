//! The NeL stream conventions (`NLMISC::IStream`, binary mode) shared by every NeL format:
//! little-endian numbers, versions as one byte (`0xFF` + `u32` from 255), strings and
//! containers as an `s32` count then the elements, `bool` as one byte, poly pointers as a
//! `u64` id then, on first sight of the id, the class name and the object.
//!
//! The reader is bounded: a count is checked against the bytes left before anything is
//! allocated, and every error names the structure path and the byte offset. Values that
//! NeL wrote from uninitialised memory (bools other than 0/1, garbage floats) are kept as
//! their raw bytes so a re-write is byte-identical.

use std::collections::BTreeSet;

/// Why bytes are not the NeL structure expected; `offset` is where reading stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path} at byte {offset}: {what}")]
pub struct NelError {
    /// Byte offset in the file.
    pub offset: usize,
    /// Structure path, e.g. `CMesh/MeshGeom/VertexBuffer`.
    pub path: String,
    /// What was wrong.
    pub what: String,
}

/// A run of bytes the reader could not type, kept in place so the file re-writes
/// byte-identically; `why` is the error that stopped typed reading there.
#[derive(Clone, Debug, PartialEq)]
pub struct Opaque {
    /// Offset of the run in the file it was read from.
    pub offset: usize,
    /// The bytes, unchanged.
    pub bytes: Vec<u8>,
    /// Why this run is not typed.
    pub why: NelError,
}

/// A typed structure, or — when it could not be read — the rest of the stream as an
/// opaque run. Nothing after an untyped field can be located, so an opaque part always
/// runs to the end of the stream.
#[derive(Clone, Debug, PartialEq)]
pub enum Part<T> {
    /// Fully typed.
    Typed(T),
    /// Kept as bytes.
    Opaque(Opaque),
}

impl<T> Part<T> {
    /// The typed value, if any.
    pub(crate) fn typed(&self) -> Option<&T> {
        match self {
            Part::Typed(t) => Some(t),
            Part::Opaque(_) => None,
        }
    }
}

/// Bounded little-endian reader over one NeL stream.
pub(crate) struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    path: Vec<&'static str>,
    seen_ptrs: BTreeSet<u64>,
    opaque_runs: Vec<(usize, usize, String)>,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Reader<'a> {
        Reader { data, pos: 0, path: Vec::new(), seen_ptrs: BTreeSet::new(), opaque_runs: Vec::new() }
    }

    /// Bytes not read yet.
    pub(crate) fn left(&self) -> usize {
        self.data.len() - self.pos
    }

    /// Opaque runs taken so far: `(offset, length, why)`.
    pub(crate) fn opaque_runs(&self) -> &[(usize, usize, String)] {
        &self.opaque_runs
    }

    /// An error at the current offset.
    pub(crate) fn error(&self, what: impl Into<String>) -> NelError {
        self.error_at(self.pos, what)
    }

    /// An error at `offset`.
    pub(crate) fn error_at(&self, offset: usize, what: impl Into<String>) -> NelError {
        let path = if self.path.is_empty() { "stream".to_string() } else { self.path.join("/") };
        NelError { offset, path, what: what.into() }
    }

    /// Runs `f` with `name` pushed on the structure path.
    pub(crate) fn within<T>(
        &mut self,
        name: &'static str,
        f: impl FnOnce(&mut Self) -> Result<T, NelError>,
    ) -> Result<T, NelError> {
        self.path.push(name);
        let out = f(self);
        self.path.pop();
        out
    }

    /// Reads `T` with `f`; when that fails, rewinds and keeps the rest of the stream as
    /// an [`Opaque`] run instead (never an error: every byte stays in place).
    pub(crate) fn part<T>(&mut self, name: &'static str, f: impl FnOnce(&mut Self) -> Result<T, NelError>) -> Part<T> {
        let start = self.pos;
        let runs_before = self.opaque_runs.len();
        match self.within(name, f) {
            Ok(t) => Part::Typed(t),
            Err(why) => {
                // Runs recorded inside the failed attempt are rolled back with it.
                self.opaque_runs.truncate(runs_before);
                self.pos = start;
                let bytes = self.data[start..].to_vec();
                self.pos = self.data.len();
                self.opaque_runs.push((start, bytes.len(), why.to_string()));
                Part::Opaque(Opaque { offset: start, bytes, why })
            }
        }
    }

    /// Takes the rest of the stream as an [`Opaque`] run on purpose: a structure this
    /// reader does not type yet (recorded in the coverage like a fallback).
    pub(crate) fn rest_opaque(&mut self, what: impl Into<String>) -> Opaque {
        let start = self.pos;
        let why = self.error(what);
        let bytes = self.data[start..].to_vec();
        self.pos = self.data.len();
        self.opaque_runs.push((start, bytes.len(), why.to_string()));
        Opaque { offset: start, bytes, why }
    }

    /// Fails unless every byte was read.
    pub(crate) fn finish(&self) -> Result<(), NelError> {
        if self.pos != self.data.len() {
            return Err(self.error(format!("{} trailing bytes", self.data.len() - self.pos)));
        }
        Ok(())
    }

    /// The next `n` bytes.
    pub(crate) fn take(&mut self, n: usize) -> Result<&'a [u8], NelError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| self.error(format!("needs {n} bytes, {} left", self.left())))?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    /// Fixed-size byte array.
    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], NelError> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// Checks a fixed tag (`serialCheck`).
    pub(crate) fn check(&mut self, tag: &[u8]) -> Result<(), NelError> {
        let start = self.pos;
        if self.take(tag.len())? != tag {
            return Err(self.error_at(start, format!("tag is not {:?}", String::from_utf8_lossy(tag))));
        }
        Ok(())
    }

    /// One byte (NeL `bool`, `uint8`, bit fields).
    pub(crate) fn u8(&mut self) -> Result<u8, NelError> {
        Ok(self.take(1)?[0])
    }

    /// `uint16`.
    pub(crate) fn u16(&mut self) -> Result<u16, NelError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    /// `uint32`.
    pub(crate) fn u32(&mut self) -> Result<u32, NelError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    /// `sint32`.
    pub(crate) fn i32(&mut self) -> Result<i32, NelError> {
        Ok(self.u32()? as i32)
    }

    /// `uint64`.
    pub(crate) fn u64(&mut self) -> Result<u64, NelError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    /// `float`, bit-exact.
    pub(crate) fn f32(&mut self) -> Result<f32, NelError> {
        Ok(f32::from_bits(self.u32()?))
    }

    /// `N` floats.
    pub(crate) fn f32s<const N: usize>(&mut self) -> Result<[f32; N], NelError> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = self.f32()?;
        }
        Ok(out)
    }

    /// `serialVersion`: refuses versions above `max` (unknown layouts are not guessed at)
    /// and the non-canonical long form of a small version (it would not re-write equal).
    pub(crate) fn version(&mut self, max: u32) -> Result<u32, NelError> {
        let start = self.pos;
        let mut v = self.u8()? as u32;
        if v == 0xFF {
            v = self.u32()?;
            if v < 0xFF {
                return Err(self.error_at(start, format!("version {v} in the long form")));
            }
        }
        if v > max {
            return Err(self.error_at(start, format!("version {v}, at most {max} is known")));
        }
        Ok(v)
    }

    /// Container length that must fit in the bytes left at `min_size` bytes per element.
    pub(crate) fn count(&mut self, min_size: usize) -> Result<usize, NelError> {
        let start = self.pos;
        let n = self.i32()?;
        let left = self.left();
        if n < 0 || (n as usize).saturating_mul(min_size.max(1)) > left {
            return Err(self.error_at(start, format!("count {n} does not fit in {left} bytes")));
        }
        Ok(n as usize)
    }

    /// `std::string`: `u32` length + bytes, which must be UTF-8 to be typed.
    pub(crate) fn string(&mut self) -> Result<String, NelError> {
        let start = self.pos;
        let n = self.count(1)?;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.error_at(start, "string is not UTF-8"))
    }

    /// A container of `T` read by `f`, each element at least `min_size` bytes.
    pub(crate) fn vec<T>(
        &mut self,
        min_size: usize,
        mut f: impl FnMut(&mut Self) -> Result<T, NelError>,
    ) -> Result<Vec<T>, NelError> {
        let n = self.count(min_size)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(f(self)?);
        }
        Ok(out)
    }

    /// A poly pointer's head: `None` for null, `Some((id, Some(class)))` on the first sight
    /// of an id (the object follows), `Some((id, None))` for a back-reference.
    pub(crate) fn poly_ptr_head(&mut self) -> Result<Option<(u64, Option<String>)>, NelError> {
        let id = self.u64()?;
        if id == 0 {
            return Ok(None);
        }
        if !self.seen_ptrs.insert(id) {
            return Ok(Some((id, None)));
        }
        Ok(Some((id, Some(self.string()?))))
    }

    /// A plain (non-poly) pointer's head: `None` for null, `Some((id, true))` when the
    /// object follows.
    pub(crate) fn ptr_head(&mut self) -> Result<Option<(u64, bool)>, NelError> {
        let id = self.u64()?;
        if id == 0 {
            return Ok(None);
        }
        Ok(Some((id, self.seen_ptrs.insert(id))))
    }
}

/// Little-endian writer mirroring [`Reader`].
#[derive(Default)]
pub(crate) struct Writer(pub Vec<u8>);

impl Writer {
    /// Raw bytes.
    pub(crate) fn bytes(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
    /// One byte.
    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    /// `uint16`.
    pub(crate) fn u16(&mut self, v: u16) {
        self.bytes(&v.to_le_bytes());
    }
    /// `uint32`.
    pub(crate) fn u32(&mut self, v: u32) {
        self.bytes(&v.to_le_bytes());
    }
    /// `sint32`.
    pub(crate) fn i32(&mut self, v: i32) {
        self.bytes(&v.to_le_bytes());
    }
    /// `uint64`.
    pub(crate) fn u64(&mut self, v: u64) {
        self.bytes(&v.to_le_bytes());
    }
    /// `float`, bit-exact.
    pub(crate) fn f32(&mut self, v: f32) {
        self.u32(v.to_bits());
    }
    /// Floats.
    pub(crate) fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.f32(*x);
        }
    }
    /// `serialVersion`.
    pub(crate) fn version(&mut self, v: u32) {
        if v < 0xFF {
            self.u8(v as u8);
        } else {
            self.u8(0xFF);
            self.u32(v);
        }
    }
    /// Container length.
    pub(crate) fn count(&mut self, n: usize) {
        self.i32(n as i32);
    }
    /// `std::string`.
    pub(crate) fn string(&mut self, s: &str) {
        self.u32(s.len() as u32);
        self.bytes(s.as_bytes());
    }
    /// A container written element by element.
    pub(crate) fn vec<T>(&mut self, items: &[T], mut f: impl FnMut(&mut Self, &T)) {
        self.count(items.len());
        for it in items {
            f(self, it);
        }
    }
    /// A poly pointer head (see [`Reader::poly_ptr_head`]).
    pub(crate) fn poly_ptr_head(&mut self, head: &Option<(u64, Option<String>)>) {
        match head {
            None => self.u64(0),
            Some((id, class)) => {
                self.u64(*id);
                if let Some(c) = class {
                    self.string(c);
                }
            }
        }
    }
    /// An opaque or typed part.
    pub(crate) fn part<T>(&mut self, p: &Part<T>, f: impl FnOnce(&mut Self, &T)) {
        match p {
            Part::Typed(t) => f(self, t),
            Part::Opaque(o) => self.bytes(&o.bytes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_round_trip_in_both_forms_and_refuse_the_long_form_of_small_values() {
        for v in [0u32, 1, 254, 255, 70000] {
            let mut w = Writer::default();
            w.version(v);
            assert_eq!(Reader::new(&w.0).version(u32::MAX).unwrap(), v);
        }
        assert!(Reader::new(&[0xFF, 3, 0, 0, 0]).version(10).unwrap_err().what.contains("long form"));
        assert!(Reader::new(&[7]).version(6).unwrap_err().what.contains("at most 6"));
    }

    #[test]
    fn counts_must_fit_the_bytes_left() {
        let mut r = Reader::new(&[5, 0, 0, 0, 1, 2, 3]);
        assert!(r.count(1).is_err());
        let mut r = Reader::new(&[0xFF, 0xFF, 0xFF, 0xFF]);
        assert!(r.count(1).is_err());
    }

    #[test]
    fn a_failed_part_keeps_the_rest_as_opaque_bytes() {
        let data = [1u8, 2, 3, 4, 5];
        let mut r = Reader::new(&data);
        r.u8().unwrap();
        let p: Part<u64> = r.part("x", |r| r.u64());
        let Part::Opaque(o) = &p else { panic!("typed") };
        assert_eq!((o.offset, o.bytes.as_slice()), (1, &data[1..]));
        assert_eq!(o.why.path, "x");
        assert_eq!(r.opaque_runs().len(), 1);
        let mut w = Writer::default();
        w.u8(1);
        w.part(&p, |w, v| w.u64(*v));
        assert_eq!(w.0, data);
    }

    #[test]
    fn a_failed_outer_part_drops_the_runs_of_its_inner_parts() {
        let data = [1u8, 2, 3];
        let mut r = Reader::new(&data);
        let p: Part<u8> = r.part("outer", |r| {
            let _inner: Part<u64> = r.part("inner", |r| r.u64());
            r.u8()
        });
        assert!(matches!(p, Part::Opaque(ref o) if o.offset == 0 && o.bytes.len() == 3));
        assert_eq!(r.opaque_runs().len(), 1);
        assert_eq!(r.opaque_runs()[0].1, 3);
    }

    #[test]
    fn poly_pointers_carry_the_class_name_only_on_first_sight() {
        let mut w = Writer::default();
        w.poly_ptr_head(&Some((1, Some("CTextureFile".into()))));
        w.poly_ptr_head(&Some((1, None)));
        w.poly_ptr_head(&None);
        let mut r = Reader::new(&w.0);
        assert_eq!(r.poly_ptr_head().unwrap(), Some((1, Some("CTextureFile".into()))));
        assert_eq!(r.poly_ptr_head().unwrap(), Some((1, None)));
        assert_eq!(r.poly_ptr_head().unwrap(), None);
        r.finish().unwrap();
    }
}
