//! What a scene *uses*, as 3ds Max decides it for its document summary: the SceneImpl's
//! scene material library and the objects reachable from the scene's roots. Measured on the
//! real corpora (public, wild, pairs); the rules and the files that show them are in
//! `docs/exporters.md` (`summary`). Every walk is iterative and bounded by the object count.

use super::controllers::has_class;
use super::scene_index::SceneIndex;

/// SceneImpl, the Scene's singleton (the last Scene object).
/// Superclass of materials (`MATERIAL_CLASS_ID`).
pub(crate) const MATERIAL_SUPERCLASS: u32 = 0x0c00;
/// Node reference slot of the material (slot 0 = transform, 1 = object).
pub(crate) const NODE_MATERIAL_SLOT: usize = 3;
/// The scene material library (`MtlBaseLib`), SceneImpl reference slot 1.
pub(crate) use crate::classes::ids::MTL_BASE_LIB;
pub(crate) use crate::classes::ids::SCENE_IMPL;
/// SceneImpl reference slot of the scene material library.
pub(crate) const SCENE_MATERIAL_LIBRARY_SLOT: usize = 1;

/// Storage indices of the objects that `from` reaches through references (itself
/// included), never entering `barrier`.
fn reach(index: &SceneIndex<'_>, from: impl IntoIterator<Item = usize>, barrier: Option<usize>) -> Vec<bool> {
    let mut seen = vec![false; index.objects.len()];
    let mut todo: Vec<usize> = from.into_iter().collect();
    while let Some(i) = todo.pop() {
        if Some(i) == barrier || seen.get(i).copied() != Some(false) {
            continue;
        }
        seen[i] = true;
        if let Some(o) = index.get(i) {
            todo.extend(o.references().into_iter().filter_map(|(_, t)| t));
        }
    }
    seen
}

/// The scene's material library and which of its entries are in use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SceneUse {
    /// Storage index of the scene material library.
    pub library: usize,
    /// Library entries in stored order, each with whether another Scene object (a node,
    /// a Multi/Sub-Object, the Material Editor, the render environment …) references it.
    /// An entry only the library holds is left over — Unwrap UVW's checker material
    /// `uvchecker_mat` in 59 real files — and Max 2017–2019 leave it out of the summary (Max 4
    /// and older list it: `export::summary::materials`).
    pub entries: Vec<(usize, bool)>,
    /// Objects reachable from the scene's roots (every node, and every SceneImpl reference
    /// but the library) without going through the library.
    pub from_roots: Vec<bool>,
    /// Objects reachable from a left-over library entry.
    pub from_left_over: Vec<bool>,
}

impl SceneUse {
    /// Reads the SceneImpl (the last object of class 0x2222:0) and its library; `Err`
    /// names what is missing.
    pub(crate) fn of(index: &SceneIndex<'_>) -> Result<SceneUse, String> {
        let scene = index
            .objects
            .iter()
            .rev()
            .find(|o| has_class(o, SCENE_IMPL))
            .ok_or_else(|| "SceneImpl (0x2222:0) not found".to_string())?;
        let library = scene
            .reference(SCENE_MATERIAL_LIBRARY_SLOT)
            .filter(|&l| index.get(l).is_some_and(|o| has_class(o, MTL_BASE_LIB)))
            .ok_or_else(|| "scene material library (MtlBaseLib 0x3333:0, SceneImpl slot 1) not found".to_string())?;
        let mut referenced = vec![false; index.objects.len()];
        for o in index.objects.iter().filter(|o| o.storage_index != library) {
            for t in o.references().into_iter().filter_map(|(_, t)| t) {
                if let Some(r) = referenced.get_mut(t) {
                    *r = true;
                }
            }
        }
        let entries: Vec<(usize, bool)> = index
            .get(library)
            .map(|lib| lib.references().into_iter().filter_map(|(_, t)| t).collect::<Vec<_>>())
            .unwrap_or_default()
            .into_iter()
            .map(|t| (t, referenced.get(t).copied().unwrap_or(false)))
            .collect();
        let roots = scene
            .references()
            .into_iter()
            .filter_map(|(_, t)| t)
            .chain(index.objects.iter().filter(|o| o.is_node()).map(|o| o.storage_index));
        let from_roots = reach(index, roots, Some(library));
        let from_left_over = reach(index, entries.iter().filter(|(_, used)| !used).map(|(t, _)| *t), None);
        Ok(SceneUse { library, entries, from_roots, from_left_over })
    }

    /// True when `object` is reached only through left-over library entries.
    pub(crate) fn only_left_over(&self, object: usize) -> bool {
        self.from_left_over.get(object).copied().unwrap_or(false)
            && !self.from_roots.get(object).copied().unwrap_or(false)
    }
}

/// For each 16-byte id, the Scene objects whose leaf payloads contain it (at any offset):
/// how an object names the asset it uses (a Bitmap's ParamBlock2, a DirectX Shader, a
/// WaveObject …). One pass over the Scene bytes, whatever the number of ids.
pub(crate) fn holders_of(index: &SceneIndex<'_>, ids: &[[u8; 16]]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); ids.len()];
    // Ids sorted as 128-bit keys, and a bit per 2-byte prefix: most positions of the Scene
    // are turned away by one bit test, the rest by a binary search (a SipHash of 16 bytes at
    // every position whose first byte matched was ≈ 10 % of the farm's default worker on the
    // public files, issue #43).
    let mut sorted: Vec<(u128, usize)> = ids.iter().enumerate().map(|(i, id)| (u128::from_be_bytes(*id), i)).collect();
    sorted.sort_unstable();
    let mut prefixes = [0u64; 1024];
    let prefix = |a: u8, b: u8| usize::from(u16::from_be_bytes([a, b]));
    ids.iter().for_each(|id| {
        let p = prefix(id[0], id[1]);
        prefixes[p / 64] |= 1 << (p % 64);
    });
    let mut found: Vec<usize> = Vec::new();
    let mut todo = Vec::new();
    for o in &index.objects {
        found.clear();
        todo.push(o.chunk);
        while let Some(c) = todo.pop() {
            match c.payload() {
                Some(p) => {
                    for at in 0..p.len().saturating_sub(15) {
                        let pre = prefix(p[at], p[at + 1]);
                        if prefixes[pre / 64] & (1 << (pre % 64)) == 0 {
                            continue;
                        }
                        let key = u128::from_be_bytes(p[at..at + 16].try_into().expect("16 bytes"));
                        let from = sorted.partition_point(|(k, _)| *k < key);
                        found.extend(sorted[from..].iter().take_while(|(k, _)| *k == key).map(|(_, i)| *i));
                    }
                }
                None => todo.extend(c.children()),
            }
        }
        found.sort_unstable();
        found.dedup();
        for &i in &found {
            out[i].push(o.storage_index);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chunk::Chunk;
    use crate::model::scene_index::{ResolvedClass, REFS_FLAT};

    fn refs(targets: &[i32]) -> Chunk<'static> {
        Chunk::leaf(REFS_FLAT, targets.iter().flat_map(|t| t.to_le_bytes()).collect::<Vec<u8>>())
    }

    fn class(id: [u32; 2], superclass: u32) -> Option<ResolvedClass> {
        Some(ResolvedClass { class_id: id, superclass, name: String::new(), dll: String::new(), directory_index: None })
    }

    /// 0 node → 1 material → 2 bitmap block holding GUID A; 3 left-over library entry → 4
    /// block holding GUID B; 5 library (entries 1 and 3); 6 SceneImpl (slot 0 → 7, slot 1 →
    /// library); 7 render environment holding GUID C (no references).
    fn scene() -> Vec<Chunk<'static>> {
        let guid = |b: u8| vec![b; 16];
        let mut holder_a = guid(0xaa);
        holder_a.splice(0..0, [1, 2, 3]); // at an odd offset
        vec![
            Chunk::container(1, vec![refs(&[-1, 1])]),
            Chunk::container(2, vec![refs(&[2])]),
            Chunk::container(3, vec![Chunk::container(9, vec![Chunk::leaf(4, holder_a)])]),
            Chunk::container(2, vec![refs(&[4])]),
            Chunk::container(3, vec![Chunk::leaf(4, guid(0xbb))]),
            Chunk::container(5, vec![refs(&[1, 3])]),
            Chunk::container(6, vec![refs(&[7, 5])]),
            Chunk::container(7, vec![Chunk::leaf(4, guid(0xcc)), Chunk::leaf(5, vec![0xcc; 15])]),
        ]
    }

    fn index<'a>(chunks: &'a [Chunk<'static>]) -> SceneIndex<'a> {
        let classes = [
            class([1, 0], 1),
            class([2, 0], 0xc00),
            class([0x82, 0], 0x82),
            class([2, 0], 0xc00),
            class([0x82, 0], 0x82),
            class(MTL_BASE_LIB, 0x100),
            class(SCENE_IMPL, 0x100),
            class([0xee44_8b23, 0], 0x1010),
        ];
        SceneIndex::of_objects(0x2012, chunks, classes)
    }

    #[test]
    fn library_entries_only_the_library_holds_are_left_over() {
        let chunks = scene();
        let index = index(&chunks);
        let usage = SceneUse::of(&index).unwrap();
        assert_eq!((usage.library, usage.entries.clone()), (5, vec![(1, true), (3, false)]));
        assert!(!usage.only_left_over(2), "reached from the node");
        assert!(usage.only_left_over(4) && usage.only_left_over(3), "reached only from the left-over entry");
        assert!(!usage.only_left_over(7), "the render environment is a root");
    }

    #[test]
    fn holders_are_found_at_any_offset_and_depth_and_never_partially() {
        let chunks = scene();
        let index = index(&chunks);
        let found = holders_of(&index, &[[0xaa; 16], [0xbb; 16], [0xcc; 16], [0xdd; 16]]);
        assert_eq!(found, vec![vec![2], vec![4], vec![7], vec![]]);
        // The same id twice (an asset table may list a file twice) finds its holders twice;
        // an id sharing only a 2-byte prefix with a held one finds nothing.
        let mut near = [0xaa; 16];
        near[15] = 0xab;
        let found = holders_of(&index, &[[0xbb; 16], near, [0xbb; 16]]);
        assert_eq!(found, vec![vec![4], vec![], vec![4]]);
    }

    #[test]
    fn a_scene_without_its_singleton_or_library_says_which() {
        let chunks = scene();
        let mut index = index(&chunks);
        index.objects[5].class = class([0x3334, 0], 0x100);
        assert!(SceneUse::of(&index).unwrap_err().contains("MtlBaseLib"));
        index.objects[6].class = None;
        assert!(SceneUse::of(&index).unwrap_err().contains("SceneImpl"));
    }
}
