#!/usr/bin/env bash
# The tour-group server under abuse, on loopback (never part of the tests): a release
# `roqua-chat-server` on a fresh SQLite store for each run.
#  1. memory: four members push a ~15 MiB body each at once; the server's RSS above idle.
#  2. abuse: 20 members push, newcomers sign in every 100 ms and a stranger keeps asking for the
#     group's attachment, for SECONDS — once alone, once beside an OTP flood (8 tasks asking codes
#     for random numbers and guessing, from 20 addresses). Every simulated client has its own
#     address (X-Forwarded-For through --trusted-proxy 127.0.0.1).
# With BASE_BIN_DIR (a release build of an older commit) the same runs against it, side by side.
#   chat/scripts/bench-chat-abuse.sh [SECONDS] [BASE_BIN_DIR]     (default: 20 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/common.sh
seconds=${1:-20}
base=${2:-}
out=.build-bench
mkdir -p "$out"
results=$out/chat-abuse.jsonl
: >"$results"

roqua_build "$out/chat-build.log" --package-path chat -c release --product roqua-chat-server
roqua_build "$out/chat-build.log" --package-path chat -c release --product roqua-chat-bench
bin=$(swift build --package-path chat -c release --show-bin-path)

server_pid=""
dir=""
cleanup() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; [ -z "$dir" ] || rm -rf "$dir"; }
trap cleanup EXIT

# start_server BIN: a fresh store; sets server_pid, port, dir.
start_server() {
  dir=$(mktemp -d)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  chat_server "$1" admin --db "$dir/chat.sqlite" role +905550000001 guide >/dev/null
  local proxy=()
  local help
  help=$("$1/roqua-chat-server" run --help 2>/dev/null || "$1/roqua-chat" server --help)
  grep -q -- --trusted-proxy <<<"$help" && proxy=(--trusted-proxy 127.0.0.1)
  # The server-wide caps of the builds this bench was first run on (600 requests a minute, no
  # hour cap, no cap on checks): today's defaults (30 and 300 an hour, 120 checks) would refuse
  # the newcomers beside the flood, which is what they are for, not what this bench measures.
  grep -q -- --code-requests-per-hour <<<"$help" &&
    proxy+=(--code-requests-per-server 600 --code-requests-per-hour 1000000 --code-checks-per-server 1000000)
  chat_server "$1" --db "$dir/chat.sqlite" --listen "127.0.0.1:$port" --sms-outbox "$dir/outbox.jsonl" \
    --log-level warning "${proxy[@]}" 2>"$dir/server.log" &
  server_pid=$!
  for _ in $(seq 100); do
    python3 -c "import urllib.request,sys; urllib.request.urlopen('http://127.0.0.1:$port/healthz', timeout=1)" 2>/dev/null && return 0
    sleep 0.1
  done
  echo "the server did not start: $(cat "$dir/server.log")" >&2
  return 1
}

stop_server() {
  kill -TERM "$server_pid"
  wait "$server_pid" || true
  server_pid=""
  rm -rf "$dir"
  dir=""
}

# run LABEL BIN ARGS…: one bench run against a fresh server from BIN; its JSON tagged LABEL.
run() {
  local label=$1 server_bin=$2
  shift 2
  start_server "$server_bin"
  echo "$label: $*" >&2
  timeout 900 "$bin/roqua-chat-bench" --url "http://127.0.0.1:$port" --outbox "$dir/outbox.jsonl" --server-pid "$server_pid" "$@" |
    python3 -c "import json,sys; r=json.loads(sys.stdin.read()); r['server']='$label'; print(json.dumps(r))" >>"$results"
  stop_server
}

servers=("now:$bin")
[ -z "$base" ] || servers+=("base:$base")
for entry in "${servers[@]}"; do
  label=${entry%%:*}
  server_bin=${entry#*:}
  run "$label" "$server_bin" --mode memory --pushes 4
  run "$label" "$server_bin" --mode abuse --seconds "$seconds" --flood 0
  run "$label" "$server_bin" --mode abuse --seconds "$seconds" --flood 8
done

python3 - "$results" <<'PY'
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| server | 4 × ~15 MiB pushes: RSS idle | peak | above idle | seconds |")
print("|---|---:|---:|---:|---:|")
for r in rows:
    if r["bench"] == "chat-memory":
        print(f"| {r['server']} | {r['idle_mb']:.0f} MB | {r['peak_mb']:.0f} MB | {r['above_idle_mb']:.0f} MB | {r['seconds']:.2f} |")
print()
print("| server | flood tasks | pushes msgs/s | sign-ins | sign-in p50 | p99 | failed | flood requests | SMS the flood got sent | guesses | stranger downloads | of them 200 |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in rows:
    if r["bench"] == "chat-abuse":
        print(f"| {r['server']} | {r['flood_tasks']} | {r['msgs_per_s']:,.0f} | {r['signins']} | {r['signin_p50_ms']:.1f} ms | {r['signin_p99_ms']:.1f} ms"
              f" | {r['signin_failures']} | {r['flood_requests']:,} | {r['flood_sms_sent']:,} | {r['guesses']:,} | {r['stranger_downloads']:,} | {r['stranger_200']:,} |")
for server in sorted({r["server"] for r in rows}):
    calm = [r for r in rows if r["server"] == server and r["bench"] == "chat-abuse" and r["flood_tasks"] == 0]
    flood = [r for r in rows if r["server"] == server and r["bench"] == "chat-abuse" and r["flood_tasks"] > 0]
    if calm and flood and calm[0]["msgs_per_s"]:
        print(f"{server}: push throughput under the flood = {flood[0]['msgs_per_s'] / calm[0]['msgs_per_s']:.2f} × calm")
PY
