#!/usr/bin/env python3
"""The kept history: what keeping every fix costs and what it gives, against the targets.

Workloads (seeded, not tuned to the history's code):
  * walk.csv: bench_track_formats.py's İstanbul walk, 2,000,000 fixes 5 s apart, as CSV;
  * the phone histories of bench_history.py as Records.json — one year (about 2.1 M fixes, a fix
    every 15 s day and night, flights and trips abroad) and ten years (about 21 M).

Measured, each RUNS times (median), the two binaries interleaved where both are timed:
  track import of walk.csv          this build (history kept) vs BASELINE (the build before it)
                                    — fixes/s, peak RSS; target ≥ 1 M fixes/s
  bytes a fix                       `roqua history --json`: bytes / fixes, for the walk (a fix every
                                    5 s) and the one-year phone history (every 15 s); target ≤ 10
  import of the ten-year history    peak RSS (target ≤ 200 MB) and time, into a fresh store
  rebuild of the ten-year history   `roqua rebuild` of that store; target < 60 s
  a day's fixes                     `roqua history --from DAY --to DAY` (read back and counted) and
                                    `roqua export --format gpx` of the same day on that store
                                    (process start included, and without: an empty day's time is
                                    subtracted); target < 5 ms for the read
  a day's timeline                  `roqua timeline DAY --json` on that store, as kept, and segmented
                                    again with other stay thresholds; target < 50 ms
  backup / restore                  `roqua backup` and `roqua restore` of that store: time, size

Usage: bench_kept_fixes.py ROQUA BASELINE_ROQUA WORKDIR [RUNS]
  (ROQUA and BASELINE are release builds; BASELINE may be "-" to skip the comparison)"""
import json
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_track_formats import walk  # noqa: E402


def timed(argv, stdout=subprocess.DEVNULL):
    """Wall seconds and peak RSS (MB) of one command (GNU time's max RSS)."""
    start = time.perf_counter()
    result = subprocess.run(['/usr/bin/time', '-f', '%M'] + argv, stdout=stdout, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {result.stderr[-2000:]}")
    return seconds, int(result.stderr.strip().splitlines()[-1]) / 1024


def fresh(path):
    for suffix in ('', '-wal', '-shm'):
        if os.path.exists(path + suffix):
            os.remove(path + suffix)
    return path


def history(roqua, store):
    return json.loads(subprocess.run([roqua, 'history', '--json', '--store', store], capture_output=True, text=True,
                                     check=True).stdout)


def main():
    roqua, baseline, work = os.path.realpath(sys.argv[1]), sys.argv[2], sys.argv[3]
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    os.makedirs(work, exist_ok=True)
    here = os.path.dirname(os.path.abspath(__file__))
    boundaries = os.path.join(work, 'boundaries.sqlite')
    if not os.path.exists(boundaries):
        subprocess.run([roqua, 'import', '--out', boundaries], check=True, stdout=subprocess.DEVNULL)
    b = ['--boundaries', boundaries]
    csv = os.path.join(work, 'walk-2m.csv')
    if not os.path.exists(csv):
        with open(csv, 'w') as f:
            f.write('lat,lon,timestamp,accuracy\n')
            for lat, lon, t, acc in walk(2_000_000):
                f.write(f'{lat:.6f},{lon:.6f},{t},{acc}\n')
    for years in (1, 10):
        path = os.path.join(work, f'history-{years}y.json')
        if not os.path.exists(path):
            subprocess.run([sys.executable, os.path.join(here, 'bench_history.py'), path, str(years)], check=True)

    print(f'# Kept fixes ({time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}; {os.cpu_count()} cores)\n')
    print('| import of walk.csv (2 M fixes) | median | fixes/s | peak RSS |\n|---|---:|---:|---:|')
    builds = [('history kept', roqua)] + ([('before (baseline)', os.path.realpath(baseline))] if baseline != '-' else [])
    results = {name: [] for name, _ in builds}
    for _ in range(runs):
        for name, binary in builds:
            store = fresh(os.path.join(work, f'walk-{name[:6]}.sqlite'))
            results[name].append(timed([binary, 'track', 'import', csv, '--store', store] + b))
    for name, rounds in results.items():
        seconds = statistics.median(r[0] for r in rounds)
        print(f'| {name} | {seconds:.2f} s | {2_000_000 / seconds / 1e6:.2f} M | {max(r[1] for r in rounds):.0f} MB |')
    if len(results) == 2:
        a, b0 = (statistics.median(r[0] for r in results[n]) for n in results)
        print(f'\nkept ÷ before: {a / b0:.2f}× the time')
    walk_history = history(roqua, os.path.join(work, 'walk-histor.sqlite'))

    store = fresh(os.path.join(work, 'one-year.sqlite'))
    one = timed([roqua, 'track', 'import', os.path.join(work, 'history-1y.json'), '--store', store] + b)
    one_year = history(roqua, store)
    print('\n| bytes a fix | fixes | bytes | bytes a fix | target |\n|---|---:|---:|---:|---|')
    for name, h in (('walk, a fix every 5 s', walk_history), ('phone year, every 15 s', one_year)):
        print(f"| {name} | {h['fixes']:,} | {h['bytes']:,} | {h['bytes'] / h['fixes']:.2f} | ≤ 10 |")
    print(f'\none-year Records.json import: {one[0]:.1f} s, {one_year["fixes"] / one[0] / 1e6:.2f} M fixes/s, {one[1]:.0f} MB')

    big = fresh(os.path.join(work, 'ten-years.sqlite'))
    imported = timed([roqua, 'track', 'import', os.path.join(work, 'history-10y.json'), '--store', big] + b)
    fixes = history(roqua, big)['fixes']
    print(f'\n| ten-year history ({fixes:,} fixes) | time | peak RSS | target |\n|---|---:|---:|---|')
    print(f'| import into a fresh store | {imported[0]:.1f} s | {imported[1]:.0f} MB | ≤ 200 MB |')
    rebuilds = [timed([roqua, 'rebuild', '--store', big] + b) for _ in range(runs)]
    print(f'| rebuild (median of {runs}) | {statistics.median(r[0] for r in rebuilds):.1f} s | '
          f'{max(r[1] for r in rebuilds):.0f} MB | < 60 s |')
    # One local day (a day given as --to is included): read back and counted by `history`, and
    # written as GPX by `export`; less the same commands on a day with no fix (process start,
    # opening the store).
    def command(verb, day):
        tail = ['--json'] if verb == 'history' else ['--format', 'gpx', '--output', '/dev/null']
        return [roqua, verb, '--store', big, '--from', day, '--to', day, '--time-zone', 'UTC'] + tail
    counted = json.loads(subprocess.run(command('history', '2019-06-12'), capture_output=True, text=True,
                                        check=True).stdout)['fixes']
    for verb, label in (('history', "a day's fixes read back (`history --from D --to D`)"), ('export', 'the same day as GPX')):
        days = [timed(command(verb, '2019-06-12'))[0] for _ in range(max(runs, 9))]
        nothing = [timed(command(verb, '1990-06-12'))[0] for _ in range(max(runs, 9))]
        target = '< 5 ms' if verb == 'history' else ''
        print(f'| {label}, {counted:,} fixes (median of {len(days)}) | {statistics.median(days) * 1000:.1f} ms | | |')
        print(f"| … less an empty day's | {(statistics.median(days) - statistics.median(nothing)) * 1000:.1f} ms | | {target} |")
    # A day's timeline, its stays named: read as the store keeps it (an import made it), against
    # segmenting every kept fix again (other stay thresholds), and a bare process start.
    day = [roqua, 'timeline', '2019-06-12', '--json', '--store', big, '--time-zone', 'UTC'] + b
    kept = [timed(day)[0] for _ in range(max(runs, 9))]
    again = [timed(day + ['--stay-minutes', '6'])[0] for _ in range(runs)]
    start = [timed([roqua, '--version'])[0] for _ in range(max(runs, 9))]
    print(f"| a day's timeline, kept (`timeline D --json`, median of {len(kept)}) | "
          f"{statistics.median(kept) * 1000:.0f} ms | | < 50 ms |")
    print(f'| … segmenting every fix again (`--stay-minutes 6`) | {statistics.median(again) * 1000:.0f} ms | | |')
    print(f'| … a bare process start (`roqua --version`) | {statistics.median(start) * 1000:.0f} ms | | |')
    backup = os.path.join(work, 'ten-years.backup')
    made = timed([roqua, 'backup', '--store', big, backup])
    restored = fresh(os.path.join(work, 'restored.sqlite'))
    back = timed([roqua, 'restore', '--store', restored, backup])
    print(f'| backup ({os.path.getsize(backup) / 1e6:.0f} MB) | {made[0]:.1f} s | {made[1]:.0f} MB | |')
    print(f'| restore | {back[0]:.1f} s | {back[1]:.0f} MB | |')


if __name__ == '__main__':
    main()
