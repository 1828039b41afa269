//! A node's base object: the mesh the file stores, or the one its class's builder makes
//! (found in the class catalogue), and whether its indices are Max's own.

use super::context::EvalContext;
use super::mesh::EvalMesh;
use super::outcome::{stop, Stop};
use super::primitive::MaxOrder;
use super::stored::{from_stored, stored_tri_map};
use crate::classes;
use crate::model::geometry;
use crate::model::scene_index::{SceneIndex, SceneObject};

/// A base object, evaluated.
pub(crate) struct Base {
    /// Its mesh.
    pub mesh: EvalMesh,
    /// Its vertex and face indices are Max's own (stored meshes, and the builders checked
    /// against Max's order): what Edit Poly selections and offsets index.
    pub in_max_order: bool,
    /// Its tri mesh is in Max's order (what Edit Mesh indexes), which may hold for a builder
    /// whose own poly conversion is not (the Sphere).
    pub tri_order: bool,
    /// Built here, not read from stored buffers.
    pub generated: bool,
}

/// The base object's mesh: stored buffers when it has them, else its class's builder.
/// Builders whose vertex count would exceed `budget` stop (named) before building.
pub fn evaluate_base(index: &SceneIndex<'_>, base: &SceneObject<'_>, budget: u64) -> Result<EvalMesh, Stop> {
    build(&EvalContext::new(index, budget), base)
}

fn build(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>) -> Result<EvalMesh, Stop> {
    match geometry::Mesh::of_object(base.chunk) {
        Ok(Some(m)) => {
            // A tri object's map channel 1 rides along (MeshSmooth subdivides it; the shape
            // exporter writes it).
            let mut mesh = from_stored(&m);
            mesh.uv = stored_tri_map(base.chunk, &mesh);
            return Ok(mesh);
        }
        Ok(None) => {}
        Err(e) => return Err(stop(base, format!("stored mesh: {e}"))),
    }
    let class_id = base.class.as_ref().map(|c| c.class_id).unwrap_or_default();
    match classes::object(class_id) {
        Some(primitive) => (primitive.build)(ctx, base),
        None => Err(stop(base, "object class not evaluated")),
    }
}

/// The base object with its order. `poly_first`: the modifier directly above indexes its
/// input's poly conversion (an Edit Poly), which is then built as Max converts the object
/// when its class knows how (Cylinder, Cone).
pub(crate) fn evaluate(ctx: &EvalContext<'_, '_>, base: &SceneObject<'_>, poly_first: bool) -> Result<Base, Stop> {
    let class_id = base.class.as_ref().map(|c| c.class_id).unwrap_or_default();
    let primitive = classes::object(class_id);
    let as_poly = primitive.and_then(|p| p.as_poly).filter(|_| poly_first);
    let stored = base.chunk.child(geometry::GEOM_BUFFERS).is_some();
    let order = primitive.map(|p| p.order);
    let in_max_order = stored
        || matches!(order, Some(MaxOrder::Yes))
        || as_poly.is_some()
        || matches!(order, Some(MaxOrder::When(check)) if check(ctx, base));
    // After an Edit Mesh the input of a later Edit Poly is the generic tri → poly conversion
    // of a tri object, which keeps the order (`Well.max`: Box > Edit Mesh > Edit Poly).
    let tri_order = in_max_order || matches!(order, Some(MaxOrder::TriOnly));
    let mesh = match as_poly {
        Some(build_poly) => build_poly(ctx, base)?,
        None => build(ctx, base)?,
    };
    Ok(Base { mesh, in_max_order, tri_order, generated: !stored })
}
