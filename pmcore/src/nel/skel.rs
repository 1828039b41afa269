//! NeL `.skel` files (`CSkeletonShape`, digest §7.1): the in-memory [`Skeleton`], its byte
//! writer and a bounded reader, plus the derived data `CSkeletonShape::build` computes
//! (LOD distance inheritance, BoneMap, LOD list). One serializer: the skel exporter writes
//! with it, the NeL round trip of real `.skel` files proves it, and T3 reads references
//! with it.
//!
//! Layout: `"SHAP"`, `u64` poly-pointer id 1, string `"CSkeletonShape"`, `u8` version 1,
//! `s32` bone count + bones, `s32` BoneMap count + (string, `u32`) sorted by name, `s32` LOD
//! count + LODs. Strings are `u32` length + bytes; versions one `u8` (`0xFF` + `u32` from
//! 255); all numbers little-endian.

use super::stream::{NelError, Reader, Writer};

/// `NELID("PAHS")` as stored.
pub(crate) const MAGIC: [u8; 4] = *b"SHAP";
/// Class name of the shape written after the poly-pointer id.
pub(crate) const CLASS_NAME: &str = "CSkeletonShape";
/// CMatrix state bit: translation present.
pub(crate) const MAT_TRANS: u32 = 1;
/// CMatrix state bit: rotation present.
pub(crate) const MAT_ROT: u32 = 2;
/// CMatrix state bit: uniform scale.
pub(crate) const MAT_SCALEUNI: u32 = 4;
/// CMatrix state bit: any scale.
pub(crate) const MAT_SCALEANY: u32 = 8;
/// CMatrix state bit: projection row present.
pub(crate) const MAT_PROJ: u32 = 16;

/// A NeL `CMatrix` as serialised: which parts are stored is decided by `state_bit`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NelMatrix {
    /// `MAT_*` bits.
    pub state_bit: u32,
    /// Uniform scale factor (1.0 unless only `MAT_SCALEUNI` is set).
    pub scale33: f32,
    /// Rows `a11..a14`, `a21..a24`, `a31..a34` (column-vector convention: translation in column 4).
    pub rows: [[f32; 4]; 3],
    /// Projection row `a41..a44` (stored only with `MAT_PROJ`).
    pub proj: [f32; 4],
}

impl NelMatrix {
    /// Identity with no state bits.
    pub(crate) const IDENTITY: NelMatrix = NelMatrix {
        state_bit: 0,
        scale33: 1.0,
        rows: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]],
        proj: [0.0, 0.0, 0.0, 1.0],
    };

    /// True when the 3×3 part is stored.
    pub(crate) fn has_rot(&self) -> bool {
        self.state_bit & (MAT_ROT | MAT_SCALEUNI | MAT_SCALEANY) != 0
    }

    /// The state NeL's exporter leaves on an inverted bind matrix built with
    /// `setRot(i, j, k)` (ROT | SCALEANY) and `setPos` (TRANS only when non-zero). Zero
    /// elements are written as `+0.0` (the sign of a zero left by the inversion arithmetic
    /// carries no meaning and would make outputs differ by operation order alone).
    pub(crate) fn from_affine(m: glam::Mat4) -> NelMatrix {
        let c = m.to_cols_array_2d();
        let rows = [0, 1, 2].map(|r| [c[0][r], c[1][r], c[2][r], c[3][r]].map(|x| x + 0.0));
        let has_trans = rows.iter().any(|r| r[3] != 0.0);
        NelMatrix {
            state_bit: MAT_ROT | MAT_SCALEANY | if has_trans { MAT_TRANS } else { 0 },
            scale33: 1.0,
            rows,
            proj: [0.0, 0.0, 0.0, 1.0],
        }
    }

    /// The decoded 3×4 matrix (identity rotation when not stored, zero translation when
    /// not stored): what T3 compares, independent of which elements the file holds.
    pub fn decoded(&self) -> [f32; 12] {
        let mut out = [0.0; 12];
        for r in 0..3 {
            for c in 0..3 {
                out[r * 4 + c] = if self.has_rot() { self.rows[r][c] } else { f32::from(r == c) };
            }
            out[r * 4 + 3] = if self.state_bit & MAT_TRANS != 0 { self.rows[r][3] } else { 0.0 };
        }
        out
    }
}

/// One `CBoneBase`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Serial version (2 writes every field).
    pub version: u8,
    /// Bone name.
    pub name: String,
    /// Inverse of the bone's world bind matrix.
    pub inv_bind_pos: NelMatrix,
    /// Index of the father bone, −1 for the root.
    pub father_id: i32,
    /// Whether the father's scale is not inherited.
    pub unherit_scale: bool,
    /// Distance beyond which the bone is disabled (0 = never).
    pub lod_disable_distance: f32,
    /// Default local position.
    pub default_pos: [f32; 3],
    /// Default Euler rotation (always zero from the exporter).
    pub default_rot_euler: [f32; 3],
    /// Default local rotation `x, y, z, w` (NeL convention).
    pub default_rot_quat: [f32; 4],
    /// Default local scale.
    pub default_scale: [f32; 3],
    /// Default pivot.
    pub default_pivot: [f32; 3],
    /// Skin scale (version ≥ 2).
    pub skin_scale: [f32; 3],
}

impl Bone {
    /// A bone with NeL's constructor defaults (`bone.cpp:42-49`).
    pub fn new(name: impl Into<String>) -> Bone {
        Bone {
            version: 2,
            name: name.into(),
            inv_bind_pos: NelMatrix::IDENTITY,
            father_id: -1,
            unherit_scale: true,
            lod_disable_distance: 0.0,
            default_pos: [0.0; 3],
            default_rot_euler: [0.0; 3],
            default_rot_quat: [0.0, 0.0, 0.0, 1.0],
            default_scale: [1.0; 3],
            default_pivot: [0.0; 3],
            skin_scale: [1.0; 3],
        }
    }
}

/// One `CLod`: a distance and the per-bone enable flags (0xFF on, 0 off).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lod {
    /// Distance from which this LOD applies.
    pub distance: f32,
    /// One byte per bone.
    pub active_bones: Vec<u8>,
}

/// A `CSkeletonShape`.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// Poly-pointer id of the shape in its stream: 1 from this writer and current NeL;
    /// older NeL wrote the object's memory address (a real Ryzom `.skel` holds one).
    pub ptr_id: u64,
    /// Shape serial version (1 adds the LOD list).
    pub version: u8,
    /// Bones in id order.
    pub bones: Vec<Bone>,
    /// Name → bone id, sorted by name (a `std::map`).
    pub bone_map: Vec<(String, u32)>,
    /// LODs, ascending distance.
    pub(crate) lods: Vec<Lod>,
}

impl Skeleton {
    /// A version-1 skeleton of `bones` with BoneMap and LODs derived as
    /// `CSkeletonShape::build` does: a child's disable distance is capped by its father's
    /// non-zero distance (0 inherits it); LOD 0 at distance 0 enables every bone, then one
    /// LOD per distinct positive distance, ascending, disabling bones with
    /// `0 < distance ≤ lod distance`.
    pub fn build(mut bones: Vec<Bone>) -> Skeleton {
        for i in 0..bones.len() {
            let father = bones[i].father_id;
            if father >= 0 && (father as usize) < i {
                let father_dist = bones[father as usize].lod_disable_distance;
                if father_dist > 0.0 {
                    let own = &mut bones[i].lod_disable_distance;
                    *own = if *own == 0.0 { father_dist } else { own.min(father_dist) };
                }
            }
        }
        let mut bone_map: Vec<(String, u32)> =
            bones.iter().enumerate().map(|(i, b)| (b.name.clone(), i as u32)).collect();
        bone_map.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        bone_map.dedup_by(|a, b| a.0 == b.0);
        let mut distances: Vec<f32> = bones.iter().map(|b| b.lod_disable_distance).filter(|&d| d > 0.0).collect();
        distances.sort_by(f32::total_cmp);
        distances.dedup();
        let mut lods = vec![Lod { distance: 0.0, active_bones: vec![0xFF; bones.len()] }];
        for d in distances {
            let active_bones = bones
                .iter()
                .map(|b| if b.lod_disable_distance > 0.0 && b.lod_disable_distance <= d { 0 } else { 0xFF })
                .collect();
            lods.push(Lod { distance: d, active_bones });
        }
        Skeleton { ptr_id: 1, version: 1, bones, bone_map, lods }
    }
}

/// Serialises a skeleton to `.skel` bytes: the shape-stream head, then the body.
pub fn write(s: &Skeleton) -> Vec<u8> {
    let mut w = Writer::default();
    w.bytes(&MAGIC);
    w.poly_ptr_head(&Some((s.ptr_id, Some(CLASS_NAME.to_string()))));
    write_body(&mut w, s);
    w.0
}

/// Writes the `CSkeletonShape::serial` part (after the class name).
pub(crate) fn write_body(w: &mut Writer, s: &Skeleton) {
    w.version(s.version as u32);
    w.vec(&s.bones, |w, b| {
        w.version(b.version as u32);
        w.string(&b.name);
        write_matrix(w, &b.inv_bind_pos);
        w.i32(b.father_id);
        w.u8(b.unherit_scale as u8);
        if b.version >= 1 {
            w.f32(b.lod_disable_distance);
        }
        for v in [&b.default_pos, &b.default_rot_euler] {
            w.version(0);
            w.f32s(v);
        }
        w.version(0);
        w.f32s(&b.default_rot_quat);
        for v in [&b.default_scale, &b.default_pivot] {
            w.version(0);
            w.f32s(v);
        }
        if b.version >= 2 {
            w.f32s(&b.skin_scale);
        }
    });
    w.vec(&s.bone_map, |w, (name, id)| {
        w.string(name);
        w.u32(*id);
    });
    if s.version >= 1 {
        w.vec(&s.lods, |w, lod| {
            w.version(0);
            w.f32(lod.distance);
            w.count(lod.active_bones.len());
            w.bytes(&lod.active_bones);
        });
    }
}

/// Writes a `CMatrix` (`serialVersion(0)`, state bits, scale, then the stored parts).
pub(crate) fn write_matrix(w: &mut Writer, m: &NelMatrix) {
    w.version(0);
    w.u32(m.state_bit);
    w.f32(m.scale33);
    if m.has_rot() {
        for r in &m.rows {
            w.f32s(&r[..3]);
        }
    }
    if m.state_bit & MAT_TRANS != 0 {
        w.f32s(&[m.rows[0][3], m.rows[1][3], m.rows[2][3]]);
    }
    if m.state_bit & MAT_PROJ != 0 {
        w.f32s(&m.proj);
    }
}

/// Why bytes are not a readable `.skel`.
pub(crate) type SkelError = NelError;

/// Reads `.skel` bytes strictly (T3 compares fields, so nothing may be left opaque).
/// Counts are checked against the bytes left before anything is allocated; unknown
/// versions are refused rather than guessed at.
pub fn read(bytes: &[u8]) -> Result<Skeleton, SkelError> {
    let mut r = Reader::new(bytes);
    r.check(&MAGIC)?;
    let ptr_id = match r.poly_ptr_head()? {
        Some((id, Some(class))) if class == CLASS_NAME => id,
        other => return Err(r.error_at(4, format!("shape head {other:?}, expected {CLASS_NAME}"))),
    };
    let s = Skeleton { ptr_id, ..r.within(CLASS_NAME, read_body)? };
    r.finish()?;
    Ok(s)
}

/// Reads the `CSkeletonShape::serial` part (after the class name).
pub(crate) fn read_body(r: &mut Reader) -> Result<Skeleton, NelError> {
    let version = r.version(1)? as u8;
    let bones = r.vec(88, |r| {
        let bone_version = r.version(2)? as u8;
        let mut b = Bone::new(r.string()?);
        b.version = bone_version;
        b.inv_bind_pos = read_matrix(r)?;
        b.father_id = r.i32()?;
        b.unherit_scale = match r.u8()? {
            0 => false,
            1 => true,
            other => return Err(r.error(format!("bool byte {other}"))),
        };
        b.lod_disable_distance = if bone_version >= 1 { r.f32()? } else { 0.0 };
        b.default_pos = track(r)?;
        b.default_rot_euler = track(r)?;
        r.version(0)?;
        b.default_rot_quat = r.f32s::<4>()?;
        b.default_scale = track(r)?;
        b.default_pivot = track(r)?;
        b.skin_scale = if bone_version >= 2 { r.f32s::<3>()? } else { [1.0; 3] };
        Ok(b)
    })?;
    let bone_map = r.vec(8, |r| {
        let name = r.string()?;
        Ok((name, r.u32()?))
    })?;
    let mut lods = Vec::new();
    if version >= 1 {
        lods = r.vec(9, |r| {
            r.version(0)?;
            let distance = r.f32()?;
            let k = r.count(1)?;
            Ok(Lod { distance, active_bones: r.take(k)?.to_vec() })
        })?;
    }
    Ok(Skeleton { ptr_id: 1, version, bones, bone_map, lods })
}

fn track(r: &mut Reader) -> Result<[f32; 3], NelError> {
    r.version(0)?;
    r.f32s::<3>()
}

/// Reads a `CMatrix`.
pub(crate) fn read_matrix(r: &mut Reader) -> Result<NelMatrix, NelError> {
    r.version(0)?;
    let mut m = NelMatrix::IDENTITY;
    m.state_bit = r.u32()?;
    m.scale33 = r.f32()?;
    if m.has_rot() {
        for row in &mut m.rows {
            row[..3].copy_from_slice(&r.f32s::<3>()?);
        }
    }
    if m.state_bit & MAT_TRANS != 0 {
        let t = r.f32s::<3>()?;
        for (row, x) in m.rows.iter_mut().zip(t) {
            row[3] = x;
        }
    }
    if m.state_bit & MAT_PROJ != 0 {
        m.proj = r.f32s::<4>()?;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bone(name: &str, father: i32, dist: f32) -> Bone {
        Bone { father_id: father, lod_disable_distance: dist, unherit_scale: false, ..Bone::new(name) }
    }

    #[test]
    fn build_inherits_and_caps_lod_distances_and_sorts_the_map() {
        let s = Skeleton::build(vec![bone("root", -1, 0.0), bone("b", 0, 10.0), bone("a", 1, 0.0), bone("c", 1, 30.0)]);
        let d: Vec<f32> = s.bones.iter().map(|b| b.lod_disable_distance).collect();
        assert_eq!(d, vec![0.0, 10.0, 10.0, 10.0]);
        assert_eq!(s.bone_map, vec![("a".into(), 2), ("b".into(), 1), ("c".into(), 3), ("root".into(), 0)]);
        assert_eq!(s.lods.len(), 2);
        assert_eq!(s.lods[1].distance, 10.0);
        assert_eq!(s.lods[1].active_bones, vec![0xFF, 0, 0, 0]);
    }

    #[test]
    fn reader_refuses_hostile_counts_and_trailing_bytes() {
        let s = Skeleton::build(vec![bone("root", -1, 0.0)]);
        let mut bytes = write(&s);
        assert_eq!(read(&bytes).unwrap(), s);
        bytes.push(0);
        assert!(read(&bytes).unwrap_err().what.contains("trailing"));
        let mut hostile = write(&s);
        hostile[4 + 8 + 4 + CLASS_NAME.len() + 1..][..4].copy_from_slice(&i32::MAX.to_le_bytes());
        assert!(read(&hostile).unwrap_err().what.contains("does not fit"));
        for cut in 0..write(&s).len() {
            assert!(read(&write(&s)[..cut]).is_err());
        }
    }

    #[test]
    fn an_old_exporter_pointer_id_is_kept() {
        // A real Ryzom `.skel` stores the shape's memory address (0x119d7850) as its pointer id.
        let s = Skeleton { ptr_id: 0x119d_7850, ..Skeleton::build(vec![bone("root", -1, 0.0)]) };
        let bytes = write(&s);
        assert_eq!(bytes[4..12], 0x119d_7850u64.to_le_bytes());
        assert_eq!(read(&bytes).unwrap(), s);
        let mut null = bytes.clone();
        null[4..12].fill(0);
        assert!(read(&null).is_err());
    }

    fn arb_f32() -> impl Strategy<Value = f32> {
        prop::num::f32::NORMAL | prop::num::f32::ZERO
    }

    prop_compose! {
        fn arb_bone(n: usize)(name in "[A-Za-z0-9 _]{1,12}", father in -1i32..(n as i32),
            state in prop::sample::select(vec![0u32, 1, 2, 3, 4, 8, 11, 16, 27]),
            rows in prop::array::uniform3(prop::array::uniform4(arb_f32())),
            proj in prop::array::uniform4(arb_f32()), unherit in any::<bool>(),
            v in prop::array::uniform16(arb_f32()), version in 0u8..3) -> Bone {
            let mut m = NelMatrix { state_bit: state, scale33: 1.0, rows, proj };
            if !m.has_rot() { for (r, row) in m.rows.iter_mut().enumerate() { for (c, x) in row[..3].iter_mut().enumerate() { *x = f32::from(r == c); } } }
            if state & MAT_TRANS == 0 { for row in &mut m.rows { row[3] = 0.0; } }
            if state & MAT_PROJ == 0 { m.proj = [0.0, 0.0, 0.0, 1.0]; }
            Bone { version, name, inv_bind_pos: m, father_id: father, unherit_scale: unherit,
                lod_disable_distance: if version >= 1 { v[0].abs() } else { 0.0 },
                default_pos: [v[1], v[2], v[3]], default_rot_euler: [v[4], v[5], v[6]],
                default_rot_quat: [v[7], v[8], v[9], v[10]], default_scale: [v[11], v[12], v[13]],
                default_pivot: [v[14], v[15], v[0]],
                skin_scale: if version >= 2 { [v[3], v[2], v[1]] } else { [1.0; 3] } }
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_read_or_fail_typed_without_panicking(
            tail in prop::collection::vec(any::<u8>(), 0..256), cut in 0usize..400,
        ) {
            let mut bytes = write(&Skeleton::build(vec![bone("root", -1, 0.0), bone("b", 0, 5.0)]));
            let at = cut.min(bytes.len());
            bytes.truncate(at);
            bytes.extend(tail);
            let _ = read(&bytes);
        }

        #[test]
        fn write_then_read_is_identity(bones in prop::collection::vec(arb_bone(6), 0..6)) {
            let s = Skeleton::build(bones);
            let bytes = write(&s);
            let back = read(&bytes).unwrap();
            prop_assert_eq!(write(&back), bytes);
        }
    }
}
