//! How a Max mesh and a reference mesh are matched: polygons as cycles, vertices as point
//! sets when the orders differ, and map channel 1 per polygon corner.

use glam::DVec3;

/// Matches the Max vertices to the reference vertices as point sets (each reference vertex
/// takes the nearest unused Max vertex within `tolerance`, searched in a grid of cells the
/// size of the largest tolerance) and compares the polygons through that map as multisets
/// of cycles. `None` when some vertex has no partner; else the largest relative error and
/// whether the polygons agree.
pub(super) fn match_as_set(
    max_positions: &[DVec3],
    max_polygons: &[Vec<u32>],
    reference_positions: &[DVec3],
    reference_polygons: &[Vec<u32>],
    tolerance: impl Fn(DVec3, DVec3) -> f64,
) -> Option<(f64, bool)> {
    let cell =
        max_positions.iter().zip(reference_positions).map(|(a, b)| tolerance(*a, *b)).fold(0.0f64, f64::max).max(1e-12);
    let key = |p: DVec3| ((p.x / cell).floor() as i64, (p.y / cell).floor() as i64, (p.z / cell).floor() as i64);
    let mut grid: std::collections::HashMap<(i64, i64, i64), Vec<usize>> = std::collections::HashMap::new();
    for (i, p) in max_positions.iter().enumerate() {
        grid.entry(key(*p)).or_default().push(i);
    }
    let mut used = vec![false; max_positions.len()];
    let mut ref_to_max = vec![0u32; reference_positions.len()];
    let mut worst = 0.0f64;
    for (r, p) in reference_positions.iter().enumerate() {
        let (x, y, z) = key(*p);
        let mut best: Option<(f64, usize)> = None;
        for dx in -1..=1 {
            for dy in -1..=1 {
                for dz in -1..=1 {
                    for &i in grid.get(&(x + dx, y + dy, z + dz)).map(Vec::as_slice).unwrap_or(&[]) {
                        let d = (max_positions[i] - *p).length();
                        if !used[i] && d <= tolerance(max_positions[i], *p) && best.is_none_or(|(b, _)| d < b) {
                            best = Some((d, i));
                        }
                    }
                }
            }
        }
        let (d, i) = best?;
        used[i] = true;
        ref_to_max[r] = i as u32;
        worst = worst.max(d / p.length().max(max_positions[i].length()).max(1.0));
    }
    let canonical = |cycle: Vec<u32>| {
        let start = (0..cycle.len()).min_by_key(|&k| cycle[k]).unwrap_or(0);
        cycle[start..].iter().chain(&cycle[..start]).copied().collect::<Vec<u32>>()
    };
    let mut a: Vec<Vec<u32>> = max_polygons.iter().map(|p| canonical(p.clone())).collect();
    let mut b: Vec<Vec<u32>> =
        reference_polygons.iter().map(|p| canonical(p.iter().map(|&v| ref_to_max[v as usize]).collect())).collect();
    a.sort();
    b.sort();
    Some((worst, a == b))
}

/// UV tolerance: map coordinates are `f32` in Max and of order 1 (1e-5 = ~100 roundings).
pub const UV_TOLERANCE: f64 = 1e-5;

/// Map channel 1 per polygon corner, for polygons already known to be the same cycles in the
/// same order: each Max polygon is aligned on its reference polygon's first corner. `Ok`
/// with the corners compared, or the first corner (running index) that differs with both
/// sides.
#[allow(clippy::type_complexity)]
pub(super) fn compare_uv(
    max_polygons: &[Vec<u32>],
    max_uv: &pmcore::eval::mesh::MapChannel,
    reference_polygons: &[Vec<u32>],
    reference_uv: &[[f64; 2]],
) -> Result<usize, (usize, [f64; 2], [f64; 2])> {
    let mut corner = 0usize;
    for (i, (mp, rp)) in max_polygons.iter().zip(reference_polygons).enumerate() {
        let shift = (0..mp.len()).find(|&s| mp.iter().cycle().skip(s).take(mp.len()).eq(rp.iter())).unwrap_or(0);
        for k in 0..rp.len() {
            let m = max_uv
                .faces
                .get(i)
                .and_then(|f| f.get((k + shift) % mp.len().max(1)))
                .and_then(|&v| max_uv.vertices.get(v as usize))
                .map(|v| [v.x as f64, v.y as f64]);
            let r = reference_uv.get(corner + k).copied();
            match (m, r) {
                (Some(m), Some(r)) if (m[0] - r[0]).abs() <= UV_TOLERANCE && (m[1] - r[1]).abs() <= UV_TOLERANCE => {}
                (m, r) => return Err((corner + k, m.unwrap_or([f64::NAN; 2]), r.unwrap_or([f64::NAN; 2]))),
            }
        }
        corner += rp.len();
    }
    Ok(corner)
}

/// Same polygon up to the starting corner.
pub(super) fn same_cycle(a: &[u32], b: &[u32]) -> bool {
    a.len() == b.len() && (a.is_empty() || (0..a.len()).any(|s| a.iter().cycle().skip(s).take(a.len()).eq(b.iter())))
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_sets_match_in_any_order_and_polygons_through_the_map() {
        let max = [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::ONE];
        let reference = [DVec3::ONE, DVec3::Y, DVec3::ZERO, DVec3::X];
        // Max triangle (0, 1, 2) is reference (2, 3, 1).
        let tol = |_: DVec3, _: DVec3| 1e-6;
        assert_eq!(match_as_set(&max, &[vec![0, 1, 2]], &reference, &[vec![2, 3, 1]], tol), Some((0.0, true)));
        assert_eq!(match_as_set(&max, &[vec![0, 1, 2]], &reference, &[vec![2, 1, 3]], tol), Some((0.0, false)));
        let moved = [DVec3::ONE, DVec3::Y, DVec3::ZERO, DVec3::new(1.1, 0.0, 0.0)];
        assert_eq!(match_as_set(&max, &[], &moved, &[], tol), None);
    }

    #[test]
    fn uv_follow_the_reference_polygon_start_corner() {
        // A unit quad whose map vertex k sits at corner k; the reference writes the same
        // polygon from corner 2, so its corner uvs start at (1, 1).
        let max_uv = pmcore::eval::mesh::MapChannel {
            vertices: vec![
                glam::Vec2::new(0.0, 0.0),
                glam::Vec2::new(1.0, 0.0),
                glam::Vec2::new(1.0, 1.0),
                glam::Vec2::new(0.0, 1.0),
            ],
            faces: vec![vec![0, 1, 2, 3]],
        };
        let reference = [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0], [1.0, 0.0]];
        assert_eq!(compare_uv(&[vec![0, 1, 2, 3]], &max_uv, &[vec![2, 3, 0, 1]], &reference), Ok(4));
        let moved = [[1.0, 1.0], [0.0, 1.0], [0.0, 0.5], [1.0, 0.0]];
        assert_eq!(
            compare_uv(&[vec![0, 1, 2, 3]], &max_uv, &[vec![2, 3, 0, 1]], &moved),
            Err((2, [0.0, 0.0], [0.0, 0.5]))
        );
    }

    #[test]
    fn cycles_compare_up_to_the_start_corner() {
        assert!(same_cycle(&[1, 2, 3, 4], &[3, 4, 1, 2]));
        assert!(!same_cycle(&[1, 2, 3, 4], &[4, 3, 2, 1]));
        assert!(!same_cycle(&[1, 2, 3], &[1, 2, 3, 4]));
    }
}
