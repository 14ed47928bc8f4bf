#!/usr/bin/env bash
# Builds and installs Roqua into PREFIX (default ~/.local):
#   PREFIX/bin/roqua, roqua-serve,                  built with --static-swift-stdlib and stripped: they run on a
#     roqua-chat, roqua-chat-server                 machine without the Swift toolchain
#   PREFIX/share/roqua/                            the bundled boundary data (the binaries find it there);
#                                                   leaflet/ (Debian's libjs-leaflet) for roqua serve's page
#   PREFIX/share/bash-completion/completions/, PREFIX/share/zsh/site-functions/,
#   PREFIX/share/fish/vendor_completions.d/        shell completions (swift-argument-parser)
#   PREFIX/share/man/man1/                         man pages (swift-argument-parser's generate-manual)
#   PREFIX/share/systemd/user/roqua-serve.service  with roqua-serve: it as a systemd user service, its options in
#     PREFIX/share/roqua/serve.conf                  ~/.config/roqua/serve.conf (this file is the example)
# ROQUA_BINDIR names where the programs end up when PREFIX is only a staging folder (scripts/package.sh).
# Usage: scripts/install.sh [--products "roqua roqua-serve roqua-chat roqua-chat-server"] [PREFIX]
# The build goes to .build-static, the tour-group programs' (package chat/) to .build-static-chat
# (their flags differ from a plain release build's).
set -euo pipefail
cd "$(dirname "$0")/.."
products="roqua roqua-serve roqua-chat roqua-chat-server"
if [ "${1:-}" = "--products" ]; then products=$2; shift 2; fi
prefix=${1:-$HOME/.local}
scratch=.build-static
: >"$scratch.log"
# Where each program is built: the geocoder's in the root package, the tour groups' in chat/.
bin_of() { case $1 in roqua-chat|roqua-chat-server) echo "$scratch-chat/release" ;; *) echo "$scratch/release" ;; esac; }
# generate-manual is swift-argument-parser's man page writer (what its generate-manual plugin runs).
for product in $products generate-manual; do
  case $product in
    roqua|roqua-serve|generate-manual) package=(--scratch-path "$scratch") ;;
    roqua-chat|roqua-chat-server) package=(--package-path chat --scratch-path "$scratch-chat") ;;
    *) echo "unknown product '$product' (roqua, roqua-serve, roqua-chat, roqua-chat-server)" >&2; exit 2 ;;
  esac
  echo "building $product (release, static Swift runtime)…"
  if ! swift build -c release --static-swift-stdlib "${package[@]}" --product "$product" >>"$scratch.log" 2>&1; then
    grep -E "error:" "$scratch.log" >&2 || tail -30 "$scratch.log" >&2
    exit 1
  fi
done
manual=$scratch/release/generate-manual
mkdir -p "$prefix/bin" "$prefix/share/roqua" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
for product in $products; do
  bin=$(bin_of "$product")
  install -s -m 0755 "$bin/$product" "$prefix/bin/$product"  # stripped: about half the size
  # Completions, from the program itself.
  "$bin/$product" --generate-completion-script bash >"$prefix/share/bash-completion/completions/$product"
  "$bin/$product" --generate-completion-script zsh >"$prefix/share/zsh/site-functions/_$product"
  "$bin/$product" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/$product.fish"
done
for f in data/*; do install -m 0644 "$f" "$prefix/share/roqua/"; done
# Man pages, one per command, dated by the last commit (the same tree gives the same pages).
date=$(git log -1 --format=%cd --date=format:%Y-%m-%d 2>/dev/null || date -u +%F)
for product in $products; do
  "$manual" "$(bin_of "$product")/$product" --multi-page --date "$date" --output-directory "$prefix/share/man/man1"
done
chmod 0644 "$prefix"/share/man/man1/*.1
case " $products " in
  *" roqua-serve "*)
    leaflet=/usr/share/javascript/leaflet
    if [ -f "$leaflet/leaflet.js" ]; then
      mkdir -p "$prefix/share/roqua/leaflet/images"
      # GNU install copies what a symlink points to (Debian links leaflet.js).
      install -m 0644 "$leaflet/leaflet.js" "$leaflet/leaflet.css" "$prefix/share/roqua/leaflet/"
      install -m 0644 "$leaflet"/images/*.png "$prefix/share/roqua/leaflet/images/"
    else
      echo "note: $leaflet not found (apt-get install libjs-leaflet); roqua serve will look for it at run time" >&2
    fi
    scripts/service/install-service.sh "$prefix" "${ROQUA_BINDIR:-$(realpath "$prefix")/bin}" ;;
esac
echo "Installed into $prefix: $(for p in $products; do printf 'bin/%s ' "$p"; done)share/roqua/, completions, man pages"
