#!/usr/bin/env bash
# Runs each cargo-fuzz target of rust/fuzz for a fixed time and prints its figures.
#
#   bash scripts/fuzz.sh SECONDS [TARGET...]     # default: every target, one after another
#   JOBS=2 bash scripts/fuzz.sh 600              # two targets at a time
#
# Needs a nightly toolchain and `cargo install cargo-fuzz`. Corpora are seeded from
# tests/data (scripts/fuzz_seeds.py) and kept in rust/fuzz/corpus; crashes land in
# rust/fuzz/artifacts/<target>/ (replay: cargo +nightly fuzz run --fuzz-dir rust/fuzz TARGET FILE),
# logs in rust/fuzz/logs/. Exit status 1 if any target found a crash.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    mapfile -t targets < <(cargo +nightly fuzz list --fuzz-dir rust/fuzz)
fi
jobs=${JOBS:-1}

python3 scripts/fuzz_seeds.py
if ! build_log=$(cargo +nightly fuzz build -O --fuzz-dir rust/fuzz 2>&1); then
    echo "$build_log" >&2
    exit 1
fi
mkdir -p rust/fuzz/logs

run_one() {
    local target=$1 start=$SECONDS
    # -timeout: an input taking over 10 s is a hang (inputs are at most 64 KiB).
    cargo +nightly fuzz run -O --fuzz-dir rust/fuzz "$target" -- \
        -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 >"rust/fuzz/logs/$target.log" 2>&1 || true
    # Wall time, also when a crash stopped the run early.
    echo $((SECONDS - start)) >"rust/fuzz/logs/$target.seconds"
}

running=0
for target in "${targets[@]}"; do
    run_one "$target" &
    running=$((running + 1))
    if [ "$running" -ge "$jobs" ]; then
        wait -n || true
        running=$((running - 1))
    fi
done
wait

status=0
printf '%-20s %12s %8s %8s %s\n' target executions seconds exec/s crashes
for target in "${targets[@]}"; do
    log=rust/fuzz/logs/$target.log
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    secs=$(cat "rust/fuzz/logs/$target.seconds")
    speed=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    crashes=$(ls "rust/fuzz/artifacts/$target" 2>/dev/null | grep -c -E '^(crash|timeout|oom|leak)-' || true)
    printf '%-20s %12s %8s %8s %s\n' "$target" "$runs" "$secs" "$speed" "$crashes"
    [ "$crashes" -eq 0 ] || status=1
done
exit "$status"
