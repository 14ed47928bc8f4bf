import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO

extension Manifest {
    /// The manifest's `localities` entry: a TSV of populated places (see `LocalityImporter`).
    package struct Localities: Codable, Sendable {
        package var file: String
        package var source: String
        package var licence: String
    }

    /// The localities files of the directories and manifests among `sources` (shapefiles given
    /// one by one bring none), with their paths made absolute.
    package static func localities(sources: [String]) throws -> [Localities] {
        var found: [Localities] = []
        for source in sources {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else { continue }
            let manifest =
                isDirectory.boolValue
                ? (source as NSString).appendingPathComponent("manifest.json")
                : (source.lowercased().hasSuffix(".json") ? source : nil)
            guard let manifest, var entry = try load(manifest).localities else { continue }
            entry.file = ((manifest as NSString).deletingLastPathComponent as NSString).appendingPathComponent(entry.file)
            found.append(entry)
        }
        return found
    }
}

/// Reads `data/localities.tsv` (columns `geonameid, name, latitude, longitude, population,
/// country, province, district, part_of`, a header line first; the last three may be empty) into the `localities` table and its R*Tree,
/// and each country's places (those not `part_of` a bigger one) into `locality_packs`.
enum LocalityImporter {
    static let columns = ["geonameid", "name", "latitude", "longitude", "population", "country", "province", "district", "part_of"]

    /// Imports every file; returns the places written.
    /// - Throws: `InputError` naming the file and line of a malformed row; GRDB's `DatabaseError`.
    static func run(_ db: Database, files: [Manifest.Localities]) throws -> Int {
        let insert = try db.makeStatement(
            sql: """
                INSERT INTO localities(id, name, latitude, longitude, population, reach_m, country_code, province_code,
                  district_code, part_of)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        let insertBox = try db.makeStatement(sql: "INSERT INTO locality_index(id, min_x, max_x, min_y, max_y) VALUES (?, ?, ?, ?, ?)")
        var count = 0
        var byCountry: [String: [(place: LocalityPack.Place, name: String, province: String?, district: String?)]] = [:]
        for file in files {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: file.file))
            } catch {
                throw InputError(file: file.file, line: nil, message: "cannot read: \(error.localizedDescription)")
            }
            var lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if lines.last == "" { lines.removeLast() }
            guard lines.first.map({ $0.split(separator: "\t").map(String.init) }) == columns else {
                throw InputError(file: file.file, line: 1, message: "header must be \(columns.joined(separator: "<TAB>"))")
            }
            for (offset, line) in lines.enumerated().dropFirst() {
                let place = try parse(line, file: file.file, line: offset + 1)
                let reach = LocalityIndex.reach(population: place.population)
                try insert.execute(arguments: [
                    place.id, place.name, place.lat, place.lon, place.population, reach,
                    place.country, place.province, place.district, place.partOf,
                ])
                let dy = reach / Geodesy.earthRadius * 180 / .pi
                let dx = dy / max(cos(min(abs(place.lat) + dy, 89.9) * .pi / 180), 1e-3)
                try insertBox.execute(arguments: [place.id, place.lon - dx, place.lon + dx, place.lat - dy, place.lat + dy])
                if place.partOf == nil {
                    let packed = LocalityPack.Place(
                        latitude: place.lat, longitude: place.lon, id: place.id, population: Int32(clamping: place.population),
                        province: -1, district: -1)
                    byCountry[place.country, default: []].append((packed, place.name, place.province, place.district))
                }
                count += 1
            }
            let meta: [(String, String)] = [
                ("localities_source", file.source), ("localities_licence", file.licence),
                ("localities_sha256", SHA256.hex(of: data)), ("localities_count", String(count)),
            ]
            for (key, value) in meta {
                try db.execute(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
            }
        }
        let insertPack = try db.makeStatement(sql: "INSERT INTO locality_packs(country_code, data) VALUES (?, ?)")
        for (country, places) in byCountry.sorted(by: { $0.key < $1.key }) {  // the same file from the same data
            try insertPack.execute(arguments: [country, Data(LocalityPack(places).encoded())])
        }
        return count
    }

    private struct Place {
        var id: Int64
        var name: String
        var lat: Double
        var lon: Double
        var population: Int
        var country: String
        var province: String?
        var district: String?
        var partOf: Int64?
    }

    private static func parse(_ line: Substring, file: String, line number: Int) throws -> Place {
        let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
        func fail(_ message: String) -> InputError { InputError(file: file, line: number, message: message) }
        guard fields.count == columns.count else {
            throw fail("\(fields.count) columns, expected \(columns.count)")
        }
        guard let id = Int64(fields[0]) else { throw fail("geonameid \(Echo.quoted(fields[0])) is not a number") }
        guard let lat = Double(fields[2]), lat.isFinite, abs(lat) <= 90 else {
            throw fail("latitude \(Echo.quoted(fields[2])) is not in -90…90")
        }
        guard let lon = Double(fields[3]), lon.isFinite, abs(lon) <= 180 else {
            throw fail("longitude \(Echo.quoted(fields[3])) is not in -180…180")
        }
        guard let population = Int(fields[4]), population >= 0 else {
            throw fail("population \(Echo.quoted(fields[4])) is not a count")
        }
        guard !fields[1].isEmpty, !fields[5].isEmpty else { throw fail("name and country must not be empty") }
        let partOf = Int64(fields[8])
        guard fields[8].isEmpty || partOf != nil else { throw fail("part_of \(Echo.quoted(fields[8])) is not a geonameid") }
        return Place(
            id: id, name: String(fields[1]), lat: lat, lon: lon, population: population,
            country: String(fields[5]), province: fields[6].isEmpty ? nil : String(fields[6]),
            district: fields[7].isEmpty ? nil : String(fields[7]), partOf: partOf)
    }
}
