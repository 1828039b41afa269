//! The catalogue is consistent: one row per (Class ID, superclass), every evaluator a row
//! names resolves, and every evaluator file is named by a row.

use super::*;
use std::collections::BTreeSet;

/// The evaluator module a row names, if any.
fn evaluator_module(c: &Class) -> Option<&'static str> {
    match c.evaluator {
        Evaluator::None => None,
        Evaluator::Object(e) => Some(e.module),
        Evaluator::Modifier(e) => Some(e.module),
        Evaluator::OverShape(e) => Some(e.module),
    }
}

/// The `.rs` files of a source folder, without `mod.rs`, by stem.
fn files_in(folder: &str) -> BTreeSet<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src").join(folder);
    std::fs::read_dir(&dir)
        .expect("source folder")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| f.strip_suffix(".rs").map(str::to_string))
        .filter(|f| f != "mod")
        .collect()
}

#[test]
fn one_row_per_class_id_and_superclass() {
    let mut seen = BTreeSet::new();
    for c in CATALOGUE {
        assert!(seen.insert((c.id, c.superclass)), "{} listed twice", c.name);
        assert_eq!(find(c.id, c.superclass).map(|f| f.name), Some(c.name));
    }
}

#[test]
fn every_named_evaluator_resolves_through_its_lookup() {
    for c in CATALOGUE {
        let resolved = match c.evaluator {
            Evaluator::None => continue,
            Evaluator::Object(e) => object(c.id).map(|f| f.module) == Some(e.module),
            Evaluator::Modifier(e) => modifier(c.id).map(|f| f.module) == Some(e.module),
            Evaluator::OverShape(e) => over_shape(c.id).map(|f| f.module) == Some(e.module),
        };
        assert!(resolved, "{}: its evaluator is not what the stack finds", c.name);
        let role_fits = match c.evaluator {
            Evaluator::Object(_) => c.role == Role::Object && c.superclass == ids::superclass::GEOM_OBJECT,
            _ => c.role == Role::Modifier,
        };
        assert!(role_fits, "{}: evaluator and role disagree", c.name);
    }
}

#[test]
fn every_modifier_and_primitive_file_is_named_by_a_row() {
    let named: BTreeSet<&str> = CATALOGUE.iter().filter_map(evaluator_module).collect();
    for (folder, prefix) in
        [("eval/modifier", "pmcore::eval::modifier::"), ("eval/primitive", "pmcore::eval::primitive::")]
    {
        for stem in files_in(folder) {
            let module = format!("{prefix}{}", if stem == "box" { "r#box".to_string() } else { stem.clone() });
            assert!(named.contains(module.as_str()), "{folder}/{stem}.rs is named by no catalogue row");
        }
    }
    // And no row names a module outside those folders.
    for module in &named {
        let stem = module.rsplit("::").next().unwrap_or_default().trim_start_matches("r#");
        let folder = if module.contains("::modifier::") { "eval/modifier" } else { "eval/primitive" };
        assert!(files_in(folder).contains(stem), "{module} has no file");
    }
}

#[test]
fn the_effects_keep_their_measured_sets() {
    // Topology passes through for exactly the modifiers the pass-through evaluator or an
    // evaluator that keeps indices and moves no topology handles.
    let passing: Vec<&str> = CATALOGUE.iter().filter(|c| c.effect.passes_through).map(|c| c.name).collect();
    assert_eq!(passing.len(), 20, "{passing:?}");
    for c in CATALOGUE.iter().filter(|c| c.effect.passes_through) {
        assert!(modifier(c.id).is_some_and(|m| m.keeps_indices), "{}", c.name);
    }
    let geometry: Vec<&str> = CATALOGUE.iter().filter(|c| c.effect.makes_geometry).map(|c| c.name).collect();
    assert_eq!(
        geometry,
        ["Extrude", "Lathe", "Bevel", "Bevel Profile", "Shell", "Edit Poly", "Edit Mesh", "TurboSmooth"]
    );
    let moving: Vec<&str> = CATALOGUE.iter().filter(|c| c.effect.moves_vertices).map(|c| c.name).collect();
    assert_eq!(moving.len(), 13, "{moving:?}");
    // Bend shares Box's id under another superclass: each lookup finds its own.
    assert!(modifier(ids::BEND).is_some() && object(ids::BOX).is_some());
    assert!(!makes_geometry(ids::BOX) && moves_vertices(ids::CLOTH).map(|c| c.name) == Some("Cloth"));
}
