"""Single-fix OwnTracks posts to a running roqua serve, one at a time (a phone in HTTP mode posts
each position alone): median and p90 latency. Paced to stay under the per-device limit.
  python3 scripts/bench/bench_owntracks_latency.py PORT DEVICE TOKEN COUNT
(start: roqua serve device add p --json; roqua serve --listen 127.0.0.1:PORT --log-level warning)"""
import sys, time, urllib.request, base64, statistics
port, name, token, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
auth = "Basic " + base64.b64encode(f"{name}:{token}".encode()).decode()
base = int(time.time()) - 86400
times = []
for i in range(n):
    body = ('{"_type":"location","lat":%.6f,"lon":%.6f,"tst":%d,"acc":10}' % (41.0 + (i % 200) * 0.0005, 29.0, base + i)).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}/api/ingest/owntracks", data=body, method="POST", headers={"Authorization": auth})
    t = time.perf_counter(); urllib.request.urlopen(req).read(); times.append((time.perf_counter() - t) * 1000)
    if i % 15 == 14: time.sleep(1)  # stay under the 20 req/s limit after the burst
print(f"{n} single-fix OwnTracks posts: median {statistics.median(times):.2f} ms, p90 {sorted(times)[int(n*0.9)]:.2f} ms")
