#!/usr/bin/env python3
"""biped_fig_check.py - compare named 0x9155 figure fields with the FBX bind pose (research only).

Each row: an FBX quantity of one bone (Lcl Translation component, Lcl Rotation Z in radians, ...),
the 0x9155 field it is hypothesised to be (chunk[float index] in the live block, see
biped_dump.py), both values and the difference. The hypotheses are the ones written up in
docs/biped-format-notes.md; a row with a large difference is a hypothesis that fails on this file.
The biped root name (Bip01/Bip02) is taken from the node driven by Vertical/Horizontal/Turn.
Bones missing from the FBX (nubs; every Biped bone of the LD35 FBX, which hold B_* helpers) print n/a.

Usage:
    python3 scripts/research/biped_fig_check.py <file.max> <file.fbx>
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maxchunks import MaxFile, floats, ints  # noqa: E402
from fbx_bind import Scene  # noqa: E402


def live(obj):
    kids = obj.children
    last = max((i for i, c in enumerate(kids) if c.id == 0x0108), default=0)
    get = {}
    for c in kids[last:] + kids[:last]:
        get.setdefault(c.id, c)
    return get


def main():
    m = MaxFile(sys.argv[1])
    sc = Scene(sys.argv[2])
    si, obj = m.objects_of(0x9155)[0]
    g = live(obj)

    def f(cid, k):
        c = g.get(cid)
        if c is None:
            return None
        fl = floats(c.data)
        return fl[k] if k < len(fl) else None

    root = None
    vht = set(m.find_class(0x9156))
    for i, name in m.nodes().items():
        ctl = m.refs(m.objects[i]).get(0)
        if ctl is not None and m.objects[ctl].id in vht:
            root = name
    print("%s vs %s: biped root %r" % (os.path.basename(sys.argv[1]), os.path.basename(sys.argv[2]), root))

    def prop(bone, key, comp):
        k = sc.by_name.get("%s %s" % (root, bone) if bone else root)
        if k is None:
            return None
        v = sc.models[k]["props"].get(key)
        return v[comp] if v else (0.0 if key != "Lcl Scaling" else 1.0)

    spine_n = (len(g[0x000b].data) // 4 - 17) if 0x000b in g else 0
    neck_n = (len(g[0x000d].data) // 4 - 17) if 0x000d in g else 0
    arm_half = len(g[0x0010].data) // 8 if 0x0010 in g else 0
    leg_half = len(g[0x0069].data) // 8 if 0x0069 in g else 0
    rows = []

    def row(label, fbx, stored, where, transform=None):
        if fbx is None or stored is None:
            rows.append((label, fbx, stored, where, None))
            return
        s = transform(stored) if transform else stored
        rows.append((label, fbx, s, where, fbx - s))

    def rad(v):
        return None if v is None else math.radians(v)

    def pi_plus(v):
        return None if v is None else v + math.pi

    row("COM world height (T.y, FBX Y-up)", prop("", "Lcl Translation", 1), f(0x006c, 5), "0x006c[5]")
    row("COM world height", prop("", "Lcl Translation", 1), f(0x0104, 13), "0x0104[13]")
    row("Spine T.x (from pelvis)", prop("Spine", "Lcl Translation", 0), f(0x000b, 1 + spine_n + 13), "0x000b[%d] (row ty)" % (1 + spine_n + 13))
    row("Spine T.y", prop("Spine", "Lcl Translation", 1), f(0x000b, 1 + spine_n + 12), "0x000b[%d] (row tx)" % (1 + spine_n + 12))
    names = ["Spine1", "Spine2", "Spine3", "Spine4"]
    for k in range(spine_n - 1):
        row("%s T.x" % names[k], prop(names[k], "Lcl Translation", 0), f(0x000b, 1 + k), "0x000b[%d]" % (1 + k))
    last_spine = ["Spine"] + names
    nb = 1 + neck_n
    sp_len = f(0x000b, spine_n)
    neck_m14 = f(0x000d, nb + 13)
    row("Neck T.x = last spine len + 0x000d ty", prop("Neck", "Lcl Translation", 0),
        None if sp_len is None or neck_m14 is None else sp_len + neck_m14, "0x000b[%d]+0x000d[%d]" % (spine_n, nb + 13))
    row("Neck T.y", prop("Neck", "Lcl Translation", 1), f(0x000d, nb + 12), "0x000d[%d] (row tx)" % (nb + 12))
    row("Head T.x (neck link length)", prop("Head", "Lcl Translation", 0), f(0x000d, 1), "0x000d[1]")
    for k, nm in enumerate(["Spine"] + names[:spine_n - 1]):
        row("%s Lcl Rz (rad)" % nm, rad(prop(nm, "Lcl Rotation", 2)), f(0x0067, 1 + 3 * k), "-0x0067[%d]" % (1 + 3 * k),
            lambda v: -v)
    row("Neck Lcl Rz (rad)", rad(prop("Neck", "Lcl Rotation", 2)), f(0x0065, 1), "-0x0065[1]", lambda v: -v)
    for side, h in (("R", 0), ("L", 1)):
        row("%s Thigh T.z (side offset)" % side, prop("%s Thigh" % side, "Lcl Translation", 2),
            f(0x000f, 1 + 29 * h) if 0x000f in g else None, "0x000f[%d]" % (1 + 29 * h), lambda v, h=h: v if h else -v)
        row("%s Calf T.x (thigh length)" % side, prop("%s Calf" % side, "Lcl Translation", 0), f(0x000f, 2), "0x000f[2]")
        row("%s Foot T.x (calf length)" % side, prop("%s Foot" % side, "Lcl Translation", 0), f(0x000f, 3), "0x000f[3]")
        row("%s Calf Lcl Rz + pi" % side, pi_plus(rad(prop("%s Calf" % side, "Lcl Rotation", 2))),
            f(0x0069, h * leg_half), "0x0069[%d]" % (h * leg_half))
        row("%s Forearm T.x (upper arm length)" % side, prop("%s Forearm" % side, "Lcl Translation", 0), f(0x0010, 1),
            "0x0010[1]")
        row("%s Hand T.x (forearm length)" % side, prop("%s Hand" % side, "Lcl Translation", 0), f(0x0010, 2), "0x0010[2]")
        row("%s UpperArm T.x (clavicle length)" % side, prop("%s UpperArm" % side, "Lcl Translation", 0), f(0x0010, 5),
            "0x0010[5]")
        row("%s Clavicle T.z" % side, prop("%s Clavicle" % side, "Lcl Translation", 2), f(0x0010, 10 + h * arm_half),
            "0x0010[%d]" % (10 + h * arm_half), lambda v, h=h: v if h else -v)
        row("%s Forearm Lcl Rz + pi" % side, pi_plus(rad(prop("%s Forearm" % side, "Lcl Rotation", 2))),
            f(0x006a, h * (len(g[0x006a].data) // 8)) if 0x006a in g else None,
            "0x006a[%d]" % (h * (len(g[0x006a].data) // 8)) if 0x006a in g else "")
        row("%s Toe0 T.x" % side, prop("%s Toe0" % side, "Lcl Translation", 0), f(0x000f, 7), "0x000f[7]")
        row("%s Toe0 T.y" % side, prop("%s Toe0" % side, "Lcl Translation", 1), f(0x000f, 9), "0x000f[9]")
    # first finger chain of the arm record: matrix translation and link lengths
    if 0x0010 in g and len(g[0x0010].data) > 72 and ints(g[0x0010].data)[16] > 0:
        nl = ints(g[0x0010].data)[17]
        row("L Finger0 T.x", prop("L Finger0", "Lcl Translation", 0), f(0x0010, 18 + 12), "0x0010[30] (row tx)")
        row("L Finger0 T.z", prop("L Finger0", "Lcl Translation", 2), f(0x0010, 18 + 13), "0x0010[31] (row ty)")
        row("L Finger0 T.y", prop("L Finger0", "Lcl Translation", 1), f(0x0010, 18 + 14), "-0x0010[32] (row tz)",
            lambda v: -v)
        for k in range(1, nl):
            row("L Finger0%d T.x" % k, prop("L Finger0%d" % k, "Lcl Translation", 0), f(0x0010, 34 + k - 1),
                "0x0010[%d]" % (34 + k - 1))
    w = max(len(r[0]) for r in rows)
    for label, fbx, s, where, d in rows:
        if d is None:
            print("  %-*s  fbx %s  stored %s  (%s)  n/a" % (w, label, fbx, s, where))
        else:
            print("  %-*s  fbx %12.6f  stored %12.6f  %-22s diff %9.2e%s" % (
                w, label, fbx, s, where, d, "" if abs(d) < 1e-4 else "   <-- differs"))


if __name__ == "__main__":
    main()
