#!/usr/bin/env bash
# Fuzzes every parser of outside input with libFuzzer + AddressSanitizer.
#   scripts/checks/fuzz.sh [SECONDS_PER_TARGET] [TARGET…]     (default 20 s each, every target)
# Seeds: Tests/Fuzz/corpus/TARGET and chat/Tests/Fuzz/corpus/TARGET (checked in); what the fuzzer
# learns stays in .build-fuzz/corpus.
# A crash, a timeout (10 s per input) or memory beyond 2 GiB stops with exit 1; the input is kept in
# .build-fuzz/crashes/TARGET — add it to the target's regressions/TARGET/ folder (replayed by the tests).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/common.sh
seconds=${1:-20}
shift || true
scratch=.build-fuzz
# Two fuzzing programs: roqua-fuzz (the geocoder's parsers; seeds in Tests/Fuzz) and
# roqua-chat-fuzz (what a server or peer sends a tour-group device; seeds in chat/Tests/Fuzz).
build_fuzzer() {  # build_fuzzer PRODUCT SCRATCH [--package-path DIR]
  local product=$1 dir=$2; shift 2
  echo "Building $product with -sanitize=fuzzer,address (first build takes a few minutes)…" >&2
  roqua_forget_plan "$dir"  # both fuzzers build into one folder (scripts/common.sh)
  if ! swift build "$@" --product "$product" --scratch-path "$dir" -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
      >"$dir.log" 2>&1; then
    grep -E "error:" "$dir.log" >&2 || tail -30 "$dir.log" >&2
    exit 1
  fi
}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=($(ls Tests/Fuzz/corpus) $(ls chat/Tests/Fuzz/corpus))
# Each program is built only when one of its targets is asked for.
is_chat() { [ -d "chat/Tests/Fuzz/corpus/$1" ]; }
need_root=false need_chat=false
for target in "${targets[@]}"; do if is_chat "$target"; then need_chat=true; else need_root=true; fi; done
$need_root && build_fuzzer roqua-fuzz "$scratch"
# The same build folder for both: what they share (swift-crypto, GRDB, RoquaIO) is compiled once.
$need_chat && build_fuzzer roqua-chat-fuzz "$PWD/$scratch" --package-path chat
roqua_forget_plan "$scratch"
# One target per core at a time: each runs for its full time, so the whole run takes
# targets × seconds ÷ cores (39 × 15 s on 2 cores: about 5 min in place of 10).
fuzz_one() {  # fuzz_one TARGET — prints one line; exit 1 on a crash
  local target=$1 binary seeds log runs
  if is_chat "$target"; then binary=$scratch/debug/roqua-chat-fuzz seeds=chat/Tests/Fuzz/corpus/$target
  else binary=$scratch/debug/roqua-fuzz seeds=Tests/Fuzz/corpus/$target; fi
  mkdir -p "$scratch/corpus/$target" "$scratch/crashes/$target"
  log="$scratch/fuzz-$target.log"
  if ROQUA_FUZZ_TARGET=$target ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 "$binary" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$scratch/crashes/$target/" "$scratch/corpus/$target" "$seeds" >"$log" 2>&1; then
    runs=$(grep -aE "stat::number_of_executed_units" "$log" | awk '{print $2}')
    echo "$target: ${seconds} s, ${runs:-?} inputs, no crash"
  else
    echo "$target: FAILED — see $log and $scratch/crashes/$target/" >&2
    grep -E "ERROR|==[0-9]+==|SUMMARY|Fatal error" "$log" | head -5 >&2 || true
    return 1
  fi
}
jobs_max=$(nproc 2>/dev/null || echo 1)
status=0 running=0
for target in "${targets[@]}"; do
  if [ "$running" -ge "$jobs_max" ]; then
    wait -n || status=1
    running=$((running - 1))
  fi
  fuzz_one "$target" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
