# Shared by the serve test scripts: a boundary DB, a built roqua, and a server on 127.0.0.1:0.
# ROQUA_BIN picks the binary (default: the debug build beside the sources); ROQUA_TEST_BOUNDARIES
# reuses a boundary DB built by this version instead of importing one (about a minute in debug).

serve_roqua_binary() {
  local bin=${ROQUA_BIN:-}
  if [ -z "$bin" ]; then bin="$(swift build --show-bin-path)/roqua"; fi
  [ -x "$bin" ] || { echo "no roqua binary at $bin: build first (swift build --product roqua)" >&2; return 1; }
  echo "$bin"
}

# Sets ROQUA to the release build (or ROQUA_BIN) and checks that roqua-serve stands beside it.
serve_release_binaries() {
  ROQUA=${ROQUA_BIN:-.build/release/roqua}
  local bin
  for bin in "$ROQUA" "$(dirname "$ROQUA")/roqua-serve"; do
    [ -x "$bin" ] || { echo "no $bin: swift build -c release --product $(basename "$bin")" >&2; exit 1; }
  done
}

# serve_start WORKDIR [ARGS…]: starts `roqua serve` on a free loopback port with a store and a
# boundary DB in WORKDIR; sets SERVE_PID and SERVE_PORT.
serve_start() {
  local work=$1; shift
  if [ -n "${ROQUA_TEST_BOUNDARIES:-}" ] && [ ! -e "$work/boundaries.sqlite" ]; then
    ln -s "$(realpath "$ROQUA_TEST_BOUNDARIES")" "$work/boundaries.sqlite"
  fi
  [ -f "$work/boundaries.sqlite" ] || "$ROQUA" import --out "$work/boundaries.sqlite" >/dev/null
  "$ROQUA" serve --listen 127.0.0.1:0 --boundaries "$work/boundaries.sqlite" --store "$work/regions.sqlite" "$@" \
    >"$work/serve.out" 2>"$work/serve.err" &
  SERVE_PID=$!
  SERVE_PORT=""
  for _ in $(seq 1 300); do
    SERVE_PORT=$(sed -n 's#^Roqua is serving on http://127.0.0.1:\([0-9]*\)/$#\1#p' "$work/serve.out")
    [ -n "$SERVE_PORT" ] && return 0
    kill -0 "$SERVE_PID" 2>/dev/null || { cat "$work/serve.err" >&2; return 1; }
    sleep 0.1
  done
  echo "roqua serve did not start within 30 s" >&2
  cat "$work/serve.err" >&2
  return 1
}

# Graceful stop (SIGTERM); waits at most 10 s.
serve_stop() {
  [ -n "${SERVE_PID:-}" ] || return 0
  kill -TERM "$SERVE_PID" 2>/dev/null || true
  for _ in $(seq 1 100); do kill -0 "$SERVE_PID" 2>/dev/null || break; sleep 0.1; done
  kill -KILL "$SERVE_PID" 2>/dev/null || true
  wait "$SERVE_PID" 2>/dev/null || true
  SERVE_PID=""
}
