import Foundation
import GRDB
import RoquaIO
import RoquaTiles

/// The lifetime map: heat and lines of every kept fix as a pyramid of count tiles (`RoquaTiles`),
/// kept in `map_tiles` beside the fixes and updated in the same transaction — an import adds its
/// new fixes, a rebuild or a forget counts every fix again — so any tile of a decade of fixes is
/// one to nine rows away.
package struct MapTileKeeper {
    private var accumulator = TileAccumulator(zooms: 0...Self.heatZoom, flushThresholdBytes: 24 << 20)
    private let db: Database
    /// Fixes less accurate than this (decimetres) are left out, as the regions leave them.
    private let accuracyLimit: Double
    private var touched: Set<TileKey> = []

    /// The top zoom counted: heat to z16 (about 2.4 m a pixel at the equator), lines to z15.
    static let heatZoom = 16

    static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE map_tiles (
                    z INTEGER NOT NULL, x INTEGER NOT NULL, y INTEGER NOT NULL, kind INTEGER NOT NULL,
                    counts BLOB NOT NULL,
                    PRIMARY KEY (z, x, y, kind)
                ) WITHOUT ROWID
                """)
    }

    /// The stored counts of tile `key`, nil where nothing was recorded.
    static func blob(_ key: TileKey, _ db: Database) throws -> [UInt8]? {
        let read = try db.cachedStatement(sql: "SELECT counts FROM map_tiles WHERE z = ? AND x = ? AND y = ? AND kind = ?")
        return try Data.fetchOne(read, arguments: [key.z, key.x, key.y, key.kind.rawValue]).map { [UInt8]($0) }
    }

    /// - Parameter maxAccuracy: metres; fixes less accurate count nowhere.
    init(maxAccuracy: Double, _ db: Database) {
        self.db = db
        accuracyLimit = maxAccuracy * 10
    }

    /// Adds fixes of source `source` (any number unique in this import), in time order.
    mutating func add(source: Int64, _ fixes: [KeptFix]) throws {
        let limit = accuracyLimit
        accumulator.add(
            source: source, fixes: fixes.lazy.filter { Double($0.accuracy) <= limit }.map { ($0.time, $0.latitude, $0.longitude) })
        if accumulator.needsFlush { try merge(accumulator.flushCold()) }
    }

    /// Goes on drawing `source`'s line from `fix`, counted by an earlier import (a phone's post).
    mutating func resume(source: Int64, after fix: KeptFix) {
        accumulator.resume(source: source, after: (fix.time, fix.latitude, fix.longitude))
    }

    /// The source is over: its next fix starts a new line.
    mutating func endSource(_ source: Int64) { accumulator.endSource(source) }

    /// Writes what is gathered, each row touched rewritten as one piece.
    mutating func finish() throws {
        try merge(accumulator.flush())
        let write = try db.cachedStatement(sql: "UPDATE map_tiles SET counts = ? WHERE z = ? AND x = ? AND y = ? AND kind = ?")
        for key in touched {
            guard let blob = try Self.blob(key, db), let compacted = try TileRaster.compact(blob) else { continue }
            try write.execute(arguments: [Data(compacted), key.z, key.x, key.y, key.kind.rawValue])
        }
        touched.removeAll()
    }

    private mutating func merge(_ deltas: [TileKey: TileDelta]) throws {
        let write = try db.cachedStatement(
            sql: "INSERT INTO map_tiles (z, x, y, kind, counts) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET counts = excluded.counts")
        for (key, delta) in deltas {
            let arguments: StatementArguments = [key.z, key.x, key.y, key.kind.rawValue]
            let existing = try Self.blob(key, db)
            // Appended uncompressed: `finish` compresses each touched row once.
            try write.execute(arguments: arguments + [Data(try TileRaster.merge(existing, delta, compressAppended: false))])
            touched.insert(key)
        }
    }
}

/// Which map a tile draws.
public enum MapTileKind: String, Sendable, CaseIterable {
    /// Where fixes lie, density as colour.
    case heat
    /// Consecutive fixes of a source joined, broken at gaps and flights.
    case lines

    var kind: TileKind { self == .heat ? .heat : .lines }
}

extension RegionStore {
    /// The PNG of tile `z`/`x`/`y` (slippy numbering) of the whole kept history, transparent where
    /// nothing was recorded.
    /// - Throws: `RegionStoreError`, `TileBlobError` for a damaged row.
    public func mapTile(_ kind: MapTileKind, z: Int, x: Int, y: Int) throws -> [UInt8] {
        try read { db in
            try TileRenderer.png(tile: TileID(z: z, x: x, y: y), kind: kind.kind) { try MapTileKeeper.blob($0, db) }
        }
    }

    /// The PNG of tile `z`/`x`/`y` of the fixes taken in `[from, to)` only, drawn from the fixes
    /// (the pyramid holds every time at once): the same pixels the pyramid gives for the same fixes.
    /// - Throws: `RegionStoreError`, `FixBlock.Damaged`.
    public func mapTile(_ kind: MapTileKind, z: Int, x: Int, y: Int, from: Date, to: Date) throws -> [UInt8] {
        TileRenderer.png(fixes: try spanFixes(from: from, to: to), in: TileID(z: z, x: x, y: y), kind: kind.kind)
    }

    /// The fixes of `[from, to)` the map draws (those the accuracy setting keeps), by source.
    func spanFixes(from: Date, to: Date) throws -> [TileFix] {
        let ms = { (date: Date) in Int64((date.timeIntervalSince1970 * 1000).rounded(.down)) }
        return try read { db in
            let limit = try DeriveSettings.remembered(db).clustering.maxAccuracy * 10
            return try FixHistory.sourcedFixes(from: ms(from), to: ms(to), db).filter { Double($0.fix.accuracy) <= limit }.map {
                TileFix(source: $0.source, time: $0.fix.time, lat: $0.fix.latitude, lon: $0.fix.longitude)
            }
        }
    }
}

extension FixHistory {
    /// Every kept fix taken in `[from, to)` with its source, each source's in time order.
    static func sourcedFixes(from: Int64, to: Int64, _ db: Database) throws -> [(source: Int64, fix: KeptFix)] {
        guard to > from else { return [] }
        var found: [Int64: [KeptFix]] = [:]
        for block in try blocks(from: from, through: to - 1, longest: try longestSpan(db), db) {
            found[block.source, default: []] += try fixes(ofBlock: block.id, db).filter { $0.time >= from && $0.time < to }
        }
        return found.sorted { $0.key < $1.key }.flatMap { source, fixes in fixes.inTimeOrder().map { (source, $0) } }
    }
}

extension RegionStore {
    /// A mark that changes whenever what the lifetime map draws may change: the kept fixes (an
    /// import, a live post, a forget) or the settings they are drawn with (a rebuild).
    /// - Throws: `RegionStoreError`.
    package func historyMark() throws -> String {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT (SELECT COUNT(*) FROM fix_blocks), (SELECT IFNULL(MAX(id), 0) FROM fix_blocks),
                           (SELECT IFNULL(SUM(fixes), 0) FROM fix_sources),
                           (SELECT IFNULL(value, '') FROM settings WHERE name = 'derive')
                    """)
            let text = "\(row?[0] as Int64? ?? 0) \(row?[1] as Int64? ?? 0) \(row?[2] as Int64? ?? 0) \(row?[3] as String? ?? "")"
            var hasher = SHA256()
            Array(text.utf8).withUnsafeBytes { hasher.update($0) }
            return String(hasher.finalize().prefix(20))
        }
    }
}
