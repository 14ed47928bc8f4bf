#!/usr/bin/env bash
# Peak memory (max RSS) of `roqua resolve --input` on the seeded workloads as CSV, NDJSON and a
# GeoJSON FeatureCollection (the walk converted by scripts/bench/bench_to_formats.py), with 1 and 2
# workers: the figure behind the "constant memory" claim in docs/benchmarks.md. Needs the release build and
# the boundary DB of scripts/bench/bench.sh (run that first, or give DB).
#   scripts/bench/bench-memory.sh [DB]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.build-bench
db=${1:-$out/boundaries.sqlite}
bin=$(swift build -c release --show-bin-path)/roqua
[ -x "$bin" ] && [ -f "$db" ] || { echo "build first: scripts/bench/bench.sh (release roqua and $db)" >&2; exit 1; }
[ -f "$out/points/world-1m.csv" ] || python3 scripts/bench/bench_workloads.py "$out/points" >&2
[ -f "$out/points/istanbul-walk-200k.geojson" ] || python3 scripts/bench/bench_to_formats.py "$out/points/istanbul-walk-200k.csv" >&2
printf '| input | size | workers | seconds | max RSS |\n|---|---:|---:|---:|---:|\n'
for f in world-1m.csv istanbul-walk-200k.ndjson istanbul-walk-200k.geojson; do
  size=$(du -m "$out/points/$f" | cut -f1)
  for workers in 1 2; do
    /usr/bin/time -f '%e %M' -o "$out/memory.time" "$bin" resolve --boundaries "$db" --input "$out/points/$f" \
      --output /dev/null --workers "$workers" --no-locality --drop-bad-rows 2>/dev/null
    read -r seconds rss <"$out/memory.time"
    printf '| %s | %s MB | %s | %s | %s MB |\n' "$f" "$size" "$workers" "$seconds" "$((rss / 1024))"
  done
done
