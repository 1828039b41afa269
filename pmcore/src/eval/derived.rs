//! A derived object's stack: the base object under a node and its modifiers (OSM/WSM
//! Derived objects list their modifiers top-first and their input object last — measured
//! on the corpus: the last reference is the object the modifiers apply to, possibly another
//! derived object), with each modifier's per-node data (its mod context).

use crate::chunk::Chunk;
use crate::model::scene_index::{SceneIndex, SceneObject, OSM_DERIVED, WSM_DERIVED};
use glam::{Mat4, Vec3, Vec4};

/// Base object and modifiers (in application order, nearest the base first) under a
/// node's object reference. Bounded by the number of scene objects.
pub fn stack<'a, 'b>(
    index: &'b SceneIndex<'a>,
    node: &SceneObject<'a>,
) -> Option<(&'b SceneObject<'a>, Vec<&'b SceneObject<'a>>)> {
    let (base, modifiers) = stack_with_data(index, node)?;
    Some((base, modifiers.into_iter().map(|m| m.object).collect()))
}

/// Chunk of a modifier's per-node data on its derived object (mod context, local data).
pub const MOD_APP: u16 = 0x2500;
/// Mod-context matrix inside [`MOD_APP`]: a Matrix3 (4 rows of 3 floats, Max's
/// row-vector convention) and a flags word.
pub const MOD_CONTEXT_TM: u16 = 0x2510;

/// One modifier on a node's stack with its per-node data.
#[derive(Clone, Copy, Debug)]
pub struct StackModifier<'b, 'a> {
    /// The modifier object.
    pub object: &'b SceneObject<'a>,
    /// Its [`MOD_APP`] chunk on the derived object: one per modifier position, in the
    /// derived object's reference order (design notes; checked on the corpus by the
    /// Symmetry and Edit Poly files).
    pub mod_app: Option<&'a Chunk<'a>>,
}

/// Like [`stack`], with each modifier's per-node data.
pub fn stack_with_data<'a, 'b>(
    index: &'b SceneIndex<'a>,
    node: &SceneObject<'a>,
) -> Option<(&'b SceneObject<'a>, Vec<StackModifier<'b, 'a>>)> {
    let mut current = index.get(node.reference(1)?)?;
    let mut top_first = Vec::new();
    for _ in 0..=index.objects.len() {
        if !matches!(current.chunk.id, OSM_DERIVED | WSM_DERIVED) {
            top_first.reverse();
            return Some((current, top_first));
        }
        let refs: Vec<usize> = current.references().into_iter().filter_map(|(_, t)| t).collect();
        let (&last, rest) = refs.split_last()?;
        let apps: Vec<&'a Chunk<'a>> = current.chunk.children().iter().filter(|c| c.id == MOD_APP).collect();
        for (k, &i) in rest.iter().enumerate() {
            if let Some(object) = index.get(i) {
                top_first.push(StackModifier { object, mod_app: apps.get(k).copied() });
            }
        }
        current = index.get(last)?;
    }
    None
}

/// Mod-context bounding box inside [`MOD_APP`]: min and max corners (6 floats).
pub const MOD_CONTEXT_BOX: u16 = 0x2511;

/// The mod-context box of a modifier (min, max); `None` when absent or short.
pub fn mod_context_box(mod_app: Option<&Chunk<'_>>) -> Option<(Vec3, Vec3)> {
    let p = mod_app?.child(MOD_CONTEXT_BOX)?.payload()?;
    let f: Vec<f32> = p.get(..24)?.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    Some((Vec3::new(f[0], f[1], f[2]), Vec3::new(f[3], f[4], f[5])))
}

/// The mod-context matrix of a modifier (object space → modifier context), column-vector
/// form: identity when the chunk is absent (Max then applies none), `None` when it is
/// shorter than a Matrix3.
pub fn mod_context_tm(mod_app: Option<&Chunk<'_>>) -> Option<Mat4> {
    let Some(p) = mod_app.and_then(|c| c.child(MOD_CONTEXT_TM)).and_then(|c| c.payload()) else {
        return Some(Mat4::IDENTITY);
    };
    if p.len() < 48 {
        return None;
    }
    let f: Vec<f32> = p[..48].chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
    // Row-vector rows 0–2 are the images of the axes, row 3 the translation: as columns.
    Some(Mat4::from_cols(
        Vec4::new(f[0], f[1], f[2], 0.0),
        Vec4::new(f[3], f[4], f[5], 0.0),
        Vec4::new(f[6], f[7], f[8], 0.0),
        Vec4::new(f[9], f[10], f[11], 1.0),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mod_context_matrix_rows_become_columns() {
        // Row-vector Matrix3 rows: X → (0, 1, 0), Y → (−1, 0, 0), Z → (0, 0, 2), translation
        // (5, 6, 7), then the 4-byte flags word: 52 bytes. (1, 0, 0) maps to (5, 7, 7);
        // (0, 1, 0) to (4, 6, 7); (0, 0, 1) to (5, 6, 9).
        let floats = [0.0f32, 1.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 2.0, 5.0, 6.0, 7.0];
        let mut payload: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
        payload.extend([0u8; 4]);
        let app = Chunk::container(MOD_APP, vec![Chunk::leaf(MOD_CONTEXT_TM, payload)]);
        let m = mod_context_tm(Some(&app)).unwrap();
        assert_eq!(m.transform_point3(Vec3::X), Vec3::new(5.0, 7.0, 7.0));
        assert_eq!(m.transform_point3(Vec3::Y), Vec3::new(4.0, 6.0, 7.0));
        assert_eq!(m.transform_point3(Vec3::Z), Vec3::new(5.0, 6.0, 9.0));
        // Absent: identity (Max applies no mod context); short: unreadable, not guessed.
        assert_eq!(mod_context_tm(None), Some(Mat4::IDENTITY));
        let short = Chunk::container(MOD_APP, vec![Chunk::leaf(MOD_CONTEXT_TM, vec![0u8; 20])]);
        assert_eq!(mod_context_tm(Some(&short)), None);
    }
}
