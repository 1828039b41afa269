//! Hostile inputs derived at test time from real files (never committed): each case is
//! a name and the bytes of a whole `.max`. The cases cover the reliability issue's list:
//! truncations, header bit flips, sizes past the end / inside the header / near 2^63,
//! flipped container bits, 100k-deep nesting, huge counts in typed chunks, reference and
//! parent cycles, out-of-range class indices, garbage FAT chains, empty and missing
//! streams, corrupt gzip and zstd payloads.

use pmcore::chunk::{parse_stream, Chunk};
use pmcore::compression::{compress, Compression};
use pmcore::container::{self, OleFile};

/// One hostile input.
pub struct Case {
    /// What was done to the file.
    pub name: String,
    /// The whole file.
    pub bytes: Vec<u8>,
}

/// Small deterministic generator (xorshift) so failures reproduce by case name.
pub struct Rng(u64);

impl Rng {
    /// Seeded generator.
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }
    /// Next value.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Value below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}

fn open(bytes: &[u8]) -> OleFile {
    container::open(bytes).expect("seed file opens")
}

/// Rebuilds the file with stream `name` replaced (or removed when `data` is `None`).
pub fn with_stream(ole: &OleFile, name: &str, data: Option<&[u8]>) -> Vec<u8> {
    let streams: Vec<(&str, &[u8])> = ole
        .streams
        .iter()
        .filter_map(|s| {
            if s.name == name {
                data.map(|d| (s.name.as_str(), d))
            } else {
                Some((s.name.as_str(), s.bytes.as_slice()))
            }
        })
        .collect();
    container::write(&ole.clsid, streams).expect("in-memory write")
}

/// Header offsets of every chunk in a stream, with depth, container bit and id.
pub fn headers(data: &[u8]) -> Vec<(usize, bool, u16)> {
    fn walk(chunks: &[Chunk<'_>], out: &mut Vec<(usize, bool, u16)>) {
        for c in chunks {
            out.push((c.offset.unwrap_or(0) as usize, c.is_container(), c.id));
            walk(c.children(), out);
        }
    }
    let mut out = Vec::new();
    if let Ok(tree) = parse_stream("x", data) {
        walk(&tree, &mut out);
    }
    out
}

/// Offsets of the payloads of every leaf with `id` whose parent has `parent_id`.
pub fn leaf_payloads(data: &[u8], parent_id: Option<u16>, id: u16) -> Vec<(usize, usize)> {
    fn walk(
        chunks: &[Chunk<'_>],
        parent: Option<u16>,
        want_parent: Option<u16>,
        id: u16,
        out: &mut Vec<(usize, usize)>,
    ) {
        for c in chunks {
            if c.id == id && (want_parent.is_none() || want_parent == parent) {
                if let Some(p) = c.payload() {
                    out.push((c.offset.unwrap_or(0) as usize + c.width.bytes() as usize, p.len()));
                }
            }
            walk(c.children(), Some(c.id), want_parent, id, out);
        }
    }
    let mut out = Vec::new();
    if let Ok(tree) = parse_stream("x", data) {
        walk(&tree, None, parent_id, id, &mut out);
    }
    out
}

fn short_header(id: u16, size: u32, container: bool) -> [u8; 6] {
    let mut h = [0u8; 6];
    h[..2].copy_from_slice(&id.to_le_bytes());
    h[2..].copy_from_slice(&(size | if container { 0x8000_0000 } else { 0 }).to_le_bytes());
    h
}

/// Every hostile case derived from one seed file (an uncompressed real `.max`), in a fixed
/// order (the random choices are drawn in that order, so a seed always gives the same cases).
pub fn cases_from(seed_name: &str, seed: &[u8], rng: &mut Rng) -> Vec<Case> {
    let ole = open(seed);
    let scene = ole.stream("Scene").expect("seed has Scene").bytes.clone();
    let hdrs = headers(&scene);
    let mut cases = Vec::new();
    let mut push = |name: String, bytes: Vec<u8>| cases.push(Case { name: format!("{seed_name}: {name}"), bytes });
    truncations(&mut push, &ole, seed, &scene);
    header_damage(&mut push, &ole, &scene, &hdrs, rng);
    payload_damage(&mut push, &ole, &scene, &hdrs);
    envelope_damage(&mut push, &ole, seed, rng);
    compression_damage(&mut push, &ole, &scene);
    cases
}

/// Adds one named case.
type Push<'a> = dyn FnMut(String, Vec<u8>) + 'a;

/// The file cut at fractions of its length, and the Scene stream cut short.
fn truncations(push: &mut Push<'_>, ole: &OleFile, seed: &[u8], scene: &[u8]) {
    for frac in [1, 2, 3, 5, 8, 13, 21, 34, 55, 89] {
        let cut = seed.len() * frac / 100;
        push(format!("file truncated at {cut}"), seed[..cut].to_vec());
    }
    for k in [1usize, 7, 100, 4000] {
        let cut = scene.len().saturating_sub(k);
        push(format!("Scene truncated by {k}"), with_stream(ole, "Scene", Some(&scene[..cut])));
    }
}

/// Chunk headers damaged: flipped bits, sizes past the end or inside the header, a long-form
/// size near 2^63, flipped container bits, and nesting far past `MAX_DEPTH`.
fn header_damage(push: &mut Push<'_>, ole: &OleFile, scene: &[u8], hdrs: &[(usize, bool, u16)], rng: &mut Rng) {
    for i in 0..24 {
        let (off, _, _) = hdrs[rng.below(hdrs.len())];
        let mut s = scene.to_vec();
        let bit = rng.below(48);
        s[off + bit / 8] ^= 1 << (bit % 8);
        push(format!("bit flip {i} in header at {off}"), with_stream(ole, "Scene", Some(&s)));
    }
    for (label, size) in [("past the end", 0x7FFF_FFF0u32), ("inside the header", 3), ("zero (long form)", 0)] {
        let (off, container, id) = hdrs[1 + rng.below(hdrs.len() - 1)];
        let mut s = scene.to_vec();
        s[off..off + 6].copy_from_slice(&short_header(id, size, container && size != 0));
        push(format!("size {label} at {off}"), with_stream(ole, "Scene", Some(&s)));
    }
    {
        // A 14-byte header whose size is near 2^63, replacing a leaf's 6-byte header.
        let (off, _, id) = *hdrs.iter().rev().find(|h| !h.1).expect("a leaf");
        let mut s = scene[..off].to_vec();
        s.extend_from_slice(&id.to_le_bytes());
        s.extend_from_slice(&0u32.to_le_bytes());
        s.extend_from_slice(&(0x7FFF_FFFF_FFFF_FFF0u64).to_le_bytes());
        s.extend_from_slice(&scene[off + 6..]);
        push("size near 2^63".into(), with_stream(ole, "Scene", Some(&s)));
    }
    for i in 0..8 {
        let (off, _, _) = hdrs[1 + rng.below(hdrs.len() - 1)];
        let mut s = scene.to_vec();
        s[off + 5] ^= 0x80;
        push(format!("container bit flipped {i} at {off}"), with_stream(ole, "Scene", Some(&s)));
    }
    {
        // 100,000 nested containers: must be refused at MAX_DEPTH without deep recursion.
        let depth = 100_000u32;
        let mut s = Vec::with_capacity(depth as usize * 6);
        for level in 0..depth {
            s.extend_from_slice(&short_header(0x2012, 6 * (depth - level), true));
        }
        push("100k-deep nesting".into(), with_stream(ole, "Scene", Some(&s)));
    }
}

/// Payloads that lie: huge counts, reference and parent cycles, indices out of range.
fn payload_damage(push: &mut Push<'_>, ole: &OleFile, scene: &[u8], hdrs: &[(usize, bool, u16)]) {
    // Huge counts in typed chunks: AppData entry count, reference arrays, anything that
    // looks like a count (first u32 of a leaf) in geometry.
    for (label, parent, id) in [("AppData count", Some(0x2150), 0x0100u16), ("poly/mesh count", None, 0x0100)] {
        for (i, (at, len)) in leaf_payloads(scene, parent, id).into_iter().take(6).enumerate() {
            if len >= 4 {
                let mut s = scene.to_vec();
                s[at..at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
                push(format!("{label} {i} = 0xFFFFFFF0"), with_stream(ole, "Scene", Some(&s)));
            }
        }
    }
    {
        // Every reference slot and node parent pointing back at the object itself / at
        // far out-of-range indices.
        let mut cyclic = scene.to_vec();
        let mut far = scene.to_vec();
        for (at, len) in leaf_payloads(scene, None, 0x2034) {
            for k in (0..len / 4).map(|k| at + 4 * k) {
                cyclic[k..k + 4].copy_from_slice(&1i32.to_le_bytes());
                far[k..k + 4].copy_from_slice(&0x7FFF_FFFEi32.to_le_bytes());
            }
        }
        for (at, len) in leaf_payloads(scene, None, 0x0960) {
            if len >= 4 {
                cyclic[at..at + 4].copy_from_slice(&1i32.to_le_bytes());
                far[at..at + 4].copy_from_slice(&(-7i32).to_le_bytes());
            }
        }
        push("reference and parent cycles".into(), with_stream(ole, "Scene", Some(&cyclic)));
        push("references out of range".into(), with_stream(ole, "Scene", Some(&far)));
    }
    {
        // Scene object ids beyond ClassDirectory3.
        let mut s = scene.to_vec();
        for (off, _, _) in hdrs.iter().skip(1).step_by(7).take(50) {
            s[*off..*off + 2].copy_from_slice(&0x1FF0u16.to_le_bytes());
        }
        push("class indices out of range".into(), with_stream(ole, "Scene", Some(&s)));
    }
}

/// The OLE envelope damaged: garbage in the FAT, streams empty or missing.
fn envelope_damage(push: &mut Push<'_>, ole: &OleFile, seed: &[u8], rng: &mut Rng) {
    {
        // Garbage in the FAT: the first FAT sector named by the header's DIFAT.
        let sector_shift = u16::from_le_bytes([seed[30], seed[31]]) as u32;
        let sector = 1usize << sector_shift.min(16);
        let fat0 = u32::from_le_bytes(seed[76..80].try_into().unwrap()) as usize;
        for (i, fill) in [0xFFu8, 0x00, 0x41].into_iter().enumerate() {
            let mut b = seed.to_vec();
            let start = (fat0 + 1) * sector;
            if start + 64 <= b.len() {
                for x in &mut b[start + 8 * i..start + 8 * i + 64] {
                    *x = fill ^ (rng.next_u64() as u8 & 0x0F);
                }
                push(format!("garbage FAT chain {i}"), b);
            }
        }
    }
    push("zero-length Scene".into(), with_stream(ole, "Scene", Some(&[])));
    push("missing Scene".into(), with_stream(ole, "Scene", None));
    push("zero-length ClassDirectory3".into(), with_stream(ole, "ClassDirectory3", Some(&[])));
    push("missing ClassDirectory3".into(), with_stream(ole, "ClassDirectory3", None));
    push("missing DllDirectory".into(), with_stream(ole, "DllDirectory", None));
}

/// The Scene stream compressed and then corrupted or cut.
fn compression_damage(push: &mut Push<'_>, ole: &OleFile, scene: &[u8]) {
    {
        let gz = compress(scene, Compression::Gzip);
        let mut bad = gz.clone();
        let n = bad.len();
        for k in (n / 3..n / 3 + 16).filter(|k| *k < n) {
            bad[k] ^= 0x5A;
        }
        push("corrupt gzip Scene".into(), with_stream(ole, "Scene", Some(&bad)));
        push("truncated gzip Scene".into(), with_stream(ole, "Scene", Some(&gz[..n / 2])));
        let zs = compress(scene, Compression::Zstd { offset: 2 });
        push("truncated zstd Scene".into(), with_stream(ole, "Scene", Some(&zs[..zs.len() / 2])));
        let mut zbad = zs.clone();
        let m = zbad.len();
        for k in (m / 2..m / 2 + 32).filter(|k| *k < m) {
            zbad[k] = 0xEE;
        }
        push("corrupt zstd Scene".into(), with_stream(ole, "Scene", Some(&zbad)));
    }
}
