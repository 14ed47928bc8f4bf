#!/usr/bin/env python3
"""Roqua's timeline against trackintel 1.4.2 on one seeded year of phone fixes (~430 k, one every ~70 s).

Speed: Roqua's `track import` + `timeline` (the whole year) + `trips`, each a process on a fresh store,
against trackintel's whole pipeline in one Python process: read the CSV, generate_staypoints,
generate_triplegs, predict_transport_mode, generate_locations, create_activity_flag, generate_trips.
Agreement: Roqua's stays of ≥ 10 min against trackintel's staypoints of ≥ 10 min (matched one to one:
time overlap > 50 % of the shorter and centres < 200 m apart), and both against the generator's truth;
Roqua's modes against the true mode of every move, in hours.

The year (2024, times in UTC): home nights (one in eight with the phone off 23:00–07:00), a road commute,
work with a lunch walk to a café, evenings out, a few 6–8 min stops at a shop, weekend walks and outings,
five trips of 2–4 nights (by road, by rail, by air with the phone off in flight). Drives in İstanbul keep to
land: over the 15 July bridge between the shores, over the Galata bridge to the old city, inland to Pendik. GPS noise 5–30 m
(σ = accuracy / 2 on each axis); one fix in 400 an outlier 300–1500 m off, 70 % of them with a
bad accuracy (150–800 m), 30 % with a plausible one (20–40 m).

trackintel runs in the venv .build-bench/trackintel (scripts/bench/bench-trackintel-requirements.txt);
this script starts it with `--ti-worker`. Both tools get the same CSV; trackintel's pipeline drops the
fixes whose accuracy is worse than 50 m, as Roqua's import does by default.

Usage: bench_trackintel.py ROQUA BOUNDARIES WORKDIR [--runs 3] [--ti-python PATH]"""
import argparse
import bisect
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone

SEED = 20240101
YEAR = 2024
M_PER_DEG = 111_195.0
HOME = (40.9900, 29.0290)      # Kadıköy
WORK = (41.0790, 29.0110)      # Levent
AIRPORT = (41.2620, 28.7420)   # İstanbul Airport
CAFES = [(41.0815, 29.0135), (41.0768, 29.0148), (41.0802, 29.0068)]
SHOPS = [(41.0300, 29.0330), (41.0100, 29.0300), (41.0550, 29.0180)]
EVENING = [(41.0054, 28.9768), (41.0370, 28.9850), (41.0430, 29.0090), (41.0260, 29.0160), (40.9810, 29.0580),
           (41.0690, 29.0430), (40.9600, 29.1100), (41.0130, 28.9490)]
MARKET = (40.9935, 29.0350)    # a walk from home
OUTINGS = [(41.1060, 29.0560), (41.0830, 28.9220), (40.8780, 29.2580), (41.1710, 29.0500), (41.0200, 29.1100),
           (40.9930, 28.8700)]
ROAD_TRIPS = [((40.1830, 29.0600), 'road'), ((39.9334, 32.8597), 'rail'), ((40.7650, 29.9400), 'road')]
AIR_TRIPS = [(48.8566, 2.3522), (52.5200, 13.4050)]
FIX_MIN, FIX_MAX = 50, 90
MIN_STAY = 600                 # the stays compared: ≥ 10 min


# The 15 July Martyrs Bridge's ends where the boundary data's land begins (Beylerbeyi, Ortaköy).
BRIDGE_ASIA = (41.0440, 29.0440)
BRIDGE_EUROPE = (41.0480, 29.0220)
# The Bosphorus' middle line north of the Marmara (lat, lon), for which shore a place is on.
STRAIT = [(41.005, 29.000), (41.030, 29.012), (41.046, 29.035), (41.070, 29.050), (41.100, 29.062), (41.170, 29.070),
          (41.230, 29.120)]


def asian_side(p):
    """True on İstanbul's Asian shore, False on its European one, None outside the city."""
    if not (40.80 <= p[0] <= 41.30 and 28.60 <= p[1] <= 29.50):
        return None
    if p[0] < STRAIT[0][0]:
        return p[1] > STRAIT[0][1]
    for (la0, lo0), (la1, lo1) in zip(STRAIT, STRAIT[1:]):
        if p[0] <= la1:
            return p[1] > lo0 + (lo1 - lo0) * (p[0] - la0) / (la1 - la0)
    return p[1] > STRAIT[-1][1]


# Inland points of the roads to the old city (over the Galata bridge) and along the Asian shore to Pendik,
# where a straight line would run over the sea.
GUMUSSUYU, KARAKOY, EMINONU = (41.0400, 28.9970), (41.0250, 28.9770), (41.0170, 28.9720)
E5_WEST, E5_EAST = (40.9750, 29.0900), (40.9250, 29.1700)


def city_roads(a, dest):
    """The points a drive from a to dest in İstanbul passes on land; [] where a straight line stays on land."""
    sides = (asian_side(a), asian_side(dest))
    if None in sides:
        return []

    def spur(p, asian):   # from p to the city's middle on its shore
        if not asian and p[0] < 41.02 and 28.93 < p[1] < 28.99:
            return [EMINONU, KARAKOY, GUMUSSUYU]
        if asian and p[1] > 29.15:
            return [E5_EAST, E5_WEST]
        return []
    bridge = []
    if sides[0] != sides[1]:   # over the 15 July bridge (1.5 km of water), not along the strait
        bridge = [BRIDGE_ASIA, BRIDGE_EUROPE] if sides[0] else [BRIDGE_EUROPE, BRIDGE_ASIA]
    return spur(a, sides[0]) + bridge + spur(dest, sides[1])[::-1]


def dist_m(a, b):
    la1, lo1, la2, lo2 = map(math.radians, (a[0], a[1], b[0], b[1]))
    h = math.sin((la2 - la1) / 2) ** 2 + math.cos(la1) * math.cos(la2) * math.sin((lo2 - lo1) / 2) ** 2
    return 2 * 6_371_008.8 * math.asin(min(1.0, math.sqrt(h)))


def offset(p, north_m, east_m):
    return (p[0] + north_m / M_PER_DEG, p[1] + east_m / (M_PER_DEG * math.cos(math.radians(p[0]))))


class Gen:
    def __init__(self, out, rng):
        self.out, self.rng = out, rng
        self.t = datetime(YEAR, 1, 1, tzinfo=timezone.utc).timestamp()
        self.next_fix = self.t + rng.uniform(0, FIX_MAX)
        self.pos = HOME
        self.stays = []     # truth: [start, end, lat, lon, label]
        self.moves = []     # truth: [start, end, mode]
        self.count = 0

    def emit(self, t, p):
        r = self.rng
        acc = r.choice((5, 6, 8, 10, 12, 15, 18, 20, 25, 30))
        if r.random() < 1 / 400:
            ang, d = r.uniform(0, 2 * math.pi), r.uniform(300, 1500)
            p = offset(p, d * math.cos(ang), d * math.sin(ang))
            acc = r.randint(150, 800) if r.random() < 0.7 else r.randint(20, 40)
        else:
            p = offset(p, r.gauss(0, acc / 2), r.gauss(0, acc / 2))
        stamp = time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(int(t)))
        self.out.write(f'{p[0]:.6f},{p[1]:.6f},{stamp},{acc}\n')
        self.count += 1

    def span(self, t1, where, off=None):
        """Fixes from self.t to t1; where(t) is the true position; off = (a, b): no fixes then."""
        while self.next_fix < t1:
            if not (off and off[0] <= self.next_fix < off[1]):
                self.emit(self.next_fix, where(self.next_fix))
            self.next_fix += self.rng.uniform(FIX_MIN, FIX_MAX)
        self.t = t1

    def stay_until(self, t1, label, off=None):
        if t1 <= self.t:
            return
        p = self.pos
        if self.stays and self.stays[-1][4] == label and self.stays[-1][1] == self.t:
            self.stays[-1][1] = t1
        else:
            self.stays.append([self.t, t1, p[0], p[1], label])
        self.span(t1, lambda _t: p, off)

    def stay_for(self, seconds, label):
        self.stay_until(self.t + seconds, label)

    def move(self, dest, kmh, curvy=0.12, silent=False):
        a = self.pos
        d = dist_m(a, dest)
        side = self.rng.uniform(-curvy, curvy) * d
        brg = math.atan2(dest[1] - a[1], dest[0] - a[0])
        mid = offset(((a[0] + dest[0]) / 2, (a[1] + dest[1]) / 2), side * -math.sin(brg), side * math.cos(brg))
        legs = [(a, mid), (mid, dest)]
        via = city_roads(a, dest) if 8 <= kmh < 160 else []
        if via:
            path = [a] + via + [dest]
            legs = list(zip(path, path[1:]))
        lens = [dist_m(*leg) for leg in legs]
        total = sum(lens) or 1.0
        dur = total / (kmh / 3.6)
        t0 = self.t

        def where(t):
            s = min(max((t - t0) / dur, 0.0), 1.0) * total
            for i, ((p, q), ln) in enumerate(zip(legs, lens)):
                if s <= ln or i == len(legs) - 1:
                    f = s / ln if ln else 1.0
                    return (p[0] + (q[0] - p[0]) * f, p[1] + (q[1] - p[1]) * f)
                s -= ln
        self.span(t0 + dur, where, off=(t0, t0 + dur) if silent else None)
        self.pos = dest
        self.moves.append([t0, t0 + dur, 'walk' if kmh < 8 else 'road' if kmh < 160 else 'rail' if kmh < 300 else 'flight'])

    def at(self, day0, hours):
        return day0 + hours * 3600


def generate(csv_path, truth_path):
    rng = random.Random(SEED)
    tmp = csv_path + '.part'
    with open(tmp, 'w') as out:
        out.write('lat,lon,timestamp,accuracy\n')
        g = Gen(out, rng)
        start = datetime(YEAR, 1, 1, tzinfo=timezone.utc).timestamp()
        days = 366
        trip_days = set()
        trips = {}
        for i, first in enumerate((40, 110, 165, 230, 300)):
            nights = rng.randint(2, 4)
            trips[first] = (i, nights)
            trip_days.update(range(first, first + nights + 1))
        d = 0
        while d < days:
            day0 = start + d * 86400
            wd = datetime.fromtimestamp(day0, timezone.utc).weekday()
            if d in trips:
                i, nights = trips[d]
                trip(g, rng, day0, i, nights)
                d += nights + 1
                continue
            if wd < 5:
                weekday(g, rng, day0)
            else:
                weekend(g, rng, day0, wd)
            night_home(g, rng, day0)
            d += 1
    os.replace(tmp, csv_path)
    with open(truth_path, 'w') as f:
        json.dump({'fixes': g.count, 'stays': g.stays, 'moves': g.moves}, f)


def night_home(g, rng, day0):
    """Home from now until tomorrow morning's departure (set by the next day); the phone off some nights."""
    end = day0 + 86400 + 6 * 3600   # at least till 06:00 tomorrow; the next day extends the stay
    off = (day0 + 23 * 3600, day0 + 86400 + 6 * 3600) if rng.random() < 0.125 else None
    g.stay_until(end, 'home', off)


def weekday(g, rng, day0):
    g.stay_until(g.at(day0, 7.5 + rng.uniform(-0.3, 0.4)), 'home')
    g.move(WORK, rng.uniform(25, 35))
    g.stay_until(g.at(day0, 12.3 + rng.uniform(0, 0.4)), 'work')
    g.move(rng.choice(CAFES), 4.8, 0.2)
    g.stay_for(rng.uniform(30, 50) * 60, 'cafe')
    g.move(WORK, 4.8, 0.2)
    g.stay_until(g.at(day0, 17.3 + rng.uniform(0, 0.7)), 'work')
    r = rng.random()
    if r < 0.35:
        place = rng.choice(EVENING)
        g.move(place, rng.uniform(22, 32))
        g.stay_for(rng.uniform(1.5, 3.0) * 3600, 'evening')
    elif r < 0.6:
        g.move(rng.choice(SHOPS), rng.uniform(25, 35))
        g.stay_for(rng.uniform(6, 8) * 60, 'shop')
    g.move(HOME, rng.uniform(25, 35))


def weekend(g, rng, day0, wd):
    g.stay_until(g.at(day0, rng.uniform(9.0, 11.0)), 'home')
    if wd == 5:
        g.move(MARKET, 4.8, 0.2)
        g.stay_for(rng.uniform(30, 60) * 60, 'market')
        g.move(HOME, 4.8, 0.2)
        g.stay_for(rng.uniform(2, 4) * 3600, 'home')
        if rng.random() < 0.5:
            g.move(rng.choice(EVENING), rng.uniform(22, 32))
            g.stay_for(rng.uniform(2, 3.5) * 3600, 'evening')
            g.move(HOME, rng.uniform(22, 32))
    else:
        place = rng.choice(OUTINGS)
        g.move(place, rng.uniform(30, 45))
        g.stay_for(rng.uniform(1.5, 3.0) * 3600, 'park')
        g.move(offset(place, rng.uniform(500, 900), rng.uniform(-400, 400)), 4.5, 0.25)
        g.stay_for(rng.uniform(60, 90) * 60, 'restaurant')
        g.move(HOME, rng.uniform(30, 45))


def trip(g, rng, day0, i, nights):
    g.stay_until(g.at(day0, 8 + rng.uniform(0, 1)), 'home')
    if i in (1, 3):       # by air, the phone off in flight
        dest = AIR_TRIPS[i // 2 % 2]
        g.move(AIRPORT, rng.uniform(45, 60))
        g.stay_for(rng.uniform(80, 110) * 60, 'airport')
        g.move(dest, 800, 0.02, silent=True)
        arr_airport = g.pos
        g.stay_for(rng.uniform(25, 40) * 60, 'airport-arrival')
        hotel = offset(dest, rng.uniform(-3000, 3000), rng.uniform(-3000, 3000))
        g.move(hotel, 35)
        back = lambda: (g.move(arr_airport, 35), g.stay_for(rng.uniform(90, 120) * 60, 'airport'),
                        g.move(AIRPORT, 800, 0.02, silent=True), g.stay_for(rng.uniform(20, 35) * 60, 'airport-arrival'),
                        g.move(HOME, rng.uniform(45, 60)))
    else:
        dest, mode = ROAD_TRIPS[(i // 2) % len(ROAD_TRIPS)]
        kmh = 180 if mode == 'rail' else 95
        half = offset(((HOME[0] + dest[0]) / 2, (HOME[1] + dest[1]) / 2), 3000, 0)
        g.move(half, kmh, 0.05)
        g.stay_for(rng.uniform(20, 35) * 60, 'services')
        hotel = offset(dest, rng.uniform(-2000, 2000), rng.uniform(-2000, 2000))
        g.move(hotel, kmh, 0.05)
        back = lambda: (g.move(HOME, kmh, 0.05),)
    for n in range(nights):
        night_end = day0 + (n + 1) * 86400 + rng.uniform(8.5, 10) * 3600
        if n == 0:
            g.stay_until(max(g.t + 3600, g.at(day0, 18.0)), 'hotel')
            g.move(offset(hotel, rng.uniform(-1500, 1500), rng.uniform(-1500, 1500)), 4.5, 0.25)
            g.stay_for(rng.uniform(60, 120) * 60, 'dinner')
            g.move(hotel, 4.5, 0.25)
        g.stay_until(night_end, 'hotel')
        if n < nights - 1:
            for _ in range(3):
                g.move(offset(hotel, rng.uniform(-2500, 2500), rng.uniform(-2500, 2500)), 4.5, 0.25)
                g.stay_for(rng.uniform(45, 150) * 60, 'sight')
            g.move(hotel, 4.5, 0.25)
    back()


# ---------------------------------------------------------------- trackintel, in the venv's python

def ti_worker(csv_path, out_path):
    import warnings
    warnings.filterwarnings('ignore')
    t0 = time.perf_counter()
    import pandas as pd
    import geopandas as gpd
    import trackintel as ti
    stages = {'import': time.perf_counter() - t0}
    t = t0 = time.perf_counter()     # the pipeline is timed from reading the CSV; Python's imports apart
    df = pd.read_csv(csv_path)
    df = df[df['accuracy'] <= 50]
    df = df.rename(columns={'timestamp': 'tracked_at'})
    df['tracked_at'] = pd.to_datetime(df['tracked_at'], utc=True)
    df['user_id'] = 0
    df['geom'] = gpd.points_from_xy(df['lon'], df['lat'])
    df = df.drop(columns=['lat', 'lon']).reset_index(drop=True)
    pfs = ti.io.read_positionfixes_gpd(df, geom_col='geom', crs='EPSG:4326')
    stages['read'] = time.perf_counter() - t
    t = time.perf_counter()
    pfs, sp = pfs.generate_staypoints(method='sliding', dist_threshold=100, time_threshold=5.0,
                                      gap_threshold=GAP_MIN, include_last=True)
    stages['staypoints'] = time.perf_counter() - t
    t = time.perf_counter()
    pfs, tpls = pfs.generate_triplegs(sp, method='between_staypoints', gap_threshold=15)
    stages['triplegs'] = time.perf_counter() - t
    t = time.perf_counter()
    tpls = tpls.predict_transport_mode(method='simple-coarse')
    stages['modes'] = time.perf_counter() - t
    t = time.perf_counter()
    sp, locs = sp.generate_locations(method='dbscan', epsilon=100, num_samples=1, distance_metric='haversine',
                                     agg_level='user')
    stages['locations'] = time.perf_counter() - t
    t = time.perf_counter()
    sp = sp.create_activity_flag(method='time_threshold', time_threshold=10.0)
    sp, tpls, trips = ti.preprocessing.generate_trips(sp, tpls, gap_threshold=15, add_geometry=False)
    stages['trips'] = time.perf_counter() - t
    stages['total'] = time.perf_counter() - t0
    out = {'stages': stages, 'fixes': int(len(pfs)), 'staypoints': int(len(sp)), 'triplegs': int(len(tpls)),
           'trips': int(len(trips)), 'locations': int(len(locs)),
           'modes': {str(k): int(v) for k, v in tpls['mode'].value_counts().items()},
           'stays': [[a.timestamp(), b.timestamp(), g.y, g.x]
                     for a, b, g in zip(sp['started_at'], sp['finished_at'], sp.geometry)]}
    with open(out_path, 'w') as f:
        json.dump(out, f)


GAP_MIN = 720   # trackintel's gap_threshold for staypoints: 12 h, so a night with the phone off stays one staypoint


# ---------------------------------------------------------------- Roqua

def run(cmd, env):
    t = time.perf_counter()
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    dt = time.perf_counter() - t
    if p.returncode != 0:
        sys.exit(f'failed ({p.returncode}): {" ".join(cmd)}\n{p.stderr[-2000:]}')
    return dt, p.stdout


def parse_time(s):
    return datetime.fromisoformat(s.replace('Z', '+00:00')).timestamp()


def roqua_once(roqua, boundaries, csv_path, work):
    store = os.path.join(work, 'roqua.sqlite')
    for suffix in ('', '-wal', '-shm'):
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    env = dict(os.environ, ROQUA_BOUNDARIES=boundaries)
    common = ['--store', store, '--boundaries', boundaries]
    t_imp, _ = run([roqua, 'track', 'import', csv_path] + common, env)
    t_tl, tl = run([roqua, 'timeline', f'{YEAR}-01-01', '--to', f'{YEAR}-12-31', '--time-zone', 'UTC', '--json'] + common, env)
    t_tr, tr = run([roqua, 'trips', '--json', '--time-zone', 'UTC'] + common, env)
    return {'import': t_imp, 'timeline': t_tl, 'trips': t_tr}, tl, tr


def roqua_entries(text):
    doc = json.loads(text)
    docs = doc if isinstance(doc, list) else doc.get('days', [doc]) if isinstance(doc, dict) else []
    seen, stays, moves = set(), [], []
    for d in docs:
        for e in d.get('entries', []):
            key = (e['type'], e['start'], e['end'])
            if key in seen:
                continue
            seen.add(key)
            if e['type'] == 'stay':
                stays.append([parse_time(e['start']), parse_time(e['end']), e['lat'], e['lon'], e.get('label')])
            else:
                moves.append(e)
    stays.sort()
    return stays, moves


# ---------------------------------------------------------------- matching

def match(a, b, min_a=0, min_b=0):
    """One-to-one greedy by overlap: a and b are [start, end, lat, lon, …]; pairs overlapping > 50 % of the
    shorter, centres < 200 m apart. Returns [(i, j)]."""
    A = [(i, s) for i, s in enumerate(a) if s[1] - s[0] >= min_a]
    B = [(j, s) for j, s in enumerate(b) if s[1] - s[0] >= min_b]
    starts = [s[0] for _, s in B]
    maxlen = max((s[1] - s[0] for _, s in B), default=0)
    cands = []
    for i, x in A:
        k = bisect.bisect_left(starts, x[0] - maxlen)
        while k < len(B) and starts[k] < x[1]:
            j, y = B[k]
            k += 1
            ov = min(x[1], y[1]) - max(x[0], y[0])
            if ov <= 0 or ov <= 0.5 * min(x[1] - x[0], y[1] - y[0]):
                continue
            if dist_m((x[2], x[3]), (y[2], y[3])) >= 200:
                continue
            cands.append((ov, i, j))
    cands.sort(reverse=True)
    used_a, used_b, pairs = set(), set(), []
    for _, i, j in cands:
        if i not in used_a and j not in used_b:
            used_a.add(i); used_b.add(j); pairs.append((i, j))
    return pairs


def fmt_t(t):
    return time.strftime('%Y-%m-%d %H:%M', time.gmtime(t))


def med(xs):
    return statistics.median(xs) if xs else float('nan')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('roqua'); ap.add_argument('boundaries'); ap.add_argument('workdir')
    ap.add_argument('--runs', type=int, default=3)
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--ti-python', default=os.path.join(here, '..', '..', '.build-bench', 'trackintel', 'bin', 'python'))
    args = ap.parse_args()
    os.makedirs(args.workdir, exist_ok=True)
    csv_path = os.path.join(args.workdir, 'year.csv')
    truth_path = os.path.join(args.workdir, 'truth.json')
    if not (os.path.exists(csv_path) and os.path.exists(truth_path)):
        t = time.perf_counter()
        generate(csv_path, truth_path)
        print(f'wrote {csv_path} in {time.perf_counter() - t:.1f} s', flush=True)
    truth = json.load(open(truth_path))
    print(f'fixes: {truth["fixes"]}; load average before: {os.getloadavg()[0]:.2f}', flush=True)

    r_times, t_times = [], []
    tl = tr = None
    ti = None
    ti_out = os.path.join(args.workdir, 'trackintel.json')
    for n in range(args.runs):
        rt, tl, tr = roqua_once(args.roqua, args.boundaries, csv_path, args.workdir)
        r_times.append(rt)
        run([args.ti_python, os.path.abspath(__file__), '--ti-worker', csv_path, ti_out], dict(os.environ))
        ti = json.load(open(ti_out))
        t_times.append(ti['stages'])
        print(f'run {n + 1}: roqua {sum(rt.values()):.2f} s ({", ".join(f"{k} {v:.2f}" for k, v in rt.items())}); '
              f'trackintel {ti["stages"]["total"]:.2f} s', flush=True)
    with open(os.path.join(args.workdir, 'roqua-timeline.json'), 'w') as f:
        f.write(tl)
    with open(os.path.join(args.workdir, 'roqua-trips.json'), 'w') as f:
        f.write(tr)

    rm = {k: med([r[k] for r in r_times]) for k in r_times[0]}
    r_total = med([sum(r.values()) for r in r_times])
    tm = {k: med([r[k] for r in t_times]) for k in t_times[0]}
    print(f'\n## Speed (median of {args.runs} runs; load average after: {os.getloadavg()[0]:.2f})\n')
    print('| | seconds |\n| --- | ---: |')
    print(f'| fixes in the CSV | {truth["fixes"]} |')
    print(f'| Roqua `track import` | {rm["import"]:.2f} |')
    print(f'| Roqua `timeline` (the year) + `trips` | {rm["timeline"] + rm["trips"]:.2f} ({rm["timeline"]:.2f} + {rm["trips"]:.2f}) |')
    print(f'| **Roqua total** | **{r_total:.2f}** |')
    for k in ('read', 'staypoints', 'triplegs', 'modes', 'locations', 'trips'):
        print(f'| trackintel {k if k != "import" else "Python imports"} | {tm[k]:.2f} |')
    print(f'| **trackintel total** (read … trips) | **{tm["total"]:.2f}** |')
    print(f'| trackintel Python imports (not in the total) | {tm["import"]:.2f} |')
    print(f'| trackintel ÷ Roqua | {tm["total"] / r_total:.1f}× |')

    r_stays, r_moves = roqua_entries(tl)
    t_stays = sorted(ti['stays'])
    tr_stays = truth['stays']
    modes = {}
    for m in r_moves:
        modes[m.get('mode')] = modes.get(m.get('mode'), 0) + 1
    print(f'\nRoqua: {len(r_stays)} stays, {len(r_moves)} moves {modes}; trips: {len(json.loads(tr))}')
    print(f'trackintel: {ti["staypoints"]} staypoints, {ti["triplegs"]} triplegs {ti["modes"]}, '
          f'{ti["locations"]} locations, {ti["trips"]} trips')

    R = [s for s in r_stays if s[1] - s[0] >= MIN_STAY]
    T = [s for s in t_stays if s[1] - s[0] >= MIN_STAY]
    pairs = match(R, T)
    ds = [(T[j][0] - R[i][0]) / 60 for i, j in pairs]
    de = [(T[j][1] - R[i][1]) / 60 for i, j in pairs]
    print('\n## Agreement: stays of ≥ 10 min\n')
    print('| Roqua stays | trackintel staypoints | matched | Roqua only | trackintel only | median start diff (min, ti − Roqua) | median end diff |')
    print('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    print(f'| {len(R)} | {len(T)} | {len(pairs)} | {len(R) - len(pairs)} | {len(T) - len(pairs)} | {med(ds):+.1f} | {med(de):+.1f} |')
    print(f'median |start diff| {med([abs(x) for x in ds]):.1f} min, |end diff| {med([abs(x) for x in de]):.1f} min')

    print('\n## Against the truth (stays of ≥ 10 min)\n')
    print('Recall: truth stays ≥ 10 min matched by a tool stay; precision: tool stays ≥ 10 min matched to a true stay '
          '(one to one, the same rule). Errors are tool − truth, minutes.\n')
    print('| | truth stays | tool stays | matched | recall | precision | median arrival error | median departure error | median abs arrival | median abs departure |')
    print('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
    TR = [s for s in tr_stays if s[1] - s[0] >= MIN_STAY]
    details = {}
    for name, S in (('Roqua', r_stays), ('trackintel', t_stays)):
        S10 = [s for s in S if s[1] - s[0] >= MIN_STAY]
        pr = match(TR, S)                          # recall: truth ≥ 10 against any tool stay
        pp = match(S10, tr_stays)                  # precision: tool ≥ 10 against any true stay
        arr = [(S[j][0] - TR[i][0]) / 60 for i, j in pr]
        dep = [(S[j][1] - TR[i][1]) / 60 for i, j in pr]
        print(f'| {name} | {len(TR)} | {len(S10)} | {len(pr)} | {len(pr) / len(TR):.1%} | {len(pp) / max(1, len(S10)):.1%} | '
              f'{med(arr):+.1f} | {med(dep):+.1f} | {med([abs(x) for x in arr]):.1f} | {med([abs(x) for x in dep]):.1f} |')
        missed = [TR[i] for i in sorted(set(range(len(TR))) - {i for i, _ in pr})]
        false = [S10[i] for i in sorted(set(range(len(S10))) - {i for i, _ in pp})]
        details[name] = (missed, false)

    print('\n## Modes against the truth (hours of true moves, by the mode Roqua gave that time)\n')
    mode_names = ('walk', 'cycle', 'road', 'rail', 'boat', 'flight', 'unknown')
    rm_sorted = sorted((parse_time(m['start']), parse_time(m['end']), m['mode']) for m in r_moves)
    r_starts = [m[0] for m in rm_sorted]
    r_longest = max((m[1] - m[0] for m in rm_sorted), default=0)
    confusion = {}
    wrong = []
    for t0, t1, mode in truth.get('moves', []):
        row = confusion.setdefault(mode, {})
        covered = 0.0
        k = bisect.bisect_left(r_starts, t0 - r_longest)
        while k < len(rm_sorted) and rm_sorted[k][0] < t1:
            a, b, got = rm_sorted[k]
            k += 1
            ov = min(b, t1) - max(a, t0)
            if ov > 0:
                row[got] = row.get(got, 0.0) + ov
                covered += ov
                if got != mode and ov >= 300:
                    wrong.append((max(a, t0), min(b, t1), mode, got))
        row['(no move)'] = row.get('(no move)', 0.0) + max(0.0, (t1 - t0) - covered)
    cols = [c for c in mode_names + ('(no move)',) if any(c in r for r in confusion.values())]
    print('| truth \\ Roqua | ' + ' | '.join(cols) + ' | agreement |')
    print('| --- | ' + ' | '.join('---:' for _ in cols) + ' | ---: |')
    for mode, row in sorted(confusion.items()):
        total = sum(row.values())
        print(f'| {mode} | ' + ' | '.join(f'{row.get(c, 0) / 3600:.1f}' for c in cols) + f' | {row.get(mode, 0) / max(total, 1):.1%} |')
    print(f'\nstretches of ≥ 5 min given another mode: {len(wrong)}')
    for a, b, mode, got in wrong[:: max(1, len(wrong) // 6)][:6]:
        print(f'  {fmt_t(a)}–{fmt_t(b)[11:]} ({(b - a) / 60:.0f} min) truth {mode}, Roqua {got}')

    def near(stays, s):
        return [x for x in stays if x[1] > s[0] - 1800 and x[0] < s[1] + 1800]

    def show(s):
        return f'{fmt_t(s[0])}–{fmt_t(s[1])[11:]} ({(s[1] - s[0]) / 60:.0f} min) {s[2]:.4f},{s[3]:.4f}' + (f' {s[4]}' if len(s) > 4 and s[4] else '')

    print('\n## Disagreements (3 of each kind, with the truth around them)\n')
    mr = {i for i, _ in pairs}
    mt = {j for _, j in pairs}
    ronly = [R[i] for i in range(len(R)) if i not in mr]
    tonly = [T[j] for j in range(len(T)) if j not in mt]
    for title, items in (('Roqua only', ronly), ('trackintel only', tonly)):
        print(f'{title}: {len(items)}')
        step = max(1, len(items) // 3)
        for s in items[::step][:3]:
            print(f'  {show(s)}')
            for x in near(tr_stays, s):
                print(f'     truth      {show(x)}')
            for x in near(r_stays, s):
                print(f'     Roqua      {show(x)}')
            for x in near(t_stays, s):
                print(f'     trackintel {show(x)}')
    for name, (missed, false) in details.items():
        print(f'{name}: missed true stays ≥ 10 min: {len(missed)}; stays ≥ 10 min matching no true stay: {len(false)}')
        for s in missed[:: max(1, len(missed) // 3)][:3]:
            print(f'  missed {show(s)}')
        for s in false[:: max(1, len(false) // 3)][:3]:
            print(f'  false  {show(s)}')


if __name__ == '__main__':
    if len(sys.argv) == 4 and sys.argv[1] == '--ti-worker':
        ti_worker(sys.argv[2], sys.argv[3])
    else:
        main()
