#!/usr/bin/env python3
"""Hostile clients against a running `roqua serve` on 127.0.0.1, measured (scripts/bench/bench-serve-abuse.sh
starts the server): what a decompression bomb, a trickling upload and a SIGTERM during a large import
cost the user. Standard library only; every loop is bounded in count and time; only 127.0.0.1.

  bench_serve_abuse.py PORT SERVER_PID STORE WORKDIR
"""
import gzip
import http.client
import json
import os
import random
import select
import re
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time

PORT, PID, STORE, WORK = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
HOST = "127.0.0.1"
ORIGIN = f"http://{HOST}:{PORT}"


def request(method, target, body=None, headers=None, timeout=120):
    connection = http.client.HTTPConnection(HOST, PORT, timeout=timeout)
    connection.request(method, target, body=body, headers=headers or {})
    reply = connection.getresponse()
    data = reply.read()
    connection.close()
    return reply.status, data


def page_token():
    status, page = request("GET", "/")
    match = re.search(rb'<meta name="roqua-csrf" content="([^"]+)"', page)
    if status != 200:
        sys.exit(f"the page did not load (status {status})")
    # A build from before the page token (to compare with) has none and needs none.
    return match.group(1).decode() if match else ""


TOKEN = page_token()
PAGE = {"Origin": ORIGIN, "X-Roqua-CSRF": TOKEN}


def upload(name, body, timeout=600):
    return request("POST", f"/api/tracks?name={name}", body, PAGE, timeout)


def regions():
    status, data = request("GET", "/api/regions")
    return len(json.loads(data)["features"]) if status == 200 else None


def reverse_latencies(stop, out):
    """GET /reverse every 50 ms until stopped (at most 2,400 requests): each one's wall time."""
    for _ in range(2400):
        if stop.is_set():
            return
        started = time.monotonic()
        status, _ = request("GET", "/reverse?lat=40.9879&lon=29.0281", timeout=30)
        out.append((time.monotonic() - started, status))
        time.sleep(0.05)


def bomb():
    """About 2 GiB of valid CSV rows as 2,048 gzip members of 1 MiB each: (the gzip, its expanded size)."""
    row = b"41.0100,28.9800,2024-05-01T07:00:00Z\n"
    mebibyte = row * ((1 << 20) // len(row))
    member = gzip.compress(mebibyte, 9, mtime=0)
    return gzip.compress(b"lat,lon,time\n" + mebibyte, 9, mtime=0) + member * 2047, 2048 * len(mebibyte)


def measure_bomb():
    body, expanded = bomb()
    before = regions()
    stop, latencies = threading.Event(), []
    sampler = threading.Thread(target=reverse_latencies, args=(stop, latencies))
    sampler.start()
    time.sleep(0.2)
    started = time.monotonic()
    status, answer = upload("bomb.csv.gz", body)
    wall = time.monotonic() - started
    stop.set()
    sampler.join()
    times = [t for t, _ in latencies]
    print(f"bomb: {len(body) / 1e6:.1f} MB gzip expanding to {expanded / 2**30:.1f} GiB: "
          f"HTTP {status} after {wall:.2f} s wall ({json.loads(answer)['error']['message'][:60]}…)")
    print(f"  /reverse meanwhile: {len(times)} requests, median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms, all 200: {all(s == 200 for _, s in latencies)}; regions {before} → {regions()}")


def track(seed, rows):
    generator = random.Random(seed)
    lat, lon, lines = 39.0, 32.0, ["lat,lon,time"]
    for index in range(rows):
        lat += generator.uniform(-0.004, 0.004)
        lon += generator.uniform(-0.004, 0.004)
        stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(1_700_000_000 + index * 30))
        lines.append(f"{lat:.6f},{lon:.6f},{stamp}")
    return ("\n".join(lines) + "\n").encode()


def measure_trickle(interval, total):
    """One byte every `interval` s on one connection; a normal import started 2 s later."""
    normal = track(7, 2000)
    started = time.monotonic()
    status, _ = upload("alone.csv", normal)
    alone = time.monotonic() - started
    trickle = socket.create_connection((HOST, PORT), timeout=total + 30)
    head = (f"POST /api/tracks?name=slow.csv HTTP/1.1\r\nHost: {HOST}:{PORT}\r\nOrigin: {ORIGIN}\r\n"
            f"X-Roqua-CSRF: {TOKEN}\r\nContent-Length: 100000\r\nConnection: close\r\n\r\n").encode()
    trickle.sendall(head)
    cut = {}

    def drip():
        opened = time.monotonic()
        for _ in range(int(total / interval)):
            try:
                trickle.sendall(b"4")
            except OSError:
                break
            # Wait out the interval, but notice at once when the server closes (or answers).
            readable, _, _ = select.select([trickle], [], [], interval)
            if readable:
                break
        cut["after"] = time.monotonic() - opened

    dripper = threading.Thread(target=drip)
    dripper.start()
    time.sleep(2)
    started = time.monotonic()
    status2, _ = upload("beside.csv", track(8, 2000))
    beside = time.monotonic() - started
    dripper.join()
    print(f"trickle (1 byte every {interval:g} s): cut by the server after {cut['after']:.1f} s; "
          f"a 2,000-fix import alone {alone * 1000:.0f} ms (HTTP {status}), beside the trickle {beside * 1000:.0f} ms (HTTP {status2})")


def measure_sigterm(rows):
    body = track(9, rows)
    result = {}

    def send():
        try:
            result["status"] = upload("years.csv", body)[0]
        except Exception as error:  # the server goes away: that is the point
            result["status"] = type(error).__name__

    sender = threading.Thread(target=send)
    sender.start()
    phase = ""
    for _ in range(1200):
        _, data = request("GET", "/api/tracks/progress")
        progress = json.loads(data)
        phase = progress["phase"]
        if phase == "importing" and (progress.get("fixes_read") or 0) > 0:
            break
        time.sleep(0.05)
    before = stored_regions()
    started = time.monotonic()
    os.kill(PID, 15)
    for _ in range(3000):
        if not running(PID):
            break
        time.sleep(0.01)
    exited = time.monotonic() - started
    sender.join(timeout=30)
    print(f"SIGTERM during a {rows:,}-fix import ({len(body) / 1e6:.0f} MB, phase {phase}, "
          f"{progress.get('fixes_read')} fixes read): the server exited after {exited:.2f} s; the upload got {result.get('status')}; "
          f"stored regions {before} → {stored_regions()}")


def running(pid):
    """Alive and not a zombie (the shell that started the server reaps it only when this script ends)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def stored_regions():
    with sqlite3.connect(f"file:{STORE}?mode=ro", uri=True) as db:
        return db.execute("SELECT COUNT(*) FROM visited_regions").fetchone()[0]


measure_bomb()
measure_trickle(float(os.environ.get("TRICKLE_INTERVAL", "10")), float(os.environ.get("TRICKLE_SECONDS", "60")))
measure_sigterm(int(os.environ.get("SIGTERM_ROWS", "1000000")))
