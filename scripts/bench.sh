#!/usr/bin/env bash
# Benchmarks (never part of the tests): import of the bundled data, and the resolver against
# shapely 2 and SpatiaLite on the same polygons. Prints a Markdown table (pasted into README.md)
# and writes the raw figures to .build-bench/results.jsonl.
#   scripts/bench.sh [RUNS]     (default 3 runs per Roqua figure; medians are reported)
# Needs PyPI and Debian's archive the first time (the peers' venv, libsqlite3-mod-spatialite).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
runs=${1:-3}
out=.build-bench
mkdir -p "$out/points"
results=$out/results.jsonl
: >"$results"

roqua_install_system_packages
dpkg-query -W -f='${Status}' libsqlite3-mod-spatialite 2>/dev/null | grep -q "install ok installed" \
  || { apt-get update -qq && apt-get install -y -qq libsqlite3-mod-spatialite; }
command -v /usr/bin/time >/dev/null || apt-get install -y -qq time
scripts/bench-venv.sh >&2
py=$out/venv/bin/python

roqua_build "$out/build.log" -c release --product roqua
roqua_build "$out/build.log" -c release --product roqua-bench
bin=$(swift build -c release --show-bin-path)
db=$out/boundaries.sqlite

echo "import: $runs runs" >&2
for i in $(seq "$runs"); do
  /usr/bin/time -f '{"bench":"import-rss","max_rss_kb":%M}' -a -o "$results" \
    "$bin/roqua-bench" import data "$db" >>"$results"
done

[ -f "$out/points/world-1m.csv" ] || "$py" scripts/bench_points.py "$db" "$out/points" >&2
workloads=(world-1m turkiye-1m istanbul-track-100k)
for w in "${workloads[@]}"; do
  echo "resolve $w: $runs runs" >&2
  for i in $(seq "$runs"); do
    # The product (1 km nearest-boundary fallback on) and the peers' work (exact answers only).
    "$bin/roqua-bench" resolve "$db" "$out/points/$w.csv" "$w" --workers "$(nproc)" >>"$results"
    ROQUA_BENCH_FALLBACK=0 "$bin/roqua-bench" resolve "$db" "$out/points/$w.csv" "$w-exact" --workers "$(nproc)" >>"$results"
  done
  # What a user runs: the CLI streaming the file, all cores; its peak RSS is the resolver's.
  /usr/bin/time -f "{\"bench\":\"cli\",\"workload\":\"$w\",\"seconds\":%e,\"max_rss_kb\":%M}" -a -o "$results" \
    "$bin/roqua" resolve --boundaries "$db" --input "$out/points/$w.csv" --output /dev/null
done
echo "track import" >&2
[ -f "$out/points/walk-1m.csv" ] || python3 scripts/bench_tracks.py "$out/points"
for f in walk-1m.csv Records-1m.json; do
  for i in $(seq "$runs"); do
    rm -f "$out/regions.sqlite" "$out/regions.sqlite-wal" "$out/regions.sqlite-shm"
    /usr/bin/time -f "{\"bench\":\"track-import\",\"file\":\"$f\",\"bytes\":$(stat -c %s "$out/points/$f"),\"seconds\":%e,\"max_rss_kb\":%M}" \
      -a -o "$results" "$bin/roqua" track import "$out/points/$f" --store "$out/regions.sqlite" --boundaries "$db" >/dev/null
  done
done
echo "peers (shapely, SpatiaLite)" >&2
files=()
for w in "${workloads[@]}"; do files+=("$out/points/$w.csv"); done
"$py" scripts/bench_peers.py "$db" "${files[@]}" >>"$results"
"$py" scripts/bench_report.py "$results"
