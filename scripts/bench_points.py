#!/usr/bin/env python3
"""Seeded benchmark workloads for the resolver: lat,lon CSVs (with a header) in a directory.

Usage: python scripts/bench_points.py DB OUT_DIR

  world-1m.csv             1,000,000 points uniform in lon [-180,180] x lat [-90,90]
  turkiye-1m.csv           1,000,000 points uniform inside Türkiye (the union of the TR provinces)
  istanbul-track-100k.csv  a 100,000-point GPS-like track through İstanbul (TR-34): 8-15 m steps,
                           smoothly turning, with stops; it turns back when it would leave TR-34

Coordinates are written with 7 decimals (about 1 cm); inside-tests are made on those rounded
values, so every written Türkiye / track point is inside its polygon. Needs shapely 2 and numpy,
e.g. .build-bench/venv/bin/python (scripts/bench-venv.sh).
"""
import math
import os
import sqlite3
import sys
import time

import numpy as np
import shapely

SEED = 20251122
TR_BBOX = (25.6, 35.8, 44.9, 42.2)  # min lon, min lat, max lon, max lat
M_PER_DEG = 6371008.8 * math.pi / 180
TRACK_START = (28.9784, 41.0082)  # Sultanahmet, İstanbul


def load(db, sql, *args):
    con = sqlite3.connect(db)
    rows = con.execute(sql, args).fetchall()
    con.close()
    return rows


def write_csv(path, lats, lons):
    with open(path, "w") as f:
        f.write("lat,lon\n")
        f.writelines(f"{y:.7f},{x:.7f}\n" for y, x in zip(lats.tolist(), lons.tolist()))


def world(rng, n):
    lons = np.round(rng.uniform(-180.0, 180.0, n), 7)
    lats = np.round(rng.uniform(-90.0, 90.0, n), 7)
    return lats, lons


def turkiye(rng, n, db):
    """Rejection sampling in the bbox against the prepared union of the TR provinces."""
    rows = load(db, "SELECT geometry FROM boundaries WHERE level = 1 AND country_code = 'TR'")
    land = shapely.union_all(shapely.from_wkb([r[0] for r in rows]))
    shapely.prepare(land)
    x0, y0, x1, y1 = TR_BBOX
    lats, lons, have = [], [], 0
    while have < n:
        xs = np.round(rng.uniform(x0, x1, 500_000), 7)
        ys = np.round(rng.uniform(y0, y1, 500_000), 7)
        keep = shapely.covers(land, shapely.points(xs, ys))
        lons.append(xs[keep])
        lats.append(ys[keep])
        have += int(keep.sum())
    return np.concatenate(lats)[:n], np.concatenate(lons)[:n]


def track(rng, n, db):
    """A random walk: heading drifts with a mean-reverting turn rate, speed drifts in 8-15 m per
    step, and now and then the walker stops for a while (GPS jitter of ~2 m around the stop)."""
    (wkb,) = load(db, "SELECT geometry FROM boundaries WHERE code = 'TR-34'")[0]
    area = shapely.from_wkb(wkb)
    shapely.prepare(area)
    inside = lambda x, y: bool(shapely.intersects_xy(area, x, y))  # = covers, for a point
    x, y = TRACK_START
    assert inside(x, y), "track start is not in TR-34"
    heading, turn, speed, stop_left = rng.uniform(0, 2 * math.pi), 0.0, 11.0, 0
    lons, lats = np.empty(n), np.empty(n)
    for i in range(n):
        lons[i], lats[i] = x, y
        if stop_left > 0:  # standing still: jitter around the stop, never outside
            stop_left -= 1
            jx = round(x + rng.normal(0, 2) / (M_PER_DEG * math.cos(math.radians(y))), 7)
            jy = round(y + rng.normal(0, 2) / M_PER_DEG, 7)
            if inside(jx, jy):
                lons[i], lats[i] = jx, jy
            continue
        if rng.random() < 0.002:
            stop_left = int(rng.integers(10, 120))
        turn = 0.9 * turn + rng.normal(0, 0.02)  # radians per step, smooth
        heading += turn
        speed = min(15.0, max(8.0, speed + rng.normal(0, 0.4)))
        for attempt in range(16):
            nx = round(x + speed * math.sin(heading) / (M_PER_DEG * math.cos(math.radians(y))), 7)
            ny = round(y + speed * math.cos(heading) / M_PER_DEG, 7)
            if inside(nx, ny):
                x, y = nx, ny
                break
            heading += math.pi + rng.uniform(-0.8, 0.8)  # bounce back from the border
            turn = 0.0
    return lats, lons


def districts_visited(db, lats, lons):
    rows = load(db, "SELECT d.code, d.geometry FROM boundaries d JOIN boundaries p ON d.parent_id = p.id "
                    "WHERE d.level = 2 AND p.code = 'TR-34'")
    tree = shapely.STRtree(shapely.from_wkb([r[1] for r in rows]))
    _, hit = tree.query(shapely.points(lons, lats), predicate="covered_by")
    return len(set(hit.tolist())), len(rows)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: bench_points.py DB OUT_DIR")
    db, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    started = time.perf_counter()
    for name, make in [("world-1m.csv", lambda: world(rng, 1_000_000)),
                       ("turkiye-1m.csv", lambda: turkiye(rng, 1_000_000, db)),
                       ("istanbul-track-100k.csv", lambda: track(rng, 100_000, db))]:
        t = time.perf_counter()
        lats, lons = make()
        write_csv(os.path.join(out, name), lats, lons)
        extra = ""
        if name.startswith("istanbul"):
            seen, total = districts_visited(db, lats, lons)
            steps = np.hypot(np.diff(lats) * M_PER_DEG, np.diff(lons) * M_PER_DEG * np.cos(np.radians(lats[1:])))
            extra = f"; crosses {seen} of {total} İstanbul districts, {steps.sum() / 1000:.0f} km long"
        print(f"{name}: {len(lats):,} points in {time.perf_counter() - t:.1f} s{extra}", file=sys.stderr)
    print(f"generated in {time.perf_counter() - started:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
