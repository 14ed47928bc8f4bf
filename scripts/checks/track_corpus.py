#!/usr/bin/env python3
"""Real-file corpus check: for every file, the number of fixes `roqua track import` reads
against the timed-point count of an independent parser (gpxpy for GPX, fitdecode for FIT,
ElementTree for TCX and KML), plus the same files gzip-compressed and inside one ZIP archive.

Usage: track_corpus.py ROQUA FILES_DIR [--report OUT.md]
Prints one line per file and the agreement figures; exits 1 below 97 % agreement or when any
file was imported with no fix."""
import gzip, os, re, shutil, subprocess, sys, tempfile, time, zipfile
import xml.etree.ElementTree as ET

import fitdecode
import gpxpy


def local(tag):
    return tag.rsplit('}', 1)[-1]


def count_gpx(path):
    with open(path, encoding='utf-8-sig', errors='replace') as f:
        gpx = gpxpy.parse(f)
    points = [p for t in gpx.tracks for s in t.segments for p in s.points]
    points += [p for r in gpx.routes for p in r.points] + list(gpx.waypoints)
    return sum(1 for p in points if p.time is not None)


def count_tcx(path):
    n = 0
    for el in ET.parse(path).iter():
        if local(el.tag) != 'Trackpoint':
            continue
        children = {local(c.tag): c for c in el}
        pos = children.get('Position')
        if pos is None or children.get('Time') is None:
            continue
        names = {local(c.tag) for c in pos}
        if {'LatitudeDegrees', 'LongitudeDegrees'} <= names:
            n += 1
    return n


def count_kml(path):
    root = ET.parse(path).getroot()
    n = 0
    for el in root.iter():
        name = local(el.tag)
        if name == 'Track':
            whens = sum(1 for c in el if local(c.tag) == 'when')
            coords = sum(1 for c in el if local(c.tag) == 'coord')
            n += min(whens, coords)
        elif name == 'Placemark':
            stamp = span = None
            for c in el:
                if local(c.tag) == 'TimeStamp':
                    stamp = c
                elif local(c.tag) == 'TimeSpan':
                    span = c
            lists = []
            def walk(node, in_polygon):
                for c in node:
                    tag = local(c.tag)
                    if tag == 'Track':
                        continue
                    if tag == 'coordinates' and not in_polygon:
                        lists.append(len((c.text or '').split()))
                    walk(c, in_polygon or tag == 'Polygon')
            walk(el, False)
            if stamp is not None:
                n += sum(lists)
            elif span is not None:
                ends = [local(c.tag) for c in span if local(c.tag) in ('begin', 'end') and (c.text or '').strip()]
                for k in lists:
                    if k == 1:
                        n += 1 if len(ends) < 2 else 2  # a Point at begin and at end
                    elif k > 1:
                        n += min(2, len(ends)) if ends else 0
    return n


def count_fit(path):
    n = 0
    with fitdecode.FitReader(path) as reader:
        for frame in reader:
            if isinstance(frame, fitdecode.FitDataMessage) and frame.name == 'record':
                lat = frame.get_value('position_lat', fallback=None)
                lon = frame.get_value('position_long', fallback=None)
                ts = frame.get_value('timestamp', fallback=None)
                if lat is not None and lon is not None and ts is not None:
                    n += 1
    return n


COUNTERS = {'.gpx': count_gpx, '.tcx': count_tcx, '.kml': count_kml, '.fit': count_fit}


def oracle(path):
    try:
        return COUNTERS[os.path.splitext(path)[1].lower()](path), None
    except Exception as error:  # the oracle refusing a file is a result, not a crash
        return None, f'{type(error).__name__}: {error}'


def run_roqua(roqua, paths, store):
    """Fixes read per input name, errors per input name, seconds."""
    start = time.perf_counter()
    proc = subprocess.run([roqua, 'track', 'import', *paths, '--store', store],
                          capture_output=True, text=True)
    seconds = time.perf_counter() - start
    fixes, errors = {}, {}
    for line in proc.stdout.splitlines():
        m = re.match(r'^(.*) \(([a-z-]+)\): (\d+) fixes read', line)
        if m:
            fixes[m.group(1)] = int(m.group(3))
    for line in proc.stderr.splitlines():
        m = re.match(r'^error: (.*?): (?:line \d+: )?(.*)$', line)
        if m:
            errors[m.group(1)] = m.group(2)
    return fixes, errors, seconds


def main():
    roqua, directory = sys.argv[1], sys.argv[2]
    report = sys.argv[sys.argv.index('--report') + 1] if '--report' in sys.argv else None
    files = sorted(f for f in os.listdir(directory) if os.path.splitext(f)[1].lower() in COUNTERS)
    work = tempfile.mkdtemp(prefix='roqua-corpus-')
    rows, agree, total_fixes, empty_imports = [], 0, 0, []
    for name in files:
        path = os.path.join(directory, name)
        expected, oracle_error = oracle(path)
        store = os.path.join(work, 'store.sqlite')
        for leftover in (store, store + '-wal', store + '-shm'):
            if os.path.exists(leftover):
                os.remove(leftover)
        fixes, errors, seconds = run_roqua(roqua, [path], store)
        got = fixes.get(path)
        error = errors.get(path)
        if got is None and error and (error.startswith('no timestamps') or error.startswith('no fixes')):
            got = 0  # refused as empty: read nothing, recorded nothing
        if got == 0 and path in fixes:
            empty_imports.append(name)
        ok = got is not None and got == expected
        agree += ok
        total_fixes += got or 0
        rows.append((name, expected, got, ok, seconds, error or oracle_error or ''))
        print(f"{'ok ' if ok else 'XX '} {name}: roqua {got} / oracle {expected} ({seconds:.2f} s) {(error or oracle_error or '')[:100]}")

    # Containers: every file gzip-compressed inside one ZIP must give the same counts.
    archive = os.path.join(work, 'corpus.zip')
    with zipfile.ZipFile(archive, 'w', zipfile.ZIP_DEFLATED) as z:
        for name in files:
            with open(os.path.join(directory, name), 'rb') as f:
                z.writestr('activities/' + name + '.gz', gzip.compress(f.read(), mtime=0))
    store = os.path.join(work, 'zip.sqlite')
    fixes, errors, seconds = run_roqua(roqua, [archive], store)
    zipped = sum(1 for name, _, got, _, _, _ in rows
                 if got is not None and fixes.get(f'{archive}:activities/{name}.gz', 0) == got)
    shutil.rmtree(work)

    pct = 100.0 * agree / len(files) if files else 0.0
    lines = [f'files: {len(files)}; fixes read: {total_fixes}; agreement: {agree}/{len(files)} = {pct:.1f} %',
             f'same count through .gz inside one .zip: {zipped}/{len(files)} ({seconds:.2f} s for the archive)',
             f'imported with no fix: {len(empty_imports)} {empty_imports}',
             'disagreeing files:']
    lines += [f'  {name}: roqua {got} / oracle {expected}: {why}' for name, expected, got, ok, _, why in rows if not ok]
    print('\n'.join(lines))
    if report:
        with open(report, 'w') as f:
            f.write('| file | oracle | roqua | s | note |\n|---|---|---|---|---|\n')
            for name, expected, got, ok, seconds, why in rows:
                f.write(f'| {name} | {expected} | {got} | {seconds:.2f} | {why[:80]} |\n')
            f.write('\n' + '\n'.join(lines) + '\n')
    sys.exit(0 if pct >= 97.0 and not empty_imports else 1)


if __name__ == '__main__':
    main()
