#!/usr/bin/env bash
# Push throughput of two builds of the tour-group server in one run, interleaved (never part of
# the tests): for each round, a fresh SQLite store per server, 50 concurrent clients of this
# tree's `roqua-chat-bench` pushing 400 messages each in batches of 20; medians and the ratio.
#   chat/scripts/bench-chat-compare.sh BASE_BIN_DIR [ROUNDS]
# BASE_BIN_DIR holds the other build's release `roqua-chat-server` (or, before the split, `roqua-chat`) (e.g. a worktree of an older commit:
#   git worktree add /tmp/base REV && (cd /tmp/base && swift build --package-path chat -c release --product roqua-chat-server)).
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/common.sh
base=${1:?usage: chat/scripts/bench-chat-compare.sh BASE_BIN_DIR [ROUNDS]}
rounds=${2:-5}
out=.build-bench
mkdir -p "$out"
roqua_build "$out/chat-build.log" --package-path chat -c release --product roqua-chat-server
roqua_build "$out/chat-build.log" --package-path chat -c release --product roqua-chat-bench
bin=$(swift build --package-path chat -c release --show-bin-path)
results=$out/chat-compare.jsonl
: >"$results"
server_pid=""
cleanup() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT

one() {  # LABEL SERVER_BINARY
  local dir port
  dir=$(mktemp -d)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  chat_server "$2" admin --db "$dir/chat.sqlite" role +905550000001 guide >/dev/null
  chat_server "$2" --db "$dir/chat.sqlite" --listen "127.0.0.1:$port" --sms-outbox "$dir/outbox.jsonl" --log-level warning 2>"$dir/server.log" &
  server_pid=$!
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break; sleep 0.1; done
  timeout 600 "$bin/roqua-chat-bench" --url "http://127.0.0.1:$port" --outbox "$dir/outbox.jsonl" \
    --clients 50 --messages 400 --batch 20 | python3 -c "import json,sys; r=json.load(sys.stdin); r['build']='$1'; print(json.dumps(r))" >>"$results"
  kill -TERM "$server_pid"; wait "$server_pid" || true; server_pid=""
  rm -rf "$dir"
}

for round in $(seq "$rounds"); do
  echo "round $round" >&2
  if (( round % 2 )); then one base "$base"; one this "$bin"; else one this "$bin"; one base "$base"; fi
done

python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
med = {b: statistics.median(r["msgs_per_s"] for r in rows if r["build"] == b) for b in ("base", "this")}
p99 = {b: statistics.median(r["p99_ms"] for r in rows if r["build"] == b) for b in ("base", "this")}
lost = sum(r.get("lost", 0) for r in rows); doubled = sum(r.get("doubled", 0) for r in rows)
print("| build | msgs/s (median) | request p99 (median) |")
print("|---|---:|---:|")
for b in ("base", "this"):
    print(f"| {b} | {med[b]:,.0f} | {p99[b]:.1f} ms |")
print(f"this ÷ base: {med['this'] / med['base']:.3f}; lost {lost}, doubled {doubled} over {len(rows)} runs")
PY
