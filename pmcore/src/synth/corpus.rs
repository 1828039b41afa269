//! Synthetic corpus at Ryzom scale: `.max` files written with pmcore's own writer,
//! following a manifest's folder layout and size distribution, with the shapes measured
//! on the public corpus (`corpus_facts.md`, the public `manifest.tsv`).
//!
//! Why: the real Ryzom corpus (8,634 files, 21 GB) is only available as Git-LFS
//! pointers, so performance work needs a stand-in of the same size and structure. The
//! files are synthetic; nothing here copies a real file. Every file is deterministic in
//! `(seed, path)`, so a plan can be regenerated file by file and two machines writing the
//! same plan get the same bytes.
//!
//! Shapes reproduced per file (each drawn from a per-file generator seeded by the path):
//! - size: the manifest row's byte count (sampled rows, see [`plan`]);
//! - Scene objects: one per [`BYTES_PER_SCENE_OBJECT`] bytes (public corpus average),
//!   chunk headers per MiB drawn from the public files' measured densities
//!   ([`PUBLIC_SHAPES`]), damped for large files whose bulk is geometry;
//! - Scene trees up to 8 deep, Config trees up to 11; now and then one container with
//!   about 10,000 children;
//! - AppData (0x2150) with keys deliberately out of order; references in both forms
//!   (0x2034 flat with trailing −1, 0x2035 map); 0-byte leaf objects; NodeImpl names and
//!   parents; a SceneImpl last with the slot count its version stores;
//! - about 20 % of files with 14-byte headers (all, Scene root only, or a few mixed
//!   among 6-byte siblings), about 10 % gzip-compressed streams, and a few Git-LFS
//!   pointers and truncated (corrupt) compound files.

use super::{utf16le, ClassSpec, SceneBuilder, SynthError, MAX_SCENE_CLSID};
use crate::chunk::{write_stream, Body, Chunk, HeaderWidth};
use crate::classes::ids::{self, superclass as sc};
use crate::compression::{compress, Compression};
use crate::container;
use rand::{RngExt, SeedableRng};
use rand_xorshift::XorShiftRng;
use sha2::{Digest, Sha256};

/// Public corpus: 27,459,072 bytes over 19,676 scene objects.
pub const BYTES_PER_SCENE_OBJECT: u64 = 1_395;

/// Root id and chunk headers per MiB of each uncompressed real public file
/// (`headers_6 + headers_14` over `bytes` in the corpus `manifest.tsv`).
pub const PUBLIC_SHAPES: [(u16, u32); 29] = [
    (0x2004, 27923),
    (0x200B, 36624),
    (0x2011, 21945),
    (0x2012, 11869),
    (0x2021, 30805),
    (0x2021, 32139),
    (0x2022, 26165),
    (0x2020, 23312),
    (0x2012, 38928),
    (0x2021, 17616),
    (0x2021, 15405),
    (0x2022, 5768),
    (0x2021, 24243),
    (0x2022, 4123),
    (0x2022, 9115),
    (0x2023, 21231),
    (0x2023, 9153),
    (0x2025, 2301),
    (0x2025, 9848),
    (0x2025, 9409),
    (0x2025, 16103),
    (0x2025, 9879),
    (0x2027, 14193),
    (0x2028, 10726),
    (0x2028, 12132),
    (0x2028, 16963),
    (0x2028, 15236),
    (0x2028, 10983),
    (0x2028, 16944),
];

/// Above this size the header density is damped (by the square root of the excess):
/// large real files are dominated by a few geometry leaves, not by more objects.
const DENSITY_KNEE: u64 = 4 << 20;

/// Why a corpus could not be planned or built (writing it is `pmfarm synth`'s job).
#[derive(Debug, thiserror::Error)]
pub enum CorpusError {
    /// The manifest has no usable header or a row is malformed.
    #[error("manifest line {line}: {message}")]
    Manifest {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file could not be built.
    #[error("{path}: {source}")]
    Build {
        /// Relative path of the file.
        path: String,
        /// Builder error.
        source: SynthError,
    },
}

/// One row of a manifest: relative path and size of a real file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ManifestRow {
    /// Path relative to the corpus root, `/` separators.
    pub path: String,
    /// File size in bytes.
    pub bytes: u64,
}

/// Reads a TSV manifest whose header names a path column (`path` or `file`) and a
/// `bytes` column (the Ryzom manifest and the public `manifest.tsv` both qualify).
pub fn read_manifest(text: &str) -> Result<Vec<ManifestRow>, CorpusError> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'));
    let Some((_, header)) = lines.next() else {
        return Err(CorpusError::Manifest { line: 1, message: "empty manifest".into() });
    };
    let cols: Vec<&str> = header.split('\t').collect();
    let find = |names: &[&str]| cols.iter().position(|c| names.contains(&c.trim()));
    let (Some(path_col), Some(bytes_col)) = (find(&["path", "file"]), find(&["bytes"])) else {
        return Err(CorpusError::Manifest {
            line: 1,
            message: "header needs a `path` (or `file`) and a `bytes` column".into(),
        });
    };
    lines
        .map(|(n, l)| {
            let fields: Vec<&str> = l.split('\t').collect();
            let bad = |message: String| CorpusError::Manifest { line: n + 1, message };
            let path = fields.get(path_col).ok_or_else(|| bad("missing path".into()))?.trim().to_string();
            let bytes = fields
                .get(bytes_col)
                .and_then(|b| b.trim().parse::<u64>().ok())
                .ok_or_else(|| bad("missing or non-numeric bytes".into()))?;
            Ok(ManifestRow { path, bytes })
        })
        .collect()
}

/// What one synthetic file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A valid scene file.
    Scene,
    /// A Git-LFS pointer text (the farm must skip it).
    LfsPointer,
    /// A compound file cut short (the farm must fail it as corrupt input).
    Corrupt,
}

/// Where 14-byte headers go in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderMix {
    /// 6-byte headers only.
    Short,
    /// Every chunk of every stream (like `neill3d__shoulderbone.max`).
    AllLong,
    /// Only the Scene root (three public files).
    RootLong,
    /// A handful of 14-byte headers among 6-byte siblings (`kevinvandecar__dragon.max`).
    Mixed,
}

/// One file of a plan: everything needed to build it, nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlannedFile {
    /// Output path relative to the corpus root.
    pub path: String,
    /// Target size in bytes (decompressed chunk bytes for gzip files).
    pub target_bytes: u64,
    /// Generator seed of this file.
    pub seed: u64,
    /// Scene, LFS pointer or corrupt.
    pub kind: FileKind,
    /// 14-byte header placement.
    pub headers: HeaderMix,
    /// Streams gzip-compressed.
    pub gzip: bool,
    /// Scene root id (format version).
    pub root_id: u16,
    /// Chunk headers per MiB before damping.
    pub headers_per_mib: u32,
}

/// Seed of one file: the first 8 bytes of SHA-256 over the corpus seed and the path, so
/// a file does not change when other files enter or leave the plan.
pub fn file_seed(seed: u64, path: &str) -> u64 {
    let mut h = Sha256::new();
    h.update(seed.to_le_bytes());
    h.update(path.as_bytes());
    let d = h.finalize();
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

/// Samples `scale × rows` files (whole copies for each unit of scale above 1, named
/// `name~K.max`), keeping each row's folder and size; decides each file's shape from its
/// own seed. Sorted by path.
pub fn plan(rows: &[ManifestRow], scale: f64, seed: u64) -> Vec<PlannedFile> {
    let scale = if scale.is_finite() { scale.max(0.0) } else { 0.0 };
    let whole = scale.floor() as usize;
    let extra = ((scale - whole as f64) * rows.len() as f64).round() as usize;
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&i| file_seed(seed, &rows[i].path));
    let mut picked: Vec<(String, u64)> = Vec::new();
    for copy in 0..whole {
        for r in rows {
            picked.push((copy_name(&r.path, copy), r.bytes));
        }
    }
    for &i in order.iter().take(extra) {
        picked.push((copy_name(&rows[i].path, whole), rows[i].bytes));
    }
    let mut files: Vec<PlannedFile> = picked.into_iter().map(|(path, bytes)| plan_file(path, bytes, seed)).collect();
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    files
}

fn copy_name(path: &str, copy: usize) -> String {
    if copy == 0 {
        return path.to_string();
    }
    match path.rfind('.') {
        Some(dot) if !path[dot..].contains('/') => format!("{}~{}{}", &path[..dot], copy + 1, &path[dot..]),
        _ => format!("{path}~{}", copy + 1),
    }
}

fn plan_file(path: String, bytes: u64, corpus_seed: u64) -> PlannedFile {
    let seed = file_seed(corpus_seed, &path);
    let mut rng = XorShiftRng::seed_from_u64(seed);
    let roll: f64 = rng.random();
    let kind = match roll {
        r if r < 0.003 => FileKind::LfsPointer,
        r if r < 0.005 => FileKind::Corrupt,
        _ => FileKind::Scene,
    };
    let headers = match rng.random::<f64>() {
        r if r < 0.05 => HeaderMix::AllLong,
        r if r < 0.10 => HeaderMix::RootLong,
        r if r < 0.20 => HeaderMix::Mixed,
        _ => HeaderMix::Short,
    };
    let gzip = rng.random_bool(0.10);
    let (root_id, headers_per_mib) = PUBLIC_SHAPES[rng.random_range(0..PUBLIC_SHAPES.len())];
    PlannedFile { path, target_bytes: bytes, seed, kind, headers, gzip, root_id, headers_per_mib }
}

/// The classes every synthetic file lists (builtin and plug-in, typed and generic).
fn classes() -> Vec<ClassSpec> {
    let c = |dll: Option<&str>, class_id: [u32; 2], superclass: u32, name: &str| ClassSpec {
        dll: dll.map(str::to_string),
        class_id,
        superclass,
        name: name.to_string(),
    };
    vec![
        c(None, ids::NODE_IMPL, sc::NODE, "Node"),
        c(None, ids::SCENE_IMPL, sc::SCENE, "Scene"),
        c(None, ids::BEZIER_FLOAT, sc::CTRL_FLOAT, "Bezier Float"),
        c(None, ids::BEZIER_POSITION, sc::CTRL_POSITION, "Position XYZ"),
        c(None, ids::EULER_XYZ, sc::CTRL_ROTATION, "Euler XYZ"),
        c(None, ids::BEZIER_SCALE, sc::CTRL_SCALE, "Bezier Scale"),
        c(None, ids::PRS, sc::CTRL_MATRIX3, "Position/Rotation/Scale"),
        c(Some("prim.dlo"), ids::BOX, sc::GEOM_OBJECT, "Box"),
        c(Some("epoly.dlo"), ids::EDITABLE_POLY, sc::GEOM_OBJECT, "Editable Poly"),
        c(Some("mtl.dlt"), ids::STANDARD_MATERIAL, sc::MATERIAL, "Standard"),
        c(Some("paramblk2.dlo"), ids::PARAM_BLOCK2, sc::PARAM_BLOCK2, "ParamBlock2"),
        c(Some("custattribs.dlo"), ids::CUSTOM_ATTRIBUTE, sc::CUSTOM_ATTRIBUTE, "Custom Attribute"),
        c(Some("mods.dlm"), ids::EDIT_NORMALS, sc::OS_MODIFIER, "Edit Normals"),
        c(Some("vrender.dlr"), ids::VRAY_Z_DEPTH, sc::RENDER_EFFECT, "VRayZDepth"),
    ]
}

const NODE: usize = 0;
const SCENE_IMPL: usize = 1;
const FIRST_PLAIN: usize = 2;

/// Builds one planned file.
pub fn build_file(f: &PlannedFile) -> Result<Vec<u8>, SynthError> {
    match f.kind {
        FileKind::LfsPointer => Ok(lfs_pointer(f)),
        FileKind::Corrupt => {
            let mut whole = Shaper::new(f).build()?;
            whole.truncate((whole.len() / 2).max(1024).min(whole.len()));
            Ok(whole)
        }
        FileKind::Scene => Shaper::new(f).build(),
    }
}

fn lfs_pointer(f: &PlannedFile) -> Vec<u8> {
    let oid: String = Sha256::digest(f.path.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
    format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {}\n", f.target_bytes).into_bytes()
}

/// Builds the streams of one scene file from its plan and generator.
struct Shaper<'p> {
    plan: &'p PlannedFile,
    rng: XorShiftRng,
    classes: Vec<ClassSpec>,
}

impl<'p> Shaper<'p> {
    fn new(plan: &'p PlannedFile) -> Self {
        Shaper { plan, rng: XorShiftRng::seed_from_u64(plan.seed ^ 0x5eed), classes: classes() }
    }

    /// Total chunk headers this file should hold.
    fn header_budget(&self) -> u64 {
        let mib = |b: u64| b as f64 / (1u64 << 20) as f64;
        let density = self.plan.headers_per_mib as f64;
        let t = self.plan.target_bytes;
        let effective =
            if t <= DENSITY_KNEE { mib(t) } else { mib(DENSITY_KNEE) * (t as f64 / DENSITY_KNEE as f64).sqrt() };
        (density * effective).max(64.0) as u64
    }

    fn build(mut self) -> Result<Vec<u8>, SynthError> {
        let headers = self.header_budget();
        let config = self.config();
        let class_data = self.class_data();
        let video_post = vec![Chunk::container(0x0010, vec![Chunk::leaf(0x0020, 0u32.to_le_bytes().to_vec())])];
        let mut directories = SceneBuilder::new(self.plan.root_id);
        directories.classes = self.classes.clone();
        let mut trees = directories.trees();
        trees.retain(|(name, _)| *name != "Scene");
        let overhead =
            [&config, &class_data, &video_post].iter().map(|t| count(t)).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        let scene = self.scene(
            self.plan.target_bytes.saturating_sub(overhead.1 + 8 * 1024),
            headers.saturating_sub(overhead.0).max(32),
        );
        trees.push(("Scene", scene));
        trees.push(("Config", config));
        trees.push(("ClassData", class_data));
        trees.push(("VideoPostQueue", video_post));
        self.apply_header_mix(&mut trees);
        let compression = if self.plan.gzip { Compression::Gzip } else { Compression::None };
        let mut streams: Vec<(&str, Vec<u8>)> = Vec::with_capacity(trees.len());
        for (name, tree) in &trees {
            streams.push((name, compress(&write_stream(tree)?, compression)));
        }
        Ok(container::write(&MAX_SCENE_CLSID, streams.iter().map(|(n, b)| (*n, b.as_slice())))?)
    }

    /// Config: a version leaf, an entry table, and a ConfigScript whose meta containers
    /// nest up to 11 levels deep.
    fn config(&mut self) -> Vec<Chunk<'static>> {
        let entries = self.rng.random_range(1..=6usize);
        let mut table = vec![Chunk::leaf(0x0100, (entries as i32).to_le_bytes().to_vec())];
        for _ in 0..entries {
            let fields = [0x0100u16, 0x0110, 0x0120, 0x0130];
            table.push(Chunk::container(
                0x0110,
                fields
                    .iter()
                    .map(|&id| Chunk::leaf(id, self.rng.random_range(0..4096i32).to_le_bytes().to_vec()))
                    .collect(),
            ));
        }
        // 0x2180 (1) > 0x0040 (2) > 0x0050 + 0x0007 (3) > 0x0007 … down to `depth`.
        let depth = self.rng.random_range(5..=11usize);
        let mut meta = Chunk::container(0x0007, vec![Chunk::leaf(0x0001, 7u32.to_le_bytes().to_vec())]);
        for level in (3..depth).rev() {
            let value = Chunk::leaf(0x0004, (level as f32).to_le_bytes().to_vec());
            meta = Chunk::container(0x0007, vec![value, meta]);
        }
        let mut header = Vec::with_capacity(12);
        for v in [0x1160u32, 0x5ddb_3626, 0x2336_6a6a] {
            header.extend_from_slice(&v.to_le_bytes());
        }
        let script = Chunk::container(0x2180, vec![Chunk::container(0x0040, vec![Chunk::leaf(0x0050, header), meta])]);
        vec![Chunk::leaf(0x2090, 1i32.to_le_bytes().to_vec()), Chunk::container(0x20a0, table), script]
    }

    /// ClassData: one 0x2100 entry per class with a 12-byte header and a small raw leaf.
    fn class_data(&mut self) -> Vec<Chunk<'static>> {
        (0..self.classes.len())
            .map(|i| {
                let mut header = Vec::with_capacity(12);
                for v in [i as u32, 0, self.classes[i].superclass] {
                    header.extend_from_slice(&v.to_le_bytes());
                }
                let len = self.rng.random_range(0..24usize);
                let extra = self.bytes(len);
                Chunk::container(0x2100, vec![Chunk::leaf(0x2110, header), Chunk::leaf(0x2120, extra)])
            })
            .collect()
    }

    /// The Scene root holding `bytes` / [`BYTES_PER_SCENE_OBJECT`] objects, its header
    /// budget spread over them, the remaining bytes in a few geometry-like leaves.
    fn scene(&mut self, bytes: u64, headers: u64) -> Vec<Chunk<'static>> {
        let objects = (bytes / BYTES_PER_SCENE_OBJECT).clamp(8, (headers / 3).max(8)) as usize;
        let per_object = (headers as f64 / objects as f64).max(2.0);
        let mut list: Vec<Chunk<'static>> = Vec::with_capacity(objects + 1);
        let mut nodes: Vec<usize> = Vec::new();
        let mut used: u64 = 0;
        let big_container = bytes >= 1_500_000 && self.rng.random_bool(0.03);
        for index in 0..objects {
            let object = if index == 0 {
                // Storage index 0 reads as an empty reference: a plain placeholder object.
                Chunk::container(FIRST_PLAIN as u16, vec![Chunk::leaf(0x0100, vec![0; 4])])
            } else if self.rng.random_bool(0.0042) {
                // 82 of 19,676 public objects are 0-byte leaves.
                Chunk::leaf(self.plain_class() as u16, Vec::new())
            } else if self.rng.random_bool(0.12) {
                let node = self.node(index, &nodes);
                nodes.push(index);
                node
            } else {
                self.plain_object(index, per_object)
            };
            used += encoded(&object);
            list.push(object);
        }
        if big_container {
            let children = self.rng.random_range(9_800..=10_300usize);
            let leaves = (0..children).map(|i| Chunk::leaf(0x0100, (i as u32).to_le_bytes().to_vec())).collect();
            let object = Chunk::container(self.plain_class() as u16, vec![Chunk::container(0x0200, leaves)]);
            used += encoded(&object);
            list.push(object);
        }
        if let Some(slots) = crate::model::scene::scene_impl_slots(self.plan.root_id) {
            let refs: Vec<i32> = (0..slots).map(|_| self.rng.random_range(1..list.len() as i32)).collect();
            list.push(Chunk::container(SCENE_IMPL as u16, vec![flat_refs(&refs)]));
        }
        self.spread_bulk(&mut list, bytes.saturating_sub(used));
        vec![Chunk::container(self.plan.root_id, list)]
    }

    fn plain_class(&mut self) -> usize {
        self.rng.random_range(FIRST_PLAIN..self.classes.len())
    }

    /// A NodeImpl: version, parent (an earlier node or none), name, references.
    fn node(&mut self, index: usize, nodes: &[usize]) -> Chunk<'static> {
        let parent = match nodes.len() {
            0 => u32::MAX,
            n => nodes[self.rng.random_range(0..n)] as u32,
        };
        let mut parent_bytes = parent.to_le_bytes().to_vec();
        parent_bytes.extend_from_slice(&0u32.to_le_bytes());
        let target = self.rng.random_range(1..index.max(2)) as i32;
        Chunk::container(
            NODE as u16,
            vec![
                Chunk::leaf(0x09ce, 0x0eu32.to_le_bytes().to_vec()),
                flat_refs(&[target, -1, target, -1, -1]),
                Chunk::leaf(0x0960, parent_bytes),
                Chunk::leaf(0x0962, utf16le(&format!("Node{index:05}"))),
            ],
        )
    }

    /// An object of a non-node class: ReferenceMaker byte, references in either form,
    /// parameter leaves, sometimes AppData and a nested container chain.
    fn plain_object(&mut self, index: usize, per_object: f64) -> Chunk<'static> {
        let mut children = Vec::new();
        let refs_first = self.rng.random_bool(0.9);
        let refs = self.references(index);
        if !refs_first {
            // A few real objects carry an unknown chunk before their references.
            children.push(Chunk::leaf(0x2300, self.bytes(8)));
        }
        if let Some(r) = refs {
            children.push(r);
        }
        if self.rng.random_bool(0.5) {
            children.push(Chunk::leaf(0x204B, vec![0x2E]));
        }
        let params = (self.rng.random_range(0.0..2.0 * per_object) as usize).saturating_sub(children.len() + 1);
        for _ in 0..params.min(400) {
            let id = self.rng.random_range(0x0100..0x0140u16);
            let len = self.rng.random_range(0..=48usize);
            children.push(Chunk::leaf(id, self.bytes(len)));
        }
        if self.rng.random_bool(0.02) {
            children.push(self.appdata());
        }
        if self.rng.random_bool(0.05) {
            // Object at depth 2; chains reach depth 8 at most.
            let depth = self.rng.random_range(1..=6usize);
            let mut chain = Chunk::leaf(0x0100, self.bytes(4));
            for _ in 0..depth - 1 {
                chain = Chunk::container(0x0110, vec![chain]);
            }
            children.push(chain);
        }
        Chunk::container(self.plain_class() as u16, children)
    }

    /// 0x2034 flat slots ending in −1s, or a 0x2035 map, or nothing.
    fn references(&mut self, index: usize) -> Option<Chunk<'static>> {
        if index < 2 {
            return None;
        }
        let roll: f64 = self.rng.random();
        let mut target = || self.rng.random_range(1..index) as i32;
        if roll < 0.55 {
            let mut slots: Vec<i32> = (0..1 + index % 4).map(|_| target()).collect();
            slots.resize(slots.len() + 1 + index % 3, -1);
            Some(flat_refs(&slots))
        } else if roll < 0.80 {
            let mut p = (-1i32).to_le_bytes().to_vec();
            for slot in 0..1 + (index % 5) as i32 {
                p.extend_from_slice(&slot.to_le_bytes());
                p.extend_from_slice(&target().to_le_bytes());
            }
            Some(Chunk::leaf(0x2035, p))
        } else {
            None
        }
    }

    /// AppData with 1–6 entries whose keys are in descending (unsorted) order.
    fn appdata(&mut self) -> Chunk<'static> {
        let n = self.rng.random_range(1..=6u32);
        let mut children = vec![Chunk::leaf(0x0100, n.to_le_bytes().to_vec())];
        for i in 0..n {
            let len = self.rng.random_range(1..=32usize);
            let value = self.bytes(len);
            let mut key = Vec::with_capacity(20);
            for v in [0x4e45_4c00u32, 0x000b_1ec7_u32, 0x100, 1000 - i * 7, value.len() as u32] {
                key.extend_from_slice(&v.to_le_bytes());
            }
            children.push(Chunk::container(0x0110, vec![Chunk::leaf(0x0120, key), Chunk::leaf(0x0130, value)]));
        }
        Chunk::container(0x2150, children)
    }

    /// Puts `bytes` into geometry-like leaves (a 0x08FE container per chosen object),
    /// a heavy-tailed share each, so a few leaves carry most of a large file.
    fn spread_bulk(&mut self, list: &mut [Chunk<'static>], bytes: u64) {
        if bytes < 64 {
            return;
        }
        let hosts: Vec<usize> = (1..list.len())
            .filter(|&i| {
                list[i].is_container() && list[i].id as usize >= FIRST_PLAIN && list[i].id as usize != SCENE_IMPL
            })
            .collect();
        if hosts.is_empty() {
            return;
        }
        let count = (hosts.len() / 30).clamp(1, 400);
        let weights: Vec<f64> = (0..count).map(|_| 1.0 / self.rng.random_range(0.02..1.0f64)).collect();
        let total: f64 = weights.iter().sum();
        for w in weights {
            let host = hosts[self.rng.random_range(0..hosts.len())];
            let share = ((bytes as f64 * w / total) as usize).saturating_sub(12) & !3;
            let vertices = self.floats(share);
            let geometry = Chunk::container(0x08FE, vec![Chunk::leaf(0x0914, vertices)]);
            if let Body::Container(children) = &mut list[host].body {
                children.push(geometry);
            }
        }
    }

    fn apply_header_mix(&mut self, trees: &mut [(&'static str, Vec<Chunk<'static>>)]) {
        match self.plan.headers {
            HeaderMix::Short => {}
            HeaderMix::AllLong => trees.iter_mut().for_each(|(_, t)| t.iter_mut().for_each(set_long)),
            HeaderMix::RootLong => {
                if let Some((_, scene)) = trees.iter_mut().find(|(n, _)| *n == "Scene") {
                    scene.iter_mut().for_each(|c| c.width = HeaderWidth::Long);
                }
            }
            HeaderMix::Mixed => {
                if let Some((_, scene)) = trees.iter_mut().find(|(n, _)| *n == "Scene") {
                    let total = count(scene).0;
                    for _ in 0..self.rng.random_range(2..=5u32) {
                        let pick = self.rng.random_range(1..total.max(2));
                        mark_nth(scene, &mut pick.clone());
                    }
                }
            }
        }
    }

    /// Plausible small payload bytes.
    fn bytes(&mut self, len: usize) -> Vec<u8> {
        (0..len).map(|_| self.rng.random_range(0..16u8)).collect()
    }

    /// `len` bytes of little-endian f32 coordinates on a random walk (compressible like
    /// real vertex data, unlike pure noise).
    fn floats(&mut self, len: usize) -> Vec<u8> {
        let mut out = Vec::with_capacity(len);
        let mut v = 0.0f32;
        while out.len() + 4 <= len {
            v += (self.rng.random_range(0..64u32) as f32 - 31.5) * 0.125;
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.resize(len, 0);
        out
    }
}

fn flat_refs(slots: &[i32]) -> Chunk<'static> {
    Chunk::leaf(0x2034, slots.iter().flat_map(|s| s.to_le_bytes()).collect::<Vec<u8>>())
}

fn set_long(c: &mut Chunk<'static>) {
    c.width = HeaderWidth::Long;
    if let Body::Container(children) = &mut c.body {
        children.iter_mut().for_each(set_long);
    }
}

/// Gives the `n`-th chunk in pre-order a 14-byte header.
fn mark_nth(tree: &mut [Chunk<'static>], n: &mut u64) -> bool {
    for c in tree {
        if *n == 0 {
            c.width = HeaderWidth::Long;
            return true;
        }
        *n -= 1;
        if let Body::Container(children) = &mut c.body {
            if mark_nth(children, n) {
                return true;
            }
        }
    }
    false
}

/// (chunks, encoded bytes) of a tree with 6-byte headers.
fn count(tree: &[Chunk<'_>]) -> (u64, u64) {
    tree.iter().fold((0, 0), |(n, b), c| {
        let (cn, _) = match &c.body {
            Body::Container(children) => count(children),
            Body::Leaf(_) => (0, 0),
        };
        (n + 1 + cn, b + encoded(c))
    })
}

fn encoded(c: &Chunk<'_>) -> u64 {
    crate::chunk::encoded_len(std::slice::from_ref(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, Input, MaxFile};

    fn rows() -> Vec<ManifestRow> {
        let sizes = [200_000u64, 900_000, 1_700_000, 2_600_000, 400_000, 3_100_000, 650_000, 1_200_000];
        (0..80)
            .map(|i| ManifestRow { path: format!("stuff/f{}/file_{i:03}.max", i % 5), bytes: sizes[i % sizes.len()] })
            .collect()
    }

    #[test]
    fn manifest_reads_path_or_file_columns() {
        let ryzom = read_manifest("path\tbytes\tlfs_sha256\na/b.max\t12\tx\n").unwrap();
        assert_eq!(ryzom, vec![ManifestRow { path: "a/b.max".into(), bytes: 12 }]);
        let public = read_manifest("file\tbytes\tsha256\nc.max\t7\ty\n").unwrap();
        assert_eq!(public[0].path, "c.max");
        assert!(read_manifest("name\tsize\n").is_err());
        assert!(read_manifest("path\tbytes\na.max\tlots\n").is_err());
    }

    #[test]
    fn plan_samples_the_scaled_share_deterministically() {
        let r = rows();
        let a = plan(&r, 0.25, 7);
        assert_eq!(a.len(), 20);
        assert_eq!(a, plan(&r, 0.25, 7));
        assert_ne!(a, plan(&r, 0.25, 8));
        assert!(a.windows(2).all(|w| w[0].path < w[1].path));
        let twice = plan(&r, 2.0, 7);
        assert_eq!(twice.len(), 160);
        assert!(twice.iter().any(|f| f.path == "stuff/f0/file_000~2.max"));
    }

    #[test]
    fn a_file_does_not_depend_on_the_rest_of_the_plan() {
        let r = rows();
        let all = plan(&r, 1.0, 3);
        let alone = plan(&r[5..6], 1.0, 3);
        let same = all.iter().find(|f| f.path == alone[0].path).unwrap();
        assert_eq!(build_file(same).unwrap(), build_file(&alone[0]).unwrap());
    }

    /// Every synthetic scene file classifies as OLE and passes T1 and T2 on every
    /// chunk stream; pointers and corrupt files classify as such. Exercises every header
    /// mix and gzip by forcing them on a sample.
    #[test]
    fn synthetic_files_pass_t1_and_t2() {
        let mut sample = plan(&rows(), 0.2, 11);
        let mixes = [HeaderMix::Short, HeaderMix::AllLong, HeaderMix::RootLong, HeaderMix::Mixed];
        for (i, f) in sample.iter_mut().enumerate() {
            f.kind = FileKind::Scene;
            f.headers = mixes[i % 4];
            f.gzip = i % 3 == 0;
        }
        for f in &sample {
            let bytes = build_file(f).unwrap();
            let size = bytes.len() as f64;
            if !f.gzip {
                let ratio = size / f.target_bytes as f64;
                assert!((0.8..1.25).contains(&ratio), "{}: {size} bytes for a target of {}", f.path, f.target_bytes);
            }
            let Input::Ole(ole) = classify(&bytes) else { panic!("{}: not OLE", f.path) };
            let file = MaxFile::new(ole);
            let t1 = crate::verify::t1::run(&file, |_| {});
            assert!(t1.len() >= 6, "{}", f.path);
            for v in &t1 {
                assert!(v.verdict.name() == "pass", "{} T1 {}: {:?}", f.path, v.stream, v.verdict);
            }
            let t2 = crate::verify::t2::run(&file, |_, _, _| {});
            for v in &t2.streams {
                assert!(v.verdict.name() == "pass", "{} T2 {}: {:?}", f.path, v.stream, v.verdict);
            }
            assert_eq!(t2.objects.degraded, 0, "{}: {:?}", f.path, t2.notes);
        }
    }

    #[test]
    fn pointers_and_corrupt_files_classify_as_such() {
        let mut f = plan(&rows(), 0.05, 1).remove(0);
        f.kind = FileKind::LfsPointer;
        assert_eq!(classify(&build_file(&f).unwrap()).class_name(), "lfs-pointer");
        f.kind = FileKind::Corrupt;
        assert_eq!(classify(&build_file(&f).unwrap()).class_name(), "corrupt-ole");
    }
}
