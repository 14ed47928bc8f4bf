#!/usr/bin/env bash
# Runs the whole test suite (installs missing system libraries first). The tests build their
# own boundary DB from data/ and never use the network; where the kernel lets us, they run in a
# network namespace with no interfaces to prove it.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
roqua_install_system_packages
roqua_build .build-tests.log --build-tests
if unshare -n true 2>/dev/null && command -v ip >/dev/null; then
  echo "Running the tests with networking disabled (unshare -n)."
  # Tour groups: the chat server tests talk HTTP (and PostgreSQL) over 127.0.0.1, and a new
  # network namespace starts with its loopback down; bring it up, nothing else exists there.
  unshare -n sh -c 'ip link set lo up && exec swift test --skip-build'
else
  swift test --skip-build
fi
