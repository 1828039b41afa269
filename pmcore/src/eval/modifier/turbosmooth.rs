//! The TurboSmooth modifier: Catmull-Clark subdivision ([`crate::eval::subdivide`]) of
//! its input as a poly object.

use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::mesh::FaceRule;
use crate::eval::outcome::{param_stop, stop, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::Carry;
use crate::eval::subdivide::{catmull_clark, catmull_clark_counts};

/// The TurboSmooth's evaluator.
pub const TURBOSMOOTH: Modifier = Modifier::new(module_path!(), apply, false, Carry::Loses);

/// Parameter 0: iterations (at most 10).
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    let params = Params::of(mc.index(), m, 0).map_err(|e| param_stop(m, e))?;
    let iterations = params.int(0).map_err(|e| param_stop(m, e))?;
    let iterations = u32::try_from(iterations)
        .ok()
        .filter(|&i| i <= 10)
        .ok_or_else(|| stop(m, format!("iterations {iterations} out of range")))?;
    Ok(turbosmooth(input, iterations, mc.eval.budget))
}

/// TurboSmooth: the input as a poly object, subdivided `iterations` times — as a mesh when
/// the result fits the budget, as counts otherwise. Max counts the result's faces as
/// triangles (measured: `pairs/…/cake.max`, three Editable Poly cylinders under TurboSmooth
/// with 396 quads each, Mesh Totals 2,376 faces = 3 × 792; `wild/radobaychev__couch.max`).
pub fn turbosmooth(input: Evaluated, iterations: u32, budget: u64) -> Evaluated {
    match input {
        Evaluated::Mesh(mesh) => {
            let poly = mesh.into_poly();
            let predicted = catmull_clark_counts(poly.counts(), iterations);
            if predicted.vertices > budget {
                return Evaluated::CountOnly {
                    counts: predicted,
                    rule: FaceRule::Triangles,
                    note: format!(
                        "TurboSmooth x{iterations}: {} vertices over the {budget}-vertex budget, counted without a mesh",
                        predicted.vertices
                    ),
                };
            }
            let mut out = poly;
            for _ in 0..iterations {
                out = catmull_clark(&out);
            }
            out.rule = FaceRule::Triangles;
            Evaluated::Mesh(out)
        }
        Evaluated::CountOnly { counts, note, .. } => {
            Evaluated::CountOnly { counts: catmull_clark_counts(counts, iterations), rule: FaceRule::Triangles, note }
        }
    }
}
