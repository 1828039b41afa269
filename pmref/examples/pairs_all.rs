//! Runs every pairs comparison over a pairs manifest in process and prints one line per
//! export and comparison (verdict, message) plus the tallies — a quick survey beside
//! `scripts/pairs_sweep.sh`. `cargo run -p pmref --example pairs_all -- PAIRS [COMPARISON]`
use pmcore::model::scene_index::SceneTrees;
use std::collections::BTreeMap;
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let pairs = Path::new(&args[1]);
    let only = args.get(2).cloned();
    let manifest = std::fs::read_to_string(pairs.join("manifest.tsv")).expect("manifest");
    let mut tally: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    // The exports column by its header name: pairs has it third, biped second.
    let header: Vec<&str> = manifest.lines().next().unwrap_or_default().split('\t').collect();
    let exports = header.iter().position(|h| *h == "exports").unwrap_or(2);
    for line in manifest.lines().skip(1) {
        let cols: Vec<&str> = line.split('\t').collect();
        let bytes = std::fs::read(pairs.join(cols[0])).expect("max");
        let pmcore::Input::Ole(ole) = pmcore::classify(&bytes) else { continue };
        let file = pmcore::MaxFile::new(ole);
        let trees = SceneTrees::of(&file).expect("scene");
        let index = trees.index().expect("index");
        for export in cols[exports].split(';').map(str::trim) {
            let ext = export.rsplit('.').next().unwrap_or_default();
            let Ok(data) = std::fs::read(pairs.join(export)) else { continue };
            let scene = match pmref::read_reference(ext, &data) {
                Ok(s) => s,
                Err(e) => {
                    println!("UNREADABLE {export}: {e}");
                    continue;
                }
            };
            for c in pmref::compare::compare_all(&index, &scene, export) {
                *tally.entry(c.name.into()).or_default().entry(c.verdict.name().into()).or_default() += 1;
                if only.as_deref().is_some_and(|o| o != c.name) {
                    continue;
                }
                let message = match &c.verdict {
                    pmcore::verify::Verdict::Fail(f) => format!("{} {}", f.kind, f.message),
                    pmcore::verify::Verdict::Skip { reason } => reason.clone(),
                    pmcore::verify::Verdict::Pass { note } => note.clone().unwrap_or_default(),
                    #[allow(unreachable_patterns)]
                    _ => String::new(),
                };
                println!(
                    "{} {} {export} | {}",
                    c.name,
                    c.verdict.name(),
                    message.chars().take(400).collect::<String>()
                );
                if args.get(3).is_some_and(|pattern| export.contains(pattern.as_str())) {
                    println!("{:#}", c.detail);
                }
            }
        }
    }
    for (c, t) in tally {
        println!("TALLY {c} {t:?}");
    }
}
