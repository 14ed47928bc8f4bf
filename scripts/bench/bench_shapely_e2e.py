#!/usr/bin/env python3
"""The end-to-end peer of `roqua resolve --input F.csv --output out.csv`: a shapely 2 + pandas
pipeline on the same pieces Roqua indexes (the `pieces` table of its boundary DB).

Usage (with the venv from scripts/bench/bench-venv.sh):
  .build-bench/venv/bin/python scripts/bench/bench_shapely_e2e.py DB POINTS.csv OUT.csv

Steps, as a user would write them: read the pieces and build an STRtree; pandas.read_csv the
points; tree.query(points, predicate="within"); per point the deepest level (smaller code on
ties, the rule Roqua used before layer precision); the country / province / district codes and
names appended as columns, as Roqua writes them; DataFrame.to_csv. No nearest-boundary fallback.
Prints one JSON line with the time of each step; time the whole process from outside to
compare with the CLI (Python's start-up and imports count, as Roqua's open does).
"""
import json
import sqlite3
import sys
import time

started = time.perf_counter()
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import shapely  # noqa: E402

LEVELS = ("country", "province", "district")


def main(db, points_path, out_path):
    t = time.perf_counter()
    con = sqlite3.connect(db)
    units = con.execute("SELECT id, level, code, name, parent_id FROM boundaries").fetchall()
    pieces = con.execute("SELECT p.level, b.id, p.geometry FROM pieces p JOIN boundaries b ON b.id = p.boundary_id").fetchall()
    con.close()
    tree = shapely.STRtree(shapely.from_wkb([p[2] for p in pieces]))
    tree.query(shapely.box(0, 0, 0, 0))  # GEOS builds the tree lazily: do it now
    info = {u[0]: u for u in units}
    # Rank units by (deeper level first, then smaller code); a point's answer is its lowest rank.
    ranked = sorted(info, key=lambda i: (-info[i][1], info[i][2]))
    rank_of = {unit: r for r, unit in enumerate(ranked)}
    piece_rank = np.array([rank_of[p[1]] for p in pieces], dtype=np.int64)
    # Per rank: the chain of codes and names, country first.
    columns = {f"{level}_{kind}": [] for level in LEVELS for kind in ("code", "name")}
    for unit in ranked + [None]:
        chain = {}
        while unit is not None:
            chain[LEVELS[info[unit][1]]] = info[unit]
            unit = info[unit][4]
        for level in LEVELS:
            columns[f"{level}_code"].append(chain[level][2] if level in chain else "")
            columns[f"{level}_name"].append(chain[level][3] if level in chain else "")
    table = {name: np.array(values, dtype=object) for name, values in columns.items()}
    load = time.perf_counter() - t

    t = time.perf_counter()
    frame = pd.read_csv(points_path)
    read = time.perf_counter() - t

    t = time.perf_counter()
    points = shapely.points(frame["lon"].to_numpy(), frame["lat"].to_numpy())
    point_index, piece_index = tree.query(points, predicate="within")
    best = np.full(len(points), len(ranked), dtype=np.int64)
    np.minimum.at(best, point_index, piece_rank[piece_index])
    query = time.perf_counter() - t

    t = time.perf_counter()
    for name, values in table.items():
        frame[name] = values[best]
    frame["approximate"] = False
    frame.to_csv(out_path, index=False)
    write = time.perf_counter() - t
    print(json.dumps({"peer": "shapely-e2e", "points": len(points), "load_s": load, "read_csv_s": read, "query_s": query,
                      "to_csv_s": write, "in_process_s": time.perf_counter() - started,
                      "resolved": int((best < len(ranked)).sum())}), flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: bench_shapely_e2e.py DB POINTS.csv OUT.csv")
    main(*sys.argv[1:])
