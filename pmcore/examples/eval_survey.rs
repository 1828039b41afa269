//! Evaluated totals against 3ds Max's saved `Mesh Totals`, per file (diagnostics).
//!
//! `eval_survey [-v] [--classes] PATH...` (folders are scanned for `.max` files).
//! `-v` prints every node's stack; `--classes` prints the class directory union instead.
use pmcore::eval::{self, NodeOutcome};
use pmcore::model::scene_index::SceneTrees;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn files(args: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for a in args {
        let p = PathBuf::from(a);
        if p.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(&p).unwrap().filter_map(|e| e.ok().map(|e| e.path())).collect();
            v.sort();
            for q in v {
                if q.is_dir() {
                    out.extend(files(&[q.to_string_lossy().to_string()]));
                } else if q.extension().is_some_and(|e| e.eq_ignore_ascii_case("max")) {
                    out.push(q);
                }
            }
        } else {
            out.push(p);
        }
    }
    out
}

fn mesh_totals(f: &pmcore::MaxFile) -> Option<(u64, u64)> {
    let stream = f.ole.stream("\u{5}DocumentSummaryInformation")?;
    let sections = pmcore::facts::property_set::parse(&stream.bytes).ok()?;
    let parts = pmcore::facts::property_set::headed_parts(&sections);
    let (_, lines) = parts.iter().find(|(h, _)| h == "Mesh Totals" || h == "网格总计")?;
    let value = |labels: [&str; 2]| {
        lines.iter().find_map(|l| labels.iter().find_map(|label| l.strip_prefix(label)?.trim().parse().ok()))
    };
    Some((value(["Vertices:", "顶点:"])?, value(["Faces:", "面数:"])?))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let classes = args.iter().any(|a| a == "--classes");
    let paths: Vec<String> = args.into_iter().filter(|a| !a.starts_with('-')).collect();
    let mut class_files: BTreeMap<(u32, [u32; 2]), (String, usize)> = BTreeMap::new();
    let (mut carrying, mut both, mut verts_only) = (0, 0, 0);
    let mut stoppers: BTreeMap<String, usize> = BTreeMap::new();
    for path in files(&paths) {
        let Ok(bytes) = std::fs::read(&path) else { continue };
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { continue };
        let f = pmcore::MaxFile::new(ole);
        let Some(trees) = SceneTrees::of(&f) else {
            println!("NOSCENE {}: totals {:?}", path.display(), mesh_totals(&f));
            continue;
        };
        let Some(index) = trees.index() else {
            println!("NOSCENE {}: totals {:?}", path.display(), mesh_totals(&f));
            continue;
        };
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if classes {
            let mut seen = std::collections::BTreeSet::new();
            for c in &index.directories.classes {
                if seen.insert((c.superclass, c.class_id)) {
                    let e = class_files.entry((c.superclass, c.class_id)).or_insert((c.name.clone(), 0));
                    e.1 += 1;
                }
            }
            continue;
        }
        let Some((mv, mf)) = mesh_totals(&f) else { continue };
        carrying += 1;
        let nodes = eval::evaluate_index(&index, eval::DEFAULT_BUDGET_VERTICES, false);
        let t = eval::totals_of(&nodes);
        let ok_v = t.vertices == mv;
        let ok = ok_v && t.faces == mf;
        both += usize::from(ok);
        verts_only += usize::from(ok_v);
        let mut file_stops: Vec<String> =
            t.stopped.iter().map(|s| format!("{} {} ({})", s.class_name, s.class_id, s.why)).collect();
        file_stops.sort();
        file_stops.dedup();
        if !ok {
            for s in &file_stops {
                *stoppers.entry(s.clone()).or_default() += 1;
            }
            if file_stops.is_empty() {
                *stoppers.entry("(no stop: wrong counts)".into()).or_default() += 1;
            }
        }
        let mut classes: Vec<&str> = t.stopped.iter().map(|s| s.class_name.as_str()).collect();
        classes.sort();
        classes.dedup();
        println!(
            "{} {name}: max {mv}/{mf} ours {}/{} stopped {} {classes:?} left_out {:?}",
            if ok {
                "OK  "
            } else if ok_v {
                "V   "
            } else {
                "MISS"
            },
            t.vertices,
            t.faces,
            t.stopped.len(),
            t.left_out
        );
        if verbose {
            for n in &nodes {
                let node = index.get(n.storage_index).unwrap();
                let chain = eval::stack::stack(&index, node)
                    .map(|(b, mods)| {
                        let cn = |o: &pmcore::model::scene_index::SceneObject<'_>| {
                            o.class
                                .as_ref()
                                .map(|c| {
                                    format!("{}[{:x}:{:x}/{:x}]", c.name, c.class_id[0], c.class_id[1], c.superclass)
                                })
                                .unwrap_or_default()
                        };
                        let mut s = cn(b);
                        for m in mods {
                            s.push_str(" > ");
                            s.push_str(&cn(m));
                        }
                        s
                    })
                    .unwrap_or_default();
                let what = match &n.outcome {
                    NodeOutcome::Evaluated(e) => {
                        let (c, r) = e.counts_and_rule();
                        format!("v {} f {} ({:?}, tri {} poly {})", c.vertices, c.faces(r), r, c.triangles, c.polygons)
                    }
                    NodeOutcome::Stopped(s) => format!("STOP {} ({})", s.class_name, s.why),
                    NodeOutcome::LeftOut(w) => format!("left out: {w}"),
                };
                let flags = node.chunk.child(0x0960).and_then(|c| c.payload()).map(|p| p.to_vec()).unwrap_or_default();
                println!("    {:?} flags {:02x?}: {chain}: {what}", n.name, &flags[4.min(flags.len())..]);
            }
        }
    }
    if classes {
        let mut v: Vec<_> = class_files.into_iter().collect();
        v.sort_by_key(|b| std::cmp::Reverse(b.1 .1));
        for ((sc, id), (name, n)) in v {
            println!("{n:4} sc {sc:#x} [0x{:08x}, 0x{:08x}] {name}", id[0], id[1]);
        }
        return;
    }
    println!("files with Mesh Totals: {carrying}; vertices+faces equal: {both}; vertices equal: {verts_only}");
    let mut v: Vec<_> = stoppers.into_iter().collect();
    v.sort_by_key(|b| std::cmp::Reverse(b.1));
    for (s, n) in v.iter().take(40) {
        println!("  {n:4} {s}");
    }
}
