//! THE whitelist of intended normalizations: the only differences a typed rebuild may
//! introduce. Anything not listed here that changes a byte is a T2 failure. Adding an
//! entry needs the same entry in `docs/normalizations.md`, in the same commit.

use crate::chunk::{Body, Chunk};

/// An AppData (0x2150) container with zero entries is not re-emitted (design §5).
/// Never observed in the public corpus.
pub const EMPTY_APPDATA_DROPPED: &str = "AppData with zero entries is dropped";

/// Every whitelisted normalization.
pub const WHITELIST: &[&str] = &[EMPTY_APPDATA_DROPPED];

/// The Scene tree as it should look after the whitelisted normalizations: every object's
/// direct 0x2150 child that holds no 0x0110 entry is removed. T2 compares a rebuild that
/// applied normalizations against these bytes (written by the chunk layer, not by the
/// typed model) and reports `normalized` only when they match.
pub fn expected_scene<'a>(tree: &[Chunk<'a>]) -> Vec<Chunk<'a>> {
    let mut out = tree.to_vec();
    if let Some(Body::Container(objects)) = out.first_mut().map(|root| &mut root.body) {
        for object in objects.iter_mut() {
            if let Body::Container(parts) = &mut object.body {
                parts.retain(|c| !(c.id == super::appdata::APPDATA && is_empty_appdata(c)));
            }
        }
    }
    out
}

fn is_empty_appdata(c: &Chunk<'_>) -> bool {
    c.is_container() && !c.children().iter().any(|e| e.id == super::appdata::ENTRY)
}
