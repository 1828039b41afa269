//! T3 `nel-shape`: an exported `CMesh` against a `.shape` the NeL 3ds Max exporter wrote.
//!
//! The pairs' revisions are not matched upstream, so the comparison reports the level
//! reached rather than pass/fail on the first difference:
//! * **structure** — class, material count, texture list (file names, case-insensitive,
//!   in material order) and vertex-format flags equal;
//! * **counts** — structure, and vertex-buffer and triangle counts equal;
//! * **positions** — counts, and every vertex matched one-to-one with a reference vertex
//!   after both are put in a canonical order (sorted by position, then normal, then UV),
//!   within [`Tolerance`].
//!
//! Each check is kept with both values, so a miss names its reason class.

use crate::nel::mesh::{Mesh, Texture, TexturePtr, VertexBuffer, VALUE_NORMAL, VALUE_POSITION, VALUE_TEXCOORD0};
use crate::nel::{NelFile, Shape};
use serde::Serialize;

/// Level a comparison reached (each includes the ones before).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Not even the structure matches.
    None,
    /// Class, materials, textures and vertex format match.
    Structure,
    /// And vertex and triangle counts.
    Counts,
    /// And positions, normals, UVs within tolerance.
    Positions,
}

/// Tolerances of the positions level.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Tolerance {
    /// Position, relative to the reference bounding-box diagonal (plus the same value
    /// absolute, for flat or tiny meshes).
    pub position_relative: f32,
    /// Normal components (unit vectors).
    pub normal: f32,
    /// UV components.
    pub uv: f32,
}

/// The stated tolerance: 1e-3 of the bounding-box diagonal, 2e-2 per normal component
/// (NeL renormalises in `f32`; Max's render normals are averaged in a different order),
/// 1e-3 per UV component.
pub const TOLERANCE: Tolerance = Tolerance { position_relative: 1e-3, normal: 2e-2, uv: 1e-3 };

/// One compared field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Check {
    /// Field (`class`, `materials`, `textures`, `vertex-format`, `vertices`, `triangles`,
    /// `positions`).
    pub field: &'static str,
    /// Ours.
    pub ours: String,
    /// Reference.
    pub reference: String,
    /// Equal (within tolerance).
    pub ok: bool,
}

/// The comparison of one exported shape with one reference.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ShapeComparison {
    /// Level reached (cumulative: structure, then counts, then positions).
    pub level: Level,
    /// Each level's own checks passed, whatever the level below did (a scene whose
    /// counts are exact while a texture name differs shows `counts_exact` true).
    pub structure_equal: bool,
    /// Vertex and triangle counts equal.
    pub counts_exact: bool,
    /// Every vertex matched within tolerance.
    pub positions_within: bool,
    /// Every check made, in level order.
    pub checks: Vec<Check>,
}

impl ShapeComparison {
    /// The first failing check's field: the miss's reason class (`None` at positions).
    pub fn first_miss(&self) -> Option<&Check> {
        self.checks.iter().find(|c| !c.ok)
    }

    /// Number of failing checks (ties between references go to the fewest).
    pub fn misses(&self) -> usize {
        self.checks.iter().filter(|c| !c.ok).count()
    }
}

/// What a reference `.shape` holds, as far as T3 needs it.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeFacts {
    /// NeL class.
    pub class: String,
    /// Materials.
    pub materials: usize,
    /// Texture file names per material (stage 0..3, lower case), `-` for none.
    pub textures: Vec<String>,
    /// Vertex-format flags.
    pub vertex_format: u16,
    /// Vertex-buffer entries.
    pub vertices: usize,
    /// Triangles over every render pass.
    pub triangles: usize,
    /// Per vertex: position, normal, uv (0 when absent).
    pub attributes: Vec<[f32; 8]>,
}

/// Why a reference cannot be compared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FactsError {
    /// Not a shape stream.
    #[error("not a NeL shape: {0}")]
    NotShape(String),
    /// Part of the mesh stayed opaque to the reader.
    #[error("{0} not typed by the NeL reader")]
    Opaque(&'static str),
}

fn texture_names(mesh_textures: impl Iterator<Item = Vec<String>>) -> Vec<String> {
    mesh_textures.map(|t| if t.is_empty() { "-".to_string() } else { t.join("+") }).collect()
}

fn vertex_attributes(vb: &VertexBuffer) -> Vec<[f32; 8]> {
    let n = vb.num_vertices as usize;
    let get = |slot| vb.floats(slot).filter(|v| v.len() == n);
    let (p, nr, uv) = (get(VALUE_POSITION), get(VALUE_NORMAL), get(VALUE_TEXCOORD0));
    (0..n)
        .map(|i| {
            let mut a = [0f32; 8];
            for (k, src) in [(0, &p), (3, &nr), (6, &uv)] {
                if let Some(values) = src {
                    for (j, x) in values[i].iter().enumerate().take(if k == 6 { 2 } else { 3 }) {
                        a[k + j] = *x;
                    }
                }
            }
            a
        })
        .collect()
}

/// The facts of a `CMesh`.
pub fn mesh_facts(mesh: &Mesh) -> Result<ShapeFacts, FactsError> {
    let body = mesh.body.typed().ok_or(FactsError::Opaque("mesh base"))?;
    let geom = body.geom.typed().ok_or(FactsError::Opaque("mesh geometry"))?;
    // Texture ids are shared across materials: resolve back-references by id.
    let mut by_id: Vec<(u64, String)> = Vec::new();
    let mut per_material = Vec::new();
    for m in &body.base.materials {
        let mut names = Vec::new();
        for s in &m.stages {
            let name = match &s.texture {
                TexturePtr::Null => continue,
                TexturePtr::Owned(id, t) => {
                    let name = match t {
                        Texture::File { file_name, .. } => file_name.to_ascii_lowercase(),
                        Texture::MultiFile { file_names, selected, .. } => {
                            file_names.get(*selected as usize).cloned().unwrap_or_default().to_ascii_lowercase()
                        }
                    };
                    by_id.push((*id, name.clone()));
                    name
                }
                TexturePtr::Shared(id) => {
                    by_id.iter().find(|(i, _)| i == id).map(|(_, n)| n.clone()).unwrap_or_default()
                }
            };
            names.push(super::nel_shape::file_base_name(&name).to_string());
        }
        per_material.push(names);
    }
    let triangles = geom.matrix_blocks.iter().flat_map(|b| &b.rdr_passes).map(|p| p.pblock.triangles().len() / 3).sum();
    Ok(ShapeFacts {
        class: super::nel_shape::CLASS.into(),
        materials: body.base.materials.len(),
        textures: texture_names(per_material.into_iter()),
        vertex_format: geom.vbuffer.flags,
        vertices: geom.vbuffer.num_vertices as usize,
        triangles,
        attributes: vertex_attributes(&geom.vbuffer),
    })
}

/// The facts of a `.shape` file's bytes.
pub fn file_facts(bytes: &[u8]) -> Result<ShapeFacts, FactsError> {
    let parsed = crate::nel::read(bytes).map_err(|e| FactsError::NotShape(e.to_string()))?;
    match parsed.file {
        NelFile::Shape { shape: Shape::Mesh(m), .. } => mesh_facts(&m),
        NelFile::Shape { class, .. } => Ok(ShapeFacts {
            class,
            materials: 0,
            textures: Vec::new(),
            vertex_format: 0,
            vertices: 0,
            triangles: 0,
            attributes: Vec::new(),
        }),
        other => Err(FactsError::NotShape(other.class().to_string())),
    }
}

/// Canonical order: by position, then normal, then UV (total order on the float bits).
fn canonical(mut v: Vec<[f32; 8]>) -> Vec<[f32; 8]> {
    v.sort_by(|a, b| {
        a.iter().zip(b).map(|(x, y)| x.total_cmp(y)).find(|o| o.is_ne()).unwrap_or(std::cmp::Ordering::Equal)
    });
    v
}

/// How the vertices matched: one-to-one matches, and for the rest the attribute that
/// kept each from matching (a free reference vertex at the same position whose UV
/// matches → `normals`; whose normal matches → `uvs`; none → `positions`).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub(crate) struct VertexMatch {
    /// Vertices matched one-to-one within tolerance.
    pub matched: usize,
    /// Unmatched because only the normal differs.
    pub normals: usize,
    /// Unmatched because only the UV differs.
    pub uvs: usize,
    /// Unmatched with no reference vertex at that position (or both attributes differ).
    pub positions: usize,
    /// The first unmatched vertex (position, normal, UV).
    pub first_unmatched: Option<[f32; 8]>,
}

impl VertexMatch {
    /// The reason class of the misses: the most frequent one.
    pub(crate) fn reason(&self) -> &'static str {
        let classes = [(self.positions, "positions"), (self.normals, "normals"), (self.uvs, "uvs")];
        classes.iter().max_by_key(|(n, _)| *n).map(|(_, c)| *c).unwrap_or("positions")
    }
}

/// Matches every vertex of `ours` to a distinct vertex of `reference` within `tol`. Both
/// lists are taken in canonical order; a vertex takes the first free reference vertex
/// within tolerance in the window of reference vertices whose x lies within the position
/// tolerance (greedy: exact for vertices farther apart than the tolerance, which welded
/// vertices with distinct attributes are).
pub(crate) fn match_vertices(ours: &[[f32; 8]], reference: &[[f32; 8]], tol: Tolerance) -> VertexMatch {
    let reference = canonical(reference.to_vec());
    let ours = canonical(ours.to_vec());
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for r in &reference {
        for k in 0..3 {
            lo[k] = lo[k].min(r[k]);
            hi[k] = hi[k].max(r[k]);
        }
    }
    let diagonal = if reference.is_empty() { 0.0 } else { (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt() };
    let dp = tol.position_relative * (1.0 + diagonal);
    let near = |r: &[f32; 8], o: &[f32; 8], range: std::ops::Range<usize>, t: f32| {
        range.into_iter().all(|k| (r[k] - o[k]).abs() <= t)
    };
    let mut taken = vec![false; reference.len()];
    let mut m = VertexMatch::default();
    for o in &ours {
        let start = reference.partition_point(|r| r[0] < o[0] - dp);
        let window: Vec<usize> = (start..reference.len()).take_while(|&i| reference[i][0] <= o[0] + dp).collect();
        let at_position = |i: &&usize| !taken[**i] && near(&reference[**i], o, 0..3, dp);
        let found = window
            .iter()
            .filter(at_position)
            .find(|&&i| near(&reference[i], o, 3..6, tol.normal) && near(&reference[i], o, 6..8, tol.uv))
            .copied();
        match found {
            Some(i) => {
                taken[i] = true;
                m.matched += 1;
            }
            None => {
                m.first_unmatched.get_or_insert(*o);
                if window.iter().filter(at_position).any(|&i| near(&reference[i], o, 6..8, tol.uv)) {
                    m.normals += 1;
                } else if window.iter().filter(at_position).any(|&i| near(&reference[i], o, 3..6, tol.normal)) {
                    m.uvs += 1;
                } else {
                    m.positions += 1;
                }
            }
        }
    }
    m
}

/// Compares our shape's facts with a reference's.
pub fn compare(ours: &ShapeFacts, reference: &ShapeFacts) -> ShapeComparison {
    let check = |field, a: String, b: String| Check { ok: a == b, field, ours: a, reference: b };
    let structure = vec![
        check("class", ours.class.clone(), reference.class.clone()),
        check("materials", ours.materials.to_string(), reference.materials.to_string()),
        check("textures", ours.textures.join(","), reference.textures.join(",")),
        check("vertex-format", format!("{:#06x}", ours.vertex_format), format!("{:#06x}", reference.vertex_format)),
    ];
    let counts = vec![
        check("vertices", ours.vertices.to_string(), reference.vertices.to_string()),
        check("triangles", ours.triangles.to_string(), reference.triangles.to_string()),
    ];
    let positions = if counts.iter().all(|c| c.ok) && ours.attributes.len() == ours.vertices {
        let m = match_vertices(&ours.attributes, &reference.attributes, TOLERANCE);
        let ok = m.matched == ours.attributes.len() && m.matched == reference.attributes.len();
        Check {
            field: if ok { "positions" } else { m.reason() },
            ours: match m.first_unmatched {
                Some(v) => format!(
                    "{}/{} matched ({} normals, {} uvs, {} positions differ); first unmatched {v:?}",
                    m.matched,
                    ours.attributes.len(),
                    m.normals,
                    m.uvs,
                    m.positions
                ),
                None => format!("{}/{} matched", m.matched, ours.attributes.len()),
            },
            reference: format!("{} vertices", reference.attributes.len()),
            ok,
        }
    } else {
        Check { field: "positions", ours: "not compared (counts differ)".into(), reference: String::new(), ok: false }
    };
    let s_ok = structure.iter().all(|c| c.ok);
    let c_ok = counts.iter().all(|c| c.ok);
    let level = match (s_ok, c_ok, positions.ok) {
        (true, true, true) => Level::Positions,
        (true, true, false) => Level::Counts,
        (true, false, _) => Level::Structure,
        _ => Level::None,
    };
    let positions_ok = positions.ok;
    let mut checks = structure;
    checks.extend(counts);
    checks.push(positions);
    ShapeComparison { level, structure_equal: s_ok, counts_exact: c_ok, positions_within: positions_ok, checks }
}

/// True when the two shapes carry the same geometry up to their UVs: equal triangle
/// counts, and every (position, normal) of each has one on the other within the
/// tolerance (positions relative to the reference's bounding box). A vertex-count miss
/// with this true is a miss of UV splits only.
pub fn same_geometry_but_uvs(ours: &ShapeFacts, reference: &ShapeFacts, tol: Tolerance) -> bool {
    if ours.triangles != reference.triangles || ours.attributes.is_empty() || reference.attributes.is_empty() {
        return false;
    }
    let (mut lo, mut hi) = ([f32::MAX; 3], [f32::MIN; 3]);
    for r in &reference.attributes {
        for k in 0..3 {
            lo[k] = lo[k].min(r[k]);
            hi[k] = hi[k].max(r[k]);
        }
    }
    let dp = tol.position_relative * (1.0 + (0..3).map(|k| (hi[k] - lo[k]).powi(2)).sum::<f32>().sqrt());
    let covers = |a: &[[f32; 8]], b: &[[f32; 8]]| {
        let b = canonical(b.to_vec());
        a.iter().all(|o| {
            let start = b.partition_point(|r| r[0] < o[0] - dp);
            b[start..]
                .iter()
                .take_while(|r| r[0] <= o[0] + dp)
                .any(|r| (0..3).all(|k| (r[k] - o[k]).abs() <= dp) && (3..6).all(|k| (r[k] - o[k]).abs() <= tol.normal))
        })
    };
    covers(&ours.attributes, &reference.attributes) && covers(&reference.attributes, &ours.attributes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uv_splits_alone_leave_the_geometry_the_same() {
        // Hand-worked: a reference of two entries at one position and normal with two UVs
        // (a seam), ours with one entry there: the same geometry, not the same counts.
        let facts = |attributes: Vec<[f32; 8]>, triangles| ShapeFacts {
            class: "CMesh".into(),
            materials: 1,
            textures: Vec::new(),
            vertex_format: 0x7,
            vertices: attributes.len(),
            triangles,
            attributes,
        };
        let a = [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0];
        let b = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.5, 0.0];
        let seam = [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.9, 0.0];
        let reference = facts(vec![a, b, seam], 1);
        assert!(same_geometry_but_uvs(&facts(vec![a, b], 1), &reference, TOLERANCE));
        // A moved position, a turned normal, or another triangle count is not.
        let moved = [1.0, 0.1, 0.0, 0.0, 0.0, 1.0, 0.5, 0.0];
        assert!(!same_geometry_but_uvs(&facts(vec![a, moved], 1), &reference, TOLERANCE));
        let turned = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.5, 0.0];
        assert!(!same_geometry_but_uvs(&facts(vec![a, turned], 1), &reference, TOLERANCE));
        assert!(!same_geometry_but_uvs(&facts(vec![a, b], 2), &reference, TOLERANCE));
        // Ours missing a position the reference has is not either.
        assert!(!same_geometry_but_uvs(&facts(vec![a], 1), &reference, TOLERANCE));
    }

    fn facts(attributes: Vec<[f32; 8]>) -> ShapeFacts {
        ShapeFacts {
            class: "CMesh".into(),
            materials: 1,
            textures: vec!["a.tga".into()],
            vertex_format: 0x7,
            vertices: attributes.len(),
            triangles: 1,
            attributes,
        }
    }

    fn triangle() -> Vec<[f32; 8]> {
        vec![
            [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0],
            [10.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0],
            [0.0, 10.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        ]
    }

    #[test]
    fn vertex_order_does_not_matter_and_small_differences_are_within_tolerance() {
        let mut ours = triangle();
        ours.reverse();
        ours[0][0] += 0.005; // 1e-3 of (1 + diagonal 14.1) = 0.015
        ours[1][3] += 0.01; // normal component within 2e-2
        let c = compare(&facts(ours), &facts(triangle()));
        assert_eq!(c.level, Level::Positions, "{c:?}");
        assert!(c.first_miss().is_none() && c.structure_equal && c.counts_exact && c.positions_within);
    }

    #[test]
    fn each_miss_names_its_reason_class() {
        let mut ours = triangle();
        ours[2][5] = -1.0;
        let c = compare(&facts(ours), &facts(triangle()));
        assert_eq!((c.level, c.first_miss().unwrap().field), (Level::Counts, "normals"));
        let mut ours = triangle();
        ours[1][6] = 0.5;
        assert_eq!(compare(&facts(ours), &facts(triangle())).first_miss().unwrap().field, "uvs");
        let mut ours = triangle();
        ours[1][1] = 3.0;
        assert_eq!(compare(&facts(ours), &facts(triangle())).first_miss().unwrap().field, "positions");
        // One vertex more: counts differ, positions are not compared, the level is structure.
        let mut ours = triangle();
        ours.push(triangle()[0]);
        let c = compare(&facts(ours), &facts(triangle()));
        assert_eq!((c.level, c.first_miss().unwrap().field), (Level::Structure, "vertices"));
        assert!(!c.positions_within);
        // A texture name differs while counts are exact: level none, counts still reported.
        let mut other = facts(triangle());
        other.textures = vec!["b.tga".into()];
        let c = compare(&facts(triangle()), &other);
        assert_eq!((c.level, c.counts_exact, c.first_miss().unwrap().field), (Level::None, true, "textures"));
    }

    #[test]
    fn two_equal_vertices_must_match_two_reference_vertices() {
        let ours = vec![triangle()[0], triangle()[0], triangle()[1]];
        let reference = vec![triangle()[0], triangle()[1], triangle()[2]];
        let m = match_vertices(&ours, &reference, TOLERANCE);
        assert_eq!(m.matched, 2, "a reference vertex is taken once");
    }

    proptest::proptest! {
        /// Any order of the same vertices reaches positions; one vertex moved well beyond
        /// the tolerance does not.
        #[test]
        fn canonical_order_makes_the_comparison_order_free(
            points in proptest::collection::vec(proptest::array::uniform8(-50i16..50), 1..40),
            rotate in 0usize..40,
            moved in 0usize..40,
        ) {
            let reference: Vec<[f32; 8]> = points.iter().map(|p| p.map(|x| f32::from(x) / 10.0)).collect();
            let mut ours = reference.clone();
            let r = rotate % ours.len();
            ours.rotate_left(r);
            ours.reverse();
            proptest::prop_assert_eq!(compare(&facts(ours.clone()), &facts(reference.clone())).level, Level::Positions);
            let m = moved % ours.len();
            ours[m][2] += 1000.0;
            let c = compare(&facts(ours), &facts(reference));
            proptest::prop_assert_eq!(c.level, Level::Counts);
            proptest::prop_assert!(!c.positions_within);
        }
    }

    #[test]
    fn a_non_mesh_or_unreadable_reference_is_an_error_not_a_match() {
        assert!(matches!(file_facts(b"not nel"), Err(FactsError::NotShape(_))));
    }
}
