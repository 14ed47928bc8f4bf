#!/usr/bin/env bash
# Two release builds of roqua serve against each other on GET /reverse, interleaved (A B A B …)
# so that what else the shared machine runs weighs on both alike: each turn is one
# `scripts/checks/load-test.sh RUNS SECONDS`, and the figure compared is the median of the server's CPU
# time per request over all runs (it barely depends on load), with the req/s beside it.
#   scripts/serve/compare-builds.sh A_DIR B_DIR [PAIRS] [RUNS] [SECONDS]
#     (each DIR holds a release `roqua` and `roqua-serve`; ROQUA_TEST_BOUNDARIES reuses a boundary DB)
set -euo pipefail
cd "$(dirname "$0")/../.."
a=$1; b=$2; pairs=${3:-3}; runs=${4:-3}; seconds=${5:-10}
log=$(mktemp /tmp/roqua-compare.XXXXXX)
trap 'rm -f "$log"' EXIT
for pair in $(seq 1 "$pairs"); do
  for dir in "$a" "$b"; do
    echo "pair $pair: $dir (load average $(cut -d' ' -f1 /proc/loadavg))"
    ROQUA_BIN="$dir/roqua" scripts/checks/load-test.sh "$runs" "$seconds" | grep '^run ' | sed "s#^#$dir #" | tee -a "$log"
  done
done
for dir in "$a" "$b"; do
  grep "^$dir run " "$log" | python3 -c 'import sys, re, statistics
rows = [l for l in sys.stdin]
cost = [float(re.search(r"server CPU (\d+) µs", l).group(1)) for l in rows]
rate = [float(re.search(r": ([\d.]+) req/s", l).group(1)) for l in rows]
print(f"{sys.argv[1]}: median {statistics.median(cost):.0f} µs of server CPU per request, {statistics.median(rate):.0f} req/s ({len(rows)} runs)")' "$dir"
done
