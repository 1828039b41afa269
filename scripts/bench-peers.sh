#!/usr/bin/env bash
# Per-file cost of pmworker against the C++ peer reader miMAX (issue #43), whole processes,
# paired and interleaved: every round runs, for every file, pmworker T1+T2, pmworker as the farm
# starts it (t1,t2,t3 + summary), miMAX and /bin/true back to back (the order rotated each
# round), and reads each child's CPU (user + sys, process start included) and peak RSS from
# wait4(2). Per round and set: CPU and wall ms per file (mean over the set's files); printed:
# medians over the rounds, MB/s per core (file bytes / CPU), and the per-round ratios' medians.
#
# Sets: the public corpus files miMAX reads (exit 0; the others are left out of every mode so
# the pairs stay equal) and the 20 Rocketbox avatars (../shared/corpus/biped).
#
# Usage: scripts/bench-peers.sh [ROUNDS]       (default 9)
# Env:   BIN (default target/release), CSV (per-round rows; default target/bench-peers.csv),
#        MIMAX (a built mimax_driver) or MIMAX_SRC + CFR_SRC (checkouts of metarutaiga/miMAX and
#        microsoft/compoundfilereader, built once into target/peers/mimax by
#        ../shared/peers/mimax/setup.sh). Without a peer the miMAX column is skipped, with a message.
#        BEFORE (a folder with another build's pmworker): adds its two modes (t1t2@before,
#        default@before) to the same rounds, for before/after ratios measured paired.
#        SCALE_DIRS (space-separated folders): also time T1+T2 and peak RSS once per file of each,
#        rows `scale` in the CSV (file bytes, CPU ms, wall ms, peak RSS KiB) for the size plot.
# No gates: the targets of issue #43 are read off the printed ratios, never asserted in tests.
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-9}
bin=${BIN:-target/release}
csv=${CSV:-target/bench-peers.csv}
shared=../shared
[ -x "$bin/pmworker" ] || { echo "build first: cargo build --release -p pmworker" >&2; exit 2; }
[ -d "$shared/corpus/public" ] || { echo "skip: $shared/corpus is absent" >&2; exit 0; }

mimax=${MIMAX:-}
if [ -z "$mimax" ] && [ -x target/peers/mimax/mimax_driver ]; then
    mimax=target/peers/mimax/mimax_driver
fi
if [ -z "$mimax" ] && [ -n "${MIMAX_SRC:-}" ] && [ -n "${CFR_SRC:-}" ]; then
    rm -rf target/peers/mimax
    mkdir -p target/peers/mimax
    sh "$shared/peers/mimax/setup.sh" "$MIMAX_SRC" "$CFR_SRC" target/peers/mimax >&2
    mimax=target/peers/mimax/mimax_driver
fi
if [ -n "$mimax" ] && [ ! -x "$mimax" ]; then
    echo "skip miMAX: $mimax is not an executable" >&2
    mimax=
elif [ -z "$mimax" ]; then
    echo "skip miMAX: no peer (set MIMAX=path/to/mimax_driver, or MIMAX_SRC and CFR_SRC to the checkouts" \
        "named in $shared/peers/mimax/README.md)" >&2
fi

python3 - "$bin/pmworker" "${mimax:-}" "$rounds" "$csv" "$shared" "${SCALE_DIRS:-}" "${BEFORE:-}" <<'PY'
import csv, glob, os, statistics, subprocess, sys, tempfile, time

worker, mimax, rounds, csv_path, shared, scale_dirs, before = sys.argv[1:8]
rounds = int(rounds)
devnull = os.open(os.devnull, os.O_WRONLY)
out_dir = tempfile.mkdtemp(prefix="bench-peers.")
# The environment the farm gives its workers (pmworker::memory::WORKER_GLIBC_TUNABLES).
worker_env = dict(os.environ, GLIBC_TUNABLES=os.environ.get("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1"))

def run(argv, env=None):
    """(cpu ms, wall ms, peak RSS KiB, exit code) of one whole process."""
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env if env is not None else os.environ,
                         file_actions=[(os.POSIX_SPAWN_DUP2, devnull, 1), (os.POSIX_SPAWN_DUP2, devnull, 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = (time.perf_counter() - t0) * 1e3
    return (ru.ru_utime + ru.ru_stime) * 1e3, wall, ru.ru_maxrss, os.waitstatus_to_exitcode(status)

modes = {
    "t1t2": lambda f: ([worker, "--tiers", "t1,t2", f], worker_env),
    "default": lambda f: ([worker, "--tiers", "t1,t2,t3", "--export", "summary", "--out", out_dir, f], worker_env),
    "true": lambda f: (["/bin/true", f], None),
}
if mimax:
    modes["mimax"] = lambda f: ([os.path.abspath(mimax), f], None)
if before:
    old = os.path.join(before, "pmworker")
    modes["t1t2@before"] = lambda f: ([old, "--tiers", "t1,t2", f], worker_env)
    modes["default@before"] = lambda f: ([old, "--tiers", "t1,t2,t3", "--export", "summary", "--out", out_dir, f], worker_env)

public = sorted(glob.glob(f"{shared}/corpus/public/*.max"))
biped = sorted(glob.glob(f"{shared}/corpus/biped/**/*.max", recursive=True))
if mimax:
    dropped = [f for f in public if run([os.path.abspath(mimax), f])[3] != 0]
    public = [f for f in public if f not in dropped]
    if dropped:
        print(f"public files miMAX does not read (left out of every mode): {len(dropped)}: "
              + ", ".join(os.path.basename(f) for f in dropped))
sets = {"public": public, "rocketbox": biped}
size = {name: sum(os.path.getsize(f) for f in files) for name, files in sets.items()}
print(f"sets: public {len(public)} files {size['public']/1e6:.1f} MB; rocketbox {len(biped)} files "
      f"{size['rocketbox']/1e6:.1f} MB; modes {', '.join(modes)}; {rounds} rounds")

rows = []  # (round, set, mode, cpu ms per file, wall ms per file)
names = list(modes)
for r in range(rounds):
    order = names[r % len(names):] + names[:r % len(names)]
    acc = {(s, m): [0.0, 0.0] for s in sets for m in names}
    for s, files in sets.items():
        for f in files:
            for m in order:
                argv, env = modes[m](f)
                cpu, wall, _, _ = run(argv, env)
                acc[(s, m)][0] += cpu
                acc[(s, m)][1] += wall
    for (s, m), (cpu, wall) in acc.items():
        n = len(sets[s])
        rows.append((r, s, m, cpu / n, wall / n))
    load = os.getloadavg()[0]
    print(f"round {r + 1}/{rounds} (load {load:.2f}): " + "; ".join(
        f"{s} " + " ".join(f"{m} {acc[(s, m)][0] / len(sets[s]):.2f}" for m in names) for s in sets))

def med(s, m, col):
    return statistics.median(row[col] for row in rows if row[1] == s and row[2] == m)

def ratio(s, a, b):
    per_round = {}
    for row in rows:
        if row[1] == s and row[2] in (a, b):
            per_round.setdefault(row[0], {})[row[2]] = row[3]
    return statistics.median(v[a] / v[b] for v in per_round.values())

print("\nmedians over rounds, CPU = user + sys per file incl. process start; MB/s = file bytes / CPU")
print(f"{'set':10} {'mode':14} {'CPU ms':>8} {'wall ms':>8} {'MB/s':>8}")
for s in sets:
    for m in names:
        cpu = med(s, m, 3)
        mbs = size[s] / len(sets[s]) / (cpu / 1e3) / 1e6
        print(f"{s:10} {m:14} {cpu:8.2f} {med(s, m, 4):8.2f} {mbs:8.1f}")
    if mimax:
        print(f"{s:10} ratio t1t2/mimax {ratio(s, 't1t2', 'mimax'):.3f}   default/mimax {ratio(s, 'default', 'mimax'):.3f}")
    print(f"{s:10} ratio default/t1t2 {ratio(s, 'default', 't1t2'):.3f}")
    if before:
        print(f"{s:10} ratio after/before t1t2 {ratio(s, 't1t2', 't1t2@before'):.3f}   "
              f"default {ratio(s, 'default', 'default@before'):.3f}")
        if mimax:
            print(f"{s:10} ratio before t1t2/mimax {ratio(s, 't1t2@before', 'mimax'):.3f}")

os.makedirs(os.path.dirname(csv_path) or ".", exist_ok=True)
with open(csv_path, "w", newline="") as fh:
    w = csv.writer(fh)
    w.writerow(["kind", "round", "set", "mode", "file", "bytes", "cpu_ms", "wall_ms", "peak_rss_kib"])
    for r, s, m, cpu, wall in rows:
        w.writerow(["round", r, s, m, "", size[s] // len(sets[s]), f"{cpu:.3f}", f"{wall:.3f}", ""])
    for d in scale_dirs.split():
        for f in sorted(glob.glob(f"{d}/**/*.max", recursive=True)):
            cpu, wall, rss, _ = run([worker, "--tiers", "t1,t2", f], worker_env)
            w.writerow(["scale", 0, d, "t1t2", f, os.path.getsize(f), f"{cpu:.3f}", f"{wall:.3f}", rss])
print(f"CSV: {csv_path}")
PY
