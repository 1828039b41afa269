//! A tri mesh from stacked copies ("levels") of a shape's polylines — what Extrude and
//! Bevel build: per line, its points on every level; between consecutive levels two
//! triangles per piece; morph caps ([`super::cap`]) on the first and last level of each
//! closed line, using the level's own vertices.
//!
//! Vertex order: line by line, level by level, point by point (the order the SDK's Extrude
//! sample fills its vertices in; not compared with an export, so evaluators report it as
//! not Max's). Faces: the sides, line by line, then the start caps, then the end caps.
//! Orientation: the sides of a counter-clockwise closed line face outwards when the levels
//! rise along +Z; `flip` turns everything (a negative amount). Material ids as the SDK
//! documents them for Extrude and Bevel: start cap 1, end cap 2, sides 3 (stored 0, 1, 2),
//! or the shape's ids on the sides.

use super::cap::{self, CapError};
use super::mesh::{EvalMesh, FaceRule, Polygon};
use super::spline::PolyLine;
use glam::{Vec2, Vec3};

/// How the faces are built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct LevelOptions {
    /// Cap the first level.
    pub cap_start: bool,
    /// Cap the last level.
    pub cap_end: bool,
    /// Material ids on the faces.
    pub material_ids: bool,
    /// The shape's ids on the sides.
    pub shape_ids: bool,
    /// Smoothing group 1 on the sides.
    pub smooth: bool,
    /// Turn every face over.
    pub flip: bool,
}

/// What the level mesh cannot be built from.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LevelError {
    /// No points.
    #[error("the shape has no points")]
    Empty,
    /// A line of one point (no piece; what Max makes of it is not established).
    #[error("line {0} has a single point")]
    SinglePoint(usize),
    /// A cap.
    #[error("cap: {0}")]
    Cap(#[from] CapError),
}

/// Vertices the levels hold.
pub(crate) fn vertex_count(lines: &[PolyLine], levels: usize) -> u64 {
    let per_level: u64 = lines.iter().map(|l| l.points.len() as u64).sum();
    per_level.saturating_mul(levels as u64)
}

/// Side faces of one line: per level gap, per piece, a quad of two triangles.
fn sides(line: &PolyLine, base: usize, levels: usize, o: &LevelOptions, out: &mut Vec<Polygon>) {
    let n = line.points.len();
    for level in 0..levels - 1 {
        let row = base + level * n;
        for piece in 0..line.pieces() {
            let v1 = (row + piece) as u32;
            let v2 = (row + (piece + 1) % n) as u32;
            let (v3, v4) = (v1 + n as u32, v2 + n as u32);
            let (triangles, corners) = if o.flip {
                (vec![[v1, v4, v2], [v1, v3, v4]], vec![v1, v3, v4, v2])
            } else {
                (vec![[v1, v2, v4], [v1, v4, v3]], vec![v1, v2, v4, v3])
            };
            let material = match (o.material_ids, o.shape_ids) {
                (false, _) => 0,
                (true, true) => line.points[piece].material,
                (true, false) => 2,
            };
            let smoothing = u32::from(o.smooth);
            out.push(Polygon { corners, material, smoothing, triangles, hidden_edges: 0 });
        }
    }
}

/// A cap over the points `first..first + n` (positions `ring`): counter-clockwise on XY
/// when `up`, else turned over.
fn cap_polygon(ring: &[Vec2], first: usize, up: bool, material: u16) -> Result<Polygon, CapError> {
    let tris = cap::triangulate(ring)?;
    let at = |i: usize| (first + i) as u32;
    let mut triangles: Vec<[u32; 3]> = tris.iter().map(|t| t.map(at)).collect();
    let mut corners: Vec<u32> = (0..ring.len()).map(at).collect();
    let ccw = cap::signed_area2(ring) >= 0.0;
    if ccw != up {
        corners.reverse();
    }
    if !up {
        for t in &mut triangles {
            t.swap(1, 2);
        }
    }
    Ok(Polygon { corners, material, smoothing: 0, triangles, hidden_edges: 0 })
}

/// Builds the mesh from `rings[line][level][point]` (every level of a line holds the line's
/// point count) over `lines`.
pub(crate) fn build(lines: &[PolyLine], rings: &[Vec<Vec<Vec3>>], o: &LevelOptions) -> Result<EvalMesh, LevelError> {
    if lines.iter().all(|l| l.points.is_empty()) {
        return Err(LevelError::Empty);
    }
    if let Some(i) = lines.iter().position(|l| l.points.len() == 1) {
        return Err(LevelError::SinglePoint(i));
    }
    let mut positions = Vec::new();
    let mut polygons = Vec::new();
    let mut starts = Vec::with_capacity(lines.len());
    for (line, levels) in lines.iter().zip(rings) {
        starts.push(positions.len());
        if line.points.is_empty() {
            continue;
        }
        let base = positions.len();
        positions.extend(levels.iter().flatten().copied());
        sides(line, base, levels.len(), o, &mut polygons);
    }
    let flat = |ring: &[Vec3]| ring.iter().map(|p| p.truncate()).collect::<Vec<Vec2>>();
    for (end, wanted) in [(false, o.cap_start), (true, o.cap_end)] {
        if !wanted {
            continue;
        }
        let capped: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].closed && !rings[i].is_empty()).collect();
        let level_of = |i: usize| if end { rings[i].len() - 1 } else { 0 };
        let flats: Vec<Vec<Vec2>> = capped.iter().map(|&i| flat(&rings[i][level_of(i)])).collect();
        cap::check_not_nested(&flats)?;
        for (&i, ring) in capped.iter().zip(&flats) {
            let first = starts[i] + level_of(i) * lines[i].points.len();
            let material = if o.material_ids { u16::from(end) } else { 0 };
            polygons.push(cap_polygon(ring, first, end != o.flip, material)?);
        }
    }
    Ok(EvalMesh { positions, polygons, uv: None, rule: FaceRule::Triangles })
}
