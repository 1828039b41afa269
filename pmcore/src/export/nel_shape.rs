//! Evaluated meshes → NeL `CMesh` shapes, following the rules of the NeL 3ds Max exporter
//! (`nel_mesh_lib`, `export_mesh.cpp` / `export_material.cpp`, and `CMeshGeom::build` in
//! `nel/src/3d/mesh.cpp`) — the facts, written here:
//!
//! * One shape per geometry node, from its world-state mesh as a tri object (polygons split
//!   through their stored cuts).
//! * Vertices in the node's local space: the object offset (`ObjectTM · NodeTM⁻¹`) applied
//!   to object-space positions; normals by the inverse transpose, renormalised.
//! * The node transform (relative to its parent) goes into the mesh base defaults: position,
//!   rotation quaternion (Max's with `w` negated), scale; pivot and Euler rotation are zero.
//! * Normals as Max's render normals: a face without smoothing group uses its face normal;
//!   otherwise the faces around a vertex that share a smoothing bit (transitively) average
//!   their unit face normals — per triangle for Max 4 scenes, weighted by the corner angle
//!   for Max 6 scenes (measured on the pairs: see [`NormalWeighting`]).
//! * UVs of map channel 1 with `v` flipped (`1 − v`: Max's origin is bottom-left, NeL's
//!   top-left), present only when a used material has a texture.
//! * Material id of a face is `id mod` the material count; materials no face uses are
//!   dropped and the ids renumbered in order (`optimizeMaterialUsage`).
//! * Welding: corners that share the Max vertex and have bit-identical normal and UV share
//!   one vertex-buffer entry (`CMeshGeom::build`); one render pass per used material.
//! * Vertex format: position and normal always, texture coordinate 0 when UVs are written.

use super::nel_material::{self, NelMaterialError, NEL_MATERIAL};
use crate::eval::EvalMesh;
use crate::model::controllers::LocalTransform;
use crate::nel::mesh::{
    IndexBuffer, LightInfos, Material, MatrixBlock, Mesh, MeshBase, MeshBody, MeshGeom, RdrPass, Stage, Texture,
    TextureBase, TexturePtr, VertexBuffer, NUM_VALUES, TYPE_FLOAT2, TYPE_FLOAT3, VALUE_NORMAL, VALUE_POSITION,
    VALUE_TEXCOORD0,
};
use crate::nel::stream::Part;
use crate::nel::{NelFile, Shape};
use glam::{Mat3, Mat4, Vec2, Vec3};
use std::collections::HashMap;

/// NeL class name of the shapes this exporter writes.
pub(crate) const CLASS: &str = "CMesh";

/// A Max material as the shape exporter needs it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ShapeMaterial {
    /// Material name (informative).
    pub name: String,
    /// Diffuse colour, 0..=255 per channel.
    pub diffuse: [u8; 3],
    /// Opacity 0..=255.
    pub opacity: u8,
    /// File name of the stage-0 bitmap (as stored, path included), when the material has one
    /// (a Standard material's diffuse map; a NeL Material's slot 1).
    pub texture: Option<String>,
    /// Bitmaps of stages 1..=3 (a NeL Material's slots 2–4; empty for other materials).
    pub later_stages: Vec<Option<String>>,
}

impl ShapeMaterial {
    /// True when any stage has a texture (the exporter then writes UVs for its faces).
    fn has_texture(&self) -> bool {
        self.texture.is_some() || self.later_stages.iter().any(Option::is_some)
    }
}

/// One corner of a triangle before welding.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Corner {
    vertex: u32,
    normal: Vec3,
    uv: Option<Vec2>,
}

/// What [`build`] made, beside the mesh.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub(crate) struct BuildNotes {
    /// Triangles written.
    pub triangles: usize,
    /// Vertex-buffer entries after welding.
    pub vertices: usize,
    /// Max vertices in the evaluated mesh.
    pub max_vertices: usize,
    /// True when texture coordinates were wanted but the mesh has no usable map channel 1
    /// (they are written as 0, as the NeL exporter fills an unsupported channel).
    pub uv_missing: bool,
}

/// Unit face normal of a triangle, `(v1 − v0) × (v2 − v0)` normalised (zero for a
/// degenerate one). Coplanar faces weld in NeL only when their normals compare equal, so
/// rounding decides a few welds of flat-shaded faces (see docs/exporters.md).
///
/// Max's unit face normal, rounded as Max's x87 code rounds it (53-bit intermediates):
/// the edges' cross product in double precision, stored as a float `Point3`, then divided
/// by its length in double precision. Measured on snow_ramp.max (Max 4): with float
/// arithmetic two coplanar faces get normals one ulp apart and weld into 10226 entries;
/// the NeL export has 10224, which this rounding reproduces vertex for vertex.
fn max_face_normal(p: &[Vec3], t: [u32; 3]) -> Vec3 {
    let [a, b, c] = t.map(|i| p.get(i as usize).copied().unwrap_or(Vec3::ZERO));
    let cross = (b - a).as_dvec3().cross((c - a).as_dvec3()).as_vec3().as_dvec3();
    let length = cross.length();
    if length > 0.0 {
        (cross / length).as_vec3()
    } else {
        Vec3::ZERO
    }
}

/// `v / |v|` (Max's and NeL's normalisation: a division, not a multiplication by the
/// reciprocal), zero for a zero vector.
fn unit(v: Vec3) -> Vec3 {
    let l = v.length();
    if l > 0.0 {
        v / l
    } else {
        Vec3::ZERO
    }
}

/// The angle of triangle `t` at its corner `v` (0 for a degenerate corner).
fn corner_angle(p: &[Vec3], t: [u32; 3], v: u32) -> f32 {
    let Some(k) = t.iter().position(|&c| c == v) else { return 0.0 };
    let at = |i: usize| p.get(t[(k + i) % 3] as usize).copied().unwrap_or(Vec3::ZERO);
    let (a, b) = ((at(1) - at(0)).normalize_or_zero(), (at(2) - at(0)).normalize_or_zero());
    a.dot(b).clamp(-1.0, 1.0).acos()
}

/// The mesh as triangles: `(corners, material, smoothing, map corners)`.
type Triangle = ([u32; 3], u16, u32, Option<[u32; 3]>);

fn triangles_of(mesh: &EvalMesh) -> Vec<Triangle> {
    let uv = mesh.uv.as_ref().filter(|uv| uv.faces.len() == mesh.polygons.len());
    let mut out = Vec::new();
    for (i, p) in mesh.polygons.iter().enumerate() {
        for t in p.mesh_triangles() {
            let map = uv.and_then(|uv| {
                let face = &uv.faces[i];
                let mut m = [0u32; 3];
                for (k, v) in t.iter().enumerate() {
                    m[k] = *face.get(p.corners.iter().position(|c| c == v)?)?;
                }
                Some(m)
            });
            out.push((t, p.material, p.smoothing, map));
        }
    }
    out
}

/// How face normals are weighted in a vertex normal.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum NormalWeighting {
    /// Every triangle counts once (the shapes exported from Max 4 scenes match this).
    #[default]
    PerTriangle,
    /// By the triangle's angle at the vertex, so a polygon counts once whatever its
    /// triangulation (the shapes exported from Max 6 scenes match this).
    ByAngle,
}

impl NormalWeighting {
    /// The weighting of the Max release that saved a scene with root chunk `root_id`:
    /// measured on the NeL corpus pairs, Max 4 (0x2006) per triangle, Max 6 (0x2009) by
    /// angle; releases in between are not represented and follow Max 4.
    pub fn for_scene_root(root_id: u16) -> Self {
        if root_id >= 0x2009 {
            NormalWeighting::ByAngle
        } else {
            NormalWeighting::PerTriangle
        }
    }
}

/// Render normals per triangle corner, in object space (see the module notes).
fn render_normals(positions: &[Vec3], tris: &[Triangle], weighting: NormalWeighting) -> Vec<[Vec3; 3]> {
    let face_normals: Vec<Vec3> = tris.iter().map(|t| max_face_normal(positions, t.0)).collect();
    let mut around: Vec<Vec<usize>> = vec![Vec::new(); positions.len()];
    for (f, t) in tris.iter().enumerate() {
        for v in t.0 {
            if let Some(list) = around.get_mut(v as usize) {
                if !list.contains(&f) {
                    list.push(f);
                }
            }
        }
    }
    let mut out = vec![[Vec3::ZERO; 3]; tris.len()];
    for (v, faces) in around.iter().enumerate() {
        // Smoothing clusters at this vertex: faces joined when their groups share a bit.
        let mut cluster: Vec<usize> = (0..faces.len()).collect();
        fn root(c: &mut [usize], mut i: usize) -> usize {
            while c[i] != i {
                c[i] = c[c[i]];
                i = c[i];
            }
            i
        }
        for a in 0..faces.len() {
            for b in a + 1..faces.len() {
                if tris[faces[a]].2 & tris[faces[b]].2 != 0 {
                    let (ra, rb) = (root(&mut cluster, a), root(&mut cluster, b));
                    cluster[ra.max(rb)] = ra.min(rb);
                }
            }
        }
        let mut sums: HashMap<usize, Vec3> = HashMap::new();
        for (k, &f) in faces.iter().enumerate() {
            if tris[f].2 != 0 {
                let w = match weighting {
                    NormalWeighting::PerTriangle => 1.0,
                    NormalWeighting::ByAngle => corner_angle(positions, tris[f].0, v as u32),
                };
                *sums.entry(root(&mut cluster, k)).or_insert(Vec3::ZERO) += face_normals[f] * w;
            }
        }
        for (k, &f) in faces.iter().enumerate() {
            let n = if tris[f].2 == 0 {
                face_normals[f]
            } else {
                unit(sums.get(&root(&mut cluster, k)).copied().unwrap_or(Vec3::ZERO))
            };
            for (c, &cv) in tris[f].0.iter().enumerate() {
                if cv as usize == v {
                    out[f][c] = n;
                }
            }
        }
    }
    out
}

/// A NeL material for a Max one (standard lit material: diffuse colour, opacity in the
/// diffuse alpha, the stage bitmaps); `next_id` is the last poly-pointer id written in the
/// stream, and each texture takes the next one.
pub(crate) fn nel_material(m: &ShapeMaterial, next_id: &mut u64) -> Material {
    let [r, g, b] = m.diffuse;
    let diffuse = [r, g, b, m.opacity];
    let mut file = |name: &Option<String>| match name {
        Some(name) => {
            *next_id += 1;
            TexturePtr::Owned(
                *next_id,
                Texture::File {
                    version: 1,
                    base: TextureBase { version: 1, enums: [0, 0, 0, 5, 1], grayscale_as_alpha: 0 },
                    file_name: file_base_name(name).to_string(),
                    allow_degradation: 1,
                },
            )
        }
        None => TexturePtr::Null,
    };
    let mut textures = vec![file(&m.texture)];
    textures.extend((0..3).map(|k| file(m.later_stages.get(k).unwrap_or(&None))));
    let stage = |texture| Stage { texture, env: vec![0; 14], constant: [255; 4] };
    Material {
        version: 9,
        shader: 0,
        flags: 0x0001, // IDRV_MAT_LIGHTING… the exporter's lit standard material
        blend_z: [4, 5, 1],
        z_bias: 0.0,
        colors: [[255; 4], [0, 0, 0, 255], [0, 0, 0, 255], diffuse, [0, 0, 0, 255]],
        shininess: 10.0,
        alpha_test_threshold: 0.5,
        tex_coord_gen_mode: 0,
        stages: textures.into_iter().map(stage).collect(),
        light_maps: Vec::new(),
        light_maps_mulx2: 0,
        tex_addr_modes: None,
        user_tex_mats: Vec::new(),
    }
}

/// The file name part of a stored bitmap path (Windows or Unix separators).
pub(crate) fn file_base_name(path: &str) -> &str {
    path.rsplit(['\\', '/']).next().unwrap_or(path)
}

/// Builds the `CMesh` of one node: `mesh` in object space, `offset` the object offset
/// (object → node local), `local` the node's transform relative to its parent, `materials`
/// the node's material list (one entry for a plain material, the sub-materials of a
/// Multi/Sub-Object; empty for a node without material).
pub(crate) fn build(
    mesh: &EvalMesh,
    offset: Mat4,
    local: &LocalTransform,
    materials: &[ShapeMaterial],
    weighting: NormalWeighting,
) -> (Mesh, BuildNotes) {
    let tris = triangles_of(mesh);
    let normals = render_normals(&mesh.positions, &tris, weighting);
    let normal_matrix = Mat3::from_mat4(offset).inverse().transpose();
    let material_count = materials.len().max(1);
    // Used materials in id order (optimizeMaterialUsage keeps the order of the originals).
    let mut used = vec![false; material_count];
    for t in &tris {
        used[t.1 as usize % material_count] = true;
    }
    let remap: Vec<Option<usize>> = {
        let mut next = 0;
        used.iter()
            .map(|&u| {
                u.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let textured = (0..material_count).any(|i| used[i] && materials.get(i).is_some_and(ShapeMaterial::has_texture));
    let mut notes = BuildNotes { max_vertices: mesh.positions.len(), triangles: tris.len(), ..Default::default() };
    let uv_channel = mesh.uv.as_ref();
    // Weld corners: (Max vertex, normal bits, uv bits) → vertex-buffer index.
    let mut keys: HashMap<(u32, [u32; 3], [u32; 2]), u32> = HashMap::new();
    let mut corners: Vec<Corner> = Vec::new();
    let mut passes: Vec<Vec<u32>> = vec![Vec::new(); used.iter().filter(|u| **u).count()];
    for (f, t) in tris.iter().enumerate() {
        let pass = remap[t.1 as usize % material_count].unwrap_or(0);
        let face_textured = materials.get(t.1 as usize % material_count).is_some_and(ShapeMaterial::has_texture);
        for c in 0..3 {
            let normal = unit(normal_matrix * normals[f][c]);
            let uv = textured.then(|| {
                // NeL fills the UVs of a face whose material maps no channel with 0.
                if !face_textured {
                    return Vec2::ZERO;
                }
                let v = t.3.zip(uv_channel).and_then(|(m, ch)| ch.vertices.get(m[c] as usize).copied());
                if v.is_none() {
                    notes.uv_missing = true;
                }
                let v = v.unwrap_or(Vec2::ZERO);
                Vec2::new(v.x, 1.0 - v.y)
            });
            // NeL compares with float `==`: −0 equals +0 (adding +0 folds −0 into +0).
            let bits = |x: f32| (x + 0.0).to_bits();
            let key = (t.0[c], normal.to_array().map(bits), uv.unwrap_or(Vec2::ZERO).to_array().map(bits));
            let next = corners.len() as u32;
            let index = *keys.entry(key).or_insert_with(|| {
                corners.push(Corner { vertex: t.0[c], normal, uv });
                next
            });
            passes[pass].push(index);
        }
    }
    notes.vertices = corners.len();
    let mut flags: u16 = (1 << VALUE_POSITION) | (1 << VALUE_NORMAL);
    if textured {
        flags |= 1 << VALUE_TEXCOORD0;
    }
    let mut types = [TYPE_FLOAT2; NUM_VALUES];
    types[VALUE_POSITION] = TYPE_FLOAT3;
    types[VALUE_NORMAL] = TYPE_FLOAT3;
    let mut data = Vec::new();
    let (mut lo, mut hi) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for c in &corners {
        let p = offset.transform_point3(mesh.positions.get(c.vertex as usize).copied().unwrap_or(Vec3::ZERO));
        lo = lo.min(p);
        hi = hi.max(p);
        let mut floats: Vec<f32> = p.to_array().into_iter().chain(c.normal.to_array()).collect();
        if let Some(uv) = c.uv {
            floats.extend(uv.to_array());
        }
        for x in floats {
            data.extend_from_slice(&x.to_le_bytes());
        }
    }
    if corners.is_empty() {
        (lo, hi) = (Vec3::ZERO, Vec3::ZERO);
    }
    let vbuffer = VertexBuffer {
        header_version: 3,
        flags,
        types,
        num_vertices: corners.len() as u32,
        color_format: 0,
        preferred_memory: 0,
        name: String::new(),
        subset_version: 2,
        data,
        uv_routing: [0, 1, 2, 3, 4, 5, 6, 7],
    };
    let rdr_passes = passes
        .into_iter()
        .enumerate()
        .map(|(i, indices)| RdrPass {
            material_id: i as u32,
            pblock: IndexBuffer::Indices {
                version: 2,
                count_capacity: (indices.len() as u32, indices.len() as u32),
                indices,
                preferred_memory: 0,
                old_flags: [0; 5],
            },
        })
        .collect();
    let geom = MeshGeom {
        version: 4,
        bones_name: Vec::new(),
        blend_shapes: Vec::new(),
        vbuffer,
        matrix_blocks: vec![MatrixBlock { matrix_ids: [0; 16], num_matrix: 1, rdr_passes }],
        bbox: [((lo + hi) / 2.0).to_array(), ((hi - lo) / 2.0).to_array()],
        skinned: 0,
    };
    // Poly-pointer ids are per stream: the shape itself is 1, textures follow.
    let mut texture_id = 1u64;
    let nel_materials = (0..material_count)
        .filter(|&i| used[i])
        .map(|i| {
            let m = materials.get(i).cloned().unwrap_or(ShapeMaterial {
                diffuse: [128; 3],
                opacity: 255,
                ..Default::default()
            });
            nel_material(&m, &mut texture_id)
        })
        .collect();
    let base = MeshBase {
        version: 9,
        default_pos_pivot_euler: [local.translation.to_array(), [0.0; 3], [0.0; 3]],
        default_rot_quat: local.nel_rotation().to_array(),
        default_scale: local.scale.to_array(),
        materials: nel_materials,
        light_infos: LightInfos::V8(Vec::new()),
        flags: [1, 0, 0],
        dist_max: -1.0,
        collision_mesh_generation: 0,
    };
    (Mesh { version: 6, body: Part::Typed(MeshBody { base, geom: Part::Typed(geom) }) }, notes)
}

/// The `.shape` file bytes of a mesh (header `SHAP`, poly pointer id 1, class `CMesh`).
pub fn write(mesh: &Mesh) -> Vec<u8> {
    crate::nel::write(&NelFile::Shape { ptr_id: 1, class: CLASS.into(), shape: Shape::Mesh(Box::new(mesh.clone())) })
}

/// One exported node.
#[derive(Clone, Debug, PartialEq)]
pub struct NodeShape {
    /// Node name (NeL names the shape file after it).
    pub node: String,
    /// The shape.
    pub mesh: Mesh,
    /// Build counters.
    pub(crate) notes: BuildNotes,
    /// The node's materials as read from the scene.
    pub(crate) materials: Vec<ShapeMaterial>,
    /// The (u, v) box of the stored map channel of the node's base object (tri objects).
    pub(crate) source_map_range: Option<[Vec2; 2]>,
}

impl NodeShape {
    /// The (u, v) box of the map channel the node's base object stores (`[[u, v] low,
    /// [u, v] high]`; tri objects only): every UV the evaluator derives from it lies inside.
    pub fn source_map_range(&self) -> Option<[[f32; 2]; 2]> {
        self.source_map_range.map(|[lo, hi]| [lo.to_array(), hi.to_array()])
    }
}

/// What the exporter did with the scene's nodes.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct ShapeSummary {
    /// Shapes built.
    pub shapes: usize,
    /// Geometry nodes whose evaluation stopped, with the class that stopped them.
    pub stopped: Vec<crate::eval::StoppedNode>,
    /// Nodes left out by Max's rules (not geometry, …), by reason.
    pub left_out: Vec<(String, usize)>,
    /// Nodes over the memory budget (counted, not built).
    pub count_only: Vec<String>,
    /// Nodes whose transform cannot be read (`name: why`).
    pub unplaced: Vec<String>,
    /// Materials whose textures cannot be read (`node: why`); the shape is written without
    /// them, so a reference with textures shows the miss.
    pub materials_unread: Vec<String>,
}

/// Why the exporter failed on a file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// The Scene stream is not a chunk tree with a root container.
    #[error("Scene is not a readable chunk tree")]
    NoScene,
}

/// Multi/Sub-Object material Class ID.
pub(crate) use crate::classes::ids::MULTI_MATERIAL;
/// Standard material Class ID, and the map slot of its diffuse map (`ID_DI`).
pub(crate) use crate::classes::ids::STANDARD_MATERIAL;
const STANDARD_DIFFUSE_SLOT: usize = 1;
/// Bitmap texture Class ID.
pub(crate) use crate::classes::ids::BITMAP_TEXTURE;

fn is_material(o: &crate::model::scene_index::SceneObject<'_>) -> bool {
    o.class.as_ref().is_some_and(|c| c.superclass == crate::model::scene_use::MATERIAL_SUPERCLASS)
}

/// The node's material list as the NeL exporter numbers it: the sub-materials of a
/// Multi/Sub-Object in reference order, else the material itself, else none. A NeL Material
/// whose slots cannot be read comes back without textures, its error beside.
pub(crate) fn node_materials(
    index: &crate::model::scene_index::SceneIndex<'_>,
    node: &crate::model::scene_index::SceneObject<'_>,
) -> (Vec<ShapeMaterial>, Vec<NelMaterialError>) {
    let Some(top) = node.reference(crate::model::scene_use::NODE_MATERIAL_SLOT).and_then(|m| index.get(m)) else {
        return (Vec::new(), Vec::new());
    };
    let leaves: Vec<&crate::model::scene_index::SceneObject<'_>> =
        if top.class.as_ref().is_some_and(|c| c.class_id == MULTI_MATERIAL) {
            top.references().into_iter().filter_map(|(_, t)| index.get(t?)).filter(|o| is_material(o)).collect()
        } else {
            vec![top]
        };
    let mut errors = Vec::new();
    let materials = leaves
        .into_iter()
        .map(|m| {
            let base = ShapeMaterial { opacity: 255, diffuse: [128; 3], ..Default::default() };
            let is_nel = m.class.as_ref().is_some_and(|c| c.class_id == NEL_MATERIAL);
            if !is_nel {
                return ShapeMaterial { texture: bitmap_of(index, m), ..base };
            }
            match nel_material::stage_texmaps(index, m) {
                Ok(stages) => {
                    let mut names = stages.iter().map(|t| first_bitmap(index, vec![(*t)?]));
                    let texture = names.next().flatten();
                    ShapeMaterial { texture, later_stages: names.collect(), ..base }
                }
                Err(e) => {
                    errors.push(e);
                    base
                }
            }
        })
        .collect();
    (materials, errors)
}

/// The stage-0 bitmap of material `m`: a Standard material's diffuse map when it is a
/// Bitmap; for other materials but the NeL Material (read by its slots,
/// [`nel_material`]) the first Bitmap reachable through references (depth-first, not
/// entering other materials or nodes; bounded by the object count).
fn bitmap_of(
    index: &crate::model::scene_index::SceneIndex<'_>,
    m: &crate::model::scene_index::SceneObject<'_>,
) -> Option<String> {
    if m.class.as_ref().is_some_and(|c| c.class_id == STANDARD_MATERIAL) {
        // Standard: the diffuse map only (Texmaps at reference 1; map slot k at reference
        // 2k + 1, the diffuse slot is 1).
        let texmaps = index.get(m.reference(1)?)?;
        let map = index.get(texmaps.reference(2 * STANDARD_DIFFUSE_SLOT + 1)?)?;
        let is_bitmap = map.class.as_ref().is_some_and(|c| c.class_id == BITMAP_TEXTURE);
        return if is_bitmap { bitmap_file_name(index, map) } else { None };
    }
    first_bitmap(index, m.references().into_iter().filter_map(|(_, t)| t).collect())
}

/// The first Bitmap's file name reachable from `roots` (in order, depth-first through
/// references, not entering materials or nodes; bounded by the object count): a texmap that
/// wraps bitmaps (NeL's Multi Bitmap) gives its first.
fn first_bitmap(index: &crate::model::scene_index::SceneIndex<'_>, roots: Vec<usize>) -> Option<String> {
    let mut seen = vec![false; index.objects.len()];
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        let o = index.get(i)?;
        if std::mem::replace(seen.get_mut(i)?, true) || o.is_node() || is_material(o) {
            continue;
        }
        if o.class.as_ref().is_some_and(|c| c.class_id == BITMAP_TEXTURE) {
            if let Some(name) = bitmap_file_name(index, o) {
                return Some(name);
            }
        }
        stack.extend(o.references().into_iter().rev().filter_map(|(_, t)| t));
    }
    None
}

/// The bitmap path a Bitmap texture stores: its parameter block (a referenced object)
/// holds the `BitmapInfo` as a direct child container with the path in 0x1230 (UTF-16) beside 0x1201
/// (info) and 0x1240 (device name) — measured on the Max 4 and Max 6 scenes of the NeL
/// corpus.
fn bitmap_file_name(
    index: &crate::model::scene_index::SceneIndex<'_>,
    o: &crate::model::scene_index::SceneObject<'_>,
) -> Option<String> {
    o.references().into_iter().filter_map(|(_, t)| index.get(t?)).find_map(|block| {
        block.chunk.children().iter().find_map(|info| {
            let name = info.child(BITMAP_INFO_NAME)?;
            info.child(BITMAP_INFO_DEVICE)?;
            name.payload().map(crate::model::utf16).filter(|s| !s.is_empty())
        })
    })
}

/// Map channel 1 of a stored Editable Mesh, when the evaluated mesh still has its faces
/// (same triangle count: a modifier rebuilt the mesh without carrying the channel).
fn stored_tri_uv(
    index: &crate::model::scene_index::SceneIndex<'_>,
    node: &crate::model::scene_index::SceneObject<'_>,
    mesh: &EvalMesh,
) -> Option<crate::eval::mesh::MapChannel> {
    let (base, _) = crate::eval::stack::stack(index, node)?;
    crate::eval::stored::stored_tri_map(base.chunk, mesh)
}

/// Builds one shape per evaluated geometry node of `file`, normals weighted as the Max
/// release that saved it does.
pub fn export(file: &crate::MaxFile) -> Result<(Vec<NodeShape>, ShapeSummary), ShapeError> {
    export_with(file, None)
}

impl NormalWeighting {
    /// The other rule (T3 uses it to tell a reference exported from another release's
    /// revision of the scene from a wrong normal).
    pub fn other(self) -> Self {
        match self {
            NormalWeighting::PerTriangle => NormalWeighting::ByAngle,
            NormalWeighting::ByAngle => NormalWeighting::PerTriangle,
        }
    }
}

/// [`export`] with the normal weighting forced (`None`: the saving release's rule).
pub fn export_with(
    file: &crate::MaxFile,
    weighting: Option<NormalWeighting>,
) -> Result<(Vec<NodeShape>, ShapeSummary), ShapeError> {
    use crate::eval::{Evaluated, NodeOutcome};
    use crate::model::controllers::{local_transform, object_offset};
    let trees = crate::model::scene_index::SceneTrees::of(file).ok_or(ShapeError::NoScene)?;
    let index = trees.index().ok_or(ShapeError::NoScene)?;
    let nodes = crate::eval::evaluate_index(&index, crate::eval::DEFAULT_BUDGET_VERTICES, false);
    let totals = crate::eval::totals_of(&nodes);
    let mut summary = ShapeSummary { stopped: totals.stopped, left_out: totals.left_out, ..Default::default() };
    let mut shapes = Vec::new();
    for n in nodes {
        let NodeOutcome::Evaluated(evaluated) = n.outcome else { continue };
        let mut mesh = match evaluated {
            Evaluated::Mesh(mesh) => mesh,
            Evaluated::CountOnly { note, .. } => {
                summary.count_only.push(format!("{}: {note}", n.name));
                continue;
            }
        };
        let Some(node) = index.get(n.storage_index) else { continue };
        let local = match local_transform(&index, node) {
            Ok(l) => l,
            Err(e) => {
                summary.unplaced.push(format!("{}: {e}", n.name));
                continue;
            }
        };
        if mesh.uv.is_none() {
            mesh.uv = stored_tri_uv(&index, node, &mesh);
        }
        let (materials, errors) = node_materials(&index, node);
        summary.materials_unread.extend(errors.into_iter().map(|e| format!("{}: {e}", n.name)));
        let weighting = weighting.unwrap_or(NormalWeighting::for_scene_root(index.root_id));
        let (shape, notes) = build(&mesh, object_offset(node).matrix(), &local, &materials, weighting);
        let source_map_range = stored_map_range(&index, node);
        shapes.push(NodeShape { node: n.name, mesh: shape, notes, materials, source_map_range });
    }
    summary.shapes = shapes.len();
    Ok((shapes, summary))
}

/// The box of the map channel the node's base object stores, when every UV of the
/// evaluated mesh is a convex combination of it: a tri base under nothing but MeshSmooth
/// / TurboSmooth (a UVW Map or an Unwrap UVW makes its own UVs).
fn stored_map_range(
    index: &crate::model::scene_index::SceneIndex<'_>,
    node: &crate::model::scene_index::SceneObject<'_>,
) -> Option<[Vec2; 2]> {
    use crate::classes::ids::{MESHSMOOTH, TURBOSMOOTH};
    let (base, modifiers) = crate::eval::stack::stack(index, node)?;
    let smoothing_only =
        modifiers.iter().all(|m| m.class.as_ref().is_some_and(|c| [MESHSMOOTH, TURBOSMOOTH].contains(&c.class_id)));
    smoothing_only.then(|| crate::eval::stored::stored_tri_map_range(base.chunk)).flatten()
}

/// `BitmapInfo` children: file path and device name (UTF-16).
const BITMAP_INFO_NAME: u16 = 0x1230;
const BITMAP_INFO_DEVICE: u16 = 0x1240;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::{FaceRule, MapChannel, Polygon};
    use crate::nel::mesh::VALUE_TEXCOORD0;
    use proptest::prelude::*;

    /// A unit cube: 8 vertices, 6 quads (outward winding), smoothing per face from `sm`.
    fn cube(sm: [u32; 6]) -> EvalMesh {
        let positions =
            (0..8).map(|i| Vec3::new((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32)).collect();
        let quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [0, 4, 6, 2], [1, 3, 7, 5]];
        let polygons =
            quads.iter().zip(sm).map(|(q, s)| Polygon { smoothing: s, ..Polygon::new(q.to_vec()) }).collect();
        EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles }
    }

    fn geom(m: &Mesh) -> &MeshGeom {
        m.body.typed().unwrap().geom.typed().unwrap()
    }

    fn material(texture: Option<&str>) -> ShapeMaterial {
        ShapeMaterial { texture: texture.map(str::to_string), opacity: 255, ..Default::default() }
    }

    #[test]
    fn a_flat_cube_has_24_vertices_and_a_smooth_one_8() {
        // Worked by hand: flat faces give each face its own 4 corners (6 × 4 = 24); one
        // smoothing group shares every corner of a vertex (8); 12 triangles either way.
        let id = LocalTransform::default();
        for (sm, vertices) in [([0; 6], 24), ([1; 6], 8), ([1, 1, 2, 2, 4, 4], 24)] {
            let (m, notes) = build(&cube(sm), Mat4::IDENTITY, &id, &[], NormalWeighting::PerTriangle);
            assert_eq!((notes.vertices, notes.triangles), (vertices, 12), "{sm:?}");
            let g = geom(&m);
            assert_eq!(g.vbuffer.num_vertices as usize, vertices);
            assert_eq!(g.vbuffer.flags, 0b11, "position + normal, no UV without a texture");
        }
        // Bottom 1, top 3, sides 2: at a top corner the top (3) shares bit 2 with both sides,
        // one normal; at a bottom corner the bottom (1) shares no bit with the sides, two
        // normals: 4 + 4 × 2 = 12.
        let (_, notes) = build(&cube([1, 3, 2, 2, 2, 2]), Mat4::IDENTITY, &id, &[], NormalWeighting::PerTriangle);
        assert_eq!(notes.vertices, 12);
    }

    #[test]
    fn a_smooth_cube_corner_normal_points_out_along_the_diagonal() {
        let (m, _) = build(&cube([1; 6]), Mat4::IDENTITY, &LocalTransform::default(), &[], NormalWeighting::ByAngle);
        let g = geom(&m);
        let positions = g.vbuffer.floats(VALUE_POSITION).unwrap();
        let normals = g.vbuffer.floats(VALUE_NORMAL).unwrap();
        let i = positions.iter().position(|p| p == &vec![1.0, 1.0, 1.0]).unwrap();
        let k = 1.0 / 3f32.sqrt();
        for c in &normals[i] {
            assert!((c - k).abs() < 1e-6, "{:?}", normals[i]);
        }
    }

    #[test]
    fn uvs_split_vertices_and_are_flipped_only_for_textured_materials() {
        let mut mesh = cube([1; 6]);
        // Every face its own UV island: face f maps to u in [f, f + 1], v in [0, 1].
        let corners = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        mesh.uv = Some(MapChannel {
            vertices: (0..6).flat_map(|f| corners.map(|[u, v]| Vec2::new(u + f as f32, v))).collect(),
            faces: (0..6).map(|f| (4 * f..4 * f + 4).collect()).collect(),
        });
        let id = LocalTransform::default();
        let (m, notes) =
            build(&mesh, Mat4::IDENTITY, &id, &[material(Some("c:\\maps\\a.tga"))], NormalWeighting::ByAngle);
        let g = geom(&m);
        assert_eq!(g.vbuffer.flags, 0b111);
        assert!(!notes.uv_missing);
        // Each cube vertex is on 3 faces with different map corners here: 8 × 3 = 24.
        assert_eq!(notes.vertices, 24);
        let uvs = g.vbuffer.floats(VALUE_TEXCOORD0).unwrap();
        assert!(uvs.iter().all(|uv| [0.0, 1.0].contains(&uv[1])), "v flipped: 1 − v of 0 / 1");
        let base = &m.body.typed().unwrap().base;
        assert!(matches!(&base.materials[0].stages[0].texture,
            TexturePtr::Owned(2, Texture::File { file_name, .. }) if file_name == "a.tga"));
        // Untextured: UVs are not written and do not split vertices.
        let (_, notes) = build(&mesh, Mat4::IDENTITY, &id, &[material(None)], NormalWeighting::ByAngle);
        assert_eq!(notes.vertices, 8);
        // Mixed: faces 1, 3, 5 (top, y = 1, x = 1) textured (material 0), 0, 2, 4 not
        // (material 1). The format carries UVs, but an untextured face's corners get (0, 0)
        // (NeL fills the channels its material does not map with 0; the textured islands have
        // u ≥ 1, so none is (0, 0)). The cube is smooth, so entries at a vertex = distinct UVs:
        // each vertex lies on one face of each pair 0/1, 2/3, 4/5; with k textured faces it
        // has k islands + one (0, 0) entry when k < 3. Vertex 7 (x=y=z=1): k = 3 → 3; the 3
        // vertices with two coordinates 1: 2 + 1 = 3; the 3 with one: 1 + 1 = 2; vertex 0:
        // 1. Total 3 + 9 + 6 + 1 = 19.
        for (i, f) in mesh.polygons.iter_mut().enumerate() {
            f.material = ((i + 1) % 2) as u16;
        }
        let two = [material(Some("a.tga")), material(None)];
        let (m, notes) = build(&mesh, Mat4::IDENTITY, &id, &two, NormalWeighting::ByAngle);
        assert_eq!(notes.vertices, 3 + 3 * 3 + 3 * 2 + 1);
        let uvs = geom(&m).vbuffer.floats(VALUE_TEXCOORD0).unwrap();
        assert!(uvs.iter().any(|uv| uv[0] == 0.0 && uv[1] == 0.0));
    }

    #[test]
    fn unused_materials_are_dropped_and_ids_wrap_modulo_the_material_count() {
        let mut mesh = cube([0; 6]);
        for (i, p) in mesh.polygons.iter_mut().enumerate() {
            p.material = [0, 4, 0, 4, 0, 4][i]; // 4 mod 3 = material 1
        }
        let mats = [material(Some("a.tga")), material(Some("b.tga")), material(Some("c.tga"))];
        let (m, _) = build(&mesh, Mat4::IDENTITY, &LocalTransform::default(), &mats, NormalWeighting::PerTriangle);
        let body = m.body.typed().unwrap();
        assert_eq!(body.base.materials.len(), 2, "material 2 is unused");
        let passes = &geom(&m).matrix_blocks[0].rdr_passes;
        assert_eq!(
            passes.iter().map(|p| (p.material_id, p.pblock.triangles().len() / 3)).collect::<Vec<_>>(),
            [(0, 6), (1, 6)]
        );
    }

    #[test]
    fn the_object_offset_moves_vertices_and_the_node_transform_goes_to_the_defaults() {
        let offset = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
        let local = LocalTransform { translation: Vec3::new(1.0, 2.0, 3.0), ..Default::default() };
        let (m, _) = build(&cube([1; 6]), offset, &local, &[], NormalWeighting::PerTriangle);
        let body = m.body.typed().unwrap();
        assert_eq!(body.base.default_pos_pivot_euler[0], [1.0, 2.0, 3.0]);
        assert_eq!(
            body.base.default_rot_quat,
            [-0.0, -0.0, -0.0, -1.0],
            "NeL's identity: Max's quaternion with w negated"
        );
        let xs: Vec<f32> = geom(&m).vbuffer.floats(VALUE_POSITION).unwrap().iter().map(|p| p[0]).collect();
        assert!(xs.iter().all(|x| *x == 10.0 || *x == 11.0));
        assert_eq!(geom(&m).bbox, [[10.5, 0.5, 0.5], [0.5, 0.5, 0.5]]);
    }

    fn arbitrary_mesh() -> impl Strategy<Value = (EvalMesh, Vec<ShapeMaterial>)> {
        let coord = -4i32..4;
        (prop::collection::vec((coord.clone(), coord.clone(), coord), 3..12), 1usize..4)
            .prop_flat_map(|(points, nmat)| {
                let n = points.len() as u32;
                let faces = prop::collection::vec(
                    (prop::array::uniform3(0..n), 0u32..4, 0u16..6, prop::array::uniform3(0u32..4)),
                    1..20,
                );
                (Just(points), Just(nmat), faces, any::<bool>())
            })
            .prop_map(|(points, nmat, faces, textured)| {
                let positions = points.iter().map(|&(x, y, z)| Vec3::new(x as f32, y as f32, z as f32)).collect();
                let polygons = faces
                    .iter()
                    .map(|(c, sm, mat, _)| Polygon { smoothing: *sm, material: *mat, ..Polygon::new(c.to_vec()) })
                    .collect();
                let uv = MapChannel {
                    vertices: (0..4).map(|i| Vec2::new(i as f32 * 0.25, 0.5)).collect(),
                    faces: faces.iter().map(|f| f.3.to_vec()).collect(),
                };
                let mats = (0..nmat).map(|i| material((textured && i == 0).then_some("t.tga"))).collect();
                (EvalMesh { positions, polygons, uv: Some(uv), rule: FaceRule::Triangles }, mats)
            })
    }

    proptest! {
        /// Welding: every triangle corner lands on a vertex-buffer entry holding its Max
        /// vertex's position; no two entries carry the same (position, normal, UV) of the same
        /// Max vertex; every entry is used; and the bytes re-read through the NeL reader.
        #[test]
        fn welding_keeps_every_corner_and_merges_only_equal_attributes((mesh, mats) in arbitrary_mesh()) {
            let (m, notes) = build(&mesh, Mat4::IDENTITY, &LocalTransform::default(), &mats, NormalWeighting::ByAngle);
            let g = geom(&m);
            let positions = g.vbuffer.floats(VALUE_POSITION).unwrap();
            let normals = g.vbuffer.floats(VALUE_NORMAL).unwrap();
            let uvs = g.vbuffer.floats(VALUE_TEXCOORD0);
            let tris: Vec<[u32; 3]> = mesh.polygons.iter().map(|p| [p.corners[0], p.corners[1], p.corners[2]]).collect();
            let indices: Vec<u32> = g.matrix_blocks[0].rdr_passes.iter().flat_map(|p| p.pblock.triangles().to_vec()).collect();
            prop_assert_eq!(indices.len(), tris.len() * 3);
            prop_assert_eq!(notes.triangles, tris.len());
            let mut used = vec![false; positions.len()];
            for &i in &indices {
                used[i as usize] = true;
            }
            prop_assert!(used.iter().all(|u| *u));
            // Per render pass, each triangle's corners are at its Max vertices' positions, and
            // no two entries of the same Max vertex carry equal attributes.
            let mut by_material: Vec<Vec<&[u32; 3]>> = Vec::new();
            let count = mats.len();
            let mut order: Vec<usize> = Vec::new();
            for p in &mesh.polygons {
                let id = p.material as usize % count;
                if !order.contains(&id) { order.push(id); }
            }
            order.sort();
            for id in &order {
                by_material.push(tris.iter().zip(&mesh.polygons).filter(|(_, p)| p.material as usize % count == *id).map(|(t, _)| t).collect());
            }
            let mut source = vec![u32::MAX; positions.len()];
            for (pass, tris) in g.matrix_blocks[0].rdr_passes.iter().zip(&by_material) {
                for (k, t) in tris.iter().enumerate() {
                    for c in 0..3 {
                        let vb = pass.pblock.triangles()[3 * k + c] as usize;
                        prop_assert_eq!(&positions[vb], &mesh.positions[t[c] as usize].to_array().to_vec());
                        prop_assert!(source[vb] == u32::MAX || source[vb] == t[c], "an entry serves one Max vertex");
                        source[vb] = t[c];
                    }
                }
            }
            let mut keys = std::collections::HashSet::new();
            for i in 0..positions.len() {
                let attributes: Vec<u32> = normals[i].iter().chain(uvs.as_ref().map(|u| &u[i][..]).unwrap_or(&[]))
                    .map(|x| (x + 0.0).to_bits()).collect();
                prop_assert!(keys.insert((source[i], attributes)), "two entries of one Max vertex with equal attributes");
            }
            let bytes = write(&m);
            let back = crate::nel::read(&bytes).unwrap();
            prop_assert!(back.opaque_runs.is_empty());
            prop_assert_eq!(crate::nel::write(&back.file), bytes);
        }
    }
}
