//! The names the worker, the farm and their files share: each enum has one table of
//! stable names, and serde, clap (`ValueEnum`) and `FromStr` all read that table, so no
//! code spells or parses these names by hand.

use std::fmt;

/// A name that is not one of an enum's stable names.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {what} `{given}` (expected one of {expected})")]
pub struct UnknownName {
    /// What was being parsed (`tier`, `exporter`, …).
    pub what: &'static str,
    /// The name given.
    pub given: String,
    /// The accepted names, comma-separated.
    pub expected: String,
}

/// Defines a fieldless enum whose variants each carry one stable name, with `ALL`,
/// `name()`, `Display`, `FromStr`, serde (as the name) and `clap::ValueEnum`.
macro_rules! named_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident ($what:literal) {
            $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
        }

        impl $name {
            /// Every variant, in declaration order.
            pub const ALL: [$name; [$($text),+].len()] = [$($name::$variant,)+];

            /// The stable name, as written in every output and accepted on every command line.
            pub const fn name(self) -> &'static str {
                match self {
                    $( $name::$variant => $text, )+
                }
            }

            /// Every stable name, comma-separated (for messages).
            pub fn names() -> String {
                Self::ALL.iter().map(|v| v.name()).collect::<Vec<_>>().join(", ")
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }

        impl std::str::FromStr for $name {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<Self, UnknownName> {
                let given = s.trim();
                Self::ALL.iter().copied().find(|v| v.name() == given).ok_or_else(|| UnknownName {
                    what: $what,
                    given: given.to_string(),
                    expected: Self::names(),
                })
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = <std::borrow::Cow<'de, str> as serde::Deserialize>::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }

        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::ALL
            }
            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                Some(clap::builder::PossibleValue::new(self.name()))
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.name() == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.name() == *other
            }
        }
    };
}

named_enum! {
    /// Tier of a verdict.
    pub enum Tier ("tier") {
        /// Chunk layer and envelope round trip.
        T1 = "t1",
        /// Typed model round trip.
        T2 = "t2",
        /// Exports against reference outputs.
        T3 = "t3",
    }
}

named_enum! {
    /// A worker exporter (`--export`), and the `stream` of its T3 verdicts. Which run when
    /// none is named: [`crate::work::Invocation::default_exports`].
    pub enum ExportKind ("exporter") {
        /// Evaluated meshes as Wavefront OBJ.
        Obj = "obj",
        /// Base objects without their modifier stacks, as OBJ.
        ObjBase = "obj-base",
        /// The biped rig as a NeL `.skel`.
        Skel = "skel",
        /// Max's scene summary derived from the typed model, against the file's own property set.
        Summary = "summary",
        /// The file against what 3ds Max itself exported (pairs folders, `pmref`).
        Pairs = "pairs",
        /// Evaluated meshes as NeL `CMesh` shapes, against the NeL exporter's own (`nel-shape`).
        Shape = "shape",
        /// The scene's animation as a NeL `.anim`, against the FBX curves and the real `.anim`
        /// conventions (`nel-anim`).
        Anim = "anim",
    }
}

named_enum! {
    /// Overall verdict of a worker that reached its `end` event.
    pub enum EndStatus ("end status") {
        /// Every tier passed (normalized/degraded count as passing).
        Pass = "pass",
        /// A tier failed, an exporter errored, or the input is corrupt.
        Fail = "fail",
        /// Nothing to check (LFS pointer, empty, not OLE); `reason` says which.
        Skip = "skip",
    }
}

named_enum! {
    /// Outcome of one exporter (`export.status`).
    pub enum ExportStatus ("export status") {
        /// Output written.
        Ok = "ok",
        /// The file has nothing this exporter exports (no rig for `skel`, …).
        NotApplicable = "not-applicable",
        /// The file holds something this exporter does not handle yet.
        NotImplemented = "not-implemented",
        /// The exporter failed; `summary.error` says where.
        Error = "error",
    }
}

named_enum! {
    /// Terminal status of one file in the farm: exactly one per enumerated file.
    #[derive(Default)]
    pub enum Status ("status") {
        /// The worker ended with `end.status = pass` and exit 0.
        Pass = "pass",
        /// The worker ended with `end.status = fail` and exit 1; `fail_kinds` says why.
        Fail = "fail",
        /// Killed by a signal, panicked, exited oddly, or its stream had no `end`. The default,
        /// so a result nobody classified can never read as a pass.
        #[default]
        Crash = "crash",
        /// Killed by the farm at the hard or the no-output time limit.
        Timeout = "timeout",
        /// Killed by the memory cap, or aborted with Rust's allocation-failure message.
        Oom = "oom",
        /// Nothing to check (`lfs-pointer`, `empty`, `not-ole`); `reason` says which.
        Skip = "skip",
        /// The farm could not run the worker or the worker could not read the file (exit 2).
        InfraError = "infra-error",
    }
}

named_enum! {
    /// Cause class of a T3 miss (a fail or a skip): `docs/triage.md` has the rule of each
    /// and the real file that shows it. `unexplained` is the one that means "look at this".
    pub enum TriageClass ("triage class") {
        /// The reference was written from another state of the scene, with evidence.
        EraMismatch = "era-mismatch",
        /// The miss sits under a class pmcore does not evaluate (named with its Class ID).
        Unsupported = "unsupported",
        /// The node is driven by an IK solve that is not implemented.
        Ik = "ik",
        /// The written file follows a rule of the exporter pmfarm reproduces (NeL's), and agrees
        /// with the reference once that rule is undone.
        ExporterRule = "exporter-rule",
        /// The reference could not be read.
        ReferenceUnreadable = "reference-unreadable",
        /// A skip: the reference does not carry what this comparison checks.
        NotApplicable = "not-applicable",
        /// A skip: no reference was found for this file.
        ReferenceAbsent = "reference-absent",
        /// A numeric miss just beyond the comparison's tolerance.
        Tolerance = "tolerance",
        /// Everything else.
        Unexplained = "unexplained",
    }
}

impl Status {
    /// Parses a stable name.
    pub fn from_name(name: &str) -> Option<Status> {
        name.parse().ok()
    }

    /// True for statuses where the worker did not reach a verdict (crash, timeout, oom, infra-error).
    pub fn is_abnormal(self) -> bool {
        matches!(self, Status::Crash | Status::Timeout | Status::Oom | Status::InfraError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    fn round_trip<T>(all: &[T])
    where
        T: Copy
            + fmt::Display
            + std::str::FromStr
            + serde::Serialize
            + serde::de::DeserializeOwned
            + PartialEq
            + fmt::Debug
            + ValueEnum,
    {
        for v in all {
            let name = v.to_string();
            assert_eq!(serde_json::to_string(v).unwrap(), format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&format!("\"{name}\"")).unwrap(), *v);
            assert!(matches!(name.parse::<T>(), Ok(p) if p == *v));
            assert_eq!(<T as ValueEnum>::from_str(&name, false).unwrap(), *v, "clap reads the same name");
        }
    }

    #[test]
    fn every_name_is_the_same_for_serde_clap_and_from_str() {
        round_trip(&Tier::ALL);
        round_trip(&ExportKind::ALL);
        round_trip(&TriageClass::ALL);
        round_trip(&EndStatus::ALL);
        round_trip(&ExportStatus::ALL);
        round_trip(&Status::ALL);
    }

    #[test]
    fn pinned_names() {
        assert_eq!(Tier::names(), "t1, t2, t3");
        assert_eq!(ExportKind::names(), "obj, obj-base, skel, summary, pairs, shape, anim");
        assert_eq!(ExportStatus::names(), "ok, not-applicable, not-implemented, error");
        assert_eq!(Status::names(), "pass, fail, crash, timeout, oom, skip, infra-error");
    }

    #[test]
    fn an_unknown_name_says_what_is_accepted() {
        let e = "t9".parse::<Tier>().unwrap_err();
        assert_eq!(e.to_string(), "unknown tier `t9` (expected one of t1, t2, t3)");
        assert!(serde_json::from_str::<ExportKind>("\"fbx\"").is_err());
    }
}
