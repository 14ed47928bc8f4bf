#!/usr/bin/env bash
# Installs a built roqua into PREFIX (default ~/.local): PREFIX/bin/roqua and the bundled boundary
# dataset in PREFIX/share/roqua/, where the binary finds it without the source tree. When
# roqua-serve (`roqua serve`, a program of its own) is built too, it goes beside roqua and Debian's
# Leaflet (libjs-leaflet) is copied to PREFIX/share/roqua/leaflet/ for its page (the page's own
# files are compiled into the binary).
#   scripts/install.sh [PREFIX]      (build first: swift build -c release --product roqua
#                                     [and --product roqua-serve])
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=${1:-$HOME/.local}
binary=.build/release/roqua
[ -x "$binary" ] || { echo "no $binary: build it first (swift build -c release --product roqua)" >&2; exit 1; }
mkdir -p "$prefix/bin" "$prefix/share/roqua"
install -m 0755 "$binary" "$prefix/bin/roqua"
for f in data/*; do install -m 0644 "$f" "$prefix/share/roqua/"; done
server=.build/release/roqua-serve
[ -x "$server" ] || { echo "Installed $prefix/bin/roqua and its data in $prefix/share/roqua"; exit 0; }
install -m 0755 "$server" "$prefix/bin/roqua-serve"
leaflet=/usr/share/javascript/leaflet
if [ -f "$leaflet/leaflet.js" ]; then
  mkdir -p "$prefix/share/roqua/leaflet/images"
  # GNU install copies what a symlink points to (Debian links leaflet.js): no option needed.
  install -m 0644 "$leaflet/leaflet.js" "$leaflet/leaflet.css" "$prefix/share/roqua/leaflet/"
  install -m 0644 "$leaflet"/images/*.png "$prefix/share/roqua/leaflet/images/"
else
  echo "note: $leaflet not found (apt-get install libjs-leaflet); roqua serve will look for it at run time" >&2
fi
echo "Installed $prefix/bin/roqua, $prefix/bin/roqua-serve and their data in $prefix/share/roqua"
