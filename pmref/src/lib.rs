//! pmref: what 3ds Max itself exported, read independently of pmcore — binary FBX (6.0 to
//! 7.5, [`fbx`]), Wavefront OBJ (through `tobj`, [`obj`]) and binary DirectX `.x` ([`x`]) —
//! into one [`scene::RefScene`], and the pairs T3 comparisons of those references with
//! pmcore's model of the `.max` they came from ([`compare`], [`pairs`]).
//!
//! Readers take bytes; only [`pairs`] touches the file system (finding the references of
//! a `.max` through a pairs manifest or folder).

pub mod anim_conventions;
pub mod ase;
pub mod biped_skel;
pub mod compare;
pub mod fbx;
pub mod gltf_file;
pub mod obj;
pub mod pairs;
pub mod scene;
pub mod skel_conventions;
pub mod three_ds;
pub mod triage;
pub mod x;

use scene::RefScene;

/// Why a reference could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// FBX records or scene.
    #[error("FBX: {0}")]
    Fbx(#[from] fbx::scene::SceneError),
    /// OBJ.
    #[error(transparent)]
    Obj(#[from] obj::ObjError),
    /// DirectX `.x`.
    #[error(".x: {0}")]
    X(#[from] x::XError),
    /// ASE (3ds Max's ASCII export).
    #[error("ASE: {0}")]
    Ase(#[from] ase::AseError),
    /// glTF 2.0.
    #[error("glTF: {0}")]
    Gltf(#[from] gltf_file::GltfError),
    /// `.3ds` keyframer.
    #[error(".3ds: {0}")]
    ThreeDs(#[from] three_ds::ThreeDsError),
    /// A reference kind listed in a manifest that no reader takes yet, with why: the caller
    /// reports it as a skip of every comparison, never a failure of the `.max`.
    #[error("{0}")]
    NotRead(String),
    /// The file cannot be read from disk.
    #[error("{0}")]
    Io(String),
    /// A file kind none of the readers take.
    #[error("no reader for {0:?} files")]
    Unknown(String),
}

/// Reads a reference by its extension (`fbx`, `obj`, `x`, `ase`, case-insensitive); a
/// glTF needs its buffers: [`read_reference_with`].
pub fn read_reference(extension: &str, bytes: &[u8]) -> Result<RefScene, ReadError> {
    read_reference_with(extension, bytes, &|_| None)
}

/// Reads a reference by its extension, loading a glTF's external buffers through `load`
/// (URI relative to the `.gltf`).
pub fn read_reference_with(
    extension: &str,
    bytes: &[u8],
    load: gltf_file::BufferLoader<'_>,
) -> Result<RefScene, ReadError> {
    match extension.to_ascii_lowercase().as_str() {
        "fbx" => Ok(fbx::scene::read_scene(bytes)?),
        "obj" => Ok(obj::read_scene(bytes)?),
        "x" => Ok(x::read_scene(bytes)?),
        "ase" => Ok(ase::read_scene(bytes)?),
        "gltf" => Ok(gltf_file::read_scene(bytes, load)?),
        "3ds" => Ok(three_ds::read_scene(bytes)?),
        other => Err(ReadError::Unknown(other.to_string())),
    }
}
