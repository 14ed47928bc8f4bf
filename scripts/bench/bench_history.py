#!/usr/bin/env python3
"""A seeded ten-year location history as a Google Takeout Records.json: one fix every 15 s,
day and night, 2015-01-01 … 2024-12-31 (21 M fixes, ~2.3 GB), for the import benchmark.

Weekdays: night at home in Kadıköy, a commute by road to Levent and back (the same streets, a few
metres of GPS noise each day), the day at the office with a lunch walk. Weekends: a walk in one of
İstanbul's districts, or a day trip by car to a city within reach. Three trips abroad a year:
a drive to the airport, a flight at 800 km/h along the great circle (the importer's flight filter
must keep it from lighting anything), days walking about the destination, the flight back.
Accuracy 5–65 m, one fix in twenty worse than 50 m. Not tuned to anything the importer does.

Usage: bench_history.py OUT_FILE [YEARS]"""
import math
import random
import sys
import time

STEP = 15
HOME = (40.9900, 29.0290)      # Kadıköy
WORK = (41.0790, 29.0110)      # Levent
AIRPORT = (41.2620, 28.7420)   # İstanbul Airport
DISTRICTS = [(41.0054, 28.9768), (41.0370, 28.9850), (41.0430, 29.0090), (41.0260, 29.0160), (40.9810, 29.0580),
             (41.0690, 29.0430), (40.9600, 29.1100), (41.0130, 28.9490), (40.9930, 28.8700), (41.1060, 29.0560),
             (41.0830, 28.9220), (40.8780, 29.2580), (41.1710, 29.0500), (41.0050, 28.6500), (41.0200, 29.1100)]
CITIES = [(40.7650, 29.9400), (40.1830, 29.0600), (40.1550, 26.4140), (41.6770, 26.5550), (40.6550, 29.2750),
          (40.7400, 30.3300), (40.1390, 29.9790), (41.0020, 28.2200), (40.4080, 27.8090), (39.6480, 27.8830)]
ABROAD = [(48.8566, 2.3522), (51.5074, -0.1278), (52.5200, 13.4050), (41.9028, 12.4964), (40.4168, -3.7038),
          (35.6762, 139.6503), (40.7128, -74.0060), (25.2048, 55.2708), (55.7558, 37.6173), (-33.9249, 18.4241),
          (37.9838, 23.7275), (50.0755, 14.4378), (59.3293, 18.0686), (13.7563, 100.5018), (-22.9068, -43.1729)]
M_PER_DEG = 111_195.0


class Writer:
    def __init__(self, out):
        self.out = out
        self.t = 0
        self.first = True
        self.count = 0
        self.lines = []

    def fix(self, lat, lon):
        acc = random.choice((5, 8, 10, 12, 16, 20, 25, 30, 40, 65)) if random.random() < 0.95 else random.choice((70, 120, 300))
        stamp = time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(self.t))
        self.lines.append(f'{{"latitudeE7": {round(lat * 1e7)}, "longitudeE7": {round(lon * 1e7)}, '
                          f'"accuracy": {acc}, "timestamp": "{stamp}.{random.randrange(1000):03d}Z"}}')
        self.t += STEP
        self.count += 1
        if len(self.lines) >= 100_000:
            self.flush()

    def flush(self):
        if self.lines:
            self.out.write(('' if self.first else ',\n') + ',\n'.join(self.lines))
            self.first = False
            self.lines = []


def jitter(point, metres):
    return (point[0] + random.gauss(0, metres) / M_PER_DEG,
            point[1] + random.gauss(0, metres) / (M_PER_DEG * math.cos(math.radians(point[0]))))


def stay(w, place, until, metres=8):
    while w.t < until:
        w.fix(*jitter(place, metres))


def travel(w, a, b, speed, noise=6, until=None):
    """Straight-ish from a to b at `speed` m/s (a gentle bend through a seeded midpoint)."""
    dist = math.hypot((b[0] - a[0]) * M_PER_DEG, (b[1] - a[1]) * M_PER_DEG * math.cos(math.radians(a[0])))
    steps = max(1, int(dist / (speed * STEP)))
    bend = random.Random(hash((round(a[0], 3), round(b[0], 3)))).uniform(-0.15, 0.15)
    for i in range(steps + 1):
        f = i / steps
        lat = a[0] + (b[0] - a[0]) * f + bend * (b[1] - a[1]) * f * (1 - f)
        lon = a[1] + (b[1] - a[1]) * f - bend * (b[0] - a[0]) * f * (1 - f)
        w.fix(*jitter((lat, lon), noise))
        if until and w.t >= until:
            return


def fly(w, a, b):
    """Great circle at 800 km/h."""
    p1, l1, p2, l2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    d = 2 * math.asin(math.sqrt(math.sin((p2 - p1) / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin((l2 - l1) / 2) ** 2))
    steps = max(2, int(d * 6_371_000 / (222 * STEP)))
    for i in range(steps + 1):
        f = i / steps
        A, B = math.sin((1 - f) * d) / math.sin(d), math.sin(f * d) / math.sin(d)
        x = A * math.cos(p1) * math.cos(l1) + B * math.cos(p2) * math.cos(l2)
        y = A * math.cos(p1) * math.sin(l1) + B * math.cos(p2) * math.sin(l2)
        z = A * math.sin(p1) + B * math.sin(p2)
        w.fix(math.degrees(math.atan2(z, math.hypot(x, y))), math.degrees(math.atan2(y, x)))


def wander(w, centre, until, radius=4000):
    """A walk at 1.4 m/s that turns smoothly and heads back when it strays past `radius`."""
    lat, lon, heading = centre[0], centre[1], random.uniform(0, 2 * math.pi)
    while w.t < until:
        heading += random.gauss(0, 0.2)
        dy, dx = (lat - centre[0]) * M_PER_DEG, (lon - centre[1]) * M_PER_DEG * math.cos(math.radians(lat))
        if math.hypot(dx, dy) > radius:
            heading = math.atan2(-dx, -dy) + random.gauss(0, 0.3)
        lat += 21 * math.cos(heading) / M_PER_DEG
        lon += 21 * math.sin(heading) / (M_PER_DEG * math.cos(math.radians(lat)))
        w.fix(*jitter((lat, lon), 4))


def main():
    random.seed(20240101)
    years = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    start = 1420070400  # 2015-01-01T00:00:00Z (02:00 in İstanbul)
    days = round(years * 365.25)
    trips = set()
    for year in range(years):
        for _ in range(3):
            first = year * 365 + random.randrange(0, 358)
            trips.update(range(first, first + random.randint(3, 7)))
    with open(sys.argv[1], 'w') as out:
        w = Writer(out)
        w.t = start
        out.write('{"locations": [\n')
        abroad = None
        for day in range(days):
            midnight = start + day * 86400 - 2 * 3600  # local midnight
            def at(hours):
                return midnight + int(hours * 3600)
            weekday = time.gmtime(midnight + 4 * 3600).tm_wday
            if day in trips:
                if abroad is None:  # fly out
                    abroad = random.choice(ABROAD)
                    stay(w, HOME, at(6))
                    travel(w, HOME, AIRPORT, 18)
                    stay(w, AIRPORT, w.t + 7200, 30)
                    fly(w, AIRPORT, abroad)
                else:
                    stay(w, jitter(abroad, 500), at(9))
                wander(w, abroad, at(20), radius=6000)
                stay(w, abroad, at(24))
                if day + 1 not in trips:  # fly back the next morning
                    stay(w, abroad, w.t + 4 * 3600)
                    fly(w, abroad, AIRPORT)
                    travel(w, AIRPORT, HOME, 18)
                    abroad = None
                continue
            if weekday >= 5:
                stay(w, HOME, at(10))
                if random.random() < 0.6:
                    place = random.choice(DISTRICTS)
                    travel(w, HOME, place, 9)
                    wander(w, place, at(17), radius=2500)
                    travel(w, (place[0], place[1]), HOME, 9)
                else:
                    city = random.choice(CITIES)
                    travel(w, HOME, city, 22)
                    wander(w, city, w.t + 4 * 3600, radius=3000)
                    travel(w, city, HOME, 22)
                stay(w, HOME, at(24))
                continue
            stay(w, HOME, at(8))
            travel(w, HOME, WORK, 10)
            stay(w, WORK, at(12.5), 15)
            wander(w, WORK, at(13.5), radius=900)
            stay(w, WORK, at(18), 15)
            travel(w, WORK, HOME, 10)
            stay(w, HOME, at(24))
        w.flush()
        out.write('\n]}\n')
    print(f'{w.count} fixes, {days} days', file=sys.stderr)


if __name__ == '__main__':
    main()
