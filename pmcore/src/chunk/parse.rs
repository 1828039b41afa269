//! Zero-copy parser: borrows payloads from the stream buffer, bounds every size by its
//! parent, bounds recursion by [`MAX_DEPTH`].

use super::{Body, Chunk, ChunkError, ChunkErrorKind, ChunkPath, HeaderWidth, TreeStats, MAX_DEPTH};
use std::borrow::Cow;

const CONTAINER_BIT_32: u32 = 0x8000_0000;
const CONTAINER_BIT_64: u64 = 0x8000_0000_0000_0000;
/// Size field of a 6-byte run-to-end header.
pub(crate) const TO_END_32: u32 = 0xFFFF_FFFF;
/// 32-bit field of a 14-byte run-to-end header (an ordinary 14-byte header has 0 there).
pub(crate) const TO_END_LONG_MARK: u32 = 1;
/// 64-bit size field of a 14-byte run-to-end header.
pub(crate) const TO_END_64: u64 = u64::MAX;

/// Parses a whole stream as a run of top-level chunks. Succeeds only when every byte
/// belongs to some chunk; the tree then writes back to exactly `data`.
pub fn parse_stream<'a>(stream: &str, data: &'a [u8]) -> Result<Vec<Chunk<'a>>, ChunkError> {
    let mut steps = Vec::with_capacity(16);
    Parser { stream, data }.children(0, data.len() as u64, 1, &mut steps, &mut TreeBuilder)
}

/// The shape of a stream's chunk tree, or why it is not one, without building the tree:
/// the same walk as [`parse_stream`] (same acceptance, same errors) with no allocation per
/// chunk. Opening a file only needs this (its kind and header counts); building the tree
/// there cost a third of the parsing of a T1+T2 run (docs/performance.md, issue #43).
pub fn scan_stream(stream: &str, data: &[u8]) -> Result<TreeStats, ChunkError> {
    let mut steps = Vec::with_capacity(16);
    let mut shape = ShapeBuilder::default();
    Parser { stream, data }.children(0, data.len() as u64, 1, &mut steps, &mut shape)?;
    Ok(shape.stats)
}

/// Header of one parsed chunk, as the parser hands it to a [`Build`].
#[derive(Clone, Copy)]
struct Head {
    id: u16,
    width: HeaderWidth,
    offset: u64,
    depth: usize,
}

/// What the parser makes of the chunks it accepts: one parser, so the tree and the shape
/// walk accept and refuse exactly the same bytes.
trait Build<'a> {
    /// One run of sibling chunks.
    type Run;
    /// An empty run; `count` gives its final length (a header walk) when the builder wants it.
    fn open_run(&mut self, count: impl FnOnce() -> usize) -> Self::Run;
    /// Appends a leaf.
    fn leaf(&mut self, run: &mut Self::Run, head: Head, payload: &'a [u8]);
    /// Appends a container with its (closed) run of children.
    fn container(&mut self, run: &mut Self::Run, head: Head, children: Self::Run);
    /// The run is complete.
    fn close_run(&mut self, run: Self::Run) -> Self::Run;
}

/// Builds the borrowed tree.
struct TreeBuilder;

impl<'a> Build<'a> for TreeBuilder {
    type Run = Vec<Chunk<'a>>;

    fn open_run(&mut self, count: impl FnOnce() -> usize) -> Self::Run {
        Vec::with_capacity(count())
    }

    fn leaf(&mut self, run: &mut Self::Run, h: Head, payload: &'a [u8]) {
        run.push(Chunk { id: h.id, width: h.width, offset: Some(h.offset), body: Body::Leaf(Cow::Borrowed(payload)) });
    }

    fn container(&mut self, run: &mut Self::Run, h: Head, children: Self::Run) {
        run.push(Chunk { id: h.id, width: h.width, offset: Some(h.offset), body: Body::Container(children) });
    }

    fn close_run(&mut self, run: Self::Run) -> Self::Run {
        run
    }
}

/// Counts what [`TreeStats::of`] counts on the tree, as the chunks go by.
#[derive(Default)]
struct ShapeBuilder {
    stats: TreeStats,
}

/// One run's part of the shape: its length and which header widths it mixes.
#[derive(Default)]
struct RunShape {
    len: usize,
    short: bool,
    long: bool,
}

impl ShapeBuilder {
    fn chunk(&mut self, run: &mut RunShape, h: Head) {
        run.len += 1;
        self.stats.max_depth = self.stats.max_depth.max(h.depth);
        match h.width {
            HeaderWidth::Short | HeaderWidth::ShortToEnd => {
                self.stats.headers_6 += 1;
                run.short = true;
            }
            HeaderWidth::Long | HeaderWidth::LongToEnd => {
                self.stats.headers_14 += 1;
                run.long = true;
            }
        }
        if h.width.runs_to_end() {
            self.stats.headers_to_end += 1;
        }
    }
}

impl Build<'_> for ShapeBuilder {
    type Run = RunShape;

    fn open_run(&mut self, _count: impl FnOnce() -> usize) -> RunShape {
        RunShape::default()
    }

    fn leaf(&mut self, run: &mut RunShape, h: Head, _payload: &[u8]) {
        self.chunk(run, h);
    }

    fn container(&mut self, run: &mut RunShape, h: Head, _children: RunShape) {
        self.chunk(run, h);
    }

    fn close_run(&mut self, run: RunShape) -> RunShape {
        self.stats.max_children = self.stats.max_children.max(run.len);
        if run.short && run.long {
            self.stats.mixed_containers += 1;
        }
        run
    }
}

struct Parser<'s, 'a> {
    stream: &'s str,
    data: &'a [u8],
}

impl<'a> Parser<'_, 'a> {
    fn error(&self, steps: &[(usize, u16)], offset: u64, kind: ChunkErrorKind) -> ChunkError {
        ChunkError { stream: self.stream.to_string(), path: ChunkPath::from_steps(self.stream, steps), offset, kind }
    }

    fn u16_at(&self, pos: u64) -> u16 {
        let p = pos as usize;
        u16::from_le_bytes([self.data[p], self.data[p + 1]])
    }

    fn u32_at(&self, pos: u64) -> u32 {
        let p = pos as usize;
        u32::from_le_bytes(self.data[p..p + 4].try_into().expect("4 bytes"))
    }

    fn u64_at(&self, pos: u64) -> u64 {
        let p = pos as usize;
        u64::from_le_bytes(self.data[p..p + 8].try_into().expect("8 bytes"))
    }

    /// The run-to-end form of the header at `pos`, if it is one: only at the top level
    /// (where the parent's end is the stream's end), only the exact bit patterns the real
    /// files show (`u32 0xFFFF_FFFF`, or `u32 1` + `u64 0xFFFF_FFFF_FFFF_FFFF`).
    fn to_end_form(&self, pos: u64, depth: usize, short: u32, available: u64) -> Option<HeaderWidth> {
        if depth != 1 {
            return None;
        }
        if short == TO_END_32 {
            return Some(HeaderWidth::ShortToEnd);
        }
        (short == TO_END_LONG_MARK && available >= 14 && self.u64_at(pos + 6) == TO_END_64)
            .then_some(HeaderWidth::LongToEnd)
    }

    /// How many chunks the run in `[start, end)` holds, following the size fields only and
    /// stopping at the first header [`Self::children`] will reject (counted: the parse
    /// fails there anyway). The sibling vector is allocated at this size once: growing it
    /// by doubling copied every vector of the tree into fresh pages (a fifth of a sweep's
    /// page faults, docs/performance.md) and left up to half of each one unused.
    fn count(&self, start: u64, end: u64, depth: usize) -> usize {
        let mut n = 0;
        let mut pos = start;
        while pos < end {
            let available = end - pos;
            if available < 6 {
                return n + 1;
            }
            let short = self.u32_at(pos + 2);
            let (header, size) = if self.to_end_form(pos, depth, short, available).is_some() {
                return n + 1;
            } else if short == 0 {
                if available < 14 {
                    return n + 1;
                }
                (HeaderWidth::Long.bytes(), self.u64_at(pos + 6) & !CONTAINER_BIT_64)
            } else {
                (HeaderWidth::Short.bytes(), u64::from(short & !CONTAINER_BIT_32))
            };
            n += 1;
            if size < header || size > available {
                return n;
            }
            pos += size;
        }
        n
    }

    /// Parses the run of chunks in `[start, end)`; `depth` is the level of those chunks
    /// (top level = 1). `steps` holds the locator of the parent.
    fn children<B: Build<'a>>(
        &self,
        start: u64,
        end: u64,
        depth: usize,
        steps: &mut Vec<(usize, u16)>,
        build: &mut B,
    ) -> Result<B::Run, ChunkError> {
        let mut out = build.open_run(|| self.count(start, end, depth));
        let mut index = 0;
        let mut pos = start;
        while pos < end {
            let available = end - pos;
            if available < 6 {
                return Err(self.error(steps, pos, ChunkErrorKind::TruncatedHeader { needed: 6, available }));
            }
            let id = self.u16_at(pos);
            steps.push((index, id));
            let short = self.u32_at(pos + 2);
            let (width, size, container) = if let Some(width) = self.to_end_form(pos, depth, short, available) {
                // Unknown length (Max 2024+ zstd streams): the container runs to the stream's end.
                (width, available, true)
            } else if short == 0 {
                if available < 14 {
                    return Err(self.error(steps, pos, ChunkErrorKind::TruncatedHeader { needed: 14, available }));
                }
                let long = self.u64_at(pos + 6);
                (HeaderWidth::Long, long & !CONTAINER_BIT_64, long & CONTAINER_BIT_64 != 0)
            } else {
                (HeaderWidth::Short, u64::from(short & !CONTAINER_BIT_32), short & CONTAINER_BIT_32 != 0)
            };
            let header = width.bytes();
            if size < header {
                return Err(self.error(steps, pos, ChunkErrorKind::SizeSmallerThanHeader { size, header }));
            }
            if size > available {
                let end_at = u128::from(pos) + u128::from(size);
                return Err(self.error(steps, pos, ChunkErrorKind::SizePastParentEnd { end: end_at, parent_end: end }));
            }
            let body_start = pos + header;
            let chunk_end = pos + size;
            let head = Head { id, width, offset: pos, depth };
            if container {
                if depth >= MAX_DEPTH && body_start < chunk_end {
                    return Err(self.error(steps, pos, ChunkErrorKind::TooDeep { limit: MAX_DEPTH }));
                }
                let children = self.children(body_start, chunk_end, depth + 1, steps, build)?;
                build.container(&mut out, head, children);
            } else {
                build.leaf(&mut out, head, &self.data[body_start as usize..chunk_end as usize]);
            }
            steps.pop();
            index += 1;
            pos = chunk_end;
        }
        Ok(build.close_run(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short(id: u16, size: u32, container: bool) -> Vec<u8> {
        let mut v = id.to_le_bytes().to_vec();
        v.extend_from_slice(&(size | if container { CONTAINER_BIT_32 } else { 0 }).to_le_bytes());
        v
    }

    fn long(id: u16, size: u64, container: bool) -> Vec<u8> {
        let mut v = id.to_le_bytes().to_vec();
        v.extend_from_slice(&0u32.to_le_bytes());
        v.extend_from_slice(&(size | if container { CONTAINER_BIT_64 } else { 0 }).to_le_bytes());
        v
    }

    #[test]
    fn mixed_header_widths_among_siblings() {
        // container(short) { leaf(short, 2 bytes), leaf(long, 1 byte), container(long) {} }
        let mut kids = short(0x0001, 8, false);
        kids.extend_from_slice(&[0xAA, 0xBB]);
        kids.extend(long(0x0002, 15, false));
        kids.push(0xCC);
        kids.extend(long(0x0003, 14, true));
        let mut data = short(0x2012, 6 + kids.len() as u32, true);
        data.extend(kids);
        let tree = parse_stream("Scene", &data).unwrap();
        assert_eq!(tree.len(), 1);
        let root = &tree[0];
        assert_eq!(root.width, HeaderWidth::Short);
        let c = root.children();
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].width, c[0].payload()), (HeaderWidth::Short, Some(&[0xAA, 0xBB][..])));
        assert_eq!((c[1].width, c[1].payload()), (HeaderWidth::Long, Some(&[0xCC][..])));
        assert_eq!(c[2].width, HeaderWidth::Long);
        assert!(c[2].is_container() && c[2].children().is_empty());
        assert_eq!(super::super::write_stream(&tree).unwrap(), data);
    }

    #[test]
    fn sibling_vectors_are_allocated_at_their_final_size() {
        // 5 top-level leaves and a container of 9 leaves mixing both widths: each run's
        // vector is sized by the header walk before the parse fills it, never regrown.
        let mut kids = Vec::new();
        for i in 0..9u16 {
            kids.extend(if i % 2 == 0 { short(i, 7, false) } else { long(i, 15, false) });
            kids.push(i as u8);
        }
        let mut data = short(0x2012, 6 + kids.len() as u32, true);
        data.extend(kids);
        for i in 0..5u16 {
            data.extend(short(0x100 + i, 6, false));
        }
        let tree = parse_stream("Scene", &data).unwrap();
        assert_eq!((tree.len(), tree.capacity()), (6, 6));
        let Body::Container(kids) = &tree[0].body else { panic!("container") };
        assert_eq!((kids.len(), kids.capacity()), (9, 9));
        assert_eq!(super::super::write_stream(&tree).unwrap(), data);
    }

    /// The shape walk and the tree agree on every input the other tests use, accepted or
    /// refused: same stats as [`TreeStats::of`] on the tree, same error otherwise.
    #[test]
    fn scan_counts_what_the_tree_shows_and_refuses_what_parse_refuses() {
        let mut mixed = short(0x2012, 6 + 8 + 15 + 14, true);
        mixed.extend(short(0x0001, 8, false));
        mixed.extend_from_slice(&[0xAA, 0xBB]);
        mixed.extend(long(0x0002, 15, false));
        mixed.push(0xCC);
        mixed.extend(long(0x0003, 14, true));
        mixed.extend(short(0x0004, 6, true));
        let mut deep = Vec::new();
        for level in 0..MAX_DEPTH + 2 {
            deep.extend(short(0x0100, (6 * (MAX_DEPTH + 2 - level)) as u32, true));
        }
        let mut to_end = scene_root_to_end();
        to_end.extend(short(0x0005, 8, false));
        to_end.extend_from_slice(&[1, 2]);
        let inputs: [&[u8]; 7] = [
            &[],
            &mixed,
            &deep,
            &deep[..6 * MAX_DEPTH],
            &to_end,
            &short(0x0001, 5, false),
            &[0x06, 0x22, 0xFF, 0xFF, 0xFF, 0xFF],
        ];
        for data in inputs {
            match (parse_stream("Scene", data), scan_stream("Scene", data)) {
                (Ok(tree), Ok(stats)) => assert_eq!(stats, TreeStats::of(&tree)),
                (Err(a), Err(b)) => {
                    assert_eq!((a.kind, a.offset, a.path.as_str()), (b.kind, b.offset, b.path.as_str()))
                }
                (a, b) => panic!("parse {a:?} but scan {b:?}"),
            }
        }
    }

    #[test]
    fn zero_byte_leaf_differs_from_empty_container() {
        let mut data = short(0x0010, 6, false);
        data.extend(short(0x0011, 6, true));
        let tree = parse_stream("Scene", &data).unwrap();
        assert!(!tree[0].is_container());
        assert_eq!(tree[0].payload(), Some(&[][..]));
        assert!(tree[1].is_container());
        assert_eq!(super::super::write_stream(&tree).unwrap(), data);
    }

    #[test]
    fn empty_stream_is_an_empty_run() {
        assert!(parse_stream("Config", &[]).unwrap().is_empty());
    }

    #[test]
    fn truncated_header_is_located() {
        let mut data = short(0x0001, 6, false);
        data.extend_from_slice(&[0x02, 0x00, 0x01]);
        let err = parse_stream("Scene", &data).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::TruncatedHeader { needed: 6, available: 3 });
        assert_eq!(err.offset, 6);
        assert_eq!(err.path.as_str(), "Scene");
        assert_eq!(err.stream, "Scene");
    }

    #[test]
    fn truncated_long_header_is_located() {
        let mut data = short(0x2012, 6 + 10, true);
        data.extend_from_slice(&[0x05, 0x00, 0, 0, 0, 0, 1, 2, 3, 4]);
        let err = parse_stream("Scene", &data).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::TruncatedHeader { needed: 14, available: 10 });
        assert_eq!(err.offset, 6);
        assert_eq!(err.path.as_str(), "Scene/0x2012/[0]0x0005");
    }

    #[test]
    fn size_smaller_than_header_short_and_long() {
        let err = parse_stream("Scene", &short(0x0001, 5, false)).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::SizeSmallerThanHeader { size: 5, header: 6 });
        assert_eq!(err.path.as_str(), "Scene/0x0001");
        // container bit with a zero size is not the long form: it is a 0-size short header.
        let err = parse_stream("Scene", &short(0x0001, 0, true)).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::SizeSmallerThanHeader { size: 0, header: 6 });
        let err = parse_stream("Scene", &long(0x0001, 13, true)).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::SizeSmallerThanHeader { size: 13, header: 14 });
    }

    #[test]
    fn size_past_parent_end_is_located() {
        let mut kids = short(0x0001, 6, false);
        kids.extend(short(0x0002, 100, false));
        kids.extend_from_slice(&[0; 4]);
        let mut data = short(0x2012, 6 + kids.len() as u32, true);
        data.extend(kids);
        let err = parse_stream("Scene", &data).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::SizePastParentEnd { end: 112, parent_end: 22 });
        assert_eq!(err.offset, 12);
        assert_eq!(err.path.as_str(), "Scene/0x2012/[1]0x0002");
    }

    #[test]
    fn size_near_u64_max_does_not_overflow() {
        let data = long(0x0001, u64::MAX >> 1, false);
        let err = parse_stream("Scene", &data).unwrap_err();
        assert!(matches!(err.kind, ChunkErrorKind::SizePastParentEnd { .. }));
    }

    #[test]
    fn absurd_nesting_is_refused() {
        let depth = MAX_DEPTH + 5;
        let mut data = Vec::new();
        for level in 0..depth {
            data.extend(short(0x0100, (6 * (depth - level)) as u32, true));
        }
        let err = parse_stream("Config", &data).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::TooDeep { limit: MAX_DEPTH });
        assert_eq!(err.offset, 6 * (MAX_DEPTH as u64 - 1));
        assert_eq!(err.path.as_str().matches("0x0100").count(), MAX_DEPTH);
    }

    #[test]
    fn deepest_allowed_nesting_parses() {
        let depth = MAX_DEPTH;
        let mut data = Vec::new();
        for level in 0..depth {
            data.extend(short(0x0100, (6 * (depth - level)) as u32, true));
        }
        let tree = parse_stream("Config", &data).unwrap();
        assert_eq!(crate::chunk::TreeStats::of(&tree).max_depth, MAX_DEPTH);
    }

    /// The Scene root of a Max 2024 zstd file after inflation: id 0x2029, `u32 1`,
    /// `u64 0xFFFF_FFFF_FFFF_FFFF` (bytes as measured, wild/README.md).
    fn scene_root_to_end() -> Vec<u8> {
        let mut v = vec![0x29, 0x20, 0x01, 0x00, 0x00, 0x00];
        v.extend_from_slice(&[0xFF; 8]);
        v
    }

    #[test]
    fn run_to_end_roots_of_zstd_streams_parse_and_write_back() {
        let mut scene = scene_root_to_end();
        scene.extend(short(0x0005, 8, false));
        scene.extend_from_slice(&[1, 2]);
        scene.extend(long(0x0006, 14, true));
        let tree = parse_stream("Scene_Compressed", &scene).unwrap();
        assert_eq!(tree.len(), 1);
        assert_eq!((tree[0].id, tree[0].width), (0x2029, HeaderWidth::LongToEnd));
        assert_eq!(tree[0].children().len(), 2);
        assert_eq!(super::super::write_stream(&tree).unwrap(), scene);

        // ClassDirectory3 wrapper: 0x2204 with a 6-byte header of size 0xFFFF_FFFF.
        let mut classes = vec![0x04, 0x22, 0xFF, 0xFF, 0xFF, 0xFF];
        classes.extend(short(0x2040, 6, true));
        let tree = parse_stream("ClassDirectory3_Compressed", &classes).unwrap();
        assert_eq!((tree[0].id, tree[0].width), (0x2204, HeaderWidth::ShortToEnd));
        assert_eq!(crate::chunk::content(&tree).len(), 1);
        assert_eq!(crate::chunk::content(&tree)[0].id, 0x2040);
        assert_eq!(super::super::write_stream(&tree).unwrap(), classes);
        assert_eq!(crate::chunk::TreeStats::of(&tree).headers_to_end, 1);

        // An empty wrapper (nothing after the header) is still the form.
        let tree = parse_stream("Config_Compressed", &[0x06, 0x22, 0xFF, 0xFF, 0xFF, 0xFF]).unwrap();
        assert!(tree[0].is_container() && tree[0].children().is_empty());
    }

    #[test]
    fn run_to_end_forms_are_refused_below_the_top_level_and_in_near_misses() {
        // Below the top level a size of 0xFFFF_FFFF is an ordinary (too large) size.
        let mut data = short(0x2012, 12, true);
        data.extend_from_slice(&[0x01, 0x00, 0xFF, 0xFF, 0xFF, 0xFF]);
        let err = parse_stream("Scene", &data).unwrap_err();
        assert!(matches!(err.kind, ChunkErrorKind::SizePastParentEnd { .. }), "{err}");
        // `u32 1` without the all-ones 64-bit size is a 1-byte size, as before.
        let mut near = vec![0x29, 0x20, 0x01, 0x00, 0x00, 0x00];
        near.extend_from_slice(&[0xFF; 7]);
        near.push(0x7F);
        let err = parse_stream("Scene", &near).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::SizeSmallerThanHeader { size: 1, header: 6 });
        // The long form cut short is not the form either.
        let err = parse_stream("Scene", &scene_root_to_end()[..10]).unwrap_err();
        assert_eq!(err.kind, ChunkErrorKind::SizeSmallerThanHeader { size: 1, header: 6 });
    }
}
