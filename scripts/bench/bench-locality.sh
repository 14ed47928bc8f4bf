#!/usr/bin/env bash
# What naming each answer's locality costs a batch, and whether a build names the same ones as
# another: the three seeded workloads of bench_workloads.py, `roqua resolve --input` with and
# without --locality, interleaved, medians of RUNS; user CPU beside wall time (this 2-core host's
# wall times swing ~20 %). The locality's share is (with - without) / with: the target is
# <= 25 % (issue 55). Every output must equal what the same build answers from the places' rows
# (a copy of the DB without its `locality_packs`, as a DB built before them) byte for byte; with
# BASELINE, every output of NEW must also equal BASELINE's.
#
# Usage: scripts/bench/bench-locality.sh NEW_ROQUA BOUNDARIES_DB WORKDIR [RUNS] [BASELINE_ROQUA]
set -euo pipefail
new=$1 db=$2 work=$3 runs=${4:-5} base=${5:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
[[ -f $work/world-1m.csv ]] || python3 "$here/bench_workloads.py" "$work" >/dev/null
rows_db=$work/boundaries-without-packs.sqlite
cp "$db" "$rows_db"
python3 -c 'import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); db.execute("DROP TABLE IF EXISTS locality_packs"); db.commit()' "$rows_db"
median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
for name in world-1m turkiye-bbox-1m istanbul-walk-200k; do
    for mode in --no-locality --locality; do
        : >"$work/wall$mode" && : >"$work/cpu$mode"
    done
    for ((i = 0; i < runs; i++)); do
        for mode in --no-locality --locality; do
            /usr/bin/time -f "%e %U %S" -o "$work/time" "$new" resolve --boundaries "$db" --input "$work/$name.csv" \
                --output "$work/out$mode.csv" --drop-bad-rows "$mode"
            read -r wall user sys <"$work/time"
            echo "$wall" >>"$work/wall$mode"
            echo "$user $sys" | awk '{print $1 + $2}' >>"$work/cpu$mode"
        done
    done
    plain=$(median <"$work/wall--no-locality") named=$(median <"$work/wall--locality")
    plain_cpu=$(median <"$work/cpu--no-locality") named_cpu=$(median <"$work/cpu--locality")
    awk -v n="$name" -v p="$plain" -v l="$named" -v pc="$plain_cpu" -v lc="$named_cpu" 'BEGIN {
        printf "%-20s wall %.2f s -> %.2f s (locality +%.0f %%, %.0f %% of the batch)   cpu %.2f s -> %.2f s (+%.0f %%)\n",
            n, p, l, (l / p - 1) * 100, (1 - p / l) * 100, pc, lc, (lc / pc - 1) * 100 }'
    "$new" resolve --boundaries "$rows_db" --input "$work/$name.csv" --output "$work/rows.csv" --drop-bad-rows --locality
    if cmp -s "$work/rows.csv" "$work/out--locality.csv"; then
        echo "  same answers from the packs as from the rows: $(($(wc -l <"$work/rows.csv") - 1)) rows, localities included"
    else
        echo "  ANSWERS DIFFER between the packs and the rows" && exit 1
    fi
    if [[ -n $base ]]; then
        "$base" resolve --boundaries "$db" --input "$work/$name.csv" --output "$work/base.csv" --drop-bad-rows --locality
        if cmp -s "$work/base.csv" "$work/out--locality.csv"; then
            echo "  same answers as the baseline: $(($(wc -l <"$work/base.csv") - 1)) rows, localities included"
        else
            echo "  ANSWERS DIFFER from the baseline" && exit 1
        fi
    fi
done
rm -f "$rows_db"
