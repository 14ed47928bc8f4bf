#!/usr/bin/env bash
# What hostile clients cost the user of `roqua serve`, measured against a release build on
# 127.0.0.1: a 2 MB gzip expanding to 2 GiB (wall time to its 413, /reverse latency meanwhile), an
# upload trickling one byte every 10 s (when the server cuts it; a normal import beside it), and
# SIGTERM during a 1-million-fix import (time to exit; nothing of it kept). Bounded: about 2 minutes.
#   scripts/bench/bench-serve-abuse.sh      (needs: swift build -c release --product roqua && … --product roqua-serve)
#   TRICKLE_INTERVAL=10 TRICKLE_SECONDS=60 SIGTERM_ROWS=1000000 set the workloads.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
serve_release_binaries
work=$(mktemp -d /tmp/roqua-abuse.XXXXXX)
trap 'serve_stop; rm -rf "$work"' EXIT
serve_start "$work" --log-level warning
echo "roqua serve (release) on 127.0.0.1:$SERVE_PORT, $(nproc) cores shared with the clients"
python3 scripts/bench/bench_serve_abuse.py "$SERVE_PORT" "$SERVE_PID" "$work/regions.sqlite" "$work"
