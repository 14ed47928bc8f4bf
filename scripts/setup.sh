#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds Roqua, builds the boundary
# database from the bundled data/ and resolves a few coordinates offline.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
roqua_install_system_packages
roqua_build .build-setup.log -c release --product roqua
roqua=.build/release/roqua
"$roqua" import
echo
echo "\$ roqua resolve 40.9879 29.0281"
"$roqua" resolve 40.9879 29.0281
echo
echo "\$ roqua resolve --input scripts/examples/places.csv"
"$roqua" resolve --input scripts/examples/places.csv || true
echo
echo "Roqua is ready: $PWD/$roqua (copy it onto your PATH if you like)."
