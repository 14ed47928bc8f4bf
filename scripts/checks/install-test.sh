#!/usr/bin/env bash
# The installation as a user gets it: scripts/install.sh into a fresh prefix, then the installed
# roqua run with the Swift toolchain hidden (a private mount namespace with an empty directory over
# it) and no variable pointing anywhere; then scripts/package.sh's .deb, unpacked and run the same
# way, its Depends checked against the libraries the program loads, and installed with apt into a
# fresh Debian root made by debootstrap, where it resolves.
#   scripts/checks/install-test.sh [--products "roqua …"]    (default: roqua; CI builds only that)
set -euo pipefail
cd "$(dirname "$0")/../.."
products=roqua
if [ "${1:-}" = "--products" ]; then products=$2; fi
work=$(mktemp -d /tmp/roqua-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() {  # check NAME COMMAND…
  local name=$1; shift
  if "$@" >"$work/out" 2>&1; then echo "ok   $name"; passed=$((passed + 1))
  else echo "FAIL $name"; sed 's/^/     /' "$work/out" | tail -15; failed=$((failed + 1)); fi
}
toolchain=$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")
prefix=$work/prefix
scripts/install.sh --products "$products" "$prefix"
check "programs, data, completions and man pages installed" bash -c "
  for p in $products; do
    test -x '$prefix/bin/'\$p && test -s '$prefix/share/bash-completion/completions/'\$p \
      && test -s '$prefix/share/zsh/site-functions/_'\$p && test -s '$prefix/share/fish/vendor_completions.d/'\$p.fish \
      && test -s '$prefix/share/man/man1/'\$p.1 || exit 1
  done
  test -s '$prefix/share/roqua/countries.shp' && test -s '$prefix/share/roqua/manifest.json'
  grep -q 'track' '$prefix/share/bash-completion/completions/roqua' && grep -q '^\.Dt ROQUA 1' '$prefix/share/man/man1/roqua.1' && test -s '$prefix/share/man/man1/roqua.track.import.1'"
check "no Swift runtime library is loaded (static Swift runtime)" bash -c "! ldd '$prefix/bin/roqua' | grep -E 'libswift|libFoundation|$toolchain'"
# Runs a command with the toolchain's directory hidden and a bare environment.
hidden() {
  unshare -m bash -c "mount -t tmpfs none '$toolchain' && exec env -i HOME='$work/home' PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC \"\$@\"" hidden "$@"
}
mkdir -p "$work/home"
if unshare -m true 2>/dev/null && hidden true 2>/dev/null; then
  check "toolchain hidden: $toolchain is empty in the namespace" unshare -m bash -c "mount -t tmpfs none '$toolchain' && ! test -e '$toolchain/usr/bin/swift'"
  check "toolchain hidden: installed roqua builds its database and resolves" bash -c "
    $(declare -f hidden); work='$work'; toolchain='$toolchain'
    hidden '$prefix/bin/roqua' import >/dev/null && hidden '$prefix/bin/roqua' resolve 40.9879 29.0281 | grep -qx 'Türkiye › İstanbul › Kadıköy'"
else
  echo "note: no mount namespace here (unshare -m refused): the runs below use the toolchain-free environment only"
  hidden() { env -i HOME="$work/home" PATH=/usr/bin:/bin LANG=C.UTF-8 TZ=UTC "$@"; }
  check "installed roqua builds its database and resolves" bash -c "
    env -i HOME='$work/home' PATH=/usr/bin:/bin '$prefix/bin/roqua' import >/dev/null \
      && env -i HOME='$work/home' PATH=/usr/bin:/bin '$prefix/bin/roqua' resolve 40.9879 29.0281 | grep -qx 'Türkiye › İstanbul › Kadıköy'"
fi
# roqua serve as a systemd user service: the unit install.sh writes (for the roqua-serve it
# installed, or else the build's beside the sources) must pass `systemd-analyze verify` without a
# word, and its ExecStart, run with the options of a serve.conf as systemd would read them, serves.
service=$work/service
if [ -x "$prefix/bin/roqua-serve" ]; then service=$prefix; serve_bin=$prefix/bin
else serve_bin=$(realpath .build/debug); scripts/service/install-service.sh "$service" "$serve_bin"; fi
unit=$service/share/systemd/user/roqua-serve.service
mkdir -p "$work/xdg" && chmod 0700 "$work/xdg"
check "the systemd user unit passes systemd-analyze verify, with no warning" bash -c "
  out=\$(XDG_RUNTIME_DIR='$work/xdg' systemd-analyze --user verify '$unit' 2>&1) && [ -z \"\$out\" ] || { echo \"\$out\"; exit 1; }"
db=$(ls "$work"/home/.local/share/roqua/boundaries.sqlite 2>/dev/null || true)
if [ -n "$db" ] && [ -x "$serve_bin/roqua-serve" ]; then
  port=$((20000 + RANDOM % 20000))
  sed "s#^ROQUA_SERVE_OPTIONS=.*#ROQUA_SERVE_OPTIONS=--listen 127.0.0.1:$port --store $work/service-store.sqlite --boundaries $db#" \
    "$service/share/roqua/serve.conf" >"$work/serve.conf"
  exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
  check "its ExecStart with a serve.conf's options serves on the configured port" bash -c "
    # systemd's EnvironmentFile: NAME=VALUE lines, the value as it stands (spaces and all), # comments.
    env -i HOME='$work/home' PATH=/usr/bin:/bin bash -c 'while IFS== read -r name value; do
        [[ \$name =~ ^[A-Z_]+\$ ]] && export \"\$name=\$value\"; done <\"$work/serve.conf\"; exec $exec_start' >'$work/unit.log' 2>&1 &
    pid=\$!; trap 'kill \$pid 2>/dev/null' EXIT
    for _ in \$(seq 1 100); do [ \"\$(curl -s http://127.0.0.1:$port/status)\" = OK ] && exit 0; sleep 0.2; done
    cat '$work/unit.log'; exit 1"
fi

# The .deb: built, its control file, unpacked into a fresh root, run there.
# The whole output first (its first line is the .deb): `| head -1` would cut package.sh's pipe.
packaged=$(scripts/package.sh --products "$products" "$work")
deb=${packaged%%$'\n'*}
check "the .deb is built: $(basename "$deb")" test -s "$deb"
dpkg-deb -f "$deb" Depends >"$work/depends"
echo "     Depends: $(cat "$work/depends")"
check "its Depends name Debian runtime packages only (no -dev, no toolchain), PROJ's and libzip's too (loaded on first use)" bash -c "
  grep -q 'libgeos-c1' '$work/depends' && grep -q 'libshp' '$work/depends' && grep -q 'libsqlite3-0' '$work/depends' \
    && grep -q 'libproj[0-9]' '$work/depends' && grep -q 'libzip[0-9]' '$work/depends' \
    && ! grep -qE -- '-dev|swift' '$work/depends'"
root=$work/root
dpkg-deb -x "$deb" "$root"
check "unpacked: bin, data, completions, man pages in the Debian places" bash -c "
  test -x '$root/usr/bin/roqua' && test -s '$root/usr/share/roqua/countries.shp' && test -s '$root/usr/share/man/man1/roqua.1.gz' \
    && test -s '$root/usr/share/bash-completion/completions/roqua'"
rm -rf "$work/home"; mkdir -p "$work/home"
check "the unpacked package resolves with the toolchain hidden" bash -c "
  $(declare -f hidden); work='$work'; toolchain='$toolchain'
  hidden '$root/usr/bin/roqua' import >/dev/null && hidden '$root/usr/bin/roqua' resolve 40.9879 29.0281 | grep -qx 'Türkiye › İstanbul › Kadıköy'"
# The .deb in a fresh Debian root made by debootstrap (minbase, this machine's release and mirror):
# apt installs it with its Depends from the mirror, then roqua builds its database and resolves
# there. That root has never seen the toolchain or the build. Needs root and a reachable mirror;
# skipped, and said so, without them.
if [ "$(id -u)" -eq 0 ] && command -v debootstrap >/dev/null && command -v chroot >/dev/null; then
  suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
  mirror=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/*.sources 2>/dev/null | sed -n 1p)
  mirror=${mirror:-http://deb.debian.org/debian}
  debian=$work/debian
  if timeout 900 debootstrap --variant=minbase "$suite" "$debian" "$mirror" >"$work/debootstrap.log" 2>&1; then
    cp "$deb" "$debian/tmp/roqua.deb"
    cp /etc/resolv.conf "$debian/etc/resolv.conf" 2>/dev/null || true
    # A private mount namespace: /proc for the chroot, gone when the command ends.
    in_debian() { unshare -m sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 "$@"' "$debian" "$@"; }
    check "the .deb installs with apt into a fresh Debian root (debootstrap $suite, minbase)" \
      in_debian sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /tmp/roqua.deb'
    check "there, with no toolchain ever installed, roqua builds its database and resolves" \
      in_debian sh -c 'test ! -e /opt/swift && roqua import >/dev/null && roqua resolve 40.9879 29.0281 | grep -qx "Türkiye › İstanbul › Kadıköy"'
  else
    echo "note: debootstrap $suite from $mirror failed (no mirror reachable?): the fresh-root check did not run"
    tail -3 "$work/debootstrap.log" | sed 's/^/     /'
  fi
else
  echo "note: not root or no debootstrap: the .deb was checked unpacked only, not installed into a fresh Debian root"
fi
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
