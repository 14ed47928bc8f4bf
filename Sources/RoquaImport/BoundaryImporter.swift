import Foundation
import GRDB
import RoquaBoundaries
import RoquaIO

/// Builds the boundary DB from shapefiles: reads every layer the manifest lists, turns records
/// into valid GEOS polygons, cuts them into indexed pieces and writes one SQLite file, atomically.
public enum BoundaryImporter {
    /// Imports every layer `options.sources` names into a new boundary DB at `options.output`.
    ///
    /// Every shapefile is opened (and so checked) before anything is written; the DB is built in a
    /// temporary file beside the output and renamed over it only on success, so a failed import
    /// leaves an existing output byte-identical.
    ///
    /// - Parameters:
    ///   - options: The sources, the output path and the piece and cell-index limits.
    ///   - events: Called on the calling thread as each layer starts, after every record, and for
    ///     every warning (a dropped ring, a repaired polygon).
    /// - Returns: What was written: unit counts per level, pieces, warnings, sizes and timings.
    /// - Throws: `ManifestError` for a manifest that cannot be read or does not list a shapefile;
    ///   `ShapefileError` for a shapefile that cannot be opened or read; `BoundaryImportError` for a record
    ///   with a missing value, a repeated code, an unknown parent or an unusable polygon;
    ///   `InputError` for a malformed localities file;
    ///   `OutputError` when the output path cannot be written; `GEOSError` when the cell index
    ///   cannot be built; GRDB's `DatabaseError` when SQLite fails.
    public static func run(_ options: BoundaryImportOptions, events: (ImportEvent) -> Void = { _ in }) throws -> ImportReport {
        let started = Date()
        let plans = try Manifest.resolve(sources: options.sources)
        let localityFiles = try Manifest.localities(sources: options.sources)
        // Open (and so check) every file before anything is written.
        let readers = try plans.map { try ShapefileReader(path: $0.shapefile, encoding: $0.encoding, crs: $0.crs) }
        let replace = try AtomicReplace(target: options.output)
        var warnings: [String] = []
        let report: (counts: [AdminLevel: Int], pieces: Int, cells: CellIndexBuilder.Output, localities: Int)
        do {
            var config = Configuration()
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
            }
            let queue = try DatabaseQueue(path: replace.temporary, configuration: config)
            report = try queue.write { db in
                try BoundarySchema.create(db)
                var writer = try BoundaryWriter(
                    db: db, context: GEOSContext(), limits: (options.maxPieceVertices, options.maxPieceDegrees),
                    repairSeconds: options.repairSeconds)
                for (index, (plan, reader)) in zip(plans, readers).enumerated() {
                    events(.layerStarted(layer: plan.name, index: index, layerCount: plans.count, features: reader.shapeCount))
                    try writer.importLayer(plan, reader: reader) { event in
                        if case let .warning(text) = event { warnings.append(text) }
                        events(event)
                    }
                }
                try writeMeta(db, options: options)
                let cells = try CellIndexBuilder.build(writer.cells, fallbackMeters: options.cellFallbackMeters)
                try writeCells(db, cells, fallbackMeters: options.cellFallbackMeters, units: writer.cells.unitCount)
                let places = try LocalityImporter.run(db, files: localityFiles)
                return (writer.counts, writer.pieceCount, cells, places)
            }
            try queue.close()
            try replace.commit()
        } catch {
            replace.discard()
            throw error
        }
        var info = stat()
        let bytes = stat(options.output, &info) == 0 ? Int(info.st_size) : 0  // for the report only; the file was just renamed there
        return ImportReport(
            output: options.output, counts: report.counts, pieces: report.pieces, warnings: warnings,
            seconds: Date().timeIntervalSince(started), bytes: bytes, cellTiles: report.cells.tiles.count,
            cellLeaves: report.cells.leaves, cellBytes: report.cells.bytes, cellSeconds: report.cells.seconds,
            localities: report.localities)
    }

    private static func writeCells(_ db: Database, _ cells: CellIndexBuilder.Output, fallbackMeters: Double, units: Int) throws {
        try db.execute(
            sql: "INSERT INTO cell_index(id, format, fallback_meters, unit_count, grid) VALUES (1, ?, ?, ?, ?)",
            arguments: [CellFormat.version, fallbackMeters, units, cells.grid])
        let insert = try db.makeStatement(sql: "INSERT INTO cell_tiles(id, data) VALUES (?, ?)")
        for tile in cells.tiles { try insert.execute(arguments: [tile.id, tile.blob]) }
    }

    private static func writeMeta(_ db: Database, options: BoundaryImportOptions) throws {
        let meta: [(String, String)] = [
            ("schema_version", String(BoundarySchema.version)),
            ("roqua_version", Roqua.version),
            ("imported_at", ISO8601DateFormatter().string(from: Date())),
            ("piece_max_vertices", String(options.maxPieceVertices)),
            ("piece_max_degrees", String(options.maxPieceDegrees)),
        ]
        for (key, value) in meta {
            try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?)", arguments: [key, value])
        }
    }
}

/// Writes one layer after another into an open transaction, keeping the code → row map that
/// links each unit to its parent.
struct BoundaryWriter {
    private struct Unit {
        var id: Int64
        var level: AdminLevel
        var country: String
        var origin: String
    }

    let db: Database
    let context: GEOSContext
    let limits: (vertices: Int, degrees: Double)
    let repairSeconds: Double
    private var units: [String: Unit] = [:]
    /// Unit codes by row id (parents inferred from the pieces found at a point).
    private var codes: [Int64: String] = [:]
    private(set) var counts: [AdminLevel: Int] = [:]
    private(set) var pieceCount = 0
    /// Every unit's rings, for the cell index built once all layers are in.
    private(set) var cells = CellGeometry()
    private let insertBoundary: Statement
    private let insertPiece: Statement
    private let insertIndex: Statement

    init(db: Database, context: GEOSContext, limits: (vertices: Int, degrees: Double), repairSeconds: Double) throws {
        self.db = db
        self.context = context
        self.limits = limits
        self.repairSeconds = repairSeconds
        insertBoundary = try db.makeStatement(
            sql: """
                INSERT INTO boundaries(level, code, name, name_en, name_tr, parent_id, country_code, continent, iso_a3,
                  source_id, source_record, min_x, min_y, max_x, max_y, vertex_count, geometry)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        insertPiece = try db.makeStatement(
            sql: """
                INSERT INTO pieces(boundary_id, level, min_x, min_y, max_x, max_y, vertex_count, geometry)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        insertIndex = try db.makeStatement(sql: "INSERT INTO piece_index(id, min_x, max_x, min_y, max_y) VALUES (?, ?, ?, ?, ?)")
    }

    mutating func importLayer(_ plan: LayerPlan, reader: ShapefileReader, events: (ImportEvent) -> Void) throws {
        let sourceID = try insertSource(plan, reader: reader)
        var orphans: [String] = []
        var inferred: [String?] = []
        if plan.fields.parent == nil, let parentLevel = plan.level.parent {
            inferred = try inferParents(plan, reader: reader, level: parentLevel, events: events)
        }
        for index in 0..<reader.shapeCount {
            let record = index + 1
            func value(_ field: String?) throws -> String? {
                guard let field else { return nil }
                return try reader.string(record: index, field: field)
            }
            func required(_ field: String) throws -> String {
                guard let text = try value(field) else {
                    throw BoundaryImportError.missingValue(file: reader.path, record: record, field: field)
                }
                return text
            }
            let code = (plan.codePrefix ?? "") + (try required(plan.fields.code))
            let name = try required(plan.fields.name)
            if let existing = units[code] {
                throw BoundaryImportError.duplicateCode(file: reader.path, record: record, code: code, first: existing.origin)
            }
            var parent: Unit?
            var shape: Geometry?
            do {
                if let parentLevel = plan.level.parent, let field = plan.fields.parent {
                    let parentCode = try required(field)
                    guard let found = units[parentCode], found.level == parentLevel else {
                        throw BoundaryImportError.unknownParent(
                            file: reader.path, record: record, code: code,
                            parent: parentCode, level: parentLevel)
                    }
                    parent = found
                } else if let parentLevel = plan.level.parent {
                    // No parent field: the unit of the level above that holds the largest part of this one.
                    let geometry = try polygon(reader: reader, index: index, code: code, name: name, events: events)
                    shape = geometry
                    if let found = inferred[index].flatMap({ units[$0] }) {
                        parent = found
                    } else if plan.allowOrphans, parentLevel != .country,
                        let country = try parentCandidates(of: geometry, level: .country).first(where: { $0.share > 0 })
                            .flatMap({ units[$0.parent] })
                    {
                        parent = country
                        events(
                            .warning(
                                "\((reader.path as NSString).lastPathComponent) record \(record) (\(code) \(name)) lies in no "
                                    + "\(parentLevel); kept under \(country.country) (allow_orphans)"))
                    } else {
                        orphans.append("record \(record) (\(code) \(name))")
                        continue
                    }
                }
                let country = parent?.country ?? code
                try add(
                    plan, reader: reader, index: index, code: code, name: name, parent: parent, country: country,
                    sourceID: sourceID, geometry: shape, values: value, events: events)
            } catch let error as GEOSError {
                throw BoundaryImportError.geometry(file: reader.path, record: record, code: code, name: name, reason: error.description)
            }
            counts[plan.level, default: 0] += 1
            if record % 25 == 0 || record == reader.shapeCount {
                events(.progress(layer: plan.name, done: record, total: reader.shapeCount))
            }
        }
        guard orphans.isEmpty else {
            throw BoundaryImportError.orphans(file: reader.path, level: plan.level.parent ?? plan.level, records: orphans)
        }
    }

    /// Every record's parent code when the layer names none (`ParentConsensus`): the unit of
    /// `level` holding the largest part of it, settled by the codes where they nest. Says how many
    /// the codes settled.
    private func inferParents(
        _ plan: LayerPlan, reader: ShapefileReader, level: AdminLevel,
        events: (ImportEvent) -> Void
    ) throws -> [String?] {
        var codes: [String] = []
        var candidates: [[ParentConsensus.Candidate]] = []
        for index in 0..<reader.shapeCount {
            let code = try reader.string(record: index, field: plan.fields.code) ?? ""
            let name = try reader.string(record: index, field: plan.fields.name) ?? ""
            do {
                // Repairs are reported when the record is written.
                let geometry = try polygon(reader: reader, index: index, code: code, name: name, events: { _ in })
                candidates.append(try parentCandidates(of: geometry, level: level))
            } catch let error as GEOSError {
                throw BoundaryImportError.geometry(file: reader.path, record: index + 1, code: code, name: name, reason: error.description)
            }
            codes.append(code)
        }
        let outcome = ParentConsensus.settle(codes: codes, candidates: candidates)
        if let length = outcome.prefixLength, !outcome.settledByCode.isEmpty {
            let file = (reader.path as NSString).lastPathComponent
            let listed = outcome.settledByCode.prefix(8).map { "\(codes[$0]) → \(outcome.parents[$0] ?? "")" }.joined(separator: ", ")
            events(
                .warning(
                    "\(file): \(outcome.settledByCode.count) unit(s) on a \(level) border lie mostly in another \(level) "
                        + "of the coarser layer; given the \(level) their code's first \(length) character(s) share: \(listed)"
                        + (outcome.settledByCode.count > 8 ? ", …" : "")))
        }
        return outcome.parents
    }

    /// The units of `level` that `geometry` lies in or within ~2 km of, with the share of its
    /// area inside each, the largest first. When one unit alone comes near and covers its point on
    /// surface, that one with the whole share (the common case, without computing areas).
    private func parentCandidates(of geometry: Geometry, level: AdminLevel) throws -> [ParentConsensus.Candidate] {
        let box = try geometry.bounds()
        let margin = 0.02
        let pieces = try Row.fetchAll(
            db,
            sql: """
                SELECT p.boundary_id, p.geometry FROM piece_index i JOIN pieces p ON p.id = i.id
                WHERE i.max_x >= ?1 AND i.min_x <= ?2 AND i.max_y >= ?3 AND i.min_y <= ?4 AND p.level = ?5
                """, arguments: [box.minX - margin, box.maxX + margin, box.minY - margin, box.maxY + margin, level.rawValue])
        let near = Set(pieces.map { $0["boundary_id"] as Int64 })
        if near.count == 1, let only = near.first, let code = codes[only] {
            let inside = try geometry.pointOnSurface()
            let point = try context.point(x: inside.x, y: inside.y)
            for row in pieces where try context.geometry(wkb: row["geometry"]).covers(point) {
                return [.init(parent: code, share: 1)]
            }
        }
        let area = try geometry.area()
        var shared: [Int64: Double] = Dictionary(near.map { ($0, 0) }, uniquingKeysWith: +)
        for row in pieces {
            let piece = try context.geometry(wkb: row["geometry"])
            shared[row["boundary_id"], default: 0] += try piece.intersection(geometry).area() / area
        }
        return shared.compactMap { id, share in codes[id].map { ParentConsensus.Candidate(parent: $0, share: share) } }
            .sorted { ($0.share, $1.parent) > ($1.share, $0.parent) }
    }

    /// Writes one record: its boundary row, its indexed pieces and its cells (`geometry` when it
    /// was read already).
    private mutating func add(
        _ plan: LayerPlan, reader: ShapefileReader, index: Int, code: String, name: String, parent: Unit?,
        country: String, sourceID: Int64, geometry shape: Geometry? = nil,
        values value: (String?) throws -> String?, events: (ImportEvent) -> Void
    ) throws {
        let record = index + 1
        let file = (reader.path as NSString).lastPathComponent
        let geometry = try shape ?? polygon(reader: reader, index: index, code: code, name: name, events: events)
        let box = try geometry.bounds()
        let arguments: StatementArguments = [
            plan.level.rawValue, code, name, try value(plan.fields.nameEn) ?? name, try value(plan.fields.nameTr) ?? name,
            parent?.id, country, try value(plan.fields.continent), try value(plan.fields.isoA3), sourceID, record,
            box.minX, box.minY, box.maxX, box.maxY, geometry.coordinateCount, try geometry.wkb(),
        ]
        try insertBoundary.execute(arguments: arguments)
        let id = db.lastInsertedRowID
        units[code] = Unit(id: id, level: plan.level, country: country, origin: "\(file) record \(record)")
        codes[id] = code
        try insertPieces(of: geometry, boundary: id, level: plan.level)
        cells.add(
            level: plan.level, code: code, country: country, precision: plan.precision, box: box,
            polygons: try geometry.polygonRings())
    }

    /// The record's rings as one valid polygonal geometry; invalid ones are repaired with a warning.
    private func polygon(
        reader: ShapefileReader, index: Int, code: String, name: String,
        events: (ImportEvent) -> Void
    ) throws -> Geometry {
        let label = "\((reader.path as NSString).lastPathComponent) record \(index + 1) (\(code) \(name))"
        let assembled = RingAssembler.assemble(try reader.rings(at: index))
        if assembled.droppedRings > 0 {
            events(.warning("\(label): dropped \(assembled.droppedRings) degenerate ring(s)"))
        }
        if assembled.promotedHoles > 0 {
            events(.warning("\(label): \(assembled.promotedHoles) counter-clockwise ring(s) outside any shell read as shells"))
        }
        guard !assembled.polygons.isEmpty else {
            throw BoundaryImportError.emptyGeometry(file: reader.path, record: index + 1, code: code)
        }
        var geometry = try context.polygonal(assembled.polygons)
        if try !geometry.isValid() {
            let reason = geometry.invalidityReason
            geometry = try repaired(geometry, assembled.polygons, reader: reader, index: index, code: code, name: name, invalidity: reason)
            events(.warning("\(label): invalid polygon (\(reason)) repaired"))
        }
        guard !geometry.isEmpty, try geometry.area() > 0 else {
            throw BoundaryImportError.emptyGeometry(file: reader.path, record: index + 1, code: code)
        }
        return geometry
    }

    /// GEOS's repair of an invalid polygon, bounded: its time and memory grow with the crossings
    /// between its edges (`RingCrossings`), so a polygon with more than one per hundred vertices
    /// (at least 1,000, at most 10,000) is refused without asking GEOS, and the repair is stopped
    /// after `repairSeconds`.
    /// - Throws: `BoundaryImportError.unrepairable` naming the record, its code and name.
    private func repaired(
        _ geometry: Geometry, _ polygons: [PolygonRings], reader: ShapefileReader, index: Int, code: String,
        name: String, invalidity: String
    ) throws -> Geometry {
        func refused(_ reason: String) -> BoundaryImportError {
            .unrepairable(file: reader.path, record: index + 1, code: code, name: name, reason: "\(invalidity); \(reason)")
        }
        let vertices = polygons.reduce(0) { $0 + $1.holes.reduce($1.shell.count) { $0 + $1.count } }
        let limit = min(10_000, max(1_000, vertices / 100))
        guard let crossings = RingCrossings.count(polygons, limit: limit, work: 20 * vertices + 20_000_000) else {
            throw refused("its edges are packed too densely to check how tangled it is")
        }
        guard crossings <= limit else {
            throw refused(
                "its edges cross each other more than \(limit) times (a tangle whose repair would take GEOS minutes and gigabytes)")
        }
        do {
            return try context.withTimeLimit(seconds: repairSeconds) { try geometry.madeValid() }
        } catch let error as GEOSError where error.wasInterrupted {
            throw refused("its repair took longer than \(repairSeconds.formatted()) s")
        }
    }

    private mutating func insertPieces(of geometry: Geometry, boundary: Int64, level: AdminLevel) throws {
        for piece in try Subdivider.pieces(of: geometry, maxVertices: limits.vertices, maxDegrees: limits.degrees) {
            let b = piece.box
            try insertPiece.execute(arguments: [
                boundary, level.rawValue, b.minX, b.minY, b.maxX, b.maxY,
                piece.vertexCount, piece.wkb,
            ])
            try insertIndex.execute(arguments: [db.lastInsertedRowID, b.minX, b.maxX, b.minY, b.maxY])
            pieceCount += 1
        }
    }

    private func insertSource(_ plan: LayerPlan, reader: ShapefileReader) throws -> Int64 {
        let base = String(reader.path.dropLast(4))
        func checksum(_ ext: String) throws -> String {
            try SHA256.hex(ofFile: ShapefileReader.companion(base, ext) ?? base + "." + ext)
        }
        var fields = ["code \(plan.fields.code)", "name \(plan.fields.name)"]
        if let nameEn = plan.fields.nameEn { fields.append("English name \(nameEn)") }
        if plan.level.parent != nil { fields.append(plan.fields.parent.map { "parent \($0)" } ?? "parent inferred") }
        if let prefix = plan.codePrefix { fields.append("codes prefixed \(prefix)") }
        try db.execute(
            sql: """
                INSERT INTO sources(layer, level, file, shp_sha256, shx_sha256, dbf_sha256, encoding, features, description, licence,
                  precision, crs, fields, added_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                plan.name, plan.level.rawValue, (reader.path as NSString).lastPathComponent,
                try checksum("shp"), try checksum("shx"), try checksum("dbf"), reader.encoding.name,
                reader.shapeCount, plan.source, plan.licence, plan.precision, reader.crsName,
                fields.joined(separator: ", "), plan.addedAt,
            ])
        return db.lastInsertedRowID
    }
}
