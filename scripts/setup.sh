#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds roqua and installs it into
# $ROQUA_PREFIX (default ~/.local: bin/roqua, share/roqua/, completions, man pages; see
# scripts/install.sh, which also installs roqua serve and the tour-group programs), builds the boundary
# database from the bundled data and resolves a few coordinates offline.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
roqua_install_system_packages
prefix=${ROQUA_PREFIX:-$HOME/.local}
scripts/install.sh --products roqua "$prefix"
roqua="$prefix/bin/roqua"
"$roqua" import
echo
echo "\$ roqua resolve 40.9879 29.0281"
"$roqua" resolve 40.9879 29.0281
echo
echo "\$ roqua resolve --input scripts/examples/places.csv"
"$roqua" resolve --input scripts/examples/places.csv || true
echo
case ":$PATH:" in
  *":$prefix/bin:"*) echo "Roqua is ready: $roqua" ;;
  *) echo "Roqua is ready: $roqua (add $prefix/bin to your PATH to type just 'roqua')" ;;
esac
