#!/usr/bin/env python3
"""Functions longer than a limit (docs/architecture.md: a long function is split where the
split names a step). Reads every `fn` outside `#[cfg(test)] mod tests` blocks, measures it
from its `fn` line to its closing brace (braces in strings, chars and comments skipped), and
prints each one over the limit. Exit 1 when any is found.

    scripts/check-function-length.py --max 80 pmcore/src/eval
    scripts/check-function-length.py --max 100 --list pmcore pmworker   # report only, exit 0
"""
import os, re, sys

FN = re.compile(r'^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_0-9]+)')


def strip(line, state):
    """The line with string, char and comment contents blanked; `state` carries an open
    block comment or string across lines."""
    out, i = [], 0
    while i < len(line):
        c = line[i]
        if state['block']:
            if line.startswith('*/', i):
                state['block'] = False
                i += 2
            else:
                i += 1
            continue
        if state['string']:
            if c == '\\':
                i += 2
            elif c == '"':
                state['string'] = False
                i += 1
            else:
                i += 1
            continue
        if line.startswith('//', i):
            break
        if line.startswith('/*', i):
            state['block'] = True
            i += 2
            continue
        if c == '"':
            state['string'] = True
            i += 1
            continue
        m = re.match(r"'(\\.|[^\\'])'", line[i:])
        if m:
            i += m.end()
            continue
        out.append(c)
        i += 1
    return ''.join(out)


def functions(path):
    """Yield (name, first line, length) of every function outside test modules."""
    lines = open(path, encoding='utf-8').read().split('\n')
    state = {'block': False, 'string': False}
    clean = [strip(l, state) for l in lines]
    skip_until = -1
    for i, line in enumerate(lines):
        if i <= skip_until:
            continue
        if line.strip() == '#[cfg(test)]' and i + 1 < len(lines) and re.match(r'\s*(pub\s+)?mod\s+\w+\s*\{', lines[i + 1]):
            skip_until = block_end(clean, i + 1)
            continue
        m = FN.match(line)
        if not m:
            continue
        end = block_end(clean, i)
        if end is not None:
            yield m.group(1), i + 1, end - i + 1


def block_end(clean, start):
    """Index of the line closing the first brace opened at or after `start`; None for a
    declaration without a body."""
    depth, opened = 0, False
    for j in range(start, len(clean)):
        for c in clean[j]:
            if c == '{':
                depth += 1
                opened = True
            elif c == '}':
                depth -= 1
                if opened and depth == 0:
                    return j
            elif c == ';' and not opened and depth == 0:
                return None
    return None


def main(argv):
    limit, report_only, roots = 80, False, []
    it = iter(argv)
    for a in it:
        if a == '--max':
            limit = int(next(it))
        elif a == '--list':
            report_only = True
        else:
            roots.append(a)
    long = []
    for root in roots:
        paths = [root] if root.endswith('.rs') else [
            os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs if f.endswith('.rs')]
        for path in sorted(paths):
            for name, line, length in functions(path):
                if length > limit:
                    long.append((length, f'{path}:{line}', name))
    for length, where, name in sorted(long, reverse=True):
        print(f'{length:5} lines  {where}  fn {name}')
    print(f'{len(long)} functions over {limit} lines in {", ".join(roots)}')
    return 1 if long and not report_only else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
