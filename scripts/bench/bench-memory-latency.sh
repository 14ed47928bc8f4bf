#!/usr/bin/env bash
# The machine's ceiling for the resolver on points spread over the world: the latency of a
# dependent random read in buffers of 1 MB (cache) to 200 MB, beside `roqua-bench pass` on the
# world and the walk (exact answers, one thread, warm). A land point of the world set costs a
# few dependent reads into the 56 MB of cell tiles; the walk stays in a few tiles.
#
# Usage: scripts/bench/bench-memory-latency.sh DB WORKDIR   (after scripts/bench/bench.sh made the
# workloads in WORKDIR and built roqua-bench: swift build -c release --product roqua-bench)
set -euo pipefail
db=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
bin=${ROQUA_BENCH:-$here/../../.build/release/roqua-bench}
"$(command -v cc || command -v clang)" -O2 -o "$work/memory-latency" "$here/memory_latency.c"
for mb in 1 8 56 200; do "$work/memory-latency" "$mb"; done
for w in world-1m istanbul-walk-200k; do "$bin" pass "$db" "$work/$w.csv" "$w" --fallback 0 --rounds 5; done
