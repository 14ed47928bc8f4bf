import Foundation
import GRDB
import RoquaIO
import RoquaTestSupport
import RoquaTiles
import Testing

@testable import RoquaRegions

/// A big import's map counts spilled to a private file before its end (`MapTileSpill`): the rows
/// they make are the very rows the counts kept in memory make, over an empty map and over a stored
/// one; nothing is left beside the store; a spill that cannot be made stops the import, naming
/// it, and the stored map is as it was.
@Suite struct MapTileSpillTests {
    /// Twenty towns far apart, 2,500 fixes walked in each, 15 s apart: 50,000 fixes, more than
    /// one hand-over (so the counting thread counts them) and a few thousand tiles.
    static func towns(seed: UInt64, from start: Int64) -> [KeptFix] {
        var random = SeededGenerator(state: seed)
        var fixes: [KeptFix] = []
        var time = start
        for _ in 0..<20 {
            var latitude = Double.random(in: -60...60, using: &random)
            var longitude = Double.random(in: -170...170, using: &random)
            for _ in 0..<2_500 {
                latitude += Double.random(in: -0.002...0.002, using: &random)
                longitude += Double.random(in: -0.002...0.002, using: &random)
                time += 15_000
                fixes.append(
                    KeptFix(
                        time: time, latitude: Int32((latitude * 1e7).rounded()), longitude: Int32((longitude * 1e7).rounded()), accuracy: 50
                    ))
            }
        }
        return fixes
    }

    /// A store of nothing but the map, in `directory`, its log kept in a WAL as the store's is.
    static func mapStore(in directory: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: (directory as NSString).appendingPathComponent("map.sqlite"))
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        try queue.write { try MapTileKeeper.createTable($0) }
        return queue
    }

    /// Counts `fixes` into the map in one transaction, holding `memory` bytes of counts at most.
    static func count(_ fixes: [KeptFix], into queue: DatabaseQueue, memory: Int) throws {
        try queue.write { db in
            var keeper = MapTileKeeper(maxAccuracy: 100, db, memory: memory)
            try keeper.add(source: 0, fixes)
            try keeper.finish()
        }
    }

    static func rows(_ queue: DatabaseQueue) throws -> [[DatabaseValue]] {
        try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT z, x, y, kind, counts FROM map_tiles ORDER BY z, x, y, kind").map { Array($0.databaseValues) }
        }
    }

    @Test func spilledCountsMakeTheRowsCountsInMemoryMake() throws {
        let spilled = try TempDirectory(), kept = try TempDirectory()
        let small = try Self.mapStore(in: spilled.path), big = try Self.mapStore(in: kept.path)
        // Two imports: the second adds to rows the first stored.
        for (seed, start) in [(UInt64(1), Int64(1_600_000_000_000)), (2, 1_700_000_000_000)] {
            let fixes = Self.towns(seed: seed, from: start)
            try Self.count(fixes, into: small, memory: 1 << 18)
            try Self.count(fixes, into: big, memory: 24 << 20)
            let rows = try Self.rows(big)
            #expect(rows.count > 2_000)
            #expect(try Self.rows(small) == rows)
        }
        #expect(try spilled.contents().filter { !$0.hasPrefix("map.sqlite") }.isEmpty)
    }

    @Test func aSpillThatCannotBeMadeStopsTheImportNamingIt() throws {
        let parent = try TempDirectory()
        let directory = try parent.subdirectory("store")
        let queue = try Self.mapStore(in: directory)
        try Self.count(Self.towns(seed: 3, from: 1_600_000_000_000), into: queue, memory: 24 << 20)
        let before = try Self.rows(queue)
        // The store's directory gone: the spill has nowhere to be made (as on a full disk).
        try FileManager.default.removeItem(atPath: directory)
        #expect {
            try Self.count(Self.towns(seed: 4, from: 1_700_000_000_000), into: queue, memory: 1 << 18)
        } throws: { error in
            guard let error = error as? OutputError else { return false }
            return error.path.hasPrefix(directory + "/.roqua-map-spill-")
                && error.reason == "No such file or directory (the file where a big import's map counts wait for its end)"
        }
        #expect(try Self.rows(queue) == before)
        // With the memory to keep every count, the same import needs no spill.
        try Self.count(Self.towns(seed: 4, from: 1_700_000_000_000), into: queue, memory: 24 << 20)
        #expect(try Self.rows(queue).count > before.count)
    }

    /// The spill alone: runs of overlapping tiles sum to each tile's total, in key order, encoded
    /// as a row stores it.
    @Test func runsSumTileByTile() throws {
        let directory = try TempDirectory()
        let spill = try MapTileSpill(directory: directory.path)
        #expect(try directory.contents().isEmpty)  // unlinked at once
        var random = SeededGenerator(state: 9)
        var totals: [TileKey: [UInt16: UInt32]] = [:]
        func delta(_ key: TileKey) -> TileDelta {
            var counts: [UInt16: UInt32] = [:]
            for _ in 0..<Int.random(in: 1...300, using: &random) {
                counts[UInt16.random(in: 0...UInt16.max, using: &random), default: 0] += 1
            }
            for (pixel, count) in counts { totals[key, default: [:]][pixel, default: 0] += count }
            let pixels = counts.keys.sorted()
            return TileDelta(pixels: pixels, counts: pixels.map { counts[$0]! })
        }
        let keys = (0..<600).map { TileKey(z: 16, x: 38_000 + $0 % 40, y: 24_000 + $0 / 40, kind: $0 % 3 == 0 ? .lines : .heat) }
        for _ in 0..<5 {
            var tiles: [TileKey: TileDelta] = [:]
            for key in keys where Int.random(in: 0..<3, using: &random) == 0 { tiles[key] = delta(key) }
            try spill.append(tiles)
        }
        try spill.finish()
        var read: [(key: TileKey, blob: [UInt8])] = []
        try spill.forEachBatch(64) { read += $0 }
        #expect(read.count == totals.count)
        #expect(zip(read, totals.keys.sorted()).allSatisfy { $0.0.key == $0.1 })
        let wrong = read.filter { key, blob in
            let pixels = totals[key]?.keys.sorted() ?? []
            return blob != TileRaster.encode(TileDelta(pixels: pixels, counts: pixels.map { totals[key]![$0]! }))
        }
        #expect(wrong.map(\.key) == [])
    }

    /// Runs are written behind the counting thread's back: one that cannot be written (here to
    /// /dev/full, as a full disk) is the error of the next append and of `finish`, naming the
    /// file and what it is for, so the import stops rather than sum what it lacks.
    @Test func aRunThatCannotBeWrittenIsTheNextCallsError() throws {
        let descriptor = open("/dev/full", O_RDWR)
        try #require(descriptor >= 0)
        let spill = MapTileSpill(descriptor: descriptor, path: "/dev/full")
        let tiles = [TileKey(z: 16, x: 38_000, y: 24_000, kind: .heat): TileDelta(pixels: [1, 2], counts: [3, 4])]
        try spill.append(tiles)  // queued: its write fails on the spill's queue
        let finished = #expect(throws: OutputError.self) { try spill.finish() }
        #expect(finished?.description.contains("/dev/full") == true)
        #expect(finished?.description.contains("No space left on device") == true)
        #expect(finished?.description.contains("the file where a big import's map counts wait for its end") == true)
        #expect(throws: OutputError.self) { try spill.append(tiles) }
    }
}
