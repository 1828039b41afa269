#!/usr/bin/env bash
# Farm throughput: `pmfarm run` (one isolated worker process per file) vs `pmfarm run
# --in-process` (one process, rayon, same pipeline code minus isolation) vs `xargs -P` driving
# pmworker per file (the no-coordinator floor) vs `xargs -P` running `/bin/true` per file (the
# floor of any one-process-per-file design on this machine), as medians of RUNS paired rounds.
#
# "Paired": each round runs the four modes back to back (order rotated every round), and the
# ratios are taken within a round before the median, so load from other processes on a shared
# machine hits both sides of a ratio alike. The load average is printed before every round.
# Every mode is timed by GNU time: wall seconds and CPU seconds (user + sys of the mode's
# process and every child it waited for, workers included).
#
# Usage: scripts/bench-farm.sh CORPUS_DIR [RUNS] [JOBS]
#   CORPUS_DIR  e.g. a synthetic corpus: pmfarm synth --like MANIFEST --scale 0.05 --out /tmp/synth
#   RUNS        paired rounds (default 9)
#   JOBS        workers at once (default: nproc)
# Env: BIN (default target/release), TIERS (default t1,t2,t3, the farm's default), EXPORTS (comma
#      list; default summary when TIERS has t3, as `pmfarm run` does, else none),
#      WORKER (isolated mode's worker, default: pmfarm re-executing itself, the farm's default),
#      START (how the isolated mode starts the farm's own workers: zygote, the default, or spawn),
#      KEEP=1 keeps the run folders.
# No gates: the benchmark measures checking, not policy.
# Prints one line per run and a summary: median wall and CPU s, files/s, MB/s, paired ratios
# (wall and CPU), per-file overhead of isolation in ms and the /bin/true floor per file.
set -euo pipefail

corpus=${1:?usage: scripts/bench-farm.sh CORPUS_DIR [RUNS] [JOBS]}
runs=${2:-9}
jobs=${3:-$(nproc)}
bin=${BIN:-target/release}
tiers=${TIERS:-t1,t2,t3}
[ -x "$bin/pmfarm" ] && [ -x "$bin/pmworker" ] || {
    echo "build first: cargo build --release -p pmfarm -p pmworker" >&2
    exit 2
}
start=${START:-zygote}
worker_args=(--worker-start "$start")
[ -n "${WORKER:-}" ] && worker_args+=(--worker "$WORKER")
exports=${EXPORTS-}
[ -z "$exports" ] && [[ $tiers == *t3* ]] && exports=summary
export_args=()
for e in $(echo "$exports" | tr ',' ' '); do export_args+=(--export "$e"); done

work=$(mktemp -d /tmp/pmfarm-bench.XXXXXX)
[ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT

files=$(find "$corpus" -iname '*.max' -type f | wc -l)
bytes=$(find "$corpus" -iname '*.max' -type f -printf '%s\n' | awk '{s+=$1} END {print s+0}')
echo "corpus: $corpus — $files files, $((bytes / 1000000)) MB; jobs $jobs; tiers $tiers;" \
    "exports ${exports:-none}; worker ${WORKER:-pmfarm (re-exec)}, started: $start; $runs paired rounds"

run_mode() { # mode round → prints "wall cpu" seconds
    local mode=$1 round=$2 out="$work/$1-$2"
    local timed=(/usr/bin/time -f '%e %U %S' -o "$out.time")
    case $mode in
    isolated | in-process)
        local how=("${worker_args[@]}")
        [ "$mode" = in-process ] && how=(--in-process)
        local rc=0
        "${timed[@]}" "$bin/pmfarm" run "$corpus" --out "$out" --no-gates -j "$jobs" --tiers "$tiers" \
            "${export_args[@]}" "${how[@]}" --no-report >/dev/null 2>"$out.err" || rc=$?
        [ "$rc" -le 1 ] || { # 0 pass, 1 a file failed; anything else is a broken benchmark
            echo "pmfarm run ($mode) exited $rc:" >&2
            cat "$out.err" >&2
            exit 2
        } ;;
    xargs) find "$corpus" -iname '*.max' -type f -print0 >"$out.list"
        # failing files exit 1: xargs then exits 123, which is not the benchmark's business
        # the environment the farm gives its workers (pmworker::memory::WORKER_GLIBC_TUNABLES)
        GLIBC_TUNABLES=${GLIBC_TUNABLES:-glibc.malloc.hugetlb=1} \
            "${timed[@]}" xargs -0 -P "$jobs" -n 1 -a "$out.list" "$bin/pmworker" --tiers "$tiers" \
            "${export_args[@]}" >/dev/null 2>&1 || true ;;
    true) find "$corpus" -iname '*.max' -type f -print0 >"$out.list"
        "${timed[@]}" xargs -0 -P "$jobs" -n 1 -a "$out.list" /bin/true >/dev/null 2>&1 ;;
    esac
    awk '/^[0-9.]+ [0-9.]+ [0-9.]+$/ { printf "%.3f %.3f\n", $1, $2 + $3 }' "$out.time"
}

modes=(isolated in-process xargs true)
: >"$work/times.tsv"
for round in $(seq 1 "$runs"); do
    echo "round $round: load $(cut -d' ' -f1-3 /proc/loadavg)"
    for k in 0 1 2 3; do
        mode=${modes[$(((round + k) % 4))]}
        read -r wall cpu < <(run_mode "$mode" "$round")
        printf '%s\t%s\t%s\t%s\n' "$round" "$mode" "$wall" "$cpu" | tee -a "$work/times.tsv"
        [ "${KEEP:-0}" = 1 ] || rm -rf "${work:?}/$mode-$round"
    done
done

awk -v files="$files" -v bytes="$bytes" -F'\t' '
function median(a, n,   i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function ratio(num, den, k,   r) { for (r = 1; r <= rounds; r++) q[r] = t[r, num, k] / t[r, den, k]; return median(q, rounds) }
function per_file_ms(hi, lo, k,   r) { for (r = 1; r <= rounds; r++) q[r] = (t[r, hi, k] - (lo == "" ? 0 : t[r, lo, k])) / files * 1000; return median(q, rounds) }
function over_floor_ms(k,   r) { for (r = 1; r <= rounds; r++) q[r] = (t[r, "isolated", k] - t[r, "in-process", k] - t[r, "true", k]) / files * 1000; return median(q, rounds) }
{ t[$1, $2, "w"] = $3; t[$1, $2, "c"] = $4; if ($1 > rounds) rounds = $1 }
END {
    split("isolated in-process xargs true", m, " ")
    printf "\n%-11s %10s %10s %10s %10s\n", "mode", "wall s", "CPU s", "files/s", "MB/s"
    for (k = 1; k <= 4; k++) {
        for (r = 1; r <= rounds; r++) { v[r] = t[r, m[k], "w"]; u[r] = t[r, m[k], "c"] }
        med = median(v, rounds)
        printf "%-11s %10.2f %10.2f %10.1f %10.1f\n", m[k], med, median(u, rounds), files / med, bytes / 1e6 / med
    }
    printf "\nmedian paired ratios      %8s %8s\n", "wall", "CPU"
    printf "isolated / in-process     %8.3f %8.3f\n", ratio("isolated", "in-process", "w"), ratio("isolated", "in-process", "c")
    printf "xargs / in-process        %8.3f %8.3f\n", ratio("xargs", "in-process", "w"), ratio("xargs", "in-process", "c")
    printf "isolated / xargs          %8.3f %8.3f\n", ratio("isolated", "xargs", "w"), ratio("isolated", "xargs", "c")
    printf "\nper file, ms (median of paired rounds) %8s %8s\n", "wall", "CPU"
    printf "isolation overhead (isolated - in-process) %8.3f %8.3f\n", per_file_ms("isolated", "in-process", "w"), per_file_ms("isolated", "in-process", "c")
    printf "floor: /bin/true per file                  %8.3f %8.3f\n", per_file_ms("true", "", "w"), per_file_ms("true", "", "c")
    printf "overhead over the floor                    %8.3f %8.3f\n", over_floor_ms("w"), over_floor_ms("c")
}' "$work/times.tsv"
