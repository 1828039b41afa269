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
python3 - "$out" <<'PY'
import json, sys, collections, re
tally = collections.defaultdict(collections.Counter)
reasons = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") != "result" or e.get("tier") != "t3" or not e["stream"].startswith("pairs"):
        continue
    parts = e["stream"].split("/", 2)
    comparison = parts[1] if len(parts) > 2 else "lookup"
    status = e["verdict"]
    tally[comparison][status] += 1
    if status != "pass":
        reason = e.get("reason") or e.get("message") or ""
        reason = re.sub(r"[0-9]+", "N", reason)[:100]
        reasons[comparison][f"{status}: {e.get('kind') or ''} {reason}"] += 1
for c in ["hierarchy", "transforms", "geometry", "animation", "skin", "lookup"]:
    if c in tally:
        print(c, dict(tally[c]))
        for r, n in reasons[c].most_common(12):
            print("   ", n, r)
PY
