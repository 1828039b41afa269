//! NeL serial formats (the files the Ryzom pipeline exports): `.skel` (`CSkeletonShape`),
//! `.anim` (`CAnimation`), `.shape` (`CMesh`, `CMeshMRMSkinned`) and `.ig`
//! (`CInstanceGroup`). The public NeL source (`nel/src/3d/`) is the specification.
//!
//! Every reader types what it can and keeps the rest of the stream as an opaque run in
//! place ([`stream::Part`]), so [`write`] of what [`read`] returned is byte-identical by
//! construction of each typed field; [`round_trip`] proves it per file and reports how many
//! bytes were typed.

pub mod anim;
pub mod anim_eval;
pub mod ig;
pub(crate) mod mesh;
pub mod skel;
pub(crate) mod stream;
pub mod t1;

use stream::{NelError, Part, Reader, Writer};

/// File name extensions of NeL files (lower case).
pub(crate) const EXTENSIONS: [&str; 4] = ["skel", "anim", "shape", "ig"];

/// True when `name` ends with a NeL extension (case-insensitive).
pub fn is_nel_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    EXTENSIONS.iter().any(|e| lower.rsplit_once('.').is_some_and(|(_, x)| x == *e))
}

/// The object inside a shape stream (`"SHAP"` + poly pointer).
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// `CSkeletonShape`.
    Skeleton(Part<skel::Skeleton>),
    /// `CMesh`.
    Mesh(Box<mesh::Mesh>),
    /// `CMeshMRMSkinned`.
    MeshMrmSkinned(Box<mesh::MeshMrmSkinned>),
    /// Another shape class: its bytes.
    Other(stream::Opaque),
}

/// One NeL file.
#[derive(Clone, Debug, PartialEq)]
pub enum NelFile {
    /// A shape stream: poly-pointer id, class name, object.
    Shape {
        /// Poly-pointer id (1 from current NeL; older NeL wrote a memory address).
        ptr_id: u64,
        /// Class name.
        class: String,
        /// The object.
        shape: Shape,
    },
    /// An animation.
    Animation(Box<anim::Animation>),
    /// An instance group.
    InstanceGroup(Box<ig::InstanceGroup>),
}

impl NelFile {
    /// Format name: `shape`, `anim` or `ig` (skeletons are shapes whose class says so).
    pub(crate) fn format(&self) -> &'static str {
        match self {
            NelFile::Shape { shape: Shape::Skeleton(_), .. } => "skel",
            NelFile::Shape { .. } => "shape",
            NelFile::Animation(_) => "anim",
            NelFile::InstanceGroup(_) => "ig",
        }
    }

    /// NeL class of the top object.
    pub(crate) fn class(&self) -> &str {
        match self {
            NelFile::Shape { class, .. } => class,
            NelFile::Animation(_) => "CAnimation",
            NelFile::InstanceGroup(_) => "CInstanceGroup",
        }
    }
}

/// What [`read`] found: the file and the opaque runs `(offset, length, why)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    /// The file.
    pub file: NelFile,
    /// Runs kept as bytes.
    pub opaque_runs: Vec<(usize, usize, String)>,
}

impl Parsed {
    /// Bytes kept opaque.
    pub(crate) fn opaque_bytes(&self) -> usize {
        self.opaque_runs.iter().map(|r| r.1).sum()
    }
}

/// Reads a NeL file. Fails only when the head (tag, class, first versions) is not NeL;
/// anything later that cannot be typed becomes an opaque run.
pub fn read(bytes: &[u8]) -> Result<Parsed, NelError> {
    let mut r = Reader::new(bytes);
    let file = if bytes.starts_with(&skel::MAGIC) {
        r.check(&skel::MAGIC)?;
        let (ptr_id, class) = match r.poly_ptr_head()? {
            Some((id, Some(class))) => (id, class),
            other => return Err(r.error(format!("shape pointer {other:?} carries no class"))),
        };
        let shape = match class.as_str() {
            skel::CLASS_NAME => Shape::Skeleton(r.part(skel::CLASS_NAME, |r| {
                let s = skel::read_body(r)?;
                r.finish()?;
                Ok(skel::Skeleton { ptr_id, ..s })
            })),
            "CMesh" => Shape::Mesh(Box::new(mesh::read_mesh(&mut r)?)),
            "CMeshMRMSkinned" => Shape::MeshMrmSkinned(Box::new(mesh::read_mesh_mrm_skinned(&mut r)?)),
            other => Shape::Other(r.rest_opaque(format!("shape class {other} is not typed"))),
        };
        NelFile::Shape { ptr_id, class, shape }
    } else if bytes.starts_with(&anim::MAGIC) {
        NelFile::Animation(Box::new(anim::read(&mut r)?))
    } else if bytes.starts_with(&ig::MAGIC) {
        NelFile::InstanceGroup(Box::new(ig::read(&mut r)?))
    } else {
        return Err(r.error("no NeL tag (SHAP, NEL_ANIM, GRPT)"));
    };
    r.finish()?;
    Ok(Parsed { file, opaque_runs: r.opaque_runs().to_vec() })
}

/// Writes a NeL file.
pub fn write(file: &NelFile) -> Vec<u8> {
    let mut w = Writer::default();
    match file {
        NelFile::Shape { ptr_id, class, shape } => {
            w.bytes(&skel::MAGIC);
            w.poly_ptr_head(&Some((*ptr_id, Some(class.clone()))));
            match shape {
                Shape::Skeleton(p) => w.part(p, skel::write_body),
                Shape::Mesh(m) => mesh::write_mesh(&mut w, m),
                Shape::MeshMrmSkinned(m) => mesh::write_mesh_mrm_skinned(&mut w, m),
                Shape::Other(o) => w.bytes(&o.bytes),
            }
        }
        NelFile::Animation(a) => anim::write(&mut w, a),
        NelFile::InstanceGroup(g) => ig::write(&mut w, g),
    }
    w.0
}

/// The outcome of reading and re-writing one NeL file.
#[derive(Clone, Debug, PartialEq)]
pub struct RoundTrip {
    /// Format (`skel`, `shape`, `anim`, `ig`).
    pub format: String,
    /// NeL class of the top object.
    pub class: String,
    /// File size.
    pub bytes: usize,
    /// Bytes read as typed fields.
    pub typed_bytes: usize,
    /// Opaque runs `(offset, length, why)`.
    pub opaque_runs: Vec<(usize, usize, String)>,
    /// First offset where the re-written bytes differ (`None`: identical).
    pub first_difference: Option<usize>,
}

/// Reads `bytes`, writes them back and compares.
pub fn round_trip(bytes: &[u8]) -> Result<RoundTrip, NelError> {
    let parsed = read(bytes)?;
    let out = write(&parsed.file);
    let first_difference = if out == bytes {
        None
    } else {
        Some(out.iter().zip(bytes).position(|(a, b)| a != b).unwrap_or(out.len().min(bytes.len())))
    };
    Ok(RoundTrip {
        format: parsed.file.format().to_string(),
        class: parsed.file.class().to_string(),
        bytes: bytes.len(),
        typed_bytes: bytes.len() - parsed.opaque_bytes(),
        opaque_runs: parsed.opaque_runs,
        first_difference,
    })
}
