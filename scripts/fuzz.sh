#!/usr/bin/env bash
# Runs each cargo-fuzz target for SECONDS (default 600) on the nightly toolchain, seeded
# from ../shared/corpus/public (seeds live in fuzz/corpus/, which git ignores: copies of
# shared files are never committed). Crashes land in fuzz/artifacts/<target>/; minimise one
# with `cargo +nightly fuzz tmin <target> <file>` and commit the result under
# fuzz/regressions/<target>/ so CI replays it on stable (tests/tests/fuzz_regressions.rs).
# Prints executions and coverage per target at the end. Fuzzing stays out of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-600}"
targets="${TARGETS:-chunk_parse header_forms ole_open typed_pipeline param_block}"
shared=../shared/corpus/public
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

mkdir -p fuzz/corpus/chunk_parse fuzz/corpus/header_forms fuzz/corpus/ole_open fuzz/corpus/typed_pipeline fuzz/corpus/param_block
if [ -d "$shared" ]; then
  small=$(find "$shared" -name '*.max' -size -400k | sort)
  cargo run -q --release -p pmcore --example extract_streams fuzz/corpus/chunk_parse $small
  cargo run -q --release -p pmcore --example param_block_seeds fuzz/corpus/param_block $small
  for f in $small; do cp -f "$f" fuzz/corpus/ole_open/; cp -f "$f" fuzz/corpus/typed_pipeline/; done
fi

cd fuzz
for t in $targets; do cargo +nightly fuzz build -O "$t" >/dev/null; done
pids=()
for t in $targets; do
  mkdir -p artifacts/$t
  case $t in chunk_parse) max=262144 ;; *) max=1048576 ;; esac
  cargo +nightly fuzz run -O "$t" "corpus/$t" -- -max_total_time="$seconds" -max_len=$max \
      -rss_limit_mb=2048 -print_final_stats=1 >"artifacts/$t.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
for t in $targets; do
  echo "== $t"
  grep -E "stat::number_of_executed_units|stat::peak_rss_mb|cov: " "artifacts/$t.log" | tail -3
  ls "artifacts/$t" 2>/dev/null | grep -E "^(crash|oom|timeout|leak)-" && status=1 || echo "   no crash"
done
exit $status
