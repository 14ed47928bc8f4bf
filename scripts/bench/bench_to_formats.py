#!/usr/bin/env python3
"""Writes a lat,lon CSV (with a header) again as NDJSON and as one GeoJSON FeatureCollection
beside it (same name, .ndjson / .geojson), each point with a small property, for the memory
benchmark (scripts/bench/bench-memory.sh). Plain Python 3; deterministic for a given CSV.

Usage: python3 scripts/bench/bench_to_formats.py FILE.csv
"""
import sys

source = sys.argv[1]
base = source[: -len(".csv")]
with open(source) as f, open(base + ".ndjson", "w") as nd, open(base + ".geojson", "w") as gj:
    next(f)
    gj.write('{"type":"FeatureCollection","features":[\n')
    for i, line in enumerate(f):
        lat, lon = line.strip().split(",")[:2]
        nd.write('{"lat":%s,"lon":%s,"id":%d}\n' % (lat, lon, i))
        gj.write('%s{"type":"Feature","properties":{"id":%d},"geometry":{"type":"Point","coordinates":[%s,%s]}}\n'
                 % ("," if i else "", i, lon, lat))
    gj.write("]}\n")
