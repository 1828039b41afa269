#!/usr/bin/env python3
"""biped_match.py - look for the FBX bind pose of each Biped bone among the floats of the
0x9155 Biped system object (research only).

For every FBX Model whose name starts with the biped root name (default "Bip"), computes from
the FBX (binary, read by fbx_bind.py):
  W  world translation (FBX frame: Y-up, as GlobalSettings says; = Biped's internal Y-up frame),
  Wz world translation in Max Z-up ((x, y, z)_fbx -> (x, -z, y)_max),
  T  Lcl Translation, Rz Lcl Rotation in radians (and the hinge form pi + Rz),
  Q  world and local rotation as unit quaternions (both signs),
and searches every float32 of the live block of the 0x9155 object (chunks after the last
0x0108; see biped_dump.py) for values within --tol (default 1e-3). Values with |v| < 0.05 or
|v| = 1 +- 1e-6 are not searched (they match everywhere). Prints, per bone and per component,
the chunk id and float index of each hit ("0x0069[18]").

Usage:
    python3 scripts/research/biped_match.py <file.max> <file.fbx> [--tol 1e-3] [--bones A,B,...]
    (BIP_PREFIX=B_ selects FBX models by another name prefix, e.g. the LD35 helper bones)
"""
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maxchunks import MaxFile, floats  # noqa: E402
from fbx_bind import Scene, mat_mul  # noqa: E402


def quat_of(m):
    """Unit quaternion (x, y, z, w) of the rotation part of a row-major column-vector 4x4
    (columns normalised first, so a scale does not disturb it)."""
    c = [[m[i][j] for i in range(3)] for j in range(3)]
    c = [[v / math.sqrt(sum(x * x for x in col)) for v in col] for col in c]
    r = [[c[j][i] for j in range(3)] for i in range(3)]
    tr = r[0][0] + r[1][1] + r[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1.0) * 2
        w, x, y, z = 0.25 * s, (r[2][1] - r[1][2]) / s, (r[0][2] - r[2][0]) / s, (r[1][0] - r[0][1]) / s
    elif r[0][0] > r[1][1] and r[0][0] > r[2][2]:
        s = math.sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]) * 2
        w, x, y, z = (r[2][1] - r[1][2]) / s, 0.25 * s, (r[0][1] + r[1][0]) / s, (r[0][2] + r[2][0]) / s
    elif r[1][1] > r[2][2]:
        s = math.sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]) * 2
        w, x, y, z = (r[0][2] - r[2][0]) / s, (r[0][1] + r[1][0]) / s, 0.25 * s, (r[1][2] + r[2][1]) / s
    else:
        s = math.sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]) * 2
        w, x, y, z = (r[1][0] - r[0][1]) / s, (r[0][2] + r[2][0]) / s, (r[1][2] + r[2][1]) / s, 0.25 * s
    return (x, y, z, w)


def inv_rigid(m):
    r = [[m[j][i] for j in range(3)] for i in range(3)]
    t = [-sum(r[i][k] * m[k][3] for k in range(3)) for i in range(3)]
    return [r[0] + [t[0]], r[1] + [t[1]], r[2] + [t[2]], [0, 0, 0, 1]]


# chunks left out of the search: references, and the large undecoded float tables whose
# thousands of values give chance hits (0x014d, 0x070d: see docs/biped-format-notes.md)
SKIP = (0x2034, 0x014d, 0x070d)


def live_floats(m, obj):
    kids = obj.children
    last = max((i for i, c in enumerate(kids) if c.id == 0x0108), default=0)
    out = []  # (chunk id, float index, value, stream offset)
    seen = set()
    for c in kids[last:] + kids[:last]:
        if c.id in seen or c.id in SKIP:
            continue
        seen.add(c.id)
        for k, v in enumerate(floats(c.data)):
            if math.isfinite(v):
                out.append((c.id, k, v, c.payload_offset + 4 * k))
    return out


def main():
    args = sys.argv[1:]
    tol = 1e-3
    bones = None
    if "--tol" in args:
        i = args.index("--tol")
        tol = float(args[i + 1])
        del args[i:i + 2]
    if "--bones" in args:
        i = args.index("--bones")
        bones = args[i + 1].split(",")
        del args[i:i + 2]
    m = MaxFile(args[0])
    sc = Scene(args[1])
    gs = sc.global_settings
    print("FBX %d: UpAxis %s sign %s, FrontAxis %s sign %s, CoordAxis %s, UnitScaleFactor %s, OriginalUpAxis %s" % (
        sc.version, gs.get("UpAxis"), gs.get("UpAxisSign"), gs.get("FrontAxis"), gs.get("FrontAxisSign"),
        gs.get("CoordAxis"), gs.get("UnitScaleFactor"), gs.get("OriginalUpAxis")))
    objs = m.objects_of(0x9155)
    if not objs:
        print("no 0x9155 object")
        return
    bp = sc.bind_pose()
    pool = live_floats(m, objs[0][1])
    print("searching %d floats of the live block of 0x9155 #%d, tol %g" % (len(pool), objs[0][0], tol))

    def hits(v):
        if abs(v) < 0.05 or abs(abs(v) - 1) < 1e-6:
            return None
        return ["0x%04x[%d]" % (cid, k) for cid, k, f, _ in pool if abs(f - v) <= tol]

    def show(label, values):
        parts = []
        for v in values:
            h = hits(v)
            if h is None:
                parts.append("%.5f:-" % v)
            else:
                parts.append("%.5f:%s" % (v, ",".join(h[:4]) + ("..(+%d)" % (len(h) - 4) if len(h) > 4 else "") if h else "none"))
        print("    %-6s %s" % (label, "  ".join(parts)))

    root_prefix = os.environ.get("BIP_PREFIX", "Bip")
    for key, md in sc.models.items():
        name = md["name"]
        if not name.startswith(root_prefix):
            continue
        if bones and name not in bones:
            continue
        w = sc.world(key)
        par = md["parent"]
        pw = sc.world(par) if par is not None else [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
        loc = mat_mul(inv_rigid(pw), w)
        p = md["props"]
        print("%s (parent %s)%s" % (name, sc.models[par]["name"] if par is not None else None,
                                    "" if name in bp else " [not in BindPose]"))
        if name in bp:
            d = max(abs(bp[name][i][j] - w[i][j]) for i in range(3) for j in range(4))
            print("    BindPose vs Lcl chain: max |diff| %.2g" % d)
        W = [w[i][3] for i in range(3)]
        show("W", W)
        show("Wz", [W[0], -W[2], W[1]])
        show("T", p.get("Lcl Translation", [0, 0, 0]))
        r = [math.radians(a) for a in p.get("Lcl Rotation", [0, 0, 0])]
        show("R rad", r)
        show("pi+Rz", [math.pi + r[2]])
        qw = quat_of(w)
        show("Qworld", list(qw) + [-x for x in qw])
        ql = quat_of(loc)
        show("Qlocal", list(ql) + [-x for x in ql])


if __name__ == "__main__":
    main()
