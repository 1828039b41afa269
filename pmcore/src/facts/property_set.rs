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
            .get(at..at.saturating_add(2))
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
        let entry = 28 + i * 20; // count ≤ MAX_SECTIONS: no overflow
        let fmtid: [u8; 16] = r.bytes(entry, 16)?.try_into().expect("16 bytes");
        let offset = r.u32(entry + 16)? as usize;
        sections.push(parse_section(&r, fmtid, offset)?);
    }
    Ok(sections)
}

fn parse_section(r: &Reader<'_>, fmtid: [u8; 16], base: usize) -> Result<Section, PropertySetError> {
    let _size = r.u32(base)?;
    let count = r.u32(base.saturating_add(4))? as usize;
    if count > r.data.len() / 8 {
        return Err(PropertySetError { what: "property count larger than the stream", offset: base.saturating_add(4) });
    }
    let mut ids = Vec::with_capacity(count);
    for i in 0..count {
        let at = base.saturating_add(8 + i * 8);
        ids.push((r.u32(at)?, r.u32(at.saturating_add(4))? as usize));
    }
    let codepage = ids
        .iter()
        .find(|(id, _)| *id == PID_CODEPAGE)
        .and_then(|(_, off)| r.u16(base.saturating_add(*off).saturating_add(4)).ok())
        .unwrap_or(1252);
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
    parse_untagged(r, at.saturating_add(4), vt, codepage, depth)
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
        let mut pos = at.saturating_add(4);
        let mut items = Vec::with_capacity(count);
        for _ in 0..count {
            let (v, next) = if elem == 0x0C {
                parse_value(r, pos, codepage, depth + 1)?
            } else {
                parse_untagged(r, pos, elem, codepage, depth + 1)?
            };
            // Every element must consume bytes, so items over all nesting levels stay
            // bounded by the stream length (an element of unknown size would not).
            if next <= pos {
                return Err(PropertySetError { what: "vector element of unknown size", offset: pos });
            }
            items.push(v);
            pos = next;
        }
        return Ok((PropValue::List(items), pos));
    }
    match vt {
        0x02 | 0x0B => Ok((PropValue::Int(i64::from(r.u16(at)? as i16)), at.saturating_add(4))),
        0x03 | 0x16 => Ok((PropValue::Int(i64::from(r.u32(at)? as i32)), at.saturating_add(4))),
        0x13 | 0x17 => Ok((PropValue::Int(i64::from(r.u32(at)?)), at.saturating_add(4))),
        0x1E => {
            let len = r.u32(at)? as usize;
            // `bytes` succeeded, so `at + 4 + len` lies inside the stream: no overflow below.
            let raw = r.bytes(at.saturating_add(4), len)?;
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
            let raw = r.bytes(at.saturating_add(4), chars.saturating_mul(2))?;
            let units: Vec<u16> = raw.chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
            let text = String::from_utf16_lossy(&units).trim_end_matches('\0').to_string();
            let end = at + 4 + (chars * 2).div_ceil(4) * 4;
            Ok((PropValue::Text(text), end))
        }
        0x40 => Ok((PropValue::Other(vt), at.saturating_add(8))),
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A test-only writer of the DocumentSummaryInformation layout (heading pairs as a
    /// vector of variants, document parts as a vector of LPSTR), so the reader can be
    /// checked on every shape the generator reaches.
    fn lpstr(text: &str, codepage: u16, out: &mut Vec<u8>) {
        let mut raw: Vec<u8> = match codepage {
            1200 => text.encode_utf16().chain([0]).flat_map(u16::to_le_bytes).collect(),
            _ => text.bytes().chain([0]).collect(),
        };
        out.extend((raw.len() as u32).to_le_bytes());
        while !raw.len().is_multiple_of(4) {
            raw.push(0);
        }
        out.extend(raw);
    }

    fn write(groups: &[(String, Vec<String>)], codepage: u16) -> Vec<u8> {
        let mut values: Vec<(u32, Vec<u8>)> = Vec::new();
        let mut cp = 2u32.to_le_bytes().to_vec();
        cp.extend(u32::from(codepage).to_le_bytes());
        values.push((PID_CODEPAGE, cp));
        let mut pairs = 0x100Cu32.to_le_bytes().to_vec();
        pairs.extend((groups.len() as u32 * 2).to_le_bytes());
        for (heading, parts) in groups {
            pairs.extend(0x1Eu32.to_le_bytes());
            lpstr(heading, codepage, &mut pairs);
            pairs.extend(3u32.to_le_bytes());
            pairs.extend((parts.len() as u32).to_le_bytes());
        }
        values.push((PID_HEADING_PAIRS, pairs));
        let all: Vec<&String> = groups.iter().flat_map(|(_, p)| p).collect();
        let mut parts = 0x101Eu32.to_le_bytes().to_vec();
        parts.extend((all.len() as u32).to_le_bytes());
        all.iter().for_each(|p| lpstr(p, codepage, &mut parts));
        values.push((PID_DOC_PARTS, parts));
        let mut section = Vec::new();
        let mut offset = 8 + 8 * values.len();
        let mut index = Vec::new();
        for (id, v) in &values {
            index.extend(id.to_le_bytes());
            index.extend((offset as u32).to_le_bytes());
            offset += v.len();
        }
        section.extend((offset as u32).to_le_bytes());
        section.extend((values.len() as u32).to_le_bytes());
        section.extend(index);
        values.iter().for_each(|(_, v)| section.extend(v));
        let mut out = vec![0xFE, 0xFF, 0, 0, 0, 0, 0, 0];
        out.extend([0; 16]);
        out.extend(1u32.to_le_bytes());
        out.extend([0x02, 0xD5, 0xCD, 0xD5, 0x9C, 0x2E, 0x1B, 0x10, 0x93, 0x97, 0x08, 0x00, 0x2B, 0x2C, 0xF9, 0xAE]);
        out.extend(48u32.to_le_bytes());
        out.extend(section);
        out
    }

    fn text() -> impl Strategy<Value = String> {
        // Labels as the corpora show them: ASCII, CJK, Cyrillic; no NUL (Max never writes one inside).
        proptest::string::string_regex("[A-Za-z0-9 :=.,_\\-网格总计常规кубик]{0,24}").unwrap()
    }

    fn groups() -> impl Strategy<Value = Vec<(String, Vec<String>)>> {
        proptest::collection::vec((text(), proptest::collection::vec(text(), 0..6)), 0..9)
    }

    proptest! {
        #[test]
        fn written_sets_read_back_in_every_code_page(g in groups(), cp in prop::sample::select(vec![1200u16, 1252, 65001])) {
            let bytes = write(&g, cp);
            let sections = parse(&bytes).expect("a written set parses");
            prop_assert_eq!(headed_parts(&sections), g);
        }

        #[test]
        fn any_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..512)) {
            if let Ok(sections) = parse(&data) {
                let _ = super::super::doc_summary::DocSummary::from_sections(&sections);
            }
        }

        #[test]
        fn mutated_real_layouts_never_panic(g in groups(), flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
            let mut bytes = write(&g, 65001);
            let len = bytes.len();
            for (at, value) in flips {
                bytes[at % len] = value;
            }
            if let Ok(sections) = parse(&bytes) {
                let _ = super::super::doc_summary::DocSummary::from_sections(&sections);
            }
        }
    }

    #[test]
    fn the_empty_max7_set_has_no_headings() {
        // 70 bytes as in wild/mateusz-gosciniak__dron.max: header, one section, no property.
        let mut bytes = write(&[], 1252);
        bytes.truncate(48);
        bytes.extend(8u32.to_le_bytes());
        bytes.extend(0u32.to_le_bytes());
        let sections = parse(&bytes).expect("parses");
        assert!(headed_parts(&sections).is_empty());
        assert_eq!(super::super::doc_summary::saving_release(&sections), None);
    }
}
