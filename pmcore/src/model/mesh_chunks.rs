//! The geometry arrays of Editable Mesh (TriObject, class 0xe44f10b3:0) and Editable Poly
//! (class 0x1bf8338d:0x192f6098) under their 0x08fe container, decoded for the typed model
//! and regenerated from the decoded values (T2). `model::geometry` reads the same buffers
//! for the exporters; here every byte of each array is a field.
//!
//! Layouts (the first three after `model::geometry`; all measured on every Editable Poly
//! and Editable Mesh object of the 236 parseable real files — each decodes exactly):
//! * poly vertices 0x0100: `u32 n`, n × (`u32` flags, 3×`f32` unless dead bit 0x2);
//! * poly edges 0x010a: `u32 n`, n × (`u32` flags, `u32 v1`, `u32 v2` unless dead bit 0x2);
//! * poly faces 0x011a: `u32 n`, n × (`u32` degree, corners, `u16` layout word, then by
//!   layout bit: 0x01 `u32` flags, 0x08 `u16` material, 0x10 `u32` smoothing, 0x20
//!   (degree − 3) cut pairs);
//! * index lists 0x0310 (per vertex) and map faces 0x012b (per face): no count, records of
//!   `u32` degree + degree × `u32` to the end of the chunk;
//! * points 0x0128 (poly map vertices), 0x0914 (tri vertices), 0x2394 (tri texture
//!   vertices): `u32 n`, n × 3×`f32`;
//! * tri faces 0x0912: `u32 n`, n × (3 corners, smoothing, flags with the material id in
//!   the high 16 bits); tri texture faces 0x2396: `u32 n`, n × 3×`u32`.
//!
//! A payload that does not fit its layout is `None`; the chunk then stays raw in place.

/// Dead bit of poly vertex / edge / face flag words.
const DEAD: u32 = 0x2;
const FACE_FLAGS: u16 = 0x0001;
const FACE_MATERIAL: u16 = 0x0008;
const FACE_SMOOTHING: u16 = 0x0010;
const FACE_CUTS: u16 = 0x0020;
const FACE_KNOWN: u16 = FACE_FLAGS | FACE_MATERIAL | FACE_SMOOTHING | FACE_CUTS;

/// Editable Poly class (ClassId, SuperClassId).
pub const EDITABLE_POLY: ([u32; 2], u32) =
    (crate::classes::ids::EDITABLE_POLY, crate::classes::ids::superclass::GEOM_OBJECT);
/// Editable Mesh class (ClassId, SuperClassId).
pub const EDITABLE_MESH: ([u32; 2], u32) =
    (crate::classes::ids::EDITABLE_MESH, crate::classes::ids::superclass::GEOM_OBJECT);

/// Which layout a chunk is stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `u32 n` + n × 3×`f32`.
    Points,
    /// `u32 n` + n × 5×`u32`.
    TriFaces,
    /// `u32 n` + n × 3×`u32`.
    Triples,
    /// Poly vertices.
    PolyVerts,
    /// Poly edges.
    PolyEdges,
    /// Poly faces.
    PolyFaces,
    /// Degree-prefixed index lists to the end.
    Lists,
}

/// Layout of a chunk directly under an Editable Poly's 0x08fe.
pub fn poly_layout(id: u16) -> Option<Layout> {
    Some(match id {
        0x0100 => Layout::PolyVerts,
        0x010a => Layout::PolyEdges,
        0x011a => Layout::PolyFaces,
        0x0310 | 0x012b => Layout::Lists,
        0x0128 => Layout::Points,
        _ => return None,
    })
}

/// Layout of a chunk directly under an Editable Mesh's 0x08fe.
pub fn tri_layout(id: u16) -> Option<Layout> {
    Some(match id {
        0x0914 | 0x2394 => Layout::Points,
        0x0912 => Layout::TriFaces,
        0x2396 => Layout::Triples,
        _ => return None,
    })
}

/// One poly face record, every field as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolyFace {
    /// Corner vertex indices.
    pub corners: Vec<u32>,
    /// Layout word (which optional fields follow).
    pub layout: u16,
    /// Face flags (layout bit 0x01).
    pub flags: u32,
    /// Material id (layout bit 0x08).
    pub material: u16,
    /// Smoothing groups (layout bit 0x10).
    pub smoothing: u32,
    /// Triangulation cuts (layout bit 0x20): degree − 3 pairs.
    pub cuts: Vec<[u32; 2]>,
}

/// Degree-prefixed index lists stored flat: list i is `items[starts[i]..starts[i + 1]]`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IndexLists {
    /// Start of each list in `items`, plus the end.
    pub starts: Vec<u32>,
    /// All indices.
    pub items: Vec<u32>,
}

impl IndexLists {
    /// Number of lists.
    pub fn len(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    /// True when there are no lists.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// List `i`.
    pub fn get(&self, i: usize) -> Option<&[u32]> {
        let (a, b) = (*self.starts.get(i)?, *self.starts.get(i + 1)?);
        self.items.get(a as usize..b as usize)
    }
}

/// A decoded geometry array.
#[derive(Clone, Debug, PartialEq)]
pub enum MeshArray {
    /// Points (bit patterns kept exactly).
    Points(Vec<[f32; 3]>),
    /// Tri faces: corners a, b, c, smoothing, flags.
    TriFaces(Vec<[u32; 5]>),
    /// Index triples.
    Triples(Vec<[u32; 3]>),
    /// Poly vertices: flags and position (`None` for a dead vertex, which stores none).
    PolyVerts(Vec<(u32, Option<[f32; 3]>)>),
    /// Poly edges: flags and end vertices (`None` for a dead edge).
    PolyEdges(Vec<(u32, Option<[u32; 2]>)>),
    /// Poly faces.
    PolyFaces(Vec<PolyFace>),
    /// Index lists.
    Lists(IndexLists),
}

struct Rd<'a> {
    p: &'a [u8],
    at: usize,
}

impl Rd<'_> {
    fn u16(&mut self) -> Option<u16> {
        let b = self.p.get(self.at..self.at + 2)?;
        self.at += 2;
        Some(u16::from_le_bytes([b[0], b[1]]))
    }
    fn u32(&mut self) -> Option<u32> {
        let b = self.p.get(self.at..self.at + 4)?;
        self.at += 4;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn u32s<const N: usize>(&mut self) -> Option<[u32; N]> {
        let mut out = [0u32; N];
        for v in &mut out {
            *v = self.u32()?;
        }
        Some(out)
    }
    fn f32x3(&mut self) -> Option<[f32; 3]> {
        Some(self.u32s::<3>()?.map(f32::from_bits))
    }
    fn left(&self) -> usize {
        self.p.len() - self.at
    }
    /// A count whose records need at least `min` bytes each (no hostile allocation).
    fn count(&mut self, min: usize) -> Option<usize> {
        let n = self.u32()? as usize;
        (n.checked_mul(min)? <= self.left()).then_some(n)
    }
}

fn put(out: &mut Vec<u8>, w: u32) {
    out.extend_from_slice(&w.to_le_bytes());
}

fn put_f(out: &mut Vec<u8>, p: &[f32; 3]) {
    p.iter().for_each(|x| put(out, x.to_bits()));
}

impl MeshArray {
    /// Decodes `payload` as `layout`; `None` unless every byte fits.
    pub fn decode(layout: Layout, payload: &[u8]) -> Option<MeshArray> {
        let mut r = Rd { p: payload, at: 0 };
        let array = match layout {
            Layout::Points => {
                let n = r.count(12)?;
                MeshArray::Points((0..n).map(|_| r.f32x3()).collect::<Option<_>>()?)
            }
            Layout::TriFaces => {
                let n = r.count(20)?;
                MeshArray::TriFaces((0..n).map(|_| r.u32s::<5>()).collect::<Option<_>>()?)
            }
            Layout::Triples => {
                let n = r.count(12)?;
                MeshArray::Triples((0..n).map(|_| r.u32s::<3>()).collect::<Option<_>>()?)
            }
            Layout::PolyVerts => {
                let n = r.count(4)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let flags = r.u32()?;
                    v.push((flags, if flags & DEAD != 0 { None } else { Some(r.f32x3()?) }));
                }
                MeshArray::PolyVerts(v)
            }
            Layout::PolyEdges => {
                let n = r.count(4)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let flags = r.u32()?;
                    v.push((flags, if flags & DEAD != 0 { None } else { Some(r.u32s::<2>()?) }));
                }
                MeshArray::PolyEdges(v)
            }
            Layout::PolyFaces => {
                let n = r.count(6)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let degree = r.count(4)?;
                    let corners = (0..degree).map(|_| r.u32()).collect::<Option<Vec<_>>>()?;
                    let layout = r.u16()?;
                    if layout & !FACE_KNOWN != 0 {
                        return None;
                    }
                    let flags = if layout & FACE_FLAGS != 0 { r.u32()? } else { 0 };
                    let material = if layout & FACE_MATERIAL != 0 { r.u16()? } else { 0 };
                    let smoothing = if layout & FACE_SMOOTHING != 0 { r.u32()? } else { 0 };
                    let cuts = if layout & FACE_CUTS != 0 {
                        (0..degree.saturating_sub(3)).map(|_| r.u32s::<2>()).collect::<Option<Vec<_>>>()?
                    } else {
                        Vec::new()
                    };
                    v.push(PolyFace { corners, layout, flags, material, smoothing, cuts });
                }
                MeshArray::PolyFaces(v)
            }
            Layout::Lists => {
                let mut lists = IndexLists { starts: vec![0], items: Vec::with_capacity(payload.len() / 4) };
                while r.left() > 0 {
                    let degree = r.count(4)?;
                    for _ in 0..degree {
                        lists.items.push(r.u32()?);
                    }
                    lists.starts.push(lists.items.len() as u32);
                }
                MeshArray::Lists(lists)
            }
        };
        (r.left() == 0).then_some(array)
    }

    /// Appends the exact payload bytes.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            MeshArray::Points(v) => {
                out.reserve(4 + 12 * v.len());
                put(out, v.len() as u32);
                v.iter().for_each(|p| put_f(out, p));
            }
            MeshArray::TriFaces(v) => {
                out.reserve(4 + 20 * v.len());
                put(out, v.len() as u32);
                v.iter().flatten().for_each(|w| put(out, *w));
            }
            MeshArray::Triples(v) => {
                put(out, v.len() as u32);
                v.iter().flatten().for_each(|w| put(out, *w));
            }
            MeshArray::PolyVerts(v) => {
                put(out, v.len() as u32);
                for (flags, p) in v {
                    put(out, *flags);
                    if let Some(p) = p {
                        put_f(out, p);
                    }
                }
            }
            MeshArray::PolyEdges(v) => {
                put(out, v.len() as u32);
                for (flags, e) in v {
                    put(out, *flags);
                    if let Some(e) = e {
                        e.iter().for_each(|w| put(out, *w));
                    }
                }
            }
            MeshArray::PolyFaces(v) => {
                put(out, v.len() as u32);
                for f in v {
                    put(out, f.corners.len() as u32);
                    f.corners.iter().for_each(|w| put(out, *w));
                    out.extend_from_slice(&f.layout.to_le_bytes());
                    if f.layout & FACE_FLAGS != 0 {
                        put(out, f.flags);
                    }
                    if f.layout & FACE_MATERIAL != 0 {
                        out.extend_from_slice(&f.material.to_le_bytes());
                    }
                    if f.layout & FACE_SMOOTHING != 0 {
                        put(out, f.smoothing);
                    }
                    if f.layout & FACE_CUTS != 0 {
                        f.cuts.iter().flatten().for_each(|w| put(out, *w));
                    }
                }
            }
            MeshArray::Lists(l) => {
                for i in 0..l.len() {
                    let list = l.get(i).unwrap_or(&[]);
                    put(out, list.len() as u32);
                    list.iter().for_each(|w| put(out, *w));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn le(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn round_trip(layout: Layout, bytes: &[u8]) -> MeshArray {
        let a = MeshArray::decode(layout, bytes).unwrap_or_else(|| panic!("{layout:?} does not decode"));
        let mut out = Vec::new();
        a.encode(&mut out);
        assert_eq!(out, bytes, "{layout:?}");
        a
    }

    #[test]
    fn poly_buffers_with_dead_records_round_trip() {
        // 2 vertices, the second dead (flags word only).
        let mut v = le(&[2, 0x20]);
        v.extend(le(&[1.0f32.to_bits(), 2.0f32.to_bits(), (-0.0f32).to_bits()]));
        v.extend(le(&[DEAD]));
        let MeshArray::PolyVerts(vs) = round_trip(Layout::PolyVerts, &v) else { panic!() };
        assert_eq!(vs[0].1, Some([1.0, 2.0, -0.0]));
        assert_eq!(vs[1], (DEAD, None));
        // 606 edges of which 2 dead make 7,256 bytes on fhqht12331__box.max: 12a + 4b.
        let e = le(&[3, 0, 2, 0, DEAD, 0, 0, 3]);
        let MeshArray::PolyEdges(es) = round_trip(Layout::PolyEdges, &e) else { panic!() };
        assert_eq!(es, vec![(0, Some([2, 0])), (DEAD, None), (0, Some([0, 3]))]);
        // A quad with flags, material, smoothing and one cut; a dead 0-gon.
        let mut f = le(&[2, 4, 0, 2, 3, 1]);
        f.extend(0x0039u16.to_le_bytes());
        f.extend(le(&[0]));
        f.extend(7u16.to_le_bytes());
        f.extend(le(&[1, 0, 2]));
        f.extend(le(&[0]));
        f.extend(0x0001u16.to_le_bytes());
        f.extend(le(&[DEAD]));
        let MeshArray::PolyFaces(fs) = round_trip(Layout::PolyFaces, &f) else { panic!() };
        assert_eq!((fs[0].material, fs[0].smoothing, fs[0].cuts.clone()), (7, 1, vec![[0, 2]]));
        assert!(fs[1].corners.is_empty());
    }

    #[test]
    fn lists_points_and_tri_faces_round_trip() {
        let l = le(&[4, 0, 3, 9, 0x115, 0, 3, 2, 3, 8]);
        let MeshArray::Lists(lists) = round_trip(Layout::Lists, &l) else { panic!() };
        assert_eq!(
            (lists.len(), lists.get(0), lists.get(1), lists.get(2)),
            (3, Some(&[0, 3, 9, 0x115][..]), Some(&[][..]), Some(&[2, 3, 8][..]))
        );
        round_trip(Layout::Points, &le(&[1, 0x7fc0_0001, 0, 0x8000_0000]));
        round_trip(Layout::TriFaces, &le(&[1, 0, 1, 2, 1, 0x0003_0000]));
        round_trip(Layout::Triples, &le(&[1, 0, 1, 2]));
    }

    #[test]
    fn short_long_and_hostile_payloads_are_refused() {
        assert_eq!(MeshArray::decode(Layout::Points, &le(&[2, 0, 0, 0])), None);
        assert_eq!(MeshArray::decode(Layout::Points, &le(&[0, 0])), None);
        assert_eq!(MeshArray::decode(Layout::PolyFaces, &le(&[u32::MAX])), None);
        assert_eq!(MeshArray::decode(Layout::Lists, &le(&[u32::MAX, 1])), None);
        let mut f = le(&[1, 3, 0, 1, 2]);
        f.extend(0x0040u16.to_le_bytes());
        assert_eq!(MeshArray::decode(Layout::PolyFaces, &f), None, "unknown layout bit");
    }

    mod props {
        use super::super::*;
        use proptest::prelude::*;

        fn face() -> impl Strategy<Value = PolyFace> {
            (proptest::collection::vec(any::<u32>(), 0..7), 0u16..64, any::<u32>(), any::<u16>(), any::<u32>())
                .prop_flat_map(|(corners, bits, flags, material, smoothing)| {
                    let layout = bits & FACE_KNOWN;
                    let cuts = if layout & FACE_CUTS != 0 { corners.len().saturating_sub(3) } else { 0 };
                    proptest::collection::vec(any::<[u32; 2]>(), cuts).prop_map(move |cuts| PolyFace {
                        corners: corners.clone(),
                        layout,
                        flags: if layout & FACE_FLAGS != 0 { flags } else { 0 },
                        material: if layout & FACE_MATERIAL != 0 { material } else { 0 },
                        smoothing: if layout & FACE_SMOOTHING != 0 { smoothing } else { 0 },
                        cuts,
                    })
                })
        }

        fn same(layout: Layout, a: &MeshArray) -> Result<(), TestCaseError> {
            let mut bytes = Vec::new();
            a.encode(&mut bytes);
            let back = MeshArray::decode(layout, &bytes).expect("written array decodes");
            let mut again = Vec::new();
            back.encode(&mut again);
            prop_assert_eq!(again, bytes);
            Ok(())
        }

        proptest! {
            /// Writer/reader pairs of every geometry layout (compared through bytes, so
            /// NaN positions count too).
            #[test]
            fn geometry_arrays_written_then_read_are_the_same(
                faces in proptest::collection::vec(face(), 0..8),
                verts in proptest::collection::vec((any::<u32>(), any::<[u32; 3]>()), 0..8),
                edges in proptest::collection::vec((any::<u32>(), any::<[u32; 2]>()), 0..8),
                lists in proptest::collection::vec(proptest::collection::vec(any::<u32>(), 0..5), 0..6),
                tri in proptest::collection::vec(any::<[u32; 5]>(), 0..6),
            ) {
                let back = MeshArray::PolyFaces(faces.clone());
                let mut bytes = Vec::new();
                back.encode(&mut bytes);
                prop_assert_eq!(MeshArray::decode(Layout::PolyFaces, &bytes), Some(back));
                let v = verts.iter().map(|(f, p)| (*f, (f & DEAD == 0).then(|| p.map(f32::from_bits)))).collect();
                same(Layout::PolyVerts, &MeshArray::PolyVerts(v))?;
                let e: Vec<_> = edges.iter().map(|(f, p)| (*f, (f & DEAD == 0).then_some(*p))).collect();
                prop_assert_eq!(MeshArray::decode(Layout::PolyEdges, &{
                    let mut b = Vec::new();
                    MeshArray::PolyEdges(e.clone()).encode(&mut b);
                    b
                }), Some(MeshArray::PolyEdges(e)));
                let mut l = IndexLists { starts: vec![0], items: Vec::new() };
                for list in &lists {
                    l.items.extend(list);
                    l.starts.push(l.items.len() as u32);
                }
                let lists_array = MeshArray::Lists(l);
                let mut b = Vec::new();
                lists_array.encode(&mut b);
                prop_assert_eq!(MeshArray::decode(Layout::Lists, &b), Some(lists_array));
                same(Layout::TriFaces, &MeshArray::TriFaces(tri.clone()))?;
                same(Layout::Points, &MeshArray::Points(tri.iter().map(|t| [t[0], t[1], t[2]].map(f32::from_bits)).collect()))?;
                same(Layout::Triples, &MeshArray::Triples(tri.iter().map(|t| [t[2], t[3], t[4]]).collect()))?;
            }
        }
    }
}
