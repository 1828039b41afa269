#!/usr/bin/env bash
# Farm throughput: `pmfarm run` (one isolated pmworker per file) vs `pmfarm run --in-process`
# (one process, rayon, same pipeline code minus isolation) vs `xargs -P` driving pmworker per
# file (the no-coordinator floor), as medians of RUNS paired runs on the same corpus.
#
# "Paired": each round runs the three modes back to back (order rotated every round), and the
# ratios are taken within a round before the median, so load from other processes on a shared
# machine hits both sides of a ratio alike. The load average is printed before every round.
#
# Usage: scripts/bench-farm.sh CORPUS_DIR [RUNS] [JOBS]
#   CORPUS_DIR  e.g. a synthetic corpus: pmfarm synth --like MANIFEST --scale 0.1 --out /tmp/synth
#   RUNS        paired rounds (default 5)
#   JOBS        workers at once (default: nproc)
# Env: BIN (default target/release), TIERS (default t1,t2), KEEP=1 keeps the run folders.
# Prints one line per run and a summary table: median wall s, files/s, MB/s, ratios.
set -euo pipefail

corpus=${1:?usage: scripts/bench-farm.sh CORPUS_DIR [RUNS] [JOBS]}
runs=${2:-5}
jobs=${3:-$(nproc)}
bin=${BIN:-target/release}
tiers=${TIERS:-t1,t2}
[ -x "$bin/pmfarm" ] && [ -x "$bin/pmworker" ] || {
    echo "build first: cargo build --release -p pmfarm -p pmworker" >&2
    exit 2
}

work=$(mktemp -d /tmp/pmfarm-bench.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/gates" # no gates: the benchmark measures checking, not policy

files=$(find "$corpus" -iname '*.max' -type f | wc -l)
bytes=$(find "$corpus" -iname '*.max' -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
echo "corpus: $corpus — $files files, $((bytes / 1000000)) MB; jobs $jobs; tiers $tiers; $runs paired rounds"

run_mode() { # mode round → prints wall seconds
    local mode=$1 round=$2 out="$work/$1-$2" t0 t1
    t0=$(date +%s.%N)
    case $mode in
    isolated) "$bin/pmfarm" run "$corpus" --out "$out" --gates "$work/gates" -j "$jobs" --tiers "$tiers" \
        --worker "$bin/pmworker" --no-report >/dev/null 2>"$out.err" ;;
    in-process) "$bin/pmfarm" run "$corpus" --out "$out" --gates "$work/gates" -j "$jobs" --tiers "$tiers" \
        --in-process --no-report >/dev/null 2>"$out.err" ;;
    xargs) find "$corpus" -iname '*.max' -type f -print0 |
        xargs -0 -P "$jobs" -n 1 "$bin/pmworker" --tiers "$tiers" >/dev/null 2>&1 || true ;; # failing files exit 1
    esac
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }'
}

modes=(isolated in-process xargs)
: >"$work/times.tsv"
for round in $(seq 1 "$runs"); do
    echo "round $round: load $(cut -d' ' -f1-3 /proc/loadavg)"
    for k in 0 1 2; do
        mode=${modes[$(((round + k) % 3))]}
        s=$(run_mode "$mode" "$round")
        printf '%s\t%s\t%.3f\n' "$round" "$mode" "$s" | tee -a "$work/times.tsv"
        [ "${KEEP:-0}" = 1 ] || rm -rf "${work:?}/$mode-$round"
    done
done

awk -v files="$files" -v bytes="$bytes" -F'\t' '
function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ t[$1, $2] = $3; if ($1 > rounds) rounds = $1 }
END {
    split("isolated in-process xargs", m, " ")
    printf "\n%-11s %10s %10s %10s\n", "mode", "median s", "files/s", "MB/s"
    for (k = 1; k <= 3; k++) {
        for (r = 1; r <= rounds; r++) v[r] = t[r, m[k]]
        med = median(v, rounds)
        printf "%-11s %10.2f %10.1f %10.1f\n", m[k], med, files / med, bytes / 1e6 / med
    }
    for (r = 1; r <= rounds; r++) { a[r] = t[r, "isolated"] / t[r, "in-process"]; b[r] = t[r, "xargs"] / t[r, "in-process"]; c[r] = t[r, "isolated"] / t[r, "xargs"] }
    printf "\nmedian paired ratios: isolated/in-process %.3f   xargs/in-process %.3f   isolated/xargs %.3f\n", median(a, rounds), median(b, rounds), median(c, rounds)
}' "$work/times.tsv"
