//! T2 in the worker: the typed-model round trip of every chunk stream
//! ([`pmcore::verify::t2`]), with a breadcrumb before each stream and each Scene object
//! (naming stream, chunk path and class), then the class inventory event.

use crate::emit::Sink;
use crate::events::{Breadcrumb, ClassCount, Event, Inventory};
use pmcore::parsed::ParsedStreams;
use pmcore::verify::StreamVerdict;
use pmcore::MaxFile;

/// Runs T2 on every chunk stream, emits the `inventory` event, returns the verdicts.
/// `parsed`: the trees T1 kept (empty when T1 did not run: each stream is parsed here).
pub fn run<'f>(file: &'f MaxFile, parsed: &ParsedStreams<'f>, sink: &mut dyn Sink) -> Vec<StreamVerdict> {
    let opts = pmcore::verify::t2::Options::default();
    // One breadcrumb value, refilled before each stream and Scene object.
    let mut crumb = Breadcrumb { tier: "t2".into(), ..Default::default() };
    let report = pmcore::verify::t2::run_parsed(file, parsed, opts, |stream, chunk_path, class| {
        refill(&mut crumb.stream, Some(stream));
        refill_opt(&mut crumb.chunk_path, chunk_path);
        refill_opt(&mut crumb.class, class);
        sink.breadcrumb_ref(&crumb)
    });
    let classes = report
        .inventory
        .iter()
        .map(|c| ClassCount {
            class_id: c.class_id,
            superclass: c.superclass,
            name: c.name.clone(),
            dll: c.dll.clone(),
            count: c.count,
            typed: c.typed,
            generic: c.generic,
            degraded: c.degraded,
            resolution: Some(c.resolution.to_string()),
        })
        .collect();
    sink.emit(Event::Inventory(Inventory { classes, typed_coverage: report.typed_coverage }));
    report.streams
}

/// `to = text`, in `to`'s buffer.
fn refill(to: &mut String, text: Option<&str>) {
    to.clear();
    to.push_str(text.unwrap_or_default());
}

/// `to = text.map(str::to_string)`, reusing `to`'s buffer.
fn refill_opt(to: &mut Option<String>, text: Option<&str>) {
    match (to.as_mut(), text) {
        (Some(t), Some(new)) => refill(t, Some(new)),
        (None, Some(new)) => *to = Some(new.to_string()),
        (_, None) => *to = None,
    }
}
