#!/usr/bin/env bash
# Runs the pairs T3 comparisons on every `.max` of ../shared/corpus/anim/manifest.tsv
# (pmworker <max> --tiers t3 --export pairs --reference ANIM) and prints one line per row and
# export: the verdict of `animation` and `skin` with the reason or note — the table
# docs/exporters.md quotes. Usage: scripts/anim_sweep.sh [OUT.jsonl]   (needs python3)
set -euo pipefail
cd "$(dirname "$0")/.."
anim=$(cd ../shared/corpus/anim && pwd)
out="${1:-target/anim_sweep.jsonl}"
cargo build -q -p pmworker
worker=target/debug/pmworker
: > "$out"
tail -n +2 "$anim/manifest.tsv" | cut -f1 | while IFS= read -r max; do
  "$worker" "$anim/$max" --tiers t3 --export pairs --reference "$anim" >> "$out" || true
done
python3 - "$out" <<'PY'
import json, sys, collections
tally = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    e = json.loads(line)
    if e.get("event") == "start":
        print("==", e["path"].split("/corpus/anim/")[-1])
    if e.get("event") != "result" or not e["stream"].startswith("pairs"):
        continue
    parts = e["stream"].split("/", 2)
    check = parts[1] if len(parts) > 2 else "lookup"
    ext = parts[2].rsplit(".", 1)[-1].lower() if len(parts) > 2 else "-"
    tally[(check, ext)][e["verdict"]] += 1
    if check in ("animation", "skin", "lookup"):
        why = e.get("reason") or e.get("note") or e.get("message") or ""
        cls = (e.get("triage") or {}).get("class", "")
        print(f"   {check:9} {ext:5} {e['verdict']:5} {cls:18} {why[:230]}")
print()
for (check, ext), c in sorted(tally.items()):
    if check in ("animation", "skin"):
        print(check, ext, dict(c))
PY
