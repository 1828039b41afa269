//! The worker → farm event contract, schema version 1: one JSON object per line on the
//! worker's stdout. This module is the only definition (`pmworker::events` re-exports it);
//! `pmfarm` reads the same types, and `docs/events.md` documents every event and field
//! with an example.
//!
//! Compatibility rule: adding an event or an optional field keeps schema 1; changing
//! or removing an existing field bumps [`SCHEMA_VERSION`].

pub use crate::exit::worker as exit;
pub use crate::names::{EndStatus, ExportKind, ExportStatus, Tier, TriageClass};
pub use crate::verdict::{DegradedClass, Mismatch, Verdict};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Version of this contract, carried by the `start` event.
pub const SCHEMA_VERSION: u32 = 1;

/// One line of worker output.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// First line: which file, which tool.
    Start(Start),
    /// What the input is and its shape (version, streams, compression, headers).
    Facts(Facts),
    /// Written before each risky step, so a hard crash leaves its location behind.
    Breadcrumb(Breadcrumb),
    /// One verdict per tier × stream (T3: per exporter).
    Result(TierResult),
    /// Classes seen in `Scene`, with typed / generic / degraded counts.
    Inventory(Inventory),
    /// Ryzom triage classes detected from the file's own content.
    Triage(Triage),
    /// One exporter's outcome.
    Export(Export),
    /// Last line of a worker that finished: the file's overall verdict.
    End(End),
    /// Emitted by the panic hook for a panic nothing caught, just before the process dies.
    Panic(PanicReport),
}

/// `start`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    /// Always [`SCHEMA_VERSION`].
    pub schema: u32,
    /// Path as given on the command line.
    pub path: String,
    /// File size in bytes.
    pub bytes: u64,
    /// SHA-256 of the file, lower-case hex.
    pub sha256: String,
    /// `pmworker <version>`.
    pub tool: String,
}

/// `facts`: fields after `input` appear only where they apply.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// `ole`, `lfs-pointer`, `empty`, `not-ole` or `corrupt-ole`.
    pub input: String,
    /// Scene root chunk id, `0x2021`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub root_id: Option<String>,
    /// `Max 2016`, or `unknown (0x….)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_version: Option<String>,
    /// Saving release from the document summary (`18.00`), `null` when absent.
    #[serde(default, skip_serializing_if = "is_not_ole")]
    pub saving_release: Option<String>,
    /// Release whose format the file was written in (`Saved As Version`, `22.00`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub saved_as: Option<String>,
    /// Build string from the document summary (`22.0.0.757`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<String>,
    /// Stream inventory in directory order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub streams: Vec<StreamFacts>,
    /// Root CLSID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clsid: Option<String>,
    /// 6-byte headers over all chunk streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_6: Option<u64>,
    /// 14-byte headers over all chunk streams.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers_14: Option<u64>,
    /// Compression schemes used (`none`, `gzip`, `zstd`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub compression: Vec<String>,
    /// For `lfs-pointer`: the pointer's oid and size.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lfs: Option<LfsPointer>,
    /// For `corrupt-ole`: what is broken.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// For `nel`: format, class and how many bytes were typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nel: Option<NelFacts>,
}

/// `facts.streams[]`: one stream of the container.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct StreamFacts {
    /// Stream name.
    pub name: String,
    /// Stored bytes.
    pub bytes: u64,
    /// Bytes after decompression.
    pub decoded_bytes: u64,
    /// Compression scheme name (`none`, `gzip`, `zstd`).
    pub compression: String,
    /// `chunks`, `opaque` or `empty`.
    pub kind: StreamKind,
    /// 6-byte headers in the tree.
    pub headers_6: u64,
    /// 14-byte headers in the tree.
    pub headers_14: u64,
    /// Deepest level of the tree.
    pub max_depth: u64,
    /// Why the stream is not a chunk tree (or could not be inflated), if it is not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// `facts.streams[].kind`: how a stream's content is understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StreamKind {
    /// Parses completely as a chunk tree.
    Chunks,
    /// Compared byte for byte through the container.
    Opaque,
    /// Zero bytes after decoding: valid, passes trivially.
    Empty,
}

/// `facts.lfs`: the fields of a Git-LFS pointer file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LfsPointer {
    /// `oid` line value, e.g. `sha256:826c…`.
    pub oid: Option<String>,
    /// Size of the real object in bytes.
    pub size: Option<u64>,
}

/// `facts.nel`: what a NeL file is and how much of it the reader typed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NelFacts {
    /// `skel`, `anim`, `shape` or `ig`.
    pub format: String,
    /// NeL class of the top object (`CMesh`, `CAnimation`, …).
    pub class: String,
    /// Bytes read as typed fields.
    pub typed_bytes: u64,
    /// Bytes kept as opaque runs (still re-written in place).
    pub opaque_bytes: u64,
}

fn is_not_ole(_: &Option<String>) -> bool {
    false
}

/// `breadcrumb`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breadcrumb {
    /// `t1`, `t2`, `t3`, `triage`, `export`, `open`.
    pub tier: String,
    /// Stream name, or exporter name for exports.
    pub stream: String,
    /// Chunk path when the step is narrower than a stream.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chunk_path: Option<String>,
    /// Class display name when the step is one object.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<String>,
}

/// `result`: the verdict fields (`verdict`, and `kind`/`chunk_path`/`offset`/… for a
/// fail, `reason` for normalized/skip, `classes` for degraded) sit at the top level.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TierResult {
    /// Which tier.
    pub tier: Tier,
    /// Stream (T1/T2) or exporter (T3).
    pub stream: String,
    /// The verdict, flattened.
    #[serde(flatten)]
    pub verdict: Verdict,
    /// Tier-specific counters (T3 field counters, ULP histogram, scale factor).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
    /// T3 only, on every verdict that is not a pass: why it missed (`docs/triage.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triage: Option<ResultTriage>,
}

/// The cause class of one T3 miss (a fail or a skip), with the evidence that decided it.
/// Decided by the worker's triage step (`pmref::triage`), one detector per class.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ResultTriage {
    /// The class.
    pub class: TriageClass,
    /// What decided it, checkable against the files (`missing_nodes`, `keys_absent`,
    /// `class_id`, `worst_delta` …); an object, empty for `unexplained`.
    #[serde(default)]
    pub evidence: serde_json::Value,
    /// One line saying why.
    #[serde(default)]
    pub message: String,
}

/// One class of the per-file inventory.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassCount {
    /// ClassId pair (a, b).
    pub class_id: [u32; 2],
    /// SuperClass id.
    pub superclass: u32,
    /// Display name.
    pub name: String,
    /// DLL file name (`Builtin`/`Script` for the special indices).
    pub dll: String,
    /// Scene objects of this class.
    pub count: u64,
    /// Of which decoded by the typed model (an exact typed class, or the Animatable /
    /// ReferenceMaker overlays of a typed superclass; `resolution` says which).
    pub typed: u64,
    /// Of which kept as generic objects.
    pub generic: u64,
    /// Of which degraded to raw after a decoder surprise.
    pub degraded: u64,
    /// How the class resolved: `exact`, `superclass` or `generic` (added in schema 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
}

/// `inventory`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Inventory {
    /// Classes seen in Scene.
    pub classes: Vec<ClassCount>,
    /// Share of Scene bytes regenerated from typed state (0–1).
    pub typed_coverage: f64,
}

/// A Map Extender hit: the explicit asset list the T3 caveats require.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MapExtHit {
    /// Node name whose modifier stack holds it (or `object #N` without a node tree).
    pub node: String,
    /// DLL file name of the class entry.
    pub dll: String,
    /// Class display name.
    pub class_name: String,
}

/// A NeL flare object.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlareHit {
    /// Node name (or `object #N`).
    pub node: String,
    /// `true`/`false` when ParamBlock2 param 45 could be read, else `"unread"`.
    pub first_flare_keep_size: serde_json::Value,
}

/// Biped systems and their figure era.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BipedInfo {
    /// Number of biped systems (0x9155 objects).
    pub systems: u64,
    /// Raw chunk 0x0115 value per system (3 = legacy, 0 = fresh), `null` when absent.
    pub figure_era: Vec<Option<i64>>,
}

/// A directory entry no Scene object instantiates (informational only).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnusedEntry {
    /// `dll` or `class`.
    pub directory: String,
    /// Entry name (DLL file name or class display name).
    pub name: String,
}

/// `triage`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Triage {
    /// Triage class slugs present (`mapext`, `flare`, `biped`, `header-mix`, `headers-64`,
    /// `gzip`, `zstd`; for unchecked inputs the input class: `lfs-pointer`, `empty`,
    /// `not-ole`, `corrupt-input`). See `docs/events.md`.
    pub classes: Vec<String>,
    /// Map Extender asset list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mapext: Vec<MapExtHit>,
    /// Flare objects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flare: Vec<FlareHit>,
    /// Biped systems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub biped: Option<BipedInfo>,
    /// Triage-relevant directory entries nobody uses (e.g. `biped.dlc` listed but unused).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unused_entries: Vec<UnusedEntry>,
}

/// `export`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Export {
    /// `obj`, `skel`.
    pub exporter: String,
    /// `ok`, `not-applicable`, `not-implemented`, `error`.
    pub status: ExportStatus,
    /// Files written (relative to the output directory).
    pub files: Vec<String>,
    /// SHA-256 over the written files in order (the export digest for baselines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Exporter-specific summary (counts).
    #[serde(default)]
    pub summary: serde_json::Value,
}

/// Counts of non-plain verdicts.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct EndCounts {
    /// Verdicts `pass`.
    pub pass: u64,
    /// Verdicts `fail`.
    pub fail: u64,
    /// Verdicts `normalized`.
    pub normalized: u64,
    /// Verdicts `degraded`.
    pub degraded: u64,
    /// Verdicts `skip`.
    pub skip: u64,
}

/// Everything that varies from run to run; never compared by baselines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Timing {
    /// Milliseconds per phase (`open`, `t1`, `t2`, `t3`, `export`).
    pub durations_ms: BTreeMap<String, u64>,
    /// Peak resident set size of the worker (from `getrusage`).
    pub peak_rss_bytes: u64,
}

/// `end`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {
    /// Overall verdict.
    pub status: EndStatus,
    /// Why (`lfs-pointer`, `empty`, `not-ole` for skips; first failure for fails).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Distinct failure kinds, sorted.
    pub fail_kinds: Vec<String>,
    /// Verdict counts.
    pub counts: EndCounts,
    /// Run-to-run varying measurements.
    pub timing: Timing,
}

/// `panic`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PanicReport {
    /// Panic message.
    pub message: String,
    /// `file:line:column`.
    pub location: Option<String>,
    /// Last breadcrumb written before the panic.
    pub last_breadcrumb: Option<Breadcrumb>,
}

impl Event {
    /// One JSON line (no trailing newline).
    pub fn to_line(&self) -> String {
        serde_json::to_string(self).expect("events always serialize")
    }

    /// Parses one line.
    ///
    /// Lines the worker wrote open with their tag (`{"event":"result",`, as [`Event::to_line`]
    /// writes them): those are read straight into the variant's struct, which skips the
    /// `event` key like any key it does not know. That is one pass instead of serde's two for
    /// an internally tagged enum (buffer the object, then read it again), and the farm reads
    /// every line of every worker. Any other line, one with a second `"event"`, or one the
    /// direct read refuses, takes the general path, so what is accepted and every error are
    /// the same as before.
    pub fn from_line(line: &str) -> Result<Event, serde_json::Error> {
        Self::from_tagged_line(line).map_or_else(|| serde_json::from_str(line), Ok)
    }

    fn from_tagged_line(line: &str) -> Option<Event> {
        let rest = line.strip_prefix(r#"{"event":""#)?;
        let (tag, after) = rest.split_once('"')?;
        // A second `"event"` anywhere (a repeated key, which serde refuses) is left to it.
        if !after.starts_with(',') || after.contains(r#""event""#) {
            return None;
        }
        let event = match tag {
            "start" => Event::Start(serde_json::from_str(line).ok()?),
            "facts" => Event::Facts(serde_json::from_str(line).ok()?),
            "breadcrumb" => Event::Breadcrumb(serde_json::from_str(line).ok()?),
            "result" => Event::Result(serde_json::from_str(line).ok()?),
            "inventory" => Event::Inventory(serde_json::from_str(line).ok()?),
            "triage" => Event::Triage(serde_json::from_str(line).ok()?),
            "export" => Event::Export(serde_json::from_str(line).ok()?),
            "end" => Event::End(serde_json::from_str(line).ok()?),
            "panic" => Event::Panic(serde_json::from_str(line).ok()?),
            _ => return None,
        };
        Some(event)
    }
}

#[cfg(test)]
mod tests {
    use super::Event;

    /// The tagged-line shortcut never accepts or reads differently what serde's general
    /// path does: the same value or the same refusal, line by line.
    #[test]
    fn the_shortcut_agrees_with_the_general_path() {
        let lines = [
            r#"{"event":"breadcrumb","tier":"t1","stream":"Scene"}"#,
            r#"{"tier":"t1","event":"breadcrumb","stream":"Scene"}"#,
            r#"{"event":"breadcrumb","tier":"t1"}"#,
            r#"{"event":"breadcrumb","tier":"t1","stream":"Scene","x":1}"#,
            r#"{"event":"result","tier":"t1","stream":"Scene","verdict":"pass"}"#,
            r#"{"event":"result","tier":"t1","stream":"Scene","verdict":"no-such-verdict"}"#,
            r#"{"event":"result","tier":"t9","stream":"Scene","verdict":"pass"}"#,
            r#"{"event":"nothing","tier":"t1"}"#,
            r#"{"event":"triage","classes":[]}"#,
            r#"{"event":"triage","classes":[]} trailing"#,
            r#"{"event":"end","status":"pass"}"#,
            r#"{"event":"breadcrumb"}"#,
            r#"{"event":"breadcrumb","event":"result","tier":"t1","stream":"S"}"#,
            r#"{"event":"breadcrumb","tier":"t1","stream":"S","event":"breadcrumb"}"#,
            r#"{"event":"breadcrumb","#,
            "",
        ];
        for line in lines {
            let general = serde_json::from_str::<Event>(line);
            match (Event::from_line(line), general) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{line}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{line}"),
                (a, b) => panic!("{line}: shortcut {a:?}, general {b:?}"),
            }
        }
    }
}
