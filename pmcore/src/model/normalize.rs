//! THE whitelist of intended normalizations: the only differences a typed rebuild may
//! introduce. Anything not listed here that changes a byte is a T2 failure. Adding an
//! entry needs the same entry in `docs/normalizations.md`, in the same commit.

use crate::chunk::{Body, Chunk};

/// An AppData (0x2150) container with zero entries is not re-emitted (design §5).
/// Never observed in the public corpus.
pub(crate) const EMPTY_APPDATA_DROPPED: &str = "AppData with zero entries is dropped";

/// T1 envelope: the source directory listed its streams out of the CFB sort order (name
/// length in UTF-16 units, then upper-case code units), which only a damaged or hostile
/// file does; the rewrite lists the same streams, with the same bytes, in CFB order.
/// Found by the `ole_open` fuzz target (a NUL-padded name).
pub const DIRECTORY_RESORTED: &str = "OLE directory re-sorted into CFB order";

/// Every whitelisted normalization.
pub(crate) const WHITELIST: &[&str] = &[EMPTY_APPDATA_DROPPED, DIRECTORY_RESORTED];

/// True when `names` (root stream names, in directory order) follow the CFB sort order.
pub(crate) fn in_cfb_order(names: &[&str]) -> bool {
    let key = |n: &str| {
        let units: Vec<u16> = n.encode_utf16().map(|u| if (0x61..=0x7A).contains(&u) { u - 0x20 } else { u }).collect();
        (units.len(), units)
    };
    names.windows(2).all(|w| key(w[0]) <= key(w[1]))
}

/// The Scene tree as it should look after the whitelisted normalizations: every object's
/// direct 0x2150 child that holds no 0x0110 entry is removed. T2 compares a rebuild that
/// applied normalizations against these bytes (written by the chunk layer, not by the
/// typed model) and reports `normalized` only when they match.
pub fn expected_scene<'a>(tree: &[Chunk<'a>]) -> Vec<Chunk<'a>> {
    let mut out = tree.to_vec();
    if let Some(Body::Container(objects)) = out.first_mut().map(|root| &mut root.body) {
        for object in objects.iter_mut() {
            if let Body::Container(parts) = &mut object.body {
                parts.retain(|c| !(c.id == super::appdata_ids::APPDATA && is_empty_appdata(c)));
            }
        }
    }
    out
}

fn is_empty_appdata(c: &Chunk<'_>) -> bool {
    c.is_container() && !c.children().iter().any(|e| e.id == super::appdata_ids::ENTRY)
}
