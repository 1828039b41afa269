//! Read-only decoders for the geometry buffers (chunk 0x08fe) of Editable Mesh (tri
//! object) and Editable Poly objects: vertices, faces, smoothing groups and the polygon
//! triangulation cuts. Nothing here writes: the chunks stay raw in the lossless tree, and
//! an exporter reads them through this view.
//!
//! Layouts (design §7, digest §5.7), with what the public corpus showed on top:
//! * tri vertices 0x0914: `u32 n` + n × 3 `f32`;
//! * tri faces 0x0912: `u32 n` + n × (`u32 a, b, c`, `u32` smoothing groups, `u32` flags with
//!   the material id in the high 16 bits) — the digest calls the fourth word "always 1";
//!   the corpus holds single-bit values there (1, 2, 4 … 64), i.e. Max's `Face::smGroup`;
//! * poly vertices 0x0100: `u32 n` + n × (`u32` flags, then 3 `f32` **unless the dead bit
//!   (0x2) is set**, in which case the record is the flags word alone — measured on
//!   `fhqht12331__box.max`, where 4 dead vertices make the chunk 48 bytes shorter);
//! * poly faces 0x011a: `u32 n` + n × (`s32 count`, count × `u32` corner, `u16` layout
//!   word, then: bit 0x0001 `u32` face flags, 0x0008 `u16` material, 0x0010 `u32` smoothing,
//!   0x0020 (count − 3) × (`u32 from`, `u32 to`) cuts). Faces of arity 0 flagged dead (0x2)
//!   occur and carry no corners.

use crate::chunk::Chunk;

/// Geometry-buffer container of a GeomObject.
pub(crate) const GEOM_BUFFERS: u16 = 0x08fe;
/// Tri object vertices.
pub(crate) const TRI_VERTICES: u16 = 0x0914;
/// Tri object faces (20-byte records).
pub(crate) const TRI_FACES: u16 = 0x0912;
/// Tri face flags: the visibility bits of edges 0, 1, 2 (Max's `EDGE_A`, `EDGE_B`, `EDGE_C`).
const TRI_EDGES_VISIBLE: u32 = 0x7;
/// Poly object vertices (flags + optional position).
pub(crate) const POLY_VERTICES: u16 = 0x0100;
/// Poly object faces (variable records).
pub(crate) const POLY_FACES: u16 = 0x011a;
/// Dead bit of the poly vertex and face flag words (Max `MN_DEAD`).
pub(crate) const MN_DEAD: u32 = 0x2;

/// Layout-word bits of a poly face record that this decoder understands.
const FACE_HAS_FLAGS: u16 = 0x0001;
const FACE_HAS_MATERIAL: u16 = 0x0008;
const FACE_HAS_SMOOTHING: u16 = 0x0010;
const FACE_HAS_CUTS: u16 = 0x0020;
const FACE_KNOWN_BITS: u16 = FACE_HAS_FLAGS | FACE_HAS_MATERIAL | FACE_HAS_SMOOTHING | FACE_HAS_CUTS;

/// Why a geometry buffer could not be decoded; names the chunk and the byte offset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GeometryError {
    /// A required buffer is absent.
    #[error("geometry buffer 0x{id:04x} missing under 0x08fe")]
    Missing {
        /// Missing chunk id.
        id: u16,
    },
    /// The payload does not match the layout.
    #[error("chunk 0x{id:04x} (stream offset {stream_offset:?}) at payload byte {offset}: {what}")]
    Malformed {
        /// Chunk id.
        id: u16,
        /// Offset of the chunk header in its stream, when known.
        stream_offset: Option<u64>,
        /// Byte offset inside the payload.
        offset: usize,
        /// What was wrong.
        what: String,
    },
}

/// Which kind of object the buffers came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub(crate) enum MeshKind {
    /// Tri object (Editable Mesh).
    Tri,
    /// Poly object (Editable Poly).
    Poly,
}

/// One live face: corner vertex indices (into [`Mesh::positions`]) and its cuts.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Polygon {
    /// Corner vertex indices in stored order.
    pub corners: Vec<u32>,
    /// Triangulation cuts as pairs of local corner indices (poly faces only).
    pub cuts: Vec<(u32, u32)>,
    /// Smoothing-group bits.
    pub smoothing: u32,
    /// Material id, where stored.
    pub material: Option<u16>,
    /// Tri faces: bit k set when edge k (corner k → k + 1) is hidden — the face flags'
    /// visibility bits 0x1 / 0x2 / 0x4 inverted. 0 for poly faces.
    pub hidden_edges: u8,
}

/// Decoded geometry of one object.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Tri or poly.
    pub(crate) kind: MeshKind,
    /// One entry per stored vertex; `None` for a dead poly vertex.
    pub positions: Vec<Option<[f32; 3]>>,
    /// Live faces in stored order.
    pub(crate) polygons: Vec<Polygon>,
    /// Faces skipped because they are dead (dead bit or fewer than 3 corners).
    pub dead_faces: usize,
}

#[cfg(test)]
/// Triangles of a mesh plus how they were obtained.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Triangulation {
    /// Triangles as vertex indices, face winding preserved.
    pub triangles: Vec<[u32; 3]>,
    /// Polygons of more than 3 corners triangulated through their stored cuts.
    pub by_cuts: usize,
    /// Polygons of more than 3 corners without usable cuts, fanned from corner 0.
    pub fanned: usize,
}

impl Mesh {
    /// Decodes the buffers under a GeomObject's 0x08fe container; `Ok(None)` when it holds
    /// neither tri nor poly buffers.
    pub fn of_object(object: &Chunk<'_>) -> Result<Option<Mesh>, GeometryError> {
        let Some(buffers) = object.child(GEOM_BUFFERS) else { return Ok(None) };
        Self::of_buffers(buffers)
    }

    /// Decodes tri or poly buffers laid out as under 0x08fe, in any container (a compound
    /// object's cached result keeps the same chunks under its own id); `Ok(None)` when it
    /// holds neither.
    pub(crate) fn of_buffers(buffers: &Chunk<'_>) -> Result<Option<Mesh>, GeometryError> {
        if buffers.child(POLY_VERTICES).is_some() || buffers.child(POLY_FACES).is_some() {
            return decode_poly(buffers).map(Some);
        }
        if buffers.child(TRI_VERTICES).is_some() || buffers.child(TRI_FACES).is_some() {
            return decode_tri(buffers).map(Some);
        }
        Ok(None)
    }

    /// Decodes an MNMesh saved on its own: poly buffers directly under `container` (Edit
    /// Poly's attach records store the attached mesh so, in chunk 0x0e00).
    pub(crate) fn of_poly_buffers(container: &Chunk<'_>) -> Result<Mesh, GeometryError> {
        decode_poly(container)
    }

    #[cfg(test)]
    /// Number of live vertices.
    pub(crate) fn live_vertices(&self) -> usize {
        self.positions.iter().filter(|p| p.is_some()).count()
    }

    #[cfg(test)]
    /// Splits every polygon into triangles: through the stored cuts where present (design
    /// §7), otherwise as a fan (counted, never silent).
    pub(crate) fn triangulate(&self) -> Triangulation {
        let mut out = Triangulation::default();
        for poly in &self.polygons {
            let n = poly.corners.len();
            if n == 3 {
                out.triangles.push([poly.corners[0], poly.corners[1], poly.corners[2]]);
                continue;
            }
            match triangulate_by_cuts(n, &poly.cuts) {
                Some(local) => {
                    out.by_cuts += 1;
                    out.triangles.extend(local.iter().map(|t| t.map(|c| poly.corners[c])));
                }
                None => {
                    out.fanned += 1;
                    out.triangles.extend((1..n - 1).map(|i| [poly.corners[0], poly.corners[i], poly.corners[i + 1]]));
                }
            }
        }
        out
    }
}

/// Triangulates an `n`-gon through its cuts (local corner pairs): each cut that closes an
/// ear of the remaining polygon (its two ends one corner apart) splits off that ear; the
/// last three corners form the final triangle. `None` unless there are exactly `n − 3`
/// valid cuts that consume the polygon.
pub(crate) fn triangulate_by_cuts(n: usize, cuts: &[(u32, u32)]) -> Option<Vec<[usize; 3]>> {
    if n < 4 || cuts.len() != n - 3 || cuts.iter().any(|&(a, b)| a as usize >= n || b as usize >= n || a == b) {
        return None;
    }
    let mut ring: Vec<usize> = (0..n).collect();
    let mut pending: Vec<(usize, usize)> = cuts.iter().map(|&(a, b)| (a as usize, b as usize)).collect();
    let mut triangles = Vec::with_capacity(n - 2);
    // Each pass clips at least one ear or gives up: at most n − 3 passes.
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|&(a, b)| {
            let len = ring.len();
            let (Some(pa), Some(pb)) = (ring.iter().position(|&c| c == a), ring.iter().position(|&c| c == b)) else {
                return true;
            };
            // a · c · b consecutive in ring order, or b · c · a.
            let ear = if (pa + 2) % len == pb {
                Some((pa, (pa + 1) % len, pb))
            } else if (pb + 2) % len == pa {
                Some((pb, (pb + 1) % len, pa))
            } else {
                None
            };
            match ear {
                Some((x, c, y)) if len > 3 => {
                    triangles.push([ring[x], ring[c], ring[y]]);
                    ring.remove(c);
                    false
                }
                _ => true,
            }
        });
        if pending.len() == before {
            return None;
        }
    }
    (ring.len() == 3).then(|| {
        triangles.push([ring[0], ring[1], ring[2]]);
        triangles
    })
}

/// Bounded little-endian reader over one payload, reporting errors against its chunk.
struct Cursor<'a> {
    chunk: &'a Chunk<'a>,
    data: &'a [u8],
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(chunk: &'a Chunk<'a>) -> Result<Self, GeometryError> {
        let data = chunk.payload().ok_or_else(|| GeometryError::Malformed {
            id: chunk.id,
            stream_offset: chunk.offset,
            offset: 0,
            what: "container where a leaf buffer was expected".into(),
        })?;
        Ok(Cursor { chunk, data, pos: 0 })
    }

    fn error(&self, what: impl Into<String>) -> GeometryError {
        GeometryError::Malformed {
            id: self.chunk.id,
            stream_offset: self.chunk.offset,
            offset: self.pos,
            what: what.into(),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], GeometryError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(self.error(format!("needs {n} more bytes, {} left", self.data.len() - self.pos)));
        };
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn u16(&mut self) -> Result<u16, GeometryError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, GeometryError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn f32x3(&mut self) -> Result<[f32; 3], GeometryError> {
        let b = self.take(12)?;
        let f = |i: usize| f32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        Ok([f(0), f(4), f(8)])
    }

    /// A count that must fit in the remaining bytes at `min_record` bytes per element
    /// (so a hostile count never drives a large allocation).
    fn count(&mut self, min_record: usize) -> Result<usize, GeometryError> {
        let n = self.u32()? as usize;
        let left = self.data.len() - self.pos;
        if n.saturating_mul(min_record) > left {
            return Err(self.error(format!("count {n} needs at least {} bytes, {left} left", n * min_record)));
        }
        Ok(n)
    }

    fn finish(&self) -> Result<(), GeometryError> {
        if self.pos != self.data.len() {
            return Err(self.error(format!("{} trailing bytes", self.data.len() - self.pos)));
        }
        Ok(())
    }
}

fn required<'a>(buffers: &'a Chunk<'a>, id: u16) -> Result<&'a Chunk<'a>, GeometryError> {
    buffers.child(id).ok_or(GeometryError::Missing { id })
}

fn decode_tri(buffers: &Chunk<'_>) -> Result<Mesh, GeometryError> {
    let vchunk = required(buffers, TRI_VERTICES)?;
    let mut v = Cursor::new(vchunk)?;
    let n = v.count(12)?;
    let positions = (0..n).map(|_| v.f32x3().map(Some)).collect::<Result<Vec<_>, _>>()?;
    v.finish()?;
    let fchunk = required(buffers, TRI_FACES)?;
    let mut f = Cursor::new(fchunk)?;
    let faces = f.count(20)?;
    let mut polygons = Vec::with_capacity(faces);
    for _ in 0..faces {
        let corners = vec![f.u32()?, f.u32()?, f.u32()?];
        if let Some(bad) = corners.iter().find(|&&c| c as usize >= n) {
            return Err(f.error(format!("corner {bad} outside {n} vertices")));
        }
        let smoothing = f.u32()?;
        let flags = f.u32()?;
        let hidden_edges = (!flags & TRI_EDGES_VISIBLE) as u8;
        polygons.push(Polygon {
            corners,
            cuts: Vec::new(),
            smoothing,
            material: Some((flags >> 16) as u16),
            hidden_edges,
        });
    }
    f.finish()?;
    Ok(Mesh { kind: MeshKind::Tri, positions, polygons, dead_faces: 0 })
}

fn decode_poly(buffers: &Chunk<'_>) -> Result<Mesh, GeometryError> {
    let vchunk = required(buffers, POLY_VERTICES)?;
    let mut v = Cursor::new(vchunk)?;
    let n = v.count(4)?;
    let mut positions = Vec::with_capacity(n);
    for _ in 0..n {
        let flags = v.u32()?;
        positions.push(if flags & MN_DEAD != 0 { None } else { Some(v.f32x3()?) });
    }
    v.finish()?;
    let fchunk = required(buffers, POLY_FACES)?;
    let mut f = Cursor::new(fchunk)?;
    let faces = f.count(6)?;
    let mut polygons = Vec::with_capacity(faces);
    let mut dead_faces = 0;
    for _ in 0..faces {
        let corners_n = f.count(4)?;
        let corners = (0..corners_n).map(|_| f.u32()).collect::<Result<Vec<_>, _>>()?;
        let layout = f.u16()?;
        if layout & !FACE_KNOWN_BITS != 0 {
            return Err(f.error(format!("face layout word 0x{layout:04x} has unknown bits")));
        }
        let face_flags = if layout & FACE_HAS_FLAGS != 0 { f.u32()? } else { 0 };
        let material = if layout & FACE_HAS_MATERIAL != 0 { Some(f.u16()?) } else { None };
        let smoothing = if layout & FACE_HAS_SMOOTHING != 0 { f.u32()? } else { 0 };
        let mut cuts = Vec::new();
        if layout & FACE_HAS_CUTS != 0 {
            for _ in 0..corners_n.saturating_sub(3) {
                cuts.push((f.u32()?, f.u32()?));
            }
        }
        if corners_n < 3 || face_flags & MN_DEAD != 0 {
            dead_faces += 1;
            continue;
        }
        for &c in &corners {
            if positions.get(c as usize).is_none_or(|p| p.is_none()) {
                return Err(f.error(format!("corner {c} is not a live vertex of {n}")));
            }
        }
        polygons.push(Polygon { corners, cuts, smoothing, material, hidden_edges: 0 });
    }
    f.finish()?;
    Ok(Mesh { kind: MeshKind::Poly, positions, polygons, dead_faces })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    #[test]
    fn quad_with_one_cut_gives_two_triangles_keeping_winding() {
        let t = triangulate_by_cuts(4, &[(0, 2)]).unwrap();
        assert_eq!(t, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn pentagon_cuts_in_any_order_consume_the_polygon() {
        let t = triangulate_by_cuts(5, &[(0, 3), (0, 2)]).unwrap();
        assert_eq!(t.len(), 3);
        let t2 = triangulate_by_cuts(5, &[(1, 3), (3, 0)]).unwrap();
        assert_eq!(t2.len(), 3);
    }

    /// A random triangulation of an n-gon by ear clipping: the cuts (in a shuffled order)
    /// and the triangles as sorted corner triples.
    fn random_triangulation(n: usize, picks: &[usize], order: &[usize]) -> (Vec<(u32, u32)>, Vec<[usize; 3]>) {
        let mut ring: Vec<usize> = (0..n).collect();
        let mut cuts = Vec::new();
        let mut tris = Vec::new();
        for pick in picks.iter().take(n - 3) {
            let len = ring.len();
            let c = pick % len;
            let (x, y) = (ring[(c + len - 1) % len], ring[(c + 1) % len]);
            let mut t = [x, ring[c], y];
            t.sort();
            tris.push(t);
            cuts.push((x as u32, y as u32));
            ring.remove(c);
        }
        let mut last = [ring[0], ring[1], ring[2]];
        last.sort();
        tris.push(last);
        let mut shuffled: Vec<(u32, u32)> = Vec::new();
        let mut pool = cuts;
        for o in order.iter().take(n - 3) {
            let (a, b) = pool.remove(o % pool.len());
            shuffled.push(if o % 2 == 0 { (a, b) } else { (b, a) });
        }
        tris.sort();
        (shuffled, tris)
    }

    proptest::proptest! {
        #[test]
        fn any_cut_triangulation_in_any_order_gives_back_its_triangles(
            n in 4usize..12,
            picks in proptest::collection::vec(0usize..64, 12),
            order in proptest::collection::vec(0usize..64, 12),
        ) {
            let (cuts, expected) = random_triangulation(n, &picks, &order);
            let got = triangulate_by_cuts(n, &cuts).expect("a valid cut set always triangulates");
            let mut sorted: Vec<[usize; 3]> = got.iter().map(|t| { let mut t = *t; t.sort(); t }).collect();
            sorted.sort();
            proptest::prop_assert_eq!(sorted, expected);
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_buffer_bytes_decode_or_fail_typed_without_panicking(
            vbytes in proptest::collection::vec(proptest::num::u8::ANY, 0..96),
            fbytes in proptest::collection::vec(proptest::num::u8::ANY, 0..96),
            poly in proptest::bool::ANY,
        ) {
            let (vid, fid) = if poly { (POLY_VERTICES, POLY_FACES) } else { (TRI_VERTICES, TRI_FACES) };
            let buffers = Chunk::container(GEOM_BUFFERS, vec![Chunk::leaf(vid, vbytes), Chunk::leaf(fid, fbytes)]);
            let object = Chunk::container(0x0014, vec![buffers]);
            if let Ok(Some(mesh)) = Mesh::of_object(&object) {
                let tri = mesh.triangulate();
                proptest::prop_assert!(tri.triangles.iter().flatten().all(|&v| (v as usize) < mesh.positions.len()));
            }
        }
    }

    #[test]
    fn inconsistent_cuts_are_refused() {
        assert_eq!(triangulate_by_cuts(4, &[(0, 0)]), None);
        assert_eq!(triangulate_by_cuts(5, &[(0, 2), (0, 2)]), None);
        assert_eq!(triangulate_by_cuts(4, &[]), None);
    }

    #[test]
    fn poly_buffers_with_a_dead_vertex_and_a_dead_face_decode() {
        // Four vertices, the second dead (flags word only); one live triangle 0·2·3 and one
        // dead face of arity 0.
        let mut v = le(&[4]);
        v.extend(le(&[0]));
        v.extend([0u8; 12]);
        v.extend(le(&[MN_DEAD]));
        v.extend(le(&[0]));
        v.extend(1f32.to_le_bytes());
        v.extend([0u8; 8]);
        v.extend(le(&[0]));
        v.extend([0u8; 4]);
        v.extend(1f32.to_le_bytes());
        v.extend([0u8; 4]);
        let mut f = le(&[2, 3, 0, 2, 3]);
        f.extend(0x0010u16.to_le_bytes());
        f.extend(le(&[1]));
        f.extend(le(&[0]));
        f.extend(0x0001u16.to_le_bytes());
        f.extend(le(&[MN_DEAD]));
        let buffers = Chunk::container(GEOM_BUFFERS, vec![Chunk::leaf(POLY_VERTICES, v), Chunk::leaf(POLY_FACES, f)]);
        let object = Chunk::container(0x0014, vec![buffers]);
        let mesh = Mesh::of_object(&object).unwrap().unwrap();
        assert_eq!(mesh.positions.len(), 4);
        assert_eq!(mesh.live_vertices(), 3);
        assert_eq!(mesh.polygons.len(), 1);
        assert_eq!(mesh.dead_faces, 1);
        assert_eq!(mesh.polygons[0].smoothing, 1);
        assert_eq!(mesh.positions[3], Some([0.0, 1.0, 0.0]));
    }

    #[test]
    fn truncated_and_hostile_counts_are_typed_errors() {
        let buffers = Chunk::container(
            GEOM_BUFFERS,
            vec![Chunk::leaf(TRI_VERTICES, le(&[u32::MAX])), Chunk::leaf(TRI_FACES, le(&[0]))],
        );
        let object = Chunk::container(0x0014, vec![buffers]);
        let err = Mesh::of_object(&object).unwrap_err();
        assert!(matches!(err, GeometryError::Malformed { id: TRI_VERTICES, offset: 4, .. }), "{err}");
    }

    #[test]
    fn tri_face_outside_the_vertex_range_is_refused() {
        let mut v = le(&[1]);
        v.extend([0u8; 12]);
        let f = le(&[1, 0, 0, 5, 1, 0]);
        let buffers = Chunk::container(GEOM_BUFFERS, vec![Chunk::leaf(TRI_VERTICES, v), Chunk::leaf(TRI_FACES, f)]);
        let object = Chunk::container(0x0014, vec![buffers]);
        assert!(Mesh::of_object(&object).is_err());
    }
}
