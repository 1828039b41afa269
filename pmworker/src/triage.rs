//! Triage detection in the worker: turns the facts (header widths, compression) and the
//! Scene detectors of [`pmcore::triage`] into the `triage` event.

use crate::events::{BipedInfo, FlareHit, MapExtHit, Triage, UnusedEntry};
use pmcore::facts::FileFacts;
use pmcore::model::scene_index::SceneTrees;
use pmcore::triage::{detect_trees, DirectoryKind};

/// Triage classes of an opened file, from its facts and its own Scene content.
/// `scene`: the Scene trees when the Scene is a chunk tree (the pipeline's, kept from T1).
pub fn detect(f: &FileFacts, scene: Option<&SceneTrees<'_>>) -> Triage {
    let mut triage = Triage::default();
    if let Some(scene) = scene.and_then(detect_trees) {
        triage.mapext = scene
            .mapext
            .iter()
            .map(|h| MapExtHit { node: h.at.label(), dll: h.dll.clone(), class_name: h.class_name.clone() })
            .collect();
        triage.flare = scene
            .flare
            .iter()
            .map(|h| FlareHit {
                node: h.at.label(),
                first_flare_keep_size: match h.first_flare_keep_size {
                    Some(b) => serde_json::Value::Bool(b),
                    None => serde_json::Value::String("unread".into()),
                },
            })
            .collect();
        triage.biped = scene.biped.map(|b| BipedInfo { systems: b.systems as u64, figure_era: b.figure_era });
        triage.unused_entries = scene
            .unused_entries
            .into_iter()
            .map(|e| UnusedEntry {
                directory: match e.directory {
                    DirectoryKind::Dll => "dll".into(),
                    DirectoryKind::Class => "class".into(),
                },
                name: e.name,
            })
            .collect();
    }
    let classes = &mut triage.classes;
    for (present, slug) in
        [(!triage.mapext.is_empty(), "mapext"), (!triage.flare.is_empty(), "flare"), (triage.biped.is_some(), "biped")]
    {
        if present {
            classes.push(slug.to_string());
        }
    }
    if f.headers_14 > 0 {
        classes.push("headers-64".to_string());
    }
    if f.mixed_width_containers > 0 {
        classes.push("header-mix".to_string());
    }
    for c in &f.compression {
        if c != "none" {
            classes.push(c.clone());
        }
    }
    triage
}
