#!/usr/bin/env bash
# How long `roqua import --add` takes for a 3,000-feature layer (never part of the tests): a
# release build rebuilds the bundled boundaries alone, then with a generated district layer
# added — a GeoJSON of FEATURES municipalities, each a 64-vertex polygon, in Web Mercator
# (reprojected) and with no parent field (parents inferred) — RUNS times each, interleaved, into
# a scratch data home. Prints medians and the layer's own cost (the difference).
#   scripts/bench/bench-add-layer.sh [FEATURES] [RUNS]     (default: 3000 features, 3 runs)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/common.sh
features=${1:-3000}
runs=${2:-3}
out=.build-bench
mkdir -p "$out"
roqua_build "$out/add-build.log" -c release --product roqua
bin=$(swift build -c release --show-bin-path)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A grid of round "municipalities" well inside Quebec (its bundled province), 0.01° apart.
python3 - "$work/municipalities.geojson" "$features" <<'PY'
import json, math, sys
path, count = sys.argv[1], int(sys.argv[2])
R = 6378137.0
def merc(lon, lat):
    return [lon * math.pi / 180 * R, R * math.log(math.tan(math.pi / 4 + lat * math.pi / 360))]
side = math.ceil(math.sqrt(count))
features = []
for i in range(count):
    cx, cy = -73.0 + (i % side) * 0.01, 50.5 + (i // side) * 0.01
    ring = [merc(cx + 0.0045 * math.cos(2 * math.pi * k / 64), cy + 0.0045 * math.sin(2 * math.pi * k / 64)) for k in range(64)]
    ring.append(ring[0])
    features.append({"type": "Feature", "properties": {"shapeID": f"BENCH-{i}", "shapeName": f"Municipality {i}"},
                     "geometry": {"type": "Polygon", "coordinates": [ring]}})
json.dump({"type": "FeatureCollection", "crs": {"type": "name", "properties": {"name": "urn:ogc:def:crs:EPSG::3857"}},
           "features": features}, open(path, "w"))
PY

export XDG_DATA_HOME="$work/xdg"
seconds() { python3 -c 'import sys,time; print(time.time())'; }
base=() added=()
for run in $(seq "$runs"); do
  rm -rf "$work/xdg"
  t0=$(seconds); "$bin/roqua" import --out "$work/b.sqlite" >/dev/null; t1=$(seconds)
  base+=("$(python3 -c "print($t1 - $t0)")")
  t0=$(seconds)
  "$bin/roqua" import --out "$work/b.sqlite" --add "$work/municipalities.geojson" --level district >"$work/add.txt"
  t1=$(seconds)
  added+=("$(python3 -c "print($t1 - $t0)")")
  echo "run $run: bundled alone ${base[-1]} s, with the layer ${added[-1]} s" >&2
done
head -2 "$work/add.txt"
python3 - "${base[*]}" "${added[*]}" "$features" <<'PY'
import statistics, sys
base = [float(x) for x in sys.argv[1].split()]
added = [float(x) for x in sys.argv[2].split()]
b, a = statistics.median(base), statistics.median(added)
print(f"| import | median of {len(base)} |")
print("|---|---:|")
print(f"| bundled boundaries alone | {b:.1f} s |")
print(f"| bundled + --add {sys.argv[3]} features (GeoJSON, Web Mercator, parents inferred) | {a:.1f} s |")
print(f"| the layer's own cost | {a - b:.1f} s |")
PY
