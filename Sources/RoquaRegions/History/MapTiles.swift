import Foundation
import GRDB
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
    private var touched: Set<TileKey> = []
    /// Work not yet handed to the counting thread, in order.
    private var pending: [TileCounting.Step] = []
    private var pendingFixes: [TileFix] = []
    /// Fixes in `pending` and `pendingFixes`: handed over past `handOver`, however many sources
    /// they come from (a rebuild of ten thousand small files must not gather them all here).
    private var pendingCount = 0
    /// The accumulator until the first hand-over; from then on the thread holds it.
    private var accumulator: TileAccumulator? = TileAccumulator(zooms: 0...Self.heatZoom, flushThresholdBytes: 24 << 20)
    private var counting: TileCounting?
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

    /// Binds a row of `upsert`.
    private static func add(_ key: TileKey, _ blob: [UInt8], _ values: inout RowWriter.Values) {
        values.add(Int64(key.z))
        values.add(Int64(key.x))
        values.add(Int64(key.y))
        values.add(Int64(key.kind.rawValue))
        values.add(blob)
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

    /// Writes what is gathered, each row touched rewritten as one piece.
    mutating func finish() throws {
        try close()
        if let counting {
            for evicted in counting.drain() { try merge(evicted) }
        }
        // Rows merged before the final flush and not since: one compressed segment each.
        try rewrite(touched.sorted()) { _, blob throws(TileBlobError) in
            guard let blob else { return nil }
            let canonical = TileRaster.encode(try TileRaster.decode(blob))
            return canonical == blob ? nil : canonical
        }
        touched.removeAll()
    }

    /// Rows read and written here in key order (the table's order, so each page is visited once),
    /// `batch` at a time; `rewrite` — the row's new blob from its stored one (nil: none), nil to
    /// leave it — run on every core in between.
    private func rewrite(
        _ keys: [TileKey], batch: Int = 64,
        _ rewrite: (TileKey, [UInt8]?) throws(TileBlobError) -> [UInt8]?
    ) throws {
        let write = try RowWriter(db, sql: Self.upsert)
        for start in stride(from: 0, to: keys.count, by: batch) {
            let chunk = keys[start..<min(keys.count, start + batch)]
            let stored = try chunk.map { try Self.blob($0, db) }
            var results = [Result<[UInt8]?, TileBlobError>](repeating: .success(nil), count: chunk.count)
            results.withUnsafeMutableBufferPointer { buffer in
                nonisolated(unsafe) let out = buffer  // each row's own index
                withoutActuallyEscaping(rewrite) { rewrite in
                    nonisolated(unsafe) let rewrite = rewrite
                    // One iteration a row: this thread takes whatever the other cores, busy with
                    // the import's other threads until its end, do not get to.
                    DispatchQueue.concurrentPerform(iterations: chunk.count) { i in
                        out[i] = Result { () throws(TileBlobError) in try rewrite(chunk[chunk.startIndex + i], stored[i]) }
                    }
                }
            }
            for (key, result) in zip(chunk, results) {
                guard let blob = try result.mapError({ DamagedMapTile(key: key, problem: $0) }).get() else { continue }
                try write.write { values in Self.add(key, blob, &values) }
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
    /// gain from it, else counted here. Merges whatever the counting has evicted meanwhile.
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
            for evicted in TileCounting.run(steps, &accumulator) { try merge(evicted) }
            return
        }
        if counting == nil, let accumulator {
            counting = TileCounting(accumulator)
            self.accumulator = nil
        }
        counting?.submit(steps)
        for evicted in counting?.take() ?? [] { try merge(evicted) }
    }

    /// Adds evicted counts to the stored rows, decoded, combined and encoded on every core (on
    /// the importing thread alone, merging was 15 % of its time in a ten-year import, and this
    /// and `finish`'s rewrite its last 2.4 s). Evicted before the end, a tile may come back:
    /// appended uncompressed, and compressed once by `finish`. At the final flush (blobs encoded
    /// already), a new row takes the blob the counting thread compressed, an existing one is
    /// rewritten whole.
    private mutating func merge(_ evicted: TileCounting.Evicted) throws {
        let keys = evicted.deltas.keys.sorted()
        if !evicted.encoded.isEmpty {
            try rewrite(keys) { key, existing throws(TileBlobError) in
                let delta = evicted.deltas[key] ?? TileDelta()
                guard let existing else { return evicted.encoded[key] ?? TileRaster.encode(delta) }
                return TileRaster.encode(TileRaster.combine(try TileRaster.decode(existing), delta))
            }
            touched.subtract(keys)
            return
        }
        try rewrite(keys) { key, existing throws(TileBlobError) in
            try TileRaster.merge(existing, evicted.deltas[key] ?? TileDelta(), compressAppended: false)
        }
        touched.formUnion(keys)
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
/// only the writes: the steps are counted in the order handed over, exactly as in line, and
/// what the accumulator evicts waits until the importing thread takes it (it alone holds the
/// database). The thread ends when this is released, stopping at its next step and waited for.
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

    init(_ accumulator: TileAccumulator) {
        let box = AccumulatorBox(accumulator)
        let channel = channel
        channel.start("roqua-map-tiles") { channel.count(box) }
    }

    deinit { channel.cancel() }

    /// Counts evicted from the accumulator; at the final flush, each also encoded as the blob
    /// of a new row (compressed here, off the importing thread).
    struct Evicted {
        var deltas: [TileKey: TileDelta]
        var encoded: [TileKey: [UInt8]] = [:]
    }

    /// Counts `steps` into `accumulator`, returning what it evicted (all of it at `.flushAll`).
    static func run(_ steps: [Step], _ accumulator: inout TileAccumulator) -> [Evicted] {
        var out: [Evicted] = []
        for step in steps {
            switch step {
            case let .fixes(fixes):
                accumulator.add(fixes)
                if accumulator.needsFlush { out.append(Evicted(deltas: accumulator.flushCold())) }
            case let .resume(source, fix): accumulator.resume(source: source, after: (fix.time, fix.lat, fix.lon))
            case let .end(source): accumulator.endSource(source)
            case .flushAll:
                let deltas = accumulator.flush()
                out.append(Evicted(deltas: deltas, encoded: encoded(deltas)))
            }
        }
        return out.filter { !$0.deltas.isEmpty }
    }

    /// Each delta encoded as a row's blob, on every core: compressing the final flush was the
    /// last thing a big import waited for (0.3 s of the 2 M-fix walk on one core).
    static func encoded(_ deltas: [TileKey: TileDelta]) -> [TileKey: [UInt8]] {
        let entries = Array(deltas)
        var blobs = [[UInt8]](repeating: [], count: entries.count)
        let parts = min(max(ProcessInfo.processInfo.activeProcessorCount, 1), max(entries.count / 64, 1))
        blobs.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer  // parts write disjoint indices
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for i in stride(from: part, to: entries.count, by: parts) { out[i] = TileRaster.encode(entries[i].value) }
            }
        }
        return Dictionary(uniqueKeysWithValues: zip(entries.lazy.map(\.key), blobs))
    }

    /// Queues steps, waiting while `depth` hand-overs are queued.
    func submit(_ steps: [Step]) { channel.submit(steps) }
    /// What was evicted so far, without waiting.
    func take() -> [Evicted] { channel.take(waitingForFlush: false) }
    /// Waits for the final flush and returns what is left.
    func drain() -> [Evicted] { channel.take(waitingForFlush: true) }

    /// The accumulator, handed to the counting thread (which alone uses it from then on).
    private final class AccumulatorBox: @unchecked Sendable {
        var accumulator: TileAccumulator
        init(_ accumulator: TileAccumulator) { self.accumulator = accumulator }
    }

    /// What the two threads share, all of it guarded by `condition`.
    private final class Channel: WorkerChannel, @unchecked Sendable {
        private var queue: [[Step]] = []
        private var evicted: [Evicted] = []
        private var flushed = false

        func submit(_ steps: [Step]) {
            condition.lock()
            defer { condition.unlock() }
            while queue.count >= TileCounting.depth { condition.wait() }
            queue.append(steps)
            condition.broadcast()
        }

        func take(waitingForFlush: Bool) -> [Evicted] {
            condition.lock()
            defer { condition.unlock() }
            while waitingForFlush && !flushed { condition.wait() }
            defer { evicted = [] }
            return evicted
        }

        /// The counting thread: counts each hand-over in turn until the final flush (nothing
        /// comes after it: the accumulator's memory goes with the thread) or until cancelled.
        func count(_ box: AccumulatorBox) {
            condition.lock()
            defer { condition.unlock() }
            while true {
                while queue.isEmpty && !cancelled { condition.wait() }
                if cancelled { return }
                let steps = queue.removeFirst()
                condition.broadcast()
                condition.unlock()
                let out = TileCounting.run(steps, &box.accumulator)
                condition.lock()
                evicted += out
                let last = steps.contains(where: \.isFlushAll)
                flushed = flushed || last
                condition.broadcast()
                if last { return }
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
