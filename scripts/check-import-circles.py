#!/usr/bin/env python3
"""Import circles between the files of each crate (docs/architecture.md: no module imports one that
imports it back). Reads every `crate::` / `super::` / `self::` path outside comments and `#[cfg(test)] mod tests`
(brace groups expanded), maps it to the longest module prefix, and prints every pair of modules that import each
other and every larger strongly connected group. Exit 1 when a pair is found.

    scripts/check-import-circles.py pmcore pmworker pmfarm pmschema pmref
"""
import os, re, sys

def modname(root, path):
    parts = os.path.relpath(path, root)[:-3].split('/')
    if parts[-1] in ('mod', 'lib', 'main'):
        parts = parts[:-1]
    return tuple(parts)

def expand(text):
    """Yield every `prefix::a::b` path, expanding `prefix::{a, b::{c, d}}`."""
    out = []
    for m in re.finditer(r'\b(crate|super(?:::super)*|self)::', text):
        i = m.end()
        def parse(i, prefix):
            # parse a path or a brace group starting at i
            mm = re.match(r'([A-Za-z_0-9]+(?:::[A-Za-z_0-9]+)*)(::)?', text[i:])
            if text[i:i+1] == '{':
                j = i + 1
                while True:
                    while text[j] in ' \n\t,':
                        j += 1
                    if text[j] == '}':
                        return j + 1
                    j = parse(j, prefix)
            if not mm:
                return i + 1
            path = prefix + mm.group(1).split('::')
            out.append((m.group(1), path))
            j = i + mm.end()
            if mm.group(2) and text[j:j+1] == '{':
                return parse(j, path)
            return j
        try:
            parse(i, [])
        except IndexError:
            pass
    return out

def crate_edges(crate):
    root = os.path.join(crate, 'src')
    mods = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith('.rs'):
                p = os.path.join(d, f)
                mods[modname(root, p)] = p
    edges = {}
    for m, p in mods.items():
        text = "\n".join(l for l in open(p).read().split("\n") if not l.strip().startswith("//"))
        k = text.find('#[cfg(test)]\nmod tests')
        if k >= 0:
            text = text[:k]
        targets = set()
        for kind, segs in expand(text):
            if kind == 'crate':
                base = ()
            elif kind == 'self':
                base = m
            else:
                ups = kind.count('super')
                base = m[:len(m) - ups]
            for n in range(len(segs), 0, -1):
                cand = tuple(base) + tuple(segs[:n])
                if cand in mods:
                    targets.add(cand)
                    break
        targets.discard(m)
        edges[m] = targets
    return mods, edges

def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(10000)
    def visit(v):
        index[v] = low[v] = counter[0]; counter[0] += 1
        stack.append(v); on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w); low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop(); on.discard(w); comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(comp)
    for v in list(edges):
        if v not in index:
            visit(v)
    return out

found = 0
for crate in sys.argv[1:]:
    mods, edges = crate_edges(crate)
    n_edges = sum(len(t) for t in edges.values())
    pairs = [(a, b) for a in edges for b in edges[a] if a in edges.get(b, ()) and a < b]
    for a, b in pairs:
        print(f"{crate}: 2-cycle {'/'.join(a) or 'lib'} <-> {'/'.join(b) or 'lib'}")
    comps = sccs(edges)
    for c in (c for c in comps if len(c) > 2):
        print(f"{crate}: circle through {len(c)} modules: {sorted('/'.join(x) or 'lib' for x in c)}")
    print(f"{crate}: {len(mods)} modules, {n_edges} import edges, {len(pairs)} 2-cycles, {len(comps)} strongly connected groups")
    found += len(pairs)
sys.exit(1 if found else 0)
