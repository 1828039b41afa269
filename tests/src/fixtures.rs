//! `.max` files the tests assemble themselves, independent of the parser under test:
//! chunk bytes are written by hand from the documented layouts (digest §1.1, §3, §4) and
//! wrapped with the `cfb` crate directly, never with pmcore's writer. Plus a helper that
//! runs a built binary on a file and captures everything it says.
//!
//! Chunk header (6 bytes): `u16 id`, `u32 size` where size counts the header and the
//! body, and bit 31 marks a container.

use std::io::Write;
use std::path::Path;

/// Size-bit marking a container in a 6-byte header.
pub const CONTAINER_BIT: u32 = 0x8000_0000;
/// The OLE compound-file magic.
pub const OLE_MAGIC: [u8; 8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1];

/// A leaf chunk with a 6-byte header.
pub fn leaf(id: u16, payload: &[u8]) -> Vec<u8> {
    header(id, payload.len(), 0).into_iter().chain(payload.iter().copied()).collect()
}

/// A container chunk with a 6-byte header around already-encoded children.
pub fn container(id: u16, children: &[Vec<u8>]) -> Vec<u8> {
    let body: Vec<u8> = children.concat();
    let mut out = header(id, body.len(), CONTAINER_BIT);
    out.extend(body);
    out
}

fn header(id: u16, body_len: usize, bit: u32) -> Vec<u8> {
    let size = u32::try_from(body_len + 6).expect("fixture chunks stay below 2 GiB") | bit;
    let mut out = id.to_le_bytes().to_vec();
    out.extend(size.to_le_bytes());
    out
}

/// UTF-16LE bytes, no terminator (how Max stores names).
pub fn utf16(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

/// Little-endian `i32`s (reference lists, parent indices).
pub fn i32s(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Little-endian `u32`s.
pub fn u32s(values: &[u32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Chunk ids of the documented layouts used here.
pub mod ids {
    /// DllDirectory header leaf.
    pub const DLL_HEADER: u16 = 0x21c0;
    /// DllEntry container.
    pub const DLL_ENTRY: u16 = 0x2038;
    /// DllEntry description.
    pub const DLL_DESCRIPTION: u16 = 0x2039;
    /// DllEntry file name.
    pub const DLL_FILE: u16 = 0x2037;
    /// ClassEntry container.
    pub const CLASS_ENTRY: u16 = 0x2040;
    /// ClassEntry header: s32 dll, u32 a, u32 b, u32 superclass.
    pub const CLASS_HEADER: u16 = 0x2060;
    /// ClassEntry display name.
    pub const CLASS_NAME: u16 = 0x2042;
    /// Scene object id for an OSM Derived object (modifier stack).
    pub const OSM_DERIVED: u16 = 0x2032;
    /// Flat reference list: s32 storage index per slot.
    pub const REFS: u16 = 0x2034;
    /// NodeImpl parent: u32 parent index, u32 flags.
    pub const NODE_PARENT: u16 = 0x0960;
    /// NodeImpl name.
    pub const NODE_NAME: u16 = 0x0962;
    /// Max 2010 Scene root id.
    pub const ROOT_MAX2010: u16 = 0x2012;
}

/// Builds the three chunk streams a Scene needs (DllDirectory, ClassDirectory3, Scene)
/// entry by entry. Indices returned by the methods are what other entries refer to.
#[derive(Clone, Debug)]
pub struct SceneBuilder {
    root_id: u16,
    dlls: Vec<Vec<u8>>,
    classes: Vec<Vec<u8>>,
    objects: Vec<Vec<u8>>,
}

impl Default for SceneBuilder {
    fn default() -> Self {
        SceneBuilder { root_id: ids::ROOT_MAX2010, dlls: Vec::new(), classes: Vec::new(), objects: Vec::new() }
    }
}

impl SceneBuilder {
    /// An empty Max 2010 scene.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a DllDirectory entry; returns its index.
    pub fn dll(&mut self, description: &str, file: &str) -> i32 {
        self.dlls.push(container(
            ids::DLL_ENTRY,
            &[leaf(ids::DLL_DESCRIPTION, &utf16(description)), leaf(ids::DLL_FILE, &utf16(file))],
        ));
        (self.dlls.len() - 1) as i32
    }

    /// Adds a ClassDirectory3 entry; returns its index, the chunk id of its Scene objects.
    pub fn class(&mut self, dll: i32, class_id: [u32; 2], superclass: u32, name: &str) -> u16 {
        let header = u32s(&[dll as u32, class_id[0], class_id[1], superclass]);
        self.classes.push(container(
            ids::CLASS_ENTRY,
            &[leaf(ids::CLASS_HEADER, &header), leaf(ids::CLASS_NAME, &utf16(name))],
        ));
        u16::try_from(self.classes.len() - 1).expect("few classes")
    }

    /// Adds a Scene object of chunk id `id` (a class index, or [`ids::OSM_DERIVED`]) with
    /// these encoded children; returns its storage index.
    pub fn object(&mut self, id: u16, children: &[Vec<u8>]) -> i32 {
        self.objects.push(container(id, children));
        (self.objects.len() - 1) as i32
    }

    /// Adds a NodeImpl object of class `node_class`: parent, name and references with
    /// the node's object in slot 1 (slot 0, the transform controller, left empty).
    pub fn node(&mut self, node_class: u16, name: &str, parent: i32, object: i32) -> i32 {
        self.object(
            node_class,
            &[
                leaf(ids::NODE_PARENT, &i32s(&[parent, 0])),
                leaf(ids::NODE_NAME, &utf16(name)),
                leaf(ids::REFS, &i32s(&[-1, object])),
            ],
        )
    }

    /// The encoded streams, in the order Max writes them.
    pub fn streams(&self) -> Vec<(String, Vec<u8>)> {
        let mut dll = vec![leaf(ids::DLL_HEADER, &u32s(&[0]))];
        dll.extend(self.dlls.iter().cloned());
        vec![
            ("Scene".to_string(), container(self.root_id, &self.objects)),
            ("DllDirectory".to_string(), dll.concat()),
            ("ClassDirectory3".to_string(), self.classes.concat()),
        ]
    }

    /// The whole `.max` file.
    pub fn max_bytes(&self) -> Vec<u8> {
        let streams = self.streams();
        ole_bytes(&streams.iter().map(|(n, b)| (n.as_str(), b.as_slice())).collect::<Vec<_>>())
    }
}

/// The smallest real-looking file: a root node and one named node holding one object.
/// It passes T1; the farm's fault tests arm `PMWORKER_FAULT` on it.
pub fn minimal_max() -> Vec<u8> {
    let mut s = SceneBuilder::new();
    let root = s.class(-1, [2, 0], 1, "RootNode");
    let node = s.class(-1, [1, 0], 1, "Node");
    let boxed = s.class(-1, [0x10, 0], 0x10, "Box");
    let root_obj = s.object(root, &[leaf(0x0100, &i32s(&[0]))]);
    let base = s.object(boxed, &[leaf(0x0100, &u32s(&[1, 2, 3]))]);
    s.node(node, "Box01", root_obj, base);
    s.max_bytes()
}

/// An OLE compound file holding `streams` at the root, written with `cfb`.
pub fn ole_bytes(streams: &[(&str, &[u8])]) -> Vec<u8> {
    let mut cf = cfb::CompoundFile::create(std::io::Cursor::new(Vec::new())).expect("cfb in memory");
    for (name, bytes) in streams {
        let mut s = cf.create_stream(format!("/{name}")).expect("stream name is valid");
        s.write_all(bytes).expect("write stream");
    }
    cf.flush().expect("flush compound file");
    cf.into_inner().into_inner()
}

/// OLE magic followed by bytes no compound-file reader accepts.
pub fn corrupt_ole() -> Vec<u8> {
    let mut out = OLE_MAGIC.to_vec();
    out.extend((0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8));
    out
}

/// Writes `bytes` to `dir/name` and returns the path.
pub fn write_file(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write fixture");
    path
}

/// Everything a finished binary run left behind.
#[derive(Debug)]
pub struct Run {
    /// Exit code, `None` when killed by a signal.
    pub code: Option<i32>,
    /// Terminating signal, if any.
    pub signal: Option<i32>,
    /// Standard output, lossily decoded.
    pub stdout: String,
    /// Standard error, lossily decoded.
    pub stderr: String,
}

impl Run {
    /// Non-empty stdout lines.
    pub fn lines(&self) -> Vec<&str> {
        self.stdout.lines().filter(|l| !l.trim().is_empty()).collect()
    }
}

/// Runs the worker executable `binary` with `args…` (the file among them) and extra
/// environment variables, through the harness ([`crate::harness::Worker::at`]: the fault
/// hook is armed only by `env`), and waits for it.
pub fn run(binary: &Path, args: &[&std::ffi::OsStr], env: &[(&str, &str)]) -> Run {
    let mut worker = crate::harness::Worker::at(binary).args(args);
    for (k, v) in env {
        worker = worker.env(k, v);
    }
    let out = worker.output();
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&out.status);
    #[cfg(not(unix))]
    let signal = None;
    Run {
        code: out.status.code(),
        signal,
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs the built `pmworker` on one file with extra environment variables.
pub fn run_worker(file: &Path, env: &[(&str, &str)]) -> Run {
    run(&crate::binary("pmworker"), &[file.as_os_str()], env)
}
