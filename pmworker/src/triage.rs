//! Triage detection in the worker: which Ryzom triage classes the file holds.

use crate::events::Triage;
use pmcore::facts::FileFacts;
use pmcore::MaxFile;

/// Triage classes that follow from the facts alone (headers, compression).
pub fn detect(_file: &MaxFile, f: &FileFacts) -> Triage {
    let mut classes = Vec::new();
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
    Triage { classes, ..Default::default() }
}
