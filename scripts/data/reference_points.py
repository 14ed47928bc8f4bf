#!/usr/bin/env python3
"""Reference answers for Roqua's agreement test, computed independently with shapely 2.

Usage: python scripts/data/reference_points.py DB OUT.csv   (e.g. Tests/Fixtures/reference-10k.csv)
with a python that has shapely 2 + numpy, e.g. .build-bench/venv/bin/python (scripts/bench/bench-venv.sh).

Draws 10,000 seeded random points (4,000 world, 3,000 Türkiye bbox, 3,000 İstanbul bbox) and
answers each one from the FULL boundary geometries (`boundaries.geometry`, not the pieces), with
the resolver's rules:
 (1) one answer per place: among the units covering the point (boundary included), the one
     from the most precise layer (`sources.precision`, from data/manifest.json; then the deeper
     level, then the smaller code) decides the country; the answer is the deepest unit of that
     country covering the point (ties to the smaller code) with its parent chain;
 (2) so two covering units of one layer and level: the smaller code wins;
 (3) an answer unit whose country has deeper levels (a country without a province, a
     province without a district): the nearest unit of those deeper levels (deepest first) of
     that same country within 1000 m (approximate);
 (4) nothing covers: the nearest district, else province, else country within 1000 m
     (haversine, R = 6371008.8, to the nearest point found in degree space; ties to the smaller
     code; approximate); beyond that nothing;
 (5) longitude exactly ±180 covered by nothing: try the other sign.
Points whose answer hangs on float noise (a distance within 1e-6 m of 1000 m, or two different
units within 1e-6 m of each other at different nearest points) are skipped and reported.
Output: CSV lat,lon,country,province,district,approximate; coordinates written with repr().
"""
import csv
import math
import sqlite3
import sys

import numpy as np
import shapely

SEED = 20251121
FALLBACK_M = 1000.0
EARTH_RADIUS_M = 6371008.8
NOISE_M = 1e-6
LEVELS = (2, 1, 0)  # district, province, country: deepest first
WORKLOADS = [  # (count, min lon, max lon, min lat, max lat)
    (4000, -180.0, 180.0, -90.0, 90.0),
    (3000, 25.6, 44.9, 35.8, 42.2),   # Türkiye bbox
    (3000, 27.9, 29.95, 40.8, 41.6),  # İstanbul bbox
]


def haversine_m(lat1, lon1, lat2, lon2):
    """Same formula and operation order as Geodesy.haversineMeters (libm via math)."""
    p1, p2 = lat1 * math.pi / 180, lat2 * math.pi / 180
    dp, dl = p2 - p1, (lon2 - lon1) * math.pi / 180
    h = math.sin(dp / 2) * math.sin(dp / 2) + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) * math.sin(dl / 2)
    return 2 * EARTH_RADIUS_M * math.asin(min(1.0, math.sqrt(h)))


class Boundaries:
    def __init__(self, db):
        con = sqlite3.connect(db)
        rows = con.execute("SELECT b.id, b.level, b.code, b.parent_id, b.country_code, b.geometry, s.precision "
                           "FROM boundaries b JOIN sources s ON s.id = b.source_id ORDER BY b.id").fetchall()
        con.close()
        self.precision = [r[6] for r in rows]
        self.code = [r[2] for r in rows]
        self.level = [r[1] for r in rows]
        self.country = [r[4] for r in rows]
        row_of = {r[0]: i for i, r in enumerate(rows)}
        self.parent = [row_of.get(r[3], -1) if r[3] is not None else -1 for r in rows]
        self.geoms = shapely.from_wkb([r[5] for r in rows])
        shapely.prepare(self.geoms)
        self.members = {lv: np.array([i for i, l in enumerate(self.level) if l == lv]) for lv in LEVELS}
        self.trees = {lv: shapely.STRtree(self.geoms[m]) for lv, m in self.members.items()}
        self.country_levels = {}
        for c, lv in zip(self.country, self.level):
            self.country_levels.setdefault(c, set()).add(lv)

    def chain(self, unit):
        """(country, province, district) codes of a unit and its ancestors."""
        out = ["", "", ""]
        while unit >= 0:
            out[self.level[unit]] = self.code[unit]
            unit = self.parent[unit]
        return out

    def covering(self, points):
        """For each point: the answer unit among the units covering it (rule 1), or -1."""
        found = [[] for _ in range(len(points))]
        for lv in LEVELS:
            pt, cand = self.trees[lv].query(points)  # bbox candidates
            units = self.members[lv][cand]
            hit = shapely.covers(self.geoms[units], points[pt])
            for p, u in zip(pt[hit], units[hit]):
                found[p].append(int(u))
        best = np.full(len(points), -1)
        for p, units in enumerate(found):
            if not units:
                continue
            decider = min(units, key=lambda u: (-self.precision[u], -self.level[u], self.code[u]))
            same = [u for u in units if self.country[u] == self.country[decider]]
            best[p] = min(same, key=lambda u: (-self.level[u], self.code[u]))
        return best

    def nearest(self, x, y, levels, country=None):
        """(unit, metres, noisy) of the nearest unit within the fallback, trying levels in order."""
        d_lat = math.degrees(FALLBACK_M / EARTH_RADIUS_M) * 1.01  # haversine >= R * |dlat|
        cos_edge = math.cos(math.radians(min(90.0, abs(y) + d_lat)))
        d_lon = 360.0 if cos_edge < 1e-9 else min(360.0, d_lat / cos_edge * 1.01)
        boxes = [shapely.box(x - d_lon, y - d_lat, x + d_lon, y + d_lat)]
        if abs(x) + d_lon > 180:  # near the antimeridian also look on the other side
            boxes.append(shapely.box(x - d_lon - math.copysign(360, x), y - d_lat, x + d_lon - math.copysign(360, x), y + d_lat))
        point = shapely.Point(x, y)
        noisy = False
        for lv in levels:
            cands = sorted({int(self.members[lv][i]) for b in boxes for i in self.trees[lv].query(b)})
            found = []
            for u in cands:
                if country is not None and self.country[u] != country:
                    continue
                nx, ny = shapely.get_coordinates(shapely.shortest_line(self.geoms[u], point))[0]
                m = haversine_m(y, x, ny, nx)
                noisy |= abs(m - FALLBACK_M) <= NOISE_M
                if m <= FALLBACK_M:
                    found.append((m, self.code[u], u, (nx, ny)))
            if found:
                found.sort()
                if len(found) > 1 and found[1][0] - found[0][0] <= NOISE_M and found[1][3] != found[0][3]:
                    noisy = True
                return found[0][2], found[0][0], noisy
        return -1, None, noisy


def make_points():
    rng = np.random.default_rng(SEED)
    xs, ys = [], []
    for n, x0, x1, y0, y1 in WORKLOADS:
        xs.append(rng.uniform(x0, x1, n))
        ys.append(rng.uniform(y0, y1, n))
    return np.concatenate(xs), np.concatenate(ys)


def answer_all(b, xs, ys):
    """Rows (lat, lon, country, province, district, approximate) plus stats; noisy points skipped."""
    pts = shapely.points(xs, ys)
    unit = b.covering(pts)
    flip = np.flatnonzero((unit < 0) & (np.abs(xs) == 180.0))  # rule (5)
    if len(flip):
        unit[flip] = b.covering(shapely.points(-xs[flip], ys[flip]))
    rows, stats = [], {"exact": 0, "rule3": 0, "fallback": 0, "none": 0, "skipped": []}
    for i, (x, y) in enumerate(zip(xs.tolist(), ys.tolist())):
        approx, noisy = False, False
        if unit[i] >= 0:
            codes = b.chain(int(unit[i]))
            stats["exact"] += 1
            found_level = b.level[int(unit[i])]
            deeper = [lv for lv in LEVELS if lv > found_level and lv in b.country_levels[b.country[int(unit[i])]]]
            if deeper:  # rule (3)
                near, _, noisy = b.nearest(x, y, deeper, country=b.country[int(unit[i])])
                if near >= 0:
                    codes, approx = b.chain(near), True
                    stats["rule3"] += 1
        else:  # rule (4)
            near, _, noisy = b.nearest(x, y, LEVELS)
            codes, approx = (b.chain(near), True) if near >= 0 else (["", "", ""], False)
            stats["fallback" if near >= 0 else "none"] += 1
        if noisy:
            stats["skipped"].append((y, x))
            continue
        rows.append((repr(y), repr(x), *codes, "true" if approx else "false"))
    return rows, stats


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: reference_points.py DB OUT.csv")
    db, out = sys.argv[1:]
    b = Boundaries(db)
    xs, ys = make_points()
    rows, stats = answer_all(b, xs, ys)
    with open(out, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["lat", "lon", "country", "province", "district", "approximate"])
        w.writerows(rows)
    print(f"wrote {len(rows)} rows to {out}: {stats['exact']} covered (of which {stats['rule3']} took a deeper "
          f"nearest unit), {stats['fallback']} nearest-unit fallbacks, {stats['none']} unresolved; "
          f"skipped {len(stats['skipped'])} float-noise-sensitive points", file=sys.stderr)
    for y, x in stats["skipped"]:
        print(f"  skipped lat={y!r} lon={x!r}", file=sys.stderr)


if __name__ == "__main__":
    main()
