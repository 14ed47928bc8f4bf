#!/usr/bin/env python3
"""Writes commute.csv: two commuting days in İstanbul with a known truth, for the docs' timeline.

Nights at home in Kadıköy with the phone off (23:00–07:00), a walk to the pier, three minutes
waiting, the ferry across the Bosphorus to Karaköy (12 min), a walk up to work in Galata, and back
in the evening: 6–7 May 2024, a fix every 2 min when still and every 10 s when moving, ~3 m of
noise. Seeded: the file is the same on every machine.

Usage: python3 scripts/examples/make-commute.py > scripts/examples/commute.csv
"""
import datetime
import random

random.seed(7)
HOME, PIER = (40.9903, 29.0290), (40.9925, 29.0230)
KARAKOY, WORK = (41.0220, 28.9770), (41.0256, 28.9744)
lines = ["lat,lon,timestamp,accuracy"]


def at(day, hour, minute):
    return 1714856400 + day * 86400 + hour * 3600 + minute * 60  # 2024-05-05 00:00 +03:00


def fix(p, t):
    def noise():
        return (random.randint(0, 60) - 30) * 1e-6

    stamp = datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    lines.append("%.6f,%.6f,%s,8" % (p[0] + noise(), p[1] + noise(), stamp))


def stay(p, start, end):
    for t in range(start, end + 1, 120):
        fix(p, t)


def go(a, b, start, end):
    for t in range(start, end + 1, 10):
        f = (t - start) / (end - start)
        fix((a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f), t)


stay(HOME, at(0, 20, 0), at(0, 23, 0))
for d in (1, 2):
    stay(HOME, at(d, 7, 0), at(d, 8, 0))
    go(HOME, PIER, at(d, 8, 0), at(d, 8, 7))
    stay(PIER, at(d, 8, 7), at(d, 8, 10))
    go(PIER, KARAKOY, at(d, 8, 10), at(d, 8, 22))
    go(KARAKOY, WORK, at(d, 8, 22), at(d, 8, 28))
    stay(WORK, at(d, 8, 28), at(d, 17, 30))
    go(WORK, KARAKOY, at(d, 17, 30), at(d, 17, 36))
    stay(KARAKOY, at(d, 17, 36), at(d, 17, 39))
    go(KARAKOY, PIER, at(d, 17, 39), at(d, 17, 51))
    go(PIER, HOME, at(d, 17, 51), at(d, 17, 58))
    stay(HOME, at(d, 17, 58), at(d, 23, 0))
print("\n".join(lines))
