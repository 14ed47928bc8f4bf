import Foundation
import RoquaBoundaries
import RoquaIO

/// The user's own boundary layers (`roqua import --add`): each is copied into its own directory
/// under `<data home>/layers/` with a manifest written for it, so that every later import — the
/// one that adds it and any rebuild after — reads it exactly like a bundled layer (same repair,
/// pieces, indexes, hierarchy, provenance), in the same atomic build.
package struct AddedLayers: Sendable {
    /// What to add.
    package struct Request: Sendable {
        package var file: String
        package var level: AdminLevel
        package var code: String?
        package var name: String?
        package var nameEn: String?
        package var parent: String?
        package var crs: String?
        package var encoding: String?
        /// Put before every code of the layer (when they collide with codes already imported).
        package var codePrefix: String?
        /// Replace a layer added before under the same name.
        package var replace = false
        /// Keep units whose parent cannot be inferred under their country.
        package var allowOrphans = false
        /// The GeoPackage feature table to add, when the file has several.
        package var table: String?

        package init(file: String, level: AdminLevel) {
            self.file = file
            self.level = level
        }
    }

    /// A layer that cannot be added, naming the file, field or rule.
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// `<data home>/layers`.
    package let directory: String

    package init(directory: String) {
        self.directory = directory
    }

    /// The directories of the layers added so far, in name order (import sources). A layer being
    /// replaced, added or removed (`name.previous`, `.adding`, `.removing`) is not one.
    package func sources() -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { !$0.contains(".") }
        return names.sorted().map { (directory as NSString).appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: ($0 as NSString).appendingPathComponent("manifest.json")) }
    }

    /// The fields a request names, or the obvious ones of the file when it names none: those of
    /// geoBoundaries (`shapeID`, `shapeName`), of GADM-like files (`GID_n`, `NAME_n`, deepest
    /// first) and the common `CODE`/`NAME`-style ones; then any field ending in `NAME` (a name),
    /// or in `CODE`, `KEY`, `FIPS`, `GEOID`, `ID` (a code). A file with a code but no name field
    /// gets its codes as names (name == code; the caller says so).
    package static func fields(_ request: Request, available: [String]) throws -> Manifest.Fields {
        let byUpper = Dictionary(available.map { ($0.uppercased(), $0) }, uniquingKeysWith: { first, _ in first })
        func named(_ given: String) throws -> String {
            guard let field = byUpper[given.uppercased()] else {
                throw Failure(description: "\(request.file): no field \(given) (the file has \(available.joined(separator: ", ")))")
            }
            return field
        }
        func guess(_ candidates: [String], suffixes: [String]) -> String? {
            if let exact = candidates.lazy.compactMap({ byUpper[$0] }).first { return exact }
            for suffix in suffixes {
                if let field = available.first(where: { $0.uppercased().hasSuffix(suffix) }) { return field }
            }
            return nil
        }
        let code: String
        if let given = request.code {
            code = try named(given)
        } else if let found = guess(
            [
                "SHAPEID", "SHAPEISO", "GID_3", "GID_2", "GID_1", "GID_0", "GEOCODE", "CODE", "FIPS",
                "GEOID", "ISO", "ID",
            ], suffixes: ["CODE", "KEY", "FIPS", "GEOID", "_ID", "ID"])
        {
            code = found
        } else {
            throw Failure(
                description: "\(request.file): no obvious code field among \(available.joined(separator: ", ")); name it with --code")
        }
        let name =
            try request.name.map { try named($0) }
            ?? guess(["SHAPENAME", "NAME_3", "NAME_2", "NAME_1", "NAME_0", "NAME", "NAMELSAD", "NAME_LOCAL"], suffixes: ["NAME"])
            ?? code
        var fields = Manifest.Fields(code: code, name: name)
        fields.nameEn = try request.nameEn.map { try named($0) }
        fields.parent = try request.parent.map { try named($0) }
        return fields
    }

    /// A layer copied in beside the others (`name.adding`), not yet one of them: a crash or a
    /// kill before `commit` leaves the layers as they were (`sources()` skips it, the next
    /// `stage` clears it).
    package struct Staged: Sendable {
        /// `layers/name.adding`, the import source while adding.
        package var directory: String
        /// `layers/name`, where `commit` puts it.
        package var target: String
        package var fields: Manifest.Fields
        /// The layer's CRS as given or as its GeoJSON/GeoPackage named it, resolved to PROJJSON
        /// (nil: its .prj, or none).
        package var crs: String?
        /// The layer's name (its directory's, its shapefile's).
        package var name: String { (target as NSString).lastPathComponent }
    }

    /// Copies the shapefile and writes its manifest into a staging directory, after checking
    /// that it opens (companions, CRS, code page) and naming its fields. The caller imports with
    /// `sources(adding:)`, then calls `commit`, or `undo` when the import fails.
    /// - Throws: `Failure` for a layer of that name added before (without `replace`) or a file
    ///   that is no shapefile; `ShapefileError` for one that cannot be read.
    package func stage(_ request: Request) throws -> Staged {
        var request = request
        let original = request.file
        request.crs = try request.crs.map(Self.crsText)
        let lower = original.lowercased()
        let scratchDirectory = try ScratchDirectory(purpose: "add")
        defer { scratchDirectory.remove() }
        let scratch = scratchDirectory.path
        if lower.hasSuffix(".zip") {
            // A zipped layer (as geoBoundaries and most agencies publish them): its files first.
            request.file = try ZippedLayer.extract(original, into: scratch)
        }
        let format = (request.file as NSString).pathExtension.lowercased()
        if ["geojson", "json", "gpkg"].contains(format) {
            // A FeatureCollection or a GeoPackage's feature table becomes a shapefile first; the
            // fields the request names follow their columns.
            let stem = ((original as NSString).lastPathComponent as NSString).deletingPathExtension
            let name = Self.layerName(request.table.map { $0.lowercased() == stem.lowercased() ? stem : "\(stem)_\($0)" } ?? stem)
            let converted =
                format == "gpkg"
                ? try GeoPackageLayer.convert(request.file, table: request.table, into: scratch, name: name)
                : try GeoJSONLayer.convert(request.file, into: scratch, name: name)
            func column(_ property: String?) -> String? { property.map { converted.fields[$0] ?? $0 } }
            (request.code, request.name, request.nameEn, request.parent) =
                (column(request.code), column(request.name), column(request.nameEn), column(request.parent))
            request.crs = request.crs ?? converted.crs
            request.file = converted.shapefile
        }
        if request.table != nil, format != "gpkg" {
            throw Failure(description: "\(original): --table chooses a GeoPackage's feature table; this is no .gpkg")
        }
        guard request.file.lowercased().hasSuffix(".shp") else {
            throw Failure(
                description:
                    "\(original): only shapefiles (.shp with .shx and .dbf, or zipped), GeoJSON FeatureCollections and GeoPackages can be added"
            )
        }
        let reader: ShapefileReader
        do {
            reader = try ShapefileReader(path: request.file, encoding: request.encoding, crs: request.crs, crsAdvice: "--crs EPSG:NNNN")
        } catch let error as ShapefileError {
            // A converted or unzipped layer: name the user's file, not the copy in the scratch folder.
            throw error.renaming(request.file, as: original)
        }
        var named = request
        named.file = original
        let fields = try Self.fields(named, available: reader.fieldNames)
        let base = String(request.file.dropLast(4))
        let name = Self.layerName((base as NSString).lastPathComponent)
        do { try PrivateFiles.makeDirectory(directory) } catch {
            throw Failure(description: "\(directory): cannot create the layers directory: \(error)")
        }
        let target = (directory as NSString).appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: target), !request.replace {
            throw Failure(description: "a layer named \(name) was added before; pass --replace to replace it, or --remove-layer \(name)")
        }
        let staging = target + ".adding"
        try? FileManager.default.removeItem(atPath: staging)
        do {
            try PrivateFiles.makeDirectory(staging)
            for ext in ["shp", "shx", "dbf", "prj", "cpg"] {
                guard let from = ShapefileReader.companion(base, ext) else { continue }
                try FileManager.default.copyItem(atPath: from, toPath: (staging as NSString).appendingPathComponent("\(name).\(ext)"))
            }
            let layer: [String: Any?] = [
                "file": "\(name).shp", "level": request.level.description,
                "fields": ["code": fields.code, "name": fields.name, "name_en": fields.nameEn, "parent": fields.parent]
                    .compactMapValues { $0 },
                "source": "added with roqua import --add from \(URL(fileURLWithPath: original).standardizedFileURL.path)",
                "licence": "as its publisher gives it (see the source)",
                // The CRS as text PROJ resolved (PROJJSON), never a path or anything to look up again.
                "crs": reader.resolvedCRS, "encoding": request.encoding, "code_prefix": request.codePrefix,
                "allow_orphans": request.allowOrphans ? true : nil,
                "added_at": ISO8601DateFormatter().string(from: Date()),
            ]
            let manifest: [String: Any] = ["format": 1, "layers": [layer.compactMapValues { $0 }]]
            let data = try JSONSerialization.data(withJSONObject: manifest, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: (staging as NSString).appendingPathComponent("manifest.json")))
        } catch {
            try? FileManager.default.removeItem(atPath: staging)
            throw Failure(description: "\(target): cannot copy the layer: \(error.localizedDescription)")
        }
        return Staged(directory: staging, target: target, fields: fields, crs: reader.resolvedCRS)
    }

    /// The text of `--crs`: the contents of the file it names (the user's own command line names
    /// it; at most 64 KiB, as a `.prj` is read), else itself. Read once, here: the layer keeps the
    /// text, and no later import depends on the file.
    /// - Throws: `Failure` naming a file that cannot be read or is too large to be a CRS.
    static func crsText(_ given: String) throws -> String {
        var isDirectory: ObjCBool = false
        let trimmed = given.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.hasPrefix("+"), !trimmed.contains("["), !trimmed.contains("{"),
            FileManager.default.fileExists(atPath: trimmed, isDirectory: &isDirectory), !isDirectory.boolValue
        else { return given }
        guard let handle = FileHandle(forReadingAtPath: trimmed) else { throw Failure(description: "\(trimmed): cannot be read (--crs)") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: (64 << 10) + 1)) ?? Data()
        guard data.count <= 64 << 10 else { throw Failure(description: "\(trimmed): larger than 64 KiB; not a CRS definition (--crs)") }
        return String(decoding: data, as: UTF8.self)
    }

    /// The layers to import while `staged` is being added: the others (without the one it
    /// replaces), then it, last, so that a code it repeats is reported against it.
    package func sources(adding staged: Staged) -> [String] {
        sources().filter { $0 != staged.target } + [staged.directory]
    }

    /// Takes back a staged layer (a failed import, a dry run); the layers stay as they were.
    package func undo(_ staged: Staged) {
        try? FileManager.default.removeItem(atPath: staged.directory)
    }

    /// Makes the staged layer one of the layers, once the import succeeded (replacing the one
    /// of the same name).
    package func commit(_ staged: Staged) throws {
        let aside = staged.target + ".previous"
        try? FileManager.default.removeItem(atPath: aside)
        if FileManager.default.fileExists(atPath: staged.target) {
            try FileManager.default.moveItem(atPath: staged.target, toPath: aside)
        }
        try FileManager.default.moveItem(atPath: staged.directory, toPath: staged.target)
        try? FileManager.default.removeItem(atPath: aside)
    }

    /// A layer's directory name: the file's name, letters, digits, `-` and `_` only.
    static func layerName(_ file: String) -> String {
        let kept = file.unicodeScalars.map { CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" ? Character($0) : "_" }
        let name = String(kept).trimmingCharacters(in: CharacterSet(charactersIn: "_"))
        return name.isEmpty ? "layer" : name
    }
}
