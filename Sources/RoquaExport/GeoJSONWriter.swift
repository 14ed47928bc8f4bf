import Foundation
import RoquaBoundaries
import RoquaIO

/// A GeoJSON FeatureCollection of the boundaries (full geometry, not the pieces: those only
/// serve indexed lookups), one feature per line, written as it is read.
struct GeoJSONWriter {
    let catalog: ExportCatalog
    let database: BoundaryDatabase

    func write(to file: OutputFile) throws -> ExportSummary {
        let geometry = try ExportGeometry()
        try file.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
        var count = 0
        try catalog.forEachBoundary(in: database) { unit, wkb in
            let shape = try geometry.geoJSON(wkb, of: unit)
            try file.write(
                (count == 0 ? "" : ",\n") + "{\"type\":\"Feature\",\"id\":\(JSONText.quote(unit.code)),"
                    + "\"properties\":\(Self.properties(unit)),\"geometry\":\(shape)}")
            count += 1
        }
        try file.write("\n]}\n")
        return ExportSummary(boundaries: count, pieces: 0)
    }

    static func properties(_ unit: ExportUnit) -> String {
        func text(_ value: String?) -> String { value.map(JSONText.quote) ?? "null" }
        let fields: [(String, String)] = [
            ("code", text(unit.code)), ("level", text(unit.level.description)), ("name", text(unit.name)),
            ("name_en", text(unit.nameEn)), ("name_tr", text(unit.nameTr)), ("parent", text(unit.parentCode)),
            ("country", text(unit.country)), ("continent", text(unit.continent)), ("layer", text(unit.layer)),
            ("layer_precision", "\(unit.precision)"), ("answer_country", text(unit.answer[0])),
            ("answer_province", text(unit.answer[1])), ("answer_district", text(unit.answer[2])),
        ]
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }
}
