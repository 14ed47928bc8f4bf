#!/usr/bin/env bash
# Load test of GET /reverse on loopback: wrk (Debian) with keep-alive, a coordinate per request
# from a seeded generator (scripts/serve/reverse.lua), against a release build of roqua serve.
# Bounded: RUNS runs of SECONDS each (default 3 × 10 s), 2 s request timeout, then the server is
# stopped. Prints each run, the medians, and the server's peak RSS.
#   scripts/checks/load-test.sh [RUNS] [SECONDS] [CONNECTIONS]
#     (needs: swift build -c release --product roqua && swift build -c release --product roqua-serve)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
runs=${1:-3}; seconds=${2:-10}; connections=${3:-32}
command -v wrk >/dev/null || { echo "missing wrk (apt-get install wrk)" >&2; exit 1; }
serve_release_binaries
work=$(mktemp -d /tmp/roqua-load.XXXXXX)
trap 'serve_stop; rm -rf "$work"' EXIT
serve_start "$work" --log-level warning
url="http://127.0.0.1:$SERVE_PORT"
echo "roqua serve (release) on $url; wrk 1 thread, $connections connections, ${seconds}s × $runs, $(nproc) cores shared by both"
wrk -t1 -c4 -d2s -s scripts/serve/reverse.lua "$url" >/dev/null  # warm the resolver caches
# The server's CPU time (user + system, clock ticks) so far: divided by the requests answered, a
# cost per request that does not depend on what else the shared machine is running.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$SERVE_PID/stat"; }
ticks_per_second=$(getconf CLK_TCK)
rates=(); p99s=(); costs=()
for run in $(seq 1 "$runs"); do
  before=$(cpu_ticks)
  out=$(wrk -t1 -c"$connections" -d"${seconds}s" --timeout 2s --latency -s scripts/serve/reverse.lua "$url")
  rate=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  requests=$(awk '/requests in/ {print $1}' <<<"$out")
  cost=$(( ($(cpu_ticks) - before) * 1000000 / ticks_per_second / requests ))
  errors=$(grep -E "Non-2xx|Socket errors" <<<"$out" || true)
  echo "run $run: $rate req/s, p50 $p50, p99 $p99, server CPU ${cost} µs/request ${errors:+($errors)} (load average $(cut -d' ' -f1 /proc/loadavg))"
  rates+=("$rate"); p99s+=("$p99"); costs+=("$cost")
done
rss_kb=$(awk '/VmHWM/ {print $2}' "/proc/$SERVE_PID/status")
median() { printf '%s\n' "$@" | python3 -c 'import sys, statistics
def ms(v):
    v = v.strip()
    for unit, f in (("us", 0.001), ("ms", 1.0), ("s", 1000.0)):
        if v.endswith(unit): return float(v[:-len(unit)]) * f
    return float(v)
print(statistics.median(ms(l) for l in sys.stdin if l.strip()))'; }
echo "median: $(median "${rates[@]}") req/s, p99 $(median "${p99s[@]}") ms, server CPU $(median "${costs[@]}") µs/request;" \
  "server peak RSS $((rss_kb / 1024)) MB"
