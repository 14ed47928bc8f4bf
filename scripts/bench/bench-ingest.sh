#!/usr/bin/env bash
# Live ingestion under load: positions posted to `roqua serve`'s Overland endpoint as
# fast as one or several phones can send them — batches of BATCH fixes of a generated day-long
# walk across İstanbul, each batch new — for SECONDS, while /reverse and the page are timed beside
# them; the same /reverse and page timings on the idle server first. Release build, 127.0.0.1,
# bounded in time. Prints fixes/s sustained and the latencies idle and under load.
#   scripts/bench/bench-ingest.sh [SECONDS] [BATCH] [SENDERS]     (default 20 s, 200 fixes, 2 senders)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
source scripts/common.sh
roqua_build .build-bench-ingest.log -c release --product roqua
roqua_build .build-bench-ingest.log -c release --product roqua-serve
serve_release_binaries
work=$(mktemp -d /tmp/roqua-ingest.XXXXXX)
trap 'serve_stop; rm -rf "$work"' EXIT
# One device per sender (each phone has its own token and its own rate limit).
tokens=""
for sender in $(seq 1 "${3:-2}"); do
  tokens+="$("$(dirname "$ROQUA")/roqua-serve" device add "phone-$sender" --store "$work/regions.sqlite" --json \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["token"])'),"
done
serve_start "$work" --log-level warning
echo "roqua serve (release) on 127.0.0.1:$SERVE_PORT, $(nproc) cores shared with the clients"
python3 scripts/bench/bench_ingest.py "$SERVE_PORT" "${tokens%,}" "${1:-20}" "${2:-200}" "${3:-2}"
