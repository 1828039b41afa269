//! DirectX `.x`, binary form (`xof 0303bin 0032`/`0064`), as far as the references need it:
//! `Frame` objects (name, parent, `FrameTransformMatrix`) and the `Mesh` inside each
//! (positions and faces). Templates, materials, normals and texture coordinates are
//! skipped by structure, never interpreted.
//!
//! Binary tokens (`u16` each): 1 name (`u32` length, bytes), 2 string (`u32` length, bytes,
//! `u16` terminator), 3 integer (`u32`), 5 GUID (16 bytes), 6 integer list (`u32` count,
//! `u32`s), 7 float list (`u32` count, `f32` or `f64` by the header), 10/11 braces,
//! 31 `template`; the other tokens carry no data.

use crate::scene::{Format, RefMesh, RefNode, RefScene};
use glam::DMat4;

/// Why a `.x` file did not read; `offset` is the byte offset in the file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum XError {
    /// Not a binary `.x` (text and compressed forms are not read).
    #[error("not a binary DirectX .x file (header {0:?})")]
    NotBinary(String),
    /// A token runs past the end.
    #[error("token at offset {0} runs past the end")]
    Truncated(u64),
    /// A token this reader does not know.
    #[error("unknown token {token} at offset {offset}")]
    UnknownToken {
        /// Token code.
        token: u16,
        /// Where.
        offset: u64,
    },
    /// Structure that does not match the templates' layout.
    #[error("{what} at offset {offset}")]
    Malformed {
        /// What was wrong.
        what: String,
        /// Where.
        offset: u64,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Token {
    Name(String),
    Int(u32),
    Ints(Vec<u32>),
    Floats(Vec<f64>),
    Open,
    Close,
    Template,
    Other,
}

/// A number of a data object, in file order.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(u32),
    Float(f64),
}

/// A data object: type, name, its own numbers, nested objects.
#[derive(Clone, Debug, Default, PartialEq)]
struct XObject {
    kind: String,
    name: String,
    numbers: Vec<Num>,
    children: Vec<XObject>,
    offset: u64,
}

/// Deepest nesting accepted.
const MAX_DEPTH: usize = 64;

fn tokens(bytes: &[u8]) -> Result<Vec<(Token, u64)>, XError> {
    let header = String::from_utf8_lossy(&bytes[..bytes.len().min(16)]).into_owned();
    if bytes.len() < 16 || &bytes[..4] != b"xof " || &bytes[8..12] != b"bin " {
        return Err(XError::NotBinary(header));
    }
    let wide_floats = &bytes[12..16] == b"0064";
    let mut out = Vec::new();
    let mut pos = 16usize;
    let take = |pos: usize, n: usize| {
        pos.checked_add(n).and_then(|end| bytes.get(pos..end)).ok_or(XError::Truncated(pos as u64))
    };
    let u32_at = |pos: usize| take(pos, 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    while pos < bytes.len() {
        let at = pos as u64;
        let b = take(pos, 2)?;
        let code = u16::from_le_bytes([b[0], b[1]]);
        pos += 2;
        let token = match code {
            1 => {
                let n = u32_at(pos)? as usize;
                let name = String::from_utf8_lossy(take(pos + 4, n)?).into_owned();
                pos += 4 + n;
                Token::Name(name)
            }
            2 => {
                let n = u32_at(pos)? as usize;
                take(pos + 4, n + 2)?;
                pos += 4 + n + 2;
                Token::Other
            }
            3 => {
                let v = u32_at(pos)?;
                pos += 4;
                Token::Int(v)
            }
            5 => {
                take(pos, 16)?;
                pos += 16;
                Token::Other
            }
            6 => {
                let n = u32_at(pos)? as usize;
                let data = take(pos + 4, n.checked_mul(4).ok_or(XError::Truncated(at))?)?;
                pos += 4 + 4 * n;
                Token::Ints(data.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
            }
            7 => {
                let n = u32_at(pos)? as usize;
                let size = if wide_floats { 8 } else { 4 };
                let data = take(pos + 4, n.checked_mul(size).ok_or(XError::Truncated(at))?)?;
                pos += 4 + size * n;
                Token::Floats(if wide_floats {
                    data.chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().expect("8 bytes"))).collect()
                } else {
                    data.chunks_exact(4).map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]) as f64).collect()
                })
            }
            10 => Token::Open,
            11 => Token::Close,
            31 => Token::Template,
            12..=20 | 40..=53 => Token::Other,
            token => return Err(XError::UnknownToken { token, offset: at }),
        };
        out.push((token, at));
    }
    Ok(out)
}

struct Parser {
    tokens: Vec<(Token, u64)>,
    pos: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|t| &t.0)
    }

    fn offset(&self) -> u64 {
        self.tokens.get(self.pos).map(|t| t.1).unwrap_or(u64::MAX)
    }

    /// Skips a braced block whose `{` is next.
    fn skip_block(&mut self) -> Result<(), XError> {
        let mut depth = 0usize;
        while let Some((t, _)) = self.tokens.get(self.pos) {
            self.pos += 1;
            match t {
                Token::Open => depth += 1,
                Token::Close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Ok(());
                    }
                }
                _ => {}
            }
        }
        Err(XError::Malformed { what: "unclosed block".into(), offset: self.offset() })
    }

    /// Parses a data object whose type name was just read.
    fn object(&mut self, kind: String, offset: u64, depth: usize) -> Result<XObject, XError> {
        if depth > MAX_DEPTH {
            return Err(XError::Malformed { what: "nesting too deep".into(), offset });
        }
        let mut obj = XObject { kind, offset, ..Default::default() };
        if let Some(Token::Name(n)) = self.peek() {
            obj.name = n.clone();
            self.pos += 1;
        }
        while matches!(self.peek(), Some(Token::Other)) {
            self.pos += 1; // a GUID
        }
        if self.peek() != Some(&Token::Open) {
            return Err(XError::Malformed { what: format!("`{{` expected after {}", obj.kind), offset: self.offset() });
        }
        self.pos += 1;
        loop {
            let at = self.offset();
            let Some(t) = self.peek().cloned() else {
                return Err(XError::Malformed { what: format!("unclosed {}", obj.kind), offset: at });
            };
            self.pos += 1;
            match t {
                Token::Close => return Ok(obj),
                Token::Name(kind) => obj.children.push(self.object(kind, at, depth + 1)?),
                Token::Open => {
                    // A reference `{ name }` to another object: not data of this one.
                    self.pos -= 1;
                    self.skip_block()?;
                }
                Token::Int(v) => obj.numbers.push(Num::Int(v)),
                Token::Ints(v) => obj.numbers.extend(v.into_iter().map(Num::Int)),
                Token::Floats(v) => obj.numbers.extend(v.into_iter().map(Num::Float)),
                Token::Template | Token::Other => {}
            }
        }
    }
}

fn top_level(bytes: &[u8]) -> Result<Vec<XObject>, XError> {
    let mut p = Parser { tokens: tokens(bytes)?, pos: 0 };
    let mut out = Vec::new();
    while let Some(t) = p.peek().cloned() {
        let at = p.offset();
        p.pos += 1;
        match t {
            Token::Template => {
                while !matches!(p.peek(), Some(Token::Open) | None) {
                    p.pos += 1;
                }
                p.skip_block()?;
            }
            Token::Name(kind) => out.push(p.object(kind, at, 0)?),
            _ => {}
        }
    }
    Ok(out)
}

fn int(n: Option<&Num>) -> Option<usize> {
    match n? {
        Num::Int(v) => Some(*v as usize),
        Num::Float(_) => None,
    }
}

fn mesh_of(obj: &XObject) -> Result<RefMesh, XError> {
    let bad = |what: &str| XError::Malformed { what: format!("Mesh {:?}: {what}", obj.name), offset: obj.offset };
    let n = &obj.numbers;
    let count = int(n.first()).ok_or_else(|| bad("vertex count missing"))?;
    let floats = n.get(1..1 + 3 * count).ok_or_else(|| bad("fewer coordinates than vertices"))?;
    let mut positions = Vec::with_capacity(count);
    for c in floats.chunks_exact(3) {
        match c {
            [Num::Float(x), Num::Float(y), Num::Float(z)] => positions.push([*x, *y, *z]),
            _ => return Err(bad("a coordinate is not a float")),
        }
    }
    let mut at = 1 + 3 * count;
    let faces = int(n.get(at)).ok_or_else(|| bad("face count missing"))?;
    at += 1;
    let mut polygons = Vec::new();
    for _ in 0..faces {
        let corners = int(n.get(at)).ok_or_else(|| bad("face corner count missing"))?;
        let face: Option<Vec<u32>> =
            (0..corners).map(|k| int(n.get(at + 1 + k)).filter(|&i| i < count).map(|i| i as u32)).collect();
        polygons.push(face.ok_or_else(|| bad("face corner missing or out of range"))?);
        at += 1 + corners;
    }
    Ok(RefMesh { positions, polygons, uv: None })
}

fn frames(obj: &XObject, parent: Option<usize>, nodes: &mut Vec<RefNode>) -> Result<(), XError> {
    let index = nodes.len();
    let mut node = RefNode {
        name: obj.name.clone(),
        kind: "Frame".into(),
        parent,
        local: DMat4::IDENTITY,
        pre_rotation: [0.0; 3],
        geometric: DMat4::IDENTITY,
        mesh: None,
        offset: obj.offset,
        fbx_transform: None,
    };
    for c in &obj.children {
        match c.kind.as_str() {
            "FrameTransformMatrix" => {
                let m: Vec<f64> =
                    c.numbers.iter().filter_map(|n| if let Num::Float(f) = n { Some(*f) } else { None }).collect();
                let m: [f64; 16] = m.get(..16).and_then(|s| s.try_into().ok()).ok_or(XError::Malformed {
                    what: "FrameTransformMatrix needs 16 floats".into(),
                    offset: c.offset,
                })?;
                // Row-vector matrices stored row by row read as column-vector columns.
                node.local = DMat4::from_cols_array(&m);
            }
            "Mesh" if node.mesh.is_none() => node.mesh = Some(mesh_of(c)?),
            _ => {}
        }
    }
    nodes.push(node);
    for c in obj.children.iter().filter(|c| c.kind == "Frame") {
        frames(c, Some(index), nodes)?;
    }
    Ok(())
}

/// Reads a binary `.x` file into a scene of frames.
pub fn read_scene(bytes: &[u8]) -> Result<RefScene, XError> {
    let mut nodes = Vec::new();
    for obj in top_level(bytes)? {
        match obj.kind.as_str() {
            "Frame" => frames(&obj, None, &mut nodes)?,
            "Mesh" => nodes.push(RefNode {
                name: obj.name.clone(),
                kind: "Mesh".into(),
                parent: None,
                local: DMat4::IDENTITY,
                pre_rotation: [0.0; 3],
                geometric: DMat4::IDENTITY,
                mesh: Some(mesh_of(&obj)?),
                offset: obj.offset,
                fbx_transform: None,
            }),
            _ => {}
        }
    }
    Ok(RefScene::of_nodes(Format::X, nodes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(out: &mut Vec<u8>, s: &str) {
        out.extend_from_slice(&1u16.to_le_bytes());
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }

    fn code(out: &mut Vec<u8>, c: u16) {
        out.extend_from_slice(&c.to_le_bytes());
    }

    fn ints(out: &mut Vec<u8>, v: &[u32]) {
        code(out, 6);
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
    }

    fn floats(out: &mut Vec<u8>, v: &[f32]) {
        code(out, 7);
        out.extend_from_slice(&(v.len() as u32).to_le_bytes());
        v.iter().for_each(|x| out.extend_from_slice(&x.to_le_bytes()));
    }

    /// Frame "A" (translation 1, 2, 3) holding a one-triangle mesh, and child frame "B".
    fn sample() -> Vec<u8> {
        let mut b = b"xof 0303bin 0032".to_vec();
        code(&mut b, 31); // a template, skipped
        name(&mut b, "Vector");
        code(&mut b, 10);
        code(&mut b, 42);
        name(&mut b, "x");
        code(&mut b, 20);
        code(&mut b, 11);
        name(&mut b, "Frame");
        name(&mut b, "A");
        code(&mut b, 10);
        name(&mut b, "FrameTransformMatrix");
        code(&mut b, 10);
        floats(&mut b, &[1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0, 2.0, 3.0, 1.0]);
        code(&mut b, 11);
        name(&mut b, "Mesh");
        code(&mut b, 10);
        ints(&mut b, &[3]);
        floats(&mut b, &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
        ints(&mut b, &[1, 3, 0, 1, 2]);
        code(&mut b, 11);
        name(&mut b, "Frame");
        name(&mut b, "B");
        code(&mut b, 10);
        code(&mut b, 11);
        code(&mut b, 11);
        b
    }

    #[test]
    fn frames_matrices_and_meshes_read() {
        let scene = read_scene(&sample()).unwrap();
        assert_eq!(scene.nodes.len(), 2);
        assert_eq!(scene.nodes[0].name, "A");
        assert_eq!(scene.nodes[0].local.w_axis.truncate().to_array(), [1.0, 2.0, 3.0]);
        let mesh = scene.nodes[0].mesh.as_ref().unwrap();
        assert_eq!((mesh.positions.len(), mesh.polygons.clone()), (3, vec![vec![0, 1, 2]]));
        assert_eq!((scene.nodes[1].name.as_str(), scene.nodes[1].parent), ("B", Some(0)));
    }

    #[test]
    fn every_truncation_is_a_typed_error() {
        let bytes = sample();
        for cut in 0..bytes.len() {
            // Either a typed error, or (cut between objects) the objects complete so far.
            assert!(read_scene(&bytes[..cut]).map_or(true, |s| s.nodes.is_empty()), "cut at {cut} read");
        }
        assert!(matches!(read_scene(b"xof 0303txt 0032\n"), Err(XError::NotBinary(_))));
    }
}
