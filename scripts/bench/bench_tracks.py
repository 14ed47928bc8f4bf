#!/usr/bin/env python3
"""Seeded track workloads for the import benchmark: a 1,000,000-fix walk through İstanbul
(5 m / 5 s steps, one fix in five less accurate than 50 m) written twice, as CSV and as a
Google Takeout Records.json. Usage: bench_tracks.py OUT_DIR"""
import json
import math
import random
import sys


def main(out):
    random.seed(7)
    lat, lon, heading = 41.0, 28.95, 0.0
    with open(f"{out}/walk-1m.csv", "w") as csv, open(f"{out}/Records-1m.json", "w") as records:
        csv.write("lat,lon,timestamp,accuracy\n")
        records.write('{"locations": [\n')
        for i in range(1_000_000):
            heading += random.gauss(0, 0.15)
            lat += 0.000045 * math.cos(heading)
            lon += 0.00006 * math.sin(heading)
            if not (40.95 < lat < 41.15 and 28.7 < lon < 29.25):
                heading += math.pi  # turn back at the edge of the city
            t = 1714550400 + i * 5
            accuracy = random.choice([5, 8, 12, 20, 70])
            csv.write(f"{lat:.7f},{lon:.7f},{t},{accuracy}\n")
            record = {"latitudeE7": round(lat * 1e7), "longitudeE7": round(lon * 1e7),
                      "timestampMs": str(t * 1000), "accuracy": accuracy}
            records.write(("" if i == 0 else ",\n") + json.dumps(record))
        records.write("\n]}\n")


if __name__ == "__main__":
    main(sys.argv[1])
