import Foundation
import GRDB
import RoquaBoundaries
import RoquaImport
import RoquaTestSupport
import Testing

/// "Şişli" in windows-1254 / ISO-8859-9.
let sisliCP1254: [UInt8] = [0xDE, 0x69, 0xFE, 0x6C, 0x69]

@Suite struct DBFTextEncodingTests {
    @Test(arguments: [
        ("UTF-8", DBFTextEncoding.utf8), ("utf8", .utf8), ("65001", .utf8), ("LDID/0", .utf8),
        ("1254", .windows1254), ("CP1254", .windows1254), ("windows-1254", .windows1254), ("LDID/202", .windows1254),
        (" 1254\r\n", .windows1254), ("ISO-8859-9", .iso8859_9), ("iso_8859_9", .iso8859_9), ("LATIN5", .iso8859_9),
        ("1252", .windows1252), ("LDID/87", .windows1252), ("LDID/3", .windows1252),
        ("ISO 8859-1", .iso8859_1), ("88591", .iso8859_1),
    ])
    func knownCodePages(codePage: String, expected: DBFTextEncoding) {
        #expect(DBFTextEncoding(codePage: codePage) == expected)
    }

    @Test func noCodePageMeansUTF8() {
        #expect(DBFTextEncoding(codePage: nil) == .utf8)
        #expect(DBFTextEncoding(codePage: "  \n") == .utf8)
    }

    /// Code pages beyond the built-in ones go through iconv: by language driver id (the whole
    /// dBASE/ArcGIS table), code page number, or any name iconv knows.
    @Test(
        arguments: [
            ("LDID/19", "CP932", [144, 86, 143, 104, 139, 230], "新宿区"), ("LDID/123", "CP932", [144, 86, 143, 104, 139, 230], "新宿区"),
            ("SHIFT_JIS", "SHIFT-JIS", [144, 86, 143, 104, 139, 230], "新宿区"),
            ("LDID/201", "CP1251", [204, 238, 241, 234, 226, 224], "Москва"),
            ("windows-1251", "CP1251", [204, 238, 241, 234, 226, 224], "Москва"),
            ("936", "CP936", [177, 177, 190, 169], "北京"), ("KOI8-R", "KOI8-R", [237, 207, 211, 203, 215, 193], "Москва"),
            ("BIG5", "BIG5", [187, 79, 165, 95], "臺北"), ("1253", "CP1253", [193, 232, 222, 237, 225], "Αθήνα"),
        ] as [(String, String, [UInt8], String)])
    func codePagesThroughIconv(codePage: String, name: String, bytes: [UInt8], text: String) throws {
        let encoding = try #require(DBFTextEncoding(codePage: codePage))
        #expect(encoding == .iconv(name) && encoding.name == name)
        #expect(encoding.decode(bytes) == text)
    }

    @Test(arguments: ["LDID/250", "LDID/x", "NOT-AN-ENCODING", "UTF-16", "UTF-32LE"])
    func unknownCodePages(codePage: String) {
        #expect(DBFTextEncoding(codePage: codePage) == nil)
    }

    @Test func invalidBytesInAnIconvEncodingAreRefused() throws {
        let shiftJIS = try #require(DBFTextEncoding(codePage: "LDID/19"))
        #expect(shiftJIS.decode([0x81]) == nil, "a lead byte without its trail")
        #expect(shiftJIS.decode([0x41, 0x42]) == "AB")
    }

    @Test func iso8859_9() {
        let encoding = DBFTextEncoding.iso8859_9
        #expect(encoding.decode(sisliCP1254) == "Şişli")
        #expect(encoding.decode([0xDD, 0xD0, 0xF0, 0xFD]) == "İĞğı")
        #expect(encoding.decode([0xE7, 0xF6, 0xFC, 0xC7, 0xD6, 0xDC]) == "çöüÇÖÜ")
        // Not windows-1254: 0x80 is a C1 control, not the euro sign.
        #expect(encoding.decode([0x80]) == "\u{80}")
    }

    @Test func windows1254() {
        let encoding = DBFTextEncoding.windows1254
        #expect(encoding.decode(sisliCP1254) == "Şişli")
        #expect(encoding.decode([0x80, 0x20, 0x9F]) == "€ Ÿ")
        #expect(encoding.decode([0x41, 0x81]) == nil)
        #expect(encoding.decode([0x8E]) == nil)
        #expect(encoding.decode([0x9E]) == nil)
    }

    @Test func windows1252() {
        let encoding = DBFTextEncoding.windows1252
        #expect(encoding.decode([0x80]) == "€")
        #expect(encoding.decode([0x8E, 0x9E]) == "Žž")
        #expect(encoding.decode(sisliCP1254) == "Þiþli")
        #expect(encoding.decode([0x81]) == nil)
        #expect(encoding.decode([0x9D]) == nil)
    }

    @Test func iso8859_1() {
        #expect(DBFTextEncoding.iso8859_1.decode([0xDE, 0xE9, 0xFF]) == "Þéÿ")
    }

    @Test func utf8() {
        #expect(DBFTextEncoding.utf8.decode(Array("Kadıköy".utf8)) == "Kadıköy")
        #expect(DBFTextEncoding.utf8.decode([]) == "")
    }

    @Test(arguments: [[0xFF], [0xC3, 0x28], [0x80], [0xC0, 0xAF], [0xE2, 0x82], [0xED, 0xA0, 0x80]] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) {
        #expect(DBFTextEncoding.utf8.decode(bytes) == nil)
    }
}

/// DBFs written by shapelib with a code page, read back through `ShapefileReader`.
@Suite struct ShapefileTextTests {
    private func writeOne(_ dir: TempDirectory, name: FieldValue, codePage: String?) throws -> String {
        let base = dir.file("names")
        try FixtureWriter.write(
            base: base, fields: ["CODE", "NAME"],
            records: [
                FixtureRecord(
                    .polygon([Shapes.square(x: 0, y: 0, size: 1)]),
                    ["CODE": "A", "NAME": name])
            ],
            codePage: codePage)
        return base
    }

    @Test func cp1254WithCPGFile() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: .bytes(sisliCP1254), codePage: "1254")
        let cpg = try String(contentsOfFile: base + ".cpg", encoding: .utf8)
        #expect(cpg.trimmingCharacters(in: .whitespacesAndNewlines) == "1254")
        let reader = try ShapefileReader(path: base + ".shp")
        #expect(reader.encoding == .windows1254)
        #expect(try reader.string(record: 0, field: "NAME") == "Şişli")
        #expect(try reader.string(record: 0, field: "CODE") == "A")
    }

    @Test func utf8WithCPGFile() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: " Kadıköy ", codePage: "UTF-8")
        let reader = try ShapefileReader(path: base)
        #expect(reader.encoding == .utf8)
        #expect(try reader.string(record: 0, field: "NAME") == "Kadıköy")
    }

    /// shapelib writes "LDID/n" into the DBF header's language driver byte and no .cpg.
    @Test func cp1254FromLanguageDriverID() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: .bytes(sisliCP1254), codePage: "LDID/202")
        #expect(!FileManager.default.fileExists(atPath: base + ".cpg"))
        let header = try Data(contentsOf: URL(fileURLWithPath: base + ".dbf"))
        #expect(header[29] == 202)
        let reader = try ShapefileReader(path: base + ".shp")
        #expect(reader.encoding == .windows1254)
        #expect(try reader.string(record: 0, field: "NAME") == "Şişli")
    }

    /// The Tokyo shapefile of the issue: no .cpg, LDID 19 (Shift-JIS) in the header.
    @Test func shiftJISFromLanguageDriverID() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: .bytes([144, 86, 143, 104, 139, 230]), codePage: "LDID/19")
        let reader = try ShapefileReader(path: base + ".shp")
        #expect(reader.encoding == .iconv("CP932"))
        #expect(try reader.string(record: 0, field: "NAME") == "新宿区")
    }

    @Test func theUsersEncodingOverridesTheFiles() throws {
        let dir = try TempDirectory()
        // Says UTF-8, holds windows-1251.
        let base = try writeOne(dir, name: .bytes([204, 238, 241, 234, 226, 224]), codePage: "UTF-8")
        #expect(throws: ShapefileError.self) { try ShapefileReader(path: base + ".shp").string(record: 0, field: "NAME") }
        let reader = try ShapefileReader(path: base + ".shp", encoding: "windows-1251")
        #expect(try reader.string(record: 0, field: "NAME") == "Москва")
        let unknown = try #require(throws: ShapefileError.self) { try ShapefileReader(path: base + ".shp", encoding: "KLINGON") }
        #expect(unknown == .unknownCodePage(file: base + ".dbf", codePage: "KLINGON"))
        #expect(unknown.description.contains("'KLINGON'"))
    }

    @Test func noCodePageReadsUTF8() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: "Kadıköy", codePage: nil)
        #expect(!FileManager.default.fileExists(atPath: base + ".cpg"))
        let reader = try ShapefileReader(path: base + ".shp")
        #expect(reader.encoding == .utf8)
        #expect(try reader.string(record: 0, field: "NAME") == "Kadıköy")
    }

    @Test func nullAndMissingFields() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: .null, codePage: "UTF-8")
        let reader = try ShapefileReader(path: base + ".shp")
        #expect(try reader.string(record: 0, field: "NAME") == nil)
        #expect(throws: ShapefileError.missingField(file: base + ".shp", field: "NAME_TR")) {
            try reader.string(record: 0, field: "NAME_TR")
        }
    }

    @Test func invalidUTF8IsAnErrorNamingFileRecordAndField() throws {
        let dir = try TempDirectory()
        let base = try writeOne(dir, name: .bytes(sisliCP1254), codePage: "UTF-8")
        let reader = try ShapefileReader(path: base + ".shp")
        let error = try #require(throws: ShapefileError.self) { try reader.string(record: 0, field: "NAME") }
        #expect(error == .undecodableText(file: base + ".shp", record: 1, field: "NAME", encoding: "UTF-8"))
        #expect(error.description.contains("names.shp"))
        #expect(error.description.contains("record 1"))
    }
}

/// Whole imports of legacy-encoded fixtures.
@Suite struct EncodedImportTests {
    private func names(_ path: String) throws -> [String: String] {
        try BoundaryDatabase(path: path).read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT code, name FROM boundaries")
                    .map { ($0["code"] as String, $0["name"] as String) })
        }
    }

    @Test func cp1254AndUTF8NamesAreStoredAsUnicode() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        var fixture = AdminFixture.standard()
        fixture["districts.shp"].codePage = "1254"
        fixture["districts.shp"].units[0].name = .bytes(sisliCP1254)
        fixture["provinces.shp"].units[0].name = "Kadıköy"
        fixture["provinces.shp"].codePage = "UTF-8"
        fixture["countries.shp"].codePage = "LDID/202"
        fixture["countries.shp"].units[0].name = .bytes([0x54, 0xFC, 0x72, 0x6B, 0x69, 0x79, 0x65])  // Türkiye
        try fixture.write(in: source.path)
        let report = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("b.sqlite")))
        #expect(report.warnings == [])
        let stored = try names(out.file("b.sqlite"))
        #expect(stored["D1"] == "Şişli")
        #expect(stored["P1"] == "Kadıköy")
        #expect(stored["XX"] == "Türkiye")
        let encodings = try BoundaryDatabase(path: out.file("b.sqlite")).info().sources.map(\.encoding)
        #expect(encodings == ["windows-1254", "UTF-8", "windows-1254"])
    }

    /// A district layer in Shift-JIS that says so only by its LDID, and one that says UTF-8 but
    /// holds windows-1251, named right by the manifest's `encoding`.
    @Test func iconvCodePagesAndTheManifestsEncodingImport() throws {
        let source = try TempDirectory(), out = try TempDirectory()
        var fixture = AdminFixture.standard()
        fixture["districts.shp"].codePage = "LDID/19"
        fixture["districts.shp"].units[0].name = .bytes([144, 86, 143, 104, 139, 230])  // 新宿区
        fixture["provinces.shp"].units[0].name = .bytes([204, 238, 241, 234, 226, 224])  // Москва
        fixture["provinces.shp"].manifestEncoding = "windows-1251"
        try fixture.write(in: source.path)
        _ = try BoundaryImporter.run(BoundaryImportOptions(sources: [source.path], output: out.file("b.sqlite")))
        let stored = try names(out.file("b.sqlite"))
        #expect(stored["D1"] == "新宿区")
        #expect(stored["P1"] == "Москва")
        let encodings = try BoundaryDatabase(path: out.file("b.sqlite")).info().sources.map(\.encoding)
        #expect(encodings == ["UTF-8", "CP1251", "CP932"])
    }

    @Test func unknownCodePageFailsNamingTheDBF() throws {
        let s = try Scenario { $0["districts.shp"].codePage = "KLINGON-1" }
        let error = try s.failure(ShapefileError.self)
        #expect(error == .unknownCodePage(file: s.path("districts.shp", "dbf"), codePage: "KLINGON-1"))
        #expect(error.description.contains("districts.dbf"))
        #expect(error.description.contains("KLINGON-1"))
        try expectUntouched(s.existing)
    }

    /// Found mid-import (record 2 of the last layer), after the temporary DB exists.
    @Test func undecodableNameFailsAndKeepsTheExistingDatabase() throws {
        let s = try Scenario { $0["districts.shp"].units[1].name = .bytes([0x42, 0xFF, 0x42]) }
        let error = try s.failure(ShapefileError.self)
        #expect(error == .undecodableText(file: s.path("districts.shp"), record: 2, field: "NAME", encoding: "UTF-8"))
        try expectUntouched(s.existing)
    }
}
