import Foundation
import RoquaBoundaries
import Testing

@testable import RoquaExport

@Suite struct ExportPartsTests {
    @Test("COPY text fields: NULL as \\N; backslash, tab, newline and carriage return escaped")
    func copyEscaping() {
        var line: [UInt8] = []
        PostGISWriter.appendCopyField(nil, to: &line)
        line.append(UInt8(ascii: "|"))
        PostGISWriter.appendCopyField("a\\b\tc\nd\re İ", to: &line)
        #expect(String(decoding: line, as: UTF8.self) == "\\N|a\\\\b\\tc\\nd\\re İ")
    }

    @Test("a GeoPackage blob's header reads back: magic, SRS id, envelope, WKB offset")
    func geoPackageHeaderRoundTrip() throws {
        let box = BoundingBox(minX: 26.0, minY: 35.8, maxX: 44.8, maxY: 42.1)
        let blob = GeoPackageBinary.encode(wkb: [1, 3, 0, 0, 0], bounds: box, srid: 4326)
        let header = try GeoPackageBinary.header(blob)
        #expect(header == GeoPackageBinary.Header(srid: 4326, envelope: [26.0, 44.8, 35.8, 42.1], isEmpty: false, wkbOffset: 40))
        #expect(Array(blob[40...]) == [1, 3, 0, 0, 0])
        #expect(throws: GeoPackageBinary.FormatError.self) { try GeoPackageBinary.header(Array("GQ\0\u{3}".utf8) + [0, 0, 0, 0]) }
        #expect(throws: GeoPackageBinary.FormatError.self) { try GeoPackageBinary.header(Array(blob.prefix(20))) }
    }
}
