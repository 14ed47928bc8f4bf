#!/usr/bin/env bash
# Makes .build-bench/venv with the pinned peers for scripts/bench/bench_peers.py and bench_shapely_e2e.py,
# and checks that Debian's /usr/bin/python3 can load mod_spatialite (the SpatiaLite peer).
# Development time only: needs PyPI.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
venv=$here/.build-bench/venv
python=${PYTHON:-python3}

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check --only-binary=:all: --require-hashes -r "$here/scripts/bench/bench-requirements.txt"
"$venv/bin/python" -c 'import sys, shapely, numpy, pandas
print(f"venv: python {sys.version.split()[0]}, shapely {shapely.__version__} (GEOS {shapely.geos_version_string}), numpy {numpy.__version__}, pandas {pandas.__version__}")'

if /usr/bin/python3 -c 'import sqlite3
c = sqlite3.connect(":memory:"); c.enable_load_extension(True); c.load_extension("mod_spatialite")
print("spatialite: /usr/bin/python3 %s, SpatiaLite %s (GEOS %s)" % ((__import__("sys").version.split()[0],) + c.execute("SELECT spatialite_version(), geos_version()").fetchone()))' 2>/dev/null; then
  :
else
  echo "spatialite: /usr/bin/python3 cannot load mod_spatialite; install it with:" >&2
  echo "  apt-get install -y libsqlite3-mod-spatialite" >&2
fi
echo "run: $venv/bin/python scripts/bench/bench_peers.py DB POINTS.csv ..."
