//! The worker's edge: pmcore's verdicts and facts as the contract's types (`pmschema`). The
//! contract depends on no workspace crate, so the wire form is pmschema's alone and pmcore
//! can change its own types without changing a byte on the wire; this is the one place the
//! two meet. Every conversion names every field on both sides (no `..`), so a field added
//! to either side does not compile until it is mapped here.

use crate::events;
use pmcore::facts::StreamFacts;
use pmcore::input::LfsPointer;
use pmcore::verify::{DegradedClass, Mismatch, Verdict};
use pmcore::StreamKind;

/// A pmcore value in the contract's type of the same meaning.
pub trait ToWire {
    /// The contract's type.
    type Wire;
    /// The value as the events carry it.
    fn to_wire(self) -> Self::Wire;
}

impl ToWire for Verdict {
    type Wire = events::Verdict;
    fn to_wire(self) -> events::Verdict {
        match self {
            Verdict::Pass { note } => events::Verdict::Pass { note },
            Verdict::Fail(m) => events::Verdict::Fail(m.to_wire()),
            Verdict::Normalized { reason } => events::Verdict::Normalized { reason },
            Verdict::Degraded { classes } => {
                events::Verdict::Degraded { classes: classes.into_iter().map(ToWire::to_wire).collect() }
            }
            Verdict::Skip { reason } => events::Verdict::Skip { reason },
        }
    }
}

impl ToWire for Mismatch {
    type Wire = events::Mismatch;
    fn to_wire(self) -> events::Mismatch {
        let Mismatch { kind, chunk_path, offset, expected_hex, actual_hex, window_start, message } = self;
        events::Mismatch { kind, chunk_path, offset, expected_hex, actual_hex, window_start, message }
    }
}

impl ToWire for DegradedClass {
    type Wire = events::DegradedClass;
    fn to_wire(self) -> events::DegradedClass {
        let DegradedClass { class_id, superclass, name, reason, chunk_path } = self;
        events::DegradedClass { class_id, superclass, name, reason, chunk_path }
    }
}

impl ToWire for StreamFacts {
    type Wire = events::StreamFacts;
    fn to_wire(self) -> events::StreamFacts {
        let StreamFacts { name, bytes, decoded_bytes, compression, kind, headers_6, headers_14, max_depth, note } =
            self;
        events::StreamFacts {
            name,
            bytes,
            decoded_bytes,
            compression,
            kind: kind.to_wire(),
            headers_6,
            headers_14,
            max_depth: max_depth as u64,
            note,
        }
    }
}

impl ToWire for StreamKind {
    type Wire = events::StreamKind;
    fn to_wire(self) -> events::StreamKind {
        match self {
            StreamKind::Chunks => events::StreamKind::Chunks,
            StreamKind::Opaque => events::StreamKind::Opaque,
            StreamKind::Empty => events::StreamKind::Empty,
        }
    }
}

impl ToWire for LfsPointer {
    type Wire = events::LfsPointer;
    fn to_wire(self) -> events::LfsPointer {
        let LfsPointer { oid, size } = self;
        events::LfsPointer { oid, size }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The mapped value serializes to the very JSON pmcore's value does: the wire format
    /// did not change when the contract stopped depending on pmcore.
    fn same_json<T: ToWire + serde::Serialize + Clone>(value: T)
    where
        T::Wire: serde::Serialize + serde::de::DeserializeOwned,
    {
        let core: Value = serde_json::to_value(value.clone()).unwrap();
        let wire: Value = serde_json::to_value(value.to_wire()).unwrap();
        assert_eq!(core, wire);
        let back: T::Wire = serde_json::from_value(core.clone()).unwrap();
        assert_eq!(serde_json::to_value(back).unwrap(), core, "the contract reads what pmcore writes");
    }

    #[test]
    fn every_mapped_value_keeps_its_json() {
        let mismatch = Mismatch {
            kind: "chunk-roundtrip".into(),
            chunk_path: "Scene/0x2021/[3]0x0100".into(),
            offset: 17,
            expected_hex: "00 01".into(),
            actual_hex: "00 02".into(),
            window_start: 16,
            message: "differs".into(),
        };
        let degraded = DegradedClass {
            class_id: [0x1, 0x2],
            superclass: 0x10,
            name: "Box".into(),
            reason: "surprise".into(),
            chunk_path: "Scene/0x2021/[1]".into(),
        };
        for v in [
            Verdict::pass(),
            Verdict::Pass { note: Some("empty stream".into()) },
            Verdict::Fail(mismatch.clone()),
            Verdict::Normalized { reason: "r".into() },
            Verdict::Degraded { classes: vec![degraded.clone()] },
            Verdict::Skip { reason: "no-reference".into() },
        ] {
            same_json(v);
        }
        same_json(mismatch);
        same_json(degraded);
        for (kind, note) in
            [(StreamKind::Chunks, None), (StreamKind::Opaque, Some("x".into())), (StreamKind::Empty, None)]
        {
            same_json(kind);
            same_json(StreamFacts {
                name: "Scene".into(),
                bytes: 10,
                decoded_bytes: 20,
                compression: "gzip".into(),
                kind,
                headers_6: 1,
                headers_14: 2,
                max_depth: 3,
                note,
            });
        }
        same_json(LfsPointer { oid: Some("sha256:ab".into()), size: Some(3) });
        same_json(LfsPointer::default());
    }
}
