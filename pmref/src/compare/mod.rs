//! The pairs T3 comparisons: a reference 3ds Max wrote ([`RefScene`]) against pmcore's
//! model of the `.max` it came from. One [`Comparison`] per kind — `hierarchy`,
//! `transforms`, `geometry`, `animation`, `skin` — each with a verdict, the first
//! difference (both sides, located in the reference file) and counters.
//!
//! Axes and units come from the reference's own settings: positions scale by
//! `OriginalUnitScaleFactor / UnitScaleFactor`, and when the file's up axis differs from
//! the scene's (`UpAxis` vs `OriginalUpAxis`) the exporter's conversion is a rotation on
//! the nodes without an exported parent (it writes it as their `PreRotation`); nodes below
//! keep Max's local axes. Nothing is assumed where the file says nothing: such files are
//! compared with the conversion their root nodes carry, and the detail says so.
//!
//! Layout: one file per comparison, named after it, and [`REGISTRY`] here lists them. To
//! add a comparison, write `compare/<name>.rs` with a `NAME` and a `compare` function of
//! the [`Compare`] signature (one [`Pair`] in, its [`Comparison`] out), declare it below
//! and add one row to [`REGISTRY`]; [`compare_all`] and [`COMPARISONS`] follow from the
//! table. The shared steps live in files named by their job: [`matching`] (which Max node
//! each reference node stands for), [`axes`] (the exporter's axis and unit conversion),
//! [`matrices`] (local matrices and their error), [`mesh_match`] (polygons, point sets,
//! uvs), [`modifiers`] (the modifiers the comparisons look for, found through the class catalogue), [`tolerances`] and [`outcome`]
//! (the [`Comparison`] and its located failure). [`nel_anim`] is not in the registry: it
//! compares a written NeL `.anim` (a third input) with the same references.

mod animation;
mod animation_sampled;
pub(crate) mod axes;
mod geometry;
mod hierarchy;
mod matching;
mod matrices;
mod mesh_match;
mod modifiers;
pub mod nel_anim;
mod outcome;
mod skin;
mod skin_sets;
pub(crate) mod tolerances;
mod transforms;

use crate::scene::RefScene;
use matching::{match_nodes, MaxTree, Pair};
use pmcore::model::scene_index::SceneIndex;

pub use matching::strip_name_clash;
pub use mesh_match::UV_TOLERANCE;
pub use modifiers::SKIN_CLASS_ID;
pub use outcome::Comparison;
pub use skin::{FBX_WEIGHT_FLOOR, WEIGHT_TOLERANCE};
pub use tolerances::{LINEAR_TOLERANCE, POSITION_TOLERANCE};

/// A comparison: one pair (the Max tree, the node matching, the reference and the
/// reference's file name) in; its outcome out.
type Compare = fn(&Pair<'_, '_, '_>) -> Comparison;

/// One registered comparison: the name it reports under and the function that runs it.
struct Entry {
    name: &'static str,
    compare: Compare,
}

/// Every comparison, in the order they are reported: one row per comparison.
const REGISTRY: &[Entry] = &[
    Entry { name: hierarchy::NAME, compare: hierarchy::compare },
    Entry { name: transforms::NAME, compare: transforms::compare },
    Entry { name: geometry::NAME, compare: geometry::compare },
    Entry { name: animation::NAME, compare: animation::compare },
    Entry { name: skin::NAME, compare: skin::compare },
];

/// The comparisons' names, in the order they are reported (read from [`REGISTRY`]).
pub const COMPARISONS: [&str; REGISTRY.len()] = names();

const fn names() -> [&'static str; REGISTRY.len()] {
    let mut out = [""; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        out[i] = REGISTRY[i].name;
        i += 1;
    }
    out
}

/// Runs every comparison of `reference` (file `reference_name`) against the scene.
pub fn compare_all(index: &SceneIndex<'_>, reference: &RefScene, reference_name: &str) -> Vec<Comparison> {
    compare_all_in_range(index, reference, reference_name, None)
}

/// [`compare_all`] knowing the Max scene's time configuration (Config 0x20B0,
/// `pmcore::model::time_config`): a glTF clip that is the whole timeline starts at the
/// animation range start; `.3ds` keys count frames at its frame rate.
pub fn compare_all_in_range(
    index: &SceneIndex<'_>,
    reference: &RefScene,
    reference_name: &str,
    time: Option<pmcore::model::time_config::TimeConfig>,
) -> Vec<Comparison> {
    let tree = MaxTree::of(index);
    let matching = match_nodes(reference, &tree);
    let pair = Pair { tree: &tree, matching: &matching, reference, name: reference_name, time };
    REGISTRY.iter().map(|entry| (entry.compare)(&pair)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_names_each_comparison_once_in_the_reported_order() {
        assert_eq!(COMPARISONS, ["hierarchy", "transforms", "geometry", "animation", "skin"]);
    }
}
