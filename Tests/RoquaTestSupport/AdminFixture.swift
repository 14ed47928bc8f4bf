import Foundation
import RoquaBoundaries
import RoquaIO
import RoquaImport

/// One administrative unit of a fixture layer: a DBF row (CODE, NAME, NAME_EN, NAME_TR, PARENT)
/// and its shape.
package struct FixtureUnit: Sendable {
    package var code: FieldValue
    package var name: FieldValue
    package var nameEn: FieldValue
    package var nameTr: FieldValue
    package var parent: FieldValue
    package var shape: FixtureShape

    package init(
        code: String, name: FieldValue, parent: String? = nil, nameEn: FieldValue = .null,
        nameTr: FieldValue = .null, shape: FixtureShape
    ) {
        self.code = .text(code)
        self.name = name
        self.nameEn = nameEn
        self.nameTr = nameTr
        self.parent = parent.map(FieldValue.text) ?? .null
        self.shape = shape
    }

    /// A unit whose polygon is the given rings, written as they are.
    package init(code: String, name: FieldValue, parent: String? = nil, rings: [Ring]) {
        self.init(code: code, name: name, parent: parent, shape: .polygon(rings))
    }

    var values: [String: FieldValue] {
        ["CODE": code, "NAME": name, "NAME_EN": nameEn, "NAME_TR": nameTr, "PARENT": parent]
    }
}

/// One shapefile of a fixture and its manifest entry.
package struct FixtureLayer: Sendable {
    package static let fields = ["CODE", "NAME", "NAME_EN", "NAME_TR", "PARENT"]

    package var file: String
    package var level: String
    package var units: [FixtureUnit]
    package var type: FixtureShapeType = .polygon
    package var codePage: String? = "UTF-8"
    package var projection: Projection? = .wgs84
    package var dbfRecordLimit: Int?
    package var source: String
    package var licence = "Test data, no rights reserved"
    /// Whether `manifest.json` lists this layer.
    package var inManifest = true
    /// The manifest's `encoding` and `crs` for the layer (nil: none).
    package var manifestEncoding: String?
    package var manifestCRS: String?
    /// The manifest's `allow_orphans` for the layer.
    package var allowOrphans = false
    /// Whether the manifest names the parent field (below country level); without it the
    /// importer infers each unit's parent.
    package var parentInManifest = true

    package init(file: String, level: AdminLevel, units: [FixtureUnit]) {
        self.file = file
        self.level = level.description
        self.units = units
        source = "Roqua test fixture \(file)"
    }

    /// The path without `.shp` inside `directory`.
    package func base(in directory: String) -> String {
        (directory as NSString).appendingPathComponent((file as NSString).deletingPathExtension)
    }

    package func path(in directory: String, extension ext: String = "shp") -> String {
        base(in: directory) + "." + ext
    }

    package func write(in directory: String) throws {
        try FixtureWriter.write(
            base: base(in: directory), type: type, fields: Self.fields,
            records: units.map { FixtureRecord($0.shape, $0.values) },
            codePage: codePage, projection: projection, dbfRecordLimit: dbfRecordLimit)
    }

    var manifestEntry: [String: Any] {
        var fields = ["code": "CODE", "name": "NAME", "name_en": "NAME_EN", "name_tr": "NAME_TR"]
        if level != AdminLevel.country.description, parentInManifest { fields["parent"] = "PARENT" }
        var entry: [String: Any] = ["file": file, "level": level, "fields": fields, "source": source, "licence": licence]
        if let manifestEncoding { entry["encoding"] = manifestEncoding }
        if let manifestCRS { entry["crs"] = manifestCRS }
        if allowOrphans { entry["allow_orphans"] = true }
        return entry
    }
}

/// A set of layers written together with their `manifest.json`.
package struct AdminFixture: Sendable {
    package var layers: [FixtureLayer]

    package init(layers: [FixtureLayer]) { self.layers = layers }

    /// Country XX (0…10°, 0…10°); provinces P1 (west half) and P2 (east half); districts D1 and
    /// D2 in P1 and D3 in P2, each a 3° square. Every ring is a clockwise shell.
    package static func standard() -> AdminFixture {
        var country = FixtureLayer(
            file: "countries.shp", level: .country,
            units: [
                FixtureUnit(
                    code: "XX", name: "Testland", nameEn: "Testland", nameTr: "Test Ülkesi",
                    shape: .polygon([Shapes.square(x: 0, y: 0, size: 10)]))
            ])
        country.source = "Hand-made test country"
        let provinces = FixtureLayer(
            file: "provinces.shp", level: .province,
            units: [
                FixtureUnit(
                    code: "P1", name: "West", parent: "XX",
                    rings: [Shapes.rectangle(minX: 0, minY: 0, maxX: 5, maxY: 10)]),
                FixtureUnit(
                    code: "P2", name: "East", parent: "XX",
                    rings: [Shapes.rectangle(minX: 5, minY: 0, maxX: 10, maxY: 10)]),
            ])
        let districts = FixtureLayer(
            file: "districts.shp", level: .district,
            units: [
                FixtureUnit(code: "D1", name: "Alpha", parent: "P1", rings: [Shapes.square(x: 1, y: 1, size: 3)]),
                FixtureUnit(code: "D2", name: "Beta", parent: "P1", rings: [Shapes.square(x: 1, y: 6, size: 3)]),
                FixtureUnit(code: "D3", name: "Gamma", parent: "P2", rings: [Shapes.square(x: 6, y: 1, size: 3)]),
            ])
        return AdminFixture(layers: [country, provinces, districts])
    }

    /// The layer written to `file` (e.g. "districts.shp").
    package subscript(file: String) -> FixtureLayer {
        get { layers.first { $0.file == file }! }
        set { layers[layers.firstIndex { $0.file == file }!] = newValue }
    }

    /// Writes every layer's files and `manifest.json` into `directory`.
    package func write(in directory: String) throws {
        for layer in layers { try layer.write(in: directory) }
        try ManifestWriter.write(
            layers.filter(\.inManifest).map(\.manifestEntry),
            to: (directory as NSString).appendingPathComponent("manifest.json"))
    }
}

/// Writes a format-1 manifest, as `data/manifest.json` is.
package enum ManifestWriter {
    /// Each layer: `file`, `level`, `fields` ({code, name, name_en, name_tr, parent}), `source`, `licence`.
    package static func write(_ layers: [[String: Any]], format: Int = 1, to path: String) throws {
        let document: [String: Any] = ["format": format, "layers": layers]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
    }
}
