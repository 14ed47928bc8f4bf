#!/usr/bin/env bash
# `roqua stats tiles|days` on a store holding a generated 10 M-fix history (scripts/bench/bench_travel.py).
#   scripts/bench/bench-travel.sh [FIXES]     (release build: swift build -c release --product roqua)
set -euo pipefail
cd "$(dirname "$0")/../.."
ROQUA=${ROQUA_BIN:-.build/release/roqua}
[ -x "$ROQUA" ] || { echo "no release build at $ROQUA: swift build -c release --product roqua" >&2; exit 1; }
work=$(mktemp -d /tmp/roqua-bench-travel.XXXXXX)
trap 'rm -rf "$work"' EXIT
echo "$(date -u +%F) $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)"
python3 scripts/bench/bench_travel.py "$(realpath "$ROQUA")" "$work" "$@"
