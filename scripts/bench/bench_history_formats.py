#!/usr/bin/env python3
"""Track import on a workload the readers were not tuned on: the seeded history of
bench_history.py (commutes, weekend walks and trips, flights; one fix every 15 s) written again as
the files other apps export — GPX (a track a day, a segment per hour, `<ele>`, no accuracy), KML
(a `gx:Track` a day), TCX (a lap a day, altitude and heart rate), GeoJSON (a LineString a day with
`coordTimes`) and Timeline.json (a semantic segment an hour with its `timelinePath`) — and
imported by two binaries, interleaved, RUNS rounds (3 unless told): median time, fixes/s, peak
RSS, and B's time as a share of A's. The two binaries' summaries (fixes read, dropped, regions,
firsts) must be the same. Given the same binary twice, it is run once a round. Files already
written for the same history are reused.

Usage: bench_history_formats.py ROQUA_A ROQUA_B HISTORY.json OUT_DIR [RUNS]"""
import calendar
import json
import os
import re
import statistics
import subprocess
import sys
import time

RECORD = re.compile(r'"latitudeE7": (-?\d+), "longitudeE7": (-?\d+), "accuracy": (\d+), "timestamp": "([^"]+)"')


_days = {}


def epoch(stamp):
    """Seconds since 1970 of `YYYY-MM-DDTHH:MM:SS…` (UTC), the date's part looked up once a day."""
    base = _days.get(stamp[:10])
    if base is None:
        base = _days[stamp[:10]] = calendar.timegm(time.strptime(stamp[:10], '%Y-%m-%d'))
    return base + int(stamp[11:13]) * 3600 + int(stamp[14:16]) * 60 + int(stamp[17:19])


def records(history):
    """(lat, lon, accuracy, ISO time, epoch seconds) of each record, in file order."""
    with open(history) as f:
        for line in f:
            m = RECORD.search(line)
            if m:
                stamp = m.group(4)
                yield int(m.group(1)) / 1e7, int(m.group(2)) / 1e7, int(m.group(3)), stamp, epoch(stamp)


def by_period(history, seconds):
    """Runs of records falling in the same period of `seconds` (a day, an hour)."""
    return split(records(history), seconds)


def gpx_day(runs):
    segments = ''.join('  <trkseg>\n' + ''.join(
        f'   <trkpt lat="{lat:.7f}" lon="{lon:.7f}"><ele>{12 + (lat * 1000) % 30:.1f}</ele><time>{stamp}</time></trkpt>\n'
        for lat, lon, _, stamp, _ in seg) + '  </trkseg>\n' for seg in split(runs, HOUR))
    return f' <trk><name>{runs[0][3][:10]}</name>\n{segments} </trk>\n'


def kml_day(runs):
    return (f'<Placemark><name>{runs[0][3][:10]}</name><gx:Track>\n' + ''.join(f'<when>{r[3]}</when>\n' for r in runs)
            + ''.join(f'<gx:coord>{r[1]:.7f} {r[0]:.7f} 0</gx:coord>\n' for r in runs) + '</gx:Track></Placemark>\n')


def tcx_day(runs):
    points = ''.join(f'<Trackpoint>\n <Time>{stamp}</Time>\n <Position>\n  <LatitudeDegrees>{lat:.7f}</LatitudeDegrees>\n'
                     f'  <LongitudeDegrees>{lon:.7f}</LongitudeDegrees>\n </Position>\n <AltitudeMeters>12.0</AltitudeMeters>\n'
                     f' <HeartRateBpm><Value>{70 + int(lat * 1e5) % 60}</Value></HeartRateBpm>\n</Trackpoint>\n'
                     for lat, lon, _, stamp, _ in runs)
    return f'<Activity Sport="Other"><Id>{runs[0][3]}</Id><Lap StartTime="{runs[0][3]}"><Track>\n{points}</Track></Lap></Activity>\n'


def geojson_day(runs):
    return json.dumps({'type': 'Feature', 'properties': {'name': runs[0][3][:10], 'coordTimes': [r[3] for r in runs]},
                       'geometry': {'type': 'LineString', 'coordinates': [[round(r[1], 7), round(r[0], 7)] for r in runs]}})


def timeline_hour(runs):
    return json.dumps({'startTime': runs[0][3], 'endTime': runs[-1][3],
                       'timelinePath': [{'point': f'{r[0]:.7f}°, {r[1]:.7f}°', 'time': r[3]} for r in runs]})


DAY, HOUR = 86400, 3600
# File: (head, period, one period's text, between periods, tail).
FORMATS = {
    'history.gpx': ('<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1" creator="bench" '
                    'xmlns="http://www.topografix.com/GPX/1/1">\n', DAY, gpx_day, '', '</gpx>\n'),
    'history.kml': ('<?xml version="1.0" encoding="UTF-8"?>\n<kml xmlns="http://www.opengis.net/kml/2.2" '
                    'xmlns:gx="http://www.google.com/kml/ext/2.2"><Document>\n', DAY, kml_day, '', '</Document></kml>\n'),
    'history.tcx': ('<?xml version="1.0" encoding="UTF-8"?>\n<TrainingCenterDatabase '
                    'xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2"><Activities>\n', DAY, tcx_day, '',
                    '</Activities></TrainingCenterDatabase>\n'),
    'history.geojson': ('{"type": "FeatureCollection", "features": [\n', DAY, geojson_day, ',\n', '\n]}\n'),
    'Timeline.json': ('{"semanticSegments": [\n', HOUR, timeline_hour, ',\n', '\n]}\n'),
}


def write_all(history, out):
    paths = {name: os.path.join(out, name) for name in FORMATS}
    for name, (head, period, render, between, tail) in FORMATS.items():
        with open(paths[name], 'w') as f:
            f.write(head)
            for index, runs in enumerate(by_period(history, period)):
                f.write((between if index else '') + render(runs))
            f.write(tail)
    return paths


def split(rows, seconds):
    """`rows` (records, in time order) cut where the period of `seconds` they fall in changes."""
    out, key = [], None
    for r in rows:
        k = int(r[4] // seconds)
        if out and k != key:
            yield out
            out = []
        key = k
        out.append(r)
    if out:
        yield out


def run(roqua, file, store):
    for leftover in (store, store + '-wal', store + '-shm'):
        if os.path.exists(leftover):
            os.remove(leftover)
    proc = subprocess.run(['/usr/bin/time', '-f', '%e %M', roqua, 'track', 'import', file, '--store', store, '--json'],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f'{file}: {proc.stderr}')
    seconds, kilobytes = proc.stderr.strip().splitlines()[-1].split()
    summary = json.loads(proc.stdout)['files'][0]
    kept = {k: summary.get(k) for k in ('fixes_read', 'dropped', 'new_regions', 'revisits', 'first_countries',
                                        'first_provinces', 'first_districts', 'flights')}
    return float(seconds), int(kilobytes), kept


def main():
    a, b, history, out = sys.argv[1:5]
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, 'written-for')
    key = f'{os.path.getsize(history)}'
    if os.path.exists(stamp) and open(stamp).read() == key:
        paths = {name: os.path.join(out, name) for name in FORMATS}
    else:
        paths = write_all(history, out)
        open(stamp, 'w').write(key)
    store = os.path.join(out, 'store.sqlite')
    print('| file | size | fixes | A median | B median | B ÷ A | B fixes/s | peak RSS (B) | same summary |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---|')
    for name, path in paths.items():
        times = {a: [], b: []}
        summaries = {}
        peak = 0
        for i in range(rounds):
            for binary in ((b,) if a == b else (a, b) if i % 2 == 0 else (b, a)):
                seconds, kilobytes, summary = run(binary, path, store)
                times[binary].append(seconds)
                summaries.setdefault(binary, summary)
                if binary == b:
                    peak = max(peak, kilobytes)
        ma, mb = statistics.median(times[a]), statistics.median(times[b])
        fixes = summaries[b]['fixes_read']
        print(f'| {name} | {os.path.getsize(path) / 1e6:,.0f} MB | {fixes:,} | {ma:.2f} s | {mb:.2f} s | {mb / ma:.2f} | '
              f'{fixes / mb:,.0f} | {peak / 1024:.0f} MB | {"yes" if summaries[a] == summaries[b] else "NO"} |', flush=True)


if __name__ == '__main__':
    main()
