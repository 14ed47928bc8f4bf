#!/usr/bin/env python3
"""Photo previews made from the picture: `roqua serve`'s /api/photos/preview for JPEGs that carry
no EXIF preview, first request (made with libjpeg at 1/8 and kept) and again (kept), against
Pillow making the same thumbnail from the same file in this process (`draft` + `thumbnail`:
libjpeg-turbo's DCT scaling too, nothing kept).

Workload (seeded, not tuned for): PHOTOS 12-megapixel JPEGs (4000×3000, noise over a gradient,
quality 85, about 6 MB), each with a GPS position and time in its EXIF and no preview.

Usage: python3 -m venv WORKDIR/venv && WORKDIR/venv/bin/pip install --require-hashes \\
         -r scripts/bench/bench-previews-requirements.txt
       WORKDIR/venv/bin/python scripts/bench/bench_previews.py BIN_DIR WORKDIR [PHOTOS]
BIN_DIR holds roqua and roqua-serve (a release build); ROQUA_BOUNDARIES names the boundary DB.
"""
import http.client
import io
import os
import random
import shutil
import statistics
import subprocess
import sys
import time

from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_photos import tiff  # noqa: E402  (the same EXIF GPS writer)


def make(folder, count):
    random.seed(7)
    base = Image.merge('RGB', (Image.effect_noise((4000, 3000), 60).convert('L'),
                               Image.linear_gradient('L').resize((4000, 3000)),
                               Image.effect_noise((4000, 3000), 40).convert('L')))
    for k in range(count):
        exif = b'Exif\0\0' + tiff(41.01 + random.random() * 0.05, 28.97 + random.random() * 0.05, 1_714_988_400 + 60 * k)
        base.save(os.path.join(folder, f'IMG_{k:04d}.jpg'), quality=85, exif=exif)


def get(port, path):
    connection = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
    start = time.perf_counter()
    connection.request('GET', path)
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - start
    connection.close()
    if response.status != 200 or not body.startswith(b'\xff\xd8'):
        sys.exit(f'{path}: {response.status} {body[:200]!r}')
    return elapsed * 1000


def main():
    bin_dir, work = os.path.realpath(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    shutil.rmtree(work + '/camera', ignore_errors=True)
    os.makedirs(work + '/camera')
    make(work + '/camera', count)
    store = work + '/previews.sqlite'
    for leftover in [store, store + '-wal', store + '-shm']:
        if os.path.exists(leftover):
            os.remove(leftover)
    shutil.rmtree(store + '.thumbnails', ignore_errors=True)
    subprocess.run([bin_dir + '/roqua', 'track', 'import', work + '/camera', '--store', store], check=True, stdout=subprocess.DEVNULL)
    port = 18000 + os.getpid() % 1000
    server = subprocess.Popen([bin_dir + '/roqua', 'serve', '--store', store, '--listen', f'127.0.0.1:{port}'],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection('127.0.0.1', port, timeout=1).request('GET', '/status')
                break
            except OSError:
                time.sleep(0.1)
        names = sorted(os.listdir(work + '/camera'))
        first = [get(port, f'/api/photos/preview?path={name}') for name in names]
        again = [get(port, f'/api/photos/preview?path={name}') for name in names]
    finally:
        server.terminate()
        server.wait(timeout=30)
    pillow = []
    for name in names:
        start = time.perf_counter()
        with Image.open(os.path.join(work, 'camera', name)) as picture:
            picture.draft('RGB', (320, 320))
            picture.thumbnail((320, 320), Image.Resampling.BOX)
            picture.save(io.BytesIO(), 'JPEG', quality=80)
        pillow.append((time.perf_counter() - start) * 1000)
    size = statistics.median(os.path.getsize(os.path.join(work, 'camera', n)) for n in names) / 1e6
    print(f'{count} photos, 4000x3000, median {size:.1f} MB')
    print(f'roqua serve, first request (made, kept):  median {statistics.median(first):6.1f} ms  max {max(first):6.1f} ms')
    print(f'roqua serve, again (kept):               median {statistics.median(again):6.1f} ms  max {max(again):6.1f} ms')
    print(f'Pillow draft+thumbnail in process:       median {statistics.median(pillow):6.1f} ms')
    print(f'first request / Pillow: {statistics.median(first) / statistics.median(pillow):.2f}x  '
          f'(the request includes HTTP, the store look-up and the write of the kept file)')


if __name__ == '__main__':
    main()
