//! The MeshSmooth modifier (NURMS or quad output at smoothness 1): Catmull-Clark like
//! TurboSmooth ([`super::turbosmooth`]), the result keeping its input's type.

use super::turbosmooth::turbosmooth;
use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::outcome::{param_stop, stop, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::Carry;

/// The MeshSmooth's evaluator.
pub const MESHSMOOTH: Modifier = Modifier::new(module_path!(), apply, false, Carry::Loses);

/// Parameter ids as the corpus files store them: 9 subdivision method (0 classic, 1 quad
/// output, 2 NURMS), 4 iterations, 2 smoothness.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    let m = mc.object();
    let params = Params::of(mc.index(), m, 0).map_err(|e| param_stop(m, e))?;
    let pe = |e| param_stop(m, e);
    let method = params.int(9).map_err(pe)?;
    let iterations = params.int(4).map_err(pe)?;
    let iterations = u32::try_from(iterations)
        .ok()
        .filter(|&i| i <= 10)
        .ok_or_else(|| stop(m, format!("iterations {iterations} out of range")))?;
    let smoothness = params.float(2).map_err(pe)?;
    if iterations > 0 && (method == 0 || smoothness < 1.0) {
        return Err(stop(
            m,
            format!("method {method} with smoothness {smoothness} is not evaluated (NURMS / quad output at 1.0 only)"),
        ));
    }
    Ok(meshsmooth(input, iterations, mc.eval.budget))
}

/// MeshSmooth (NURMS or quad output, smoothness 1): Catmull-Clark like TurboSmooth, but the
/// result keeps the input's type — a poly input comes out a poly object (measured: Editable
/// Poly under MeshSmooth in `wild/snubblejr__woman.max`, `wild/buwaka__poltrona-swan.max`,
/// `public/uholnik__room.max` counts the subdivided quads as polygons; under a Shell in
/// `wild/langwenchong__project.max`), a tri input a tri object (the output follows the input
/// type, as Symmetry's does; no corpus file has a tri input).
pub fn meshsmooth(input: Evaluated, iterations: u32, budget: u64) -> Evaluated {
    let rule = input.counts_and_rule().1;
    match turbosmooth(input, iterations, budget) {
        Evaluated::Mesh(mut mesh) => {
            mesh.rule = rule;
            Evaluated::Mesh(mesh)
        }
        Evaluated::CountOnly { counts, note, .. } => Evaluated::CountOnly { counts, rule, note },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::mesh::{EvalMesh, FaceRule};
    use crate::eval::primitive::r#box::{box_mesh, BoxParams};

    fn unit_box() -> EvalMesh {
        box_mesh(&BoxParams { length: 1.0, width: 1.0, height: 1.0, length_segs: 1, width_segs: 1, height_segs: 1 })
            .unwrap()
    }

    #[test]
    fn meshsmooth_keeps_the_input_type_turbosmooth_gives_triangles() {
        // A 1-segment box: V 8, E 12, 6 quads (12 triangles). One Catmull-Clark step:
        // V' = 8 + 12 + 6 = 26, quads' = 4 · 6 = 24 (48 triangles).
        let tri = meshsmooth(Evaluated::Mesh(unit_box()), 1, 1_000);
        let (c, rule) = tri.counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule), rule), (26, 48, FaceRule::Triangles));
        let poly = meshsmooth(Evaluated::Mesh(unit_box().into_poly()), 1, 1_000);
        let (c, rule) = poly.counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule), rule), (26, 24, FaceRule::Polygons));
        let ts = turbosmooth(Evaluated::Mesh(unit_box().into_poly()), 1, 1_000);
        let (c, rule) = ts.counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule)), (26, 48));
        // Over the budget: counted, not built, the type kept. Two steps: V'' = 26 + 48 + 24
        // = 98 (E' = 2·12 + 24 = 48).
        match meshsmooth(Evaluated::Mesh(unit_box().into_poly()), 2, 50) {
            Evaluated::CountOnly { counts, rule, .. } => {
                assert_eq!((counts.vertices, counts.polygons, rule), (98, 96, FaceRule::Polygons))
            }
            other => panic!("expected counts only, got {other:?}"),
        }
    }
}
