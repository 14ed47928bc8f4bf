"""Load for scripts/bench/bench-ingest.sh: SENDERS processes post Overland batches of BATCH new fixes
each (a walk of 1 fix/s through İstanbul, a fresh stretch per batch) for SECONDS; meanwhile one
client times GET /reverse and GET / in turn. Idle latencies are taken first, for the ratio."""
import datetime
import json
import multiprocessing
import statistics
import sys
import time
import urllib.error
import urllib.request

PORT, TOKENS, SECONDS, BATCH, SENDERS = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
BASE = f"http://127.0.0.1:{PORT}"
TOKENS = TOKENS.split(",")
START = int(time.time()) - 30 * 86400


def batch(sender, number):
    """BATCH fixes, 1 s apart, walking east-north-east at ~1.4 m/s from a point per sender."""
    features = []
    first = START + (sender * 10_000_000) + number * BATCH
    for i in range(BATCH):
        step = number * BATCH + i
        lon = 28.90 + sender * 0.05 + (step % 20_000) * 0.000012
        lat = 40.98 + (step % 20_000) * 0.000006
        stamp = datetime.datetime.fromtimestamp(first + i, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        features.append({"type": "Feature", "geometry": {"type": "Point", "coordinates": [round(lon, 7), round(lat, 7)]},
                         "properties": {"timestamp": stamp, "horizontal_accuracy": 8, "speed": 1.4}})
    return json.dumps({"locations": features}).encode()


def send(sender, deadline, results):
    """Posts until the deadline; a 429 is waited out as the app would (its Retry-After)."""
    posted = limited = 0
    number = 0
    while time.time() < deadline:
        request = urllib.request.Request(f"{BASE}/api/ingest/overland?token={TOKENS[sender]}", data=batch(sender, number),
                                         method="POST", headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as reply:
                assert reply.read() == b'{"result":"ok"}'
        except urllib.error.HTTPError as error:
            assert error.code == 429, error
            limited += 1
            time.sleep(float(error.headers.get("Retry-After", "1")))
            continue
        posted += BATCH
        number += 1
    results.put((posted, limited))


def timed(path):
    begin = time.perf_counter()
    with urllib.request.urlopen(BASE + path, timeout=30) as reply:
        reply.read()
    return (time.perf_counter() - begin) * 1000


def latencies(seconds):
    reverse, page = [], []
    end = time.time() + seconds
    while time.time() < end:
        reverse.append(timed("/reverse?lat=41.0082&lon=28.9784&format=jsonv2"))
        page.append(timed("/"))
        time.sleep(0.05)
    return reverse, page


def summary(values):
    values = sorted(values)
    return f"p50 {statistics.median(values):.1f} ms, p99 {values[min(len(values) - 1, int(len(values) * 0.99))]:.1f} ms (n={len(values)})"


idle_reverse, idle_page = latencies(5)
results = multiprocessing.Queue()
deadline = time.time() + SECONDS
senders = [multiprocessing.Process(target=send, args=(s, deadline, results)) for s in range(SENDERS)]
began = time.time()
for process in senders:
    process.start()
busy_reverse, busy_page = latencies(SECONDS)
for process in senders:
    process.join(SECONDS + 60)
elapsed = time.time() - began
counts = [results.get(timeout=10) for _ in senders]
posted, limited = sum(c[0] for c in counts), sum(c[1] for c in counts)
regions = json.load(urllib.request.urlopen(BASE + "/api/regions"))["features"]
print(f"{SENDERS} senders, batches of {BATCH}: {posted} fixes in {elapsed:.1f} s = {posted / elapsed:,.0f} fixes/s sustained"
      f" ({len(regions)} regions stored; {limited} requests answered 429 and retried)")
print(f"/reverse idle:        {summary(idle_reverse)}")
print(f"/reverse under load:  {summary(busy_reverse)}")
print(f"page (/) idle:        {summary(idle_page)}")
print(f"page (/) under load:  {summary(busy_page)}")
print(f"target 10,000 fixes/s: {'met' if posted / elapsed >= 10_000 else 'NOT met'}")
