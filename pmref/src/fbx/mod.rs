//! Binary FBX: the record layer ([`binary`]) and the scene it describes ([`scene`]).

pub mod binary;
pub mod bind;
pub mod scene;
