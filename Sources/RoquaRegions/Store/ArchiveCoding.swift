import Foundation
import RoquaBoundaries
import RoquaIO

/// Reading and writing archives; GeoJSON puts each region's row in a Point feature's properties.
package enum ArchiveCoding {
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    struct Feature: Codable {
        struct Point: Codable {
            var type = "Point"
            var coordinates: [Double]
        }
        var type = "Feature"
        var geometry: Point
        var properties: VisitedRegion
    }

    struct FeatureCollection: Codable {
        var type = "FeatureCollection"
        var roqua: Archive  // format, version and imports; its regions are the features
        var features: [Feature]
    }

    static func geoJSON(_ archive: Archive) throws -> Data {
        var header = archive
        header.regions = []
        let features = archive.regions.map { Feature(geometry: .init(coordinates: [$0.longitude, $0.latitude]), properties: $0) }
        return try encoder.encode(FeatureCollection(roqua: header, features: features))
    }

    static func gpx(_ archive: Archive) throws -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Roqua" xmlns="http://www.topografix.com/GPX/1/1">

            """
        for r in archive.regions {
            let name = [r.district, r.province, r.country].compactMap { $0 }.joined(separator: ", ")
            out += "  <wpt lat=\"\(r.latitude)\" lon=\"\(r.longitude)\"><time>\(try StoreTime.text(r.timestampStart))</time>"
            out += "<name>\(XMLText.escape(name.isEmpty ? "region \(r.id ?? 0)" : name))</name>"
            out += "<desc>radius \(r.radius) m, \(r.visitCount) visit(s), last \(try StoreTime.text(r.lastVisit))</desc></wpt>\n"
        }
        return out + "</gpx>\n"
    }

    /// A JSON or GeoJSON export, whichever `file` holds.
    package static func read(_ file: String) throws -> Archive {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw ArchiveError.unreadable(file: file, reason: "cannot read the file (missing, a directory, or no permission)")
        }
        if data.prefix(64).contains(UInt8(ascii: "<")) { throw ArchiveError.notRestorable(file: file) }
        struct Shape: Decodable { var features: [Ignored]? }
        struct Ignored: Decodable { init(from decoder: any Decoder) throws {} }
        let decoder = CheckedJSONDecoder()
        decoder.userInfo[RegionNames.Shared.key] = RegionNames.Shared()
        do {
            // A JSON export is read once (a million regions' is half a gigabyte); a file that is
            // not one is looked at again, for GeoJSON's features.
            do { return try decoder.decode(Archive.self, from: data) } catch let notJSON as DecodingError {
                guard try decoder.decode(Shape.self, from: data).features != nil else { throw notJSON }
            }
            let collection = try decoder.decode(FeatureCollection.self, from: data)
            var archive = collection.roqua
            archive.regions = collection.features.map(\.properties)
            return archive
        } catch let error as DecodingError {
            throw ArchiveError.unreadable(file: file, reason: describe(error))
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let text = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
            return text.replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case let .keyNotFound(key, context):
            return "missing \(key.stringValue)" + (context.codingPath.isEmpty ? "" : " at \(path(context))")
        case let .typeMismatch(_, context), let .valueNotFound(_, context):
            return "wrong type at \(path(context))"
        case let .dataCorrupted(context):
            return context.codingPath.isEmpty ? "invalid JSON" : "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "invalid JSON"
        }
    }

    /// Every row checked before anything is written: ranges, times, unique ids, component rows.
    package static func validate(_ archive: Archive, file: String, tables: [StoreComponent.ArchivedTable]) throws {
        guard archive.format == Archive.formatName, archive.version == 1 else {
            throw ArchiveError.unreadable(file: file, reason: "format \(archive.format) version \(archive.version)")
        }
        var ids = Set<Int64>()
        for (i, region) in archive.regions.enumerated() {
            func bad(_ reason: String) -> ArchiveError { .badRow(file: file, section: "regions", index: i, reason: reason) }
            guard let id = region.id else { throw bad("no id") }
            guard ids.insert(id).inserted else { throw bad("id \(id) repeated") }
            do { try region.validate() } catch { throw bad(error.description) }
            for date in [region.timestampStart, region.lastVisit] + (region.timestampEnd.map { [$0] } ?? []) {
                do { _ = try StoreTime.text(date) } catch { throw bad(error.description) }
            }
        }
        for table in tables {
            for (i, row) in (archive.tables[table.key] ?? []).enumerated() {
                do { try table.validate(row) } catch {
                    throw ArchiveError.badRow(file: file, section: table.key, index: i, reason: error.message)
                }
            }
        }
    }
}
