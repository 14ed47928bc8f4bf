#!/usr/bin/env bash
# Loopback load test of the tour-group sync server (never part of the tests): a release
# `roqua-chat-server` on a fresh SQLite store, and `roqua-chat-bench` with 50 concurrent
# clients pushing at once; afterwards everything is pulled and counted (nothing lost or
# doubled, sequence numbers 1…N). Prints the medians of RUNS runs per batch size and writes
# the raw figures to .build-bench/chat.jsonl.
#   chat/scripts/bench-chat.sh [RUNS] [BATCH…]      (default: 3 runs; batches 20 and 1)
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/common.sh
runs=${1:-3}
shift || true
batches=("$@")
[ ${#batches[@]} -gt 0 ] || batches=(20 1)
out=.build-bench
mkdir -p "$out"
results=$out/chat.jsonl
: >"$results"

roqua_build "$out/chat-build.log" --package-path chat -c release --product roqua-chat-server
roqua_build "$out/chat-build.log" --package-path chat -c release --product roqua-chat-bench
bin=$(swift build --package-path chat -c release --show-bin-path)

server_pid=""
cleanup() { [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true; }
trap cleanup EXIT

for batch in "${batches[@]}"; do
  # 400 messages per client at batch 20; at batch 1 (one request per message) 100.
  messages=$(( batch >= 20 ? 400 : 100 ))
  for run in $(seq "$runs"); do
    dir=$(mktemp -d)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    chat_server "$bin" admin --db "$dir/chat.sqlite" role +905550000001 guide >/dev/null
    chat_server "$bin" --db "$dir/chat.sqlite" --listen "127.0.0.1:$port" --sms-outbox "$dir/outbox.jsonl" \
      --log-level warning 2>"$dir/server.log" &
    server_pid=$!
    for _ in $(seq 100); do
      curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && break
      sleep 0.1
    done
    echo "batch $batch, run $run" >&2
    timeout 600 "$bin/roqua-chat-bench" --url "http://127.0.0.1:$port" --outbox "$dir/outbox.jsonl" \
      --clients 50 --messages "$messages" --batch "$batch" >>"$results"
    kill -TERM "$server_pid"
    wait "$server_pid" || true
    server_pid=""
    rm -rf "$dir"
  done
done

python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
print("| batch | clients | messages per run | msgs/s (median) | request p50 | request p99 | lost | doubled |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|")
for batch in sorted({r["batch"] for r in rows}, reverse=True):
    runs = [r for r in rows if r["batch"] == batch]
    med = lambda key: statistics.median(r[key] for r in runs)
    print(f"| {batch} | {runs[0]['clients']} | {runs[0]['messages']:,} | {med('msgs_per_s'):,.0f} | {med('p50_ms'):.1f} ms"
          f" | {med('p99_ms'):.1f} ms | {sum(r['lost'] for r in runs)} | {sum(r['doubled'] for r in runs)} |")
PY
