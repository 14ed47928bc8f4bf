#!/usr/bin/env bash
# Benchmarks (never part of the tests): import of the bundled data, the resolver as a library
# and end to end (`roqua resolve --input`) against a shapely 2 + pandas pipeline and SpatiaLite
# on the same polygons, on the seeded workloads of scripts/bench/bench_workloads.py; two workers
# against the machine's own ceiling; track import at 5 M fixes per format and of a ten-year history;
# reading a store of 10 k, 100 k and 1 M regions (bench_big_store.py).
# Prints Markdown tables (pasted into docs/benchmarks.md); raw figures in .build-bench/results.jsonl.
#   scripts/bench/bench.sh [RUNS]     (default 3 rounds; medians are reported)
# Run it on a quiet machine: `uptime` load well under the core count.
# Needs PyPI and Debian's archive the first time (the peers' venv, libsqlite3-mod-spatialite).
set -euo pipefail
cd "$(dirname "$0")/../.."
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
scripts/bench/bench-venv.sh >&2
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

[ -f "$out/points/world-1m.csv" ] || python3 scripts/bench/bench_workloads.py "$out/points" >&2
workloads=(world-1m turkiye-bbox-1m istanbul-walk-200k)
for w in "${workloads[@]}"; do
  echo "resolve $w: $runs runs" >&2
  for i in $(seq "$runs"); do
    # Library, one thread per core figure: the product (1 km fallback on) and exact answers only.
    "$bin/roqua-bench" resolve "$db" "$out/points/$w.csv" "$w" --workers 2 >>"$results"
    "$bin/roqua-bench" resolve "$db" "$out/points/$w.csv" "$w" --workers 2 --fallback 0 >>"$results"
    # The library's ceiling on this machine: one warm resolver thread alone, then two processes
    # at once (sharing nothing but the hardware), each timing its own passes.
    "$bin/roqua-bench" pass "$db" "$out/points/$w.csv" "$w" | sed 's/"bench":"pass"/"bench":"pass-alone"/' >>"$results"
    { "$bin/roqua-bench" pass "$db" "$out/points/$w.csv" "$w" & "$bin/roqua-bench" pass "$db" "$out/points/$w.csv" "$w"; wait; } \
      | sed 's/"bench":"pass"/"bench":"pass-pair"/' >>"$results"
    # End to end as a user runs it, then the shapely + pandas pipeline, in the same round.
    for workers in 2 1; do
      /usr/bin/time -f "{\"bench\":\"cli\",\"workload\":\"$w\",\"workers\":$workers,\"seconds\":%e,\"user_s\":%U,\"sys_s\":%S,\"max_rss_kb\":%M}" \
        -a -o "$results" "$bin/roqua" resolve --boundaries "$db" --input "$out/points/$w.csv" --output "$out/roqua-$w.csv" --workers "$workers" --no-locality --drop-bad-rows
    done
    # What this machine's two cores give at best: two independent 1-worker runs at once, sharing
    # nothing but the hardware (caches, memory, any core siblings of the host). 2 × one ÷ this
    # is the ceiling for `--workers 2` ÷ `--workers 1`.
    one="$bin/roqua resolve --boundaries $db --input $out/points/$w.csv --workers 1 --no-locality --drop-bad-rows --output"
    /usr/bin/time -f "{\"bench\":\"cli-pair\",\"workload\":\"$w\",\"seconds\":%e}" -a -o "$results" \
      bash -c "$one $out/pair-a-$w.csv & a=\$!; $one $out/pair-b-$w.csv & b=\$!; wait \$a && wait \$b"
    /usr/bin/time -f "{\"bench\":\"shapely-e2e-time\",\"workload\":\"$w\",\"seconds\":%e,\"max_rss_kb\":%M}" -a -o "$results" \
      "$py" scripts/bench/bench_shapely_e2e.py "$db" "$out/points/$w.csv" "$out/shapely-$w.csv" >>"$results"
  done
done
echo "peers (shapely query only, SpatiaLite)" >&2
files=()
for w in "${workloads[@]}"; do files+=("$out/points/$w.csv"); done
"$py" scripts/bench/bench_peers.py "$db" "${files[@]}" >>"$results"
"$py" scripts/bench/bench_report.py "$results"
# Two workers against the machine's own ceiling measured in the same rounds: at least
# seven interleaved rounds per workload.
echo "two workers: $((runs > 7 ? runs : 7)) rounds" >&2
echo
python3 scripts/bench/bench_workers.py "$bin/roqua" "$db" "$out/workers" "$((runs > 7 ? runs : 7))" \
  "$out/points/world-1m.csv" "$out/points/turkiye-bbox-1m.csv" "$out/points/istanbul-walk-200k.csv"
# Track import at 5 M fixes in every format, and a generated ten-year history.
echo "track import: 5 M fixes per format, $runs runs" >&2
echo
(cd scripts/bench && python3 bench_track_formats.py "$bin/roqua" "../../$out/tracks-5m" 5000000 "$runs")
[ -f "$out/history-10y.json" ] || python3 scripts/bench/bench_history.py "$out/history-10y.json"
echo
(cd scripts/bench && python3 bench_history_import.py "$bin/roqua" "../../$out/history-10y.json" "../../$out" "$runs")
# The same kind of history, two years of it, as the files other apps export (a workload the
# readers were not tuned on).
[ -f "$out/history-2y.json" ] || python3 scripts/bench/bench_history.py "$out/history-2y.json" 2
echo
(cd scripts/bench && python3 bench_history_formats.py "$bin/roqua" "$bin/roqua" "../../$out/history-2y.json" "../../$out/history-formats" "$runs")
# A big store: stats, days, tiles, the world map with fog and the web app's first load
# at 10 k, 100 k and 1 M regions (stores kept in $out/big-store for the next run).
roqua_build "$out/build.log" -c release --product roqua-serve
echo "big store: 10 k, 100 k, 1 M regions, 7 runs" >&2
echo
python3 scripts/bench/bench_big_store.py "$bin/roqua" "$out/big-store"
