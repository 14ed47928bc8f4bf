#!/usr/bin/env python3
"""Summarises .build-bench/results.jsonl (written by scripts/bench/bench.sh) as Markdown: medians of
the rounds, Roqua's figures and its ratio to each peer."""
import json
import statistics
import sys
from collections import defaultdict


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else float("nan")


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    by = defaultdict(list)
    for r in rows:
        by[r.get("bench") or r.get("peer")].append(r)

    imports = by["import"]
    print(f"| import of the bundled data (median of {len(imports)}) | |")
    print("|---|---:|")
    if imports:
        print(f"| duration, all of it | {median([r['seconds'] for r in imports]):.1f} s (target < 20 s) |")
        print(f"| of which the cell index | {median([r['cell_seconds'] for r in imports]):.1f} s |")
        i = imports[0]
        print(f"| database size | {i['db_mb']:.1f} MB ({i['pieces']:,} indexed pieces) |")
        print(f"| cell index size | {i['cell_mb']:.1f} MB ({i['cell_tiles']:,} tiles with a quadtree, {i['cell_leaves']:,} mixed leaves) |")
        print(f"| peak RSS | {median([r['max_rss_kb'] / 1024 for r in by['import-rss']]):.0f} MB |")
    print()

    workloads = list(dict.fromkeys(r["workload"] for r in by["resolve"]))
    resolve = defaultdict(list)
    for r in by["resolve"]:
        resolve[(r["workload"], r["fallback_m"] > 0)].append(r)
    cli = defaultdict(list)
    for r in by["cli"]:
        cli[(r["workload"], r["workers"])].append(r)
    pair = defaultdict(list)
    for r in by["cli-pair"]:
        pair[r["workload"]].append(r["seconds"])
    shapely_e2e = defaultdict(list)
    for r in by["shapely-e2e-time"]:
        shapely_e2e[r["workload"]].append(r)

    print("| end to end, 2 cores | rows | `roqua resolve --input F.csv --output out.csv` | rows/s | "
          "shapely 2 + pandas pipeline | Roqua ÷ shapely | CLI peak RSS | 1 worker | 2 workers ÷ 1 | "
          "machine ceiling: two 1-worker runs at once |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for w in workloads:
        points = resolve[(w, True)][0]["points"]
        two, one = median([r["seconds"] for r in cli[(w, 2)]]), median([r["seconds"] for r in cli[(w, 1)]])
        peer = median([r["seconds"] for r in shapely_e2e[w]])
        rss = max(r["max_rss_kb"] for r in cli[(w, 2)] + cli[(w, 1)]) / 1024
        print(f"| {w} | {points:,} | {two:.2f} s | {points / two:,.0f} | {peer:.2f} s | **{peer / two:.1f}×** | {rss:.0f} MB | "
              f"{one:.2f} s | {one / two:.2f}× | {2 * one / median(pair[w]):.2f}× |")
    print()

    passes = defaultdict(lambda: defaultdict(list))
    for kind in ("pass-alone", "pass-pair"):
        for r in by[kind]:
            passes[r["workload"]][kind].append(r["seconds"])

    def ceiling(w):
        alone, pair = passes[w]["pass-alone"], passes[w]["pass-pair"]
        return f"{median(alone) / median(pair) * 2:.2f}×" if alone and pair else "–"

    print("| library, one thread | exact: points/s | with 1 km fallback | first pass (reads the tiles it meets) | "
          "`resolve` → `Resolution` | `BatchResolver` 2 workers ÷ 1 | machine ceiling: two 1-thread processes at once | "
          "first answer after open |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for w in workloads:
        exact, full = resolve[(w, False)], resolve[(w, True)]
        speedup = median([r["speedup"] for r in full + exact])
        print(f"| {w} | {median([r['warm_per_s'] for r in exact]):,.0f} | {median([r['warm_per_s'] for r in full]):,.0f} | "
              f"{median([r['cold_per_s'] for r in full]):,.0f} | {median([r['resolution_per_s'] for r in full]):,.0f} | "
              f"{speedup:.2f}× | {ceiling(w)} | {median([r['first_answer_ms'] for r in full + exact]):.0f} ms |")
    print()

    peers = defaultdict(dict)
    for r in rows:
        if r.get("peer") in ("shapely", "spatialite"):
            peers[r["workload"]][r["peer"]] = r
    if peers:
        print("| exact answers, one core | Roqua points/s | shapely 2 `STRtree.query(within)` only | SpatiaLite R\\*Tree + `ST_Covers` | "
              "Roqua ÷ shapely | Roqua ÷ SpatiaLite |")
        print("|---|---:|---:|---:|---:|---:|")
        for w in workloads:
            ours = median([r["warm_per_s"] for r in resolve[(w, False)]])
            sh = peers[w].get("shapely", {}).get("points_per_s") or float("nan")
            sp = peers[w].get("spatialite", {}).get("points_per_s") or float("nan")
            print(f"| {w} | {ours:,.0f} | {sh:,.0f} | {sp:,.0f} | {ours / sh:.1f}× | {ours / sp:.0f}× |")
        print()


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".build-bench/results.jsonl")
