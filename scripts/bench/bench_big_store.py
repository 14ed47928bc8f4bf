#!/usr/bin/env python3
"""A big store, and what reading it costs.

For each size (regions: 10,000, 100,000 and 1,000,000 by default) a seeded history is generated as
CSV — about twenty fixes per region: walks at ~5.6 km/h, a fix every 5 s, eight hours a day, from
sixty cities on every continent, each ride keeping a heading that turns a little each step and
turning back at a box of ±2° around its city, a day off between cities — and imported into a fresh
store with one `roqua track import`. Not tuned to anything the readers do. Then, each 7 times
(median, min, max), against the targets:

  roqua track import, one more day     (no target): 2,000 fixes somewhere new into a copy of
                                       the store as its import left it, then
  roqua stats after it                 < 1 s: the first `stats` after that import
  roqua stats                          < 1 s (", 1st": the first run after the remembered
                                       explored figures were deleted)
  roqua stats days --year Y            < 1 s
  roqua stats tiles --zoom 14          < 1 s
  roqua map --unit world --fog  (PNG)  < 3 s
  the web app's first paint            < 1 s: the page, the unit shapes and the fog, asked for
                                       in the page's order, timed until the fog arrived; "all
                                       panels" until every other /api/ route app.js asks for on
                                       start (asked at once, as the page does) answered; ", 1st" the first round after
                                       the store changed (figures not yet remembered); and no
                                       response over a few MB

Stores are kept in WORKDIR/SIZE/ (with the history that made them, stamped) and reused by the next
run for the same size and binary-independent generator; pass --fresh to build them again.

Usage: bench_big_store.py ROQUA WORKDIR [SIZES…] [--fresh] [--runs N]
"""
import math
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

args = [a for a in sys.argv[1:] if not a.startswith("--")]
flags = [a for a in sys.argv[1:] if a.startswith("--")]
roqua, work = os.path.realpath(args[0]), args[1]
# The first-paint rounds start `roqua-serve` from beside `roqua`: said now, not after an import.
if not os.access(os.path.join(os.path.dirname(roqua), "roqua-serve"), os.X_OK):
    raise SystemExit(f"{os.path.dirname(roqua)} has no roqua-serve: build it too "
                     "(swift build -c release --product roqua-serve)")
sizes = [int(a) for a in args[2:]] or [10_000, 100_000, 1_000_000]
fresh = "--fresh" in flags
runs = 7
for flag in flags:
    if flag.startswith("--runs="):
        runs = int(flag.split("=", 1)[1])

CITIES = [(41.02, 28.98), (39.93, 32.85), (38.42, 27.14), (37.00, 35.32), (39.75, 37.02), (37.87, 32.48),
          (52.52, 13.40), (48.86, 2.35), (51.51, -0.13), (40.42, -3.70), (41.90, 12.50), (50.08, 14.44),
          (59.33, 18.07), (60.17, 24.94), (52.23, 21.01), (47.50, 19.04), (44.43, 26.10), (37.98, 23.73),
          (55.76, 37.62), (50.45, 30.52), (40.71, -74.01), (41.88, -87.63), (34.05, -118.24), (29.76, -95.37),
          (45.50, -73.57), (19.43, -99.13), (4.71, -74.07), (-12.05, -77.04), (-23.55, -46.63), (-34.60, -58.38),
          (-33.45, -70.67), (-22.91, -43.17), (30.04, 31.24), (6.52, 3.38), (-1.29, 36.82), (-26.20, 28.05),
          (33.57, -7.59), (36.81, 10.18), (9.03, 38.74), (-4.32, 15.31), (35.68, 139.65), (37.57, 126.98),
          (39.90, 116.41), (31.23, 121.47), (22.32, 114.17), (13.76, 100.50), (1.35, 103.82), (-6.21, 106.85),
          (14.60, 120.98), (28.61, 77.21), (19.08, 72.88), (24.86, 67.01), (35.69, 51.39), (25.20, 55.27),
          (24.71, 46.68), (41.31, 69.24), (43.24, 76.95), (-33.87, 151.21), (-37.81, 144.96), (-36.85, 174.76)]
FIXES_PER_REGION = 20
STEP_S = 5
DAY_FIXES = 8 * 3600 // STEP_S
GENERATOR = "big-store v2"


def generate(path, fixes):
    rng = random.Random(3402)
    clock = 1_420_070_400 + 7 * 3600  # 2015-01-01 07:00 UTC
    per_city = fixes // len(CITIES)
    with open(path, "w") as out:
        out.write("lat,lon,time\n")
        lines = []
        for lat0, lon0 in CITIES:
            lat, lon = lat0, lon0
            heading = rng.uniform(0, 2 * math.pi)
            shrink = 1 / max(0.2, math.cos(math.radians(lat0)))
            day_start = clock
            for i in range(per_city):
                heading += rng.gauss(0, 0.05)
                lat += math.cos(heading) * 0.00007
                lon += math.sin(heading) * 0.00007 * shrink
                if abs(lat - lat0) > 2 or abs(lon - lon0) > 2 * shrink:
                    heading += math.pi
                lines.append(f"{lat:.6f},{lon:.6f},{clock}\n")
                clock += STEP_S
                if (i + 1) % DAY_FIXES == 0:
                    day_start += 86_400
                    clock = day_start
                if len(lines) >= 100_000:
                    out.write("".join(lines))
                    lines = []
            day_start += 2 * 86_400  # a day off, then the next city
            clock = day_start
        out.write("".join(lines))


def median_of(command, count):
    times = []
    for _ in range(count):
        started = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        times.append(time.perf_counter() - started)
    return statistics.median(times), min(times), max(times), times[0]


def one_more_day(store, folder, count):
    """A day's walk somewhere new (Reykjavík, 2,000 fixes, after the history) imported into a copy
    of the store, then `stats`: the import's time and the first `stats` after it, `count` rounds,
    each on a fresh copy. What a user who adds a day to a lifetime store waits for."""
    day = os.path.join(folder, "one-more-day.csv")
    rng = random.Random(77)
    lat, lon, heading, clock = 64.13, -21.90, 0.0, 1_900_000_000
    with open(day, "w") as out:
        out.write("lat,lon,time\n")
        for _ in range(2000):
            heading += rng.gauss(0, 0.05)
            lat += math.cos(heading) * 0.00007
            lon += math.sin(heading) * 0.00007 * 2.3
            out.write(f"{lat:.6f},{lon:.6f},{clock}\n")
            clock += STEP_S
    copy = os.path.join(folder, "copy.sqlite")
    imports, stats, peaks = [], [], []
    for _ in range(count):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(copy + suffix):
                os.remove(copy + suffix)
        # Private, as the store is (roqua warns about a store others may read).
        with open(store, "rb") as source, os.fdopen(os.open(copy, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as target:
            shutil.copyfileobj(source, target, 1 << 20)
            # On disk before the clock starts: the kernel writing 300 MB of the fresh copy back
            # meanwhile would slow the import and the `stats` measured (a user's store is not new).
            target.flush()
            os.fsync(target.fileno())
        started = time.perf_counter()
        child = subprocess.Popen([roqua, "track", "import", day, "--store", copy], stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        imports.append(time.perf_counter() - started)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise SystemExit(f"track import of one more day exited with {child.returncode}")
        peaks.append(usage.ru_maxrss / 1024)
        started = time.perf_counter()
        subprocess.run([roqua, "stats", "--store", copy], check=True, stdout=subprocess.DEVNULL)
        stats.append(time.perf_counter() - started)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(copy + suffix):
            os.remove(copy + suffix)
    return [(statistics.median(t), min(t), max(t)) for t in (imports, stats)] + [max(peaks)]


def forget_figures(store):
    """As after a change of the store: the explored figures remembered in it are dropped."""
    subprocess.run(["sqlite3", store, "DELETE FROM explored_figures"], capture_output=True)


def app_requests(script):
    """The /api/ routes app.js fetches on start (its `start` and `refresh`), checked against app.js:
    a route the page stops or starts asking for fails the benchmark instead of going unmeasured.
    The fog is asked for the world view the page starts on (zoom 2 in a 1280-pixel window, the
    view's bounds grown by a quarter, as `Fog.load` asks)."""
    text = open(script, encoding="utf-8").read()
    start = text.index("async function refresh()")
    body = text[start:text.index("\n}\n", start)]
    asked = set(re.findall(r"getJSON\((?:'|`)(/api/[a-z/]+)", body)) | {"/api/changes"}
    if "fog.load()" in body and "`/api/fog?zoom=" in text:
        asked.add("/api/fog")
    paths = ["/api/changes", "/api/visited", "/api/fog?zoom=2&bbox=-257.50000,-90.00000,267.50000,90.00000", "/api/stats?tz=UTC",
             "/api/profile", "/api/achievements?lang=en", "/api/devices", "/api/travel?tz=UTC&level=country"]
    if asked != {path.split("?")[0] for path in paths}:
        raise SystemExit(f"app.js asks for {sorted(asked)} on start: update bench_big_store.py")
    return paths


def first_load(store, paths, count):
    """Serves the store and asks for what the page asks on start, in the page's order: the page,
    the unit shapes, the change mark and the fog one after the other (what the map and its fog
    need to be drawn: the first paint), then every other /api/ route app.js asks for at once (the
    panels, one connection each). Returns, for each round, the time until the fog arrived and
    until the last panel's answer arrived, and each body's size. The first round is the first load
    after the store changed (nothing remembered yet)."""
    serve = os.path.join(os.path.dirname(roqua), "roqua-serve")
    server = subprocess.Popen([serve, "run", "--store", store, "--listen", "127.0.0.1:0", "--log-level", "warning"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = None
        deadline = time.time() + 60
        while time.time() < deadline and base is None:
            line = server.stdout.readline()
            if not line:
                break
            if "serving on http://127.0.0.1:" in line:
                base = line.split("serving on ")[1].strip().rstrip("/")
        if base is None:
            raise SystemExit("roqua-serve did not print its address")
        opener = urllib.request.build_opener()
        sizes_seen = {}
        paint = ["/", "/api/units/world/children", "/api/units/TR/children",
                 next(path for path in paths if path.startswith("/api/fog"))]

        def fetch(path, started):
            request = urllib.request.Request(base + path, headers={"Accept-Encoding": "gzip"})
            with opener.open(request, timeout=300) as response:
                body = response.read()
            sizes_seen[path] = len(body)
            return path, time.perf_counter() - started

        rest = [path for path in paths if path not in paint]
        rounds = []
        for _ in range(count):
            # As app.js: the page, the world's and Türkiye's shapes and the change mark one after
            # the other (`start`), the fog (`refresh` asks for it first), then the panels at once.
            started = time.perf_counter()
            for path in paint[:3] + ["/api/changes", paint[3]]:
                fetch(path, started)
            painted = time.perf_counter() - started
            with ThreadPoolExecutor(len(rest)) as pool:
                done = dict(pool.map(lambda path: fetch(path, started), rest))
            rounds.append((painted, max(done.values())))
        return rounds, sizes_seen
    finally:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    print(f"{time.strftime('%Y-%m-%d', time.gmtime())} {os.cpu_count()} cores, load {open('/proc/loadavg').read().split()[0]}, "
          f"roqua {roqua}")
    paths = app_requests(os.path.join(os.path.dirname(__file__), "../../Sources/RoquaServer/Web/app.js"))
    rows = []
    for size in sizes:
        folder = os.path.join(work, str(size))
        history, store = os.path.join(folder, "history.csv"), os.path.join(folder, "regions.sqlite")
        stamp_path = os.path.join(folder, "made-by")
        stamp = f"{GENERATOR} {size * FIXES_PER_REGION}"
        if fresh or not os.path.exists(stamp_path) or open(stamp_path).read() != stamp:
            shutil.rmtree(folder, ignore_errors=True)
            os.makedirs(folder)
            started = time.perf_counter()
            generate(history, size * FIXES_PER_REGION)
            print(f"{size:>9,} regions asked: {size * FIXES_PER_REGION:,} fixes generated in {time.perf_counter() - started:.0f} s")
            started = time.perf_counter()
            subprocess.run([roqua, "track", "import", history, "--store", store], check=True, stdout=subprocess.DEVNULL)
            print(f"{'':>9} imported in {time.perf_counter() - started:.1f} s")
            open(stamp_path, "w").write(stamp)
        counted = subprocess.run(["sqlite3", store, "SELECT (SELECT COUNT(*) FROM visited_regions), (SELECT COUNT(*) FROM tiles), "
                                  "(SELECT COUNT(*) FROM presence), (SELECT strftime('%Y', MAX(last_visit_ms) / 1000, 'unixepoch') FROM visited_regions)"],
                                 capture_output=True, text=True, check=True).stdout.strip().split("|")
        regions, tiles, presence, year = int(counted[0]), int(counted[1]), int(counted[2]), counted[3]
        print(f"{size:>9,}: {regions:,} regions, {tiles:,} zoom-17 tiles, {presence:,} presence rows, "
              f"{os.path.getsize(store) / 1e6:.0f} MB store, {size * FIXES_PER_REGION:,} fixes")
        measured = {}
        base = [roqua]
        # The store as its import left it: its explored figures remembered (a run before this one
        # may have deleted them; `stats` remembers them again).
        subprocess.run(base + ["stats", "--store", store], check=True, stdout=subprocess.DEVNULL)
        measured["import one more day"], measured["stats after it"], day_peak = one_more_day(store, folder, max(3, runs // 2))
        forget_figures(store)
        measured["stats"] = median_of(base + ["stats", "--store", store], runs)
        measured["stats, 1st"] = (measured["stats"][3],) * 3
        measured["stats --json"] = median_of(base + ["stats", "--json", "--store", store], runs)
        measured["stats days"] = median_of(base + ["stats", "days", "--year", year, "--time-zone", "UTC", "--store", store], runs)
        measured["stats tiles"] = median_of(base + ["stats", "tiles", "--zoom", "14", "--store", store], runs)
        svg = os.path.join(folder, "world.svg")
        measured["map world fog SVG"] = median_of(base + ["map", "--unit", "world", "--fog", "--store", store, "--out", svg], runs)
        measured["map world fog PNG"] = median_of(base + ["map", "--unit", "world", "--fog", "--store", store, "--out", svg, "--png"], runs)
        forget_figures(store)
        rounds, sizes_seen = first_load(store, paths, runs)
        for index, name in [(0, "web first paint"), (1, "web all panels")]:
            times = [r[index] for r in rounds]
            measured[name] = (statistics.median(times), min(times), max(times))
            measured[name + ", 1st"] = (times[0], times[0], times[0])
        rows.append((size, regions, measured, sizes_seen, day_peak))
        biggest = max(sizes_seen.items(), key=lambda item: item[1])
        print(f"{'':>9} largest first-load response: {biggest[0]} {biggest[1] / 1e6:.2f} MB; all: "
              f"{sum(sizes_seen.values()) / 1e6:.2f} MB")
    targets = {"import one more day": None, "stats after it": 1, "stats": 1, "stats, 1st": 1, "stats --json": 1, "stats days": 1, "stats tiles": 1, "map world fog SVG": 3, "map world fog PNG": 3,
               "web first paint": 1, "web first paint, 1st": 1, "web all panels": None, "web all panels, 1st": None}
    print()
    print(f"{'':24}" + "".join(f"{r[1]:>14,}" for r in rows) + "   target")
    for name, target in targets.items():
        line = f"{name:24}" + "".join(f"{r[2][name][0] * 1000:>11.0f} ms" for r in rows)
        if target is None:
            print(line + "   (no target)")
            continue
        met = all(r[2][name][0] < target for r in rows)
        print(line + f"   < {target} s {'met' if met else 'NOT met'}")
    line = f"{'first-load bytes, max':24}" + "".join(f"{max(r[3].values()) / 1e6:>11.2f} MB" for r in rows)
    print(line + "   a few MB")
    print(f"{'one more day, peak RSS':24}" + "".join(f"{r[4]:>11.0f} MB" for r in rows) + "   (no target)")
    for size, regions, measured, _, _ in rows:
        spread = ", ".join(f"{name} {m[1] * 1000:.0f}–{m[2] * 1000:.0f}" for name, m in measured.items() if "1st" not in name)
        print(f"spread (ms, min–max) at {regions:,}: {spread}")


main()
