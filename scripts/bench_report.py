#!/usr/bin/env python3
"""Summarises .build-bench/results.jsonl (written by scripts/bench.sh) as Markdown: medians of
Roqua's runs, the peers' figures and Roqua's ratio to each peer, per core. The ratios compare
like with like: Roqua with the nearest-boundary fallback off, since the peers have none."""
import json
import statistics
import sys
from collections import defaultdict


def median(values):
    return statistics.median(values) if values else float("nan")


def main(path):
    rows = [json.loads(line) for line in open(path) if line.strip().startswith("{")]
    imports = [r for r in rows if r.get("bench") == "import"]
    import_rss = [r["max_rss_kb"] / 1024 for r in rows if r.get("bench") == "import-rss"]
    resolve = defaultdict(list)
    cli, peers = {}, defaultdict(dict)
    for r in rows:
        if r.get("bench") == "resolve":
            resolve[r["workload"]].append(r)
        elif r.get("bench") == "cli":
            cli[r["workload"]] = r
        elif "peer" in r:
            peers[r["workload"]][r["peer"]] = r
    print("| import of the bundled data | median of %d |" % len(imports))
    print("|---|---|")
    print("| duration | %.1f s |" % median([r["seconds"] for r in imports]))
    print("| database size | %.1f MB (%d indexed pieces) |" % (imports[0]["db_mb"], imports[0]["pieces"]) if imports else "")
    print("| peak RSS | %.0f MB |" % median(import_rss))
    print()
    print("| workload | Roqua points/s per core (with 1 km fallback) | exact only, as the peers | all cores | first answer "
          "| CLI streaming (all cores) | CLI peak RSS | shapely 2 points/s | SpatiaLite points/s | × shapely | × SpatiaLite |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for workload, runs in resolve.items():
        if workload.endswith("-exact"):
            continue
        full = median([r["points_per_s_per_core"] for r in runs])
        per_core = median([r["points_per_s_per_core"] for r in resolve.get(workload + "-exact", runs)])
        parallel = median([r["parallel_points_per_s"] for r in runs])
        first = median([r["first_answer_ms"] for r in runs])
        c = cli.get(workload, {})
        shapely = peers[workload].get("shapely", {}).get("points_per_s", float("nan"))
        spatialite = peers[workload].get("spatialite", {}).get("points_per_s", float("nan"))
        print(f"| {workload} | {full:,.0f} | {per_core:,.0f} | {parallel:,.0f} | {first:.0f} ms | "
              f"{runs[0]['points'] / c.get('seconds', float('nan')):,.0f} /s | {c.get('max_rss_kb', float('nan')) / 1024:.0f} MB | "
              f"{shapely:,.0f} | {spatialite:,.0f} | {per_core / shapely:.1f}× | {per_core / spatialite:.0f}× |")
    tracks = defaultdict(list)
    for r in rows:
        if r.get("bench") == "track-import":
            tracks[r["file"]].append(r)
    if tracks:
        print()
        print("| track import (1 M fixes, `roqua track import`) | file size | median time | fixes/s | peak RSS |")
        print("|---|---:|---:|---:|---:|")
        for name, runs in tracks.items():
            seconds = median([r["seconds"] for r in runs])
            print(f"| {name} | {runs[0]['bytes'] / 1e6:.0f} MB | {seconds:.2f} s | {1_000_000 / seconds:,.0f} | "
                  f"{median([r['max_rss_kb'] for r in runs]) / 1024:.0f} MB |")
    for workload, by_peer in peers.items():
        for name, r in by_peer.items():
            print(f"<!-- {workload} {name}: {r.get('points')} points, load {r.get('load_seconds', 0):.2f} s, "
                  f"peak RSS {r.get('peak_rss_mb', 0):.0f} MB -->")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".build-bench/results.jsonl")
