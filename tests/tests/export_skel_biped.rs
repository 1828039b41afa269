//! The skel exporter and its T3 on the real Biped rigs of `../shared/corpus/biped` (every
//! `.max` row of its manifest, the LD35 rows of `../wild` included): each gets one skel
//! verdict; a rig with bones pmcore cannot place is never written and never passes, its miss
//! names the Biped class (triage `unsupported`); every placed bone's InvBindPos is within
//! tolerance of the FBX BindPose 3ds Max wrote, with fathers as the FBX hierarchy and the
//! real `.skel` conventions kept; a passing rig's `.skel` is written and reads back through
//! the NeL reader, rewriting byte-identically. Perturbed references (a bind matrix turned by 1°, two
//! father indices swapped, an LD35 `B_*` helper's bind matrix turned by 1°) are caught at the bone;
//! the `Bip02` children are rooted at their COM and written. Skips, saying so, without `../shared`.

use pmcore::export::biped_rig::BipedSkeleton;
use pmcore::export::rig::{export, RigOutcome};
use pmtests::fixtures;
use pmworker::events::{Event, TierResult};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// A manifest row: its name, the `.max`, the FBX.
type Rig = (String, PathBuf, PathBuf);

/// Every `.max` row of the biped manifest, with its FBX.
fn rigs() -> Option<(PathBuf, Vec<Rig>)> {
    let corpus = pmtests::shared_corpus("biped")?;
    let rows: Vec<Rig> = pmtests::manifest(&corpus)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".max"))
        .map(|(name, row)| (name.clone(), corpus.join(&name), corpus.join(&row["exports"])))
        .collect();
    assert!(!rows.is_empty(), "the biped manifest lists no .max");
    for (name, max, fbx) in &rows {
        assert!(max.is_file() && fbx.is_file(), "{name}: {} or {} missing", max.display(), fbx.display());
    }
    Some((corpus, rows))
}

fn skel_result(max: &Path, corpus: &Path, out: &Path) -> (TierResult, pmworker::events::Export) {
    let args: Vec<&OsStr> = ["--tiers", "t3", "--export", "skel", "--reference"]
        .iter()
        .map(OsStr::new)
        .chain([corpus.as_os_str(), OsStr::new("--out"), out.as_os_str(), max.as_os_str()])
        .collect();
    let run = fixtures::run(&pmtests::binary("pmworker"), &args, &[]);
    let events: Vec<Event> = run.lines().iter().map(|l| Event::from_line(l).expect("an event")).collect();
    let result = events.iter().find_map(|e| match e {
        Event::Result(r) if r.stream == "skel" => Some(r.clone()),
        _ => None,
    });
    let export = events.iter().find_map(|e| match e {
        Event::Export(x) if x.exporter == "skel" => Some(x.clone()),
        _ => None,
    });
    (result.expect("a skel result"), export.expect("a skel export event"))
}

#[test]
fn every_biped_rig_gets_a_skel_verdict_that_names_what_it_misses() {
    let Some((corpus, rows)) = rigs() else { return };
    let (mut compared_rigs, mut written, mut tally) = (0, 0, std::collections::BTreeMap::<String, usize>::new());
    for (name, max, _) in &rows {
        let out = tempfile::tempdir().unwrap();
        let (r, export) = skel_result(max, &corpus, out.path());
        let verdict = r.verdict.name().to_string();
        let class = r.triage.as_ref().map(|t| t.class.name().to_string()).unwrap_or_default();
        *tally.entry(format!("{verdict} {class}")).or_default() += 1;
        let d = r.detail.clone().unwrap_or_default();
        let unplaced = d["unplaced"].as_u64().unwrap_or(0);
        assert!(verdict != "pass" || unplaced == 0, "{name}: a pass with {unplaced} unplaced bones");
        if unplaced > 0 {
            assert_eq!(export.status, "not-implemented", "{name}: written with unplaced bones");
            assert!(export.files.is_empty(), "{name}: {:?}", export.files);
        }
        if verdict == "pass" {
            // Written, and the file reads back through the NeL reader and rewrites byte-identically.
            assert!(export.status == "ok" && export.files.len() == 1, "{name}: {export:?}");
            let bytes = std::fs::read(out.path().join(&export.files[0])).unwrap();
            let back = pmcore::nel::skel::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(pmcore::nel::skel::write(&back), bytes, "{name}: the written .skel does not round-trip");
            assert_eq!(back.bones.len() as u64, d["bones"].as_u64().unwrap(), "{name}");
            written += 1;
        }
        if d["links_compared"].as_u64().unwrap_or(0) > 0 && verdict == "pass" {
            assert_eq!(d["link_off_count"], 0, "{name}: {}", d["link_off"]);
        }
        if d["bind_compared"].as_u64().unwrap_or(0) + d["links_compared"].as_u64().unwrap_or(0) > 0 {
            compared_rigs += 1;
            assert_eq!(d["bind_off_count"], 0, "{name}: {}", d["bind_off"]);
            assert_eq!(d["tracks_off_count"], 0, "{name}: {}", d["tracks_off"]);
            assert_eq!(d["father_misses"], serde_json::json!([]), "{name}");
            assert_eq!(d["convention_misses"], serde_json::json!([]), "{name}");
        }
        if verdict == "fail" && d["link_off_count"].as_u64().unwrap_or(0) > 0 {
            // Part (d) misses (red@spawn's toes, docs/exporters.md): a bone placed off the
            // helper 3ds Max bound there — its own unexplained miss, located at the bone.
            let t = r.triage.as_ref().expect("a fail is triaged");
            assert_eq!(t.class.name(), "unexplained", "{name}: {t:?}");
            let pmworker::events::Verdict::Fail(m) = &r.verdict else { unreachable!() };
            assert!(m.kind == "t3-skel-biped" && m.chunk_path.contains("/bones["), "{name}: {m:?}");
            pmtests::notice(&format!("{name}: Link Constraint helpers off their bones: {}", d["link_off"]));
        } else if verdict == "fail" {
            let t = r.triage.as_ref().expect("a fail is triaged");
            assert_eq!(t.class.name(), "unsupported", "{name}: {t:?}");
            assert!(t.evidence.to_string().contains("0x00009155:0x00000000"), "{name}: {t:?}");
        }
        if verdict == "skip" {
            assert_eq!(class, "not-applicable", "{name}: {:?}", r.verdict);
        }
    }
    pmtests::notice(&format!(
        "biped skel T3 over {} rigs: {tally:?}; {compared_rigs} compared, {written} written and round-tripped",
        rows.len()
    ));
    assert!(compared_rigs > 0, "no rig compared a placed bone with its FBX");
    assert!(written > 0, "no Biped .skel written");
}

fn biped_of(max: &Path) -> BipedSkeleton {
    let bytes = std::fs::read(max).unwrap();
    let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{} is not OLE", max.display()) };
    match export(&pmcore::MaxFile::new(ole)) {
        Ok(RigOutcome::Biped(b)) => *b,
        other => panic!("{}: not a Biped skeleton: {other:?}", max.display()),
    }
}

/// The first rig whose FBX BindPose holds placed bones, with its FBX read.
fn compared_rig() -> Option<(BipedSkeleton, pmref::scene::RefScene, pmref::fbx::binary::Document)> {
    let (_, rows) = rigs()?;
    for (_, max, fbx) in rows.iter().filter(|(n, _, _)| n.starts_with("rocketbox/")) {
        let bytes = std::fs::read(max).unwrap();
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { continue };
        if !matches!(export(&pmcore::MaxFile::new(ole)), Ok(RigOutcome::Biped(_))) {
            continue;
        }
        let doc = pmref::fbx::binary::read(&std::fs::read(fbx).unwrap()).unwrap();
        let scene = pmref::fbx::scene::scene_of(&doc).unwrap();
        return Some((biped_of(max), scene, doc));
    }
    panic!("no Rocketbox rig rooted at Bip01")
}

#[test]
fn a_bind_matrix_turned_by_one_degree_is_caught_at_its_bone() {
    let Some((biped, scene, doc)) = compared_rig() else { return };
    let mut bind = pmref::fbx::bind::bind_pose(&doc).unwrap();
    let before =
        pmref::biped_skel::compare(biped.structure(), &biped.placed, &biped.rotation_spread, &bind, &scene).unwrap();
    // The unperturbed misses are only the gimbal-locked facial xtras (docs/biped-format-notes.md).
    let off_before: Vec<usize> = before.bind_off.iter().map(|o| o.index).collect();
    // A placed bone deep in the tree (not the root, not already off): its BindPose turned by 1° about X.
    let s = biped.structure();
    let (i, name) = (1..s.bones.len())
        .rev()
        .find(|&i| biped.placed[i] && bind.contains_key(&s.bones[i].name) && !off_before.contains(&i))
        .map(|i| (i, s.bones[i].name.clone()))
        .unwrap();
    let m = bind[&name];
    bind.insert(name.clone(), m * glam::DMat4::from_rotation_x(1f64.to_radians()));
    let c = pmref::biped_skel::compare(s, &biped.placed, &biped.rotation_spread, &bind, &scene).unwrap();
    let new: Vec<(usize, &str)> =
        c.bind_off.iter().filter(|o| !off_before.contains(&o.index)).map(|o| (o.index, o.bone.as_str())).collect();
    assert_eq!(new, [(i, name.as_str())], "{c:?}");
    if off_before.is_empty() {
        assert_eq!(c.first_miss().unwrap().0, format!("bones[{i}] {name:?}"));
    }
}

#[test]
fn a_father_index_swapped_in_the_skeleton_is_caught_at_its_bone() {
    let Some((biped, scene, doc)) = compared_rig() else { return };
    let bind = pmref::fbx::bind::bind_pose(&doc).unwrap();
    let mut s = biped.structure().clone();
    // Two bones the FBX holds, with different fathers: swap their father indices.
    let in_fbx = |i: usize| scene.node_by_name(&s.bones[i].name).is_some();
    let n = s.bones.len();
    let (a, b) = (1..n)
        .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
        .find(|&(a, b)| in_fbx(a) && in_fbx(b) && s.bones[a].father_id != s.bones[b].father_id)
        .unwrap();
    let (fa, fb) = (s.bones[a].father_id, s.bones[b].father_id);
    s.bones[a].father_id = fb;
    s.bones[b].father_id = fa;
    let c = pmref::biped_skel::compare(&s, &biped.placed, &biped.rotation_spread, &bind, &scene).unwrap();
    let at: Vec<usize> = c.father_misses.iter().map(|m| m.index).collect();
    assert_eq!(at, [a, b], "{:?}", c.father_misses);
    assert!(!c.placed_part_passed());
}

#[test]
fn a_default_position_moved_by_a_tenth_of_a_millimetre_is_caught_at_its_bone() {
    let Some((biped, scene, doc)) = compared_rig() else { return };
    let bind = pmref::fbx::bind::bind_pose(&doc).unwrap();
    let mut s = biped.structure().clone();
    let before = pmref::biped_skel::compare(&s, &biped.placed, &biped.rotation_spread, &bind, &scene).unwrap();
    let off_before: Vec<usize> = before.tracks_off.iter().map(|t| t.index).collect();
    let i = (1..s.bones.len())
        .rev()
        .find(|&i| biped.placed[i] && scene.node_by_name(&s.bones[i].name).is_some() && !off_before.contains(&i))
        .unwrap();
    s.bones[i].default_pos[0] += 0.01;
    let c = pmref::biped_skel::compare(&s, &biped.placed, &biped.rotation_spread, &bind, &scene).unwrap();
    let at: Vec<usize> = c.tracks_off.iter().map(|t| t.index).filter(|t| !off_before.contains(t)).collect();
    assert_eq!(at, [i], "{c:?}");
    assert_eq!(c.bind_off_count, before.bind_off_count, "InvBindPos is not what moved");
}

#[test]
fn every_biped_skeleton_is_complete_only_when_nothing_is_unplaced_and_round_trips() {
    let Some((_, rows)) = rigs() else { return };
    for (name, max, _) in &rows {
        let bytes = std::fs::read(max).unwrap();
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { panic!("{name} is not OLE") };
        let Ok(RigOutcome::Biped(biped)) = export(&pmcore::MaxFile::new(ole)) else { continue };
        assert_eq!(biped.complete().is_some(), biped.unplaced.is_empty(), "{name}");
        assert_eq!(biped.placed.len(), biped.structure().bones.len(), "{name}");
        // What would be written, read back through the NeL reader, rewrites byte-identically.
        let written = pmcore::nel::skel::write(biped.structure());
        let back = pmcore::nel::skel::read(&written).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(pmcore::nel::skel::write(&back), written, "{name}");
    }
}

/// The nubs have no FBX matrix (the FBX plug-in writes none): the real files' nub convention
/// (`biped-nub-turn`) is what T3 holds them to. The unperturbed rig keeps it on its finger,
/// toe and head nubs; a right finger nub written unturned, or a head nub 0.1 mm off its
/// father's axis, is caught at the bone.
#[test]
fn a_nub_turned_otherwise_or_off_its_fathers_axis_is_caught_at_its_bone() {
    let Some((biped, scene, doc)) = compared_rig() else { return };
    let bind = pmref::fbx::bind::bind_pose(&doc).unwrap();
    let compare = |s: &pmcore::export::skel::Skeleton| {
        pmref::biped_skel::compare(s, &biped.placed, &biped.rotation_spread, &bind, &scene).unwrap()
    };
    let s = biped.structure().clone();
    assert_eq!(compare(&s).convention_misses, vec![], "the unperturbed rig");
    let at = |name: &str| s.bones.iter().position(|b| b.name.ends_with(name)).expect(name);
    let (finger, head) = (at("R Finger0Nub"), at("HeadNub"));
    let mut turned = s.clone();
    turned.bones[finger].default_rot_quat = [0.0, 0.0, 0.0, -1.0];
    let mut moved = s.clone();
    moved.bones[head].default_pos[1] += 0.01;
    for (perturbed, i) in [(turned, finger), (moved, head)] {
        let misses = compare(&perturbed).convention_misses;
        let found: Vec<(&str, Option<usize>)> = misses.iter().map(|m| (m.rule.as_str(), m.bone)).collect();
        assert_eq!(found, [("biped-nub-turn", Some(i))], "{misses:?}");
    }
}

/// The Rocketbox children (`Male_Child_01`, `Female_Child_01`) are `Bip02` rigs: with no
/// `Bip01` in the file, the skeleton is rooted at the single Biped system's COM (NeL's
/// `CNelExport::exportSkeleton` exports whichever root it is given; docs/exporters.md). Each
/// such rig passes its skel T3 against its FBX, is written, and its `.skel` reads back through
/// the NeL reader and rewrites byte-identically.
#[test]
fn a_rig_without_bip01_is_rooted_at_its_com_written_and_read_back() {
    let Some((corpus, rows)) = rigs() else { return };
    let mut rooted_elsewhere = Vec::new();
    for (name, max, _) in rows.iter().filter(|(n, _, _)| n.starts_with("rocketbox/")) {
        let root = biped_of(max).structure().bones[0].name.clone();
        if root == "Bip01" {
            continue;
        }
        assert!(root.starts_with("Bip0") && root.len() == 5, "{name}: root {root:?}");
        let out = tempfile::tempdir().unwrap();
        let (r, export) = skel_result(max, &corpus, out.path());
        assert_eq!(r.verdict.name(), "pass", "{name}: {:?} {:?}", r.verdict, r.detail);
        assert!(export.status == "ok" && export.files.len() == 1, "{name}: {export:?}");
        let bytes = std::fs::read(out.path().join(&export.files[0])).unwrap();
        let back = pmcore::nel::skel::read(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back.bones[0].name, root, "{name}");
        assert_eq!(pmcore::nel::skel::write(&back), bytes, "{name}: the written .skel does not round-trip");
        rooted_elsewhere.push(name.clone());
    }
    pmtests::notice(&format!("rigs rooted at a COM not named Bip01: {rooted_elsewhere:?}"));
    assert!(!rooted_elsewhere.is_empty(), "no Rocketbox rig without Bip01 (the children are Bip02 rigs)");
}

/// The LD35 rigs' FBX BindPose holds only their `B_*` helpers, each Link-Constrained to a
/// Biped bone: part (d) holds the bone's figure world · the link offset to the helper's bind
/// matrix. Every LD35 rig whose helpers all agree keeps them within tolerance; one helper's
/// BindPose turned by 1° is caught at the bone it links to, and at no other.
#[test]
fn a_helper_bind_matrix_turned_by_one_degree_is_caught_at_its_linked_bone() {
    let Some((_, rows)) = rigs() else { return };
    let mut checked = Vec::new();
    for (name, max, fbx) in rows.iter().filter(|(n, _, _)| n.contains("tae8838__")) {
        let biped = biped_of(max);
        let doc = pmref::fbx::binary::read(&std::fs::read(fbx).unwrap()).unwrap();
        let scene = pmref::fbx::scene::scene_of(&doc).unwrap();
        let mut bind = pmref::fbx::bind::bind_pose(&doc).unwrap();
        let compare = |bind: &std::collections::BTreeMap<String, glam::DMat4>| {
            let s = biped.structure();
            let mut c = pmref::biped_skel::compare(s, &biped.placed, &biped.rotation_spread, bind, &scene).unwrap();
            pmref::biped_skel::compare_helper_links(&mut c, &biped, bind, &scene).unwrap();
            c
        };
        let before = compare(&bind);
        assert!(before.links_compared > 0, "{name}: no helper linked to a placed bone in the BindPose");
        if before.link_off_count > 0 {
            continue; // red@spawn's toes: reported by the every-rig test
        }
        let link = biped.helper_links.iter().find(|l| l.helper.ends_with("Head")).expect("a head helper");
        let m = bind[&link.helper];
        bind.insert(link.helper.clone(), m * glam::DMat4::from_rotation_x(1f64.to_radians()));
        let c = compare(&bind);
        let at: Vec<(usize, &str)> = c.link_off.iter().map(|o| (o.index, o.helper.as_str())).collect();
        assert_eq!(at, [(link.bone, link.helper.as_str())], "{name}: {c:?}");
        assert_eq!(
            c.first_miss().unwrap().0,
            format!("bones[{}] {:?}", link.bone, biped.structure().bones[link.bone].name)
        );
        checked.push(name.clone());
    }
    pmtests::notice(&format!("helper BindPose perturbation caught on {checked:?}"));
    assert!(!checked.is_empty(), "no LD35 rig with every helper within tolerance");
}
