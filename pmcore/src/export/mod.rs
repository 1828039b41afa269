//! Exporters that run inside the worker, and T3, their comparison with reference outputs.
//!
//! [`obj`] writes Wavefront OBJ from stored mesh buffers; [`rig`] builds a NeL skeleton
//! from a non-biped `Bip01` rig and [`skel`] writes and reads the `.skel` bytes; [`t3`]
//! compares produced and reference outputs field by field; [`nel_shape`] builds NeL `CMesh`
//! shapes from evaluated meshes and [`shape_t3`] compares them with the NeL exporter's;
//! [`nel_anim`] builds a NeL `.anim` from the scene's animation.

pub mod biped_helper_links;
pub mod biped_rig;
pub mod obj;
pub mod rig;
pub(crate) mod rig_tree;
/// The `.skel` serializer lives with the other NeL formats (one reader/writer pair).
pub use crate::nel::skel;
pub mod nel_anim;
pub mod nel_anim_biped;
pub(crate) mod nel_anim_keys;
pub(crate) mod nel_material;
pub mod nel_shape;
pub mod shape_t3;
pub mod summary;
pub mod t3;
