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
targets="${TARGETS:-chunk_parse header_forms ole_open typed_pipeline param_block property_set reference_readers ase_reader nel_skel nel_mesh nel_mesh_mrm_skinned nel_anim nel_ig biped_keytracks}"
shared=../shared/corpus/public
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked

mkdir -p fuzz/corpus/chunk_parse fuzz/corpus/header_forms fuzz/corpus/ole_open fuzz/corpus/typed_pipeline fuzz/corpus/param_block fuzz/corpus/property_set fuzz/corpus/reference_readers
if [ -d "$shared" ]; then
  small=$(find "$shared" -name '*.max' -size -400k | sort)
  cargo run -q --release -p pmcore --example extract_streams fuzz/corpus/chunk_parse $small
  cargo run -q --release -p pmcore --example param_block_seeds fuzz/corpus/param_block $small
  for f in $small; do cp -f "$f" fuzz/corpus/ole_open/; cp -f "$f" fuzz/corpus/typed_pipeline/; done
fi
# reference_readers: seeds are the small exports of ../shared/corpus/pairs, each behind a
# selector byte (0 FBX without its magic, 1 OBJ, 2 .x without its header).
pairs=../shared/corpus/pairs
if [ -d "$pairs" ]; then
  find "$pairs" -iname '*.fbx' -size -200k | sort | head -20 | while read -r f; do
    { printf '\x00'; tail -c +22 "$f"; } > "fuzz/corpus/reference_readers/fbx-$(basename "$f" | tr -c 'A-Za-z0-9.' _)"
  done
  find "$pairs" -iname '*.obj' -size -400k | while read -r f; do
    { printf '\x01'; cat "$f"; } > "fuzz/corpus/reference_readers/obj-$(basename "$f" | tr -c 'A-Za-z0-9.' _)"
  done
  find "$pairs" -iname '*.x' -size -400k | while read -r f; do
    { printf '\x02'; tail -c +17 "$f"; } > "fuzz/corpus/reference_readers/x-$(basename "$f" | tr -c 'A-Za-z0-9.' _)"
  done
fi
# ase_reader: the ASE files of ../shared/corpus/anim without their first word (the body
# prepends `*3DSMAX_ASCIIEXPORT `), and the .3ds and small glTF files as they are.
anim=../shared/corpus/anim
mkdir -p fuzz/corpus/ase_reader
if [ -d "$anim" ]; then
  find "$anim" -iname '*.ase' | while read -r f; do
    sed '1s/^\*3DSMAX_ASCIIEXPORT[[:space:]]*//' "$f" > "fuzz/corpus/ase_reader/$(basename "$f" | tr -c 'A-Za-z0-9.' _)"
  done
  find "$anim" -iname '*.3ds' | while read -r f; do
    cp -f "$f" "fuzz/corpus/ase_reader/3ds-$(basename "$f" | tr -c 'A-Za-z0-9.' _)"
  done
  find "$anim" -iname '*.gltf' -size -200k | while read -r f; do
    cp -f "$f" "fuzz/corpus/ase_reader/gltf-$(basename "$f" | tr -c 'A-Za-z0-9.' _)"
  done
fi
# NeL targets get the real NeL files without the head their body prepends (tag, pointer
# id, class name), so every seed starts at the first serialised field.
nel=../shared/corpus/nel
mkdir -p fuzz/corpus/nel_skel fuzz/corpus/nel_mesh fuzz/corpus/nel_mesh_mrm_skinned fuzz/corpus/nel_anim fuzz/corpus/nel_ig
if [ -d "$nel" ]; then
  for f in "$nel"/skel/*.skel; do tail -c +31 "$f" >"fuzz/corpus/nel_skel/$(basename "$f")"; done
  for f in "$nel"/anim/*.anim; do tail -c +9 "$f" >"fuzz/corpus/nel_anim/$(basename "$f")"; done
  for f in "$nel"/ig/*.ig; do tail -c +5 "$f" >"fuzz/corpus/nel_ig/$(basename "$f")"; done
  for f in $(find "$nel/shape" -name '*.shape' -size -400k); do
    if head -c 40 "$f" | grep -q CMeshMRMSkinned; then
      tail -c +32 "$f" >"fuzz/corpus/nel_mesh_mrm_skinned/$(basename "$f")"
    else
      tail -c +22 "$f" >"fuzz/corpus/nel_mesh/$(basename "$f")"
    fi
  done
fi
# biped_keytracks: a 0x9155 object's chunk list; seeds are the hand-made ones of
# fuzz/regressions/biped_keytracks (a keyed figure), not shared files.
mkdir -p fuzz/corpus/biped_keytracks
cp -f fuzz/regressions/biped_keytracks/* fuzz/corpus/biped_keytracks/

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
