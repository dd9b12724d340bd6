#!/usr/bin/env bash
# Runs fuzz targets one after another, one libFuzzer process each (one core), for a time budget
# each, and prints per target: executions, seconds, corpus size, crash artifacts.
#   fuzz/campaign.sh SECONDS [TARGET...]      (no target: every target in fuzz/Cargo.toml)
# Environment: TOOLCHAIN (default +nightly; empty with RUSTC_BOOTSTRAP=1 for stable),
# SANITIZER (default none: the readers are safe Rust; use address for unsafe code),
# MAX_LEN (default 32768 bytes per input), RUNS (stop after this many executions even if time is
# left; default -1, no limit). Logs go to fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:?usage: fuzz/campaign.sh SECONDS [TARGET...]}
shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo fuzz list --fuzz-dir fuzz)
toolchain=${TOOLCHAIN-+nightly}
[ -d fuzz/seeds ] || fuzz/seed.sh >/dev/null
mkdir -p fuzz/logs
for t in "${targets[@]}"; do
  mkdir -p "fuzz/corpus/$t" "fuzz/seeds/$t"
  log="fuzz/logs/$t.log"
  start=$(date +%s)
  # shellcheck disable=SC2086
  cargo $toolchain fuzz run --fuzz-dir fuzz -s "${SANITIZER:-none}" "$t" \
    "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
    -max_total_time="$secs" -runs="${RUNS:--1}" -max_len="${MAX_LEN:-32768}" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 >"$log" 2>&1 && rc=0 || rc=$?
  took=$(($(date +%s) - start))
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || true)
  [ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
  printf '%-16s rc=%-3s execs=%-10s secs=%-5s corpus=%-5s artifacts=%s\n' "$t" "$rc" "$execs" \
    "$took" "$(find "fuzz/corpus/$t" -type f | wc -l)" \
    "$(find "fuzz/artifacts/$t" -type f 2>/dev/null | wc -l)"
done
