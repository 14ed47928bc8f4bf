#!/usr/bin/env python3
"""Photos as history: `roqua track import` of a folder of geotagged photos, end to end.

Workload (seeded, not tuned to the readers): N JPEG photos (default 50,000) in nested folders,
each with its own EXIF GPS position (a traveller's cities plus noise) and GPS time, written by the
small EXIF writer below (no pillow), each padded with a sparse 3 MB tail after the image, so a
reader that read the pixels would read 150 GB; 5 % without a position (counted, not errors).

Measured, RUNS times each (median), warm page cache:
  import time and photos/s            into a fresh store; target 50,000 photos in < 60 s
  bytes read per photo                the process's read bytes (/proc/PID/io rchar, SQLite's own
                                      reads included, so an upper bound) ÷ photos; the padding
                                      would show as ~3 MB
  peak RSS                            GNU time

Usage: bench_photos.py ROQUA WORKDIR [PHOTOS] [RUNS]
"""
import os
import random
import statistics
import struct
import subprocess
import sys
import time

CITIES = [(41.01, 28.97), (39.93, 32.86), (38.42, 27.14), (48.86, 2.35), (52.52, 13.40), (40.42, -3.70), (35.68, 139.69)]


def rationals(values):
    return b''.join(struct.pack('<II', round(v * d), d) for v, d in values)


def tiff(lat, lon, when):
    """A little-endian TIFF: IFD0 with a GPS pointer; GPS IFD with refs, position, date and time."""
    def dms(x):
        x = abs(x)
        d = int(x)
        m = int((x - d) * 60)
        s = (x - d - m / 60) * 3600
        return [(d, 1), (m, 1), (s, 1000)]
    t = time.gmtime(when)
    entries = [
        (1, 2, 2, b'N\0' if lat >= 0 else b'S\0'),
        (2, 5, 3, rationals(dms(lat))),
        (3, 2, 2, b'E\0' if lon >= 0 else b'W\0'),
        (4, 5, 3, rationals(dms(lon))),
        (7, 5, 3, rationals([(t.tm_hour, 1), (t.tm_min, 1), (t.tm_sec, 1)])),
        (29, 2, 11, time.strftime('%Y:%m:%d', t).encode() + b'\0'),
    ]
    ifd0 = 8
    gps = ifd0 + 2 + 12 + 4
    data = gps + 2 + 12 * len(entries) + 4
    out = b'II*\0' + struct.pack('<I', ifd0)
    out += struct.pack('<H', 1) + struct.pack('<HHII', 0x8825, 4, 1, gps) + struct.pack('<I', 0)
    body, extra = b'', b''
    for tag, kind, count, value in entries:
        if len(value) <= 4:
            body += struct.pack('<HHI', tag, kind, count) + value.ljust(4, b'\0')
        else:
            body += struct.pack('<HHII', tag, kind, count, data + len(extra))
            extra += value
    return out + struct.pack('<H', len(entries)) + body + struct.pack('<I', 0) + extra


def jpeg(exif):
    app1 = b'Exif\0\0' + exif if exif else b'ABCD'
    head = b'\xff\xd8' + b'\xff\xe1' + struct.pack('>H', len(app1) + 2) + app1
    # A start of scan and a few bytes of "image", then the end; the pixels are not what is read.
    return head + b'\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00' + bytes(64) + b'\xff\xd9'


def make(folder, count):
    if os.path.exists(os.path.join(folder, '.done')):
        return
    rng = random.Random(7)
    start = 1_388_534_400  # 2014-01-01
    for i in range(count):
        sub = os.path.join(folder, f'{2014 + i * 10 // count}', f'{i // 500:03d}')
        os.makedirs(sub, exist_ok=True)
        lat, lon = rng.choice(CITIES)
        lat, lon = lat + rng.uniform(-0.2, 0.2), lon + rng.uniform(-0.2, 0.2)
        when = start + i * (315_360_000 // count) + rng.randrange(3600)
        located = rng.random() >= 0.05
        path = os.path.join(sub, f'IMG_{i:06d}.jpg')
        with open(path, 'wb') as f:
            f.write(jpeg(tiff(lat, lon, when) if located else None))
            f.truncate(3 * 1024 * 1024)  # sparse: no disk, but 3 MB to a reader that reads it all
    open(os.path.join(folder, '.done'), 'w').close()


def run(argv):
    """Wall seconds, read bytes (rchar) and peak RSS (MB) of one command."""
    start = time.perf_counter()
    process = subprocess.Popen(['/usr/bin/time', '-f', '%M'] + argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    child = None
    rchar = 0
    while process.poll() is None:
        try:
            child = child or int(open(f'/proc/{process.pid}/task/{process.pid}/children').read().split()[0])
            for line in open(f'/proc/{child}/io'):
                if line.startswith('rchar:'):
                    rchar = int(line.split()[1])
        except (OSError, IndexError, ValueError):
            pass
        time.sleep(0.01)
    out, err = process.communicate()
    seconds = time.perf_counter() - start
    if process.returncode != 0:
        sys.exit(f"{' '.join(argv)} failed: {err[-2000:]}")
    return seconds, rchar, int(err.strip().splitlines()[-1]) / 1024, out


def main():
    roqua, work = os.path.realpath(sys.argv[1]), sys.argv[2]
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 50_000
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    folder = os.path.join(work, f'photos-{count}')
    os.makedirs(folder, exist_ok=True)
    made = time.perf_counter()
    make(folder, count)
    print(f'# Photos ({time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}; {os.cpu_count()} cores; '
          f'{count:,} photos, made in {time.perf_counter() - made:.0f} s)\n')
    subprocess.run(['cat'] + [os.path.join(r, f) for r, _, fs in os.walk(folder) for f in fs[:1]],
                   stdout=subprocess.DEVNULL)  # warm the directories
    results = []
    for _ in range(runs):
        store = os.path.join(work, 'photos.sqlite')
        for suffix in ('', '-wal', '-shm'):
            if os.path.exists(store + suffix):
                os.remove(store + suffix)
        results.append(run([roqua, 'track', 'import', folder, '--store', store]))
    seconds = statistics.median(r[0] for r in results)
    rchar = statistics.median(r[1] for r in results)
    print('| photos | import (median) | photos/s | read a photo | peak RSS | target |\n|---:|---:|---:|---:|---:|---|')
    print(f'| {count:,} | {seconds:.1f} s | {count / seconds:,.0f} | {rchar / count:,.0f} B | '
          f'{max(r[2] for r in results):.0f} MB | 50,000 in < 60 s |')
    print('\n' + results[-1][3].splitlines()[0])


if __name__ == '__main__':
    main()
