//! Cloth: the simulated vertex positions the modifier keeps in its per-node data. The
//! simulation is not replayed; Max saves the cloth's current state with the file.
//!
//! Layout, measured on `wild/danshaub__bed.max` (`cloth1`, a 100 × 100 Plane under Cloth)
//! against the `TableWithCloth.FBX` Max wrote from it: inside the modifier's 0x2500 chunk
//! on the derived object, container 0x2512 holds 0x00cd = `u32 n`, `u32` (1 in the file),
//! then `n` positions (3 `f32` each) — the cloth as simulated — and `n` more points this
//! module does not interpret (24 bytes per vertex in all: 244,832 bytes for 10,201 vertices).
//! The first vertex is (−7.771334, −10.97158, 1.956418) there and in the FBX; the Plane's own
//! vertex is (−7.889913, −11.30722, 0). The same container keeps the cloth's initial mesh
//! (0x02b2, tri buffers) at the Plane's positions.

use super::Modifier;
use crate::chunk::Chunk;
use crate::eval::context::ModContext;
use crate::eval::mesh::FaceRule;
use crate::eval::outcome::{Evaluated, Stop};
use crate::eval::selection::Carry;
use glam::Vec3;

/// The Cloth's per-node data inside the modifier's 0x2500 chunk.
pub const CLOTH_LOCAL_DATA: u16 = 0x2512;
/// Simulated state: count, a word, positions, then as many more points.
pub const CLOTH_STATE: u16 = 0x00cd;

/// The simulated positions a Cloth's per-node data holds; `None` when the chunk is absent
/// or its size is not the measured `8 + 24·n` bytes.
pub fn simulated_positions(mod_app: Option<&Chunk<'_>>) -> Option<Vec<Vec3>> {
    let p = mod_app?.child(CLOTH_LOCAL_DATA)?.child(CLOTH_STATE)?.payload()?;
    let n = u32::from_le_bytes(p.get(..4)?.try_into().ok()?) as usize;
    if p.len() != n.checked_mul(24)?.checked_add(8)? {
        return None;
    }
    let f = |at: usize| f32::from_le_bytes([p[at], p[at + 1], p[at + 2], p[at + 3]]);
    Some((0..n).map(|i| 8 + 12 * i).map(|at| Vec3::new(f(at), f(at + 4), f(at + 8))).collect())
}

/// The Cloth's evaluator: it moves vertices and outputs a tri object (measured:
/// `wild/radobaychev__couch.max`, seven Editable Poly cushions of 280 quads under Cloth
/// alone count 7 × 560 faces).
pub const CLOTH: Modifier = Modifier::new(module_path!(), apply, true, Carry::Keeps);

/// A tri object out; its saved simulation state, when it has one vertex per input vertex.
fn apply(mc: &ModContext<'_, '_>, input: Evaluated) -> Result<Evaluated, Stop> {
    Ok(match input {
        Evaluated::Mesh(mut mesh) => {
            mesh.rule = FaceRule::Triangles;
            if let Some(p) = simulated_positions(mc.modifier.mod_app).filter(|p| p.len() == mesh.positions.len()) {
                mesh.positions = p;
            }
            Evaluated::Mesh(mesh)
        }
        Evaluated::CountOnly { counts, note, .. } => Evaluated::CountOnly { counts, rule: FaceRule::Triangles, note },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_come_first_after_the_count_and_the_word() {
        // Two vertices: count 2, word 1, positions (1, 2, 3) and (4, 5, 6), then two more
        // points (7, 8, 9), (10, 11, 12) not read: 8 + 48 bytes.
        let mut payload: Vec<u8> = [2u32, 1].iter().flat_map(|w| w.to_le_bytes()).collect();
        for v in 1..=12 {
            payload.extend((v as f32).to_le_bytes());
        }
        let state = Chunk::leaf(CLOTH_STATE, payload.clone());
        let app = Chunk::container(0x2500, vec![Chunk::container(CLOTH_LOCAL_DATA, vec![state])]);
        assert_eq!(simulated_positions(Some(&app)), Some(vec![Vec3::new(1.0, 2.0, 3.0), Vec3::new(4.0, 5.0, 6.0)]));
        // One byte short: not the measured layout.
        payload.pop();
        let state = Chunk::leaf(CLOTH_STATE, payload);
        let app = Chunk::container(0x2500, vec![Chunk::container(CLOTH_LOCAL_DATA, vec![state])]);
        assert_eq!(simulated_positions(Some(&app)), None);
        assert_eq!(simulated_positions(None), None);
    }
}
