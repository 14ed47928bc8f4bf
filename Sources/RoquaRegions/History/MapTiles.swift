import Foundation
import GRDB
import GRDBSQLite
import RoquaIO
import RoquaTiles

/// The lifetime map: heat and lines of every kept fix as a pyramid of count tiles (`RoquaTiles`),
/// kept in `map_tiles` beside the fixes and updated in the same transaction — an import adds its
/// new fixes, a rebuild or a forget counts every fix again — so any tile of a decade of fixes is
/// one to nine rows away.
package struct MapTileKeeper {
    private let db: Database
    /// Fixes less accurate than this (decimetres) are left out, as the regions leave them.
    private let accuracyLimit: Double
    /// Work not yet handed to the counting thread, in order.
    private var pending: [TileCounting.Step] = []
    private var pendingFixes: [TileFix] = []
    /// Fixes in `pending` and `pendingFixes`: handed over past `handOver`, however many sources
    /// they come from (a rebuild of ten thousand small files must not gather them all here).
    private var pendingCount = 0
    /// The accumulator until the first hand-over; from then on the thread holds it.
    private var accumulator: TileAccumulator?
    private var counting: TileCounting?
    /// Where a big import's evicted counts wait for the end (`MapTileSpill`): the store's directory.
    private let spillDirectory: String
    /// The counts of an import counted here, in line, waiting for `finish`.
    private var counted: TileCounting.Counted?
    private var closed = false

    /// The top zoom counted: heat to z16 (about 2.4 m a pixel at the equator), lines to z15.
    static let heatZoom = 16
    /// Fixes handed to the counting thread at once: an import of fewer is counted in line.
    static let handOver = 16_384

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

    static let upsert =
        "INSERT INTO map_tiles (z, x, y, kind, counts) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO UPDATE SET counts = excluded.counts"

    /// The stored counts of tile `key`, nil where nothing was recorded.
    static func blob(_ key: TileKey, _ db: Database) throws -> [UInt8]? {
        let read = try db.cachedStatement(sql: "SELECT counts FROM map_tiles WHERE z = ? AND x = ? AND y = ? AND kind = ?")
        return try Data.fetchOne(read, arguments: [key.z, key.x, key.y, key.kind.rawValue]).map { [UInt8]($0) }
    }

    /// - Parameters:
    ///   - maxAccuracy: metres; fixes less accurate count nowhere.
    ///   - memory: bytes of counts held before the least recently touched tiles are spilled.
    init(maxAccuracy: Double, _ db: Database, memory: Int = 24 << 20) {
        self.db = db
        accuracyLimit = maxAccuracy * 10
        accumulator = TileAccumulator(zooms: 0...Self.heatZoom, flushThresholdBytes: memory)
        let file = String(cString: sqlite3_db_filename(db.sqliteConnection, "main"))
        spillDirectory = file.isEmpty ? NSTemporaryDirectory() : (file as NSString).deletingLastPathComponent
    }

    /// Adds fixes of source `source` (any number unique in this import), in time order.
    mutating func add(source: Int64, _ fixes: [KeptFix]) throws {
        let limit = accuracyLimit
        for fix in fixes where Double(fix.accuracy) <= limit {
            pendingFixes.append(TileFix(source: source, time: fix.time, lat: fix.latitude, lon: fix.longitude))
            pendingCount += 1
        }
        if pendingCount >= Self.handOver { try handOver() }
    }

    /// Goes on drawing `source`'s line from `fix`, counted by an earlier import (a phone's post).
    mutating func resume(source: Int64, after fix: KeptFix) {
        queue(.resume(source, TileFix(source: source, time: fix.time, lat: fix.latitude, lon: fix.longitude)))
    }

    /// The source is over: its next fix starts a new line.
    mutating func endSource(_ source: Int64) { queue(.end(source)) }

    /// Starts counting what is left, so that the caller's other work overlaps it; `finish` then
    /// writes it. Nothing may be added after.
    mutating func close() throws {
        guard !closed else { return }
        queue(.flushAll)
        try handOver()
        closed = true
    }

    /// Writes what was counted: each row touched, in key order, as one compressed segment of its
    /// old counts and the new.
    mutating func finish() throws {
        try close()
        guard let counted = try counting?.drain() ?? counted else { return }
        let write = try RowWriter(db, sql: Self.upsert)
        // A first import (the biggest) finds no stored rows: not looked for a million times.
        let anyStored = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM map_tiles)") ?? true
        try counted.forEachBatch(64) { batch in
            let stored = try anyStored ? batch.map { try Self.blob($0.key, db) } : []
            var results = batch.map { Result<[UInt8], TileBlobError>.success($0.blob) }
            if stored.contains(where: { $0 != nil }) {
                results.withUnsafeMutableBufferPointer { buffer in
                    nonisolated(unsafe) let out = buffer  // each row's own index
                    // On every core: an import over a big stored map rewrites most of its rows.
                    DispatchQueue.concurrentPerform(iterations: batch.count) { i in
                        guard let old = stored[i] else { return }
                        out[i] = Result { () throws(TileBlobError) in try TileRaster.merge(old, batch[i].blob) }
                    }
                }
            }
            for (tile, result) in zip(batch, results) {
                let blob = try result.mapError { DamagedMapTile(key: tile.key, problem: $0) }.get()
                try write.write { values in
                    values.add(Int64(tile.key.z))
                    values.add(Int64(tile.key.x))
                    values.add(Int64(tile.key.y))
                    values.add(Int64(tile.key.kind.rawValue))
                    values.add(blob)
                }
            }
        }
    }

    private mutating func queue(_ step: TileCounting.Step) {
        if !pendingFixes.isEmpty {
            pending.append(.fixes(pendingFixes))
            pendingFixes = []
        }
        pending.append(step)
    }

    /// Hands the pending work over: to the counting thread once an import is big enough to
    /// gain from it, else counted here.
    private mutating func handOver() throws {
        if !pendingFixes.isEmpty {
            pending.append(.fixes(pendingFixes))
            pendingFixes = []
            pendingFixes.reserveCapacity(Self.handOver)
        }
        let steps = pending
        pending = []
        pendingCount = 0
        if counting == nil, var accumulator, steps.contains(where: \.isFlushAll) {
            self.accumulator = nil
            var spill: MapTileSpill?
            counted = try TileCounting.run(steps, &accumulator, spill: &spill, in: spillDirectory)
            return
        }
        if counting == nil, let accumulator {
            counting = TileCounting(accumulator, spillingIn: spillDirectory)
            self.accumulator = nil
        }
        try counting?.submit(steps)
    }
}

/// A stored tile of the lifetime map that cannot be read: it names the tile and what is wrong.
package struct DamagedMapTile: Error, Sendable, CustomStringConvertible {
    let key: TileKey
    let problem: TileBlobError

    package var description: String {
        "the lifetime map's \(key.kind == .heat ? "heat" : "lines") tile \(key.z)/\(key.x)/\(key.y) is damaged "
            + "(\(problem)); `roqua rebuild` counts the map again"
    }
}

/// Counts tiles on a thread of its own, so that a big import's map costs the importing thread
/// only the writes at its end: the steps are counted in the order handed over, exactly as in
/// line; what the accumulator evicts meanwhile goes to a `MapTileSpill`. The thread ends when
/// this is released, stopping at its next step and waited for.
final class TileCounting {
    enum Step {
        case fixes([TileFix])
        case resume(Int64, TileFix)
        case end(Int64)
        case flushAll

        var isFlushAll: Bool { if case .flushAll = self { true } else { false } }
    }

    /// Hand-overs queued at most: the importing thread waits beyond, so memory stays bounded
    /// (3 MB). The counting thread stops for 50–150 ms when it evicts tiles; with two hand-overs
    /// queued the importing thread waited 3.2 s of a ten-year import for it, with eight 1.8 s.
    static let depth = 8

    private let channel = Channel()

    init(_ accumulator: TileAccumulator, spillingIn directory: String) {
        let box = AccumulatorBox(accumulator)
        let channel = channel
        channel.start("roqua-map-tiles") { channel.count(box, spillingIn: directory) }
    }

    deinit { channel.cancel() }

    /// An import's counts at its end: each tile touched, in key order, with its new counts
    /// encoded as a row of its own stores them.
    enum Counted {
        case inMemory([(key: TileKey, blob: [UInt8])])
        /// The spill's last run (`MapTileSpill.finish`).
        case spilled(MapTileSpill)

        func forEachBatch(_ count: Int, _ body: ([(key: TileKey, blob: [UInt8])]) throws -> Void) throws {
            switch self {
            case let .inMemory(tiles):
                for start in stride(from: 0, to: tiles.count, by: count) { try body(Array(tiles[start..<min(tiles.count, start + count)])) }
            case let .spilled(spill): try spill.forEachBatch(count, body)
            }
        }
    }

    /// Counts `steps` into `accumulator`; past its memory, the least recently touched tiles go
    /// to `spill` (made in `directory` when first needed). Returns the counts at `.flushAll`.
    static func run(
        _ steps: [Step], _ accumulator: inout TileAccumulator, spill: inout MapTileSpill?, in directory: String
    ) throws -> Counted? {
        for step in steps {
            switch step {
            case let .fixes(fixes):
                accumulator.add(fixes)
                if accumulator.needsFlush {
                    if spill == nil { spill = try MapTileSpill(directory: directory) }
                    try spill?.append(accumulator.flushCold())
                }
            case let .resume(source, fix): accumulator.resume(source: source, after: (fix.time, fix.lat, fix.lon))
            case let .end(source): accumulator.endSource(source)
            case .flushAll:
                guard let spill else { return .inMemory(encoded(accumulator.flush())) }
                try accumulator.flush { try spill.append($0) }
                try spill.finish()
                return .spilled(spill)
            }
        }
        return nil
    }

    /// Each tile's counts encoded as a row's blob, in key order, on every core: compressing the
    /// final flush was the last thing a big import waited for (0.3 s of the 2 M-fix walk on one core).
    static func encoded(_ deltas: [TileKey: TileDelta]) -> [(key: TileKey, blob: [UInt8])] {
        let keys = deltas.keys.sorted()
        var blobs = [[UInt8]](repeating: [], count: keys.count)
        let parts = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), max(keys.count / 64, 1))
        blobs.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // parts write disjoint indices
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for i in stride(from: part, to: keys.count, by: parts) { out[i] = TileRaster.encode(deltas[keys[i]] ?? TileDelta()) }
            }
        }
        return Array(zip(keys, blobs))
    }

    /// Queues steps, waiting while `depth` hand-overs are queued.
    /// - Throws: what stopped the counting (the spill could not be written).
    func submit(_ steps: [Step]) throws { try channel.submit(steps) }
    /// Waits for the final flush and returns the counts.
    func drain() throws -> Counted? { try channel.drain() }

    /// The accumulator, handed to the counting thread (which alone uses it from then on).
    private final class AccumulatorBox: @unchecked Sendable {
        var accumulator: TileAccumulator
        var spill: MapTileSpill?
        init(_ accumulator: TileAccumulator) { self.accumulator = accumulator }
    }

    /// What the two threads share, all of it guarded by `condition`.
    private final class Channel: WorkerChannel, @unchecked Sendable {
        private var queue: [[Step]] = []
        private var counted: Counted?
        private var failure: (any Error)?
        private var flushed = false

        func submit(_ steps: [Step]) throws {
            condition.lock()
            defer { condition.unlock() }
            while queue.count >= TileCounting.depth && failure == nil { condition.wait() }
            if let failure { throw failure }
            queue.append(steps)
            condition.broadcast()
        }

        func drain() throws -> Counted? {
            condition.lock()
            defer { condition.unlock() }
            while !flushed { condition.wait() }
            if let failure { throw failure }
            return counted
        }

        /// The counting thread: counts each hand-over in turn until the final flush (nothing
        /// comes after it: the accumulator's memory goes with the thread), a failure, or until
        /// cancelled.
        func count(_ box: AccumulatorBox, spillingIn directory: String) {
            // The spill file's disk is given back before the owner learns that the thread has
            // ended (the thread's closure outlives this call): an import stopped by a full disk
            // then leaves SQLite the room to close the store and remove its WAL.
            defer {
                box.spill?.settle()
                box.spill = nil
            }
            condition.lock()
            defer { condition.unlock() }
            while true {
                while queue.isEmpty && !cancelled { condition.wait() }
                if cancelled { return }
                let steps = queue.removeFirst()
                condition.broadcast()
                condition.unlock()
                let result = Result { try TileCounting.run(steps, &box.accumulator, spill: &box.spill, in: directory) }
                condition.lock()
                switch result {
                case let .success(counted): self.counted = counted
                case let .failure(error): failure = error
                }
                flushed = flushed || steps.contains(where: \.isFlushAll) || failure != nil
                condition.broadcast()
                if flushed { return }
            }
        }

        override func dropQueued() { queue.removeAll() }
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
