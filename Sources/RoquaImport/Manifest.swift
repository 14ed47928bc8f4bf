import Foundation
import RoquaBoundaries
import RoquaIO

/// `data/manifest.json`: which shapefiles make up the boundary DB and which DBF fields carry
/// the code, names and parent link of each layer. Data, not code: a new layer needs no rebuild.
package struct Manifest: Codable, Sendable {
    package struct Fields: Codable, Sendable {
        package var code: String
        package var name: String
        package var nameEn: String?
        package var nameTr: String?
        /// The field holding the parent unit's code; without it, below country level, each unit's
        /// parent is the unit of the level above that holds a point inside it (its point on surface).
        package var parent: String?
        package var continent: String?
        package var isoA3: String?

        enum CodingKeys: String, CodingKey {
            case code, name, parent, continent
            case nameEn = "name_en", nameTr = "name_tr", isoA3 = "iso_a3"
        }
    }

    package struct Layer: Codable, Sendable {
        package var file: String
        package var level: String
        package var fields: Fields
        package var source: String
        package var licence: String
        /// How detailed the layer is, compared with the others (higher = more detailed). Where
        /// layers disagree about a point's country, the most precise layer covering it decides
        /// (see `AnswerRule`). Absent means 0: the deepest level then decides, as when all
        /// layers are equally precise.
        package var precision: Int?
        /// The DBF's text encoding, overriding its `.cpg` and language driver id (`CP932`,
        /// `SHIFT_JIS`, `1251`, `KOI8-R` …): for files that say nothing, or say it wrong.
        package var encoding: String?
        /// The layer's coordinate reference system, overriding its `.prj` (`EPSG:NNNN`, a PROJ
        /// string or WKT): for files without a `.prj`, or with a wrong one.
        package var crs: String?
        /// Put before every code of the layer (codes that would collide with another layer's).
        package var codePrefix: String?
        /// Units whose parent cannot be inferred are kept under the country that holds them
        /// (instead of failing the import).
        package var allowOrphans: Bool?
        /// When `roqua import --add` added the layer, ISO 8601 (provenance only).
        package var addedAt: String?

        enum CodingKeys: String, CodingKey {
            case file, level, fields, source, licence, precision, encoding, crs
            case codePrefix = "code_prefix", allowOrphans = "allow_orphans", addedAt = "added_at"
        }
    }

    package var format: Int
    package var layers: [Layer]
    /// Populated places for the answers' locality (optional; see `LocalityImporter`).
    package var localities: Localities?
}

/// A manifest layer resolved against the file system, ready to import.
package struct LayerPlan: Sendable {
    package var name: String
    package var shapefile: String
    package var level: AdminLevel
    package var fields: Manifest.Fields
    package var source: String
    package var licence: String
    package var precision: Int
    /// `Manifest.Layer.encoding`.
    package var encoding: String?
    /// `Manifest.Layer.crs`.
    package var crs: String?
    /// `Manifest.Layer.codePrefix`.
    package var codePrefix: String?
    /// `Manifest.Layer.allowOrphans`.
    package var allowOrphans = false
    /// `Manifest.Layer.addedAt`.
    package var addedAt: String?
}

/// A manifest that cannot be used, or sources that no manifest covers; each case names the file.
public enum ManifestError: Error, CustomStringConvertible, Equatable, Sendable {
    case unreadable(file: String, reason: String)
    case badLevel(file: String, layer: String, level: String)
    case notInManifest(file: String, manifest: String)
    case noSources

    /// One line naming the manifest or shapefile and what to change.
    public var description: String {
        switch self {
        case let .unreadable(file, reason): "\(file): not a valid Roqua manifest: \(reason)"
        case let .badLevel(file, layer, level):
            "\(file): layer \(layer) has level '\(level)'; use country, province or district"
        case let .notInManifest(file, manifest): "\(file) is not listed in \(manifest); add it there with its field mapping"
        case .noSources: "nothing to import: give a directory with manifest.json, a manifest, or shapefiles listed in one"
        }
    }
}

extension Manifest {
    package static func load(_ path: String) throws -> Manifest {
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try CheckedJSONDecoder().decode(Manifest.self, from: data)
        } catch let error as DecodingError {
            throw ManifestError.unreadable(file: path, reason: describe(error))
        } catch {
            throw ManifestError.unreadable(file: path, reason: error.localizedDescription)
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case let .keyNotFound(key, context):
            "missing key '\(key.stringValue)' at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case let .typeMismatch(_, context), let .valueNotFound(_, context), let .dataCorrupted(context):
            "\(context.debugDescription) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        @unknown default: "\(error)"
        }
    }

    /// The layers of this manifest, with paths made absolute and levels checked.
    func plans(manifestPath: String, only files: Set<String>? = nil) throws -> [LayerPlan] {
        let directory = (manifestPath as NSString).deletingLastPathComponent
        return try layers.compactMap { layer in
            let path = (directory as NSString).appendingPathComponent(layer.file)
            if let files, !files.contains(URL(fileURLWithPath: path).standardizedFileURL.path) { return nil }
            guard let level = AdminLevel(name: layer.level) else {
                throw ManifestError.badLevel(file: manifestPath, layer: layer.file, level: layer.level)
            }
            let name = ((layer.file as NSString).lastPathComponent as NSString).deletingPathExtension
            return LayerPlan(
                name: name, shapefile: path, level: level, fields: layer.fields,
                source: layer.source, licence: layer.licence, precision: layer.precision ?? 0, encoding: layer.encoding,
                crs: layer.crs, codePrefix: layer.codePrefix, allowOrphans: layer.allowOrphans ?? false,
                addedAt: layer.addedAt)
        }
    }

    /// Turns `--from` arguments (directories, manifests, shapefiles) into layers, widest level first.
    package static func resolve(sources: [String]) throws -> [LayerPlan] {
        var plans: [LayerPlan] = []
        var shapefilesByManifest: [String: Set<String>] = [:]
        for source in sources {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: source, isDirectory: &isDirectory) else {
                throw ShapefileError.cannotOpen(file: source, reason: "no such file or directory")
            }
            if isDirectory.boolValue {
                let manifest = (source as NSString).appendingPathComponent("manifest.json")
                plans += try load(manifest).plans(manifestPath: manifest)
            } else if source.lowercased().hasSuffix(".json") {
                plans += try load(source).plans(manifestPath: source)
            } else {
                let manifest = ((source as NSString).deletingLastPathComponent as NSString)
                    .appendingPathComponent("manifest.json")
                let shp = source.lowercased().hasSuffix(".shp") ? source : source + ".shp"
                shapefilesByManifest[manifest, default: []].insert(URL(fileURLWithPath: shp).standardizedFileURL.path)
            }
        }
        for (manifest, files) in shapefilesByManifest.sorted(by: { $0.key < $1.key }) {
            guard FileManager.default.fileExists(atPath: manifest) else {
                throw ManifestError.notInManifest(file: files.sorted()[0], manifest: manifest)
            }
            let found = try load(manifest).plans(manifestPath: manifest, only: files)
            let listed = Set(found.map { URL(fileURLWithPath: $0.shapefile).standardizedFileURL.path })
            if let missing = files.subtracting(listed).sorted().first {
                throw ManifestError.notInManifest(file: missing, manifest: manifest)
            }
            plans += found
        }
        // A layer named twice (a folder and one of its files, say) is imported once.
        var seen = Set<String>()
        plans = plans.filter { seen.insert(URL(fileURLWithPath: $0.shapefile).standardizedFileURL.path).inserted }
        guard !plans.isEmpty else { throw ManifestError.noSources }
        return plans.enumerated().sorted { ($0.element.level, $0.offset) < ($1.element.level, $1.offset) }.map(\.element)
    }
}
