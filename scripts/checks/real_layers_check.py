"""The real-file check of `roqua import --add`: three public layers a user would have, added in one
command each, then answered right.

Layers (libpysal's examples, found in the venv's site-packages):
  tokyo/tokyomet262.shp   262 Tokyo-area municipalities, Japan Plane Rectangular CS VI on the old
                          Tokyo datum (.prj), DBF marked LDID 19 (Shift-JIS)
  georgia/G_utm.shp       159 Georgia counties in UTM, no .prj (NAD83 / UTM zone 16N: --crs)
  sids2/sids2.shp         100 North Carolina counties in lon/lat, no .prj, no parent field

The expected answers are computed here, independently of Roqua: pyshp reads the files, pyproj
(its own PROJ and proj.db) takes them to WGS 84, shapely finds each unit's interior point and
points 150 m inside its edge (eight along the edge of the unit shrunk by 150 m; the Tokyo datum is
~450 m from WGS 84, so only a correct datum shift puts them in the right unit). Every point must
resolve (no fallback) to its own unit and the right province, for >= 98 % of each layer's points.
Then: named places (Shinjuku, Atlanta, Raleigh), Türkiye's answers byte-identical before and
after, `roqua stats --unit Tokyo` counting x/N over the new municipalities, and a broken layer
refused with the database unchanged.

  python real_layers_check.py ROQUA EXAMPLES_DIR WORK_DIR
"""
import hashlib
import json
import os
import subprocess
import sys

import pyproj
import shapefile
from shapely.geometry import shape
from shapely.ops import transform

ROQUA, EXAMPLES, WORK = sys.argv[1], sys.argv[2], sys.argv[3]
ENV = dict(os.environ, XDG_DATA_HOME=os.path.join(WORK, "home"), ROQUA_STORE=os.path.join(WORK, "store.sqlite"))
ENV.pop("ROQUA_BOUNDARIES", None)
DB = os.path.join(WORK, "home", "roqua", "boundaries.sqlite")

# name, file, the command's extra arguments, code field, DBF encoding, the CRS the truth reads the
# file in, a metric CRS to shrink it in, the province a unit's code belongs to
LAYERS = [
    ("tokyo", "tokyo/tokyomet262.shp", [], "GEOCODE", "shift_jis", "prj", None, lambda code: "JP-" + code[:2]),
    ("georgia", "georgia/G_utm.shp", ["--crs", "EPSG:26916", "--code-prefix", "US-"], "AreaKey", "latin1", "EPSG:26916", None,
     lambda code: "US-GA"),
    ("nc", "sids2/sids2.shp", [], "FIPS", "latin1", "EPSG:4326", "EPSG:32617", lambda code: "US-NC"),
]
PLACES = [  # (lat, lon, expected district code, what it is)
    (35.6896, 139.7006, "13104", "Shinjuku station -> Shinjuku-ku"),
    (35.6586, 139.7454, "13103", "Tokyo Tower -> Minato-ku"),
    (33.7490, -84.3880, "US-13121", "Atlanta City Hall -> Fulton County"),
    (35.7796, -78.6382, "37183", "Raleigh -> Wake County"),
]


def run(*args, check=True):
    result = subprocess.run([ROQUA, *args], env=ENV, capture_output=True, text=True, timeout=900)
    if check and result.returncode != 0:
        sys.exit(f"FAIL: roqua {' '.join(args)} exited {result.returncode}:\n{result.stderr}")
    return result


def resolve(points):
    text = "".join(json.dumps({"lat": lat, "lon": lon}) + "\n" for lat, lon in points)
    result = subprocess.run([ROQUA, "resolve", "--input", "-", "--format", "ndjson", "--fallback-meters", "0", "--no-locality"],
                            input=text, env=ENV, capture_output=True, text=True, timeout=900)
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    if len(answers) != len(points):
        sys.exit(f"FAIL: {len(points)} points, {len(answers)} answers; stderr: {result.stderr[:500]}")
    return answers


def expected_points(layer):
    name, path, extra, code_field, encoding, crs, metric, province = layer
    prefix = extra[extra.index("--code-prefix") + 1] if "--code-prefix" in extra else ""
    full = os.path.join(EXAMPLES, path)
    source = pyproj.CRS.from_wkt(open(full[:-4] + ".prj").read()) if crs == "prj" else pyproj.CRS(crs)
    to_wgs84 = pyproj.Transformer.from_crs(source, "EPSG:4326", always_xy=True).transform
    to_metric = pyproj.Transformer.from_crs(source, metric, always_xy=True).transform if metric else None
    from_metric = pyproj.Transformer.from_crs(metric, "EPSG:4326", always_xy=True).transform if metric else to_wgs84
    reader = shapefile.Reader(full, encoding=encoding)
    points = []  # (lat, lon, code, province, kind)
    for record in reader.iterShapeRecords():
        code = prefix + str(record.record[code_field]).strip()
        geometry = shape(record.shape.__geo_interface__).buffer(0)
        if to_metric:
            geometry = transform(to_metric, geometry)
        inside = transform(from_metric, geometry.representative_point())
        points.append((inside.y, inside.x, code, province(code), "interior"))
        shrunk = geometry.buffer(-150)
        if shrunk.is_empty:
            continue
        largest = max(getattr(shrunk, "geoms", [shrunk]), key=lambda part: part.area)
        ring = largest.exterior
        for step in range(8):
            point = transform(from_metric, ring.interpolate(step / 8, normalized=True))
            points.append((point.y, point.x, code, province(code), "150 m inside"))
    return points


def sha256(path):
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def main():
    failures = []
    print("Building the bundled boundary database ...", flush=True)
    run("import")
    turkey = [(36.0 + 0.05 * i, 26.0 + 0.19 * j) for i in range(1, 120, 3) for j in range(1, 100, 3)]
    before = resolve(turkey)

    for layer in LAYERS:
        name, path, extra = layer[0], layer[1], layer[2]
        result = run("import", "--add", os.path.join(EXAMPLES, path), "--level", "district", *extra)
        print(f"{name}: " + result.stdout.strip().splitlines()[0], flush=True)
        points = expected_points(layer)
        answers = resolve([(lat, lon) for lat, lon, *_ in points])
        for kind in ("interior", "150 m inside"):
            chosen = [(p, a) for p, a in zip(points, answers) if p[4] == kind]
            right = sum(1 for p, a in chosen
                        if (a.get("district") or {}).get("code") == p[2] and (a.get("province") or {}).get("code") == p[3])
            share = right / len(chosen)
            wrong = [(p[2], p[0], p[1], (a.get("district") or {}).get("code"), (a.get("province") or {}).get("code"))
                     for p, a in chosen
                     if (a.get("district") or {}).get("code") != p[2] or (a.get("province") or {}).get("code") != p[3]]
            print(f"  {kind:>13} points: {right}/{len(chosen)} = {100 * share:.1f} % answer their own unit and province"
                  + (f"; e.g. {wrong[:3]}" if wrong else ""))
            if share < 0.98:
                failures.append(f"{name}: {kind} points {100 * share:.1f} % < 98 %")

    for lat, lon, code, label in PLACES:
        answer = resolve([(lat, lon)])[0]
        got = (answer.get("district") or {})
        ok = got.get("code") == code
        print(f"  {label}: {got.get('code')} {got.get('name')} {'ok' if ok else 'WRONG'}")
        if not ok:
            failures.append(f"{label}: got {got}")

    after = resolve(turkey)
    same = sum(1 for a, b in zip(before, after) if a == b)
    print(f"Türkiye: {same}/{len(turkey)} answers identical before and after the three layers")
    if same != len(turkey):
        failures.append("Türkiye's answers changed")

    # A walk through three Tokyo wards (half an hour between them: a walk, not a flight), imported
    # as a track, counts x/N over the new municipalities.
    wards = {"13104": (35.6896, 139.7006), "13103": (35.6586, 139.7454), "13101": (35.6940, 139.7536)}
    gpx = os.path.join(WORK, "walk.gpx")
    with open(gpx, "w") as handle:
        handle.write('<?xml version="1.0"?><gpx version="1.1" creator="check" xmlns="http://www.topografix.com/GPX/1/1"><trk><trkseg>')
        for minute, (lat, lon) in enumerate(wards.values()):
            handle.write(f'<trkpt lat="{lat}" lon="{lon}"><time>2025-04-01T{10 + minute // 2}:{minute % 2 * 30:02d}:00Z</time></trkpt>')
        handle.write("</trkseg></trk></gpx>")
    run("track", "import", gpx)
    tokyo_units = {p[2] for p in expected_points(LAYERS[0]) if p[3] == "JP-13"}
    stats = json.loads(run("stats", "--unit", "JP-13", "--json").stdout)
    print(f"roqua stats --unit JP-13: {json.dumps(stats)[:300]}")
    text = run("stats", "--unit", "Tokyo").stdout
    line = next((l for l in text.splitlines() if "district" in l.lower()), text.splitlines()[0])
    print(f"roqua stats --unit Tokyo: {line.strip()}")
    if f"3/{len(tokyo_units)}" not in text:
        failures.append(f"stats --unit Tokyo does not say 3/{len(tokyo_units)}: {text[:400]}")

    # A broken layer (its .shx cut short) fails naming the file and leaves the database as it was.
    broken = os.path.join(WORK, "broken")
    os.makedirs(broken, exist_ok=True)
    base = os.path.join(EXAMPLES, "sids2", "sids2")
    for ext in ("shp", "dbf"):
        with open(base + "." + ext, "rb") as src, open(os.path.join(broken, "cut." + ext), "wb") as dst:
            dst.write(src.read())
    with open(base + ".shx", "rb") as src, open(os.path.join(broken, "cut.shx"), "wb") as dst:
        dst.write(src.read()[:300])
    digest = sha256(DB)
    result = run("import", "--add", os.path.join(broken, "cut.shp"), "--level", "district", check=False)
    print(f"a broken layer: exit {result.returncode}: {result.stderr.strip()[:200]}")
    if result.returncode == 0 or "cut" not in result.stderr or sha256(DB) != digest:
        failures.append("a broken layer was not refused cleanly")

    if failures:
        sys.exit("FAIL:\n  " + "\n  ".join(failures))
    print("All real-layer checks passed.")


main()
