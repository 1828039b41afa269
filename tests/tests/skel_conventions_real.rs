//! The Biped `.skel` conventions (`pmref::skel_conventions`, part (b) of the Biped skel T3)
//! hold on every real NeL `.skel` of `../shared/corpus/nel/skel` — the rules are read off
//! those files, so this is where a rule that does not hold would show — and a father
//! index swapped in a real file is caught, naming its bone.

use pmref::skel_conventions::{biped_root, check};
use std::path::PathBuf;

/// The real `.skel` files of Ryzom's game data (manifest `source_repo` `ryzom/ryzomcore*`:
/// what the build pipeline's NeL exporter wrote; the others are hand-made test rigs of
/// other projects, e.g. a `gnu.skel` with repeated names and no root reset).
fn real_skels() -> Option<Vec<PathBuf>> {
    let root = pmtests::nel_corpus()?;
    let manifest = pmtests::manifest(&root);
    let ryzom = |n: &str| manifest.get(n).is_some_and(|row| row["source_repo"].starts_with("ryzom/ryzomcore"));
    let files = pmtests::manifest_files(&root, |n| n.ends_with(".skel") && ryzom(n));
    assert!(!files.is_empty(), "{}: the manifest lists no .skel", root.display());
    Some(files)
}

fn read(path: &std::path::Path) -> pmcore::export::skel::Skeleton {
    let bytes = std::fs::read(path).unwrap();
    pmcore::nel::skel::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_real_skel_keeps_the_conventions() {
    let Some(files) = real_skels() else { return };
    let mut biped = 0;
    let mut failures = Vec::new();
    for path in &files {
        let s = read(path);
        biped += usize::from(biped_root(&s).is_some());
        for m in check(&s, false) {
            failures.push(format!("{}: {} {}: {}", path.display(), m.rule, m.locator(), m.found));
        }
    }
    assert!(biped > 0, "no real .skel has a Bip0N root");
    assert!(failures.is_empty(), "{} misses:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn a_father_index_swapped_in_a_real_skel_is_caught_at_its_bone() {
    let Some(files) = real_skels() else { return };
    let path = files.iter().find(|p| biped_root(&read(p)).is_some()).expect("a Biped .skel");
    let mut s = read(path);
    // Two leaves (no sons, so nothing else moves) whose fathers differ, the later one's
    // father after the earlier leaf: swapped, the earlier leaf hangs from a later bone.
    let n = s.bones.len();
    let leaf = |i: usize| s.bones.iter().all(|b| b.father_id != i as i32);
    let (a, b) = (1..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find(|&(a, b)| leaf(a) && leaf(b) && s.bones[b].father_id > a as i32)
        .expect("two leaves with different fathers");
    let (fa, fb) = (s.bones[a].father_id, s.bones[b].father_id);
    s.bones[a].father_id = fb;
    s.bones[b].father_id = fa;
    // Through the bytes, as a perturbed file would be read.
    let s = pmcore::nel::skel::read(&pmcore::nel::skel::write(&s)).unwrap();
    let misses = check(&s, true);
    let at_a: Vec<&str> = misses.iter().filter(|m| m.bone == Some(a)).map(|m| m.rule.as_str()).collect();
    assert_eq!(at_a, ["fathers-before-sons"], "{}: fathers of #{a} and #{b} swapped: {misses:?}", path.display());
    // Bones after it may break `pre-order` too (their path now runs through it): the first
    // miss reported is the swapped bone.
    assert_eq!(misses[0].locator(), format!("bones[{a}] {:?}", s.bones[a].name));
}
