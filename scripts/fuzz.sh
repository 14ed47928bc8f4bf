#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer + AddressSanitizer.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]     (default 20 s each, every target)
# Seeds: Tests/Fuzz/corpus/TARGET (checked in); what the fuzzer learns stays in .build-fuzz/corpus.
# A crash, a timeout (10 s per input) or memory beyond 2 GiB stops with exit 1; the input is kept in
# .build-fuzz/crashes/TARGET — add it to Tests/Fuzz/regressions/TARGET/ with a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
scratch=.build-fuzz
echo "Building roqua-fuzz with -sanitize=fuzzer,address (first build takes a few minutes)…" >&2
if ! swift build --product roqua-fuzz --scratch-path "$scratch" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
    >"$scratch.log" 2>&1; then
  grep -E "error:" "$scratch.log" >&2 || tail -30 "$scratch.log" >&2
  exit 1
fi
binary="$scratch/debug/roqua-fuzz"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(ls Tests/Fuzz/corpus))
status=0
for target in "${targets[@]}"; do
  mkdir -p "$scratch/corpus/$target" "$scratch/crashes/$target"
  log="$scratch/fuzz-$target.log"
  if ROQUA_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$binary" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$scratch/crashes/$target/" "$scratch/corpus/$target" "Tests/Fuzz/corpus/$target" >"$log" 2>&1; then
    runs=$(grep -aE "stat::number_of_executed_units" "$log" | awk '{print $2}')
    echo "$target: ${seconds} s, ${runs:-?} inputs, no crash"
  else
    echo "$target: FAILED — see $log and $scratch/crashes/$target/" >&2
    grep -E "ERROR|==[0-9]+==|SUMMARY|Fatal error" "$log" | head -5 >&2 || true
    status=1
  fi
done
exit $status
