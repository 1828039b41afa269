//! What a worker checks on each file, decided once: the tiers, and the exporters T3 runs.
//! Two rules make the decision, and both live here only:
//!
//! - **an exporter implies `t3`**: an exporter runs only to be checked, so naming one adds
//!   `t3` to the tiers (what is recorded and gated then matches the results emitted);
//! - **the default exporters**: with `t3` and no exporter named, the set of the
//!   [`Invocation`] — `summary` for a farm run, the worker's own set for a worker run by
//!   hand.
//!
//! [`Checks::asked`] applies both to what a command line gave, once. The farm records the
//! value (journal, `summary.json`'s `options.work`) and hands it on as the worker's command
//! line ([`Checks::worker_args`]); the worker reads that line into the same type with the
//! same function (an exporter is then named, so no default applies twice), and so does the
//! farm's in-process mode, from the value itself.

use crate::names::{ExportKind, Tier};
use serde::{Deserialize, Serialize};

/// Who asked for the checks: decides the exporters T3 runs when none is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `pmfarm run`: `summary` only. Its reference, Max's document summary, is inside every
    /// `.max`, so a farm run's T3 says something without reference folders.
    Farm,
    /// `pmworker FILE` (or `pmfarm worker FILE`) run by hand: `obj`, `skel`, `summary`, then
    /// `shape` beside a NeL corpus and `pairs` beside a pairs manifest.
    Worker(ReferenceFolders),
}

/// What the worker's `--reference` folders hold, as far as its default exporters care
/// (the worker looks; this crate does no I/O).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReferenceFolders {
    /// One of them holds a `manifest.tsv` (a pairs folder, or a NeL corpus): `pairs` runs.
    pub manifest: bool,
    /// One of them is a NeL corpus (a `manifest.tsv` beside a `shape/` folder): `shape` runs.
    pub nel_corpus: bool,
}

impl Invocation {
    /// The exporters T3 runs when none is named, in the order they run.
    pub fn default_exports(self) -> Vec<ExportKind> {
        match self {
            Invocation::Farm => vec![ExportKind::Summary],
            Invocation::Worker(folders) => {
                let mut kinds = vec![ExportKind::Obj, ExportKind::Skel, ExportKind::Summary];
                if folders.nel_corpus {
                    kinds.push(ExportKind::Shape);
                }
                if folders.manifest {
                    kinds.push(ExportKind::Pairs);
                }
                kinds
            }
        }
    }
}

/// The tiers and exporters to run on each file. Built by [`Checks::asked`] (or read back
/// as a run recorded it), so its tiers hold `t3` whenever it names an exporter.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Checks {
    /// Tiers, in the order asked (`t3` added last when an exporter implied it).
    tiers: Vec<Tier>,
    /// Exporters, in the order named, or the invocation's default set.
    exports: Vec<ExportKind>,
}

impl Checks {
    /// What `tiers` and `exports` from a command line of `invocation` ask for: the only
    /// place where an exporter implies `t3`, and where T3 without one gets the default set.
    pub fn asked(tiers: &[Tier], exports: &[ExportKind], invocation: Invocation) -> Checks {
        let mut tiers = tiers.to_vec();
        if !exports.is_empty() && !tiers.contains(&Tier::T3) {
            tiers.push(Tier::T3);
        }
        let exports = if exports.is_empty() && tiers.contains(&Tier::T3) {
            invocation.default_exports()
        } else {
            exports.to_vec()
        };
        Checks { tiers, exports }
    }

    /// The tiers to run.
    pub fn tiers(&self) -> &[Tier] {
        &self.tiers
    }

    /// Whether `tier` runs.
    pub fn runs(&self, tier: Tier) -> bool {
        self.tiers.contains(&tier)
    }

    /// The exporters T3 runs, in the order named.
    pub fn exports(&self) -> &[ExportKind] {
        &self.exports
    }

    /// The worker's command line for these checks (before any `--reference`): `--tiers`,
    /// then `--export` when an exporter is named. The worker reads it back with
    /// [`Checks::asked`] into the same value.
    pub fn worker_args(&self) -> Vec<String> {
        let mut args = vec!["--tiers".to_string(), join(&self.tiers, Tier::name)];
        if !self.exports.is_empty() {
            args.push("--export".into());
            args.push(join(&self.exports, ExportKind::name));
        }
        args
    }
}

fn join<T: Copy>(items: &[T], name: fn(T) -> &'static str) -> String {
    items.iter().map(|&i| name(i)).collect::<Vec<_>>().join(",")
}

#[cfg(test)]
mod tests {
    use super::*;
    use ExportKind::*;
    use Tier::*;

    const HAND: Invocation = Invocation::Worker(ReferenceFolders { manifest: false, nel_corpus: false });

    #[test]
    fn an_exporter_implies_t3_added_last() {
        let c = Checks::asked(&[T1], &[Obj], HAND);
        assert_eq!((c.tiers(), c.exports()), (&[T1, T3][..], &[Obj][..]));
        let c = Checks::asked(&[T3, T1], &[Skel], Invocation::Farm);
        assert_eq!(c.tiers(), [T3, T1], "t3 already asked stays where it was");
        assert!(c.runs(T3) && !c.runs(T2));
    }

    #[test]
    fn without_t3_nothing_is_exported() {
        for invocation in [Invocation::Farm, HAND] {
            let c = Checks::asked(&[T1, T2], &[], invocation);
            assert_eq!((c.tiers(), c.exports()), (&[T1, T2][..], &[][..]));
            assert_eq!(c.worker_args(), ["--tiers", "t1,t2"]);
        }
    }

    #[test]
    fn t3_alone_gets_the_default_set_of_its_invocation() {
        assert_eq!(Checks::asked(&[T1, T2, T3], &[], Invocation::Farm).exports(), [Summary]);
        assert_eq!(Checks::asked(&[T3], &[], HAND).exports(), [Obj, Skel, Summary]);
        let nel = Invocation::Worker(ReferenceFolders { manifest: true, nel_corpus: true });
        assert_eq!(Checks::asked(&[T3], &[], nel).exports(), [Obj, Skel, Summary, Shape, Pairs]);
        let pairs = Invocation::Worker(ReferenceFolders { manifest: true, nel_corpus: false });
        assert_eq!(Checks::asked(&[T3], &[], pairs).exports(), [Obj, Skel, Summary, Pairs]);
        assert_eq!(Checks::asked(&[T3], &[Pairs, Obj], pairs).exports(), [Pairs, Obj], "named: as named");
    }

    /// What the farm decides, the worker reads back unchanged from the command line it is
    /// given, whatever its own reference folders hold.
    #[test]
    fn the_worker_reads_the_farms_checks_back_unchanged() {
        let nel = Invocation::Worker(ReferenceFolders { manifest: true, nel_corpus: true });
        for (tiers, exports) in [(&[T1, T2, T3][..], &[][..]), (&[T1][..], &[Obj, Pairs][..]), (&[T2][..], &[][..])] {
            let farm = Checks::asked(tiers, exports, Invocation::Farm);
            let args = farm.worker_args();
            let parse = |flag: &str| args.iter().position(|a| a == flag).map(|i| args[i + 1].clone());
            let tiers: Vec<Tier> = parse("--tiers").unwrap().split(',').map(|t| t.parse().unwrap()).collect();
            let exports: Vec<ExportKind> =
                parse("--export").map(|e| e.split(',').map(|x| x.parse().unwrap()).collect()).unwrap_or_default();
            assert_eq!(Checks::asked(&tiers, &exports, nel), farm, "{args:?}");
        }
    }

    /// Recorded as `{"tiers": […], "exports": […]}`: the `work` options of journals and
    /// `summary.json` keep their form.
    #[test]
    fn recorded_form() {
        let c = Checks::asked(&[T1, T2, T3], &[], Invocation::Farm);
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json, serde_json::json!({ "tiers": ["t1", "t2", "t3"], "exports": ["summary"] }));
        assert_eq!(serde_json::from_value::<Checks>(json).unwrap(), c);
    }
}
