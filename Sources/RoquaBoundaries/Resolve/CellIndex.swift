import Foundation
import GRDB
import Synchronization

/// The precomputed cells of a boundary DB, shared by every resolver thread. The 1° grid is read
/// at open (260 KB); a tile's quadtree is read from the DB the first time any thread needs it
/// and kept for the life of the index. Readers take a published tile with one atomic load and
/// no lock and no reference counting, so workers never contend. A first read takes no lock
/// either: each thread reads with its own connection (`TileReader`) and publishes the tile with
/// a compare-and-exchange; when two threads read the same tile at once, the loser frees its copy.
package final class CellIndex: @unchecked Sendable {
    // @unchecked: `grid` is written only in `init`; each `slots` entry goes once from 0 to a
    // pointer to an immutable `CellTile` (a compare-and-exchange with release ordering after the
    // tile is built, an acquire load before it is read), and only `deinit` frees what they hold.
    package let fallbackMeters: Double
    package let unitCount: Int
    let grid: UnsafeMutablePointer<UInt32>
    private let slots: UnsafeMutablePointer<Atomic<Int>>
    private let slotCount: Int
    private let database: BoundaryDatabase
    /// A loaded tile is one allocation: its `CellTile` (padded to a cache line), then the blob.
    /// The quadtree's nodes are at a fixed offset from it, so the lookup reaches the root
    /// without first reading the `CellTile`.
    static let headerBytes = (MemoryLayout<CellTile>.stride + 63) & ~63
    package static let nodesOffset = headerBytes + 24

    /// - Throws: `BoundaryDatabaseError` when the DB has no cell index or it is damaged.
    package init(database: BoundaryDatabase, unitCount: Int) throws {
        self.database = database
        self.unitCount = unitCount
        let row = try database.read { db in
            try Row.fetchOne(
                db, sql: "SELECT format, fallback_meters, unit_count, grid, (SELECT MAX(id) FROM cell_tiles) AS tiles FROM cell_index")
        }
        let cells = CellFormat.tileColumns * CellFormat.tileRows
        guard let row, let format: Int = row["format"], let meters: Double = row["fallback_meters"],
            let units: Int = row["unit_count"], let blob: Data = row["grid"]
        else {
            throw BoundaryDatabaseError.notABoundaryDatabase(path: database.path, reason: "no cell index; rebuild it with `roqua import`")
        }
        guard format == CellFormat.version, units == unitCount, blob.count == 4 * cells, meters >= 0 else {
            throw BoundaryDatabaseError.notABoundaryDatabase(
                path: database.path, reason: "the cell index does not match this Roqua (format \(format)); rebuild it with `roqua import`")
        }
        fallbackMeters = meters
        let slotCount = (row["tiles"] as Int?).map { $0 + 1 } ?? 0
        self.slotCount = slotCount
        let grid = UnsafeMutablePointer<UInt32>.allocate(capacity: cells)
        blob.withUnsafeBytes { raw in
            for i in 0..<cells { grid[i] = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * i, as: UInt32.self)) }
        }
        self.grid = grid
        slots = .allocate(capacity: max(slotCount, 1))
        for i in 0..<max(slotCount, 1) { (slots + i).initialize(to: Atomic(0)) }
        for i in 0..<cells where grid[i] & CellFormat.leafFlag == 0 {
            guard Int(grid[i]) < slotCount else {
                throw BoundaryDatabaseError.notABoundaryDatabase(path: database.path, reason: "cell index grid names a missing tile")
            }
        }
        for i in 0..<cells where grid[i] & CellFormat.answerFlag != 0 && grid[i] & CellFormat.leafFlag != 0 {
            guard Int(grid[i] & ~(CellFormat.leafFlag | CellFormat.answerFlag)) < unitCount else {
                throw BoundaryDatabaseError.notABoundaryDatabase(path: database.path, reason: "cell index grid names a missing unit")
            }
        }
    }

    deinit {
        for i in 0..<max(slotCount, 1) {
            // Each slot holds the one copy of its tile that won; `CellTile` holds no references.
            let bits = slots[i].load(ordering: .acquiring)
            if bits != 0 { UnsafeMutableRawPointer(bitPattern: bits)?.deallocate() }
        }
        grid.deallocate()
        slots.deallocate()
    }

    /// The tile `id` (a grid value without the leaf flag), read from the DB on first use with
    /// the calling thread's `reader`.
    /// - Throws: `BoundaryDatabaseError` when the tile is missing or damaged, or the DB's error.
    @inline(__always)
    package func tile(_ id: Int, reader: inout TileReader?) throws -> UnsafePointer<CellTile> {
        let bits = slots[id].load(ordering: .acquiring)
        if bits != 0, let pointer = UnsafePointer<CellTile>(bitPattern: bits) { return pointer }
        return try load(id, reader: &reader)
    }

    /// One thread's connection for reading tiles: read-only, holding its shared lock for good
    /// (the DB is replaced, never written in place), so a tile costs one prepared statement
    /// step, not a transaction.
    package final class TileReader {
        let queue: DatabaseQueue

        init(path: String) throws {
            var config = Configuration()
            config.readonly = true
            config.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
            queue = try DatabaseQueue(path: path, configuration: config)
        }
    }

    /// Reads tile `id` and publishes it, unless another thread published it first.
    private func load(_ id: Int, reader: inout TileReader?) throws -> UnsafePointer<CellTile> {
        let connection = try reader ?? TileReader(path: database.path)
        reader = connection
        let base = try connection.queue.inDatabase { db -> UnsafeMutableRawPointer? in
            let rows = try Row.fetchCursor(db.cachedStatement(sql: "SELECT data FROM cell_tiles WHERE id = ?"), arguments: [id])
            guard let row = try rows.next() else { return nil }
            return try row.withUnsafeData(atIndex: 0) { data -> UnsafeMutableRawPointer? in
                guard let data, data.count >= 24 else { return nil }
                let base = UnsafeMutableRawPointer.allocate(byteCount: Self.headerBytes + data.count, alignment: 64)
                let blob = base + Self.headerBytes
                data.withUnsafeBytes { blob.copyMemory(from: $0.baseAddress!, byteCount: data.count) }
                guard let view = CellTile(blob: blob, size: data.count, unitCount: unitCount) else {
                    base.deallocate()
                    throw damaged("cell tile \(id) is damaged")
                }
                base.initializeMemory(as: CellTile.self, to: view)
                return base
            }
        }
        guard let base else { throw damaged("cell tile \(id) is missing") }
        let (won, current) = slots[id].compareExchange(
            expected: 0, desired: Int(bitPattern: base),
            successOrdering: .releasing, failureOrdering: .acquiring)
        if !won { base.deallocate() }
        guard let pointer = UnsafePointer<CellTile>(bitPattern: won ? Int(bitPattern: base) : current) else {
            throw damaged("cell tile \(id) is missing")
        }
        return pointer
    }

    private func damaged(_ reason: String) -> BoundaryDatabaseError {
        .notABoundaryDatabase(path: database.path, reason: reason + "; rebuild it with `roqua import`")
    }
}
