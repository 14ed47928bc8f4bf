import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaPhotos

private func standardTIFF(bigEndian: Bool = false) -> TIFFBuilder.Built {
    var t = TIFFBuilder(bigEndian: bigEndian)
    t.standard()
    return t.build()
}

private func expectMalformed(
    _ reading: PhotoReading, _ fragment: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    guard let message = reading.malformedMessage else {
        Issue.record("expected .malformed(…\(fragment)…), got \(reading)", sourceLocation: sourceLocation)
        return
    }
    #expect(message.contains(fragment), "message: \(message)", sourceLocation: sourceLocation)
}

@Suite struct HostileTIFFTests {
    let reader = PhotoReader()

    @Test func builderBaselineReads() {
        for bigEndian in [false, true] {
            let t = standardTIFF(bigEndian: bigEndian)
            #expect(reader.read(photoBytes: jpeg(tiff: t.bytes)).fix?.timeMillis == 1_689_338_096_500)
            #expect(reader.read(photoBytes: png(tiff: t.bytes)).fix?.timeMillis == 1_689_338_096_500)
        }
    }

    @Test func ifdChainLoop() {
        var t = standardTIFF()
        let ifd0 = t.ifds["IFD0"]!
        let count = Int(t.bytes[ifd0]) | Int(t.bytes[ifd0 + 1]) << 8
        t.put32(ifd0 + 2 + 12 * count, UInt32(ifd0), bigEndian: false)  // IFD0.next = IFD0
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.bytes)), "IFD loop")
    }

    @Test func subIFDPointingBackIsALoop() {
        var t = standardTIFF(bigEndian: true)
        t.put32(t.entry("IFD0", 0x8825) + 8, UInt32(t.ifds["IFD0"]!), bigEndian: true)  // GPS → IFD0
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.bytes)), "IFD loop")
    }

    @Test func libexifAloneSurvivesLoops() {
        // Bypass the validator: libexif must also terminate on a looped chain and a self-pointing GPS IFD.
        var t = standardTIFF()
        let ifd0 = t.ifds["IFD0"]!
        let count = Int(t.bytes[ifd0]) | Int(t.bytes[ifd0 + 1]) << 8
        t.put32(ifd0 + 2 + 12 * count, UInt32(ifd0), bigEndian: false)
        t.put32(t.entry("IFD0", 0x8769) + 8, UInt32(ifd0), bigEndian: false)
        let values = ExifDecoder.decode(tiff: t.bytes)
        #expect(values.latitudeRef == "N")
    }

    @Test func ifdOffsetOutsideTheFile() {
        var t = standardTIFF()
        t.put32(t.entry("IFD0", 0x8825) + 8, 0x7FFF_FFF0, bigEndian: false)
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.bytes)), "IFD offset 2147483632 outside the file")
        var t0 = standardTIFF(bigEndian: true)
        t0.put32(4, 0xFFFF_FFFF, bigEndian: true)
        expectMalformed(reader.read(photoBytes: png(tiff: t0.bytes)), "IFD0 IFD offset 4294967295 outside the file")
    }

    @Test func hugeValueCount() {
        var t = standardTIFF()
        t.put32(t.entry("GPS", 0x0002) + 4, 1_000_000_000, bigEndian: false)
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.bytes)), "entry count 1000000000")
    }

    @Test func hugeIFDEntryCount() {
        var t = standardTIFF(bigEndian: true)
        t.put16(t.ifds["GPS"]!, 0xFFFF, bigEndian: true)
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.bytes)), "GPS entry count 65535 exceeds")
    }

    @Test func badGPSValues() {
        // 0/0 denominators: no fix recorded.
        var t = TIFFBuilder()
        t.standard(lat: [(0, 0), (0, 0), (0, 0)], lon: [(0, 0), (0, 0), (0, 0)])
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)) == .skipped(.noPosition))
        // Exactly 0,0 is treated as no position.
        t.standard(lat: [(0, 1), (0, 1), (0, 1)], lon: [(0, 1), (0, 1), (0, 1)])
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)) == .skipped(.noPosition))
        // Latitude over 90.
        t.standard(lat: [(91, 1), (0, 1), (0, 1)])
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.build().bytes)), "latitude 91")
        // Longitude over 180.
        t.standard(lonRef: "W", lon: [(180, 1), (30, 1), (0, 1)])
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.build().bytes)), "longitude -180.5")
        // A bad reference letter.
        t.standard(latRef: "X")
        expectMalformed(reader.read(photoBytes: jpeg(tiff: t.build().bytes)), "GPSLatitudeRef 'X'")
    }

    @Test func timeFallbacks() {
        var t = TIFFBuilder()
        // Invalid GPS date → falls back to DateTimeOriginal with offset.
        t.standard(gpsDate: "0000:00:00", dto: "2023:07:14 14:34:50", offset: "+02:00")
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)).fix?.timeMillis == 1_689_338_090_000)
        // GPS time without a date → DateTimeOriginal.
        t.standard(gpsDate: nil, dto: "2023:07:14 14:34:50", offset: "-00:30")
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)).fix?.timeMillis == 1_689_347_090_000)
        // No time at all.
        t.standard(gpsDate: nil, gpsTime: nil, dto: nil, offset: nil)
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)) == .skipped(.noTime))
        // Blank DateTimeOriginal counts as none.
        t.standard(gpsDate: nil, gpsTime: nil, dto: "    :  :     :  :  ", offset: nil)
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)) == .skipped(.noTime))
        // Local time, no offset → noTimeZone, or the caller's zone.
        t.standard(gpsDate: nil, gpsTime: nil, dto: "2023:07:14 14:34:50", offset: nil)
        #expect(reader.read(photoBytes: jpeg(tiff: t.build().bytes)) == .skipped(.noTimeZone))
        let utcReader = PhotoReader(timeZone: TimeZone(identifier: "UTC")!)
        #expect(utcReader.read(photoBytes: jpeg(tiff: t.build().bytes)).fix?.timeMillis == 1_689_345_290_000)
    }

    @Test func notTIFF() {
        expectMalformed(reader.read(photoBytes: jpeg(tiff: Array("XXXXXXXXXXXXXXXXXXXX".utf8))), "no TIFF byte-order mark")
        expectMalformed(reader.read(photoBytes: png(tiff: [0x49, 0x49, 43, 0, 8, 0, 0, 0, 0, 0])), "TIFF magic 43")
    }
}

@Suite struct HostileContainerTests {
    let reader = PhotoReader()
    let tiff = standardTIFF().bytes

    @Test func truncatedJPEGsNeverCrash() {
        let full = Fixture.bytes("gps-full.jpg")
        var malformed = 0
        for length in 0..<full.count {
            let r = reader.read(photoBytes: Array(full[0..<length]))
            if r.malformedMessage != nil { malformed += 1 }
            #expect(r.fix == nil || length > 400, "a fix from only \(length) bytes")
        }
        #expect(malformed > 100)
        expectMalformed(reader.read(photoBytes: Array(full[0..<300])), "outside the file")
    }

    @Test func jpegSegmentLengthAndCount() {
        expectMalformed(
            reader.read(photoBytes: [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x01] + [UInt8](repeating: 0, count: 16)),
            "JPEG segment length 1")
        var many: [UInt8] = [0xFF, 0xD8]
        for _ in 0..<200 { many += [0xFF, 0xE5, 0x00, 0x02] }
        many += [0xFF, 0xD9]
        expectMalformed(reader.read(photoBytes: many), "more than 128 JPEG segments")
        // APP1 length pointing past the end.
        var cut = jpeg(tiff: tiff)
        cut.removeLast(cut.count - 200)
        expectMalformed(reader.read(photoBytes: cut), "outside the file")
    }

    @Test func pngHostileChunks() {
        let sig: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        expectMalformed(
            reader.read(photoBytes: sig + be32(0xFFFF_FFF0) + Array("tEXt".utf8) + [0, 0, 0, 0]),
            "PNG chunk tEXt length 4294967280")
        expectMalformed(
            reader.read(photoBytes: sig + be32(1_000_000) + Array("eXIf".utf8) + [0, 0, 0, 0]),
            "extends outside the file")
        let big = sig + be32(300_000) + Array("eXIf".utf8) + [UInt8](repeating: 0, count: 300_004)
        expectMalformed(reader.read(photoBytes: big), "exceeds the cap")
        #expect(reader.read(photoBytes: sig + be32(0) + Array("IEND".utf8) + [0, 0, 0, 0]) == .skipped(.noPosition))
    }

    @Test func boxSizeLargerThanFile() {
        var bytes = HEIFBuilder(tiff: tiff).build()
        let ftypSize = Int(bytes.be32(0))
        bytes.replaceSubrange(ftypSize..<ftypSize + 4, with: be32(0xFFFF_FF00))
        expectMalformed(reader.read(photoBytes: bytes), "box meta size 4294967040")
    }

    @Test func hugeLargesize() {
        var h = HEIFBuilder(tiff: tiff)
        h.boxesBeforeMeta = be32(1) + Array("free".utf8) + be64(UInt64.max) + [0, 0, 0, 0]
        expectMalformed(reader.read(photoBytes: h.build()), "box free size 18446744073709551615")
        h.boxesBeforeMeta = be32(1) + Array("free".utf8) + be64(3)
        expectMalformed(reader.read(photoBytes: h.build()), "largesize 3")
        h.boxesBeforeMeta = be32(4) + Array("free".utf8)
        expectMalformed(reader.read(photoBytes: h.build()), "box free size 4")
    }

    @Test func sizeZeroBoxBeforeMetaHidesIt() {
        var h = HEIFBuilder(tiff: tiff)
        h.boxesBeforeMeta = be32(0) + Array("free".utf8)
        expectMalformed(reader.read(photoBytes: h.build()), "no meta box")
    }

    @Test func deepNestingIsNotRecursedInto() {
        // 20,000 nested boxes inside meta: the reader walks only meta's direct children.
        var nested: [UInt8] = []
        for _ in 0..<20_000 { nested = box("dinf", nested) }
        var h = HEIFBuilder(tiff: tiff)
        h.metaExtraChildren = [nested]
        #expect(reader.read(photoBytes: h.build()).fix != nil)
        // Too many children in meta.
        h.metaExtraChildren = Array(repeating: box("free", []), count: 100)
        expectMalformed(reader.read(photoBytes: h.build()), "more than 64 boxes in meta")
        // Too many top-level boxes.
        h.metaExtraChildren = []
        h.boxesBeforeMeta = (0..<300).flatMap { _ in box("free", []) }
        expectMalformed(reader.read(photoBytes: h.build()), "more than 256 top-level boxes")
    }

    @Test func ilocExtentOutsideTheFile() {
        var h = HEIFBuilder(tiff: tiff)
        h.exifOffsetOverride = 1 << 40
        h.offsetSize = 8
        expectMalformed(reader.read(photoBytes: h.build()), "Exif item extent offset 1099511627776 outside the file")
        h.exifOffsetOverride = nil
        h.exifLengthOverride = 100_000
        expectMalformed(reader.read(photoBytes: h.build()), "outside the file")
    }

    @Test func exifItemLargerThanCap() {
        var h = HEIFBuilder(tiff: tiff)
        h.imageBytes = 2 << 20
        h.exifOffsetOverride = 100  // inside the big mdat
        h.exifLengthOverride = 1 << 20
        expectMalformed(reader.read(photoBytes: h.build()), "exceeds the cap of \(maxExifBytes)")
    }

    @Test func hugeItemCounts() {
        var h = HEIFBuilder(tiff: tiff)
        h.iinfCountOverride = 1_000_000_000
        expectMalformed(reader.read(photoBytes: h.build()), "iinf entry count 1000000000")
        h.iinfCountOverride = nil
        h.ilocVersion = 2
        h.ilocItemCountOverride = 1_000_000_000
        expectMalformed(reader.read(photoBytes: h.build()), "iloc item count 1000000000")
    }

    @Test func badIlocFieldSizes() {
        var h = HEIFBuilder(tiff: tiff)
        h.offsetSize = 2
        expectMalformed(reader.read(photoBytes: h.build()), "iloc offset_size 2")
        h.offsetSize = 4
        h.ilocVersion = 3
        expectMalformed(reader.read(photoBytes: h.build()), "iloc version 3")
    }

    @Test func badTIFFHeaderOffsetInExifItem() {
        var h = HEIFBuilder(tiff: tiff)
        h.exifPayload.replaceSubrange(0..<4, with: be32(0xFFFF_0000))
        expectMalformed(reader.read(photoBytes: h.build()), "TIFF header offset 4294901760 outside the item")
    }

    @Test func heifWithoutExifItemIsNoPosition() {
        var h = HEIFBuilder(tiff: tiff)
        h.infeVersion = 1  // infe v1 has no item type: no Exif item found
        #expect(reader.read(photoBytes: h.build()) == .skipped(.noPosition))
    }

    @Test func truncatedHEIFsNeverCrash() {
        let full = Fixture.bytes("gps.heic")
        for length in 0..<full.count {
            let r = reader.read(photoBytes: Array(full[0..<length]))
            if length < 300 { #expect(r.fix == nil) }
        }
        #expect(reader.read(photoBytes: full).fix != nil)
    }
}

@Suite struct LargeExifTests {
    @Test func gpsIFDBeyond64KiBInAHEIFExifItem() {
        // IFD0 carries a 70 KB value, so the GPS IFD lands past 64 KiB (possible in HEIF/PNG, not JPEG).
        var t = TIFFBuilder()
        t.standard()
        t.ifd0.append(t.bytes(0x9C9C, [UInt8](repeating: 0x41, count: 70_000)))
        let built = t.build()
        #expect(built.ifds["GPS"]! > 65_536)
        let h = HEIFBuilder(tiff: built.bytes)
        #expect(PhotoReader().read(photoBytes: h.build()).fix?.timeMillis == 1_689_338_096_500)
    }
}

@Suite struct DifferentialTests {
    /// The direct fallback decoder and libexif agree on every fixture and builder block.
    @Test func directDecoderMatchesLibexif() throws {
        var blocks: [[UInt8]] = []
        for name in ["gps-full.jpg", "south-west.jpg", "no-offset.jpg", "IMG_1234.jpg"] {
            blocks.append(try #require(try JPEGReader.exifTIFF(ByteSource(bytes: Fixture.bytes(name)))))
        }
        for name in ["gps.heic", "gps.avif"] {
            blocks.append(try #require(try ISOBMFFReader.exifTIFF(ByteSource(bytes: Fixture.bytes(name)))))
        }
        blocks.append(try #require(try PNGReader.exifTIFF(ByteSource(bytes: Fixture.bytes("gps.png")))))
        for bigEndian in [false, true] {
            var t = TIFFBuilder(bigEndian: bigEndian)
            t.standard(latRef: "S", lonRef: "W")
            t.gps.append(t.rationals(0x001F, [(7, 2)]))
            t.gps.append(t.bytes(0x0005, [1]))
            t.gps.append(t.rationals(0x0006, [(1234, 10)]))
            blocks.append(t.build().bytes)
        }
        for block in blocks {
            let layout = try TIFFValidator.validate(block)
            let viaLibexif = ExifDecoder.decode(tiff: block)
            let direct = ExifDecoder.decodeDirect(tiff: block, layout: layout)
            #expect("\(viaLibexif)" == "\(direct)")
            #expect(viaLibexif.latitude != nil || viaLibexif.localTimes.first?.dateTime != nil)
        }
    }

    /// Mutated blocks that pass validation: the decoders agree on nearly all. The known divergence:
    /// a mutated tag number in the GPS IFD (e.g. 0x0001 → 0x0201) makes libexif drop that IFD while
    /// the direct reader keeps the other entries; both outcomes are safe.
    @Test func directDecoderMostlyMatchesLibexifOnMutants() throws {
        var t = TIFFBuilder()
        t.standard()
        t.gps.append(t.rationals(0x001F, [(7, 2)]))
        let seeds = [t.build().bytes, try #require(try ISOBMFFReader.exifTIFF(ByteSource(bytes: Fixture.bytes("gps.heic"))))]
        var rng = SeededGenerator(state: 7)
        var compared = 0
        var mismatches = 0
        for _ in 0..<20_000 {
            var b = seeds[Int.random(in: 0..<seeds.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                b[Int.random(in: 8..<b.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            guard let layout = try? TIFFValidator.validate(b) else { continue }
            compared += 1
            if "\(ExifDecoder.decode(tiff: b))" != "\(ExifDecoder.decodeDirect(tiff: b, layout: layout))" { mismatches += 1 }
        }
        print("differential: \(compared) valid mutants, \(mismatches) decoded differently")
        #expect(compared > 1000)
        #expect(mismatches * 50 < compared)
    }
}

@Suite struct NotAFileTests {
    /// A named pipe called like a photo would block an import opening it for reading until someone
    /// wrote to it: it is refused at once as unreadable.
    @Test func aNamedPipeIsRefusedNotWaitedOn() throws {
        let directory = try TempDirectory("roqua-photo-fifo")
        let pipe = directory.file("IMG_0001.jpg")
        #expect(mkfifo(pipe, 0o600) == 0)
        guard case .skipped(.unreadable(let what)) = PhotoReader().read(photoPath: pipe) else {
            Issue.record("a named pipe was not refused as unreadable")
            return
        }
        #expect(what.contains("not a regular file"))
    }
}
