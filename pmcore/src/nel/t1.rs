//! T1 of a NeL file: read, re-write, compare. The verdict is `pass` when every byte was
//! typed and the re-write is identical, `degraded` when it is identical but some runs
//! stayed opaque (each run named with its offset and why), `fail` when the head is not NeL
//! (`nel-parse`) or the re-write differs (`nel-roundtrip`, with the first offset).

use super::{round_trip, RoundTrip};
use crate::verify::diff::first_mismatch;
use crate::verify::{DegradedClass, Mismatch, StreamVerdict, Verdict};

/// Stream name of the NeL T1 verdict.
pub const STREAM: &str = "nel";

/// Runs the NeL round trip on `bytes`; the [`RoundTrip`] is there when the head was read.
pub fn run(bytes: &[u8]) -> (Option<RoundTrip>, StreamVerdict) {
    let rt = match round_trip(bytes) {
        Ok(rt) => rt,
        Err(e) => {
            let verdict = Verdict::Fail(Mismatch {
                kind: "nel-parse".into(),
                chunk_path: e.path.clone(),
                offset: e.offset as u64,
                message: e.to_string(),
                ..Default::default()
            });
            return (None, StreamVerdict { stream: STREAM.into(), verdict });
        }
    };
    let verdict = if rt.first_difference.is_some() {
        let parsed = super::read(bytes).map(|p| super::write(&p.file)).unwrap_or_default();
        let m = first_mismatch(&rt.class, "nel-roundtrip", bytes, &parsed, None);
        Verdict::Fail(m.unwrap_or_default())
    } else if rt.opaque_runs.is_empty() {
        Verdict::pass()
    } else {
        let classes = rt
            .opaque_runs
            .iter()
            .map(|(offset, len, why)| DegradedClass {
                class_id: [0, 0],
                superclass: 0,
                name: rt.class.clone(),
                reason: format!("{len} bytes opaque: {why}"),
                chunk_path: format!("{}@{offset}", rt.class),
            })
            .collect();
        Verdict::Degraded { classes }
    };
    (Some(rt), StreamVerdict { stream: STREAM.into(), verdict })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nel::skel::{Bone, Skeleton};

    #[test]
    fn a_written_skeleton_passes_and_foreign_bytes_fail_with_a_parse_kind() {
        let bytes = crate::nel::skel::write(&Skeleton::build(vec![Bone::new("Bip01")]));
        let (rt, v) = run(&bytes);
        assert_eq!(v.verdict, Verdict::pass());
        assert_eq!(rt.unwrap().typed_bytes, bytes.len());
        let (rt, v) = run(b"not nel at all");
        assert!(rt.is_none());
        assert!(matches!(v.verdict, Verdict::Fail(m) if m.kind == "nel-parse"));
    }

    #[test]
    fn an_untyped_tail_is_degraded_with_its_offset() {
        let mut bytes = crate::nel::skel::write(&Skeleton::build(vec![Bone::new("Bip01")]));
        bytes.push(7);
        let (rt, v) = run(&bytes);
        let rt = rt.unwrap();
        assert_eq!(rt.first_difference, None);
        let Verdict::Degraded { classes } = v.verdict else { panic!("{v:?}") };
        assert_eq!(classes[0].chunk_path, "CSkeletonShape@30");
        assert!(classes[0].reason.contains("trailing"));
    }
}
