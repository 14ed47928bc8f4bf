#!/usr/bin/env python3
"""Roqua's `resolve --input` against DuckDB's spatial extension, end to end, in the same run.

Usage:
  .build-bench/duckdb/bin/python scripts/bench/bench_duckdb.py ROQUA DB WORKDIR [--runs 3]

The venv (development time only, needs PyPI; Roqua itself never does):
  python3 -m venv .build-bench/duckdb && .build-bench/duckdb/bin/pip install --require-hashes \\
      --only-binary=:all: -r scripts/bench/bench-duckdb-requirements.txt

WORKDIR holds the workloads of scripts/bench/bench_workloads.py (world-1m.csv, turkiye-bbox-1m.csv,
istanbul-walk-200k.csv; made there if missing); outputs go to WORKDIR/duckdb-bench/. Per workload
and run, in an order that rotates each run:

  roqua (locality)     `ROQUA resolve --boundaries DB --input W.csv --output OUT.csv --drop-bad-rows`
  roqua (--no-locality) the same with --no-locality; both are the process's wall time
  duckdb               a fresh Python process: connect, LOAD spatial (from the wheel, by path),
                       the pieces and their units' codes read from DB with ST_Read (GDAL's SQLite
                       driver, part of the spatial extension) into a table of geometries (load_s);
                       read_csv of the points (read_s); the spatial join `ST_Contains(piece, point)`,
                       which DuckDB plans as a SPATIAL_JOIN (an R-tree on the pieces), and the
                       deepest level per point, smaller code on ties (join_s); COPY of lat,lon,code
                       ordered as the input to CSV (write_s). e2e_s is all of it, from connect to the
                       end of COPY (Python's start and `import duckdb` are not in it). DuckDB uses all
                       cores (its default threads).

Figures are medians over the runs. Like the other peers, DuckDB does not apply Roqua's nearest-unit
fallback: agreement is checked where Roqua's answer is exact (approximate=false), deepest code
against deepest code, on the last run's outputs.

Before each workload's round the script waits while `scripts/test.sh`, `swift-build` or `swift-test`
runs, then until the CPUs are at least 90 % idle over a second (at most 5 min; idle_before in its
JSON lines), unless --no-wait; it prints the load average.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import time

WORKLOADS = ["world-1m", "turkiye-bbox-1m", "istanbul-walk-200k"]


def duckdb_worker(db, points, out):
    """One end-to-end DuckDB run in this process; prints its JSON line."""
    t0 = time.perf_counter()
    import duckdb
    import duckdb_extension_spatial

    import_s = time.perf_counter() - t0
    ext = os.path.join(os.path.dirname(duckdb_extension_spatial.__file__),
                       f"extensions/v{duckdb.__version__}/spatial.duckdb_extension")
    start = time.perf_counter()
    con = duckdb.connect()
    con.execute(f"LOAD '{ext}'")
    con.execute(f"""
        CREATE TABLE pieces AS
        SELECT p.level, b.code, ST_GeomFromWKB(p.geometry) AS geom
        FROM ST_Read('{db}', layer = 'pieces') p
        JOIN (SELECT id, code FROM ST_Read('{db}', layer = 'boundaries')) b ON b.id = p.boundary_id""")
    t1 = time.perf_counter()
    con.execute(f"""
        CREATE TABLE pts AS
        SELECT row_number() OVER () AS i, lat, lon
        FROM read_csv('{points}', header = true, columns = {{'lat': 'DOUBLE', 'lon': 'DOUBLE'}})""")
    t2 = time.perf_counter()
    con.execute("""
        CREATE TABLE ans AS
        SELECT p.i, arg_min(g.code, (-g.level, g.code)) AS code
        FROM pts p JOIN pieces g ON ST_Contains(g.geom, ST_Point(p.lon, p.lat))
        GROUP BY p.i""")
    t3 = time.perf_counter()
    con.execute(f"""
        COPY (SELECT p.lat, p.lon, coalesce(a.code, '') AS code
              FROM pts p LEFT JOIN ans a USING (i) ORDER BY p.i)
        TO '{out}' (HEADER, DELIMITER ',')""")
    t4 = time.perf_counter()
    plan = "\n".join(r[1] for r in con.execute("""
        EXPLAIN SELECT * FROM pts p JOIN pieces g ON ST_Contains(g.geom, ST_Point(p.lon, p.lat))""").fetchall())
    print(json.dumps(dict(
        duckdb=duckdb.__version__, threads=con.execute("SELECT current_setting('threads')").fetchone()[0],
        spatial_join_planned="SPATIAL_JOIN" in plan, import_s=import_s,
        load_s=t1 - start, read_s=t2 - t1, join_s=t3 - t2, write_s=t4 - t3, e2e_s=t4 - start,
        points=con.execute("SELECT count(*) FROM pts").fetchone()[0],
        resolved=con.execute("SELECT count(*) FROM ans").fetchone()[0])), flush=True)


def idle_share(seconds=1.0):
    """Share of the machine's CPU time that was idle over the next `seconds` (from /proc/stat)."""
    def sample():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        return v[3] + v[4], sum(v)
    i0, t0 = sample()
    time.sleep(seconds)
    i1, t1 = sample()
    return (i1 - i0) / max(t1 - t0, 1)


def wait_quiet(no_wait, max_wait=300):
    """Waits while a test run or a build runs, or the machine is less than 90 % idle (at most
    max_wait seconds for the latter); returns the idle share measured last."""
    busy = ["pgrep", "-f", "scripts/test.sh|swift-build|swift-test|xctest"]
    while not no_wait and subprocess.run(busy, stdout=subprocess.DEVNULL).returncode == 0:
        print("waiting: scripts/test.sh, swift-build or swift-test is running", file=sys.stderr, flush=True)
        time.sleep(20)
    deadline = time.monotonic() + (0 if no_wait else max_wait)
    idle = idle_share()
    while idle < 0.9 and time.monotonic() < deadline:
        time.sleep(2)
        idle = idle_share()
    return idle


def run_roqua(roqua, db, points, out, locality):
    cmd = [roqua, "resolve", "--boundaries", db, "--input", points, "--output", out, "--drop-bad-rows"]
    if not locality:
        cmd.append("--no-locality")
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def run_duckdb(db, points, out):
    t = time.perf_counter()
    p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", db, points, out],
                       check=True, capture_output=True, text=True)
    result = json.loads(p.stdout.strip().splitlines()[-1])
    result["process_s"] = time.perf_counter() - t
    return result


def agreement(roqua_csv, duck_csv):
    """(exact rows compared, agreeing, examples of disagreement) on Roqua's exact answers."""
    compared, agree, bad = 0, 0, []
    with open(roqua_csv, newline="") as fr, open(duck_csv, newline="") as fd:
        for n, (row, drow) in enumerate(zip(csv.DictReader(fr), csv.DictReader(fd))):
            if row["approximate"] != "false":
                continue
            deepest = row["district_code"] or row["province_code"] or row["country_code"]
            compared += 1
            if drow["code"] == deepest:
                agree += 1
            elif len(bad) < 5:
                bad.append(f"line {n + 2} lat={row['lat']} lon={row['lon']}: "
                           f"duckdb={drow['code'] or '-'} roqua={deepest or '-'}")
    return compared, agree, bad


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("roqua", nargs="?")
    ap.add_argument("db", nargs="?")
    ap.add_argument("workdir", nargs="?")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-wait", action="store_true", help="do not wait for scripts/test.sh (smoke tests)")
    ap.add_argument("--worker", nargs=3, metavar=("DB", "POINTS", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return duckdb_worker(*args.worker)
    if not (args.roqua and args.db and args.workdir):
        ap.error("ROQUA DB WORKDIR are required")
    roqua, db, workdir = (os.path.abspath(p) for p in (args.roqua, args.db, args.workdir))
    if not all(os.path.exists(os.path.join(workdir, w + ".csv")) for w in WORKLOADS):
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "bench_workloads.py"), workdir], check=True)
    out_dir = os.path.join(workdir, "duckdb-bench")
    os.makedirs(out_dir, exist_ok=True)

    wait_quiet(args.no_wait)
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} cores",
          flush=True)

    kinds = ["locality", "plain", "duckdb"]
    times = {(w, k): [] for w in WORKLOADS for k in kinds}
    duck = {w: [] for w in WORKLOADS}
    for r in range(args.runs):
        for wi, w in enumerate(WORKLOADS):
            points = os.path.join(workdir, w + ".csv")
            idle = wait_quiet(args.no_wait)
            order = kinds[(r + wi) % 3:] + kinds[:(r + wi) % 3]
            for k in order:
                out = os.path.join(out_dir, f"{w}.{k}.csv")
                if k == "duckdb":
                    d = run_duckdb(db, points, out)
                    duck[w].append(d)
                    times[(w, k)].append(d["e2e_s"])
                else:
                    times[(w, k)].append(run_roqua(roqua, db, points, out, k == "locality"))
            print(json.dumps(dict(run=r + 1, workload=w, order=order,
                                  roqua_locality_s=round(times[(w, "locality")][-1], 3),
                                  roqua_plain_s=round(times[(w, "plain")][-1], 3),
                                  **{k: (round(v, 3) if isinstance(v, float) else v)
                                     for k, v in duck[w][-1].items()},
                                  idle_before=round(idle, 2), loadavg=round(os.getloadavg()[0], 2))),
                  flush=True)

    med = statistics.median
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"DuckDB {duck[WORKLOADS[0]][0]['duckdb']}, threads {duck[WORKLOADS[0]][0]['threads']}; "
          f"medians of {args.runs} runs")
    print("| workload | roqua (locality) | roqua (--no-locality) | DuckDB end to end | DuckDB join only "
          "| DuckDB load | DuckDB ÷ roqua (locality) | DuckDB ÷ roqua (--no-locality) |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for w in WORKLOADS:
        loc, plain, e2e = med(times[(w, "locality")]), med(times[(w, "plain")]), med(times[(w, "duckdb")])
        join, load = med(d["join_s"] for d in duck[w]), med(d["load_s"] for d in duck[w])
        print(f"| {w} | {loc:.2f} s | {plain:.2f} s | {e2e:.2f} s | {join:.2f} s | {load:.2f} s "
              f"| {e2e / loc:.1f}× | {e2e / plain:.1f}× |")
    print("per-run ratios (DuckDB end to end ÷ roqua in the same run), median [min–max]:")
    for w in WORKLOADS:
        parts = []
        for k in ("locality", "plain"):
            rs = [d / r for d, r in zip(times[(w, "duckdb")], times[(w, k)])]
            parts.append(f"÷ {k} {med(rs):.1f}× [{min(rs):.1f}–{max(rs):.1f}]")
        print(f"  {w}: " + ", ".join(parts))
    print()
    for w in WORKLOADS:
        compared, agree, bad = agreement(os.path.join(out_dir, f"{w}.locality.csv"),
                                         os.path.join(out_dir, f"{w}.duckdb.csv"))
        pct = 100 * agree / compared if compared else 100.0
        print(f"agreement {w}: {agree:,}/{compared:,} exact answers ({pct:.3f} %)")
        if pct < 99.9:
            for line in bad:
                print(f"  {line}")


if __name__ == "__main__":
    main()
