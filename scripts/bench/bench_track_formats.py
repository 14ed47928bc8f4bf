#!/usr/bin/env python3
"""Peak memory and speed of every track reader: one seeded walk through İstanbul (5 m / 5 s
steps; 500,000 fixes unless told) written in each format Roqua reads (plus .gz and .zip of the
GPX, and a Records.json with a 60 MB member the reader must skip), each imported by the release
binary into a fresh store RUNS times (3 unless told); prints the median time, fixes/s, the peak
RSS per format, and its target where there is one (≥ 1 M fixes/s for CSV, FIT and
Records.json; ≥ 500 k/s for GPX, KML, TCX, GeoJSON and Timeline.json; peak RSS ≤ 200 MB) with
whether the run met it. Files already written for the same FIXES are reused.

Usage: bench_track_formats.py ROQUA OUT_DIR [FIXES [RUNS]]"""
import gzip, json, math, os, random, statistics, struct, subprocess, sys, zipfile

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


def write_all(out, n):
    files = {}
    def path(name):
        files[name] = os.path.join(out, name)
        return files[name]
    points = list(walk(n))
    with open(path('walk.gpx'), 'w') as f:
        f.write('<?xml version="1.0"?>\n<gpx version="1.1" creator="bench"><trk><trkseg>\n')
        for lat, lon, t, acc in points:
            f.write(f'<trkpt lat="{lat:.7f}" lon="{lon:.7f}"><time>{iso(t)}</time>'
                    f'<extensions><hAcc>{acc}</hAcc></extensions></trkpt>\n')
        f.write('</trkseg></trk></gpx>\n')
    with open(path('walk.csv'), 'w') as f:
        f.write('lat,lon,timestamp,accuracy\n')
        f.writelines(f'{lat:.7f},{lon:.7f},{t},{acc}\n' for lat, lon, t, acc in points)
    with open(path('walk.geojson'), 'w') as f:
        f.write('{"type": "FeatureCollection", "features": [\n')
        f.write(',\n'.join(json.dumps({'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [round(lon, 7), round(lat, 7)]},
                                       'properties': {'time': iso(t), 'accuracy': acc}}) for lat, lon, t, acc in points))
        f.write('\n]}\n')
    with open(path('overland.json'), 'w') as f:
        f.write('{"locations": [\n')
        f.write(',\n'.join(json.dumps({'type': 'Feature', 'geometry': {'type': 'Point', 'coordinates': [round(lon, 7), round(lat, 7)]},
                                       'properties': {'timestamp': iso(t), 'horizontal_accuracy': acc}}) for lat, lon, t, acc in points))
        f.write('\n]}\n')
    skipped = json.dumps([{'a': [i, {'b': 'x' * 20}]} for i in range(1_200_000)])  # ~60 MB the reader must skip
    with open(path('Records.json'), 'w') as f:
        f.write('{"deviceSettings": ' + skipped + ',\n"locations": [\n')
        f.write(',\n'.join(json.dumps({'latitudeE7': round(lat * 1e7), 'longitudeE7': round(lon * 1e7),
                                       'timestampMs': str(t * 1000), 'accuracy': acc}) for lat, lon, t, acc in points))
        f.write('\n]}\n')
    with open(path('Timeline.json'), 'w') as f:
        f.write('{"rawSignals": [\n')
        f.write(',\n'.join(json.dumps({'position': {'LatLng': f'{lat:.7f}°, {lon:.7f}°', 'accuracyMeters': acc,
                                                    'timestamp': iso(t)}}) for lat, lon, t, acc in points))
        f.write('\n]}\n')
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
    with open(path('walk.kml'), 'w') as f:
        f.write('<?xml version="1.0"?>\n<kml xmlns="http://www.opengis.net/kml/2.2" xmlns:gx="http://www.google.com/kml/ext/2.2">'
                '<Document><Placemark><gx:Track>\n')
        for lat, lon, t, _ in points:
            f.write(f'<when>{iso(t)}</when><gx:coord>{lon:.7f} {lat:.7f} 0</gx:coord>\n')
        f.write('</gx:Track></Placemark></Document></kml>\n')
    with open(path('walk.tcx'), 'w') as f:
        f.write('<?xml version="1.0"?>\n<TrainingCenterDatabase xmlns="http://www.garmin.com/xmlschemas/TrainingCenterDatabase/v2">'
                '<Activities><Activity Sport="Running"><Lap><Track>\n')
        for lat, lon, t, _ in points:
            f.write(f'<Trackpoint><Time>{iso(t)}</Time><Position><LatitudeDegrees>{lat:.7f}</LatitudeDegrees>'
                    f'<LongitudeDegrees>{lon:.7f}</LongitudeDegrees></Position></Trackpoint>\n')
        f.write('</Track></Lap></Activity></Activities></TrainingCenterDatabase>\n')
    with open(path('walk.rec'), 'w') as f:
        for lat, lon, t, acc in points:
            f.write(f'{iso(t)}\t*                 \t' + json.dumps({'_type': 'location', 'lat': round(lat, 7), 'lon': round(lon, 7),
                                                                    'tst': t, 'acc': acc}) + '\n')
    data = bytearray([0x40, 0, 0, 20, 0, 3, 253, 4, 0x86, 0, 4, 0x85, 1, 4, 0x85])
    for lat, lon, t, _ in points:
        data += bytes([0]) + struct.pack('<Iii', t - FIT_EPOCH, round(lat / 180 * 2**31), round(lon / 180 * 2**31))
    header = bytes([12, 0x20, 0x5C, 0x08]) + struct.pack('<I', len(data)) + b'.FIT'
    with open(path('walk.fit'), 'wb') as f:
        f.write(header + data + struct.pack('<H', fit_crc(header + data)))
    with open(files['walk.gpx'], 'rb') as src, gzip.open(path('walk.gpx.gz'), 'wb') as dst:
        dst.write(src.read())
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
    roqua, out = sys.argv[1], sys.argv[2]
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 500_000
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    os.makedirs(out, exist_ok=True)
    stamp = os.path.join(out, 'written-for')
    if os.path.exists(stamp) and open(stamp).read() == str(n):
        files = {name: os.path.join(out, name) for name in FILES}
    else:
        files = write_all(out, n)
        with open(stamp, 'w') as f:
            f.write(str(n))
    print(f'| format (file) | size | fixes | median time | fixes/s | peak RSS | target (fixes/s, RSS) | met |\n'
          f'|---|---:|---:|---:|---:|---:|---|---|')
    for name, file in files.items():
        runs = [run(roqua, file, os.path.join(out, 'store.sqlite')) for _ in range(rounds)]
        seconds = statistics.median(r[0] for r in runs)
        peak = max(r[1] for r in runs) / 1024
        fixes = runs[0][2]
        size = os.path.getsize(file) / 1e6
        target = TARGETS.get(name)
        goal = f'≥ {target:,}, ≤ {MAX_RSS_MB} MB' if target else f'≤ {MAX_RSS_MB} MB'
        met = 'yes' if fixes / seconds >= (target or 0) and peak <= MAX_RSS_MB else 'no'
        print(f'| {name} | {size:.0f} MB | {fixes:,} | {seconds:.2f} s | {fixes / seconds:,.0f} | {peak:.0f} MB | {goal} | {met} |',
              flush=True)


if __name__ == '__main__':
    main()
