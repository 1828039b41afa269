//! The MapScaler modifier (Class ID 0x0dadada6, 0): mapping only, its topology passes
//! through, but its output is a tri object — Max counts the faces of what sits under it
//! as triangles. Measured on `wild/seanconway512__myfieldhq_containers_and_terrain.max`,
//! the only corpus MapScaler: its `House-Roof` (Editable Poly of 64 polygons, 120
//! triangles) under it is exactly what separates the polygon count from Max's Mesh Totals
//! (56 faces, with every other node of the file evaluated).

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::mesh::FaceRule;
use crate::eval::outcome::{Evaluated, Stop};
use crate::eval::selection::Carry;

/// The MapScaler's evaluator.
pub(crate) const MAP_SCALER: Modifier = Modifier::new(module_path!(), apply, true, Carry::Keeps);

/// The input as a tri object (faces counted as triangles), positions unchanged.
fn apply(_: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    Ok(match input {
        Evaluated::Mesh(mut mesh) => {
            mesh.rule = FaceRule::Triangles;
            Evaluated::Mesh(mesh)
        }
        Evaluated::CountOnly { counts, note, .. } => Evaluated::CountOnly { counts, rule: FaceRule::Triangles, note },
    })
}
