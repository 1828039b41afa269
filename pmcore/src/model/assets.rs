//! The asset table Max writes beside the scene (`FileAssetMetaData3`, older
//! `FileAssetMetaData2`; absent before Max 2010), read-only. Layout, measured on the real
//! corpora (public, wild, pairs; 117 files carry one): a sequence of records, each a 16-byte
//! asset GUID, then length-prefixed UTF-16 strings (`u32` unit count, the units, one NUL
//! unit): the asset type (`Bitmap`, `XRef`, `Sound`, `Photometric`, `ExternalLink`,
//! `Other`) and the file path; version 3 adds a second path (where the file was found
//! at save time). Every read is bounds-checked; a record that does not fit ends the table
//! and is reported.

/// Stream names, newest first, with the number of paths per record.
pub(crate) const ASSET_STREAMS: [(&str, usize); 2] = [("FileAssetMetaData3", 2), ("FileAssetMetaData2", 1)];

/// One asset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Asset {
    /// The asset's GUID as stored (16 bytes): objects that use the asset store it, not the path.
    pub guid: [u8; 16],
    /// Asset type as written (`Bitmap`, …).
    pub kind: String,
    /// File path as written.
    pub path: String,
}

impl Asset {
    /// The file name without folders (`\` or `/` separated).
    pub(crate) fn file_name(&self) -> &str {
        self.path.rsplit(['\\', '/']).next().unwrap_or(&self.path)
    }
}

/// The table, and the offset where reading stopped early (`None` when every byte was read).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct AssetTable {
    /// Assets in stored order.
    pub assets: Vec<Asset>,
    /// Offset of a trailing record that did not fit, if any.
    pub stopped_at: Option<usize>,
}

fn string(data: &[u8], at: usize) -> Option<(String, usize)> {
    let units = u32::from_le_bytes(data.get(at..at.checked_add(4)?)?.try_into().ok()?) as usize;
    let start = at + 4;
    let end = start.checked_add(units.checked_mul(2)?)?.checked_add(2)?;
    let slot = data.get(start..end)?;
    let text = packed_ascii(slot, units).unwrap_or_else(|| super::utf16(&slot[..units * 2]));
    Some((text, end))
}

/// An 8-bit name stored in a UTF-16 slot, as Max 2013 writes it when it saves as Max 2010
/// (`wild/erbolvov1989__1.max`, `FileAssetMetaData2`: `05 00 00 00` then
/// `REFMAP.GIF 00 00`, and `06 00 00 00` then `GRYCON3.JPG 00 00 00`): the unit count is
/// the ASCII length halved, rounded up, and the slot (units and the NUL unit) holds the
/// ASCII bytes then NULs only. Real UTF-16 names never match: a path or type holds at
/// least one ASCII character (`.`, `:`, `\`), whose high byte is a NUL before the end.
/// The pattern is an 8-bit path held as wide characters (Max 2013 converting an older scene);
/// the name meant is the 8-bit one (`REFMAP.GIF`, `GRYCON3.JPG`).
fn packed_ascii(slot: &[u8], units: usize) -> Option<String> {
    let len = slot.iter().position(|&b| b == 0)?;
    let fits = len >= 2
        && units == len.div_ceil(2)
        && slot[..len].iter().all(|b| (0x20..=0x7E).contains(b))
        && slot[len..].iter().all(|&b| b == 0);
    fits.then(|| slot[..len].iter().map(|&b| char::from(b)).collect())
}

/// Reads a table with `paths` paths per record.
pub(crate) fn read(data: &[u8], paths: usize) -> AssetTable {
    let mut table = AssetTable::default();
    let mut at = 0;
    while at < data.len() {
        let record = (|| {
            let guid: [u8; 16] = data.get(at..at.checked_add(16)?)?.try_into().ok()?;
            let (kind, mut next) = string(data, at.checked_add(16)?)?;
            let (path, after) = string(data, next)?;
            next = after;
            for _ in 1..paths {
                next = string(data, next)?.1;
            }
            Some((Asset { guid, kind, path }, next))
        })();
        match record {
            Some((asset, next)) => {
                table.assets.push(asset);
                at = next;
            }
            None => {
                table.stopped_at = Some(at);
                break;
            }
        }
    }
    table
}

/// The asset table of a file, from the newest stream present.
pub(crate) fn of(file: &crate::MaxFile) -> Option<AssetTable> {
    ASSET_STREAMS.iter().find_map(|(name, paths)| {
        let i = file.index_of(name)?;
        let data = file.data(i).ok()?;
        Some(read(data, *paths))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(text: &str, out: &mut Vec<u8>) {
        out.extend((text.encode_utf16().count() as u32).to_le_bytes());
        text.encode_utf16().chain([0]).for_each(|u| out.extend(u.to_le_bytes()));
    }

    #[test]
    fn reads_both_versions_and_stops_on_a_short_record() {
        let mut v3 = vec![7; 16];
        s("Bitmap", &mut v3);
        s("C:\\maps\\BARK5.JPG", &mut v3);
        s("D:\\found\\BARK5.JPG", &mut v3);
        let t = read(&v3, 2);
        assert_eq!(t.assets.len(), 1);
        assert_eq!((t.assets[0].kind.as_str(), t.assets[0].file_name()), ("Bitmap", "BARK5.JPG"));
        assert_eq!(t.assets[0].guid, [7; 16]);
        assert_eq!(t.stopped_at, None);
        v3.extend([1, 2, 3]);
        assert_eq!(read(&v3, 2).stopped_at, Some(v3.len() - 3));
        assert_eq!(read(&[0xFF; 40], 1).assets, vec![]);
    }

    /// The two records of `wild/erbolvov1989__1.max` (`FileAssetMetaData2`, GUIDs shortened).
    #[test]
    fn reads_ascii_names_packed_in_utf16_slots() {
        let mut v2 = vec![1; 16];
        s("Bitmap", &mut v2);
        v2.extend([5, 0, 0, 0]);
        v2.extend(b"REFMAP.GIF\0\0");
        v2.extend([2; 16]);
        s("Bitmap", &mut v2);
        v2.extend([6, 0, 0, 0]);
        v2.extend(b"GRYCON3.JPG\0\0\0");
        let t = read(&v2, 1);
        assert_eq!(t.stopped_at, None);
        let names: Vec<&str> = t.assets.iter().map(|a| a.path.as_str()).collect();
        assert_eq!(names, ["REFMAP.GIF", "GRYCON3.JPG"]);
        assert_eq!(t.assets[1].kind, "Bitmap");
        // A real UTF-16 name of the same length stays UTF-16.
        let mut real = vec![3; 16];
        s("Bitmap", &mut real);
        s("A.GIF", &mut real);
        assert_eq!(read(&real, 1).assets[0].path, "A.GIF");
    }
}
