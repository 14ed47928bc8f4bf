#!/usr/bin/env python3
"""Generates the small photo fixtures for RoquaPhotos tests.

Run from the package root:  .venv/bin/python scripts/make-photo-fixtures.py
Needs pillow (JPEG/PNG/AVIF writers) and pillow-heif (HEIC writer, libheif).
The EXIF/TIFF bytes are written by hand here (no piexif), so the values in the
tests are exactly the ones below. Output: Tests/RoquaPhotosTests/Fixtures/.
"""
import io
import json
import os
import struct

from PIL import Image

OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "RoquaPhotosTests", "Fixtures")

ASCII, SHORT, LONG, RATIONAL, BYTE, UNDEFINED = 2, 3, 4, 5, 1, 7
TYPE_SIZE = {BYTE: 1, ASCII: 1, SHORT: 2, LONG: 4, RATIONAL: 8, UNDEFINED: 1}


def tiff(ifd0, exif=None, gps=None, big_endian=False, thumbnail=None):
    """Builds a TIFF/EXIF blob. Each IFD is a list of (tag, type, values);
    ASCII values are str, RATIONAL values are lists of (num, den). `thumbnail` (JPEG bytes) goes
    in IFD1, chained after IFD0, as cameras store their preview."""
    bo = ">" if big_endian else "<"

    def encode(typ, vals):
        if typ == ASCII:
            raw = vals.encode("ascii") + b"\x00"
            return raw, len(raw)
        if typ in (BYTE, UNDEFINED):
            return bytes(vals), len(vals)
        if typ == SHORT:
            return b"".join(struct.pack(bo + "H", v) for v in vals), len(vals)
        if typ == LONG:
            return b"".join(struct.pack(bo + "I", v) for v in vals), len(vals)
        if typ == RATIONAL:
            return b"".join(struct.pack(bo + "II", n, d) for n, d in vals), len(vals)
        raise ValueError(typ)

    # Layout: header(8) | IFD0 | IFD0 data | ExifIFD | data | GPS IFD | data
    ifds = [("ifd0", list(ifd0))]
    if exif is not None:
        ifds.append(("exif", list(exif)))
    if gps is not None:
        ifds.append(("gps", list(gps)))
    if thumbnail is not None:
        ifds.append(("ifd1", [(0x0103, SHORT, [6]), (0x0201, LONG, [0]), (0x0202, LONG, [len(thumbnail)])]))
    # Pointer entries in IFD0 (values patched once offsets are known).
    if exif is not None:
        ifds[0][1].append((0x8769, LONG, [0]))
    if gps is not None:
        ifds[0][1].append((0x8825, LONG, [0]))

    def ifd_size(entries):
        data = 0
        for tag, typ, vals in entries:
            raw, _ = encode(typ, vals)
            if len(raw) > 4:
                data += len(raw) + (len(raw) & 1)
        return 2 + 12 * len(entries) + 4 + data

    offsets = {}
    pos = 8
    for name, entries in ifds:
        offsets[name] = pos
        pos += ifd_size(entries)

    def fix(entries):
        out = []
        for tag, typ, vals in entries:
            if tag == 0x8769:
                vals = [offsets["exif"]]
            if tag == 0x8825:
                vals = [offsets["gps"]]
            if tag == 0x0201:
                vals = [pos]  # the thumbnail follows the last IFD
            out.append((tag, typ, vals))
        return sorted(out, key=lambda e: e[0])

    blob = bytearray((b"MM\x00\x2a" if big_endian else b"II\x2a\x00") + struct.pack(bo + "I", 8))
    for name, entries in ifds:
        entries = fix(entries)
        start = offsets[name]
        assert len(blob) == start
        data_at = start + 2 + 12 * len(entries) + 4
        table = bytearray(struct.pack(bo + "H", len(entries)))
        data = bytearray()
        for tag, typ, vals in entries:
            raw, count = encode(typ, vals)
            if len(raw) <= 4:
                field = raw + b"\x00" * (4 - len(raw))
            else:
                field = struct.pack(bo + "I", data_at + len(data))
                data += raw
                if len(raw) & 1:
                    data += b"\x00"
            table += struct.pack(bo + "HHI", tag, typ, count) + field
        table += struct.pack(bo + "I", offsets["ifd1"] if name == "ifd0" and thumbnail is not None else 0)
        blob += table + data
    return bytes(blob) + (thumbnail or b"")


def dms(deg, minutes, sec_num, sec_den):
    return [(deg, 1), (minutes, 1), (sec_num, sec_den)]


def gps_ifd(lat_ref, lat, lon_ref, lon, alt=None, alt_ref=0, time=None, date=None, hpe=None):
    e = [(0x0000, BYTE, [2, 3, 0, 0]),
         (0x0001, ASCII, lat_ref), (0x0002, RATIONAL, lat),
         (0x0003, ASCII, lon_ref), (0x0004, RATIONAL, lon)]
    if alt is not None:
        e += [(0x0005, BYTE, [alt_ref]), (0x0006, RATIONAL, [alt])]
    if time is not None:
        e.append((0x0007, RATIONAL, time))
    if date is not None:
        e.append((0x001D, ASCII, date))
    if hpe is not None:
        e.append((0x001F, RATIONAL, [hpe]))
    return e


def exif_ifd(dto=None, subsec=None, offset=None):
    e = [(0x9000, UNDEFINED, list(b"0232"))]
    if dto is not None:
        e.append((0x9003, ASCII, dto))
    if offset is not None:
        e.append((0x9011, ASCII, offset))
    if subsec is not None:
        e.append((0x9291, ASCII, subsec))
    return e


IFD0 = [(0x010F, ASCII, "Roqua"), (0x0110, ASCII, "Fixture Cam")]


def img(color):
    return Image.new("RGB", (16, 16), color)


def halves(size):
    """Left half red, right half blue."""
    picture = Image.new("RGB", size, (40, 40, 220))
    picture.paste((220, 40, 40), (0, 0, size[0] // 2, size[1]))
    return picture


def write_sideways(preview, name, minute):
    thumbnail = None
    if preview:
        buffer = io.BytesIO()
        halves((32, 24)).save(buffer, "JPEG", quality=90)
        thumbnail = buffer.getvalue()
    t = tiff(IFD0 + [(0x0112, SHORT, [6])], None,
             gps_ifd("N", dms(41, 1, 4608, 100), "E", dms(28, 58, 2472, 100),
                     time=[(9, 1), (minute, 1), (0, 1)], date="2024:05:06"),
             thumbnail=thumbnail)
    halves((1200, 800) if not preview else (64, 48)).save(os.path.join(OUT, name), quality=80, exif=b"Exif\x00\x00" + t)


def main():
    os.makedirs(OUT, exist_ok=True)
    # 1. JPEG, little endian, full GPS: N 48°51'29.52" E 2°17'40.20", alt 35.5 m,
    #    HPositioningError 4.5 m, GPS time 2023-07-14 12:34:56.5 UTC, DTO 14:34:56 +02:00.
    t = tiff(IFD0,
             exif_ifd("2023:07:14 14:34:50", "120", "+02:00"),
             gps_ifd("N", dms(48, 51, 2952, 100), "E", dms(2, 17, 4020, 100),
                     alt=(71, 2), time=[(12, 1), (34, 1), (565, 10)], date="2023:07:14", hpe=(9, 2)))
    img((200, 30, 30)).save(os.path.join(OUT, "gps-full.jpg"), quality=80, exif=b"Exif\x00\x00" + t)

    # 2. JPEG, big endian, S/W, below sea level, no GPS time: DTO + subsec + negative offset.
    #    S 33°51'35.90" W 70°40'12.00", alt -12 m, 2022-12-31 21:15:00.250 -03:00 = 2023-01-01 00:15:00.250Z
    t = tiff(IFD0,
             exif_ifd("2022:12:31 21:15:00", "25", "-03:00"),
             gps_ifd("S", dms(33, 51, 3590, 100), "W", dms(70, 40, 12, 1), alt=(12, 1), alt_ref=1),
             big_endian=True)
    img((30, 200, 30)).save(os.path.join(OUT, "south-west.jpg"), quality=80, exif=b"Exif\x00\x00" + t)

    # 3. JPEG, local time without offset: N 35°39'31.00" E 139°42'03.00", DTO 2024:03:01 09:00:00.
    t = tiff(IFD0, exif_ifd("2024:03:01 09:00:00"),
             gps_ifd("N", dms(35, 39, 31, 1), "E", dms(139, 42, 3, 1)))
    img((30, 30, 200)).save(os.path.join(OUT, "no-offset.jpg"), quality=80, exif=b"Exif\x00\x00" + t)

    # 4. JPEG without GPS (also the photo beside a Takeout sidecar).
    t = tiff(IFD0, exif_ifd("2021:05:06 07:08:09", None, "+01:00"))
    img((90, 90, 90)).save(os.path.join(OUT, "IMG_1234.jpg"), quality=80, exif=b"Exif\x00\x00" + t)

    # 5. HEIC (libheif via pillow-heif): N 40°41'21.00" W 74°02'40.00", GPS time
    #    2020-02-29 23:59:59 UTC, HPositioningError 12 m.
    import pillow_heif
    pillow_heif.register_heif_opener()
    t = tiff(IFD0, exif_ifd("2020:02:29 18:59:59", None, "-05:00"),
             gps_ifd("N", dms(40, 41, 21, 1), "W", dms(74, 2, 40, 1),
                     time=[(23, 1), (59, 1), (59, 1)], date="2020:02:29", hpe=(12, 1)),
             big_endian=True)
    img((200, 200, 30)).save(os.path.join(OUT, "gps.heic"), quality=50, exif=b"Exif\x00\x00" + t)

    # 6. AVIF (Pillow's libavif plugin): S 22°54'30.00" W 43°10'20.00", DTO 2019:08:10 10:20:30 -03:00.
    t = tiff(IFD0, exif_ifd("2019:08:10 10:20:30", None, "-03:00"),
             gps_ifd("S", dms(22, 54, 30, 1), "W", dms(43, 10, 20, 1), hpe=(30, 1)))
    img((30, 200, 200)).save(os.path.join(OUT, "gps.avif"), quality=50, exif=b"Exif\x00\x00" + t)

    # 7. PNG with eXIf: N 64°08'45.00" W 21°56'30.00", GPS time 2018-06-21 00:00:00 UTC.
    t = tiff(IFD0, exif_ifd("2018:06:21 00:00:00", None, "+00:00"),
             gps_ifd("N", dms(64, 8, 45, 1), "W", dms(21, 56, 30, 1),
                     time=[(0, 1), (0, 1), (0, 1)], date="2018:06:21"))
    img((200, 30, 200)).save(os.path.join(OUT, "gps.png"), exif=b"Exif\x00\x00" + t)

    # 7b. JPEG with the camera's preview in IFD1 (a 32×24 JPEG): Galata, İstanbul,
    #     N 41°01'46.08" E 28°58'24.72", GPS time 2024-05-06 09:30:00 UTC (at work in commute.csv).
    preview = io.BytesIO()
    Image.new("RGB", (32, 24), (240, 160, 40)).save(preview, "JPEG", quality=80)
    t = tiff(IFD0, None,
             gps_ifd("N", dms(41, 1, 4608, 100), "E", dms(28, 58, 2472, 100),
                     time=[(9, 1), (30, 1), (0, 1)], date="2024:05:06"),
             thumbnail=preview.getvalue())
    Image.new("RGB", (64, 48), (40, 120, 200)).save(os.path.join(OUT, "with-thumbnail.jpg"), quality=80,
                                                    exif=b"Exif\x00\x00" + t)

    # 7c. Taken upright with the phone on its side (orientation 6: turn 90° clockwise to show):
    #     stored 1200×800, left half red and right half blue, so upright the top is red. One has
    #     no preview (the thumbnail is made from the picture), the other a 32×24 preview stored
    #     on its side too. Galata, GPS time 2024-05-06 09:40:00 / 09:45:00 UTC.
    write_sideways(preview=False, name="sideways.jpg", minute=40)
    write_sideways(preview=True, name="sideways-with-preview.jpg", minute=45)
    #     The same as a HEIC with a 160×240 thumbnail image in its container (pillow-heif turns
    #     the pixels upright and keeps the EXIF orientation 6, which a HEIC reader must not apply
    #     again), 09:50:00 UTC.
    import pillow_heif
    pillow_heif.register_heif_opener()
    t = tiff(IFD0 + [(0x0112, SHORT, [6])], None,
             gps_ifd("N", dms(41, 1, 4608, 100), "E", dms(28, 58, 2472, 100),
                     time=[(9, 1), (50, 1), (0, 1)], date="2024:05:06"), big_endian=True)
    halves((1200, 800)).save(os.path.join(OUT, "sideways.heic"), quality=40, exif=b"Exif\x00\x00" + t, thumbnails=[240])

    # 8. Takeout sidecars.
    #    Beside IMG_1234.jpg (which has no GPS): geoData edited, geoDataExif is the camera's.
    side = {
        "title": "IMG_1234.jpg",
        "photoTakenTime": {"timestamp": "1620281289", "formatted": "May 6, 2021, 6:08:09 AM UTC"},
        "geoData": {"latitude": 51.5007, "longitude": -0.1246, "altitude": 0.0,
                    "latitudeSpan": 0.0, "longitudeSpan": 0.0},
        "geoDataExif": {"latitude": 51.50072, "longitude": -0.12462, "altitude": 20.5,
                        "latitudeSpan": 0.0, "longitudeSpan": 0.0},
    }
    with open(os.path.join(OUT, "IMG_1234.jpg.supplemental-metadata.json"), "w") as f:
        json.dump(side, f, indent=2)
    #    Sidecar alone (photo not exported), truncated name, only geoData.
    side = {
        "title": "PXL_20220102_030405678.jpg",
        "photoTakenTime": {"timestamp": "1641092645", "formatted": "Jan 2, 2022, 3:04:05 AM UTC"},
        "geoData": {"latitude": -36.8485, "longitude": 174.7633, "altitude": 12.0},
        "geoDataExif": {"latitude": 0.0, "longitude": 0.0, "altitude": 0.0},
    }
    with open(os.path.join(OUT, "PXL_20220102_030405678.jpg.supplemental-met.json"), "w") as f:
        json.dump(side, f, indent=2)
    #    Sidecar with no position (0/0 in both).
    side = {
        "title": "IMG_0001.heic",
        "photoTakenTime": {"timestamp": "1500000000", "formatted": "Jul 14, 2017"},
        "geoData": {"latitude": 0.0, "longitude": 0.0, "altitude": 0.0},
        "geoDataExif": {"latitude": 0.0, "longitude": 0.0, "altitude": 0.0},
    }
    with open(os.path.join(OUT, "IMG_0001.heic.json"), "w") as f:
        json.dump(side, f, indent=2)


if __name__ == "__main__":
    main()
