import Foundation
import RoquaTestSupport
import Testing

@testable import RoquaRegions

/// FIT files written here byte by byte (so every header kind is covered), and real ones.
@Suite struct TrackReaderFITTests {
    typealias F = TrackFixtures
    let t0 = TrackFixtures.t0

    /// A minimal FIT writer: definitions and data messages, header and CRCs.
    struct FITWriter {
        var data: [UInt8] = []

        mutating func define(
            local: UInt8, global: UInt16, fields: [(UInt8, UInt8, UInt8)], bigEndian: Bool = false,
            developer: [(UInt8, UInt8, UInt8)] = []
        ) {
            data.append(0x40 | (developer.isEmpty ? 0 : 0x20) | local)
            data += [0, bigEndian ? 1 : 0]
            data += bigEndian ? [UInt8(global >> 8), UInt8(global & 0xFF)] : [UInt8(global & 0xFF), UInt8(global >> 8)]
            data.append(UInt8(fields.count))
            for (number, size, base) in fields { data += [number, size, base] }
            if !developer.isEmpty {
                data.append(UInt8(developer.count))
                for (number, size, index) in developer { data += [number, size, index] }
            }
        }

        mutating func message(header: UInt8, _ values: [UInt8]) {
            data.append(header)
            data += values
        }

        static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }
        static func be32(_ v: UInt32) -> [UInt8] { le32(v).reversed() }
        static func semicircles(_ degrees: Double) -> UInt32 { UInt32(bitPattern: Int32((degrees / 180 * 2_147_483_648).rounded())) }

        func file(headerSize: UInt8 = 14) -> [UInt8] {
            var header: [UInt8] = [headerSize, 0x20] + [0x5C, 0x08] + Self.le32(UInt32(data.count)) + Array(".FIT".utf8)
            if headerSize == 14 {
                var crc: UInt16 = 0
                for b in header { crc = FITReader.crc(crc, b) }
                header += [UInt8(crc & 0xFF), UInt8(crc >> 8)]
            }
            var crc: UInt16 = 0
            for b in header + data { crc = FITReader.crc(crc, b) }
            return header + data + [UInt8(crc & 0xFF), UInt8(crc >> 8)]
        }
    }

    /// FIT seconds of `t0 + offset`.
    func fitTime(_ offset: UInt32 = 0) -> UInt32 { UInt32(t0 - FITReader.epochOffset) + offset }

    func write(_ bytes: [UInt8], _ name: String, in dir: TempDirectory) throws -> String {
        let path = dir.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func recordsWithEveryHeaderKind() throws {
        var w = FITWriter()
        // file_id (global 0) with a timestamp, so compressed headers have a base.
        w.define(local: 0, global: 0, fields: [(253, 4, 0x86)])
        w.message(header: 0, FITWriter.le32(fitTime()))
        // record: timestamp, lat, lon, speed (mm/s), plus a 3-byte developer field to skip.
        w.define(local: 1, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85), (6, 2, 0x84)], developer: [(0, 3, 0)])
        w.message(
            header: 1,
            FITWriter.le32(fitTime()) + FITWriter.le32(FITWriter.semicircles(41)) + FITWriter.le32(FITWriter.semicircles(29))
                + [0xC4, 0x09] + [9, 9, 9])
        // A record without position (indoors): passed over.
        w.message(
            header: 1, FITWriter.le32(fitTime(1)) + FITWriter.le32(0x7FFF_FFFF) + FITWriter.le32(0x7FFF_FFFF) + [0xFF, 0xFF] + [0, 0, 0])
        // Compressed timestamp header (local 2): lat/lon only, big-endian definition.
        w.define(local: 2, global: 20, fields: [(0, 4, 0x85), (1, 4, 0x85)], bigEndian: true)
        let offset = UInt8((fitTime(3)) & 0x1F)
        w.message(header: 0x80 | 2 << 5 | offset, FITWriter.be32(FITWriter.semicircles(41.5)) + FITWriter.be32(FITWriter.semicircles(29.5)))
        let dir = try TempDirectory()
        let path = try write(w.file(), "ride.fit", in: dir)
        #expect(try TrackFormat.detect(path: path) == .fit)
        let fixes = try F.readAll(path: path)
        try #require(fixes.count == 2)
        #expect(abs(fixes[0].coordinate.latitude - 41) < 1e-7 && abs(fixes[0].coordinate.longitude - 29) < 1e-7)
        #expect(fixes[0].timestamp.timeIntervalSince1970 == t0 && fixes[0].speed == 2.5)
        #expect(abs(fixes[1].coordinate.latitude - 41.5) < 1e-7 && fixes[1].timestamp.timeIntervalSince1970 == t0 + 3)

        // Two FIT files chained in one (12-byte headers) read as one track.
        let chained = try write(w.file(headerSize: 12) + w.file(headerSize: 12), "chained.fit", in: dir)
        #expect(try F.readAll(path: chained).count == 4)
    }

    @Test func realFilesAgreeWithFitdecode() throws {
        // Counts of record messages with position and timestamp, as fitdecode 0.11 reads them.
        for (name, count) in [("garmin-fenix-5-run.fit", 21), ("garmin-edge-820-bike.fit", 15), ("developer-data.fit", 0)] {
            let fixes = try F.readAll(path: Repository.path("Tests/Fixtures/tracks/\(name)"))
            #expect(fixes.count == count, "\(name)")
            #expect(fixes.allSatisfy { TrackValues.isInWindow($0.timestamp) })
        }
    }

    @Test func corruptFilesNameTheOffset() throws {
        var w = FITWriter()
        w.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85)])
        w.message(
            header: 0, FITWriter.le32(fitTime()) + FITWriter.le32(FITWriter.semicircles(41)) + FITWriter.le32(FITWriter.semicircles(29)))
        let good = w.file()
        let dir = try TempDirectory()
        let truncated = try write(Array(good.prefix(good.count - 6)), "cut.fit", in: dir)
        #expect(F.readError(truncated)?.message.contains("truncated") == true)
        var flipped = good
        flipped[good.count - 4] ^= 0x01
        let crc = try write(flipped, "crc.fit", in: dir)
        #expect(F.readError(crc)?.message.contains("CRC mismatch") == true)
        var undefined = FITWriter()
        undefined.message(header: 3, [0, 0])
        let noDefinition = try write(undefined.file(), "undefined.fit", in: dir)
        #expect(F.readError(noDefinition)?.message.contains("at byte 14: a data message for local type 3") == true)
        var future = FITWriter()
        future.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85)])
        future.message(
            header: 0, FITWriter.le32(0xFFFF_FFF0) + FITWriter.le32(FITWriter.semicircles(41)) + FITWriter.le32(FITWriter.semicircles(29)))
        let late = try write(future.file(), "late.fit", in: dir)
        #expect(F.readError(late)?.message.contains("outside 1970-01-01") == true)
    }

    /// One bad point, a flipped byte or a recording cut short costs what it touches, never the
    /// file: the points before (and, for a bad value, after) are kept and the rest counted.
    @Test func aBadRecordOrACutEndCostsOnlyWhatItTouches() throws {
        var w = FITWriter()
        w.define(local: 0, global: 20, fields: [(253, 4, 0x86), (0, 4, 0x85), (1, 4, 0x85)])
        let points: [(UInt32, Double, Double)] = [(0, 41, 29), (10, 95, 29), (20, 41.01, 29.01), (30, 41.02, 29.02), (40, 41.03, 29.03)]
        for (offset, lat, lon) in points {
            w.message(
                header: 0,
                FITWriter.le32(fitTime(offset)) + FITWriter.le32(FITWriter.semicircles(lat))
                    + FITWriter.le32(FITWriter.semicircles(lon)))
        }
        let good = w.file()
        let dir = try TempDirectory()
        // Latitude 95 is off the globe: that point alone is skipped.
        let whole = try FITReader(path: try write(good, "whole.fit", in: dir))
        #expect(try F.readAll(whole).map(\.coordinate.latitude).map { ($0 * 100).rounded() / 100 } == [41, 41.01, 41.02, 41.03])
        #expect(whole.skipped.count == 1 && whole.skipped.byReason == ["invalid coordinate": 1])
        #expect(whole.skipped.first?.message.hasPrefix("record at byte 42:") == true, "\(String(describing: whole.skipped.first))")
        // Cut inside the last record (and without the CRC): the three good ones before it stay.
        let cut = try FITReader(path: try write(Array(good.prefix(good.count - 8)), "cut.fit", in: dir))
        #expect(try F.readAll(cut).count == 3)
        #expect(cut.skipped.byReason == ["invalid coordinate": 1, "truncated or corrupt file": 1], "\(cut.skipped.byReason)")
        #expect(cut.skipped.summary?.contains("truncated or corrupt file") == true)
        // A flipped bit in a point's time: the CRC no longer matches; every point is still
        // checked on its own and kept, and the mismatch is reported.
        var flipped = good
        flipped[14 + 15 + 2] ^= 0x01  // the first record's time (header, definition, record header)
        let crc = try FITReader(path: try write(flipped, "crc.fit", in: dir))
        #expect(try F.readAll(crc).count == 4)
        #expect(crc.skipped.byReason == ["invalid coordinate": 1, "file CRC mismatch": 1], "\(crc.skipped.byReason)")
        // Not a FIT file at all: still refused, naming why.
        let text = try write(Array("lat,lon\n1,2\n".utf8), "text.fit", in: dir)
        #expect(throws: TrackReadError.self) { try F.readAll(FITReader(path: text)) }
    }
}
