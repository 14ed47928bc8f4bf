#!/usr/bin/env bash
# Runs the whole test suite of both packages — the geocoder (this folder) and the tour groups
# (chat/) — installing missing system libraries first. The tests build their
# own boundary DB from data/ and never use the network; where the kernel lets us, they run in a
# network namespace with no interfaces to prove it.
#   scripts/test.sh          everything (what CI runs): both packages' suites, then `roqua serve`
#                            against geopy's Nominatim client, three real boundary files added with
#                            `import --add`, explorer tiles and days per place on a generated 1 M-fix
#                            history, the real install script and .deb (toolchain hidden, and in a
#                            fresh Debian root), the README's embedding example as its own package,
#                            every transcript in README.md and docs/, `roqua serve` in a real browser
#                            (chromium), the fault test (kill -9, full disk, read-only and damaged
#                            stores) and every fuzz target for 15 s (one per core at a time)
#   scripts/test.sh --fast   only the suites, without those tagged slow (names ending in SlowTests),
#                            and the checks that no JSON is built by hand (json-by-types.py)
#                            and that every Swift file is formatted (format-lint.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/common.sh
# Before anything is built (it reads the sources only): answers are Codable types, not JSON put
# together from strings (what is still pending is listed in scripts/checks/json-by-types.allow).
python3 scripts/checks/json-by-types.py
# Formatting: every Swift file as `swift format` (in the toolchain) writes it with .swift-format.
scripts/checks/format-lint.sh
roqua_install_system_packages
roqua_install_system_packages "${ROQUA_TEST_APT_PACKAGES[@]}" \
  || echo "warning: could not install ${ROQUA_TEST_APT_PACKAGES[*]}; the browser test will say what is missing" >&2
roqua_forget_plan .build
roqua_build .build-tests.log --build-tests
# The tour-group package builds into the same folder: what both packages use (SwiftNIO,
# Hummingbird, GRDB, swift-crypto, the shared Roqua modules) is compiled once.
chat=(--package-path chat --scratch-path "$PWD/.build")
roqua_forget_plan .build
roqua_build .build-chat-tests.log "${chat[@]}" --build-tests
roqua_forget_plan .build  # the next plain `swift build` plans the root package again
args=(--skip-build)
[ "${1:-}" = "--fast" ] && args+=(--skip SlowTests)
offline=()
if unshare -n true 2>/dev/null && command -v ip >/dev/null; then
  echo "Running the tests with networking disabled (unshare -n; loopback only, for the server tests)."
  # The chat and serve tests talk HTTP (and PostgreSQL) over 127.0.0.1, and a new network
  # namespace starts with its loopback down; bring it up, nothing else exists there.
  offline=(unshare -n sh -c 'ip link set lo up && exec "$@"' sh)
fi
echo "The geocoder, roqua serve and their programs:"
"${offline[@]}" swift test "${args[@]}"
echo "Tour groups (chat/):"
# With --skip-build, `swift test` runs the test bundle of whatever build plan is on disk, and the
# step above leaves the root package's there: without this the geocoder's tests ran twice and the
# tour groups' not at all (seen once in CI, 596 tests in place of 87).
roqua_forget_plan .build
"${offline[@]}" swift test "${chat[@]}" "${args[@]}"
[ "${1:-}" = "--fast" ] && exit 0
echo "roqua serve against geopy's Nominatim client (geopy installed from PyPI into a venv):"
scripts/checks/geopy-test.sh
echo "roqua import --add on three real public layers (Tokyo, Georgia, North Carolina), checked against pyproj and shapely:"
scripts/checks/real-layers-test.sh
echo "Explorer tiles and days per place on a generated 1,000,000-fix history, against an independent computation:"
scripts/checks/travel-test.sh
echo "The installation: scripts/install.sh and the .deb, run with the Swift toolchain hidden:"
scripts/checks/install-test.sh
echo "The README's example of embedding the resolver, built as a separate package:"
scripts/checks/embed-test.sh
echo "Every transcript in README.md and docs/, run and compared:"
python3 scripts/checks/check-docs.py --bin .build/debug --chat-bin .build/debug
echo "roqua serve's page in a real browser (chromium, selenium):"
scripts/checks/browser-test.sh
echo "Fault test (kill -9 during imports, full disk, read-only directory, damaged store):"
scripts/checks/fault-test.sh 20
echo "Fuzzing every parser of outside input for 15 s each:"
scripts/checks/fuzz.sh 15
