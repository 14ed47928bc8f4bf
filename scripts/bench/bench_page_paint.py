#!/usr/bin/env python3
"""The lifetime map in the browser: Roqua's page against the naive design the peers use, side by
side in the same run, at FIXES fixes.

Workload (seeded, not tuned to the page): the first FIXES fixes (default 1,000,000, about five
months) of bench_history.py's phone history, a fix every 15 s day and night.

  roqua      `roqua track import` of those fixes into a fresh store, `roqua serve` started cold on
             it, the page opened in headless Chromium: the time from navigation start until every
             heat tile of the first view is loaded and decoded (checked each animation frame),
             then the page's JS heap and the browser's memory (PSS of every Chromium process)
  geojson    the peers' design (Dawarich, Reitti, GeoPulse send the points to the browser): a
             Leaflet page on a local static server fetches every fix as one GeoJSON file and draws
             each as a circle on a canvas (Leaflet's fastest renderer for points): the time from
             navigation start until the frame after the layer is added, the JS heap and the
             browser's memory; given up after TIMEOUT s

RUNS runs of each, interleaved, each with a new browser; medians printed. Target (issue 57): the
heat layer painted < 1 s after load.

Usage: bench_page_paint.py BIN_DIR WORKDIR [FIXES] [RUNS] [TIMEOUT]
       (BIN_DIR holds roqua and roqua-serve, e.g. .build-static/release)
"""
import http.server
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_tiles import free_port, workload  # noqa: E402

LEAFLET = '/usr/share/javascript/leaflet'

# Set before the page's own scripts run: the first frame on which every heat tile in the page is
# loaded and decoded.
ROQUA_WATCH = """
(function () {
  function tick() {
    const tiles = [...document.querySelectorAll('.heat-layer img')];
    if (tiles.length && tiles.every((img) => img.complete && img.naturalWidth === 256)) {
      window.__painted = performance.now();
      window.__tiles = tiles.length;
      return;
    }
    requestAnimationFrame(tick);
  }
  requestAnimationFrame(tick);
})();
"""

NAIVE_PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>every fix as GeoJSON</title>
<link rel="stylesheet" href="leaflet.css">
<style>html, body, #map { height: 100%; margin: 0; }</style></head>
<body><div id="map"></div>
<script src="leaflet.js"></script>
<script>
const map = L.map('map', { preferCanvas: true }).setView([41.0, 29.0], 10);
const canvas = L.canvas();
fetch('fixes.geojson').then((r) => r.json()).then((data) => {
  L.geoJSON(data, { pointToLayer: (feature, at) => L.circleMarker(at, { radius: 2, renderer: canvas, weight: 0, fillOpacity: 0.6 }) })
    .addTo(map);
  window.__fixes = data.features.length;
  requestAnimationFrame(() => requestAnimationFrame(() => { window.__painted = performance.now(); }));
});
</script></body></html>
"""


def fixes_of(history, count):
    """The first `count` fixes of a Records.json: (lat, lon, ISO time, accuracy)."""
    with open(history) as f:
        records = json.load(f)['locations'][:count]
    return [(r['latitudeE7'] / 1e7, r['longitudeE7'] / 1e7, r['timestamp'], r.get('accuracy', 10)) for r in records]


def write_inputs(fixes, csv_path, geojson_path):
    with open(csv_path, 'w') as f:
        f.write('lat,lon,timestamp,accuracy\n')
        for lat, lon, when, accuracy in fixes:
            f.write(f'{lat:.7f},{lon:.7f},{when},{accuracy}\n')
    features = [{'type': 'Feature', 'properties': {'time': when}, 'geometry': {'type': 'Point', 'coordinates': [lon, lat]}}
                for lat, lon, when, _ in fixes]
    with open(geojson_path, 'w') as f:
        json.dump({'type': 'FeatureCollection', 'features': features}, f, separators=(',', ':'))


def browser():
    options = webdriver.ChromeOptions()
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,860",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                     "--disable-default-apps", "--disable-extensions", "--disk-cache-size=1"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path="/usr/bin/chromedriver"), options=options)
    driver.set_page_load_timeout(600)
    driver.set_script_timeout(600)
    driver.execute_cdp_cmd('Performance.enable', {})
    return driver


def tree_rss_mb(root):
    """Proportional set size of `root` and every process under it (the browser's processes), MB:
    memory shared between them counted once, unlike a sum of their RSS."""
    parents = {}
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open(f'/proc/{entry}/stat') as f:
                    parents[int(entry)] = int(f.read().rsplit(')', 1)[1].split()[1])
            except OSError:
                pass
    tree, grown = {root}, True
    while grown:
        more = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= more
        grown = bool(more)
    total = 0
    for pid in tree:
        try:
            with open(f'/proc/{pid}/smaps_rollup') as f:
                total += next(int(line.split()[1]) for line in f if line.startswith('Pss:'))
        except (OSError, StopIteration):
            pass
    return total / 1024


def measure(url, inject, timeout):
    """(ms to paint or None, JS heap MB, browser PSS MB, tiles or fixes drawn)."""
    driver = browser()
    try:
        if inject:
            driver.execute_cdp_cmd('Page.addScriptToEvaluateOnNewDocument', {'source': inject})
        driver.get(url)
        deadline = time.time() + timeout
        painted = None
        while time.time() < deadline:
            painted = driver.execute_script('return window.__painted || null')
            if painted is not None:
                break
            time.sleep(0.05)
        metrics = {m['name']: m['value'] for m in driver.execute_cdp_cmd('Performance.getMetrics', {})['metrics']}
        drawn = driver.execute_script('return window.__tiles || window.__fixes || 0')
        return painted, metrics.get('JSHeapUsedSize', 0) / 2**20, tree_rss_mb(driver.service.process.pid), drawn
    finally:
        driver.quit()


def roqua_run(bin_dir, store, boundaries, timeout):
    port = free_port()
    env = dict(os.environ, ROQUA_BOUNDARIES=boundaries)
    server = subprocess.Popen([os.path.join(bin_dir, 'roqua-serve'), 'run', '--store', store, '--listen', f'127.0.0.1:{port}'],
                              env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(('127.0.0.1', port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        return measure(f'http://127.0.0.1:{port}/', ROQUA_WATCH, timeout)
    finally:
        server.terminate()
        server.wait(timeout=30)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def naive_run(site, timeout):
    handler = lambda *args: Quiet(*args, directory=site)  # noqa: E731
    server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        return measure(f'http://127.0.0.1:{server.server_address[1]}/index.html', None, timeout)
    finally:
        server.shutdown()


def main():
    bin_dir, work = os.path.realpath(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 1_000_000
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    timeout = float(sys.argv[5]) if len(sys.argv) > 5 else 300
    roqua = os.path.join(bin_dir, 'roqua')
    boundaries, history = workload(roqua, work, 1)
    site = os.path.join(work, f'naive-{count}')
    csv_path, geojson_path = os.path.join(work, f'page-{count}.csv'), os.path.join(site, 'fixes.geojson')
    if not os.path.exists(geojson_path):
        os.makedirs(site, exist_ok=True)
        write_inputs(fixes_of(history, count), csv_path, geojson_path)
    with open(os.path.join(site, 'index.html'), 'w') as f:
        f.write(NAIVE_PAGE)
    for name in ['leaflet.js', 'leaflet.css']:
        shutil.copy(os.path.join(LEAFLET, name), site)
    store = os.path.join(work, f'page-{count}.sqlite')
    for suffix in ['', '-wal', '-shm']:
        if os.path.exists(store + suffix):
            os.remove(store + suffix)
    subprocess.run([roqua, 'track', 'import', csv_path, '--store', store, '--boundaries', boundaries], check=True,
                   stdout=subprocess.DEVNULL)
    chromium = subprocess.run(['/usr/bin/chromium', '--version'], capture_output=True, text=True).stdout.split()[1]
    print(f'# The lifetime map in the browser ({time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}; {os.cpu_count()} cores; '
          f'Chromium {chromium} headless)\n')
    print(f'{count:,} fixes; GeoJSON file {os.path.getsize(geojson_path) / 2**20:.0f} MB, store {os.path.getsize(store) / 2**20:.0f} MB\n')
    results = {'roqua': [], 'geojson': []}
    for _ in range(runs):
        results['roqua'].append(roqua_run(bin_dir, store, boundaries, timeout))
        results['geojson'].append(naive_run(site, timeout))
    print('| page | painted (ms, median) | runs | JS heap (MB) | browser PSS (MB) | drawn |')
    print('|---|---|---|---|---|---|')
    medians = {}
    for name, rows in results.items():
        times = [r[0] for r in rows if r[0] is not None]
        medians[name] = statistics.median(times) if len(times) == len(rows) else None
        shown = f'{medians[name]:,.0f}' if medians[name] is not None else f'not within {timeout:.0f} s ({len(times)}/{len(rows)} painted)'
        runs_shown = ' / '.join('—' if r[0] is None else f'{r[0]:,.0f}' for r in rows)
        drawn = f'{rows[0][3]:,} tiles' if name == 'roqua' else f'{rows[0][3]:,} points'
        print(f'| {name} | {shown} | {runs_shown} | {statistics.median(r[1] for r in rows):,.0f} | '
              f'{statistics.median(r[2] for r in rows):,.0f} | {drawn} |')
    if medians['roqua'] is not None and medians['geojson'] is not None:
        print(f'\nGeoJSON ÷ Roqua, time to paint: {medians["geojson"] / medians["roqua"]:.1f}×')
    if medians['roqua'] is not None:
        print(f'Roqua heat layer painted {medians["roqua"]:,.0f} ms after navigation start: '
              f'{"meets" if medians["roqua"] < 1000 else "misses"} the < 1 s target')


if __name__ == '__main__':
    main()
