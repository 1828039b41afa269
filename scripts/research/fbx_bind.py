#!/usr/bin/env python3
"""fbx_bind.py - minimal binary FBX (6.1 and 7.x) reader for research (not used by pmref).

Reads the node-record tree (u32 offsets before 7500, u64 from 7500; array properties may be
zlib-deflated), then extracts:
  - GlobalSettings: UnitScaleFactor, Up/Front/Coord axes (7.x Properties70; 6.1 has none),
  - every Model: name, type, Lcl Translation/Rotation/Scaling, PreRotation, RotationOrder,
    parent (from Connections), and its world matrix composed from the Lcl chain
    (FBX rule without pivots/offsets: T * Roff * Rp * Rpre * R * Rpost^-1 * Rp^-1 * Soff * Sp * S;
    these files only use PreRotation, Lcl and GeometricX, which does not apply to children),
  - the BindPose Pose node's matrices (PoseNode: Node -> Matrix, row-major 4x4, column-vector
    translation in the last row as FBX stores it: m[12..14]).

Usage:
    python3 scripts/research/fbx_bind.py <file.fbx> [name-substring ...]
prints GlobalSettings, then for each Model (or those matching a substring) the Lcl values, the
composed world translation and, when present, the BindPose matrix.
"""
import math
import struct
import sys
import zlib


class Node:
    __slots__ = ("name", "props", "children")

    def __init__(self, name, props, children):
        self.name, self.props, self.children = name, props, children

    def find(self, name):
        for c in self.children:
            if c.name == name:
                return c
        return None

    def findall(self, name):
        return [c for c in self.children if c.name == name]


def _read_prop(d, p):
    t = chr(d[p]); p += 1
    if t == "Y":
        return struct.unpack_from("<h", d, p)[0], p + 2
    if t == "C":
        return bool(d[p]), p + 1
    if t == "I":
        return struct.unpack_from("<i", d, p)[0], p + 4
    if t == "F":
        return struct.unpack_from("<f", d, p)[0], p + 4
    if t == "D":
        return struct.unpack_from("<d", d, p)[0], p + 8
    if t == "L":
        return struct.unpack_from("<q", d, p)[0], p + 8
    if t in "fdlib":
        n, enc, clen = struct.unpack_from("<III", d, p); p += 12
        raw = d[p:p + clen]; p += clen
        if enc == 1:
            raw = zlib.decompress(raw)
        fmt = {"f": "f", "d": "d", "l": "q", "i": "i", "b": "B"}[t]
        return list(struct.unpack("<%d%s" % (n, fmt), raw)), p
    if t in "SR":
        n = struct.unpack_from("<I", d, p)[0]; p += 4
        raw = d[p:p + n]; p += n
        return (raw.decode("utf-8", "replace") if t == "S" else raw), p
    raise ValueError("prop type %r at %d" % (t, p))


def _read_nodes(d, p, end, wide):
    out = []
    hs = 25 if wide else 13
    while p < end:
        if wide:
            eo, np_, _pl = struct.unpack_from("<QQQ", d, p)
        else:
            eo, np_, _pl = struct.unpack_from("<III", d, p)
        nl = d[p + hs - 1]
        if eo == 0:  # null record
            return out, p + hs
        name = d[p + hs:p + hs + nl].decode("ascii", "replace")
        q = p + hs + nl
        props = []
        for _ in range(np_):
            v, q = _read_prop(d, q)
            props.append(v)
        children = []
        if q < eo:
            children, q = _read_nodes(d, q, eo, wide)
        out.append(Node(name, props, children))
        p = eo
    return out, p


def load(path):
    d = open(path, "rb").read()
    assert d[:20] == b"Kaydara FBX Binary  "
    ver = struct.unpack_from("<I", d, 23)[0]
    nodes, _ = _read_nodes(d, 27, len(d), ver >= 7500)
    return ver, Node("", [], nodes)


# ---------------- math ----------------

def mat_mul(a, b):  # 4x4 row-major, column vectors: (a*b) applies b first
    return [[sum(a[i][k] * b[k][j] for k in range(4)) for j in range(4)] for i in range(4)]


def mat_t(v):
    return [[1, 0, 0, v[0]], [0, 1, 0, v[1]], [0, 0, 1, v[2]], [0, 0, 0, 1]]


def mat_s(v):
    return [[v[0], 0, 0, 0], [0, v[1], 0, 0], [0, 0, v[2], 0], [0, 0, 0, 1]]


def mat_euler_xyz(deg):
    """FBX eEulerXYZ: R = Rz * Ry * Rx (x applied first)."""
    x, y, z = (math.radians(a) for a in deg)
    cx, sx, cy, sy, cz, sz = math.cos(x), math.sin(x), math.cos(y), math.sin(y), math.cos(z), math.sin(z)
    rx = [[1, 0, 0, 0], [0, cx, -sx, 0], [0, sx, cx, 0], [0, 0, 0, 1]]
    ry = [[cy, 0, sy, 0], [0, 1, 0, 0], [-sy, 0, cy, 0], [0, 0, 0, 1]]
    rz = [[cz, -sz, 0, 0], [sz, cz, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    return mat_mul(rz, mat_mul(ry, rx))


def from_fbx_array(m):
    """FBX stores 16 doubles column-major (translation at 12..14) -> row-major column-vector."""
    return [[m[j * 4 + i] for j in range(4)] for i in range(4)]


# ---------------- scene ----------------

def props70(node):
    """{name: values} from Properties70 (7.x: P) or Properties60 (6.x: Property)."""
    out = {}
    if node is None:
        return out
    for pn in ("Properties70", "Properties60"):
        pb = node.find(pn)
        if pb is None:
            continue
        for p in pb.children:
            if p.name in ("P", "Property"):
                vals = p.props[4:] if p.name == "P" else p.props[3:]
                out[p.props[0]] = vals
    return out


def _name61(s):
    """6.1 object names: "Name\\x00\\x01Class" (binary) or "Class::Name"."""
    if "\x00\x01" in s:
        return s.split("\x00\x01")[0]
    return s.split("::", 1)[-1]


class Scene:
    def __init__(self, path):
        self.version, root = load(path)
        self.root = root
        objs = root.find("Objects")
        gs = root.find("GlobalSettings") or objs.find("GlobalSettings")  # 6.1: under Objects
        self.global_settings = props70(gs)
        self.models = {}  # key -> dict
        self.poses = []
        for o in objs.children:
            if o.name == "Model":
                if self.version >= 7000:
                    key, name, typ = o.props[0], o.props[1].split("\x00")[0], o.props[2]
                else:
                    key, name, typ = o.props[0], _name61(o.props[0]), o.props[1]
                self.models[key] = {"name": name, "type": typ, "props": props70(o), "parent": None}
            elif o.name == "Pose":
                self.poses.append(o)
        conns = root.find("Connections")
        for c in conns.children if conns else []:
            if c.name in ("C", "Connect") and c.props[0] == "OO":
                child, parent = c.props[1], c.props[2]
                if child in self.models and parent in self.models:
                    self.models[child]["parent"] = parent
        self.by_name = {m["name"]: k for k, m in self.models.items()}

    def local(self, key):
        p = self.models[key]["props"]
        t = p.get("Lcl Translation", [0, 0, 0])
        r = p.get("Lcl Rotation", [0, 0, 0])
        s = p.get("Lcl Scaling", [1, 1, 1])
        pre = p.get("PreRotation", [0, 0, 0])
        if p.get("RotationActive", [1])[0] in (0,):
            pre = [0, 0, 0]
        return mat_mul(mat_t(t), mat_mul(mat_euler_xyz(pre), mat_mul(mat_euler_xyz(r), mat_s(s))))

    def world(self, key):
        m = self.local(key)
        par = self.models[key]["parent"]
        while par is not None:
            m = mat_mul(self.local(par), m)
            par = self.models[par]["parent"]
        return m

    def bind_pose(self):
        """{model name: 4x4 row-major matrix} of the first Pose of type BindPose."""
        out = {}
        for po in self.poses:
            typ = po.find("Type")
            if typ is None or typ.props[0] != "BindPose":
                continue
            for pn in po.findall("PoseNode"):
                nd, mx = pn.find("Node").props[0], pn.find("Matrix").props[0]
                mxn = pn.find("Matrix")
                mx = mx if isinstance(mx, list) else list(mxn.props)  # 6.1: 16 separate doubles
                name = self.models[nd]["name"] if nd in self.models else _name61(str(nd))
                out[name] = from_fbx_array(mx)
            break
        return out


def fmt_m(m):
    return "\n".join("    [" + ", ".join("%11.5f" % v for v in row) + "]" for row in m)


def main():
    sc = Scene(sys.argv[1])
    subs = sys.argv[2:]
    print("FBX version", sc.version)
    for k in ("UpAxis", "UpAxisSign", "FrontAxis", "FrontAxisSign", "CoordAxis", "CoordAxisSign",
              "OriginalUpAxis", "UnitScaleFactor", "OriginalUnitScaleFactor"):
        if k in sc.global_settings:
            print("  GlobalSettings %s = %s" % (k, sc.global_settings[k]))
    bp = sc.bind_pose()
    print("BindPose entries:", len(bp))
    for key, m in sc.models.items():
        if subs and not any(s.lower() in m["name"].lower() for s in subs):
            continue
        p = m["props"]
        par = sc.models[m["parent"]]["name"] if m["parent"] is not None else None
        print("Model %r (%s) parent %r" % (m["name"], m["type"], par))
        for k in ("Lcl Translation", "Lcl Rotation", "Lcl Scaling", "PreRotation", "RotationOrder",
                  "GeometricTranslation", "GeometricRotation"):
            if k in p:
                print("  %s = %s" % (k, p[k]))
        w = sc.world(key)
        print("  world (Lcl chain):\n" + fmt_m(w))
        if m["name"] in bp:
            print("  BindPose:\n" + fmt_m(bp[m["name"]]))


if __name__ == "__main__":
    main()
