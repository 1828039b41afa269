//! NeL mesh shapes: `CMesh` (`mesh.cpp`) and the shared `CMeshBase` part
//! (`mesh_base.cpp`) that `CMeshMRMSkinned` also starts with.
//!
//! `CMesh::serial`: version 6, `CMeshBase::serialMeshBase`, `CMeshGeom::serial`.
//! * Mesh base (≤ 10): morph channels (v2+), the default position / pivot / Euler rotation
//!   / quaternion / scale tracks (each a version byte + value), the materials, the animated
//!   materials map, light-map infos (v8+ list, older a map), then flags by version.
//! * Material (≤ 9, `material.cpp`): shader, flags, blend and Z state, five colours,
//!   shininess (v2+), alpha-test threshold (v5+), tex-coord-gen mode (v8+), then four
//!   stages of texture poly pointer + texture environment (v1+; 5 bit-field bytes per
//!   channel, 7 from v9, + constant colour), light maps (v3+), addressing modes (v4+ when the
//!   `TEX_ADDR` flag is set), user texture matrices (v6+, per flagged stage).
//! * Geometry (≤ 4): bone names (v4+), vertex program poly pointer (v3+), morpher (v1+),
//!   the vertex buffer, matrix blocks of render passes (material id + index buffer), the
//!   bounding box and the skinned flag.
//! * Vertex buffer (v2): header (≤ 3: `u16` value flags, 16 value types, vertex count,
//!   colour format v2+, preferred memory and name v3+) then the subset (≤ 2: per vertex,
//!   each present value at its type's size; the UV routing table v2+).
//! * Index buffer (≤ 2): v0 is the old primitive block (lines, triangles, quads as
//!   count, capacity, `u32` list); v1+ is index count, capacity, `u32` list, preferred
//!   memory (v1 also five obsolete bools).
//!
//! * `CMeshMRMSkinned` (`mesh_mrm_skinned.cpp`): version 0, the mesh base, then the MRM
//!   geometry (version 0): bone names, bounding box, level-detail numbers, the packed vertex
//!   buffer (`i16` position / normal / UV, four matrix ids and weights, decompact scale),
//!   the shadow skin (vertices, triangles) and the LODs (wedge count, render passes of
//!   16-bit indices, geomorphs, matrix influences, influenced vertices per weight count).
//!
//! Values NeL wrote from uninitialised memory (unused matrix ids, capacities, bool bytes)
//! are typed as their raw integers, so they re-write unchanged.

use super::skel::{read_matrix, write_matrix, NelMatrix};
use super::stream::{NelError, Part, Reader, Writer};

/// Material flag: per-stage texture addressing modes are stored.
pub(crate) const MAT_TEX_ADDR: u32 = 0x0400;
/// Material flag: user texture matrix of stage 0 (stage `i` is this `<< i`).
pub(crate) const MAT_USER_TEX_0_MAT: u32 = 0x0010_0000;
/// Vertex buffer: number of value slots.
pub(crate) const NUM_VALUES: usize = 16;
/// Vertex buffer: byte size of each value type (`CVertexBuffer::SizeType`).
pub(crate) const VALUE_TYPE_SIZE: [usize; 13] = [8, 4, 2, 16, 8, 4, 24, 12, 6, 32, 16, 8, 4];
/// Vertex buffer value slot of the position.
pub(crate) const VALUE_POSITION: usize = 0;
/// Vertex buffer value slot of the normal.
pub(crate) const VALUE_NORMAL: usize = 1;
/// Vertex buffer value slot of the first texture coordinate set.
pub(crate) const VALUE_TEXCOORD0: usize = 2;
/// Value type `Float3`.
pub(crate) const TYPE_FLOAT3: u8 = 7;
/// Value type `Float2`.
pub(crate) const TYPE_FLOAT2: u8 = 4;

/// RGBA as stored (four bytes).
pub(crate) type Rgba = [u8; 4];

/// A texture behind a poly pointer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Texture {
    /// `CTextureFile`.
    File {
        /// Serial version (≤ 1).
        version: u32,
        /// The `ITexture` part.
        base: TextureBase,
        /// File name.
        file_name: String,
        /// `_AllowDegradation` byte (v1+).
        allow_degradation: u8,
    },
    /// `CTextureMultiFile`.
    MultiFile {
        /// The `ITexture` part.
        base: TextureBase,
        /// File names.
        file_names: Vec<String>,
        /// Selected texture.
        selected: u32,
    },
}

/// `ITexture::serial`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TextureBase {
    /// Serial version (≤ 1).
    pub version: u32,
    /// Upload format, wrap S, wrap T, min filter, mag filter (enums).
    pub enums: [u32; 5],
    /// `_LoadGrayscaleAsAlpha` byte (v1+).
    pub grayscale_as_alpha: u8,
}

/// A texture poly pointer: id, and the texture when this is its first occurrence.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum TexturePtr {
    /// Null.
    Null,
    /// Back-reference to an id already read.
    Shared(u64),
    /// First occurrence.
    Owned(u64, Texture),
}

/// One of the four material stages.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Stage {
    /// The texture.
    pub texture: TexturePtr,
    /// Texture-environment bit-field bytes (RGB then alpha; 10 or 14), v1+.
    pub env: Vec<u8>,
    /// Constant colour, v1+.
    pub constant: Rgba,
}

/// A light map of a material.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct LightMap {
    /// `serial2` version (v7+ materials; `None` for the old form).
    pub version: Option<u32>,
    /// Factor.
    pub factor: Rgba,
    /// LMC diffuse (v7+), LMC ambient (serial2 v1+).
    pub lmc: Vec<Rgba>,
    /// Texture.
    pub texture: TexturePtr,
}

/// A `CMaterial`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Material {
    /// Serial version (≤ 9).
    pub version: u32,
    /// Shader type.
    pub shader: u32,
    /// `IDRV_MAT_*` flags.
    pub flags: u32,
    /// Source blend, destination blend, Z function.
    pub blend_z: [u32; 3],
    /// Z bias.
    pub z_bias: f32,
    /// Colour, emissive, ambient, diffuse, specular.
    pub colors: [Rgba; 5],
    /// Shininess (v2+).
    pub shininess: f32,
    /// Alpha-test threshold (v5+).
    pub alpha_test_threshold: f32,
    /// Tex-coord-gen mode (v8+).
    pub tex_coord_gen_mode: u16,
    /// The four stages.
    pub stages: Vec<Stage>,
    /// Light maps (v3+).
    pub light_maps: Vec<LightMap>,
    /// `_LightMapsMulx2` byte (v7+).
    pub light_maps_mulx2: u8,
    /// Addressing modes (v4+ with `TEX_ADDR`).
    pub tex_addr_modes: Option<[u8; 4]>,
    /// User texture matrices of the flagged stages (v6+).
    pub user_tex_mats: Vec<NelMatrix>,
}

/// (material id, stage id) pairs a light map is used at.
pub(crate) type MatStages = Vec<(u8, u8)>;

/// Light-map info of a mesh base.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum LightInfos {
    /// v8+: list of (light group, animated light, stages).
    V8(Vec<(u32, String, MatStages)>),
    /// Before v8: map of name → stages.
    V7(Vec<(String, MatStages)>),
}

/// `CMeshBase::serialMeshBase`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MeshBase {
    /// Serial version (1..=10).
    pub version: u32,
    /// Default position, pivot, Euler rotation.
    pub default_pos_pivot_euler: [[f32; 3]; 3],
    /// Default rotation quaternion `x, y, z, w`.
    pub default_rot_quat: [f32; 4],
    /// Default scale.
    pub default_scale: [f32; 3],
    /// Materials.
    pub materials: Vec<Material>,
    /// Light-map infos.
    pub light_infos: LightInfos,
    /// `_IsLightable` (v3+), `_UseLightingLocalAttenuation` (v4+), `_AutoAnim` (v5+) bytes.
    pub flags: [u8; 3],
    /// `_DistMax` (v6+).
    pub dist_max: f32,
    /// `_CollisionMeshGeneration` (v9+).
    pub collision_mesh_generation: u32,
}

/// A `CBlendShape`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BlendShape {
    /// Serial version (≤ 1).
    pub version: u32,
    /// Name.
    pub name: String,
    /// Position, normal deltas.
    pub delta_pos_norm: [Vec<[f32; 3]>; 2],
    /// UV deltas.
    pub delta_uv: Vec<[f32; 2]>,
    /// Colour deltas.
    pub delta_col: Vec<Rgba>,
    /// Tangent-space deltas (v1+).
    pub delta_tg_space: Vec<[f32; 3]>,
    /// Vertex references.
    pub vert_refs: Vec<u32>,
}

/// A `CVertexBuffer` (version 2 form).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct VertexBuffer {
    /// Header version (1..=3).
    pub header_version: u32,
    /// Value-present flags (bit `i` = slot `i`).
    pub flags: u16,
    /// Value type of every slot (stored even for absent slots).
    pub types: [u8; NUM_VALUES],
    /// Vertex count.
    pub num_vertices: u32,
    /// Colour format (header v2+).
    pub color_format: u8,
    /// Preferred memory (header v3+).
    pub preferred_memory: u32,
    /// Name (header v3+).
    pub name: String,
    /// Subset version (≤ 2).
    pub subset_version: u32,
    /// Interleaved vertex data, present values in slot order.
    pub data: Vec<u8>,
    /// UV routing (subset v2+).
    pub uv_routing: [u8; 8],
}

impl VertexBuffer {
    /// Bytes per vertex.
    pub(crate) fn vertex_size(&self) -> usize {
        (0..NUM_VALUES)
            .filter(|i| self.flags & (1 << i) != 0)
            .map(|i| VALUE_TYPE_SIZE.get(self.types[i] as usize).copied().unwrap_or(0))
            .sum()
    }

    /// Offset of slot `value` in a vertex, when present.
    pub(crate) fn value_offset(&self, value: usize) -> Option<usize> {
        if self.flags & (1 << value) == 0 {
            return None;
        }
        Some((0..value).filter(|i| self.flags & (1 << i) != 0).map(|i| VALUE_TYPE_SIZE[self.types[i] as usize]).sum())
    }

    /// The `Float3` or `Float2` values of one slot (e.g. positions), decoded.
    pub(crate) fn floats(&self, value: usize) -> Option<Vec<Vec<f32>>> {
        let off = self.value_offset(value)?;
        let n = match self.types[value] {
            TYPE_FLOAT3 => 3,
            TYPE_FLOAT2 => 2,
            1 => 1,
            10 => 4,
            _ => return None,
        };
        let size = self.vertex_size();
        Some(
            self.data
                .chunks_exact(size)
                .map(|v| (0..n).map(|k| f32::from_le_bytes(v[off + 4 * k..][..4].try_into().unwrap())).collect())
                .collect(),
        )
    }
}

/// A `CIndexBuffer`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum IndexBuffer {
    /// Version 0 primitive block: lines, triangles, quads as (count, capacity, indices).
    PrimitiveBlock([(u32, u32, Vec<u32>); 3]),
    /// Version 1 or 2.
    Indices {
        /// Serial version.
        version: u32,
        /// Index count and capacity as stored.
        count_capacity: (u32, u32),
        /// Indices.
        indices: Vec<u32>,
        /// Preferred memory.
        preferred_memory: u32,
        /// Obsolete bools (v1 only).
        old_flags: [u8; 5],
    },
}

impl IndexBuffer {
    /// Triangle corner indices.
    pub(crate) fn triangles(&self) -> &[u32] {
        match self {
            IndexBuffer::PrimitiveBlock(p) => &p[1].2,
            IndexBuffer::Indices { indices, .. } => indices,
        }
    }
}

/// A render pass: material id and index buffer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RdrPass {
    /// Material id.
    pub material_id: u32,
    /// Primitives.
    pub pblock: IndexBuffer,
}

/// A matrix block of render passes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MatrixBlock {
    /// The 16 matrix ids (unused ones are whatever the exporter's memory held).
    pub matrix_ids: [u32; 16],
    /// Matrices in use.
    pub num_matrix: u32,
    /// Render passes.
    pub rdr_passes: Vec<RdrPass>,
}

/// `CMeshGeom::serial`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MeshGeom {
    /// Serial version (≤ 4).
    pub version: u32,
    /// Bone names (v4+).
    pub bones_name: Vec<String>,
    /// Blend shapes of the morpher (v1+).
    pub blend_shapes: Vec<BlendShape>,
    /// Vertex buffer.
    pub vbuffer: VertexBuffer,
    /// Matrix blocks.
    pub matrix_blocks: Vec<MatrixBlock>,
    /// Bounding box centre and half size.
    pub bbox: [[f32; 3]; 2],
    /// `_Skinned` byte.
    pub skinned: u8,
}

/// A `CMesh`.
#[derive(Clone, Debug, PartialEq)]
pub struct Mesh {
    /// Serial version (6).
    pub version: u32,
    /// Mesh base and geometry; opaque from the first field that could not be typed.
    pub(crate) body: Part<MeshBody>,
}

/// Mesh base then geometry.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MeshBody {
    /// Materials and defaults.
    pub base: MeshBase,
    /// Geometry.
    pub geom: Part<MeshGeom>,
}

/// A `CMeshMRMSkinned`: version, the mesh base, then the MRM geometry.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshMrmSkinned {
    /// Serial version (0).
    pub version: u32,
    /// Mesh base, then the geometry; opaque from the first field that could not be typed.
    pub(crate) body: Part<(MeshBase, Part<MrmSkinnedGeom>)>,
}

/// A packed vertex of `CMeshMRMSkinnedGeom` (integer position, normal, UV scaled by the
/// buffer's decompact scale; four matrix ids and weights).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PackedVertex {
    /// Position, normal, UV as stored.
    pub coords: [i16; 8],
    /// Matrix ids then weights.
    pub skin: [u8; 8],
}

/// One MRM level of detail.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MrmLod {
    /// Wedge count.
    pub n_wedges: u32,
    /// Render passes: material id and 16-bit triangle indices.
    pub rdr_passes: Vec<(u32, Vec<u16>)>,
    /// Geomorphs (start, end wedge).
    pub geomorphs: Vec<(u32, u32)>,
    /// Matrix influences.
    pub matrix_influences: Vec<u32>,
    /// Influenced vertices per influence count (1..=4).
    pub influenced_vertices: [Vec<u32>; 4],
}

/// `CMeshMRMSkinnedGeom::serial` (version 0).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MrmSkinnedGeom {
    /// Bone names.
    pub bones_name: Vec<String>,
    /// Bounding box centre and half size.
    pub bbox: [[f32; 3]; 2],
    /// Max and min face used.
    pub face_used: [u32; 2],
    /// Distance finest, middle, coarsest, 1 / delta, pow.
    pub distances: [f32; 5],
    /// Packed vertices.
    pub vertices: Vec<PackedVertex>,
    /// Decompact scale.
    pub decompact_scale: f32,
    /// Shadow skin vertices (position, matrix id).
    pub shadow_vertices: Vec<([f32; 3], u32)>,
    /// Shadow skin triangles.
    pub shadow_triangles: Vec<u32>,
    /// LODs.
    pub lods: Vec<MrmLod>,
}

fn vec3(r: &mut Reader) -> Result<[f32; 3], NelError> {
    r.f32s::<3>()
}

fn track_default<const N: usize>(r: &mut Reader) -> Result<[f32; N], NelError> {
    r.version(0)?;
    r.f32s::<N>()
}

fn read_texture_ptr(r: &mut Reader) -> Result<TexturePtr, NelError> {
    let Some((id, class)) = r.poly_ptr_head()? else { return Ok(TexturePtr::Null) };
    let Some(class) = class else { return Ok(TexturePtr::Shared(id)) };
    let base = |r: &mut Reader| -> Result<TextureBase, NelError> {
        let version = r.version(1)?;
        let enums = [r.u32()?, r.u32()?, r.u32()?, r.u32()?, r.u32()?];
        let grayscale_as_alpha = if version >= 1 { r.u8()? } else { 0 };
        Ok(TextureBase { version, enums, grayscale_as_alpha })
    };
    let texture = match class.as_str() {
        "CTextureFile" => {
            let version = r.version(1)?;
            let base = base(r)?;
            let file_name = r.string()?;
            let allow_degradation = if version >= 1 { r.u8()? } else { 1 };
            Texture::File { version, base, file_name, allow_degradation }
        }
        "CTextureMultiFile" => {
            r.version(0)?;
            let base = base(r)?;
            let file_names = r.vec(4, |r| r.string())?;
            Texture::MultiFile { base, file_names, selected: r.u32()? }
        }
        other => return Err(r.error(format!("texture class {other} is not typed"))),
    };
    Ok(TexturePtr::Owned(id, texture))
}

fn write_texture_ptr(w: &mut Writer, t: &TexturePtr) {
    let base = |w: &mut Writer, b: &TextureBase| {
        w.version(b.version);
        for e in b.enums {
            w.u32(e);
        }
        if b.version >= 1 {
            w.u8(b.grayscale_as_alpha);
        }
    };
    match t {
        TexturePtr::Null => w.u64(0),
        TexturePtr::Shared(id) => w.u64(*id),
        TexturePtr::Owned(id, Texture::File { version, base: b, file_name, allow_degradation }) => {
            w.poly_ptr_head(&Some((*id, Some("CTextureFile".into()))));
            w.version(*version);
            base(w, b);
            w.string(file_name);
            if *version >= 1 {
                w.u8(*allow_degradation);
            }
        }
        TexturePtr::Owned(id, Texture::MultiFile { base: b, file_names, selected }) => {
            w.poly_ptr_head(&Some((*id, Some("CTextureMultiFile".into()))));
            w.version(0);
            base(w, b);
            w.vec(file_names, |w, s| w.string(s));
            w.u32(*selected);
        }
    }
}

fn read_material(r: &mut Reader) -> Result<Material, NelError> {
    let version = r.version(9)?;
    let shader = r.u32()?;
    let flags = r.u32()?;
    let blend_z = [r.u32()?, r.u32()?, r.u32()?];
    let z_bias = r.f32()?;
    let colors = [r.array()?, r.array()?, r.array()?, r.array()?, r.array()?];
    let shininess = if version >= 2 { r.f32()? } else { 0.0 };
    let alpha_test_threshold = if version >= 5 { r.f32()? } else { 0.0 };
    let tex_coord_gen_mode = if version >= 8 { r.u16()? } else { 0 };
    let mut stages = Vec::with_capacity(4);
    for _ in 0..4 {
        let texture = read_texture_ptr(r)?;
        let (env, constant) = if version >= 1 {
            let n = if version >= 9 { 14 } else { 10 };
            (r.take(n)?.to_vec(), r.array()?)
        } else {
            (Vec::new(), [0; 4])
        };
        stages.push(Stage { texture, env, constant });
    }
    let mut light_maps = Vec::new();
    let mut light_maps_mulx2 = 0;
    if version >= 7 {
        let n = r.u32()? as i32;
        if n < 0 || n as usize > r.left() / 13 {
            return Err(r.error(format!("light map count {n} does not fit")));
        }
        for _ in 0..n {
            let v = r.version(1)?;
            let factor = r.array()?;
            let mut lmc = vec![r.array()?];
            if v >= 1 {
                lmc.push(r.array()?);
            }
            light_maps.push(LightMap { version: Some(v), factor, lmc, texture: read_texture_ptr(r)? });
        }
        light_maps_mulx2 = r.u8()?;
    } else if version >= 3 {
        light_maps = r.vec(12, |r| {
            let factor = r.array()?;
            Ok(LightMap { version: None, factor, lmc: Vec::new(), texture: read_texture_ptr(r)? })
        })?;
    }
    let tex_addr_modes = if version >= 4 && flags & MAT_TEX_ADDR != 0 { Some(r.array()?) } else { None };
    let mut user_tex_mats = Vec::new();
    if version >= 6 {
        for i in 0..4 {
            if flags & (MAT_USER_TEX_0_MAT << i) != 0 {
                user_tex_mats.push(read_matrix(r)?);
            }
        }
    }
    Ok(Material {
        version,
        shader,
        flags,
        blend_z,
        z_bias,
        colors,
        shininess,
        alpha_test_threshold,
        tex_coord_gen_mode,
        stages,
        light_maps,
        light_maps_mulx2,
        tex_addr_modes,
        user_tex_mats,
    })
}

fn write_material(w: &mut Writer, m: &Material) {
    w.version(m.version);
    w.u32(m.shader);
    w.u32(m.flags);
    for v in m.blend_z {
        w.u32(v);
    }
    w.f32(m.z_bias);
    for c in &m.colors {
        w.bytes(c);
    }
    if m.version >= 2 {
        w.f32(m.shininess);
    }
    if m.version >= 5 {
        w.f32(m.alpha_test_threshold);
    }
    if m.version >= 8 {
        w.u16(m.tex_coord_gen_mode);
    }
    for s in &m.stages {
        write_texture_ptr(w, &s.texture);
        if m.version >= 1 {
            w.bytes(&s.env);
            w.bytes(&s.constant);
        }
    }
    if m.version >= 7 {
        w.u32(m.light_maps.len() as u32);
        for lm in &m.light_maps {
            w.version(lm.version.unwrap_or(0));
            w.bytes(&lm.factor);
            for c in &lm.lmc {
                w.bytes(c);
            }
            write_texture_ptr(w, &lm.texture);
        }
        w.u8(m.light_maps_mulx2);
    } else if m.version >= 3 {
        w.vec(&m.light_maps, |w, lm| {
            w.bytes(&lm.factor);
            write_texture_ptr(w, &lm.texture);
        });
    }
    if let Some(modes) = &m.tex_addr_modes {
        w.bytes(modes);
    }
    for mat in &m.user_tex_mats {
        write_matrix(w, mat);
    }
}

fn stage_list(r: &mut Reader, versioned: bool) -> Result<MatStages, NelError> {
    r.vec(2, |r| {
        if versioned {
            r.version(0)?;
        }
        Ok((r.u8()?, r.u8()?))
    })
}

/// Reads `CMeshBase::serialMeshBase`.
pub(crate) fn read_mesh_base(r: &mut Reader) -> Result<MeshBase, NelError> {
    r.within("MeshBase", |r| {
        let version = r.version(10)?;
        if version < 1 {
            return Err(r.error("mesh base version 0 (NeL refuses it)"));
        }
        if version >= 2 && r.count(1)? != 0 {
            return Err(r.error("animated morph channels are not typed"));
        }
        let default_pos_pivot_euler = [track_default::<3>(r)?, track_default::<3>(r)?, track_default::<3>(r)?];
        let default_rot_quat = track_default::<4>(r)?;
        let default_scale = track_default::<3>(r)?;
        let materials = r.within("Material", |r| r.vec(60, read_material))?;
        if r.count(1)? != 0 {
            return Err(r.error("animated materials are not typed"));
        }
        let light_infos = if version >= 8 {
            LightInfos::V8(r.vec(13, |r| {
                r.version(0)?;
                let group = r.u32()?;
                let light = r.string()?;
                Ok((group, light, stage_list(r, true)?))
            })?)
        } else {
            LightInfos::V7(r.vec(8, |r| {
                let name = r.string()?;
                Ok((name, stage_list(r, false)?))
            })?)
        };
        let mut flags = [0u8; 3];
        for (i, f) in flags.iter_mut().enumerate() {
            if version >= 3 + i as u32 {
                *f = r.u8()?;
            }
        }
        let dist_max = if version >= 6 { r.f32()? } else { -1.0 };
        if version >= 7 && r.ptr_head()?.is_some() {
            return Err(r.error("LOD character texture is not typed"));
        }
        let collision_mesh_generation = if version >= 9 { r.u32()? } else { 0 };
        Ok(MeshBase {
            version,
            default_pos_pivot_euler,
            default_rot_quat,
            default_scale,
            materials,
            light_infos,
            flags,
            dist_max,
            collision_mesh_generation,
        })
    })
}

/// Writes `CMeshBase::serialMeshBase`.
pub(crate) fn write_mesh_base(w: &mut Writer, b: &MeshBase) {
    w.version(b.version);
    if b.version >= 2 {
        w.count(0);
    }
    for v in &b.default_pos_pivot_euler {
        w.version(0);
        w.f32s(v);
    }
    w.version(0);
    w.f32s(&b.default_rot_quat);
    w.version(0);
    w.f32s(&b.default_scale);
    w.vec(&b.materials, write_material);
    w.count(0);
    let stages = |w: &mut Writer, list: &[(u8, u8)], versioned: bool| {
        w.vec(list, |w, (m, s)| {
            if versioned {
                w.version(0);
            }
            w.u8(*m);
            w.u8(*s);
        })
    };
    match &b.light_infos {
        LightInfos::V8(list) => w.vec(list, |w, (group, light, list)| {
            w.version(0);
            w.u32(*group);
            w.string(light);
            stages(w, list, true);
        }),
        LightInfos::V7(map) => w.vec(map, |w, (name, list)| {
            w.string(name);
            stages(w, list, false);
        }),
    }
    for (i, f) in b.flags.iter().enumerate() {
        if b.version >= 3 + i as u32 {
            w.u8(*f);
        }
    }
    if b.version >= 6 {
        w.f32(b.dist_max);
    }
    if b.version >= 7 {
        w.u64(0);
    }
    if b.version >= 9 {
        w.u32(b.collision_mesh_generation);
    }
}

fn read_vertex_buffer(r: &mut Reader) -> Result<VertexBuffer, NelError> {
    r.within("VertexBuffer", |r| {
        let v = r.version(2)?;
        if v < 2 {
            return Err(r.error(format!("vertex buffer version {v} (pre-header form) is not typed")));
        }
        let header_version = r.version(3)?;
        if header_version < 1 {
            return Err(r.error("vertex buffer header version 0 is not typed"));
        }
        let flags = r.u16()?;
        let types: [u8; NUM_VALUES] = r.array()?;
        for (i, t) in types.iter().enumerate() {
            if flags & (1 << i) != 0 && *t as usize >= VALUE_TYPE_SIZE.len() {
                return Err(r.error(format!("value {i} has unknown type {t}")));
            }
        }
        let num_vertices = r.u32()?;
        let color_format = if header_version >= 2 { r.u8()? } else { 0 };
        let (preferred_memory, name) = if header_version >= 3 { (r.u32()?, r.string()?) } else { (0, String::new()) };
        let subset_version = r.version(2)?;
        let mut vb = VertexBuffer {
            header_version,
            flags,
            types,
            num_vertices,
            color_format,
            preferred_memory,
            name,
            subset_version,
            data: Vec::new(),
            uv_routing: [0, 1, 2, 3, 4, 5, 6, 7],
        };
        let size = (num_vertices as usize).checked_mul(vb.vertex_size()).filter(|&s| s <= r.left());
        let size = size.ok_or_else(|| r.error(format!("{num_vertices} vertices do not fit")))?;
        vb.data = r.take(size)?.to_vec();
        if subset_version >= 2 {
            vb.uv_routing = r.array()?;
        }
        Ok(vb)
    })
}

fn write_vertex_buffer(w: &mut Writer, vb: &VertexBuffer) {
    w.version(2);
    w.version(vb.header_version);
    w.u16(vb.flags);
    w.bytes(&vb.types);
    w.u32(vb.num_vertices);
    if vb.header_version >= 2 {
        w.u8(vb.color_format);
    }
    if vb.header_version >= 3 {
        w.u32(vb.preferred_memory);
        w.string(&vb.name);
    }
    w.version(vb.subset_version);
    w.bytes(&vb.data);
    if vb.subset_version >= 2 {
        w.bytes(&vb.uv_routing);
    }
}

fn u32_list(r: &mut Reader) -> Result<Vec<u32>, NelError> {
    r.vec(4, |r| r.u32())
}

fn read_index_buffer(r: &mut Reader) -> Result<IndexBuffer, NelError> {
    let version = r.version(2)?;
    if version == 0 {
        let prim =
            |r: &mut Reader| -> Result<(u32, u32, Vec<u32>), NelError> { Ok((r.u32()?, r.u32()?, u32_list(r)?)) };
        return Ok(IndexBuffer::PrimitiveBlock([prim(r)?, prim(r)?, prim(r)?]));
    }
    let count_capacity = (r.u32()?, r.u32()?);
    let indices = u32_list(r)?;
    let preferred_memory = r.u32()?;
    let old_flags = if version == 1 { r.array()? } else { [0; 5] };
    Ok(IndexBuffer::Indices { version, count_capacity, indices, preferred_memory, old_flags })
}

fn write_index_buffer(w: &mut Writer, ib: &IndexBuffer) {
    let list = |w: &mut Writer, l: &[u32]| w.vec(l, |w, v| w.u32(*v));
    match ib {
        IndexBuffer::PrimitiveBlock(p) => {
            w.version(0);
            for (n, cap, l) in p {
                w.u32(*n);
                w.u32(*cap);
                list(w, l);
            }
        }
        IndexBuffer::Indices { version, count_capacity, indices, preferred_memory, old_flags } => {
            w.version(*version);
            w.u32(count_capacity.0);
            w.u32(count_capacity.1);
            list(w, indices);
            w.u32(*preferred_memory);
            if *version == 1 {
                w.bytes(old_flags);
            }
        }
    }
}

fn read_blend_shape(r: &mut Reader) -> Result<BlendShape, NelError> {
    let version = r.version(1)?;
    let name = r.string()?;
    let delta_pos_norm = [r.vec(12, vec3)?, r.vec(12, vec3)?];
    let delta_uv = r.vec(8, |r| r.f32s::<2>())?;
    let delta_col = r.vec(4, |r| r.array())?;
    let delta_tg_space = if version >= 1 { r.vec(12, vec3)? } else { Vec::new() };
    let vert_refs = u32_list(r)?;
    Ok(BlendShape { version, name, delta_pos_norm, delta_uv, delta_col, delta_tg_space, vert_refs })
}

fn write_blend_shape(w: &mut Writer, b: &BlendShape) {
    let v3 = |w: &mut Writer, l: &[[f32; 3]]| w.vec(l, |w, v| w.f32s(v));
    w.version(b.version);
    w.string(&b.name);
    v3(w, &b.delta_pos_norm[0]);
    v3(w, &b.delta_pos_norm[1]);
    w.vec(&b.delta_uv, |w, v| w.f32s(v));
    w.vec(&b.delta_col, |w, c| w.bytes(c));
    if b.version >= 1 {
        v3(w, &b.delta_tg_space);
    }
    w.vec(&b.vert_refs, |w, v| w.u32(*v));
}

/// Reads `CMeshGeom::serial`.
pub(crate) fn read_mesh_geom(r: &mut Reader) -> Result<MeshGeom, NelError> {
    let version = r.version(4)?;
    let bones_name = if version >= 4 { r.vec(4, |r| r.string())? } else { Vec::new() };
    if version >= 3 && r.poly_ptr_head()?.is_some() {
        return Err(r.error("mesh vertex program is not typed"));
    }
    let blend_shapes = if version >= 1 {
        r.version(0)?;
        r.within("BlendShape", |r| r.vec(25, read_blend_shape))?
    } else {
        Vec::new()
    };
    let vbuffer = read_vertex_buffer(r)?;
    let matrix_blocks = r.within("MatrixBlock", |r| {
        r.vec(73, |r| {
            r.version(0)?;
            let mut matrix_ids = [0u32; 16];
            for id in &mut matrix_ids {
                *id = r.u32()?;
            }
            let num_matrix = r.u32()?;
            let rdr_passes = r.vec(6, |r| {
                r.version(0)?;
                Ok(RdrPass { material_id: r.u32()?, pblock: read_index_buffer(r)? })
            })?;
            Ok(MatrixBlock { matrix_ids, num_matrix, rdr_passes })
        })
    })?;
    r.version(0)?;
    let bbox = [vec3(r)?, vec3(r)?];
    let skinned = r.u8()?;
    Ok(MeshGeom { version, bones_name, blend_shapes, vbuffer, matrix_blocks, bbox, skinned })
}

/// Writes `CMeshGeom::serial`.
pub(crate) fn write_mesh_geom(w: &mut Writer, g: &MeshGeom) {
    w.version(g.version);
    if g.version >= 4 {
        w.vec(&g.bones_name, |w, s| w.string(s));
    }
    if g.version >= 3 {
        w.u64(0);
    }
    if g.version >= 1 {
        w.version(0);
        w.vec(&g.blend_shapes, write_blend_shape);
    }
    write_vertex_buffer(w, &g.vbuffer);
    w.vec(&g.matrix_blocks, |w, mb| {
        w.version(0);
        for id in mb.matrix_ids {
            w.u32(id);
        }
        w.u32(mb.num_matrix);
        w.vec(&mb.rdr_passes, |w, p| {
            w.version(0);
            w.u32(p.material_id);
            write_index_buffer(w, &p.pblock);
        });
    });
    w.version(0);
    w.f32s(&g.bbox[0]);
    w.f32s(&g.bbox[1]);
    w.u8(g.skinned);
}

/// Reads a `CMesh` body (after the class name); the geometry must end the stream.
pub(crate) fn read_mesh(r: &mut Reader) -> Result<Mesh, NelError> {
    let version = r.version(6)?;
    if version < 6 {
        return Err(r.error(format!("mesh version {version} (NeL refuses < 6)")));
    }
    let body = r.part("CMesh", |r| {
        let base = read_mesh_base(r)?;
        let geom = r.part("MeshGeom", |r| {
            let g = read_mesh_geom(r)?;
            r.finish()?;
            Ok(g)
        });
        Ok(MeshBody { base, geom })
    });
    Ok(Mesh { version, body })
}

/// Writes a `CMesh` body.
pub(crate) fn write_mesh(w: &mut Writer, m: &Mesh) {
    w.version(m.version);
    w.part(&m.body, |w, b| {
        write_mesh_base(w, &b.base);
        w.part(&b.geom, write_mesh_geom);
    });
}

/// Reads a `CMeshMRMSkinned` body.
pub(crate) fn read_mesh_mrm_skinned(r: &mut Reader) -> Result<MeshMrmSkinned, NelError> {
    let version = r.version(0)?;
    let body = r.part("CMeshMRMSkinned", |r| {
        let base = read_mesh_base(r)?;
        let geom = r.part("MRMSkinnedGeom", |r| {
            let g = read_mrm_skinned_geom(r)?;
            r.finish()?;
            Ok(g)
        });
        Ok((base, geom))
    });
    Ok(MeshMrmSkinned { version, body })
}

fn read_mrm_skinned_geom(r: &mut Reader) -> Result<MrmSkinnedGeom, NelError> {
    r.version(0)?;
    let bones_name = r.vec(4, |r| r.string())?;
    r.version(0)?;
    let bbox = [vec3(r)?, vec3(r)?];
    let face_used = [r.u32()?, r.u32()?];
    let distances = r.f32s::<5>()?;
    r.version(0)?;
    let vertices = r.vec(25, |r| {
        r.version(0)?;
        let mut coords = [0i16; 8];
        for c in &mut coords {
            *c = r.u16()? as i16;
        }
        let mut skin = [0u8; 8];
        for i in 0..4 {
            skin[i] = r.u8()?;
            skin[4 + i] = r.u8()?;
        }
        Ok(PackedVertex { coords, skin })
    })?;
    let decompact_scale = r.f32()?;
    let shadow_vertices = r.vec(17, |r| {
        r.version(0)?;
        Ok((vec3(r)?, r.u32()?))
    })?;
    let shadow_triangles = u32_list(r)?;
    let lods = r.within("Lod", |r| {
        r.vec(37, |r| {
            r.version(0)?;
            let n_wedges = r.u32()?;
            let rdr_passes = r.vec(9, |r| {
                r.version(0)?;
                let material = r.u32()?;
                Ok((material, r.vec(2, |r| r.u16())?))
            })?;
            let geomorphs = r.vec(8, |r| Ok((r.u32()?, r.u32()?)))?;
            let matrix_influences = u32_list(r)?;
            let influenced_vertices = [u32_list(r)?, u32_list(r)?, u32_list(r)?, u32_list(r)?];
            Ok(MrmLod { n_wedges, rdr_passes, geomorphs, matrix_influences, influenced_vertices })
        })
    })?;
    Ok(MrmSkinnedGeom {
        bones_name,
        bbox,
        face_used,
        distances,
        vertices,
        decompact_scale,
        shadow_vertices,
        shadow_triangles,
        lods,
    })
}

fn write_mrm_skinned_geom(w: &mut Writer, g: &MrmSkinnedGeom) {
    let list = |w: &mut Writer, l: &[u32]| w.vec(l, |w, v| w.u32(*v));
    w.version(0);
    w.vec(&g.bones_name, |w, s| w.string(s));
    w.version(0);
    w.f32s(&g.bbox[0]);
    w.f32s(&g.bbox[1]);
    w.u32(g.face_used[0]);
    w.u32(g.face_used[1]);
    w.f32s(&g.distances);
    w.version(0);
    w.vec(&g.vertices, |w, v| {
        w.version(0);
        for c in v.coords {
            w.u16(c as u16);
        }
        for i in 0..4 {
            w.u8(v.skin[i]);
            w.u8(v.skin[4 + i]);
        }
    });
    w.f32(g.decompact_scale);
    w.vec(&g.shadow_vertices, |w, (p, m)| {
        w.version(0);
        w.f32s(p);
        w.u32(*m);
    });
    list(w, &g.shadow_triangles);
    w.vec(&g.lods, |w, lod| {
        w.version(0);
        w.u32(lod.n_wedges);
        w.vec(&lod.rdr_passes, |w, (m, pb)| {
            w.version(0);
            w.u32(*m);
            w.vec(pb, |w, i| w.u16(*i));
        });
        w.vec(&lod.geomorphs, |w, (a, b)| {
            w.u32(*a);
            w.u32(*b);
        });
        list(w, &lod.matrix_influences);
        for l in &lod.influenced_vertices {
            list(w, l);
        }
    });
}

/// Writes a `CMeshMRMSkinned` body.
pub(crate) fn write_mesh_mrm_skinned(w: &mut Writer, m: &MeshMrmSkinned) {
    w.version(m.version);
    w.part(&m.body, |w, (base, geom)| {
        write_mesh_base(w, base);
        w.part(geom, write_mrm_skinned_geom);
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn texture(name: &str) -> Texture {
        Texture::File {
            version: 1,
            base: TextureBase { version: 1, enums: [0, 0, 0, 1, 1], grayscale_as_alpha: 0 },
            file_name: name.into(),
            allow_degradation: 1,
        }
    }

    fn material(version: u32, flags: u32, tex_id: u64) -> Material {
        let env_len = if version >= 9 { 14 } else { 10 };
        let stage = |texture| Stage { texture, env: vec![3; env_len], constant: [255; 4] };
        Material {
            version,
            shader: 0,
            flags,
            blend_z: [4, 5, 2],
            z_bias: 0.0,
            colors: [[1, 2, 3, 4]; 5],
            shininess: 10.0,
            alpha_test_threshold: 0.5,
            tex_coord_gen_mode: 0,
            stages: vec![
                stage(TexturePtr::Owned(tex_id, texture("a.tga"))),
                stage(TexturePtr::Shared(tex_id)),
                stage(TexturePtr::Null),
                stage(TexturePtr::Null),
            ],
            light_maps: if version >= 7 {
                vec![LightMap {
                    version: Some(1),
                    factor: [9; 4],
                    lmc: vec![[1; 4], [2; 4]],
                    texture: TexturePtr::Null,
                }]
            } else {
                Vec::new()
            },
            light_maps_mulx2: 0,
            tex_addr_modes: (version >= 4 && flags & MAT_TEX_ADDR != 0).then_some([1, 2, 3, 4]),
            user_tex_mats: if version >= 6 && flags & MAT_USER_TEX_0_MAT != 0 {
                vec![NelMatrix { state_bit: 3, ..NelMatrix::IDENTITY }]
            } else {
                Vec::new()
            },
        }
    }

    fn vertex_buffer(positions: &[[f32; 3]]) -> VertexBuffer {
        let mut types = [TYPE_FLOAT2; NUM_VALUES];
        types[VALUE_POSITION] = TYPE_FLOAT3;
        types[VALUE_NORMAL] = TYPE_FLOAT3;
        let mut data = Vec::new();
        for p in positions {
            for x in p.iter().chain(&[0.0, 0.0, 1.0]).chain(&[0.5, 0.25]) {
                data.extend_from_slice(&x.to_le_bytes());
            }
        }
        VertexBuffer {
            header_version: 3,
            flags: 0b111,
            types,
            num_vertices: positions.len() as u32,
            color_format: 0,
            preferred_memory: 0,
            name: String::new(),
            subset_version: 2,
            data,
            uv_routing: [0, 1, 2, 3, 4, 5, 6, 7],
        }
    }

    fn mesh(material_version: u32, flags: u32, ib: IndexBuffer) -> Mesh {
        let base = MeshBase {
            version: 9,
            default_pos_pivot_euler: [[0.0; 3]; 3],
            default_rot_quat: [0.0, 0.0, 0.0, 1.0],
            default_scale: [1.0; 3],
            materials: vec![material(material_version, flags, 2)],
            light_infos: LightInfos::V8(vec![(0, "sun".into(), vec![(0, 1)])]),
            flags: [1, 0, 0],
            dist_max: -1.0,
            collision_mesh_generation: 0,
        };
        let geom = MeshGeom {
            version: 4,
            bones_name: vec![],
            blend_shapes: vec![],
            vbuffer: vertex_buffer(&[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]),
            matrix_blocks: vec![MatrixBlock {
                matrix_ids: [0xDEAD_BEEF; 16],
                num_matrix: 1,
                rdr_passes: vec![RdrPass { material_id: 0, pblock: ib }],
            }],
            bbox: [[0.5, 0.5, 0.0], [0.5, 0.5, 0.0]],
            skinned: 0,
        };
        Mesh { version: 6, body: Part::Typed(MeshBody { base, geom: Part::Typed(geom) }) }
    }

    fn bytes_of(m: &Mesh) -> Vec<u8> {
        let mut w = Writer::default();
        write_mesh(&mut w, m);
        w.0
    }

    fn read_back(bytes: &[u8]) -> Mesh {
        let mut r = Reader::new(bytes);
        let m = read_mesh(&mut r).unwrap();
        r.finish().unwrap();
        m
    }

    fn old_block() -> IndexBuffer {
        IndexBuffer::PrimitiveBlock([(0, 0x0238_0a18, vec![]), (1, 1, vec![0, 1, 2]), (0, 0, vec![])])
    }

    #[test]
    fn hand_made_meshes_of_both_index_buffer_forms_round_trip_with_shared_textures() {
        for (mv, flags, ib) in [
            (6, 0, old_block()),
            (9, MAT_TEX_ADDR | MAT_USER_TEX_0_MAT, old_block()),
            (
                9,
                0,
                IndexBuffer::Indices {
                    version: 1,
                    count_capacity: (3, 3),
                    indices: vec![0, 1, 2],
                    preferred_memory: 2,
                    old_flags: [0, 1, 0, 1, 0],
                },
            ),
        ] {
            let m = mesh(mv, flags, ib);
            let bytes = bytes_of(&m);
            let back = read_back(&bytes);
            assert_eq!(back, m);
            let geom = back.body.typed().unwrap().geom.typed().unwrap();
            assert_eq!(geom.vbuffer.floats(VALUE_POSITION).unwrap()[1], vec![1.0, 0.0, 0.0]);
            assert_eq!(geom.matrix_blocks[0].rdr_passes[0].pblock.triangles(), &[0, 1, 2]);
        }
    }

    #[test]
    fn hostile_vertex_counts_and_unknown_textures_stay_opaque_in_place() {
        let m = mesh(9, 0, old_block());
        let good = bytes_of(&m);
        let mut hostile = good.clone();
        // Rename the texture class: the whole body becomes one opaque run.
        let t = hostile.windows(12).position(|w| w == b"CTextureFile").unwrap();
        hostile[t + 8] = b'X';
        let back = read_back(&hostile);
        assert!(matches!(&back.body, Part::Opaque(o) if o.why.what.contains("not typed")));
        assert_eq!(bytes_of(&back), hostile);
        // A vertex count the bytes cannot hold: the geometry stays opaque, nothing is allocated.
        let mut huge = m.clone();
        if let Part::Typed(MeshBody { geom: Part::Typed(g), .. }) = &mut huge.body {
            g.vbuffer.num_vertices = u32::MAX;
        }
        let huge_bytes = bytes_of(&huge);
        let back = read_back(&huge_bytes);
        let geom = &back.body.typed().unwrap().geom;
        assert!(
            matches!(geom, Part::Opaque(o) if o.why.what.contains("do not fit") && o.why.path.ends_with("VertexBuffer"))
        );
        assert_eq!(bytes_of(&back), huge_bytes);
        // Cut inside the geometry: the geometry part is opaque, the base still typed.
        let cut = &good[..good.len() - 5];
        let back = read_back(cut);
        let body = back.body.typed().unwrap();
        assert!(matches!(body.geom, Part::Opaque(_)));
        assert_eq!(bytes_of(&back), cut);
    }

    proptest! {
        #[test]
        fn write_then_read_is_identity(
            positions in prop::collection::vec(prop::array::uniform3(any::<u32>().prop_map(f32::from_bits)), 0..6),
            indices in prop::collection::vec(any::<u32>(), 0..9),
            mv in 1u32..10, flags in any::<u32>(), ids in prop::array::uniform16(any::<u32>()),
        ) {
            let mut m = mesh(mv, flags & 0x0FFF_FFFF, IndexBuffer::Indices { version: 2, count_capacity: (indices.len() as u32, 7),
                indices, preferred_memory: 0, old_flags: [0; 5] });
            if let Part::Typed(body) = &mut m.body {
                if let Part::Typed(g) = &mut body.geom {
                    g.vbuffer = vertex_buffer(&positions);
                    g.matrix_blocks[0].matrix_ids = ids;
                }
                let mat = &mut body.base.materials[0];
                if mv >= 6 {
                    mat.user_tex_mats = (0..4).filter(|i| mat.flags & (MAT_USER_TEX_0_MAT << i) != 0)
                        .map(|_| NelMatrix::IDENTITY).collect();
                }
            }
            let bytes = bytes_of(&m);
            let back = read_back(&bytes);
            prop_assert_eq!(bytes_of(&back), bytes);
            prop_assert!(back.body.typed().is_some_and(|b| b.geom.typed().is_some()));
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_always_write_back(data in prop::collection::vec(any::<u8>(), 0..300)) {
            let mut bytes = vec![6u8];
            bytes.extend(data);
            let mut r = Reader::new(&bytes);
            if let Ok(m) = read_mesh(&mut r) {
                prop_assert_eq!(bytes_of(&m), bytes);
            }
        }
    }
}
