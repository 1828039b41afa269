#!/usr/bin/env bash
# Pools the paired rounds of several `scripts/bench-farm.sh` logs (the same code, the same
# corpus) and prints the ratios over all of them: one run's median moves by ±3 % on a shared
# 2-core machine, the median of every round pooled much less.
#
# Usage: scripts/bench-pool.sh LOG [LOG ...]
# Reads each log's round lines ("ROUND<TAB>MODE<TAB>WALL<TAB>CPU"); a round counts only when
# all four modes finished in it. Prints, for isolated / in-process and isolated / xargs, the
# median, mean and interquartile range of the per-round ratios (wall and CPU), and how many
# rounds are under 1.10.
set -euo pipefail
[ $# -ge 1 ] || {
    echo "usage: scripts/bench-pool.sh LOG [LOG ...]" >&2
    exit 2
}
for log in "$@"; do
    [ -r "$log" ] || {
        echo "cannot read $log" >&2
        exit 2
    }
done
awk -F'\t' '
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function quantile(a, n, q,   k) { k = 1 + (n - 1) * q; return a[int(k)] + (k - int(k)) * (a[int(k) + (int(k) < n)] - a[int(k)]) }
function report(name, num, den, k,   r, n, s, under) {
    n = 0; s = 0; under = 0
    for (r = 1; r <= rounds; r++) if ((r, num, k) in t && (r, den, k) in t) { n++; q[n] = t[r, num, k] / t[r, den, k]; s += q[n]; under += q[n] <= 1.10 }
    sort(q, n)
    printf "%-22s %-4s %6.3f %6.3f   %6.3f–%-6.3f %4d of %d\n", name, (k == "w" ? "wall" : "CPU"), quantile(q, n, 0.5), s / n, quantile(q, n, 0.25), quantile(q, n, 0.75), under, n
}
FNR == 1 { base = rounds }
/^[0-9]+\t(isolated|in-process|xargs|true)\t[0-9.]+\t[0-9.]+$/ {
    r = base + $1; t[r, $2, "w"] = $3; t[r, $2, "c"] = $4; seen[r]++; if (r > rounds) rounds = r
}
END {
    complete = 0
    for (r = 1; r <= rounds; r++) if (seen[r] == 4) complete++
    printf "%d rounds from %d log(s), %d with all four modes\n\n", rounds, ARGC - 1, complete
    printf "%-22s %-4s %6s %6s   %-13s %s\n", "ratio", "", "median", "mean", "IQR", "rounds ≤ 1.10"
    report("isolated / in-process", "isolated", "in-process", "w")
    report("isolated / in-process", "isolated", "in-process", "c")
    report("isolated / xargs", "isolated", "xargs", "w")
    report("isolated / xargs", "isolated", "xargs", "c")
}' "$@"
