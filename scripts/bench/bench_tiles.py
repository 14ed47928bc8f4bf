#!/usr/bin/env python3
"""The lifetime map at scale: importing a decade of fixes with the tile pyramid kept, then serving
its tiles from a server started cold.

Workload (seeded, not tuned to the tile code): bench_history.py's ten-year phone history as
Records.json (about 21 M fixes: a fix every 15 s day and night, daily moves in a home city, trips
abroad by road and air).

Measured:
  import                  `roqua track import` into a fresh store: fixes/s and peak RSS, this
                          build against BASELINE (a build without the pyramid) in the same run
  pyramid                 rows and bytes of map_tiles
  tiles from cold         `roqua serve` started on the store, then TILES random tiles holding data
                          at z 2-16 of each kind, and TILES/5 empty ones, asked one at a time over
                          loopback: p50 / p95 / max ms (the first request included), and the
                          server's peak RSS; targets p95 < 50 ms, max < 250 ms, RSS <= 300 MB
  a day's lines           the same with ?from=DAY&to=DAY (drawn from that day's fixes)

Usage: bench_tiles.py ROQUA BASELINE|- WORKDIR [TILES]
"""
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_kept_fixes import fresh, timed  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def percentiles(values):
    ordered = sorted(values)
    return (statistics.median(ordered), ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], ordered[-1])


def workload(roqua, work, years):
    """WORK's boundary database and bench_history.py's history of `years` years, made if missing."""
    os.makedirs(work, exist_ok=True)
    boundaries = os.path.join(work, 'boundaries.sqlite')
    if not os.path.exists(boundaries):
        subprocess.run([roqua, 'import', '--out', boundaries], check=True, stdout=subprocess.DEVNULL)
    history = os.path.join(work, f'history-{years}y.json')
    if not os.path.exists(history):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, 'bench_history.py'), history, str(years)], check=True)
    return boundaries, history


def main():
    roqua, baseline, work = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3]
    count = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    boundaries, history = workload(roqua, work, 10)
    b = ['--boundaries', boundaries]
    print(f'# The lifetime map ({time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}; {os.cpu_count()} cores)\n')

    store = fresh(os.path.join(work, 'tiles-10y.sqlite'))
    rows = [('pyramid kept', roqua, store)]
    if baseline != '-':
        rows.append(('baseline', os.path.realpath(baseline), fresh(os.path.join(work, 'tiles-10y-base.sqlite'))))
    print('| import of the ten-year history | time | fixes/s | peak RSS |\n|---|---:|---:|---:|')
    for name, binary, path in rows:
        seconds, rss = timed([binary, 'track', 'import', history, '--store', path] + b)
        fixes = json.loads(subprocess.run([roqua, 'history', '--json', '--store', store], capture_output=True, text=True,
                                          check=True).stdout)['fixes']
        print(f'| {name} | {seconds:.1f} s | {fixes / seconds / 1e6:.2f} M | {rss:.0f} MB |')

    db = sqlite3.connect(store)
    tiles = db.execute('SELECT COUNT(*), SUM(LENGTH(counts)) FROM map_tiles').fetchone()
    print(f'\npyramid: {tiles[0]:,} rows, {tiles[1] / 1e6:.1f} MB of counts for {fixes:,} fixes '
          f'({os.path.getsize(store) / 1e6:.0f} MB store)')
    rng = random.Random(11)
    asked = []
    for kind, top in ((0, 16), (1, 15)):
        for _ in range(count):
            z = rng.randint(2, 16)
            source = min(z, top)
            x, y = rng.choice(db.execute('SELECT x, y FROM map_tiles WHERE z = ? AND kind = ? ORDER BY random() LIMIT 50',
                                         (source, kind)).fetchall())
            # A tile with data at zoom z: one of the 4^(z - source) inside the stored one (all of it when z <= top).
            shift = z - source
            asked.append(('heat' if kind == 0 else 'lines', z, (x << shift) + rng.randrange(1 << shift),
                          (y << shift) + rng.randrange(1 << shift)))
    empty = [('heat', z, rng.randrange(1 << z), rng.randrange(1 << z)) for z in [rng.randint(2, 16) for _ in range(count // 5)]]
    day = db.execute('SELECT MIN(first_ms) + 4 * 365 * 86400000 FROM fix_sources').fetchone()[0]
    day_text = time.strftime('%Y-%m-%d', time.gmtime(day / 1000))
    db.close()

    port = free_port()
    server = subprocess.Popen([roqua, 'serve', '--store', store, '--listen', f'127.0.0.1:{port}'] + b,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                urllib.request.urlopen(f'http://127.0.0.1:{port}/api/changes', timeout=1).read()
                break
            except OSError:
                time.sleep(0.05)

        def fetch(kind, z, x, y, query=''):
            start = time.perf_counter()
            with urllib.request.urlopen(f'http://127.0.0.1:{port}/api/tiles/{kind}/{z}/{x}/{y}.png{query}', timeout=30) as reply:
                body = reply.read()
            return (time.perf_counter() - start) * 1000, body

        print('\n| tiles from a cold server | tiles | p50 | p95 | max | target |\n|---|---:|---:|---:|---:|---|')
        for name, group in (('heat, holding data', [a for a in asked if a[0] == 'heat']),
                            ('lines, holding data', [a for a in asked if a[0] == 'lines']), ('empty', empty)):
            times = [fetch(*tile)[0] for tile in group]
            p50, p95, top = percentiles(times)
            print(f'| {name}, z 2-16 | {len(group)} | {p50:.1f} ms | {p95:.1f} ms | {top:.1f} ms | p95 < 50, max < 250 |')
        query = f'?from={day_text}&to={day_text}&tz=UTC'
        times = [fetch('lines', *tile[1:], query=query)[0] for tile in asked[count:count + count // 5]]
        p50, p95, top = percentiles(times)
        print(f'| a day\'s lines ({day_text}), drawn from its fixes | {len(times)} | {p50:.1f} ms | {p95:.1f} ms | {top:.1f} ms | |')
        status = open(f'/proc/{server.pid}/status').read()
        hwm = int(next(line for line in status.splitlines() if line.startswith('VmHWM')).split()[1]) / 1024
        print(f'\nserver peak RSS: {hwm:.0f} MB (target <= 300 MB)')
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == '__main__':
    main()
