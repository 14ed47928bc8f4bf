#!/usr/bin/env python3
"""Two release builds of roqua-serve importing the same upload, interleaved (A B A B …): a seeded
1,000,000-fix walk as CSV (~41 MB) POSTed as the page does, the wall time to its answer. Only
127.0.0.1; each server is stopped after its import.

  scripts/serve/compare_upload.py A_DIR B_DIR BOUNDARIES [ROUNDS]   (each DIR holds a release roqua-serve)
"""
import http.client
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

a, b, boundaries = sys.argv[1], sys.argv[2], sys.argv[3]
rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3


def walk(seed, rows):
    generator = random.Random(seed)
    lat, lon, lines = 39.0, 32.0, ["lat,lon,time"]
    for index in range(rows):
        lat += generator.uniform(-0.0004, 0.0004)
        lon += generator.uniform(-0.0004, 0.0004)
        lines.append(f"{lat:.6f},{lon:.6f},{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime(1_700_000_000 + index * 10))}")
    return ("\n".join(lines) + "\n").encode()


def request(port, method, target, body=None, headers=None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request(method, target, body=body, headers=headers or {})
    reply = connection.getresponse()
    data = reply.read()
    connection.close()
    return reply.status, data


body = walk(3, 1_000_000)
print(f"{len(body) / 1e6:.0f} MB, 1,000,000 fixes (a seeded walk, ~40 m steps), {rounds} interleaved rounds")
times = {a: [], b: []}
for round_ in range(rounds):
    for directory in (a, b):
        work = tempfile.mkdtemp(prefix="roqua-upload-")
        server = subprocess.Popen([f"{directory}/roqua-serve", "--listen", "127.0.0.1:0", "--boundaries", boundaries,
                                   "--store", f"{work}/regions.sqlite", "--log-level", "warning"],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))
            _, page = request(port, "GET", "/")
            token = re.search(rb'roqua-csrf" content="([^"]+)"', page)  # none in builds from before the page token
            headers = {"Origin": f"http://127.0.0.1:{port}", "X-Roqua-CSRF": token.group(1).decode() if token else ""}
            started = time.monotonic()
            status, _ = request(port, "POST", "/api/tracks?name=walk.csv", body, headers)
            took = time.monotonic() - started
        finally:
            server.terminate()
            server.wait(timeout=30)
            shutil.rmtree(work, ignore_errors=True)
        times[directory].append(took)
        print(f"round {round_ + 1} {directory}: HTTP {status} in {took:.2f} s")
for directory, values in times.items():
    print(f"{directory}: median {statistics.median(values):.2f} s")
