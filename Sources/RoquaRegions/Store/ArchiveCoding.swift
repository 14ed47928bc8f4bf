import Foundation
import RoquaBoundaries

/// Reading and writing archives; GeoJSON puts each region's row in a Point feature's properties.
enum ArchiveCoding {
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
        var properties: ArchivedRegion
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

    static func gpx(_ archive: Archive) -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="Roqua" xmlns="http://www.topografix.com/GPX/1/1">

            """
        for r in archive.regions {
            let name = [r.district, r.city, r.country].compactMap { $0 }.joined(separator: ", ")
            out += "  <wpt lat=\"\(r.latitude)\" lon=\"\(r.longitude)\"><time>\(r.timestamp_start)</time>"
            out += "<name>\(escape(name.isEmpty ? "region \(r.id)" : name))</name>"
            out += "<desc>radius \(r.radius) m, \(r.visit_count) visit(s), last \(r.last_visit)</desc></wpt>\n"
        }
        return out + "</gpx>\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// A JSON or GeoJSON export, whichever `file` holds.
    static func read(_ file: String) throws -> Archive {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: file)) } catch {
            throw ArchiveError.unreadable(file: file, reason: "cannot read the file")
        }
        if data.prefix(64).contains(UInt8(ascii: "<")) { throw ArchiveError.notRestorable(file: file) }
        let decoder = JSONDecoder()
        if let collection = try? decoder.decode(FeatureCollection.self, from: data) {
            var archive = collection.roqua
            archive.regions = collection.features.map(\.properties)
            return archive
        }
        do {
            return try decoder.decode(Archive.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw ArchiveError.unreadable(file: file, reason: "missing \(key.stringValue) at \(path(context))")
        } catch let DecodingError.typeMismatch(_, context) {
            throw ArchiveError.unreadable(file: file, reason: "wrong type at \(path(context))")
        } catch {
            throw ArchiveError.unreadable(file: file, reason: "invalid JSON")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    /// Every row checked before anything is written: ranges, timestamps, unique ids.
    static func validate(_ archive: Archive, file: String) throws {
        guard archive.format == Archive.formatName, archive.version == 1 else {
            throw ArchiveError.unreadable(file: file, reason: "format \(archive.format) version \(archive.version)")
        }
        var ids = Set<Int64>()
        for (i, r) in archive.regions.enumerated() {
            func bad(_ reason: String) -> ArchiveError { .badRegion(file: file, index: i, reason: reason) }
            guard (try? Coordinate(latitude: r.latitude, longitude: r.longitude).validated()) != nil else {
                throw bad("coordinate \(r.latitude), \(r.longitude) out of range")
            }
            guard r.radius > 0 else { throw bad("radius \(r.radius) must be positive") }
            guard r.visit_count > 0 else { throw bad("visit_count \(r.visit_count) must be positive") }
            for t in [r.timestamp_start, r.last_visit] + (r.timestamp_end.map { [$0] } ?? []) where StoreTime.date(t) == nil {
                throw bad("timestamp '\(t)' does not parse")
            }
            guard ids.insert(r.id).inserted else { throw bad("id \(r.id) repeated") }
        }
    }
}
