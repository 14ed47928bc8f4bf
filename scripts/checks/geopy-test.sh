#!/usr/bin/env bash
# The Nominatim-compatible /reverse tested with geopy's Nominatim client (PyPI geopy, pinned with
# hashes, installed into a throw-away venv: the only step that needs the network). The server
# itself runs on 127.0.0.1 with no network use.
#   scripts/checks/geopy-test.sh            (build first: swift build --product roqua; ROQUA_BIN=… to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
ROQUA=$(serve_roqua_binary)
work=$(mktemp -d /tmp/roqua-geopy.XXXXXX)
trap 'serve_stop; rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --require-hashes -r scripts/serve/geopy-requirements.txt
serve_start "$work"
echo "geopy $("$work/venv/bin/python" -c 'import geopy; print(geopy.__version__)') against roqua serve on 127.0.0.1:$SERVE_PORT"
"$work/venv/bin/python" scripts/serve/geopy_check.py "$SERVE_PORT"
