#!/usr/bin/env bash
# Faults a user's machine can throw at the region store, each checked against what must hold:
#   kill -9 at random moments during `track import`, `rebuild`, `forget` and `restore` (the store
#   equals the state before or after, never a mix); a full disk and a read-only directory (a clear error, the store as it
#   was); a damaged store (a clear error, no crash); four concurrent imports (covered by the test
#   suite's ConcurrentImportTests).
#   scripts/checks/fault-test.sh [KILL_RUNS]     (default 20; needs a built .build/debug/roqua)
set -uo pipefail
cd "$(dirname "$0")/../.."
runs=${1:-20}
roqua=$PWD/.build/debug/roqua
[ -x "$roqua" ] || { echo "build first: swift build" >&2; exit 1; }
work=$(mktemp -d /tmp/roqua-fault.XXXXXX)
trap 'rm -rf "$work"' EXIT
boundaries=${ROQUA_BOUNDARIES:-$work/boundaries.sqlite}
[ -f "$boundaries" ] || "$roqua" import --out "$boundaries" >/dev/null
failures=0
fail() { echo "FAILED: $*" >&2; failures=$((failures + 1)); }
export_of() { "$roqua" export --store "$1" 2>/dev/null | grep -v -E '"(imported_at|unlocked_at)"'; }

# A day's walk around İstanbul: 200,000 fixes, 5 s apart.
python3 - "$work/walk.csv" <<'PY'
import math, sys
with open(sys.argv[1], "w") as f:
    f.write("lat,lon,timestamp,accuracy\n")
    lat, lon = 41.0, 28.9
    for i in range(200_000):
        h = (i // 2000) * 2.4
        lat = min(max(lat + 0.000045 * math.cos(h), 40.95), 41.15)
        lon = min(max(lon + 0.00006 * math.sin(h), 28.7), 29.2)
        f.write(f"{lat:.6f},{lon:.6f},{1714550400 + i * 5},5\n")
PY
printf 'lat,lon,timestamp\n40.9879,29.0281,2024-05-01T08:00:00Z\n' > "$work/first.csv"
"$roqua" track import "$work/first.csv" --store "$work/base.sqlite" --boundaries "$boundaries" >/dev/null
before=$(export_of "$work/base.sqlite")
cp "$work/base.sqlite" "$work/done.sqlite"
start=$(date +%s%N)
"$roqua" track import "$work/walk.csv" --store "$work/done.sqlite" --boundaries "$boundaries" >/dev/null
duration_ms=$(( ($(date +%s%N) - start) / 1000000 ))
after=$(export_of "$work/done.sqlite")

# 1. kill -9 at random moments.
survived=0; mixed=0; completed=0
for i in $(seq 1 "$runs"); do
  rm -f "$work/run.sqlite"*
  cp "$work/base.sqlite" "$work/run.sqlite"
  "$roqua" track import "$work/walk.csv" --store "$work/run.sqlite" --boundaries "$boundaries" >/dev/null 2>&1 &
  pid=$!
  sleep "$(awk -v r="$RANDOM" -v d="$duration_ms" 'BEGIN { printf "%.3f", (r / 32767) * d * 1.1 / 1000 }')"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  now=$(export_of "$work/run.sqlite")
  integrity=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('pragma integrity_check').fetchone()[0])" "$work/run.sqlite")
  if [ "$integrity" = ok ] && { [ "$now" = "$before" ] || [ "$now" = "$after" ]; }; then
    survived=$((survived + 1)); [ "$now" = "$after" ] && completed=$((completed + 1))
  else
    mixed=$((mixed + 1)); fail "kill run $i left a state that is neither before nor after (integrity: $integrity)"
  fi
done
echo "kill -9 during import: $runs runs, $survived survived ($completed had already committed), lost or mixed: $mixed"

# 1b. kill -9 during the commands that derive everything again or replace it: `rebuild`, `forget`
# and `restore` of a backup. The store is as before or as after (its export and its history).
state_of() { export_of "$1"; "$roqua" history --store "$1" --json 2>/dev/null; }
"$roqua" backup --store "$work/done.sqlite" "$work/done.backup" >/dev/null
kill_check() {  # kill_check NAME BASE_STORE ROQUA_ARGS…
  local name=$1 base=$2; shift 2
  rm -f "$work/k-done.sqlite"*; cp "$base" "$work/k-done.sqlite"
  local before; before=$(state_of "$work/k-done.sqlite")
  local start; start=$(date +%s%N)
  "$roqua" "$@" --store "$work/k-done.sqlite" >/dev/null 2>&1 || fail "$name did not succeed when left alone"
  local ms=$(( ($(date +%s%N) - start) / 1000000 ))
  local after; after=$(state_of "$work/k-done.sqlite")
  [ "$before" != "$after" ] || fail "$name changed nothing: the kill test would prove nothing"
  local good=0 done_=0
  for i in $(seq 1 $(( (runs + 3) / 4 ))); do
    rm -f "$work/k.sqlite"*; cp "$base" "$work/k.sqlite"
    "$roqua" "$@" --store "$work/k.sqlite" >/dev/null 2>&1 &
    local pid=$!
    sleep "$(awk -v r="$RANDOM" -v d="$ms" 'BEGIN { printf "%.3f", (r / 32767) * d * 1.1 / 1000 }')"
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    local now; now=$(state_of "$work/k.sqlite")
    local integrity; integrity=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('pragma integrity_check').fetchone()[0])" "$work/k.sqlite")
    if [ "$integrity" = ok ] && { [ "$now" = "$before" ] || [ "$now" = "$after" ]; }; then
      good=$((good + 1)); [ "$now" = "$after" ] && done_=$((done_ + 1))
    else
      fail "kill during $name, run $i: neither before nor after (integrity: $integrity)"
    fi
  done
  echo "kill -9 during $name (${ms} ms alone): $good survived ($done_ had already committed)"
}
kill_check rebuild "$work/done.sqlite" rebuild --boundaries "$boundaries" --clustering-radius 400
kill_check forget "$work/done.sqlite" forget --boundaries "$boundaries" --from 2024-05-01T12:00:00Z --to 2024-05-01T18:00:00Z --yes
kill_check restore "$work/base.sqlite" restore "$work/done.backup" --replace

# 2. A full disk (a tmpfs 96 KiB larger than the store, in a mount namespace) and 3. a read-only directory.
if unshare -m true 2>/dev/null; then
  unshare -m /bin/sh -c '
    set -u
    mnt="$1"; roqua="$2"; boundaries="$3"; walk="$4"; first="$5"; base="$6"
    mkdir -p "$mnt"
    mount -t tmpfs -o size=$(( $(stat -c %s "$base") + 96 * 1024 )) roqua-full "$mnt"
    cp "$base" "$mnt/full.sqlite" || exit 11
    "$roqua" export --store "$mnt/full.sqlite" 2>/dev/null | grep -v -E "imported_at|unlocked_at" > "$mnt.before"
    out=$("$roqua" track import "$walk" --store "$mnt/full.sqlite" --boundaries "$boundaries" 2>&1) && exit 12
    echo "$out" | grep -q "disk is full" || { echo "$out" >&2; exit 13; }
    "$roqua" export --store "$mnt/full.sqlite" 2>/dev/null | grep -v -E "imported_at|unlocked_at" | cmp -s - "$mnt.before" || exit 14
    mount -o remount,ro "$mnt"
    out=$("$roqua" track import "$first" --store "$mnt/other.sqlite" --boundaries "$boundaries" 2>&1) && exit 15
    echo "$out" | grep -q "read-only\|cannot" || { echo "$out" >&2; exit 16; }
    exit 0
  ' sh "$work/mnt" "$roqua" "$boundaries" "$work/walk.csv" "$work/first.csv" "$work/base.sqlite"
  case $? in
    0) echo "full disk: clear error, store unchanged; read-only directory: clear error" ;;
    *) fail "full disk / read-only directory (code $?)" ;;
  esac
else
  echo "full disk / read-only directory: skipped (no mount namespace here)"
fi

# 4. A damaged store: every verb fails with a clear message, none crashes.
cp "$work/done.sqlite" "$work/damaged.sqlite"
python3 -c "
import sys
with open(sys.argv[1], 'r+b') as f:
    f.seek(4096 * 3); f.write(b'\xde\xad' * 4096)" "$work/damaged.sqlite"
for verb in regions stats export; do
  extra=(); [ "$verb" = stats ] && extra=(--boundaries "$boundaries")
  out=$("$roqua" "$verb" --store "$work/damaged.sqlite" "${extra[@]}" 2>&1 >/dev/null); code=$?
  if [ $code -ge 128 ] || { [ $code -ne 0 ] && ! echo "$out" | grep -q "damaged\|not a database\|cannot"; }; then
    fail "damaged store, $verb: exit $code: $out"
  fi
done
echo "damaged store: regions, stats, export end with a clear error or an answer, no crash"

[ $failures -eq 0 ] && echo "fault test: all passed" || { echo "fault test: $failures failure(s)" >&2; exit 1; }
