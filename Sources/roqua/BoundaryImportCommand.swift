import ArgumentParser
import Foundation
import RoquaBoundaries
import RoquaCommandLine
import RoquaCommandOptions
import RoquaIO
import RoquaImport
import RoquaRegions

struct BoundaryImportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Build the boundary database from shapefiles (default: the bundled data/ and the layers you added).",
        discussion: """
            Each source is a directory with a manifest.json, a manifest, or shapefiles listed in the \
            manifest.json beside them. The database is built beside its target and renamed into place \
            only on success: a failed import leaves an existing database untouched.

            --add FILE --level LEVEL adds your own polygon layer (a shapefile in any CRS and code page) \
            with no manifest to write: it is kept under the data home's layers/ and imported with the \
            others from then on. Its code and name fields are guessed when not given; without --parent, \
            each unit's parent is the unit one level up that holds it.
            """
    )

    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("Directories, manifests or shapefiles.", valueName: "DIR|FILE"))
    var from: [String] = []

    /// `--boundaries PATH`: where the database is written, as every other verb names it.
    @OptionGroup var boundaryOptions: BoundaryOptions

    @Option(name: .long, help: ArgumentHelp("The same as --boundaries (the name it had first).", valueName: "PATH"))
    var out: String?

    /// The database to write: `--boundaries` or `--out`, else `$ROQUA_BOUNDARIES` or the data home's.
    var output: String { out ?? boundaryOptions.path }

    /// Whether the database is the user's own one (neither option given).
    var writesDefault: Bool { out == nil && boundaryOptions.boundaries == nil }

    @Option(name: .long, help: ArgumentHelp("Add your own layer: a .shp (with .shx, .dbf; .prj and .cpg when there).", valueName: "FILE"))
    var add: String?

    @Option(name: .long, help: ArgumentHelp("The added layer's level: country, province or district.", valueName: "LEVEL"))
    var level: String?

    @Option(name: .long, help: ArgumentHelp("The added layer's code field (default: an obvious one, said).", valueName: "FIELD"))
    var code: String?

    @Option(name: .long, help: ArgumentHelp("The added layer's name field (default: an obvious one, said).", valueName: "FIELD"))
    var name: String?

    @Option(name: .customLong("name-en"), help: ArgumentHelp("The added layer's English name field.", valueName: "FIELD"))
    var nameEn: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The field holding each unit's parent code (default: inferred from where units lie).",
            valueName: "FIELD"))
    var parent: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The added layer's CRS when it has no .prj, or a wrong one: EPSG:NNNN, a PROJ string, WKT or a .prj file.",
            valueName: "CRS"))
    var crs: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The added layer's DBF text encoding, overriding .cpg and LDID (CP932, windows-1251, KOI8-R…).",
            valueName: "NAME"))
    var encoding: String?

    @Option(
        name: .customLong("code-prefix"),
        help: ArgumentHelp(
            "Put this before every code of the added layer (when its codes collide with codes already imported).",
            valueName: "PREFIX"))
    var codePrefix: String?

    @Flag(
        name: .customLong("dry-run"),
        help: "With --add: check the layer and say what would be added (features, fields, CRS, encoding, extent, parents); write nothing.")
    var dryRun = false

    @Flag(name: .long, help: "Replace a layer added before from a file of the same name.")
    var replace = false

    @Option(
        name: .long, help: ArgumentHelp("With --add: the GeoPackage feature table to add, when the file has several.", valueName: "NAME"))
    var table: String?

    @Flag(
        name: .customLong("allow-orphans"),
        help: "With --add: keep units that lie in no unit of the level above under their country, instead of failing.")
    var allowOrphans = false

    @Option(
        name: .customLong("remove-layer"),
        help: ArgumentHelp("Take out a layer added before (its name as --add printed it).", valueName: "NAME"))
    var removeLayer: String?

    @OptionGroup var storeOptions: StoreOptions

    @Option(name: .long, help: "Largest piece, in vertices, that the R*Tree indexes.")
    var maxPieceVertices = 256

    @Option(name: .long, help: "Largest piece, in degrees of width or height.")
    var maxPieceDegrees = 4.0

    func validate() throws {
        if out != nil, boundaryOptions.boundaries != nil { throw ValidationError("--out is --boundaries: give one of them") }
        if add != nil {
            guard let level, AdminLevel(name: level) != nil else {
                throw ValidationError("--add needs --level country, province or district")
            }
            guard removeLayer == nil else { throw ValidationError("--add and --remove-layer go one at a time") }
        } else {
            let stray = [
                ("--level", level), ("--code", code), ("--name", name), ("--name-en", nameEn), ("--parent", parent),
                ("--crs", crs), ("--encoding", encoding), ("--code-prefix", codePrefix), ("--table", table),
            ].first { $0.1 != nil }
            if let stray { throw ValidationError("\(stray.0) goes with --add FILE") }
            if replace || dryRun || allowOrphans { throw ValidationError("--replace, --dry-run and --allow-orphans go with --add FILE") }
        }
        guard (16...100_000).contains(maxPieceVertices) else { throw ValidationError("--max-piece-vertices must be 16…100000") }
        guard maxPieceDegrees.isFinite, (0.01...360).contains(maxPieceDegrees) else {
            throw ValidationError("--max-piece-degrees must be 0.01…360")
        }
    }

    func run() throws {
        let added = AddedLayers(directory: (RoquaPaths.dataHome() as NSString).appendingPathComponent("layers"))
        var sources = from
        if sources.isEmpty {
            guard let bundled = RoquaPaths.bundledData() else {
                throw Failure(
                    "the bundled boundary data was not found (looked beside the binary in ../share/roqua and in the "
                        + "source tree's data/); set ROQUA_DATA or pass --from DIR")
            }
            sources = [bundled]
        }
        if let add, let level, let adminLevel = AdminLevel(name: level) {
            var request = AddedLayers.Request(file: add, level: adminLevel)
            (request.code, request.name, request.nameEn, request.parent) = (code, name, nameEn, parent)
            (request.crs, request.encoding, request.replace, request.codePrefix) = (crs, encoding, replace, codePrefix)
            (request.allowOrphans, request.table) = (allowOrphans, table)
            let staged = try added.stage(request)
            if dryRun { return try dryRunAdd(staged, request: request, sources: sources + added.sources(adding: staged), added: added) }
            let parentNote = staged.fields.parent.map { ", parent \($0)" } ?? (adminLevel == .country ? "" : ", parents inferred")
            let nameNote =
                staged.fields.name == staged.fields.code ? " (no name field: the codes are the names; --name FIELD picks one)" : ""
            print(
                "Adding \(staged.name) as \(adminLevel.plural): code \(staged.fields.code), "
                    + "name \(staged.fields.name)\(nameNote)\(parentNote)")
            do {
                try importAll(sources + added.sources(adding: staged), warningsOf: staged.name)
            } catch let error as any InputFileError {
                added.undo(staged)
                // Name the user's file, not the copy being added.
                throw error.renaming((staged.directory as NSString).appendingPathComponent(staged.name + ".shp"), as: add)
            } catch {
                added.undo(staged)
                throw error
            }
            try added.commit(staged)
            try renameStoredRegions()
            return
        }
        if let removeLayer {
            let target = (added.directory as NSString).appendingPathComponent(removeLayer)
            guard !removeLayer.contains("/"), FileManager.default.fileExists(atPath: target) else {
                let known = added.sources().map { ($0 as NSString).lastPathComponent }
                throw Failure(
                    "no added layer named \(removeLayer)"
                        + (known.isEmpty ? " (none was added)" : " (added: \(known.joined(separator: ", ")))"))
            }
            let aside = target + ".removing"
            try FileManager.default.moveItem(atPath: target, toPath: aside)
            do {
                try importAll(sources + added.sources())
            } catch {
                try? FileManager.default.moveItem(atPath: aside, toPath: target)
                throw error
            }
            try? FileManager.default.removeItem(atPath: aside)
            print("Removed \(removeLayer)")
            try renameStoredRegions()
            return
        }
        try importAll(sources + added.sources())
    }

    /// After a layer came or went: the stored regions are named again from the new database (a
    /// walk imported last year counts in the districts added today). Only for the user's own
    /// database (no `--boundaries` or `--out`) and an existing store.
    func renameStoredRegions() throws {
        guard writesDefault, FileManager.default.fileExists(atPath: storeOptions.path) else { return }
        let store = try storeOptions.open()
        let enricher = try RegionEnricher(boundaries: RoquaPaths.boundaries())
        // Every region, whatever database named it: two builds in the same second can look alike.
        let regions = try store.allRegions()
        let changed = try store.enrich(regions, with: enricher)
        print("Named \(regions.count) stored region(s) again from the new boundaries; \(changed) changed")
    }

    /// `--add --dry-run`: the whole import into a temporary database, then what the layer would
    /// be; the temporary database and the staged layer go again whatever happens.
    func dryRunAdd(
        _ staged: AddedLayers.Staged, request: AddedLayers.Request,
        sources: [String], added: AddedLayers
    ) throws {
        let scratch = try ScratchDirectory(purpose: "dry-run")
        let temporary = scratch.file("boundaries.sqlite")
        defer {
            scratch.remove()
            added.undo(staged)
        }
        try importAll(sources, output: temporary, announce: false)
        // The staged copy: a GeoJSON, GeoPackage or zip was converted or unpacked into it.
        let layer = staged.name
        let reader = try ShapefileReader(
            path: (staged.directory as NSString).appendingPathComponent(layer + ".shp"),
            encoding: request.encoding, crs: staged.crs)
        let extent = try BoundaryDatabase(path: temporary).extent(ofLayer: layer)
        let (features, parents) = (extent.units, extent.parents)
        let box = extent.box ?? BoundingBox(minX: 0, minY: 0, maxX: 0, maxY: 0)
        var line =
            "Would add \(layer) as \(request.level.plural): \(features) feature\(features == 1 ? "" : "s"), code \(staged.fields.code), name \(staged.fields.name), "
        line += "CRS \(reader.crsName ?? "WGS 84"), encoding \(reader.encoding.name), "
        line += String(format: "extent %.4f,%.4f – %.4f,%.4f", box.minX, box.minY, box.maxX, box.maxY)
        if let parentLevel = request.level.parent {
            let plural = parents == 1 ? parentLevel.description : parentLevel.plural
            let how = staged.fields.parent.map { " (field \($0))" } ?? " (inferred)"
            line += ", under \(parents) \(plural)\(how)"
        }
        print(line)
        print("Nothing written (--dry-run).")
    }

    /// `warningsOf`: with `--add`, only that layer's warnings are shown (the layers added or
    /// bundled before had theirs shown when they came); the others are counted.
    func importAll(_ sources: [String], output: String? = nil, announce: Bool = true, warningsOf layer: String? = nil) throws {
        var hidden = 0
        let options = BoundaryImportOptions(
            sources: sources,
            output: output ?? self.output, maxPieceVertices: maxPieceVertices,
            maxPieceDegrees: maxPieceDegrees)
        var layerLabel = ""
        let report: ImportReport
        do {
            report = try BoundaryImporter.run(options) { event in
                switch event {
                case let .layerStarted(layer, index, count, _):
                    layerLabel = "[\(index + 1)/\(count)] \(layer)"
                case let .progress(_, done, total):
                    Terminal.status("\(layerLabel) \(done)/\(total)")
                case let .warning(text):
                    if let layer, !text.hasPrefix(layer + ".shp:"), !text.hasPrefix(layer + ".shp ") {
                        hidden += 1
                        return
                    }
                    Terminal.endStatus()
                    RoquaProgram.warn(text)
                }
            }
        } catch {
            Terminal.endStatus()
            throw error
        }
        Terminal.endStatus()
        let counts = AdminLevel.allCases.map { "\(report.counts[$0] ?? 0) \($0.plural)" }
        guard announce else { return }
        print("Imported \(counts.joined(separator: ", ")) (\(report.pieces) indexed pieces), \(report.localities) localities")
        print(String(format: "Wrote %@ (%.1f MB) in %.1f s", report.output, Double(report.bytes) / 1e6, report.seconds))
        let shown = report.warnings.count - hidden
        if shown > 0 { print("\(shown) warning(s), shown above") }
        if hidden > 0 { print("\(hidden) warning(s) about the layers already there, not shown (roqua import shows them)") }
    }
}
