import Foundation
import RoquaBoundaries

/// One administrative unit of a fixture layer: a DBF row (CODE, NAME, NAME_EN, NAME_TR, PARENT)
/// and its shape.
public struct FixtureUnit: Sendable {
    public var code: FieldValue
    public var name: FieldValue
    public var nameEn: FieldValue
    public var nameTr: FieldValue
    public var parent: FieldValue
    public var shape: FixtureShape

    public init(code: String, name: FieldValue, parent: String? = nil, nameEn: FieldValue = .null,
                nameTr: FieldValue = .null, shape: FixtureShape) {
        self.code = .text(code)
        self.name = name
        self.nameEn = nameEn
        self.nameTr = nameTr
        self.parent = parent.map(FieldValue.text) ?? .null
        self.shape = shape
    }

    /// A unit whose polygon is the given rings, written as they are.
    public init(code: String, name: FieldValue, parent: String? = nil, rings: [Ring]) {
        self.init(code: code, name: name, parent: parent, shape: .polygon(rings))
    }

    var values: [String: FieldValue] {
        ["CODE": code, "NAME": name, "NAME_EN": nameEn, "NAME_TR": nameTr, "PARENT": parent]
    }
}

/// One shapefile of a fixture and its manifest entry.
public struct FixtureLayer: Sendable {
    public static let fields = ["CODE", "NAME", "NAME_EN", "NAME_TR", "PARENT"]

    public var file: String
    public var level: String
    public var units: [FixtureUnit]
    public var type: FixtureShapeType = .polygon
    public var codePage: String? = "UTF-8"
    public var projection: Projection? = .wgs84
    public var dbfRecordLimit: Int?
    public var source: String
    public var licence = "Test data, no rights reserved"
    /// Whether `manifest.json` lists this layer.
    public var inManifest = true

    public init(file: String, level: AdminLevel, units: [FixtureUnit]) {
        self.file = file
        self.level = level.description
        self.units = units
        source = "Roqua test fixture \(file)"
    }

    /// The path without `.shp` inside `directory`.
    public func base(in directory: String) -> String {
        (directory as NSString).appendingPathComponent((file as NSString).deletingPathExtension)
    }

    public func path(in directory: String, extension ext: String = "shp") -> String {
        base(in: directory) + "." + ext
    }

    public func write(in directory: String) throws {
        try FixtureWriter.write(base: base(in: directory), type: type, fields: Self.fields,
                                records: units.map { FixtureRecord($0.shape, $0.values) },
                                codePage: codePage, projection: projection, dbfRecordLimit: dbfRecordLimit)
    }

    var manifestEntry: [String: Any] {
        var fields = ["code": "CODE", "name": "NAME", "name_en": "NAME_EN", "name_tr": "NAME_TR"]
        if level != AdminLevel.country.description { fields["parent"] = "PARENT" }
        return ["file": file, "level": level, "fields": fields, "source": source, "licence": licence]
    }
}

/// A set of layers written together with their `manifest.json`.
public struct AdminFixture: Sendable {
    public var layers: [FixtureLayer]

    public init(layers: [FixtureLayer]) { self.layers = layers }

    /// Country XX (0…10°, 0…10°); provinces P1 (west half) and P2 (east half); districts D1 and
    /// D2 in P1 and D3 in P2, each a 3° square. Every ring is a clockwise shell.
    public static func standard() -> AdminFixture {
        var country = FixtureLayer(file: "countries.shp", level: .country, units: [
            FixtureUnit(code: "XX", name: "Testland", nameEn: "Testland", nameTr: "Test Ülkesi",
                        shape: .polygon([Shapes.square(x: 0, y: 0, size: 10)])),
        ])
        country.source = "Hand-made test country"
        let provinces = FixtureLayer(file: "provinces.shp", level: .province, units: [
            FixtureUnit(code: "P1", name: "West", parent: "XX",
                        rings: [Shapes.rectangle(minX: 0, minY: 0, maxX: 5, maxY: 10)]),
            FixtureUnit(code: "P2", name: "East", parent: "XX",
                        rings: [Shapes.rectangle(minX: 5, minY: 0, maxX: 10, maxY: 10)]),
        ])
        let districts = FixtureLayer(file: "districts.shp", level: .district, units: [
            FixtureUnit(code: "D1", name: "Alpha", parent: "P1", rings: [Shapes.square(x: 1, y: 1, size: 3)]),
            FixtureUnit(code: "D2", name: "Beta", parent: "P1", rings: [Shapes.square(x: 1, y: 6, size: 3)]),
            FixtureUnit(code: "D3", name: "Gamma", parent: "P2", rings: [Shapes.square(x: 6, y: 1, size: 3)]),
        ])
        return AdminFixture(layers: [country, provinces, districts])
    }

    /// The layer written to `file` (e.g. "districts.shp").
    public subscript(file: String) -> FixtureLayer {
        get { layers.first { $0.file == file }! }
        set { layers[layers.firstIndex { $0.file == file }!] = newValue }
    }

    /// Writes every layer's files and `manifest.json` into `directory`.
    public func write(in directory: String) throws {
        for layer in layers { try layer.write(in: directory) }
        try ManifestWriter.write(layers.filter(\.inManifest).map(\.manifestEntry),
                                 to: (directory as NSString).appendingPathComponent("manifest.json"))
    }
}

/// Writes a format-1 manifest, as `data/manifest.json` is.
public enum ManifestWriter {
    /// Each layer: `file`, `level`, `fields` ({code, name, name_en, name_tr, parent}), `source`, `licence`.
    public static func write(_ layers: [[String: Any]], format: Int = 1, to path: String) throws {
        let document: [String: Any] = ["format": format, "layers": layers]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
