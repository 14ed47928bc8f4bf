#!/usr/bin/env bash
# The README's example of embedding the resolver, built as a separate Swift package (the
# README's own Package.swift and main.swift, with the path to this checkout), run against a
# boundary database the built `roqua import` makes; then checked to have built only what
# answering needs: GEOS, SQLite (GRDB), the resolver, no readers, crypto, zip, shapelib or PROJ.
# Then the same example depending on Roqua by version, as an app would (`from: "X.Y.Z"` on a git
# tag of this checkout in a scratch repository): SwiftPM refuses such a dependency when a target it
# builds has unsafe flags, or when a product reaches a package that is only a local path.
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

# By version. The checkout as it is (tracked files with their uncommitted changes, and new files
# not ignored) committed in a scratch repository and tagged with Roqua's version.
version=$(sed -n 's/.*static let version = "\(.*\)".*/\1/p' Sources/RoquaText/Version.swift)
[ -n "$version" ] || { echo "FAIL no version in Sources/RoquaText/Version.swift"; exit 1; }
clone=$work/git/roqua  # the last path component is the package's identity: "roqua", as the README names it
mkdir -p "$clone"
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
  [ -e "$f" ] && printf '%s\0' "$f"
done | xargs -0 cp --parents -t "$clone"
git -C "$clone" init -q
git -C "$clone" add -A
git -C "$clone" -c user.name=embed-test -c user.email=embed-test@localhost commit -q -m "Roqua $version"
git -C "$clone" tag "$version"
mkdir -p "$work/ByVersion/Sources/WhereAmI" "$work/ByVersion/Sources/EveryProduct"
# Beside the README's target, one that names every library product: SwiftPM checks the products a
# package uses for unsafe flags when it plans the build, so this target is planned, never built.
products=$(sed -n 's/^ *\.library(name: "\([A-Za-z]*\)".*/.product(name: "\1", package: "Roqua"), /p' Package.swift | tr -d '\n')
[ -n "$products" ] || { echo "FAIL no library products found in Package.swift"; exit 1; }
extract Package.swift | sed "s|.package(name: \"Roqua\", path: \"../roqua\")|.package(url: \"file://$clone\", from: \"$version\")|" \
  | sed "s|^    targets: \[|    targets: [\n        .target(name: \"EveryProduct\", dependencies: [$products]),|" >"$work/ByVersion/Package.swift"
grep -q "from: \"$version\"" "$work/ByVersion/Package.swift" && grep -q EveryProduct "$work/ByVersion/Package.swift" \
  || { echo "the README's Package.swift does not have .package(name: \"Roqua\", path: \"../roqua\") and targets: [ to pin by version" >&2; exit 1; }
echo "// Every library product of Roqua, planned and never built." >"$work/ByVersion/Sources/EveryProduct/EveryProduct.swift"
extract main.swift >"$work/ByVersion/Sources/WhereAmI/main.swift"
echo "Building the example against Roqua $version by version (a git tag)…" >&2
if ! swift build --package-path "$work/ByVersion" --scratch-path "$repo/.build-embed-version" --product WhereAmI \
    >"$repo/.build-embed-version.log" 2>&1; then
  grep -E "error:" "$repo/.build-embed-version.log" >&2 || tail -30 "$repo/.build-embed-version.log" >&2
  echo "FAIL the example does not build with Roqua as a dependency by version (log: .build-embed-version.log)"; exit 1
fi
grep -q "\"version\" : \"$version\"" "$work/ByVersion/Package.resolved" \
  || { echo "FAIL Roqua was not resolved at version $version:"; cat "$work/ByVersion/Package.resolved"; exit 1; }
output=$(ROQUA_BOUNDARIES=$work/data/roqua/boundaries.sqlite "$repo/.build-embed-version/debug/WhereAmI")
if [ "$output" != "$expected" ]; then
  echo "FAIL by version the example printed:"; echo "$output"; echo "the README says:"; echo "$expected"; exit 1
fi
echo "ok   the example resolves a point with Roqua $version as a dependency by version (every library product allowed)"
