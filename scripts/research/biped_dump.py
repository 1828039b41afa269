#!/usr/bin/env python3
"""biped_dump.py - dump the Character Studio Biped records of a .max file (research only).

For each Biped system object (ClassId 0x9155, superclass 0x60) in the Scene stream:
  * its storage index, stream offset, size, number of direct children (a flat list of leaves);
  * the "live" figure block: the chunks after the LAST 0x0108 (Copy Collection entries
    0x0500..0x050a hold earlier copies of the same figure/keytrack block; see
    docs/biped-format-notes.md), each with its size, stream offset and a decode of the
    records the spec (max_payload_formats.txt Part J, pipeline_max_design.txt section 10) names;
  * every node whose TM controller (node reference 0) is a BipSlave/BipDriven Control (0x9154):
    node name, INode parent, chunk 0x0200 = (bone id, link index), and the COM node (0x9156).

Usage:
    python3 scripts/research/biped_dump.py <file.max> [--all]     (--all: every chunk as floats)
Offsets printed as @N are byte offsets of the chunk PAYLOAD inside the decompressed Scene stream.
"""
import struct
import sys
import os

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from maxchunks import MaxFile, floats, ints, utf16  # noqa: E402

BIPED, BIPDRIVEN, VHT, BIPOBJ, FOOTSTEPS = (0x9155, 0), (0x9154, 0), (0x9156, 0), (0x9125, 0), (0x3011, 0)

ID_NAMES = {0: "larm", 1: "rarm", 2: "lfingers", 3: "rfingers", 4: "lleg", 5: "rleg", 6: "ltoes",
            7: "rtoes", 8: "spine", 9: "tail", 10: "head", 11: "pelvis", 12: "(COM: vertical)",
            13: "(COM: horizontal)", 14: "(COM: turn)", 15: "footprints", 16: "neck", 17: "pony1",
            18: "pony2", 19: "prop1", 20: "prop2", 21: "prop3", 22: "R finger nub", 23: "L finger nub",
            24: "L toe nub", 25: "R toe nub", 26: "tail nub", 27: "head nub", 28: "pony1 nub",
            29: "neck dummy"}


def val(f, i):
    """An int when the dword looks like a small int, else the float."""
    return "%d" % i if abs(i) < 100000 else "%.6g" % f


def vals(b, start=0, n=None):
    fl, it = floats(b), ints(b)
    end = len(fl) if n is None else min(len(fl), start + n)
    return " ".join(val(fl[k], it[k]) for k in range(start, end))


def live_block(obj):
    kids = obj.children
    last = max((i for i, c in enumerate(kids) if c.id == 0x0108), default=None)
    starts = [i for i, c in enumerate(kids) if c.id == 0x0108]
    return (kids[last:] if last is not None else kids), starts


def decode(m, obj, show_all):
    block, starts = live_block(obj)
    if len(starts) > 1:
        print("  NOTE: %d chunks 0x0108 at child positions %s (more than one live block?)" % (len(starts), starts))
    get = {}
    for c in block:
        get.setdefault(c.id, c)
    # chunks before the live block that the decode uses (they are not repeated in it)
    for c in obj.children:
        get.setdefault(c.id, c)

    def C(cid):
        return get.get(cid)

    def line(cid, text):
        c = C(cid)
        if c is None:
            print("  0x%04x  absent" % cid)
            return None
        print("  0x%04x  %5d B @%-8d %s" % (cid, len(c.data), c.payload_offset, text(c)))
        return c

    print("  -- header records")
    line(0x0101, lambda c: vals(c.data))
    line(0x0100, lambda c: "SetNumLinks table: " + vals(c.data))
    line(0x0115, lambda c: "body type / figure marker = " + vals(c.data))
    line(0x0107, lambda c: "build id pair = %s" % (ints(c.data),))
    line(0x0108, lambda c: vals(c.data))
    line(0x0202, lambda c: vals(c.data))
    line(0x0112, lambda c: "linked-COM parent snapshot 3x4: " + vals(c.data))
    line(0x0117, lambda c: "4x4: " + vals(c.data))
    line(0x0110, lambda c: "%d node storage indices: %s" % (len(c.data) // 4, vals(c.data)))
    print("  -- figure structure")
    line(0x000a, lambda c: vals(c.data))
    for cid, nm in ((0x000b, "spine"), (0x000d, "neck? (spec: pelvis)"), (0x000e, "tail"), (0x0013, "pony1"),
                    (0x0014, "pony2")):
        def chain(c, nm=nm):
            fl = floats(c.data)
            if len(fl) < 17:
                return "%s: %s" % (nm, vals(c.data))
            n = len(fl) - 17
            return "%s: [0]=%s, %d lengths %s, 4x4 rows %s" % (
                nm, val(fl[0], ints(c.data)[0]), n, vals(c.data, 1, n), vals(c.data, 1 + n))
        line(cid, chain)
    line(0x000c, lambda c: vals(c.data))

    def limb(c, per_chain):
        fl, it = floats(c.data), ints(c.data)
        half = len(fl) // 2
        if half <= per_chain:
            return "%d floats (no limb): %s" % (len(fl), vals(c.data))
        out = []
        for side, h0 in (("first half", 0), ("second half", half)):
            k = h0 + per_chain
            s = "%s: head %s | n=%d" % (side, vals(c.data, h0, per_chain), it[k])
            n = it[k]
            k += 1
            for ch in range(n if 0 <= n < 10 else 0):
                if k + 17 > len(it):
                    break
                nl = it[k]
                s += " | chain%d links=%d M=(%s) len=(%s)" % (ch, nl, vals(c.data, k + 1, 16), vals(c.data, k + 17, nl))
                k += 17 + nl
            out.append(s)
        return "\n           ".join(out)
    line(0x000f, lambda c: "legs: " + limb(c, 10))
    line(0x0010, lambda c: "arms: " + limb(c, 16))
    line(0x01f4, lambda c: vals(c.data))
    line(0x01f5, lambda c: vals(c.data))
    line(0x01f7, lambda c: vals(c.data))
    line(0x01f9, lambda c: vals(c.data))
    line(0x00ca, lambda c: vals(c.data))
    line(0x0022, lambda c: "xtras: " + xtras(c.data))
    print("  -- figure/current pose")
    line(0x0104, lambda c: "COM 4x4 (Y-up): " + vals(c.data))
    line(0x006c, lambda c: "COM record: " + vals(c.data))
    line(0x0260, lambda c: "COM record copy: " + vals(c.data))
    line(0x0064, lambda c: "head record: " + vals(c.data))
    line(0x0065, lambda c: "neck record: " + vals(c.data))
    line(0x0066, lambda c: "pelvis record: " + vals(c.data))
    line(0x0067, lambda c: "spine angles: " + vals(c.data))
    for cid in (0x0068, 0x006d, 0x006e):
        if C(cid) is not None:
            line(cid, lambda c: vals(c.data))

    def pose(c, nm):
        fl = floats(c.data)
        half = len(fl) // 2
        return "%s, %d floats/half\n           R: %s\n           L: %s" % (
            nm, half, vals(c.data, 0, 32), vals(c.data, half, 32))
    line(0x0069, lambda c: pose(c, "leg pose"))
    line(0x006a, lambda c: pose(c, "arm pose"))
    line(0x0073, lambda c: "%d floats: %s" % (len(c.data) // 4, vals(c.data, 0, 48)))
    print("  -- keytracks (data/time sizes)")
    for d in range(0x012c, 0x014e, 2):
        a, b = C(d), C(d + 1)
        if a is not None or b is not None:
            print("  0x%04x/0x%04x %s/%s B" % (d, d + 1, len(a.data) if a else "-", len(b.data) if b else "-"))
    if show_all:
        print("  -- all chunks of the live block")
        for c in block:
            print("  0x%04x %5d B @%d: %s" % (c.id, len(c.data), c.payload_offset, vals(c.data[:400])))


def check_0110(m, ctrl_class):
    """0x0110 read as the (id, link) -> node table: per id 0..21 (0x0100[id] links; fingers and
    toes x 0x0100[22] / [23] chains), then the nubs (ids 22..27); 0x0205 = the xtras
    (count, then per xtra: links, link nodes..., nub node). Checked against each node's 0x0200."""
    for si, o in m.objects_of(*BIPED):
        block, _ = live_block(o)
        get = {}
        for c in block + o.children:
            get.setdefault(c.id, c)
        if 0x0110 not in get or 0x0100 not in get:
            continue
        nodes = ints(get[0x0110].data)
        t = ints(get[0x0100].data)
        expect = []
        for bid in range(22):
            n = t[bid]
            if bid in (2, 3):
                n *= t[22]
            if bid in (6, 7):
                n *= t[23]
            expect += [(bid, k) for k in range(n)]
        ok = bad = 0
        got = []
        for k, node in enumerate(nodes):
            if node < 0 or node >= len(m.objects):
                got.append((k, node, None))
                continue
            ctl = m.refs(m.objects[node]).get(0)
            c200 = m.objects[ctl].child(0x0200) if ctl is not None else None
            idl = struct.unpack("<ii", c200.data) if c200 is not None else ("COM/other",)
            got.append((k, m.node_name(m.objects[node]), idl))
            if k < len(expect):
                if idl == expect[k] or (expect[k][0] in (12, 13, 14, 15) and idl == ("COM/other",)):
                    ok += 1
                else:
                    bad += 1
        print("0x0110 of Biped #%d: %d entries; first %d read as (id, link) by 0x0100: %d agree with the "
              "node's 0x0200, %d differ; entries after them (nubs): %s" % (
                  si, len(nodes), len(expect), ok, bad, [(g[1], g[2]) for g in got[len(expect):]]))
        if 0x0205 in get:
            v = ints(get[0x0205].data)
            print("0x0205: %d xtras: %s" % (v[0], [m.node_name(m.objects[x]) if 0 <= x < len(m.objects) else x
                                                   for x in v[1:]][:12]))


def xtras(b):
    """0x0022, decoded by biped_xtras.xtra_defs (layout there and in docs/biped-format-notes.md)."""
    from biped_xtras import xtra_defs
    try:
        out = ["%s(links %d, len %s, T (%.4f %.4f %.4f), parent %d.%d kind %d, mirror %s)" % (
            x["name"], len(x["lens"]), " ".join("%.4f" % v for v in x["lens"]), *x["mat"][3, :3], x["par"][0],
            x["par"][1], x["par"][3], x["mirror"]) for x in xtra_defs(b)]
        return "%d xtras: %s" % (len(out), "; ".join(out))
    except (struct.error, UnicodeDecodeError) as e:
        return "%d B, not parsed (%s)" % (len(b), e)


def main():
    m = MaxFile(sys.argv[1])
    show_all = "--all" in sys.argv
    print("%s: Scene root 0x%04x, %d objects" % (os.path.basename(sys.argv[1]), m.root_id, len(m.objects)))
    for i, c in enumerate(m.classes):
        if c[1] in (BIPED, BIPDRIVEN, VHT, BIPOBJ, FOOTSTEPS) or c[1][0] == 0x6B147369:
            print("  class dir #%d: ClassId (0x%x, 0x%x) superclass 0x%x %r dll %r" % (
                i, c[1][0], c[1][1], c[2], c[3], m.dlls[c[0]] if 0 <= c[0] < len(m.dlls) else c[0]))
    for si, o in m.objects_of(*BIPED):
        print("Biped 0x9155: storage %d, chunk id 0x%04x, stream offset %d, %d B, %d children (%d containers)" % (
            si, o.id, o.offset, o.size, len(o.children), sum(c.container for c in o.children)))
        decode(m, o, show_all)
    # nodes driven by the biped controllers
    ctrl_class = {}
    for si, o in enumerate(m.objects):
        c = m.cls(o)
        if c and c[1] in (BIPDRIVEN, VHT, FOOTSTEPS):
            ctrl_class[si] = c[1]
    print("Nodes with a Biped controller (node ref 0):")
    n_driven = 0
    for si, name in m.nodes().items():
        o = m.objects[si]
        ctl = m.refs(o).get(0)
        if ctl not in ctrl_class:
            continue
        kind = ctrl_class[ctl]
        par = m.node_parent(o)
        pname = m.node_name(m.objects[par]) if par is not None and par < len(m.objects) else None
        if kind == BIPDRIVEN:
            c200 = m.objects[ctl].child(0x0200)
            bid, link = struct.unpack("<ii", c200.data) if c200 is not None else (None, None)
            n_driven += 1
            print("  node %5d %-28s parent %-24s BipDriven #%d 0x0200=(%s,%s) %s @%d refs %s" % (
                si, name, pname, ctl, bid, link, ID_NAMES.get(bid, "xtra %d" % bid if bid and bid >= 200 else "?"),
                c200.payload_offset if c200 is not None else -1, m.refs(m.objects[ctl])))
        else:
            print("  node %5d %-28s parent %-24s %s #%d chunks %s refs %s" % (
                si, name, pname, "Vertical/Horizontal/Turn" if kind == VHT else "Footsteps", ctl,
                [("0x%04x" % c.id, len(c.data)) for c in m.objects[ctl].children], m.refs(m.objects[ctl])))
    check_0110(m, ctrl_class)
    all_driven = [si for si, k in ctrl_class.items() if k == BIPDRIVEN]
    used = {m.refs(m.objects[si]).get(0) for si in m.nodes()}
    orphans = [si for si in all_driven if si not in used]
    print("BipDriven objects: %d; driving a node: %d; not a node's TM controller: %s" % (
        len(all_driven), n_driven,
        [(si, struct.unpack("<ii", m.objects[si].child(0x0200).data)) for si in orphans]))


if __name__ == "__main__":
    main()
