#!/usr/bin/env bash
# Explorer tiles and days per place against an independent computation (scripts/checks/travel_check.py)
# on a generated 1,000,000-fix history. Offline; Python's standard library only.
#   scripts/checks/travel-test.sh [FIXES]   (build first: swift build --product roqua; ROQUA_BIN=… to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
ROQUA=$(serve_roqua_binary)
work=$(mktemp -d /tmp/roqua-travel.XXXXXX)
trap 'rm -rf "$work"' EXIT
# Its own boundary DB (or $ROQUA_BOUNDARIES): a fresh machine has none in the data home.
export ROQUA_BOUNDARIES=${ROQUA_BOUNDARIES:-$work/boundaries.sqlite}
[ -f "$ROQUA_BOUNDARIES" ] || "$ROQUA" import --out "$ROQUA_BOUNDARIES" >/dev/null
python3 scripts/checks/travel_check.py "$ROQUA" "$work" "$@"
