"""`roqua stats tiles` and `roqua stats days` on a big store: seeded walks (a fix every 5 s at
walking speed) from four cities, FIXES in all (default 10,000,000), imported into a fresh store in
one `track import`; then each query run 7 times, median and spread printed, against the 1 s target.
The walks keep a heading that turns a little each step (a hike, a ride: new ground all the time)
and bounce off a box of ±1.5° around each city, so the store holds many tiles and regions.

Usage: bench_travel.py ROQUA WORKDIR [FIXES]
"""
import math
import random
import statistics
import subprocess
import sys
import time

roqua, work = sys.argv[1], sys.argv[2]
total = int(sys.argv[3]) if len(sys.argv) > 3 else 10_000_000
rng = random.Random(34)
cities = [(41.02, 28.98), (39.93, 32.85), (52.52, 13.40), (38.42, 27.14)]
path = f"{work}/history.csv"
clock = 1_704_067_200
with open(path, "w") as out:
    out.write("lat,lon,time\n")
    for lat0, lon0 in cities:
        clock += 86_400
        lat, lon = lat0, lon0
        heading = rng.uniform(0, 2 * math.pi)
        for _ in range(total // len(cities)):
            heading += rng.gauss(0, 0.05)
            lat += math.cos(heading) * 0.00004
            lon += math.sin(heading) * 0.00005
            if abs(lat - lat0) > 1.5 or abs(lon - lon0) > 1.5:
                heading += math.pi  # turn back at the edge of the box
            out.write(f"{lat:.6f},{lon:.6f},{clock}\n")
            clock += 5
store = f"{work}/regions.sqlite"
started = time.time()
subprocess.run([roqua, "track", "import", path, "--store", store], check=True, capture_output=True)
elapsed = time.time() - started
print(f"{total:,} fixes imported in {elapsed:.1f} s ({total / elapsed:,.0f} fixes/s)")
count = subprocess.run(["sqlite3", store, "SELECT (SELECT COUNT(*) FROM tiles), (SELECT COUNT(*) FROM presence), "
                        "(SELECT COUNT(*) FROM visited_regions)"], capture_output=True, text=True).stdout.strip()
print(f"stored: zoom-17 tiles | quarter-hour presence rows | regions = {count}")
for name, arguments in [("stats tiles --zoom 14", ["stats", "tiles", "--zoom", "14"]),
                        ("stats tiles --zoom 17", ["stats", "tiles", "--zoom", "17"]),
                        ("stats days --year 2024", ["stats", "days", "--year", "2024", "--time-zone", "Europe/Istanbul"])]:
    times = []
    for _ in range(7):
        started = time.time()
        subprocess.run([roqua, *arguments, "--json", "--store", store], check=True, capture_output=True)
        times.append(time.time() - started)
    median = statistics.median(times)
    print(f"{name:26} median {median * 1000:7.0f} ms (min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}); "
          f"target < 1 s: {'met' if median < 1 else 'NOT met'}")
