#!/usr/bin/env bash
# The exploration page in a real browser: Debian's chromium and chromium-driver driven by
# python3-selenium against `roqua serve` on 127.0.0.1 with an empty store. Screenshots
# (serve-page.png, serve-page-en.png, serve-phone.png, serve-phones.png, serve-travel.png) go to DIR, or a temporary directory; the docs' come from
# `scripts/checks/browser-test.sh scripts/examples`. Then a second server whose one country is named
# with HTML (scripts/serve/hostile_names_check.py): its name must reach the page as text.
#   scripts/checks/browser-test.sh [DIR]    (build first: swift build --product roqua; ROQUA_BIN=… to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/serve/common.sh
for need in /usr/bin/chromium /usr/bin/chromedriver; do
  [ -x "$need" ] || { echo "missing $need: apt-get install chromium chromium-driver python3-selenium" >&2; exit 1; }
done
/usr/bin/python3 -c 'import selenium' 2>/dev/null || { echo "missing python3-selenium (apt-get install python3-selenium)" >&2; exit 1; }
ROQUA=$(serve_roqua_binary)
work=$(mktemp -d /tmp/roqua-browser.XXXXXX)
trap 'serve_stop; rm -rf "$work"' EXIT
serve_start "$work"
echo "chromium $(/usr/bin/chromium --version 2>/dev/null | awk '{print $2}') against roqua serve on 127.0.0.1:$SERVE_PORT"
shots=$(realpath "${1:-$work}")
/usr/bin/python3 scripts/serve/browser_check.py "$SERVE_PORT" "$PWD/scripts/examples/istanbul-day.gpx" "$shots"
serve_stop
# A unit named with HTML, as an added layer's file may name it: the page must show it as text and
# make no element of it (Leaflet sets a tooltip's string as innerHTML).
hostile="$work/hostile"
mkdir -p "$hostile/base"
echo '{"format":1,"layers":[]}' >"$hostile/base/manifest.json"
name='<a href="//evil.example/login">Sign in</a><img src=x onerror="document.title=1">'
/usr/bin/python3 -c 'import json, sys; json.dump({"type": "FeatureCollection", "features": [{"type": "Feature",
  "properties": {"CODE": "XH", "NAME": sys.argv[1]},
  "geometry": {"type": "Polygon", "coordinates": [[[-40, -30], [40, -30], [40, 50], [-40, 50], [-40, -30]]]}}]}, sys.stdout)' \
  "$name" >"$hostile/names.geojson"
XDG_DATA_HOME="$hostile/xdg" "$ROQUA" import --from "$hostile/base" --add "$hostile/names.geojson" --level country \
  --code CODE --name NAME --out "$hostile/boundaries.sqlite" >/dev/null
serve_start "$hostile"
/usr/bin/python3 scripts/serve/hostile_names_check.py "$SERVE_PORT" "$name"
