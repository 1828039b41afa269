//! Which pmfarm workspace a `pmfarm` binary belongs to, and so which `gates/` and
//! `baselines/` it applies by default. The answer must not depend on the current folder
//! (a run checks the same rules from anywhere), and a copy of the binary that belongs to
//! no workspace must say so instead of silently running ungated.
//!
//! Order: `PMFARM_WORKSPACE` when set (and then only it); else the nearest ancestor of the
//! executable that is a pmfarm workspace (`target/debug/pmfarm`); else the workspace the
//! binary was built from (an installed copy, while its sources exist).

use crate::gates::GateSource;
use std::path::{Path, PathBuf};

/// Environment variable naming the pmfarm workspace explicitly.
pub const WORKSPACE_ENV: &str = "PMFARM_WORKSPACE";

/// The workspace this crate was compiled in (`pmfarm/..`).
fn build_workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map(Path::to_path_buf).unwrap_or_default()
}

/// A pmfarm workspace: a `Cargo.toml` with `[workspace]` next to the `pmfarm` crate.
pub fn is_farm_workspace(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
        && dir.join("pmfarm/Cargo.toml").is_file()
}

/// The workspace this binary belongs to, with how it was found (for messages).
pub fn farm_workspace() -> Result<PathBuf, String> {
    if let Some(dir) = std::env::var_os(WORKSPACE_ENV) {
        let dir = PathBuf::from(dir);
        return if is_farm_workspace(&dir) {
            Ok(dir)
        } else {
            Err(format!("{WORKSPACE_ENV}={} is not a pmfarm workspace", dir.display()))
        };
    }
    let exe = std::env::current_exe().ok().and_then(|p| p.canonicalize().ok());
    if let Some(found) = exe.as_deref().and_then(|e| e.ancestors().skip(1).find(|d| is_farm_workspace(d))) {
        return Ok(found.to_path_buf());
    }
    let built = build_workspace();
    if is_farm_workspace(&built) {
        return Ok(built);
    }
    Err(format!(
        "this pmfarm belongs to no workspace (not inside one, and {} it was built from is gone)",
        built.display()
    ))
}

/// The workspace every subcommand resolves its defaults against ([`farm_workspace`]),
/// else the current folder (a copy of the binary that belongs to no workspace).
pub fn workspace_root() -> PathBuf {
    farm_workspace().unwrap_or_else(|_| std::env::current_dir().unwrap_or_default())
}

/// The baselines folder of `run`, `merge`, `report` and `baseline`: `--baselines DIR`, else
/// `baselines/` of [`workspace_root`].
pub fn baselines_dir(explicit: Option<PathBuf>) -> PathBuf {
    explicit.unwrap_or_else(|| workspace_root().join("baselines"))
}

/// The gates a run applies: `--no-gates`, `--gates DIR`, or `gates/` of the workspace
/// the binary belongs to. Neither found is a configuration error telling what to pass.
pub fn gate_source(explicit: Option<&Path>, no_gates: bool) -> Result<GateSource, String> {
    if no_gates {
        return Ok(GateSource::Disabled);
    }
    if let Some(dir) = explicit {
        return Ok(GateSource::Dir(crate::enumerate::absolute(dir)));
    }
    match farm_workspace() {
        Ok(ws) if ws.join("gates").is_dir() => Ok(GateSource::Dir(ws.join("gates"))),
        Ok(ws) => Err(format!(
            "no gates folder: {} has no gates/; pass --gates DIR, or --no-gates to run without gates",
            ws.display()
        )),
        Err(why) => Err(format!("no gates folder: {why}; pass --gates DIR, or --no-gates to run without gates")),
    }
}
