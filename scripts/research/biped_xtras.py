#!/usr/bin/env python3
"""biped_xtras.py - the Biped xtra rule against the FBX (research only; does not use pmcore).

Reads each rig's 0x0022 (xtra definitions), 0x0073 (figure angles; --current: 0x0266) and
places every xtra link on the FBX's own `<root> Head` world matrix (so the head's own
residual does not enter), with the rule of docs/biped-format-notes.md ("Xtras"):

    base   = P . S . M . S          (P the parent frame, M the 0x0022 3x3 read as rows,
                                     S = the (y, x, -z) swap)
    start  = P_point + P . S . t    (t the 0x0022 translation row)
    link_j = link_{j-1} . Rx(a3) . Rz(-a1) . Ry(a2)     (0x0073 angles of link j)
    node_j = link_j . Rz(eps),  pivot_j = end_j - node_j . (L_j, 0, 0),  eps = pi/2 - 1.57

P is the head node for parent (10, 0), or the internal link (frame, end) of xtra k for
parent (200 + k, link). Prints, per rig, the largest rotation (matrix element) and pivot
(cm) errors, and the xtras over 1e-5 with |cos a1| (their distance from gimbal lock) and the
residual rotation vector in the node's frame.

Usage:
    python3 scripts/research/biped_xtras.py MAX FBX [MAX FBX ...] [--current] [-v]
e.g. the 20 Rocketbox rigs from ../shared/corpus/biped/manifest.tsv, or
    ../shared/corpus/wild/tae8838__yellow@spawn.max ../shared/corpus/biped/tae8838__LD35/Yellow@Spawn.FBX
"""
import math
import os
import struct
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maxchunks import MaxFile, floats  # noqa: E402
from fbx_bind import Scene  # noqa: E402

EPS = math.pi / 2 - 1.57
S = np.array([[0, 1, 0], [1, 0, 0], [0, 0, -1.0]])


def rx(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def ry(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rz(t):
    c, s = math.cos(t), math.sin(t)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def live(obj):
    """Chunk id -> chunk, the live block (after the last 0x0108) first."""
    kids = obj.children
    last = max((i for i, c in enumerate(kids) if c.id == 0x0108), default=0)
    out = {}
    for c in kids[last:] + kids[:last]:
        out.setdefault(c.id, c)
    return out


def xtra_defs(b):
    """0x0022: u32 count; per xtra: u32 3 x links, f32 lengths, 4x4 f32 (rows), i32 parent id,
    parent link, 0, kind (1 under a Biped bone, 2 under an xtra), u32 name length, UTF-16
    name, i32 mirror side (0 none, 1 left, 2 right), i32 opposite xtra index."""
    n = struct.unpack_from("<I", b, 0)[0]
    p, out = 4, []
    for _ in range(n):
        na = struct.unpack_from("<I", b, p)[0]
        p += 4
        lens = struct.unpack_from("<%df" % (na // 3), b, p)
        p += 4 * (na // 3)
        mat = np.array(struct.unpack_from("<16f", b, p)).reshape(4, 4)
        p += 64
        par = struct.unpack_from("<4i", b, p)
        p += 16
        ln = struct.unpack_from("<I", b, p)[0]
        p += 4
        name = b[p:p + 2 * ln].decode("utf-16-le")
        p += 2 * ln
        mirror = struct.unpack_from("<2i", b, p)
        p += 8
        out.append(dict(lens=lens, mat=mat, par=par, name=name, mirror=mirror))
    return out


def xtra_angles(b, xs):
    """0x0073 / 0x0266: per xtra, 3 x links (int), the angles, 4 floats (zero)."""
    f = floats(b)
    at = 0
    for x in xs:
        n = struct.unpack_from("<i", b, 4 * at)[0]
        x["angles"] = [f[at + 1 + 3 * j: at + 4 + 3 * j] for j in range(n // 3)]
        at += 1 + n + 4


def place(xs, head_r, head_p):
    """{xtra index: [(link frame, start, end, node rotation, node pivot), ...]}."""
    out = {}

    def links(k, depth=0):
        if k in out:
            return out[k]
        x = xs[k]
        pid, plink = x["par"][0], x["par"][1]
        if pid == 10:
            pr, pend = head_r, head_p
        elif 200 <= pid < 400 and depth < len(xs):
            pl = links(pid - 200, depth + 1)[plink]
            pr, pend = pl[0], pl[2]
        else:
            raise ValueError("xtra %s: parent %s not measured" % (x["name"], x["par"]))
        m = x["mat"]
        r = pr @ S @ m[:3, :3].T @ S
        p = pend + pr @ S @ m[3, :3]
        res = []
        for length, (a1, a2, a3) in zip(x["lens"], x["angles"]):
            r = r @ rx(a3) @ rz(-a1) @ ry(a2)
            end = p + r @ np.array([length, 0, 0])
            node = r @ rz(EPS)
            res.append((r, p, end, node, end - node @ np.array([length, 0, 0])))
            p = end
        out[k] = res
        return res

    for k in range(len(xs)):
        links(k)
    return out


def link_names(root, x, by_node):
    """FBX names of an xtra's links: the Max node names (0x0205 order) when known."""
    return [by_node.get(i, "%s %s%s" % (root, x["name"], "" if j == 0 else j)) for j, i in enumerate(x.get("nodes", []))]


def check(max_path, fbx_path, current, verbose):
    m = MaxFile(max_path)
    (_, obj), = m.objects_of(0x9155, 0)
    g = live(obj)
    xs = xtra_defs(g[0x0022].data)
    xtra_angles(g[0x0266 if current else 0x0073].data, xs)
    v = struct.unpack("<%di" % (len(g[0x0205].data) // 4), g[0x0205].data)
    at = 1
    for x in xs:
        x["nodes"] = v[at + 1: at + 1 + v[at]]
        at += 2 + v[at]
    names = m.nodes()
    sc = Scene(fbx_path)
    world = {sc.models[k]["name"]: np.array(sc.world(k)) for k in sc.models}
    head_name = [n for n in world if n.endswith(" Head") and n.startswith("Bip")][0]
    h = world[head_name]
    placed = place(xs, h[:3, :3], h[:3, 3])
    worst, over = [0.0, 0.0], []
    for k, x in enumerate(xs):
        for j, (_, _, _, node, pivot) in enumerate(placed[k]):
            nm = names.get(x["nodes"][j])
            if nm not in world:
                continue
            w = world[nm]
            wr = w[:3, :3] / np.linalg.norm(w[:3, :3], axis=0)
            er, ep = np.abs(node - wr).max(), np.linalg.norm(pivot - w[:3, 3])
            worst = [max(worst[0], er), max(worst[1], ep)]
            lock = abs(math.cos(x["angles"][j][0]))
            if er > 1e-5 or verbose:
                # the residual rotation in the node's frame, as a small rotation vector: at gimbal
                # lock it is about the node's Y (the stored a2 - a3 is off)
                d = node.T @ wr
                axis = np.array([d[2, 1] - d[1, 2], d[0, 2] - d[2, 0], d[1, 0] - d[0, 1]]) / 2
                over.append("  %-20s a=(%.7f %.7f %.7f) |cos a1| %.2e  rotation %.2e  pivot %.2e cm  residual %s" % (
                    nm, *x["angles"][j], lock, er, ep, np.array2string(axis, precision=7)))
    print("%s: %d xtras, rotation <= %.2e, pivot <= %.2e cm, %d over 1e-5" % (
        os.path.basename(max_path), len(xs), worst[0], worst[1], sum(1 for o in over if "rotation" in o and
                                                                    float(o.split("rotation ")[1].split()[0]) > 1e-5)))
    for o in over:
        print(o)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("-")]
    for mx, fb in zip(args[::2], args[1::2]):
        check(mx, fb, "--current" in sys.argv, "-v" in sys.argv)


if __name__ == "__main__":
    main()
