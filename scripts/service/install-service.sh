#!/usr/bin/env bash
# Installs roqua serve's systemd user unit and its example configuration:
#   PREFIX/share/systemd/user/roqua-serve.service   (systemd looks there for ~/.local, /usr/local and /usr)
#   PREFIX/share/roqua/serve.conf                   (to copy to ~/.config/roqua/serve.conf)
# Usage: scripts/service/install-service.sh PREFIX BINDIR   (BINDIR: where roqua-serve is once installed)
set -euo pipefail
cd "$(dirname "$0")/../.."
prefix=$1 bindir=$2
case $bindir in /*) ;; *) echo "BINDIR must be an absolute path (got '$bindir')" >&2; exit 2 ;; esac
mkdir -p "$prefix/share/systemd/user" "$prefix/share/roqua"
sed "s#@BINDIR@#$bindir#g" scripts/service/roqua-serve.service.in >"$prefix/share/systemd/user/roqua-serve.service"
chmod 0644 "$prefix/share/systemd/user/roqua-serve.service"
install -m 0644 scripts/service/serve.conf "$prefix/share/roqua/serve.conf"
