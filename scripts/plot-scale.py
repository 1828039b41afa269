#!/usr/bin/env python3
"""Time and peak RSS of pmworker T1+T2 against file size, from the `scale` rows of the CSV that
scripts/bench-peers.sh writes (SCALE_DIRS=...). Prints a least-squares line and R² for each and
writes an SVG with both panels (standard library only).

Usage: scripts/plot-scale.py CSV OUT.svg
"""
import csv
import sys


def fit(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    slope = sxy / sxx if sxx else 0.0
    icept = my - slope * mx
    ss_tot = sum((y - my) ** 2 for y in ys)
    ss_res = sum((y - (icept + slope * x)) ** 2 for x, y in zip(xs, ys))
    return slope, icept, (1 - ss_res / ss_tot) if ss_tot else 1.0


def panel(x0, title, unit, pts, line, w=420, h=300):
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    xmax, ymax = max(xs) * 1.05, max(ys) * 1.1
    px = lambda x: x0 + 50 + x / xmax * (w - 70)
    py = lambda y: 20 + h - 50 - y / ymax * (h - 70)
    out = [f'<text x="{x0 + w / 2}" y="14" text-anchor="middle" font-size="12">{title}</text>',
           f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(xmax)}" y2="{py(0)}" stroke="black"/>',
           f'<line x1="{px(0)}" y1="{py(0)}" x2="{px(0)}" y2="{py(ymax)}" stroke="black"/>',
           f'<text x="{px(xmax / 2)}" y="{py(0) + 30}" text-anchor="middle" font-size="11">file MB</text>',
           f'<text x="{x0 + 12}" y="{py(ymax / 2)}" font-size="11" transform="rotate(-90 {x0 + 12} {py(ymax / 2)})"'
           f' text-anchor="middle">{unit}</text>']
    for i in range(5):
        xv, yv = xmax * i / 4, ymax * i / 4
        out.append(f'<text x="{px(xv)}" y="{py(0) + 14}" text-anchor="middle" font-size="9">{xv:.0f}</text>')
        out.append(f'<text x="{px(0) - 4}" y="{py(yv) + 3}" text-anchor="end" font-size="9">{yv:.0f}</text>')
    for x, y, kind in pts:
        colour = "#1f77b4" if kind == "synthetic" else "#d62728"
        out.append(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="2.5" fill="{colour}" fill-opacity="0.7"/>')
    slope, icept, r2 = line
    out.append(f'<line x1="{px(0)}" y1="{py(max(icept, 0))}" x2="{px(xmax)}" y2="{py(icept + slope * xmax)}"'
               ' stroke="gray" stroke-dasharray="4 3"/>')
    out.append(f'<text x="{px(xmax * 0.05)}" y="{py(ymax * 0.95)}" font-size="10">'
               f'{slope:.2f} {unit}/MB + {icept:.1f}, R² {r2:.3f}</text>')
    return out


def main():
    src, dest = sys.argv[1], sys.argv[2]
    rows = [r for r in csv.DictReader(open(src)) if r["kind"] == "scale"]
    if not rows:
        sys.exit(f"{src}: no scale rows (run bench-peers.sh with SCALE_DIRS)")
    pts_cpu, pts_rss = [], []
    for r in rows:
        mb = int(r["bytes"]) / 1e6
        kind = "synthetic" if "synth" in r["set"] else "real"
        pts_cpu.append((mb, float(r["cpu_ms"]), kind))
        pts_rss.append((mb, int(r["peak_rss_kib"]) / 1024, kind))
    cpu = fit([p[0] for p in pts_cpu], [p[1] for p in pts_cpu])
    rss = fit([p[0] for p in pts_rss], [p[1] for p in pts_rss])
    print(f"{len(rows)} files; CPU ms = {cpu[0]:.2f} × MB + {cpu[1]:.2f} (R² {cpu[2]:.3f}); "
          f"peak RSS MiB = {rss[0]:.2f} × MB + {rss[1]:.2f} (R² {rss[2]:.3f})")
    body = panel(0, "pmworker T1+T2: CPU per file", "CPU ms", pts_cpu, cpu)
    body += panel(440, "pmworker T1+T2: peak RSS", "MiB", pts_rss, rss)
    body.append('<text x="10" y="318" font-size="10" fill="#1f77b4">● synthetic (pmfarm synth)</text>')
    body.append('<text x="170" y="318" font-size="10" fill="#d62728">● largest real files</text>')
    with open(dest, "w") as fh:
        fh.write('<svg xmlns="http://www.w3.org/2000/svg" width="880" height="325" font-family="sans-serif">\n')
        fh.write("\n".join(body))
        fh.write("\n</svg>\n")
    print(f"wrote {dest}")


if __name__ == "__main__":
    main()
