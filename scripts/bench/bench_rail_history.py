#!/usr/bin/env python3
"""A seeded history written to check the import on a workload it was not tuned on: eight years
(2016-2023), a fix every 12 s as CSV (lat,lon,accuracy,time; ~21 M fixes, ~1 GB). Two years at a
time at home in one of four European cities; each day eight hours at home, then ten hours
wandering the city to random points (walking, cycling, by car) or, on most Fridays, an intercity
train at 250-300 km/h to one of twelve cities, a day and a half there and the train back; a
long drive about once a month. Far more regions (~400 k) and map rows (~1.1 M) than a phone
history of the same length (bench_history.py: ~50 k regions, ~127 k rows).

With --commute, the days at home are a commuter's instead (the same trains and drives): on
weekdays the same streets to an office of that city and back, nine hours there with a walk at
lunch; on weekends six hours about the city. A life concentrated in a few cities, with long rail
and road lines.

Usage: bench_rail_history.py OUT_FILE [--commute]"""
import datetime
import math
import random
import sys

random.seed(20261130)
STEP = 12
CITIES = [(52.52, 13.405), (48.137, 11.575), (50.110, 8.682), (53.551, 9.993), (51.227, 6.773), (48.775, 9.182),
          (47.376, 8.541), (45.464, 9.190), (48.857, 2.352), (50.850, 4.351), (52.370, 4.895), (50.938, 6.960)]
out = open(sys.argv[1], 'w'); out.write('lat,lon,accuracy,time\n')
t = datetime.datetime(2016, 1, 1, tzinfo=datetime.timezone.utc).timestamp()
end = t + 8 * 365.25 * 86400
n = 0
def emit(lat, lon, acc=None):
    global t, n
    acc = acc or random.choice([4, 6, 8, 12, 20, 35])
    ms = int(t * 1000) + random.randint(0, 900)
    out.write(f'{lat + random.gauss(0, 3e-5):.7f},{lon + random.gauss(0, 4e-5):.7f},{acc},'
              f'{datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.")}{ms % 1000:03d}Z\n')
    t += STEP; n += 1
def go(a, b, speed, wiggle=0.0):
    d = math.hypot((b[0] - a[0]) * 111e3, (b[1] - a[1]) * 111e3 * math.cos(math.radians(a[0])))
    steps = max(1, int(d / (speed * STEP)))
    mid = ((a[0] + b[0]) / 2 + random.uniform(-wiggle, wiggle), (a[1] + b[1]) / 2 + random.uniform(-wiggle, wiggle))
    for i in range(steps):
        s = i / steps
        lat = (1 - s) ** 2 * a[0] + 2 * (1 - s) * s * mid[0] + s * s * b[0]
        lon = (1 - s) ** 2 * a[1] + 2 * (1 - s) * s * mid[1] + s * s * b[1]
        emit(lat, lon)
def stay(p, seconds):
    for _ in range(int(seconds / STEP)): emit(p[0] + random.gauss(0, 1e-4), p[1] + random.gauss(0, 1e-4), 15)
def wander(c, seconds, radius=0.03):
    p = c
    while seconds > 0:
        q = (c[0] + random.uniform(-radius, radius), c[1] + random.uniform(-radius, radius) * 1.4)
        before = t; go(p, q, random.choice([1.4, 4.5, 9]), 0.004); p = q; seconds -= t - before
    return p
COMMUTE = '--commute' in sys.argv[2:]
OFFICES = [(c[0] + random.uniform(-0.05, 0.05), c[1] + random.uniform(-0.07, 0.07)) for c in CITIES] if COMMUTE else []
ROUTES = {}
def commute(home, office):
    """The same streets every day: three fixed waypoints per home, walked at a car's pace."""
    if home not in ROUTES:
        ROUTES[home] = [(home[0] + (office[0] - home[0]) * f + random.uniform(-0.01, 0.01),
                         home[1] + (office[1] - home[1]) * f + random.uniform(-0.01, 0.01)) for f in (0.25, 0.5, 0.75)]
    return ROUTES[home]
home_index = 0
while t < end:
    year = int((t - datetime.datetime(2016, 1, 1, tzinfo=datetime.timezone.utc).timestamp()) / (2 * 365.25 * 86400))
    home = CITIES[year % 4]
    day = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
    stay(home, 8 * 3600)
    r = random.random()
    if day.weekday() == 4 and r < 0.6:  # weekly train
        other = random.choice([c for c in CITIES if c != home])
        go(home, other, random.uniform(69, 83), 0.3); p = wander(other, 30 * 3600); go(p, home, random.uniform(69, 83), 0.3)
    elif r < 0.04:  # long drive
        other = random.choice(CITIES); go(home, other, random.uniform(25, 36), 0.5); p = wander(other, 6 * 3600); go(p, home, 30, 0.5)
    elif COMMUTE and day.weekday() < 5:
        office = OFFICES[CITIES.index(home)]
        path = [home] + commute(home, office) + [office]
        for a, b in zip(path, path[1:]): go(a, b, 11, 0.0005)
        stay(office, 4 * 3600); p = wander(office, 3600, 0.004); go(p, office, 1.4); stay(office, 4 * 3600)
        for a, b in zip(path[::-1], path[::-1][1:]): go(a, b, 11, 0.0005)
    elif COMMUTE:
        p = wander(home, 6 * 3600); go(p, home, 9)
    else:
        p = wander(home, 10 * 3600); go(p, home, 9)
    left = 86400 - ((t - datetime.datetime(day.year, day.month, day.day, tzinfo=datetime.timezone.utc).timestamp()) % 86400)
    stay(home, max(0, left))
print(n, file=sys.stderr)
