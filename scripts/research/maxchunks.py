#!/usr/bin/env python3
"""maxchunks.py - a small, independent .max reader for research (not used by pmcore).

Opens the OLE compound file (needs `olefile`: pip install olefile), parses chunk streams the
way pmcore/src/chunk/parse.rs does (6-byte header: u16 id + u32 size, bit 31 = container;
if the u32 is 0, a 14-byte header: u16 id + u32 0 + u64 size, bit 63 = container; width and
container bit kept per chunk), reads ClassDirectory3 (0x2040 entries: 0x2060 = dll index,
ClassId a, ClassId b, superclass; 0x2042 = name) and DllDirectory, and indexes the Scene:
every child of the Scene root is an object whose chunk id is its ClassDirectory3 index.

Usage as a script:
    python3 scripts/research/maxchunks.py <file.max>            # class histogram of Scene
    python3 scripts/research/maxchunks.py <file.max> <index>    # chunk tree of one Scene object
Used as a module by biped_dump.py / biped_match.py.
"""
import struct
import sys
import zlib
import gzip

import olefile


class Chunk:
    __slots__ = ("id", "offset", "hdr", "container", "children", "data", "size")

    def __init__(self, cid, offset, hdr, container, size):
        self.id = cid
        self.offset = offset  # offset of the header within the stream
        self.hdr = hdr  # 6 or 14
        self.container = container
        self.size = size  # total size including the header
        self.children = []
        self.data = b""

    @property
    def payload_offset(self):
        return self.offset + self.hdr

    def child(self, cid):
        for c in self.children:
            if c.id == cid:
                return c
        return None

    def all(self, cid):
        return [c for c in self.children if c.id == cid]


def parse(data, start=0, end=None, depth=1):
    if end is None:
        end = len(data)
    out = []
    pos = start
    while pos < end:
        if end - pos < 6:
            raise ValueError("truncated header at %d" % pos)
        cid, short = struct.unpack_from("<HI", data, pos)
        if short == 0:
            (long_,) = struct.unpack_from("<Q", data, pos + 6)
            hdr, size, cont = 14, long_ & ~(1 << 63), bool(long_ >> 63)
        elif depth == 1 and short == 0xFFFFFFFF:
            hdr, size, cont = 6, end - pos, True
        else:
            hdr, size, cont = 6, short & 0x7FFFFFFF, bool(short >> 31)
        if size < hdr or pos + size > end:
            raise ValueError("bad size %d at %d" % (size, pos))
        c = Chunk(cid, pos, hdr, cont, size)
        if cont:
            c.children = parse(data, pos + hdr, pos + size, depth + 1)
        else:
            c.data = data[pos + hdr:pos + size]
        out.append(c)
        pos += size
    return out


def utf16(b):
    return b.decode("utf-16-le", "replace").rstrip("\x00")


def read_stream(ole, name):
    d = ole.openstream(name).read()
    if d[:2] == b"\x1f\x8b":
        d = gzip.decompress(d)
    return d


class MaxFile:
    def __init__(self, path):
        self.path = path
        ole = olefile.OleFileIO(path)
        self.streams = {"/".join(e): e for e in ole.listdir()}
        self.scene_bytes = read_stream(ole, "Scene")
        self.scene = parse(self.scene_bytes)
        cd = None
        for n in ("ClassDirectory3", "ClassDirectory2", "ClassDirectory"):
            if ole.exists(n):
                cd = parse(read_stream(ole, n))
                break
        dd = parse(read_stream(ole, "DllDirectory")) if ole.exists("DllDirectory") else []
        self.dlls = []
        for c in dd:
            if c.id == 0x2038:
                f = c.child(0x2037)
                self.dlls.append(utf16(f.data) if f else "")
        self.classes = []  # (dll, (a, b), superclass, name)
        entries = cd or []
        if len(entries) == 1 and entries[0].container and entries[0].id != 0x2040:
            entries = entries[0].children  # zstd wrapper root
        for c in entries:
            if c.id != 0x2040:
                continue
            h = c.child(0x2060).data
            dll, a, b, sc = struct.unpack("<iIII", h)
            nm = c.child(0x2042)
            self.classes.append((dll, (a, b), sc, utf16(nm.data) if nm else ""))
        root = self.scene[0]
        self.root_id = root.id
        self.objects = root.children
        ole.close()

    def cls(self, obj):
        if obj.id < len(self.classes):
            return self.classes[obj.id]
        return None

    def find_class(self, a, b=0):
        return [i for i, c in enumerate(self.classes) if c[1] == (a, b)]

    def objects_of(self, a, b=0):
        ids = set(self.find_class(a, b))
        return [(i, o) for i, o in enumerate(self.objects) if o.id in ids]

    # ---- references and nodes (scene_index.rs) ----
    @staticmethod
    def refs(obj):
        c = obj.child(0x2034)
        if c is not None:
            v = struct.unpack("<%di" % (len(c.data) // 4), c.data)
            return {s: (t if t > 0 else None) for s, t in enumerate(v)}
        c = obj.child(0x2035)
        if c is not None:
            v = struct.unpack("<%di" % (len(c.data) // 4), c.data)[1:]
            return {v[i]: (v[i + 1] if v[i + 1] > 0 else None) for i in range(0, len(v) - 1, 2) if v[i] >= 0}
        return {}

    def is_node(self, obj):
        c = self.cls(obj)
        return c is not None and c[2] == 1

    @staticmethod
    def node_name(obj):
        c = obj.child(0x0962)
        return utf16(c.data) if c is not None else None

    @staticmethod
    def node_parent(obj):
        c = obj.child(0x0960)
        if c is None or len(c.data) < 4:
            return None
        v = struct.unpack_from("<i", c.data)[0]
        return v if v >= 0 else None

    def nodes(self):
        """{storage index: name} for every node."""
        return {i: self.node_name(o) for i, o in enumerate(self.objects) if self.is_node(o)}


def floats(b):
    return struct.unpack("<%df" % (len(b) // 4), b[: len(b) // 4 * 4])


def ints(b):
    return struct.unpack("<%di" % (len(b) // 4), b[: len(b) // 4 * 4])


def walk(chunks, path=""):
    for i, c in enumerate(chunks):
        p = "%s/[%d]0x%04x" % (path, i, c.id)
        yield p, c
        if c.container:
            yield from walk(c.children, p)


def main():
    m = MaxFile(sys.argv[1])
    if len(sys.argv) == 2:
        from collections import Counter
        h = Counter()
        for o in m.objects:
            c = m.cls(o)
            h[(c[1], c[2], c[3]) if c else ("special", o.id)] += 1
        print("Scene root 0x%04x, %d objects, %d classes" % (m.root_id, len(m.objects), len(m.classes)))
        for k, n in h.most_common():
            print(n, k)
        return
    i = int(sys.argv[2])
    o = m.objects[i]
    print("object %d chunk 0x%04x class %s" % (i, o.id, m.cls(o)))
    for p, c in walk(o.children):
        print("%-40s %s size %d @%d%s" % (p, "C" if c.container else "L", c.size - c.hdr, c.payload_offset,
                                         "" if c.hdr == 6 else " (14-byte header)"))


if __name__ == "__main__":
    main()
