#!/usr/bin/env bash
# Runs the pmcore criterion benches and prints each tier's throughput and its ratio to
# the `cfb-read` ceiling measured in the same run. Usage: scripts/bench-ratios.sh [bench-name]
set -euo pipefail
cd "$(dirname "$0")/.."
bench="${1:-t1}"
cargo bench -p pmcore --bench "$bench" -- --noplot >/dev/null 2>&1 || cargo bench -p pmcore --bench "$bench" -- --noplot
python3 - "$bench" <<'PY'
import json, os, sys, glob
root = "target/criterion"
rows = {}
for est in glob.glob(f"{root}/*/*/new/estimates.json"):
    group, name = est.split("/")[-4], est.split("/")[-3]
    bench = json.load(open(est.replace("estimates.json", "benchmark.json")))
    tp = bench.get("throughput") or {}
    nbytes = tp.get("Bytes") or tp.get("BytesDecimal")
    ns = json.load(open(est))["median"]["point_estimate"]
    if nbytes:
        rows[(group, name)] = nbytes / ns * 1e9 / 1e6  # MB/s
for group in sorted({g for g, _ in rows}):
    base = rows.get((group, "cfb-read"))
    for (g, name), mbs in sorted(rows.items()):
        if g != group:
            continue
        ratio = f"{mbs / base * 100:6.1f} % of cfb-read" if base else ""
        print(f"{g}/{name:12s} {mbs:10.1f} MB/s  {ratio}")
PY
