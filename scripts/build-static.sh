#!/usr/bin/env bash
# Release build of pmfarm and pmworker as static-pie executables (glibc linked in): a worker
# process then starts without the dynamic loader (ld.so mapping libc, libm, libgcc_s and
# relocating them), which measured ≈ 6–7 % of the isolated farm's CPU on small files
# (docs/performance.md, issue #28). `pmfarm run` re-executes itself as the worker, so the
# coordinator binary is the one that must be static.
#
# `--target` is required: with it, RUSTFLAGS reach only the target's crates, not the build
# scripts and proc-macros (which cannot be linked statically). Output:
#   target/x86_64-unknown-linux-gnu/release/{pmfarm,pmworker}
# Usage: scripts/build-static.sh [extra cargo args]
set -euo pipefail
cd "$(dirname "$0")/.."
target=$(rustc -vV | awk '/^host:/ {print $2}')
case $target in
*-linux-gnu) ;;
*) echo "static-pie via crt-static is set up for *-linux-gnu hosts only (this is $target)" >&2; exit 2 ;;
esac
RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
    cargo build --release --target "$target" -p pmfarm -p pmworker "$@"
echo "static binaries: target/$target/release/pmfarm target/$target/release/pmworker"
