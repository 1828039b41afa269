#!/usr/bin/env bash
# Memory: (1) worker peak RSS against the file's decompressed stream bytes on the N largest
# files of a corpus — target ≤ 3 × decompressed + 32 MB; (2) coordinator (`pmfarm run`) peak
# RSS on each corpus given, to show it does not grow with corpus size beyond the per-file
# summary.
#
# Usage: scripts/bench-memory.sh [-n N|all] CORPUS_DIR [MORE_CORPUS_DIRS...]
#   worker check on the N (default 8) largest files of the first corpus — with `-n all`, on
#   every file of every corpus given, ending with how many are within the bound and the
#   closest ones; coordinator check on every corpus given (e.g. 320 files = 10 × the public
#   corpus, and 860 files).
# Env: BIN (default target/release), TIERS (default t1,t2), JOBS (default nproc),
#      COORDINATOR=0 skips the coordinator check.
# Worker RSS is read twice: the worker's own `end.timing.peak_rss_bytes` and GNU time's
# maximum resident set size; the coordinator's is its VmHWM (its own pages, not its
# children's), sampled from /proc until it exits.
set -euo pipefail

n=8
if [ "${1:-}" = -n ]; then
    n=$2
    shift 2
fi
[ $# -ge 1 ] || {
    echo "usage: scripts/bench-memory.sh [-n N] CORPUS_DIR [MORE...]" >&2
    exit 2
}
bin=${BIN:-target/release}
tiers=${TIERS:-t1,t2}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d /tmp/pmfarm-mem.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gates"

if [ "$n" = all ]; then
    echo "== worker peak RSS vs decompressed stream bytes (every file of $*; load $(cut -d' ' -f1-3 /proc/loadavg))"
    find "$@" -iname '*.max' -type f -printf '%s\t%p\n' | sort -rn >"$work/by-size"
else
    echo "== worker peak RSS vs decompressed stream bytes (largest $n files of $1; load $(cut -d' ' -f1-3 /proc/loadavg))"
    find "$1" -iname '*.max' -type f -printf '%s\t%p\n' | sort -rn | head -n "$n" >"$work/by-size"
fi
printf '%-60s %10s %12s %10s %10s %12s %6s\n' file "size MB" "decoded MB" "RSS MB" "time MB" "bound MB" ok
cut -f2 "$work/by-size" |
    while read -r f; do
        # the environment the farm gives its workers (pmworker::memory::WORKER_GLIBC_TUNABLES)
        GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1} \
            /usr/bin/time -f '%M' -o "$work/time" "$bin/pmworker" --tiers "$tiers" "$f" >"$work/events" 2>/dev/null || true
        python3 - "$f" "$work/events" "$(cat "$work/time")" <<'EOF'
import json, os, sys
path, events, time_kb = sys.argv[1], sys.argv[2], int(sys.argv[3].strip().splitlines()[-1])
decoded = rss = 0
for line in open(events):
    e = json.loads(line)
    if e.get("event") == "facts":
        decoded = sum(s.get("decoded_bytes") or s.get("bytes") or 0 for s in e.get("streams", []))
    if e.get("event") == "end":
        rss = e.get("timing", {}).get("peak_rss_bytes", 0)
mb = lambda b: b / 1e6
bound = 3 * decoded + 32 * 1024 * 1024
peak = max(rss, time_kb * 1024)
name = os.path.relpath(path)[-60:]
print(f"{name:<60} {mb(os.path.getsize(path)):10.1f} {mb(decoded):12.1f} {mb(rss):10.1f} {time_kb/1e3:10.1f} {mb(bound):12.1f} {'yes' if peak <= bound else 'NO':>6}")
EOF
    done | tee "$work/rows"
# Share of the bound used: peak / bound, with peak the larger of the two readings.
awk '{ peak = ($(NF-3) > $(NF-2) ? $(NF-3) : $(NF-2)); print peak / $(NF-1) "\t" $0 }' "$work/rows" | sort -rn >"$work/closest"
echo "within the bound: $(grep -c ' yes$' "$work/rows" || true) of $(wc -l <"$work/rows") files; closest to it (peak / bound):"
head -n 5 "$work/closest" | awk -F'\t' '{ printf "  %.3f  %s\n", $1, $2 }'
[ "${COORDINATOR:-1}" = 0 ] && exit 0

echo
echo "== coordinator peak RSS (isolated pmfarm run, -j $jobs)"
printf '%-40s %8s %10s %14s %10s\n' corpus files "MB" "coord. MB" "wall s"
for corpus in "$@"; do
    out="$work/out-$(basename "$corpus")"
    files=$(find "$corpus" -iname '*.max' -type f | wc -l)
    bytes=$(find "$corpus" -iname '*.max' -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
    t0=$(date +%s.%N)
    "$bin/pmfarm" run "$corpus" --out "$out" --no-gates -j "$jobs" --tiers "$tiers" \
        --worker "$bin/pmworker" --no-report >/dev/null 2>&1 &
    pid=$!
    hwm=0
    while kill -0 "$pid" 2>/dev/null; do
        v=$(awk '/^VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
        [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
        sleep 0.2
    done
    wait "$pid" || true
    t1=$(date +%s.%N)
    printf '%-40s %8d %10.0f %14.1f %10.1f\n' "$(basename "$corpus")" "$files" "$(awk -v b="$bytes" 'BEGIN {print b/1e6}')" \
        "$(awk -v k="$hwm" 'BEGIN {print k/1000}')" "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b-a}')"
    rm -rf "$out"
done
