#!/usr/bin/env python3
"""Seeded benchmark workloads for the resolver: lat,lon CSVs (with a header) in a directory.

Usage: python3 scripts/bench/bench_workloads.py OUT_DIR     (plain Python 3, no packages needed)

  world-1m.csv             1,000,000 points uniform on the sphere (equal area: lat = asin(u))
  turkiye-bbox-1m.csv      1,000,000 points uniform in the box 36–42° N, 26–45° E (Türkiye and
                           its neighbours, seas included)
  istanbul-walk-200k.csv   a 200,000-fix walk around İstanbul, 8–15 m per fix, smoothly turning,
                           with stops (GPS jitter ~2 m); it heads for waypoints on both shores,
                           so it crosses the Golden Horn, the Bosphorus and the Marmara Sea

Coordinates are written with 7 decimals (about 1 cm). Python's own generator (Mersenne
Twister) with a fixed seed makes the files byte-identical on every machine.
"""
import math
import os
import random
import sys
import time

SEED = 20251122
M_PER_DEG = 6371008.8 * math.pi / 180
# (lat, lon) waypoints, visited in a loop; consecutive ones on opposite shores make the walk cross water.
WAYPOINTS = [
    (41.0054, 28.9768),  # Sultanahmet
    (41.0225, 28.9770),  # Karaköy, across the Golden Horn
    (41.0422, 29.0067),  # Beşiktaş
    (41.0270, 29.0150),  # Üsküdar, across the Bosphorus
    (40.9900, 29.0240),  # Kadıköy
    (40.8580, 29.1200),  # Büyükada, across the Marmara Sea
    (40.9530, 29.0950),  # Bostancı
    (41.0000, 28.9500),  # Yenikapı, across the mouth of the Bosphorus
    (40.9800, 28.8700),  # Bakırköy
    (41.1000, 29.0560),  # Rumelihisarı
    (41.1730, 29.0880),  # Anadolu Kavağı, across the Bosphorus
    (41.0850, 29.0650),  # Beykoz shore
]


def write_csv(path, points):
    with open(path, "w") as f:
        f.write("lat,lon\n")
        f.writelines(f"{lat:.7f},{lon:.7f}\n" for lat, lon in points)


def world(rng, n):
    return [(math.degrees(math.asin(rng.uniform(-1.0, 1.0))), rng.uniform(-180.0, 180.0)) for _ in range(n)]


def turkiye_bbox(rng, n):
    return [(rng.uniform(36.0, 42.0), rng.uniform(26.0, 45.0)) for _ in range(n)]


def walk(rng, n):
    """Heads for the next waypoint with a smoothly wandering heading; stops now and then."""
    lat, lon = WAYPOINTS[0]
    target, drift, turn, speed, stop = 1, 0.0, 0.0, 11.0, 0
    points = []
    while len(points) < n:
        if stop > 0:  # standing still: jitter around the stop
            stop -= 1
            points.append((lat + rng.gauss(0, 2) / M_PER_DEG,
                           lon + rng.gauss(0, 2) / (M_PER_DEG * math.cos(math.radians(lat)))))
            continue
        points.append((lat, lon))
        if rng.random() < 0.002:
            stop = rng.randint(10, 120)
        tlat, tlon = WAYPOINTS[target]
        dy = (tlat - lat) * M_PER_DEG
        dx = (tlon - lon) * M_PER_DEG * math.cos(math.radians(lat))
        if math.hypot(dx, dy) < 150:
            target = (target + 1) % len(WAYPOINTS)
            continue
        turn = 0.9 * turn + rng.gauss(0, 0.03)
        drift = max(-1.2, min(1.2, drift + turn))  # wander up to ~70° off the straight line
        heading = math.atan2(dx, dy) + drift
        speed = min(15.0, max(8.0, speed + rng.gauss(0, 0.4)))
        lat += speed * math.cos(heading) / M_PER_DEG
        lon += speed * math.sin(heading) / (M_PER_DEG * math.cos(math.radians(lat)))
    return points


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: bench_workloads.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, make in [("world-1m.csv", lambda rng: world(rng, 1_000_000)),
                       ("turkiye-bbox-1m.csv", lambda rng: turkiye_bbox(rng, 1_000_000)),
                       ("istanbul-walk-200k.csv", lambda rng: walk(rng, 200_000))]:
        started = time.perf_counter()
        points = make(random.Random(f"{SEED}-{name}"))
        write_csv(os.path.join(out, name), points)
        extra = ""
        if name.startswith("istanbul"):
            km = sum(math.hypot((b[0] - a[0]) * M_PER_DEG, (b[1] - a[1]) * M_PER_DEG * math.cos(math.radians(a[0])))
                     for a, b in zip(points, points[1:])) / 1000
            extra = f", {km:.0f} km long"
        print(f"{name}: {len(points):,} points in {time.perf_counter() - started:.1f} s{extra}", file=sys.stderr)


if __name__ == "__main__":
    main()
