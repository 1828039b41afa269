#!/usr/bin/env bash
# Runs the pairs T3 comparisons on every `.max` of ../shared/corpus/pairs/manifest.tsv
# (pmworker --tiers t3 --export pairs --reference PAIRS) and prints, per comparison, the
# exports that pass / fail / skip with the reason classes — the numbers docs/exporters.md
# quotes. Usage: scripts/pairs_sweep.sh [OUT.jsonl]   (needs python3 for the tally)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=$(cd ../shared/corpus/pairs && pwd)
out="${1:-target/pairs_sweep.jsonl}"
cargo build -q -p pmworker
worker=target/debug/pmworker
: > "$out"
tail -n +2 "$pairs/manifest.tsv" | cut -f1 | sort -u | while IFS= read -r max; do
  "$worker" "$pairs/$max" --tiers t3 --export pairs --reference "$pairs" >> "$out" || true
done
python3 - "$out" "$pairs/manifest.tsv" <<'PY'
import json, sys, collections, re
level = {}
for line in open(sys.argv[2]).read().splitlines()[1:]:
    c = line.split("\t")
    for e in c[2].split(";"):
        e = e.strip()
        if e.lower().endswith((".fbx", ".obj", ".x")):
            level[e] = c[5]
tally = collections.defaultdict(collections.Counter)
l1 = collections.Counter()
reasons = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") != "result" or e.get("tier") != "t3" or not e["stream"].startswith("pairs"):
        continue
    parts = e["stream"].split("/", 2)
    comparison = parts[1] if len(parts) > 2 else "lookup"
    status = e["verdict"]
    tally[comparison][status] += 1
    if comparison == "geometry" and level.get(parts[2]) == "L1":
        l1[status] += 1
    if status != "pass":
        reason = e.get("reason") or e.get("message") or ""
        reason = re.sub(r"[0-9]+", "N", reason)[:100]
        reasons[comparison][f"{status}: {e.get('kind') or ''} {reason}"] += 1
for c in ["hierarchy", "transforms", "geometry", "animation", "skin", "lookup"]:
    if c in tally:
        n = sum(tally[c].values())
        print(c, dict(tally[c]), f"pass {tally[c]['pass']}/{n}")
        for r, k in reasons[c].most_common(12):
            print("   ", k, r)
print("geometry on L1 exports", dict(l1), f"pass {l1['pass']}/{sum(l1.values())}")
PY
