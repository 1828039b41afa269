//! The MeshSmooth modifier (NURMS or quad output at smoothness 1): Catmull-Clark like
//! TurboSmooth ([`super::turbosmooth`]), the result keeping its input's type.

use super::turbosmooth::turbosmooth;
use super::Modifier;
use crate::eval::context::ModContext;
use crate::eval::mesh::FaceRule;
use crate::eval::outcome::{param_stop, stop, Evaluated, Stop};
use crate::eval::params::Params;
use crate::eval::selection::Carry;
use crate::eval::tri_join::join_hidden_edges;

/// The MeshSmooth's evaluator.
pub(crate) const MESHSMOOTH: Modifier = Modifier::new(module_path!(), apply, false, Carry::Loses);

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
/// type, as Symmetry's does). A tri input is smoothed as the polygons its hidden edges tie
/// its triangles into ([`join_hidden_edges`]): the NeL corpus's Editable Meshes under
/// MeshSmooth (`nel/max/skeetmtp__snow_island2.max` and three more) match the exporter's
/// triangle and vertex counts only so.
pub(crate) fn meshsmooth(input: Evaluated, iterations: u32, budget: u64) -> Evaluated {
    let rule = input.counts_and_rule().1;
    let input = match input {
        Evaluated::Mesh(mesh) if mesh.rule == FaceRule::Triangles && iterations > 0 => {
            Evaluated::Mesh(join_hidden_edges(&mesh))
        }
        other => other,
    };
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
    use crate::eval::mesh::EvalMesh;
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

    /// The unit box as a tri object: every quad as its two fan triangles, the diagonal
    /// hidden on both (edge 2 of the first, edge 0 of the second) when `hide` is set.
    fn tri_box(hide: bool) -> EvalMesh {
        let quads = unit_box();
        let mut polygons = Vec::new();
        for p in &quads.polygons {
            let c = &p.corners;
            for (corners, bit) in [([c[0], c[1], c[2]], 0b100), ([c[0], c[2], c[3]], 0b001)] {
                let mut t = crate::eval::mesh::Polygon::new(corners.to_vec());
                t.hidden_edges = if hide { bit } else { 0 };
                polygons.push(t);
            }
        }
        EvalMesh { polygons, rule: FaceRule::Triangles, ..quads }
    }

    #[test]
    fn a_tri_input_is_smoothed_as_the_polygons_of_its_hidden_edges() {
        // Hidden diagonals: the six quads come back, one step gives the quad cube's
        // V = 8 + 12 + 6 = 26 and 24 quads = 48 triangles. Visible diagonals: twelve
        // triangles, E = 18, V = 8 + 18 + 12 = 38, 36 quads = 72 triangles.
        let (c, rule) = meshsmooth(Evaluated::Mesh(tri_box(true)), 1, 1_000).counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule), rule), (26, 48, FaceRule::Triangles));
        let (c, rule) = meshsmooth(Evaluated::Mesh(tri_box(false)), 1, 1_000).counts_and_rule();
        assert_eq!((c.vertices, c.faces(rule), rule), (38, 72, FaceRule::Triangles));
        // No iterations: the input as it is, triangles unjoined.
        match meshsmooth(Evaluated::Mesh(tri_box(true)), 0, 1_000) {
            Evaluated::Mesh(m) => assert_eq!(m.polygons.len(), 12),
            other => panic!("expected a mesh, got {other:?}"),
        }
    }
}
