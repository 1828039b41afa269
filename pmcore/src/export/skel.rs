//! NeL `.skel` files (digest §7.1): the in-memory [`Skeleton`], its byte writer and a
//! bounded reader, plus the derived data `CSkeletonShape::build` computes (LOD distance
//! inheritance, BoneMap, LOD list). The reader exists so T3 can compare a produced file
//! with a reference field by field.
//!
//! Layout: `"SHAP"`, `u64` poly-pointer id 1, string `"CSkeletonShape"`, `u8` version 1,
//! `s32` bone count + bones, `s32` BoneMap count + (string, `u32`) sorted by name, `s32` LOD
//! count + LODs. Strings are `u32` length + bytes; versions one `u8` (`0xFF` + `u32` from
//! 255); all numbers little-endian.

/// `NELID("PAHS")` as stored.
pub const MAGIC: [u8; 4] = *b"SHAP";
/// Class name of the shape written after the poly-pointer id.
pub const CLASS_NAME: &str = "CSkeletonShape";
/// CMatrix state bit: translation present.
pub const MAT_TRANS: u32 = 1;
/// CMatrix state bit: rotation present.
pub const MAT_ROT: u32 = 2;
/// CMatrix state bit: uniform scale.
pub const MAT_SCALEUNI: u32 = 4;
/// CMatrix state bit: any scale.
pub const MAT_SCALEANY: u32 = 8;
/// CMatrix state bit: projection row present.
pub const MAT_PROJ: u32 = 16;

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
    pub const IDENTITY: NelMatrix = NelMatrix {
        state_bit: 0,
        scale33: 1.0,
        rows: [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0]],
        proj: [0.0, 0.0, 0.0, 1.0],
    };

    /// True when the 3×3 part is stored.
    pub fn has_rot(&self) -> bool {
        self.state_bit & (MAT_ROT | MAT_SCALEUNI | MAT_SCALEANY) != 0
    }

    /// The state NeL's exporter leaves on an inverted bind matrix built with
    /// `setRot(i, j, k)` (ROT | SCALEANY) and `setPos` (TRANS only when non-zero). Zero
    /// elements are written as `+0.0` (the sign of a zero left by the inversion arithmetic
    /// carries no meaning and would make outputs differ by operation order alone).
    pub fn from_affine(m: glam::Mat4) -> NelMatrix {
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
pub struct Lod {
    /// Distance from which this LOD applies.
    pub distance: f32,
    /// One byte per bone.
    pub active_bones: Vec<u8>,
}

/// A `CSkeletonShape`.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    /// Shape serial version (1 adds the LOD list).
    pub version: u8,
    /// Bones in id order.
    pub bones: Vec<Bone>,
    /// Name → bone id, sorted by name (a `std::map`).
    pub bone_map: Vec<(String, u32)>,
    /// LODs, ascending distance.
    pub lods: Vec<Lod>,
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
        Skeleton { version: 1, bones, bone_map, lods }
    }
}

/// Serialises a skeleton to `.skel` bytes.
pub fn write(s: &Skeleton) -> Vec<u8> {
    let mut w = Writer(Vec::new());
    w.0.extend_from_slice(&MAGIC);
    w.0.extend_from_slice(&1u64.to_le_bytes());
    w.string(CLASS_NAME);
    w.version(s.version as u32);
    w.i32(s.bones.len() as i32);
    for b in &s.bones {
        w.version(b.version as u32);
        w.string(&b.name);
        w.matrix(&b.inv_bind_pos);
        w.i32(b.father_id);
        w.0.push(b.unherit_scale as u8);
        if b.version >= 1 {
            w.f32s(&[b.lod_disable_distance]);
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
    }
    w.i32(s.bone_map.len() as i32);
    for (name, id) in &s.bone_map {
        w.string(name);
        w.0.extend_from_slice(&id.to_le_bytes());
    }
    if s.version >= 1 {
        w.i32(s.lods.len() as i32);
        for lod in &s.lods {
            w.version(0);
            w.f32s(&[lod.distance]);
            w.i32(lod.active_bones.len() as i32);
            w.0.extend_from_slice(&lod.active_bones);
        }
    }
    w.0
}

struct Writer(Vec<u8>);

impl Writer {
    fn version(&mut self, v: u32) {
        if v < 0xFF {
            self.0.push(v as u8);
        } else {
            self.0.push(0xFF);
            self.0.extend_from_slice(&v.to_le_bytes());
        }
    }
    fn i32(&mut self, v: i32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f32s(&mut self, v: &[f32]) {
        for x in v {
            self.0.extend_from_slice(&x.to_le_bytes());
        }
    }
    fn string(&mut self, s: &str) {
        self.0.extend_from_slice(&(s.len() as u32).to_le_bytes());
        self.0.extend_from_slice(s.as_bytes());
    }
    fn matrix(&mut self, m: &NelMatrix) {
        self.version(0);
        self.0.extend_from_slice(&m.state_bit.to_le_bytes());
        self.f32s(&[m.scale33]);
        if m.has_rot() {
            for r in &m.rows {
                self.f32s(&r[..3]);
            }
        }
        if m.state_bit & MAT_TRANS != 0 {
            self.f32s(&[m.rows[0][3], m.rows[1][3], m.rows[2][3]]);
        }
        if m.state_bit & MAT_PROJ != 0 {
            self.f32s(&m.proj);
        }
    }
}

/// Why bytes are not a readable `.skel`; `offset` is the byte where reading stopped.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("skel byte {offset}: {what}")]
pub struct SkelError {
    /// Byte offset in the file.
    pub offset: usize,
    /// What was wrong.
    pub what: String,
}

/// Reads `.skel` bytes. Counts are checked against the bytes left before anything is
/// allocated; unknown versions are refused rather than guessed at.
pub fn read(bytes: &[u8]) -> Result<Skeleton, SkelError> {
    let mut r = Reader { data: bytes, pos: 0 };
    if r.take(4)? != MAGIC {
        return Err(r.error_at(0, "magic is not SHAP"));
    }
    let ptr = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
    if ptr != 1 {
        return Err(r.error_at(4, format!("poly-pointer id {ptr}, expected 1")));
    }
    let class = r.string()?;
    if class != CLASS_NAME {
        return Err(r.error(format!("class {class:?}, expected {CLASS_NAME}")));
    }
    let version = r.version(1)?;
    let n = r.count(88)?;
    let mut bones = Vec::with_capacity(n);
    for _ in 0..n {
        let bone_version = r.version(2)?;
        let mut b = Bone::new(r.string()?);
        b.version = bone_version;
        b.inv_bind_pos = r.matrix()?;
        b.father_id = r.i32()?;
        b.unherit_scale = match r.u8()? {
            0 => false,
            1 => true,
            other => return Err(r.error(format!("bool byte {other}"))),
        };
        b.lod_disable_distance = if bone_version >= 1 { r.f32s::<1>()?[0] } else { 0.0 };
        b.default_pos = r.track()?;
        b.default_rot_euler = r.track()?;
        r.version(0)?;
        b.default_rot_quat = r.f32s::<4>()?;
        b.default_scale = r.track()?;
        b.default_pivot = r.track()?;
        b.skin_scale = if bone_version >= 2 { r.f32s::<3>()? } else { [1.0; 3] };
        bones.push(b);
    }
    let m = r.count(8)?;
    let mut bone_map = Vec::with_capacity(m);
    for _ in 0..m {
        let name = r.string()?;
        bone_map.push((name, r.u32()?));
    }
    let mut lods = Vec::new();
    if version >= 1 {
        let l = r.count(9)?;
        for _ in 0..l {
            r.version(0)?;
            let distance = r.f32s::<1>()?[0];
            let k = r.count(1)?;
            lods.push(Lod { distance, active_bones: r.take(k)?.to_vec() });
        }
    }
    if r.pos != bytes.len() {
        return Err(r.error(format!("{} trailing bytes", bytes.len() - r.pos)));
    }
    Ok(Skeleton { version, bones, bone_map, lods })
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn error(&self, what: impl Into<String>) -> SkelError {
        SkelError { offset: self.pos, what: what.into() }
    }
    fn error_at(&self, offset: usize, what: impl Into<String>) -> SkelError {
        SkelError { offset, what: what.into() }
    }
    fn take(&mut self, n: usize) -> Result<&'a [u8], SkelError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| self.error(format!("needs {n} bytes, {} left", self.data.len() - self.pos)))?;
        let out = &self.data[self.pos..end];
        self.pos = end;
        Ok(out)
    }
    fn u8(&mut self) -> Result<u8, SkelError> {
        Ok(self.take(1)?[0])
    }
    fn u32(&mut self) -> Result<u32, SkelError> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }
    fn i32(&mut self) -> Result<i32, SkelError> {
        Ok(self.u32()? as i32)
    }
    fn f32s<const N: usize>(&mut self) -> Result<[f32; N], SkelError> {
        let mut out = [0.0; N];
        for v in &mut out {
            *v = f32::from_bits(self.u32()?);
        }
        Ok(out)
    }
    fn version(&mut self, max: u32) -> Result<u8, SkelError> {
        let start = self.pos;
        let mut v = self.u8()? as u32;
        if v == 0xFF {
            v = self.u32()?;
        }
        if v > max {
            return Err(self.error_at(start, format!("version {v}, at most {max} is known")));
        }
        Ok(v as u8)
    }
    /// Element count that must fit in the bytes left at `min_size` bytes each.
    fn count(&mut self, min_size: usize) -> Result<usize, SkelError> {
        let start = self.pos;
        let n = self.i32()?;
        let left = self.data.len() - self.pos;
        if n < 0 || (n as usize).saturating_mul(min_size) > left {
            return Err(self.error_at(start, format!("count {n} does not fit in {left} bytes")));
        }
        Ok(n as usize)
    }
    fn string(&mut self) -> Result<String, SkelError> {
        let n = self.count(1)?;
        let bytes = self.take(n)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.error("string is not UTF-8"))
    }
    fn track(&mut self) -> Result<[f32; 3], SkelError> {
        self.version(0)?;
        self.f32s::<3>()
    }
    fn matrix(&mut self) -> Result<NelMatrix, SkelError> {
        self.version(0)?;
        let mut m = NelMatrix::IDENTITY;
        m.state_bit = self.u32()?;
        m.scale33 = self.f32s::<1>()?[0];
        if m.has_rot() {
            for row in &mut m.rows {
                row[..3].copy_from_slice(&self.f32s::<3>()?);
            }
        }
        if m.state_bit & MAT_TRANS != 0 {
            let t = self.f32s::<3>()?;
            for (row, x) in m.rows.iter_mut().zip(t) {
                row[3] = x;
            }
        }
        if m.state_bit & MAT_PROJ != 0 {
            m.proj = self.f32s::<4>()?;
        }
        Ok(m)
    }
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
