//! T2 in the worker: the typed-model round trip of every chunk stream, plus the class
//! inventory event.

use crate::emit::Sink;
use crate::events::Breadcrumb;
use pmcore::verify::{StreamVerdict, Verdict};
use pmcore::MaxFile;

/// T2 slot: until the typed model lands every chunk stream reports `skip` with that reason,
/// so a run can never read as a T2 pass it did not earn.
pub fn run(file: &MaxFile, sink: &mut dyn Sink) -> Vec<StreamVerdict> {
    file.streams
        .iter()
        .filter(|s| s.kind == pmcore::StreamKind::Chunks)
        .map(|s| {
            sink.breadcrumb(Breadcrumb { tier: "t2".into(), stream: s.name.clone(), ..Default::default() });
            StreamVerdict { stream: s.name.clone(), verdict: Verdict::Skip { reason: "typed model not built".into() } }
        })
        .collect()
}
