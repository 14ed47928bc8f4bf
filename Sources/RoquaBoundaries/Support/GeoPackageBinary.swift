import Foundation

/// A GeoPackage geometry blob: the `GP` header (version 0, little-endian, SRS id, an XY
/// envelope) followed by standard WKB, as the GeoPackage encoding standard (clause 2.1.3) lays it out.
package enum GeoPackageBinary {
    /// Flags: bit 0 = little-endian header, bits 1–3 = envelope kind 1 (minx, maxx, miny, maxy).
    static let flags: UInt8 = 0b0000_0011

    package static func encode(wkb: [UInt8], bounds: BoundingBox, srid: Int32) -> [UInt8] {
        var blob: [UInt8] = [UInt8(ascii: "G"), UInt8(ascii: "P"), 0, flags]
        blob.reserveCapacity(40 + wkb.count)
        withUnsafeBytes(of: srid.littleEndian) { blob.append(contentsOf: $0) }
        for value in [bounds.minX, bounds.maxX, bounds.minY, bounds.maxY] {
            withUnsafeBytes(of: value.bitPattern.littleEndian) { blob.append(contentsOf: $0) }
        }
        blob.append(contentsOf: wkb)
        return blob
    }

    /// What a blob's header says, and where its WKB starts.
    package struct Header: Equatable, Sendable {
        package var srid: Int32
        package var envelope: [Double]
        package var isEmpty: Bool
        package var wkbOffset: Int

        package init(srid: Int32, envelope: [Double], isEmpty: Bool, wkbOffset: Int) {
            self.srid = srid
            self.envelope = envelope
            self.isEmpty = isEmpty
            self.wkbOffset = wkbOffset
        }
    }

    /// Why a blob is not a GeoPackage geometry; the message names the byte at fault.
    package struct FormatError: Error, CustomStringConvertible, Equatable, Sendable {
        package var message: String
        package var description: String { "not a GeoPackage geometry blob: \(message)" }
    }

    /// Reads the header of `blob` (either byte order, any envelope kind).
    /// - Throws: `FormatError` for a short blob, a wrong magic or version, or an unknown envelope kind.
    package static func header(_ blob: [UInt8]) throws -> Header {
        guard blob.count >= 8 else { throw FormatError(message: "\(blob.count) bytes, a header has at least 8") }
        guard blob[0] == UInt8(ascii: "G"), blob[1] == UInt8(ascii: "P") else { throw FormatError(message: "no GP magic") }
        guard blob[2] == 0 else { throw FormatError(message: "version \(blob[2]), expected 0") }
        let flags = blob[3], little = flags & 1 == 1
        let doubles: Int
        switch (flags >> 1) & 0b111 {
        case 0: doubles = 0
        case 1: doubles = 4
        case 2, 3: doubles = 6
        case 4: doubles = 8
        case let kind: throw FormatError(message: "envelope kind \(kind)")
        }
        let offset = 8 + 8 * doubles
        guard blob.count >= offset else { throw FormatError(message: "\(blob.count) bytes, the header needs \(offset)") }
        func integer(_ at: Int, _ count: Int) -> UInt64 {
            var value: UInt64 = 0
            for i in 0..<count { value |= UInt64(blob[at + (little ? i : count - 1 - i)]) << (8 * UInt64(i)) }
            return value
        }
        let envelope = (0..<doubles).map { Double(bitPattern: integer(8 + 8 * $0, 8)) }
        return Header(
            srid: Int32(truncatingIfNeeded: integer(4, 4)), envelope: envelope, isEmpty: flags & 0b1_0000 != 0,
            wkbOffset: offset)
    }
}
