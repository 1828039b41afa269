#!/usr/bin/env bash
# Runs T3 `nel-shape` on every scene of ../shared/corpus/nel/manifest.tsv that the NeL
# exporter's shapes pair with (pmworker --tiers t3 --export shape --reference NEL) and
# prints one markdown row per scene: level reached, counts exact, positions within
# tolerance, best reference and node, and the miss's reason class — the table
# docs/exporters.md quotes. Usage: scripts/nel_shape_sweep.sh [OUT.jsonl]
set -euo pipefail
cd "$(dirname "$0")/.."
nel=$(cd ../shared/corpus/nel && pwd)
out="${1:-target/nel_shape_sweep.jsonl}"
cargo build -q -p pmworker
worker=target/debug/pmworker
: > "$out"
awk -F'\t' 'NR > 1 && $2 == "max" && $13 != "" { print $1 }' "$nel/manifest.tsv" | while IFS= read -r max; do
  "$worker" "$nel/$max" --tiers t3 --export shape --reference "$nel" |
    jq -c --arg scene "$max" 'select(.event == "result" and .stream == "nel-shape") | . + {scene: $scene}' >> "$out" || true
done
echo "| scene | level | counts exact | positions | best reference (node) | miss (reason class) |"
echo "|---|---|---|---|---|---|"
jq -r '[.scene, (.detail.best.level // "-"), (.detail.best.counts_exact // false), (.detail.best.positions_within // false),
        ((.detail.best.reference // "-") + " (" + (.detail.best.node // "-") + ")"),
        (if .verdict == "pass" then "-" else ((.kind // .reason // "") + ": " + ((.message // .reason // "") | .[0:140])) end)] | "| " + join(" | ") + " |"' "$out"
jq -rs '"scenes \(length); counts exact \(map(select(.detail.best.counts_exact == true)) | length); positions \(map(select(.detail.best.positions_within == true)) | length); pass \(map(select(.verdict == "pass")) | length); skip \(map(select(.verdict == "skip")) | length)"' "$out"
