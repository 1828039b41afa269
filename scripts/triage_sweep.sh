#!/usr/bin/env bash
# The T3 triage table of docs/triage.md: every `max` row of the pairs, biped and nel manifests
# through the worker (pairs and biped: --export pairs; nel: every exporter), then, per set and
# comparison, the results by triage class and the list of `unexplained` ones.
# Usage: scripts/triage_sweep.sh [OUT_DIR] [WORKER]   (needs python3 for the tally)
set -euo pipefail
cd "$(dirname "$0")/.."
shared=$(cd "${PMFARM_SHARED:-../shared}" && pwd)/corpus
out="${1:-target/triage_sweep}"
worker="${2:-}"
if [ -z "$worker" ]; then cargo build -q -p pmworker; worker=target/debug/pmworker; fi
mkdir -p "$out"
for set in pairs biped nel; do
  : > "$out/$set.jsonl"
  if [ "$set" = nel ]; then args=(--tiers t3); else args=(--tiers t3 --export pairs); fi
  python3 - "$shared/$set/manifest.tsv" <<'PY' | sort -u | while IFS= read -r max; do
import sys
rows = open(sys.argv[1]).read().splitlines()
head = rows[0].split("\t")
for r in rows[1:]:
    c = dict(zip(head, r.split("\t")))
    kind = c.get("kind", "max")
    path = c.get("max") or c.get("file") or ""
    if path.lower().endswith(".max") and kind in ("max", ""):
        print(path)
PY
    "$worker" "$shared/$set/$max" "${args[@]}" --reference "$shared/$set" --out "$out/exports" \
      | python3 -c 'import sys,json
for l in sys.stdin:
    try: e=json.loads(l)
    except Exception: continue
    if e.get("event")=="result" and e.get("tier")=="t3": e["file"]=sys.argv[1]; print(json.dumps(e))' "$max" >> "$out/$set.jsonl" || true
  done
done
python3 - "$out" <<'PY'
import json, sys, collections, os
out = sys.argv[1]
table = collections.defaultdict(collections.Counter)
unexplained = []
total = 0
for s in ("pairs", "biped", "nel"):
    for line in open(os.path.join(out, s + ".jsonl")):
        e = json.loads(line)
        parts = e["stream"].split("/")
        comp = "/".join(parts[:2]) if parts[0] in ("pairs", "summary") and len(parts) > 2 else parts[0]
        cls = "pass" if e["verdict"] == "pass" else (e.get("triage") or {}).get("class", "NO-CLASS")
        table[(s, comp)][cls] += 1
        total += 1
        if cls in ("unexplained", "NO-CLASS"):
            unexplained.append((s, comp, e["file"], e["stream"], (e.get("message") or e.get("reason") or "")[:160]))
classes = sorted({c for t in table.values() for c in t})
print("set\tcomparison\t" + "\t".join(classes))
for k in sorted(table):
    print(k[0] + "\t" + k[1] + "\t" + "\t".join(str(table[k][c]) for c in classes))
n = len(unexplained)
print(f"\nunexplained: {n} of {total} = {100.0 * n / max(total, 1):.1f} %")
for u in unexplained:
    print("\t".join(u))
PY
