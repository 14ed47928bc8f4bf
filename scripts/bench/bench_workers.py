#!/usr/bin/env python3
"""Two workers against the machine's own ceiling, end to end through the CLI.

For each workload, ROUNDS interleaved rounds (the order of the three runs rotates every round) of:
  two    `roqua resolve --input W --workers 2`
  one    `roqua resolve --input W --workers 1`
  pair   two `--workers 1` processes at once, each on the whole input (halves would each load the
         index and so understate the ceiling)
  fixed  `--workers 1` on the workload's first row alone: the start-up, index, output and exit
         that one process pays once, before and after the work, whatever its workers
The machine's ceiling is 2 × one ÷ pair (what two cores give two independent copies of the job at
that moment); the program's speed-up is one ÷ two; the figure that matters is speed-up ÷ ceiling.
"Bound" is the most that figure can be with this fixed part: two workers splitting the rest
(one − fixed) exactly as the ceiling allows. Medians of the rounds are printed as a Markdown table.

Usage: bench_workers.py ROQUA BOUNDARIES OUT_DIR ROUNDS WORKLOAD.csv...
"""
import os
import statistics
import subprocess
import sys
import time


def command(roqua, boundaries, workload, workers, output):
    return [roqua, 'resolve', '--boundaries', boundaries, '--input', workload, '--output', output,
            '--workers', str(workers), '--no-locality', '--drop-bad-rows']


def timed(commands):
    start = time.perf_counter()
    processes = [subprocess.Popen(c, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for c in commands]
    for p, c in zip(processes, commands):
        _, err = p.communicate(timeout=600)
        if p.returncode != 0:
            raise SystemExit(f'{" ".join(c)} failed ({p.returncode}): {err.decode()[-400:]}')
    return time.perf_counter() - start


def main():
    roqua, boundaries, out, rounds = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
    workloads = sys.argv[5:]
    os.makedirs(out, exist_ok=True)
    print('| workload | 1 worker | 2 workers | 2 workers ÷ 1 | two 1-worker runs at once | machine ceiling '
          '(2 × one ÷ pair) | speed-up ÷ ceiling | one row (fixed part) | bound | rounds |')
    print('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
    for workload in workloads:
        name = os.path.basename(workload).removesuffix('.csv')
        first_row = f'{out}/{name}-first-row.csv'
        with open(workload, encoding='utf-8') as source, open(first_row, 'w', encoding='utf-8') as row:
            row.write(source.readline() + source.readline())
        runs = {
            'two': lambda: timed([command(roqua, boundaries, workload, 2, f'{out}/two.csv')]),
            'one': lambda: timed([command(roqua, boundaries, workload, 1, f'{out}/one.csv')]),
            'pair': lambda: timed([command(roqua, boundaries, workload, 1, f'{out}/pair-a.csv'),
                                   command(roqua, boundaries, workload, 1, f'{out}/pair-b.csv')]),
            'fixed': lambda: timed([command(roqua, boundaries, first_row, 1, f'{out}/fixed.csv')]),
        }
        timed([command(roqua, boundaries, workload, 1, f'{out}/warm.csv')])  # page cache warm for every run alike
        seconds = {kind: [] for kind in runs}
        order = list(runs)
        for r in range(rounds):
            for kind in order[r % len(order):] + order[:r % len(order)]:
                seconds[kind].append(runs[kind]())
        one, two, pair, fixed = (statistics.median(seconds[k]) for k in ('one', 'two', 'pair', 'fixed'))
        ceiling = 2 * one / pair
        speedup = one / two
        bound = one / (fixed + (one - fixed) / ceiling) / ceiling
        print(f'| {name} | {one:.2f} s | {two:.2f} s | {speedup:.2f}× | {pair:.2f} s | {ceiling:.2f}× | '
              f'{speedup / ceiling * 100:.0f} % | {fixed * 1000:.0f} ms | {bound * 100:.0f} % | {rounds} |', flush=True)


if __name__ == '__main__':
    main()
