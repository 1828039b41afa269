//! OLE property sets (`\x05SummaryInformation`, `\x05DocumentSummaryInformation`),
//! parsed by structure rather than by grepping labels: labels are localized by the
//! saving Max (`3ds Max Version:`, `3ds Max 版本:`), the layout is not.
//!
//! Every read is bounds-checked; counts are capped by the bytes that remain.

/// A property value, as far as `.max` files use them.
#[derive(Clone, Debug, PartialEq)]
pub enum PropValue {
    /// VT_I2 / VT_I4 / VT_UI4 / VT_BOOL.
    Int(i64),
    /// VT_LPSTR (decoded with the section code page) or VT_LPWSTR.
    Text(String),
    /// VT_VECTOR of any of the above (VT_VARIANT elements flattened to their values).
    List(Vec<PropValue>),
    /// Anything else: the type tag only.
    Other(u32),
}

/// One property of a section.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// Property id (1 = code page, 0x0C = heading pairs, 0x0D = document parts, …).
    pub id: u32,
    /// Value.
    pub value: PropValue,
}

/// A section: its format id and properties.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// FMTID bytes.
    pub fmtid: [u8; 16],
    /// Properties in stored order.
    pub properties: Vec<Property>,
}

/// Why a property set could not be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("property set: {what} at offset {offset}")]
pub struct PropertySetError {
    /// What was malformed.
    pub what: &'static str,
    /// Byte offset in the stream.
    pub offset: usize,
}

const PID_CODEPAGE: u32 = 1;
const PID_HEADING_PAIRS: u32 = 0x0C;
const PID_DOC_PARTS: u32 = 0x0D;
const MAX_SECTIONS: u32 = 16;

struct Reader<'a> {
    data: &'a [u8],
}

impl Reader<'_> {
    fn u16(&self, at: usize) -> Result<u16, PropertySetError> {
        self.data
            .get(at..at + 2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .ok_or(PropertySetError { what: "truncated u16", offset: at })
    }
    fn u32(&self, at: usize) -> Result<u32, PropertySetError> {
        self.data
            .get(at..at.saturating_add(4))
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or(PropertySetError { what: "truncated u32", offset: at })
    }
    fn bytes(&self, at: usize, len: usize) -> Result<&[u8], PropertySetError> {
        self.data.get(at..at.saturating_add(len)).ok_or(PropertySetError { what: "truncated bytes", offset: at })
    }
}

/// Parses a whole property-set stream.
pub fn parse(data: &[u8]) -> Result<Vec<Section>, PropertySetError> {
    let r = Reader { data };
    if r.u16(0)? != 0xFFFE {
        return Err(PropertySetError { what: "byte-order mark is not FFFE", offset: 0 });
    }
    let count = r.u32(24)?;
    if count > MAX_SECTIONS {
        return Err(PropertySetError { what: "too many sections", offset: 24 });
    }
    let mut sections = Vec::new();
    for i in 0..count as usize {
        let entry = 28 + i * 20;
        let fmtid: [u8; 16] = r.bytes(entry, 16)?.try_into().expect("16 bytes");
        let offset = r.u32(entry + 16)? as usize;
        sections.push(parse_section(&r, fmtid, offset)?);
    }
    Ok(sections)
}

fn parse_section(r: &Reader<'_>, fmtid: [u8; 16], base: usize) -> Result<Section, PropertySetError> {
    let _size = r.u32(base)?;
    let count = r.u32(base + 4)? as usize;
    if count > r.data.len() / 8 {
        return Err(PropertySetError { what: "property count larger than the stream", offset: base + 4 });
    }
    let mut ids = Vec::with_capacity(count);
    for i in 0..count {
        let at = base + 8 + i * 8;
        ids.push((r.u32(at)?, r.u32(at + 4)? as usize));
    }
    let codepage =
        ids.iter().find(|(id, _)| *id == PID_CODEPAGE).and_then(|(_, off)| r.u16(base + off + 4).ok()).unwrap_or(1252);
    let mut properties = Vec::with_capacity(count);
    for (id, off) in ids {
        if id == 0 {
            continue; // dictionary: names of user-defined properties, not needed here
        }
        let at = base.saturating_add(off);
        let (value, _) = parse_value(r, at, codepage, 0)?;
        properties.push(Property { id, value });
    }
    Ok(Section { fmtid, properties })
}

/// Parses a typed value at `at`; returns it and the offset after it.
fn parse_value(r: &Reader<'_>, at: usize, codepage: u16, depth: u8) -> Result<(PropValue, usize), PropertySetError> {
    let vt = r.u32(at)?;
    parse_untagged(r, at + 4, vt, codepage, depth)
}

fn parse_untagged(
    r: &Reader<'_>,
    at: usize,
    vt: u32,
    codepage: u16,
    depth: u8,
) -> Result<(PropValue, usize), PropertySetError> {
    if depth > 2 {
        return Err(PropertySetError { what: "nested vectors", offset: at });
    }
    const VT_VECTOR: u32 = 0x1000;
    if vt & VT_VECTOR != 0 {
        let elem = vt & !VT_VECTOR;
        let count = r.u32(at)? as usize;
        if count > r.data.len() / 4 {
            return Err(PropertySetError { what: "vector count larger than the stream", offset: at });
        }
        let mut pos = at + 4;
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            let (v, next) = if elem == 0x0C {
                parse_value(r, pos, codepage, depth + 1)?
            } else {
                parse_untagged(r, pos, elem, codepage, depth + 1)?
            };
            items.push(v);
            pos = next;
        }
        return Ok((PropValue::List(items), pos));
    }
    match vt {
        0x02 | 0x0B => Ok((PropValue::Int(i64::from(r.u16(at)? as i16)), at + 4)),
        0x03 | 0x16 => Ok((PropValue::Int(i64::from(r.u32(at)? as i32)), at + 4)),
        0x13 | 0x17 => Ok((PropValue::Int(i64::from(r.u32(at)?)), at + 4)),
        0x1E => {
            let len = r.u32(at)? as usize;
            let raw = r.bytes(at + 4, len)?;
            let end = at + 4 + len.div_ceil(4) * 4;
            // Under code page 1200 an LPSTR holds UTF-16 code units: NUL bytes are not terminators.
            let text = if codepage == 1200 {
                decode_codepage(raw, codepage)
            } else {
                decode_codepage(trim_nul(raw), codepage)
            };
            Ok((PropValue::Text(text.trim_end_matches('\0').to_string()), end))
        }
        0x1F => {
            let chars = r.u32(at)? as usize;
            let raw = r.bytes(at + 4, chars.saturating_mul(2))?;
            let units: Vec<u16> = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            let text = String::from_utf16_lossy(&units).trim_end_matches('\0').to_string();
            let end = at + 4 + (chars * 2).div_ceil(4) * 4;
            Ok((PropValue::Text(text), end))
        }
        0x40 => Ok((PropValue::Other(vt), at + 8)),
        _ => Ok((PropValue::Other(vt), at)),
    }
}

fn trim_nul(raw: &[u8]) -> &[u8] {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    &raw[..end]
}

fn decode_codepage(raw: &[u8], codepage: u16) -> String {
    match codepage {
        65001 => String::from_utf8_lossy(raw).into_owned(),
        1200 => {
            let units: Vec<u16> = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            String::from_utf16_lossy(&units)
        }
        // Latin-1 is exact for ASCII and close enough for labels in other single-byte pages;
        // valid UTF-8 is taken as UTF-8 (some Max builds write UTF-8 under another page).
        _ => match std::str::from_utf8(raw) {
            Ok(s) => s.to_string(),
            Err(_) => raw.iter().map(|&b| b as char).collect(),
        },
    }
}

/// The document parts grouped under their headings (HeadingPairs × DocParts), in order:
/// e.g. `("General", ["3ds Max Version: 18.00", "Build: …", …])`.
pub fn headed_parts(sections: &[Section]) -> Vec<(String, Vec<String>)> {
    let Some(first) = sections.first() else {
        return Vec::new();
    };
    let find = |id| first.properties.iter().find(|p| p.id == id).map(|p| &p.value);
    let (Some(PropValue::List(pairs)), Some(PropValue::List(parts))) = (find(PID_HEADING_PAIRS), find(PID_DOC_PARTS))
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut next = 0usize;
    for pair in pairs.chunks(2) {
        let (Some(PropValue::Text(heading)), Some(PropValue::Int(n))) = (pair.first(), pair.get(1)) else {
            continue;
        };
        let n = (*n).max(0) as usize;
        let texts = parts
            .iter()
            .skip(next)
            .take(n)
            .map(|p| match p {
                PropValue::Text(t) => t.clone(),
                _ => String::new(),
            })
            .collect();
        next = next.saturating_add(n);
        out.push((heading.clone(), texts));
    }
    out
}

/// The saving release (`18.00`, `8.0`, `24.00`): the value of the first `label: number`
/// part under the first heading, whatever language the label is in.
pub fn saving_release(sections: &[Section]) -> Option<String> {
    let groups = headed_parts(sections);
    let (_, parts) = groups.first()?;
    parts.iter().find_map(|p| {
        let (_, value) = p.rsplit_once(':')?;
        let value = value.trim();
        let numeric = !value.is_empty()
            && value.chars().all(|c| c.is_ascii_digit() || c == '.')
            && value.chars().next().is_some_and(|c| c.is_ascii_digit());
        numeric.then(|| value.to_string())
    })
}
