#!/usr/bin/env bash
# PostGIS vs Roqua on the same seeded points (never part of the tests): exports the bundled
# boundaries with `roqua export-boundaries --format postgis`, loads them into a throwaway
# PostGIS (initdb/pg_ctl in a temporary directory, loopback only), and times
#   - PostGIS: one query, `SELECT count(r.country_code) FROM points, LATERAL roqua_resolve(lon, lat) r`,
#     with 1 and with 2 parallel workers;
#   - Roqua: `roqua resolve --input points.csv --fallback-meters 0` (exact answers, as
#     roqua_resolve gives them), end to end, with 1 and 2 workers;
# on the first N points of scripts/bench/bench_workloads.py's world and Türkiye-box workloads.
# Prints a Markdown table of medians (points/s) and the ratio Roqua/PostGIS.
#   scripts/bench/bench-postgis.sh [RUNS] [N]     (default 3 runs of 100000 points)
# ROQUA_BIN=PATH uses that (release) roqua instead of building one.
# Needs Debian's postgresql and postgresql-15-postgis-3; run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/common.sh
runs=${1:-3}
n=${2:-100000}
out=.build-bench
mkdir -p "$out/points"
bin_pg=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bin_pg/initdb" ] && ls /usr/share/postgresql/*/extension/postgis.control >/dev/null 2>&1 \
  || { echo "needs PostgreSQL with PostGIS: apt-get install postgresql postgresql-15-postgis-3" >&2; exit 1; }

if [ -n "${ROQUA_BIN:-}" ]; then
  roqua=$ROQUA_BIN
else
  roqua_build "$out/build.log" -c release --product roqua
  roqua=$(swift build -c release --show-bin-path)/roqua
fi
db=$out/boundaries.sqlite
[ -f "$db" ] || "$roqua" import --from data --out "$db" >&2
[ -f "$out/points/world-1m.csv" ] || python3 scripts/bench/bench_workloads.py "$out/points" >&2
"$roqua" export-boundaries --format postgis --output "$out/boundaries-postgis.sql" --boundaries "$db" >&2

pgdir=$(mktemp -d /tmp/roqua-bench-pg.XXXXXX)
run_pg() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ "$(id -u)" -eq 0 ] && chown postgres "$pgdir"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
run_pg "$bin_pg/initdb" -D "$pgdir/data" -U postgres --auth=trust -E UTF8 --no-sync >/dev/null
run_pg "$bin_pg/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w -o "-p $port -k $pgdir -c listen_addresses=127.0.0.1 -c fsync=off -c jit=off" start >/dev/null
trap 'run_pg "$bin_pg/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null; rm -rf "$pgdir"' EXIT
psql=("$bin_pg/psql" -X -q -A -t -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres)
"$bin_pg/createdb" -h 127.0.0.1 -p "$port" -U postgres roqua
load_start=$(date +%s.%N)
"${psql[@]}" -d roqua -f "$out/boundaries-postgis.sql" >/dev/null
load_end=$(date +%s.%N)

results=$out/postgis-results.jsonl
: >"$results"
echo "{\"bench\":\"load\",\"seconds\":$(awk "BEGIN { printf \"%.3f\", $load_end - $load_start }")}" >>"$results"
for w in world-1m turkiye-bbox-1m; do
  head -n $((n + 1)) "$out/points/$w.csv" >"$out/points/$w-$n.csv"
  "${psql[@]}" -d roqua -c "DROP TABLE IF EXISTS points" -c "CREATE TABLE points (lat double precision, lon double precision)" \
    -c "\\copy points FROM '$out/points/$w-$n.csv' WITH (FORMAT csv, HEADER true)" -c "ANALYZE points"
  for i in $(seq "$runs"); do
    for workers in 1 2; do
      # A parallel plan needs the planner to see the function as costly and the table as worth splitting.
      settings="SET max_parallel_workers_per_gather = $((workers - 1)); SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;"
      start=$(date +%s.%N)
      "${psql[@]}" -d roqua -c "$settings SELECT count(r.country_code) FROM points, LATERAL roqua_resolve(lon, lat) r" >/dev/null
      end=$(date +%s.%N)
      echo "{\"bench\":\"postgis\",\"workload\":\"$w\",\"workers\":$workers,\"seconds\":$(awk "BEGIN { printf \"%.3f\", $end - $start }")}" >>"$results"
      start=$(date +%s.%N)
      "$roqua" resolve --boundaries "$db" --input "$out/points/$w-$n.csv" --output /dev/null --fallback-meters 0 --workers "$workers" --no-locality --drop-bad-rows
      end=$(date +%s.%N)
      echo "{\"bench\":\"roqua\",\"workload\":\"$w\",\"workers\":$workers,\"seconds\":$(awk "BEGIN { printf \"%.3f\", $end - $start }")}" >>"$results"
    done
  done
done

python3 - "$results" "$n" <<'EOF'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
n = int(sys.argv[2])
load = statistics.median(r["seconds"] for r in rows if r["bench"] == "load")
print(f"Loading the export into PostGIS: {load:.1f} s (one transaction: COPY, GiST indexes, ANALYZE)\n")
print(f"| workload ({n:,} points) | workers | PostGIS roqua_resolve (points/s) | Roqua CLI, exact (points/s) | Roqua / PostGIS |")
print("|---|---|---|---|---|")
for w in ["world-1m", "turkiye-bbox-1m"]:
    for workers in [1, 2]:
        med = lambda bench: statistics.median(r["seconds"] for r in rows
                                              if r["bench"] == bench and r.get("workload") == w and r.get("workers") == workers)
        pg, roqua = med("postgis"), med("roqua")
        name = "world (uniform on the sphere)" if w.startswith("world") else "Türkiye box (36–42° N, 26–45° E)"
        print(f"| {name} | {workers} | {n / pg:,.0f} | {n / roqua:,.0f} | {pg / roqua:.0f}× |")
EOF
