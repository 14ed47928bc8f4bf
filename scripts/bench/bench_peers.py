#!/usr/bin/env python3
"""Peers for the resolver benchmark, on the same polygons Roqua uses (the `pieces` table).

Usage (run with the venv from scripts/bench/bench-venv.sh):
  .build-bench/venv/bin/python scripts/bench/bench_peers.py DB POINTS.csv [POINTS.csv ...]
      [--peers shapely,spatialite] [--spatialite-limit 20000] [--predicate within|covered_by]
      [--check DIR]

POINTS.csv is a lat,lon CSV with a header (see scripts/bench/bench_workloads.py); its file stem names the
workload. Each peer runs per workload in its own subprocess, so its peak RSS is its own, and
prints one JSON line: peer, workload, points, seconds, points_per_s, load_seconds, peak_rss_mb.

  shapely     shapely 2 STRtree over all pieces; `seconds` times only tree.query(points,
              predicate) plus picking the deepest level per point (smaller code on ties);
              `load_seconds` is reading + parsing the pieces + building the tree.
  spatialite  Debian's /usr/bin/python3 with mod_spatialite (apt: libsqlite3-mod-spatialite):
              one SQL query per point, R*Tree filter + ST_Covers, deepest level first; only the
              first --spatialite-limit points of each workload (it is slow).

Neither peer applies the nearest-unit fallback. --check DIR compares each peer's deepest unit code
with Roqua's answers in DIR/<workload>.csv (from `roqua resolve --input POINTS.csv`): an exact
Roqua answer must match; an approximate one must be no unit, or its country (nearest province).
"""
import argparse
import json
import os
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time

SPATIALITE_PYTHON = "/usr/bin/python3"
SPATIALITE_SQL = """
SELECT b.code FROM piece_index r
JOIN pieces p ON p.id = r.id
JOIN boundaries b ON b.id = p.boundary_id
WHERE r.min_x <= :x AND r.max_x >= :x AND r.min_y <= :y AND r.max_y >= :y
  AND ST_Covers(GeomFromWKB(p.geometry, 4326), MakePoint(:x, :y, 4326))
ORDER BY p.level DESC, b.code ASC
LIMIT 1
"""


def read_points(path, limit=None):
    """(lats, lons) as lists of floats from a lat,lon CSV with a header."""
    lats, lons = [], []
    with open(path) as f:
        next(f)
        for line in f:
            if limit is not None and len(lats) >= limit:
                break
            lat, lon = line.split(",")[:2]
            lats.append(float(lat))
            lons.append(float(lon))
    return lats, lons


def peak_rss_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def write_codes(path, codes):
    if path:
        with open(path, "w") as f:
            f.writelines(f"{c}\n" for c in codes)


def run_shapely(db, points_path, predicate, codes_out):
    import numpy as np
    import shapely

    lats, lons = read_points(points_path)
    lats, lons = np.array(lats), np.array(lons)
    t = time.perf_counter()
    con = sqlite3.connect(db)
    rows = con.execute("SELECT p.level, b.code, p.geometry FROM pieces p "
                       "JOIN boundaries b ON b.id = p.boundary_id ORDER BY p.id").fetchall()
    con.close()
    pieces = shapely.from_wkb([r[2] for r in rows])
    tree = shapely.STRtree(pieces)
    tree.query(shapely.box(0, 0, 0, 0))  # GEOS builds the tree lazily: do it here
    # Rank the units by (deeper level first, then smaller code): the lowest rank among a point's
    # covering pieces is its answer. ranked_codes[rank] is that rank's (level, code).
    ranked_codes = sorted({(r[0], r[1]) for r in rows}, key=lambda lc: (-lc[0], lc[1]))
    rank_of = {lc: i for i, lc in enumerate(ranked_codes)}
    piece_rank = np.array([rank_of[(r[0], r[1])] for r in rows], dtype=np.int64)
    load_seconds = time.perf_counter() - t
    del rows

    t = time.perf_counter()
    points = shapely.points(lons, lats)
    make_points_seconds = time.perf_counter() - t

    t = time.perf_counter()
    point_idx, piece_idx = tree.query(points, predicate=predicate)
    none = len(ranked_codes)
    best = np.full(len(points), none, dtype=np.int64)
    np.minimum.at(best, point_idx, piece_rank[piece_idx])
    seconds = time.perf_counter() - t

    write_codes(codes_out, ("" if r == none else ranked_codes[r][1] for r in best.tolist()))
    return dict(points=len(points), seconds=seconds, load_seconds=load_seconds,
                make_points_seconds=make_points_seconds, predicate=predicate,
                resolved=int((best < none).sum()))


def run_spatialite(db, points_path, limit, codes_out):
    lats, lons = read_points(points_path, limit)
    t = time.perf_counter()
    con = sqlite3.connect(db)
    con.enable_load_extension(True)
    con.load_extension("mod_spatialite")
    con.execute(SPATIALITE_SQL, {"x": 0.0, "y": 0.0}).fetchall()  # compile once
    load_seconds = time.perf_counter() - t
    t = time.perf_counter()
    codes = []
    for lat, lon in zip(lats, lons):
        row = con.execute(SPATIALITE_SQL, {"x": lon, "y": lat}).fetchone()
        codes.append(row[0] if row else "")
    seconds = time.perf_counter() - t
    version = con.execute("SELECT spatialite_version(), geos_version()").fetchone()
    write_codes(codes_out, codes)
    return dict(points=len(codes), seconds=seconds, load_seconds=load_seconds,
                spatialite=version[0], geos=version[1], resolved=sum(1 for c in codes if c))


def worker(args):
    """Runs one peer on one workload in this process and prints its JSON line."""
    if args.worker == "shapely":
        result = run_shapely(args.db, args.points[0], args.predicate, args.codes_out)
    else:
        result = run_spatialite(args.db, args.points[0], args.spatialite_limit, args.codes_out)
    result = dict(peer=args.worker, workload=os.path.splitext(os.path.basename(args.points[0]))[0], **result)
    result["points_per_s"] = result["points"] / result["seconds"] if result["seconds"] > 0 else None
    result["peak_rss_mb"] = round(peak_rss_mb(), 1)
    order = ["peer", "workload", "points", "seconds", "points_per_s", "load_seconds", "peak_rss_mb"]
    print(json.dumps({k: result[k] for k in order + sorted(set(result) - set(order))}), flush=True)


def check(roqua_csv, codes_path):
    """(compared, mismatches) of a peer's deepest codes against Roqua's CSV output."""
    import csv

    with open(codes_path) as f:
        codes = [line.rstrip("\n") for line in f]
    compared, bad = 0, []
    with open(roqua_csv, newline="") as f:
        for i, (row, code) in enumerate(zip(csv.DictReader(f), codes)):
            deepest = row["district_code"] or row["province_code"] or row["country_code"]
            ok = code == deepest if row["approximate"] == "false" else code in ("", row["country_code"])
            compared += 1
            if not ok:
                bad.append((i + 2, row["lat"], row["lon"], code, deepest, row["approximate"]))
    return compared, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("db")
    ap.add_argument("points", nargs="+")
    ap.add_argument("--peers", default="shapely,spatialite")
    ap.add_argument("--spatialite-limit", type=int, default=20_000)
    ap.add_argument("--predicate", default="within", choices=["within", "covered_by"])
    ap.add_argument("--check", metavar="DIR", help="Roqua outputs as DIR/<workload>.csv")
    ap.add_argument("--worker", choices=["shapely", "spatialite"], help=argparse.SUPPRESS)
    ap.add_argument("--codes-out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)

    me = os.path.abspath(__file__)
    failed = False
    with tempfile.TemporaryDirectory() as tmp:
        for points in args.points:
            workload = os.path.splitext(os.path.basename(points))[0]
            for peer in args.peers.split(","):
                python = sys.executable if peer == "shapely" else SPATIALITE_PYTHON
                codes = os.path.join(tmp, f"{peer}-{workload}.txt")
                cmd = [python, me, args.db, points, "--worker", peer, "--codes-out", codes,
                       "--spatialite-limit", str(args.spatialite_limit), "--predicate", args.predicate]
                if subprocess.run(cmd).returncode != 0:
                    print(f"{peer} failed on {workload}", file=sys.stderr)
                    failed = True
                    continue
                roqua = os.path.join(args.check, workload + ".csv") if args.check else None
                if roqua and os.path.exists(roqua):
                    compared, bad = check(roqua, codes)
                    print(f"check {peer} {workload}: {compared - len(bad)}/{compared} agree with Roqua",
                          file=sys.stderr)
                    for line, lat, lon, code, deepest, approx in bad[:20]:
                        print(f"  line {line} lat={lat} lon={lon}: {peer}={code or '-'} roqua={deepest or '-'}"
                              f" approximate={approx}", file=sys.stderr)
                    failed |= bool(bad)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
