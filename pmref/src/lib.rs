//! pmref: what 3ds Max itself exported, read independently of pmcore — binary FBX (6.0 to
//! 7.5, [`fbx`]), Wavefront OBJ (through `tobj`, [`obj`]) and binary DirectX `.x` ([`x`]) —
//! into one [`scene::RefScene`], and the pairs T3 comparisons of those references with
//! pmcore's model of the `.max` they came from ([`compare`], [`pairs`]).
//!
//! Readers take bytes; only [`pairs`] touches the file system (finding the references of
//! a `.max` through a pairs manifest or folder).

pub mod anim_conventions;
pub mod biped_skel;
pub mod compare;
pub mod fbx;
pub mod obj;
pub mod pairs;
pub mod scene;
pub mod skel_conventions;
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
    /// A file kind none of the readers take.
    #[error("no reader for {0:?} files")]
    Unknown(String),
}

/// Reads a reference by its extension (`fbx`, `obj`, `x`, case-insensitive).
pub fn read_reference(extension: &str, bytes: &[u8]) -> Result<RefScene, ReadError> {
    match extension.to_ascii_lowercase().as_str() {
        "fbx" => Ok(fbx::scene::read_scene(bytes)?),
        "obj" => Ok(obj::read_scene(bytes)?),
        "x" => Ok(x::read_scene(bytes)?),
        other => Err(ReadError::Unknown(other.to_string())),
    }
}
