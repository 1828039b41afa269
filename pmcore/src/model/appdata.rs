//! Animatable AppData (chunk 0x2150): per-plugin key → value blobs, where the NeL
//! export properties live. Entries stay in **file order** (real files are not sorted
//! by key); the count leaf is regenerated from the entries; an AppData left with no
//! entries is dropped on build — the one whitelisted normalization.
//!
//! Layout (digest §5.1): 0x0100 `u32` entry count, then per entry a 0x0110 container of
//! exactly [0x0120 key: `u32` ClassId.a, ClassId.b, SuperClassId, SubId, Size; 0x0130
//! value bytes].

use super::decode_state::{child_spans, Ctx, Span, Surprise};
use super::normalize;
use super::writer::{BuildError, Writer};
use crate::chunk::{Chunk, HeaderWidth};

pub(crate) use super::appdata_ids::{APPDATA, COUNT, ENTRY, KEY, VALUE};

/// Identity of one AppData entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AppDataKey {
    /// Owning plugin ClassId.
    pub class_id: [u32; 2],
    /// Owning plugin SuperClassId.
    pub superclass: u32,
    /// Property id within the plugin.
    pub sub_id: u32,
}

/// One entry, with the header widths of its three chunks.
#[derive(Clone, Debug, PartialEq)]
pub struct AppDataEntry {
    /// Key.
    pub key: AppDataKey,
    /// Value bytes (the key's Size field is regenerated from their length).
    pub value: Vec<u8>,
    widths: [HeaderWidth; 3],
}

/// A decoded AppData container.
#[derive(Clone, Debug, PartialEq)]
pub struct AppData {
    width: HeaderWidth,
    count_width: HeaderWidth,
    /// Entries in file order.
    pub entries: Vec<AppDataEntry>,
}

fn u32_at(p: &[u8], i: usize) -> u32 {
    u32::from_le_bytes([p[i], p[i + 1], p[i + 2], p[i + 3]])
}

impl AppData {
    /// Decodes an AppData container; any structural surprise (a missing or misplaced
    /// count, a count that disagrees, an entry not exactly [key, value], a key whose
    /// Size disagrees with its value, a duplicate key) degrades the owner.
    pub(crate) fn decode(c: &Chunk<'_>, span: Span, ctx: &mut Ctx<'_>) -> Result<AppData, Surprise> {
        let kids = c.children();
        if !c.is_container() {
            return Err(ctx.surprise("AppData 0x2150 is a leaf"));
        }
        let mut appdata = AppData { width: c.width, count_width: HeaderWidth::Short, entries: Vec::new() };
        let mut declared = 0u32;
        for (i, child, _) in child_spans(kids, span.end) {
            let step = ctx.steps.len();
            ctx.steps.push((i, child.id));
            let result = appdata.decode_child(i, child, &mut declared, ctx);
            ctx.steps.truncate(step);
            result?;
        }
        if declared as usize != appdata.entries.len() {
            return Err(
                ctx.surprise(format!("AppData count {declared} disagrees with {} entries", appdata.entries.len()))
            );
        }
        if appdata.entries.len() > 1 {
            let mut keys: Vec<AppDataKey> = appdata.entries.iter().map(|e| e.key).collect();
            keys.sort_unstable();
            if let Some(w) = keys.windows(2).find(|w| w[0] == w[1]) {
                return Err(ctx.surprise(format!("AppData holds key {:?} twice", w[0])));
            }
        }
        ctx.claims.claim(span);
        Ok(appdata)
    }

    fn decode_child(
        &mut self,
        i: usize,
        child: &Chunk<'_>,
        declared: &mut u32,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), Surprise> {
        if i == 0 {
            return match child.payload() {
                Some(p) if child.id == COUNT && p.len() == 4 => {
                    *declared = u32_at(p, 0);
                    self.count_width = child.width;
                    Ok(())
                }
                _ => Err(ctx.surprise("AppData does not start with a 4-byte 0x0100 count")),
            };
        }
        if child.id != ENTRY || !child.is_container() {
            return Err(ctx.surprise(format!("AppData child 0x{:04x} is not an 0x0110 entry", child.id)));
        }
        let [key, value] = child.children() else {
            return Err(
                ctx.surprise(format!("AppData entry has {} children, not [0x0120, 0x0130]", child.children().len()))
            );
        };
        let (Some(k), Some(v)) = (key.payload(), value.payload()) else {
            return Err(ctx.surprise("AppData entry key or value is a container"));
        };
        if key.id != KEY || value.id != VALUE || k.len() != 20 {
            return Err(ctx.surprise(format!(
                "AppData entry is [0x{:04x} ({} bytes), 0x{:04x}], not [0x0120 (20 bytes), 0x0130]",
                key.id,
                k.len(),
                value.id
            )));
        }
        let size = u32_at(k, 16);
        if size as usize != v.len() {
            return Err(ctx.surprise(format!("AppData key Size {size} disagrees with a {}-byte value", v.len())));
        }
        self.entries.push(AppDataEntry {
            key: AppDataKey { class_id: [u32_at(k, 0), u32_at(k, 4)], superclass: u32_at(k, 8), sub_id: u32_at(k, 12) },
            value: v.to_vec(),
            widths: [child.width, key.width, value.width],
        });
        Ok(())
    }

    /// An empty AppData (6-byte headers), for objects that gain their first entry.
    pub(crate) fn new() -> Self {
        AppData { width: HeaderWidth::Short, count_width: HeaderWidth::Short, entries: Vec::new() }
    }

    /// Value of the entry with `key`.
    pub fn get(&self, key: AppDataKey) -> Option<&[u8]> {
        self.entries.iter().find(|e| e.key == key).map(|e| e.value.as_slice())
    }

    /// Sets the value of `key`, appending a new entry (6-byte headers) when absent.
    pub fn set(&mut self, key: AppDataKey, value: Vec<u8>) {
        match self.entries.iter_mut().find(|e| e.key == key) {
            Some(e) => e.value = value,
            None => self.entries.push(AppDataEntry { key, value, widths: [HeaderWidth::Short; 3] }),
        }
    }

    /// Writes the container, or nothing (recording the normalization) when empty.
    pub(crate) fn build(&self, w: &mut Writer<'_>) -> Result<(), BuildError> {
        if self.entries.is_empty() {
            w.normalized(normalize::EMPTY_APPDATA_DROPPED);
            return Ok(());
        }
        let open = w.open(APPDATA, self.width, true);
        let count = self.entries.len() as u32;
        w.leaf_with(COUNT, self.count_width, |o| o.extend_from_slice(&count.to_le_bytes()))?;
        for e in &self.entries {
            let entry = w.open(ENTRY, e.widths[0], true);
            w.leaf_with(KEY, e.widths[1], |o| {
                let k = &e.key;
                for v in [k.class_id[0], k.class_id[1], k.superclass, k.sub_id, e.value.len() as u32] {
                    o.extend_from_slice(&v.to_le_bytes());
                }
            })?;
            w.leaf_with(VALUE, e.widths[2], |o| o.extend_from_slice(&e.value))?;
            w.close(entry)?;
        }
        w.close(open)
    }
}

impl Default for AppData {
    fn default() -> Self {
        Self::new()
    }
}
