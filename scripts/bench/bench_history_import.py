#!/usr/bin/env python3
"""The ten-year history of bench_history.py imported by the release binary into a fresh store
RUNS times (3 unless told), then once more into the last store (it must add nothing); prints the
median time, fixes/s, peak RSS and the regions made, beside the target (< 30 s, ≤ 200 MB).

Usage: bench_history_import.py ROQUA HISTORY.json OUT_DIR [RUNS]"""
import os
import sqlite3
import statistics
import subprocess
import sys

from bench_track_formats import MAX_RSS_MB, run


def main():
    roqua, history, out = sys.argv[1], sys.argv[2], sys.argv[3]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    store = os.path.join(out, 'history.sqlite')
    runs = [run(roqua, history, store) for _ in range(rounds)]
    seconds = statistics.median(r[0] for r in runs)
    peak = max(r[1] for r in runs) / 1024
    fixes = runs[0][2]
    with sqlite3.connect(store) as db:
        regions = db.execute('SELECT count(*) FROM visited_regions').fetchone()[0]
    again = subprocess.run([roqua, 'track', 'import', history, '--store', store], capture_output=True, text=True, check=True)
    with sqlite3.connect(store) as db:
        unchanged = db.execute('SELECT count(*) FROM visited_regions').fetchone()[0] == regions
    print('| ten-year Records.json | size | fixes | median time | fixes/s | peak RSS | regions | target | met | imported again |\n'
          '|---|---:|---:|---:|---:|---:|---:|---|---|---|')
    met = 'yes' if seconds < 30 and peak <= MAX_RSS_MB else 'no'
    print(f'| {os.path.basename(history)} | {os.path.getsize(history) / 1e9:.2f} GB | {fixes:,} | {seconds:.1f} s | '
          f'{fixes / seconds:,.0f} | {peak:.0f} MB | {regions:,} | < 30 s, ≤ {MAX_RSS_MB} MB | {met} | '
          f'{"adds nothing" if unchanged and "imported before" in again.stdout else "CHANGED THE STORE"} |')


if __name__ == '__main__':
    main()
