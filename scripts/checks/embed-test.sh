#!/usr/bin/env bash
# The README's example of embedding the resolver, built as a separate Swift package (the
# README's own Package.swift and main.swift, with the path to this checkout), run against a
# boundary database the built `roqua import` makes; then checked to have built only what
# answering needs: GEOS, SQLite (GRDB), the resolver, no readers, crypto, zip, shapelib or PROJ.
#   scripts/checks/embed-test.sh     (build first: swift build --product roqua; ROQUA_BIN=… to pick a binary)
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
roqua=${ROQUA_BIN:-.build/debug/roqua}
[ -x "$roqua" ] || { echo "build first: swift build --product roqua" >&2; exit 1; }
work=$(mktemp -d /tmp/roqua-embed.XXXXXX)
trap 'rm -rf "$work"' EXIT
# The README's blocks that follow the markers <!-- embed: Package.swift --> and <!-- embed: main.swift -->.
extract() {
  awk -v name="$1" '
    $0 ~ "<!-- embed: " name " -->" { want = 1; next }
    want && /^```/ { if (inside) exit; inside = 1; next }
    inside { print }' README.md
}
mkdir -p "$work/WhereAmI/Sources/WhereAmI"
extract Package.swift | sed "s|path: \"../roqua\"|path: \"$repo\"|" >"$work/WhereAmI/Package.swift"
extract main.swift >"$work/WhereAmI/Sources/WhereAmI/main.swift"
for f in Package.swift Sources/WhereAmI/main.swift; do
  [ -s "$work/WhereAmI/$f" ] || { echo "README.md has no embedding example for $f (<!-- embed: ${f##*/} --> before a code block)" >&2; exit 1; }
done
grep -q "$repo" "$work/WhereAmI/Package.swift" || { echo "the README's Package.swift does not depend on path: \"../roqua\"" >&2; exit 1; }
# The build folder is kept between runs (.build-embed), so only the first build compiles GRDB.
echo "Building the README's embedding example as its own package…" >&2
if ! swift build --package-path "$work/WhereAmI" --scratch-path "$repo/.build-embed" >"$repo/.build-embed.log" 2>&1; then
  grep -E "error:" "$repo/.build-embed.log" >&2 || tail -30 "$repo/.build-embed.log" >&2
  exit 1
fi
XDG_DATA_HOME=$work/data "$roqua" import >/dev/null
output=$(ROQUA_BOUNDARIES=$work/data/roqua/boundaries.sqlite "$repo/.build-embed/debug/WhereAmI")
# What the README says it prints, line for line.
expected=$(awk '/<!-- embed: output -->/ { want = 1; next } want && /^```/ { if (inside) exit; inside = 1; next } inside { print }' README.md)
if [ "$output" != "$expected" ]; then
  echo "FAIL the example printed:"; echo "$output"; echo "the README says:"; echo "$expected"; exit 1
fi
echo "ok   the README's example builds as a separate package and prints what the README shows"
# Only what answering needs was compiled (SwiftPM makes a folder for every module it could build;
# the compiled ones hold object files).
built=$(cd "$repo/.build-embed/debug" && find . -name '*.o' | awk -F/ '$2 ~ /\.build$/ {sub(/\.build$/, "", $2); print $2}' | sort -u | tr '\n' ' ')
[ -n "$built" ] || { echo "FAIL no object files found in .build-embed/debug"; exit 1; }
for unwanted in RoquaIO RoquaBatch RoquaImport CShapelib CLoaded CZlib Crypto CCryptoBoringSSL NIOCore Hummingbird; do
  case " $built " in *" $unwanted "*) echo "FAIL embedding RoquaBoundaries built $unwanted (built: $built)"; exit 1 ;; esac
done
echo "ok   it built only: $built"
