#!/usr/bin/env python3
"""biped_quat_solve.py - search the frame rule of a stored Biped quaternion (research only; needs numpy).

For one bone and one stored quaternion slot, tries every rule
    R_bone_world = R_ref * A * M(q') * B
with R_ref in {COM world, pelvis world, INode-parent world} (from the FBX Lcl chain, Y-up = Biped
frame), q' in {q, conj q, mirror q = (x, y, -z, -w), conj mirror q}, M = the column-vector rotation
matrix of (x, y, z, w), and A, B among the 24 axis-permutation rotations; keeps the rules whose
error (max |matrix difference|) is below --tol on EVERY file pair given. A rule that holds on rigs
with different stored values is a decode; one that holds on one file only is a coincidence.

Usage:
    python3 scripts/research/biped_quat_solve.py BONE CHUNK INDEX [--tol 1e-4] a.max a.fbx [b.max b.fbx ...]
    e.g. BONE = "L Thigh", CHUNK = 0x0069, INDEX = 122 (the left half's [2..5])
The biped root name is read per file (the node driven by Vertical/Horizontal/Turn).
"""
import itertools
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maxchunks import MaxFile, floats  # noqa: E402
from fbx_bind import Scene  # noqa: E402


def qmat(q):
    x, y, z, w = q
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def perms():
    out = []
    for p in itertools.permutations(range(3)):
        for s in itertools.product((1, -1), repeat=3):
            m = np.zeros((3, 3))
            for i in range(3):
                m[i, p[i]] = s[i]
            if np.linalg.det(m) > 0:
                out.append(m)
    return out


def rot(m):
    r = np.array([[m[i][j] for j in range(3)] for i in range(3)])
    return r / np.linalg.norm(r, axis=0)


def load(maxp, fbxp, bone, cid, idx):
    m = MaxFile(maxp)
    sc = Scene(fbxp)
    obj = m.objects_of(0x9155)[0][1]
    kids = obj.children
    last = max((i for i, c in enumerate(kids) if c.id == 0x0108), default=0)
    chunk = next(c for c in kids[last:] + kids[:last] if c.id == cid)
    q = floats(chunk.data)[idx:idx + 4]
    vht = set(m.find_class(0x9156))
    root = next(n for i, n in m.nodes().items()
                if m.refs(m.objects[i]).get(0) is not None and m.objects[m.refs(m.objects[i])[0]].id in vht)
    key = sc.by_name["%s %s" % (root, bone)]
    par = sc.models[key]["parent"]
    refs = {"COM": rot(sc.world(sc.by_name[root])), "pelvis": rot(sc.world(sc.by_name[root + " Pelvis"])),
            "parent": rot(sc.world(par))}
    return os.path.basename(maxp), np.array(q), rot(sc.world(key)), refs


def main():
    a = sys.argv[1:]
    tol = 1e-4
    if "--tol" in a:
        i = a.index("--tol")
        tol = float(a[i + 1])
        del a[i:i + 2]
    bone, cid, idx = a[0], int(a[1], 16), int(a[2])
    data = [load(a[k], a[k + 1], bone, cid, idx) for k in range(3, len(a), 2)]
    for name, q, _, _ in data:
        print("%s: 0x%04x[%d..%d] = %s" % (name, cid, idx, idx + 3, np.round(q, 6)))
    P = perms()
    forms = {"q": lambda q: q, "conj": lambda q: q * [-1, -1, -1, 1], "mirror": lambda q: q * [1, 1, -1, -1],
             "conj mirror": lambda q: q * [-1, -1, 1, -1]}
    found = 0
    for ref in ("COM", "pelvis", "parent"):
        for fname, f in forms.items():
            for ia, A in enumerate(P):
                for ib, B in enumerate(P):
                    errs = [np.abs(refs[ref] @ A @ qmat(f(q)) @ B - w).max() for _, q, w, refs in data]
                    if max(errs) < tol:
                        found += 1
                        print("rule: world = %s * A * M(%s) * B, err %s\n  A = %s\n  B = %s" % (
                            ref, fname, ["%.1e" % e for e in errs], A.astype(int).tolist(), B.astype(int).tolist()))
    best = None
    if not found:
        for ref in ("COM", "pelvis", "parent"):
            for fname, f in forms.items():
                for A in P:
                    for B in P:
                        e = max(np.abs(refs[ref] @ A @ qmat(f(q)) @ B - w).max() for _, q, w, refs in data)
                        if best is None or e < best[0]:
                            best = (e, ref, fname, A, B)
        print("no rule under tol %g; best: err %.3g with %s, %s, A %s, B %s" % (
            tol, best[0], best[1], best[2], best[3].astype(int).tolist(), best[4].astype(int).tolist()))


if __name__ == "__main__":
    main()
