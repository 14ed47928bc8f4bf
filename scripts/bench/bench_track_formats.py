#!/usr/bin/env python3
"""Peak memory and speed of every track reader: one seeded walk through İstanbul (5 m / 5 s
steps; 500,000 fixes unless told) written in each format Roqua reads (plus .gz and .zip of the
GPX, and a Records.json with a 60 MB member the reader must skip), each imported by the release
binary into a fresh store RUNS times (3 unless told); prints the median time, fixes/s, the peak
RSS per format, and its target where there is one (≥ 1 M fixes/s for CSV, FIT and
Records.json; ≥ 500 k/s for GPX, KML, TCX, GeoJSON and Timeline.json; peak RSS ≤ 200 MB) with
whether the run met it. Files already written for the same FIXES are reused.

With --traveller, the history is instead six years of a person who lands in many regions
(`traveller`: ~20,000 from 2,000,000 fixes), and only the formats with a 1 M fixes/s target
are written and timed (CSV, FIT, Records.json): where the importer's cost per new region shows.

Usage: bench_track_formats.py ROQUA OUT_DIR [FIXES [RUNS]] [--traveller]"""
import gzip, json, math, os, random, sqlite3, statistics, struct, subprocess, sys, zipfile

FIT_EPOCH = 631065600


def walk(n):
    random.seed(11)
    lat, lon, heading = 41.0, 28.95, 0.0
    for i in range(n):
        heading += random.gauss(0, 0.15)
        lat += 0.000045 * math.cos(heading)
        lon += 0.00006 * math.sin(heading)
        if not (40.95 < lat < 41.15 and 28.7 < lon < 29.25):
            heading += math.pi
        yield lat, lon, 1714550400 + i * 5, random.choice([5, 8, 12, 20, 70])


# Places for the traveller: İstanbul's districts, Marmara's towns and cities abroad.
PLACES = [(41.0054, 28.9768), (41.0370, 28.9850), (41.0430, 29.0090), (41.0260, 29.0160), (40.9810, 29.0580),
          (41.0690, 29.0430), (40.9600, 29.1100), (41.0130, 28.9490), (40.9930, 28.8700), (41.1060, 29.0560),
          (40.7650, 29.9400), (40.1830, 29.0600), (40.1550, 26.4140), (41.6770, 26.5550), (40.6550, 29.2750),
          (40.7400, 30.3300), (40.1390, 29.9790), (41.0020, 28.2200), (40.4080, 27.8090), (39.6480, 27.8830),
          (48.8566, 2.3522), (51.5074, -0.1278), (52.5200, 13.4050), (41.9028, 12.4964), (40.4168, -3.7038),
          (35.6762, 139.6503), (40.7128, -74.0060), (25.2048, 55.2708), (55.7558, 37.6173), (-33.9249, 18.4241),
          (37.9838, 23.7275), (50.0755, 14.4378), (59.3293, 18.0686), (13.7563, 100.5018), (-22.9068, -43.1729)]


def traveller(n):
    """Six years from 2019 of one fix a minute, 15 waking hours a day: most days the same
    rounds between home, work and a few haunts (a few metres of noise: revisits), one day in
    28 a long walk (60 km) from a random start somewhere in one of PLACES (new regions)."""
    random.seed(23)
    home, work = (40.9900, 29.0290), (41.0790, 29.0110)
    haunts = [(home[0] + random.uniform(-0.03, 0.03), home[1] + random.uniform(-0.03, 0.03)) for _ in range(12)]
    made, day = 0, 0
    while made < n:
        t = 1546300800 + day * 86400 + 7 * 3600
        if random.random() < 1 / 28:
            centre = random.choice(PLACES)
            lat, lon = centre[0] + random.uniform(-0.1, 0.1), centre[1] + random.uniform(-0.1, 0.1)
            heading = random.uniform(0, 2 * math.pi)
            route = None
        else:
            route = [home, work, random.choice(haunts), home] if day % 7 < 5 else [home, random.choice(haunts), home]
        for k in range(900):
            if made >= n:
                return
            if route is None:
                heading += random.gauss(0, 0.3)
                lat += 0.0006 * math.cos(heading)
                lon += 0.0008 * math.sin(heading)
                yield lat, lon, t + k * 60, random.choice([5, 8, 12, 20])
            else:
                f = k / 900 * (len(route) - 1)
                a, b = route[int(f)], route[min(int(f) + 1, len(route) - 1)]
                w = f - int(f)
                yield (a[0] + (b[0] - a[0]) * w + random.gauss(0, 0.00005), a[1] + (b[1] - a[1]) * w + random.gauss(0, 0.00005),
                       t + k * 60, random.choice([5, 8, 12, 20]))
            made += 1
        day += 1


def iso(t):
    import time
    return time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(t))


def fit_crc(data, crc=0):
    table = [0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
             0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400]
    for byte in data:
        for nibble in (byte & 0xF, byte >> 4):
            tmp = table[crc & 0xF]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ table[nibble]
    return crc


FILES = ['walk.gpx', 'walk.csv', 'walk.geojson', 'overland.json', 'Records.json', 'Timeline.json', 'location-history.json',
         '2024_MAY.json', 'walk.kml', 'walk.tcx', 'walk.rec', 'walk.fit', 'walk.gpx.gz', 'export.zip']


def write_all(out, n, points, names):
    files = {}
    def path(name):
        files[name] = os.path.join(out, name)
        return files[name]
    points = list(points)
    if 'walk.gpx' in names:
        with open(path('walk.gpx'), 'w') as f:
            f.write('<?xml version="1.0"?>\n<gpx version="1.1" creator="bench"><trk><trkseg>\n')
            for lat, lon, t, acc in points:
                f.write(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{iso(t)}</time>'
                        f'<extensions><hAcc>{acc}</hAcc></extensions></trkpt>\n')
            f.write('</trkseg></trk></gpx>\n')
    if 'walk.csv' in names:
        with open(path('walk.csv'), 'w') as f:
            f.write('lat,lon,timestamp,accuracy\n')
            f.writelines(f'{lat:.7f},{lon:.7f},{t},{acc}\n' for lat, lon, t, acc in points)
    if 'walk.geojson' in names:
        with open(path('walk.geojson'), 'w') as f:
            f.write('{"type": "FeatureCollection", "features": [\n')
            f.write(',\n'.join(json.dumps({'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [round(lon, 7), round(lat, 7)]},
                                           'properties': {'time': iso(t), 'accuracy': acc}}) for lat, lon, t, acc in points))
            f.write('\n]}\n')
    if 'overland.json' in names:
        with open(path('overland.json'), 'w') as f:
            f.write('{"locations": [\n')
            f.write(',\n'.join(json.dumps({'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [round(lon, 7), round(lat, 7)]},
                                           'properties': {'timestamp': iso(t), 'horizontal_accuracy': acc}}) for lat, lon, t, acc in points))
            f.write('\n]}\n')
    if 'Records.json' in names:
        skipped = json.dumps([{'a': [i, {'b': 'x' * 20}]} for i in range(1_200_000)])  # ~60 MB the reader must skip
        with open(path('Records.json'), 'w') as f:
            f.write('{"deviceSettings": ' + skipped + ',\n"locations": [\n')
            f.write(',\n'.join(json.dumps({'latitudeE7': round(lat * 1e7), 'longitudeE7': round(lon * 1e7),
                                           'timestampMs': str(t * 1000), 'accuracy': acc}) for lat, lon, t, acc in points))
            f.write('\n]}\n')
    if 'Timeline.json' in names:
        with open(path('Timeline.json'), 'w') as f:
            f.write('{"rawSignals": [\n')
            f.write(',\n'.join(json.dumps({'position': {'LatLng': f'{lat:.7f}°, {lon:.7f}°', 'accuracyMeters': acc,
                                                        'timestamp': iso(t)}}) for lat, lon, t, acc in points))
            f.write('\n]}\n')
    if 'location-history.json' in names:
        with open(path('location-history.json'), 'w') as f:  # iOS: paths of 60 points with minute offsets
            segments = []
            for k in range(0, n, 60):
                chunk = points[k:k + 60]
                start = chunk[0][2]
                segments.append(json.dumps({'startTime': iso(start), 'endTime': iso(chunk[-1][2]),
                                            'timelinePath': [{'point': f'geo:{lat:.7f},{lon:.7f}',
                                                              'durationMinutesOffsetFromStartTime': str((t - start) // 60)}
                                                             for lat, lon, t, _ in chunk]}))
            f.write('[\n' + ',\n'.join(segments) + '\n]\n')
    if '2024_MAY.json' in names:
        with open(path('2024_MAY.json'), 'w') as f:  # Semantic Location History: raw paths of 60 points
            objects = []
            for k in range(0, n, 60):
                chunk = points[k:k + 60]
                objects.append(json.dumps({'activitySegment': {
                    'duration': {'startTimestampMs': str(chunk[0][2] * 1000), 'endTimestampMs': str(chunk[-1][2] * 1000)},
                    'simplifiedRawPath': {'points': [{'latE7': round(lat * 1e7), 'lngE7': round(lon * 1e7),
                                                      'timestampMs': str(t * 1000), 'accuracyMeters': acc}
                                                     for lat, lon, t, acc in chunk]}}}))
            f.write('{"timelineObjects": [\n' + ',\n'.join(objects) + '\n]}\n')
    if 'walk.kml' in names:
        with open(path('walk.kml'), 'w') as f:
            f.write('<?xml version="1.0"?>\n<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">'
                    '<Document><Placemark><gx:Track>\n')
            for lat, lon, t, _ in points:
                f.write(f'<when>{iso(t)}</when><gx:coord>{lon:.7f} {lat:.7f} 0</gx:coord>\n')
            f.write('</gx:Track></Placemark></Document></kml>\n')
    if 'walk.tcx' in names:
        with open(path('walk.tcx'), 'w') as f:
            f.write('<?xml version="1.0"?>\n<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">'
                    '<Activities><Activity Sport="Running"><Lap><Track>\n')
            for lat, lon, t, _ in points:
                f.write(f'<Trackpoint><Time>{iso(t)}</Time><Position><LatitudeDegrees>{lat:.7f}</LatitudeDegrees>'
                        f'<LongitudeDegrees>{lon:.7f}</LongitudeDegrees></Position></Trackpoint>\n')
            f.write('</Track></Lap></Activity></Activities></TrainingCenterDatabase>\n')
    if 'walk.rec' in names:
        with open(path('walk.rec'), 'w') as f:
            for lat, lon, t, acc in points:
                f.write(f'{iso(t)}\t*                 \t' + json.dumps({'_type': 'location', 'lat': round(lat, 7), 'lon': round(lon, 7),
                                                                        'tst': t, 'acc': acc}) + '\n')
    if 'walk.fit' in names:
        data = bytearray([0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85])
        for lat, lon, t, _ in points:
            data += bytes([0]) + struct.pack('<Iii', t - FIT_EPOCH, round(lat / 180 * 2**31), round(lon / 180 * 2**31))
        header = bytes([12, 0x20, 0x5C, 0x08]) + struct.pack('<I', len(data)) + b'.FIT'
        with open(path('walk.fit'), 'wb') as f:
            f.write(header + data + struct.pack('<H', fit_crc(header + data)))
    if 'walk.gpx.gz' in names:
        with open(files['walk.gpx'], 'rb') as src, gzip.open(path('walk.gpx.gz'), 'wb') as dst:
            dst.write(src.read())
    if 'export.zip' in names:
        with zipfile.ZipFile(path('export.zip'), 'w', zipfile.ZIP_DEFLATED) as z:
            z.write(files['walk.gpx'], 'activities/walk.gpx')
    return files


TARGETS = {'walk.csv': 1_000_000, 'walk.fit': 1_000_000, 'Records.json': 1_000_000, 'walk.gpx': 500_000, 'walk.kml': 500_000,
           'walk.tcx': 500_000, 'walk.geojson': 500_000, 'Timeline.json': 500_000}
MAX_RSS_MB = 200


def run(roqua, file, store):
    for leftover in (store, store + '-wal', store + '-shm'):
        if os.path.exists(leftover):
            os.remove(leftover)
    proc = subprocess.run(['/usr/bin/time', '-f', '%e %M', roqua, 'track', 'import', file, '--store', store],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f'{file}: {proc.stderr}')
    seconds, kilobytes = proc.stderr.strip().splitlines()[-1].split()
    fixes = sum(int(w.split()[0]) for w in proc.stdout.split('): ')[1:] if w.split()[1:2] == ['fixes'])
    return float(seconds), int(kilobytes), fixes


def main():
    args = [a for a in sys.argv[1:] if a != '--traveller']
    many = '--traveller' in sys.argv[1:]
    roqua, out = args[0], args[1]
    n = int(args[2]) if len(args) > 2 else (2_000_000 if many else 500_000)
    rounds = int(args[3]) if len(args) > 3 else 3
    names = ['walk.csv', 'walk.fit', 'Records.json'] if many else FILES
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, 'written-for')
    written = f'{n} {"traveller" if many else "walk"}'
    if os.path.exists(stamp) and open(stamp).read() == written:
        files = {name: os.path.join(out, name) for name in names}
    else:
        files = write_all(out, n, traveller(n) if many else walk(n), names)
        with open(stamp, 'w') as f:
            f.write(written)
    print(f'| format (file) | size | fixes | regions | median time | fixes/s | peak RSS | target (fixes/s, RSS) | met |\n'
          f'|---|---:|---:|---:|---:|---:|---:|---|---|')
    for name, file in files.items():
        store = os.path.join(out, 'store.sqlite')
        runs = [run(roqua, file, store) for _ in range(rounds)]
        seconds = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs) / 1024
        fixes = runs[0][2]
        regions = sqlite3.connect(store).execute('SELECT COUNT(*) FROM visited_regions').fetchone()[0]
        size = os.path.getsize(file) / 1e6
        target = TARGETS.get(name)
        goal = f'≥ {target:,}, ≤ {MAX_RSS_MB} MB' if target else f'≤ {MAX_RSS_MB} MB'
        met = 'yes' if fixes / seconds >= (target or 0) and peak <= MAX_RSS_MB else 'no'
        print(f'| {name} | {size:.0f} MB | {fixes:,} | {regions:,} | {seconds:.2f} s | {fixes / seconds:,.0f} | {peak:.0f} MB | {goal} | '
              f'{met} |', flush=True)


if __name__ == '__main__':
    main()
