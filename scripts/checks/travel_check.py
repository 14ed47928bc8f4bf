"""Explorer tiles and days per place checked against an independent computation.

Usage: travel_check.py ROQUA WORKDIR [FIXES]. Generates a seeded history of FIXES ground fixes
(default 1,000,000): walks in lawn-mower rows and random walks in four cities (İstanbul, Ankara,
Berlin, Izmir), a day apart, a fix every 5 s at walking speed, so no fix is in flight and every
fix is on the ground. Imports it with `roqua track import` into a fresh store, then computes here,
with nothing but the standard library: the Web-Mercator tiles at zoom 14 and 17 (the slippy-map
formula), the cluster tiles (all four neighbours visited) and the largest edge-connected group of
them, the max square by growing a square from every tile (not roqua's dynamic programme), and the
days per country in Europe/Berlin and UTC from each fix's local date (zoneinfo). Compares with
`roqua stats tiles --json` and `roqua stats days --json`. Prints 'N passed, N failed'.
"""
import collections
import csv
import datetime
import json
import math
import random
import subprocess
import sys
import time
import zoneinfo

roqua, work = sys.argv[1], sys.argv[2]
total = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
results = []


def check(name, condition, detail=""):
    results.append(bool(condition))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f" — {detail}"), flush=True)


CITIES = [("TR", 41.02, 28.98), ("TR", 39.93, 32.85), ("DE", 52.52, 13.40), ("TR", 38.42, 27.14)]
rng = random.Random(31)
fixes = []  # (lat, lon, unix seconds, country)
clock = 1_704_067_200  # 2024-01-01T00:00:00Z
per_city = total // len(CITIES)
for country, lat0, lon0 in CITIES:
    clock += 86_400
    lat, lon = lat0, lon0
    mower = per_city // 2
    # Lawn-mower rows 250 m apart over a ~9 km square: a solid block of tiles.
    rows, step = 36, 0.00006
    per_row = max(1, mower // rows)
    for r in range(rows):
        lat = lat0 + r * 0.00225
        for i in range(per_row):
            lon = lon0 + (i if r % 2 == 0 else per_row - 1 - i) * step * 1.3
            fixes.append((lat, lon, clock, country))
            clock += 5
    # A random walk, as a day of errands.
    for _ in range(per_city - rows * per_row):
        heading = rng.uniform(0, 2 * math.pi)
        lat += math.cos(heading) * 0.00004
        lon += math.sin(heading) * 0.00005
        fixes.append((lat, lon, clock, country))
        clock += 5

path = f"{work}/history.csv"
with open(path, "w", newline="") as handle:
    writer = csv.writer(handle)
    writer.writerow(["lat", "lon", "time"])
    for lat, lon, t, _ in fixes:
        writer.writerow([f"{lat:.7f}", f"{lon:.7f}", t])
print(f"{len(fixes):,} fixes generated in {len(CITIES)} cities")
store = f"{work}/regions.sqlite"
started = time.time()
imported = subprocess.run([roqua, "track", "import", path, "--store", store, "--json"], capture_output=True, text=True)
summary = json.loads(imported.stdout or "{}")
print(f"imported in {time.time() - started:.1f} s")
file = (summary.get("files") or [{}])[0]
check("the history imports with no fix in flight, no glitch", imported.returncode == 0 and file.get("in_flight") == 0
      and file.get("glitches") == 0 and file.get("fixes_read") == len(fixes), (imported.returncode, imported.stderr[-300:], file))


def tile(lat, lon, zoom):
    n = 2 ** zoom
    lat = max(min(lat, 85.05112878), -85.05112878)
    r = math.radians(lat)
    return int((lon + 180) / 360 * n), int((1 - math.log(math.tan(r) + 1 / math.cos(r)) / math.pi) / 2 * n)


def figures(tiles):
    def neighbours(t):
        x, y = t
        return [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
    clustered = {t for t in tiles if all(n in tiles for n in neighbours(t))}
    seen, largest = set(), 0
    for start in clustered:
        if start in seen:
            continue
        seen.add(start)
        queue, size = collections.deque([start]), 0
        while queue:
            t = queue.popleft()
            size += 1
            for n in neighbours(t):
                if n in clustered and n not in seen:
                    seen.add(n)
                    queue.append(n)
        largest = max(largest, size)
    best = None
    for (x, y) in tiles:  # grow a square with (x, y) as its top-left corner
        size = 1
        while all((x + size, y + k) in tiles and (x + k, y + size) in tiles for k in range(size + 1)):
            size += 1
        if best is None or size > best[2] or (size == best[2] and (y, x) < (best[1], best[0])):
            best = (x, y, size)
    return largest, best


for zoom in (14, 17):
    tiles = {tile(lat, lon, zoom) for lat, lon, _, _ in fixes}
    cluster, square = figures(tiles)
    answer = subprocess.run([roqua, "stats", "tiles", "--zoom", str(zoom), "--json", "--store", store], capture_output=True, text=True)
    got = json.loads(answer.stdout or "{}")
    expected = {"zoom": zoom, "tiles": len(tiles), "max_cluster": cluster, "max_square": square[2],
                "square": {"x": square[0], "y": square[1], "size": square[2]}}
    check(f"zoom {zoom}: {len(tiles):,} tiles, max cluster {cluster}, max square {square[2]} at {square[0]},{square[1]}",
          got == expected, (got, expected))

for zone in ("Europe/Berlin", "UTC"):
    info = zoneinfo.ZoneInfo(zone)
    days = collections.defaultdict(set)
    for _, _, t, country in fixes:
        local = datetime.datetime.fromtimestamp(t, info).date()
        if local.year == 2024:
            days[country].add(local)
    answer = subprocess.run([roqua, "stats", "days", "--year", "2024", "--time-zone", zone, "--json", "--store", store],
                            capture_output=True, text=True)
    got = {unit["code"]: unit["days"] for unit in json.loads(answer.stdout or "{}").get("units", [])}
    expected = {code: len(dates) for code, dates in days.items()}
    check(f"days in 2024 ({zone}): {expected}", got == expected, (got, expected))

passed = sum(results)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
