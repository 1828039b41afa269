//! Every `[dependencies]` entry of a workspace crate is used by that crate's sources: an
//! unused dependency costs every build its compile time and hides what a crate really
//! needs (issue #21 removed `anyhow` from pmworker and pmfarm and `glam` from pmworker).

use std::path::Path;

/// Names under `[dependencies]` of a `Cargo.toml` (one `name = …` or `name.workspace = …` a line).
fn dependencies(manifest: &str) -> Vec<String> {
    let mut in_deps = false;
    let mut names = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_deps = line == "[dependencies]";
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
    for krate in ["pmcore", "pmref", "pmworker", "pmfarm"] {
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
