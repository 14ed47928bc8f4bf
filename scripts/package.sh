#!/usr/bin/env bash
# Makes a Debian package of Roqua: scripts/install.sh into a staging /usr, then dpkg-deb. Its
# Depends are the Debian packages that own the shared libraries the programs link directly (their
# ELF NEEDED entries, located with ldd, owners found with dpkg -S on this machine; what those
# libraries need in turn their own packages depend on) and the ones roqua loads when first used
# (PROJ, libzip), so the .deb needs no Swift toolchain and every command works.
# Usage: scripts/package.sh [--products "roqua roqua-serve roqua-chat roqua-chat-server"] [OUTDIR]   (default OUTDIR: .)
set -euo pipefail
cd "$(dirname "$0")/.."
products="roqua roqua-serve roqua-chat roqua-chat-server"
if [ "${1:-}" = "--products" ]; then products=$2; shift 2; fi
out=$(realpath "${1:-.}")
stage=$(mktemp -d /tmp/roqua-deb.XXXXXX)
trap 'rm -rf "$stage"' EXIT
ROQUA_BINDIR=/usr/bin scripts/install.sh --products "$products" "$stage/usr" >/dev/null
# Debian keeps completions and man pages where their tools look.
mv "$stage/usr/share/zsh/site-functions" "$stage/usr/share/zsh/vendor-completions"
gzip -9n "$stage"/usr/share/man/man1/*.1
version=$("$stage/usr/bin/roqua" --version)+git$(git log -1 --format=%cd --date=format:%Y%m%d)
arch=$(dpkg --print-architecture)
declare -A owners=()
for product in $products; do
  needed=$(readelf -d "$stage/usr/bin/$product" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  while read -r library; do
    [ -n "$library" ] || continue
    owner=$(dpkg -S "$(realpath "$library")" 2>/dev/null | sed -n 1p | cut -d: -f1) || owner=""
    [ -n "$owner" ] || owner=$(dpkg -S "$library" 2>/dev/null | sed -n 1p | cut -d: -f1) || owner=""
    [ -n "$owner" ] || { echo "no Debian package owns $library (needed by $product)" >&2; exit 1; }
    owners[$owner]=1
  done < <(ldd "$stage/usr/bin/$product" | awk -v needed=" $(echo $needed) " '/=> \// && index(needed, " " $1 " ") {print $3}')
done
# PROJ and libzip are loaded when first used, not linked (Sources/CLoaded/shim.h), so no NEEDED
# entry names them; the packages owning the sonames that shim loads are Depends all the same.
for soname in $(grep -o 'roqua_open_library("[^"]*"' Sources/CLoaded/shim.h | cut -d'"' -f2); do
  # awk reads to the end: stopping at the first match would kill ldconfig with SIGPIPE (its list
  # outgrows the pipe's buffer on a machine with many libraries), and pipefail then stops here.
  library=$(ldconfig -p | awk -v name="$soname" '$1 == name && !found { print $NF; found = 1 }')
  [ -n "$library" ] || { echo "$soname (loaded by roqua when first used) is not installed here" >&2; exit 1; }
  owner=$(dpkg -S "$(realpath "$library")" 2>/dev/null | sed -n 1p | cut -d: -f1) || owner=""
  [ -n "$owner" ] || { echo "no Debian package owns $library (loaded by roqua when first used)" >&2; exit 1; }
  owners[$owner]=1
done
depends=$(printf '%s\n' "${!owners[@]}" | sort | paste -sd, | sed 's/,/, /g')
recommends=""
case " $products " in *" roqua-serve "*) recommends="Recommends: libjs-leaflet" ;; esac
mkdir -p "$stage/DEBIAN"
{
  echo "Package: roqua"
  echo "Version: $version"
  echo "Architecture: $arch"
  echo "Maintainer: Roqua developers <roqua@localhost>"
  echo "Depends: $depends"
  [ -z "$recommends" ] || echo "$recommends"
  echo "Section: utils"
  echo "Priority: optional"
  echo "Installed-Size: $(du -sk "$stage/usr" | cut -f1)"
  echo "Description: offline reverse geocoder and private exploration map"
  echo " Turns coordinates into country, province, district and locality with no network,"
  echo " and GPS tracks into visited regions, progress, flights, days per place and tiles."
} >"$stage/DEBIAN/control"
deb="$out/roqua_${version}_${arch}.deb"
dpkg-deb --build --root-owner-group "$stage" "$deb" >/dev/null
echo "$deb"
echo "Depends: $depends"
