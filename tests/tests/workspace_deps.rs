//! Every `[dependencies]` entry of a workspace crate is used by that crate's sources: an
//! unused dependency costs every build its compile time and hides what a crate really
//! needs (issue #21 removed `anyhow` from pmworker and pmfarm and `glam` from pmworker).
//! And the contract crate, pmschema, is a leaf: it depends on no workspace crate (issue 38).

use std::path::Path;

/// Names under `[dependencies]` of a `Cargo.toml` (one `name = …` or `name.workspace = …` a line).
fn dependencies(manifest: &str) -> Vec<String> {
    dependencies_in(manifest, |section| section == "[dependencies]")
}

/// Names in every section `wanted` accepts (one `name = …` or `name.workspace = …` a line).
fn dependencies_in(manifest: &str, wanted: impl Fn(&str) -> bool) -> Vec<String> {
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = wanted(line);
            continue;
        }
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let name = line.split(['=', '.', ' ']).next().unwrap_or_default().trim();
        if !name.is_empty() {
            names.push(name.to_string());
        }
    }
    names
}

/// Text of every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut String) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
}

#[test]
fn every_dependency_of_a_workspace_crate_is_used_by_its_sources() {
    let root = pmtests::workspace_root();
    let mut unused = Vec::new();
    for krate in ["pmcore", "pmref", "pmschema", "pmworker", "pmfarm"] {
        let dir = root.join(krate);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let mut text = String::new();
        sources(&dir.join("src"), &mut text);
        for name in dependencies(&manifest) {
            let ident = name.replace('-', "_");
            let used = [format!("{ident}::"), format!("use {ident}"), format!("extern crate {ident}")]
                .iter()
                .any(|needle| text.contains(needle.as_str()));
            if !used {
                unused.push(format!("{krate}: {name}"));
            }
        }
    }
    assert!(unused.is_empty(), "dependencies no source file uses: {unused:?}");
}

/// The contract both binaries speak depends on nothing of theirs: no workspace crate in any
/// dependency section of pmschema (normal, dev, build or target-specific), so `cargo tree -p
/// pmschema` shows none of them and the wire format is defined by pmschema alone.
#[test]
fn pmschema_depends_on_no_workspace_crate() {
    let root = pmtests::workspace_root();
    let workspace = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
    let members_line = workspace.lines().find(|l| l.trim_start().starts_with("members")).expect("workspace members");
    let members: Vec<&str> = members_line.split('"').skip(1).step_by(2).collect();
    assert!(members.contains(&"pmcore") && members.contains(&"pmschema"), "{members:?}");
    let manifest = std::fs::read_to_string(root.join("pmschema/Cargo.toml")).unwrap();
    let names = dependencies_in(&manifest, |section| section.trim_end_matches(']').ends_with("dependencies"));
    let inside: Vec<&String> = names.iter().filter(|n| members.contains(&n.as_str())).collect();
    assert!(inside.is_empty(), "pmschema depends on workspace crates {inside:?}");
    assert!(!manifest.contains("path ="), "pmschema has a path dependency:\n{manifest}");
}
