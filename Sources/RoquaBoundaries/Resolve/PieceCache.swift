import Foundation
import GRDB

/// One worker's prepared pieces for the GEOS path, built lazily from WKB on first use and kept
/// in a cache bounded by vertex count (a prepared vertex costs ~40 bytes), so memory stays flat
/// however many points pass through.
final class PieceCache {
    private let context: GEOSContext
    private let pieces: PieceTable
    private let queue: DatabaseQueue
    private let vertexBudget: Int
    private var vertices = 0
    private var prepared: [Int32: PreparedGeometry] = [:]
    private var order: [Int32] = []
    private(set) var misses = 0

    init(context: GEOSContext, path: String, pieces: PieceTable, vertexBudget: Int) throws {
        self.context = context
        self.pieces = pieces
        self.vertexBudget = max(vertexBudget, 10_000)
        var config = Configuration()
        config.readonly = true
        // The boundary DB is never written in place (imports rename a new file over it), so this
        // connection takes its shared lock once and keeps it: no fcntl per piece fetched.
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA locking_mode = EXCLUSIVE") }
        queue = try DatabaseQueue(path: path, configuration: config)
    }

    func piece(_ piece: Int32) throws -> PreparedGeometry {
        if let hit = prepared[piece] { return hit }
        misses += 1
        let id = pieces.pieceIDs[Int(piece)]
        let wkb = try queue.inDatabase { db in
            try Data.fetchOne(db.cachedStatement(sql: "SELECT geometry FROM pieces WHERE id = ?"), arguments: [id])
        }
        guard let wkb else { throw ResolveError.geometry("piece \(id) has no geometry") }
        let geometry = try context.geometry(wkb: wkb).prepared()
        let size = Int(pieces.pieceVertices[Int(piece)])
        if vertices + size > vertexBudget { evictOldest() }
        prepared[piece] = geometry
        order.append(piece)
        vertices += size
        return geometry
    }

    /// Drops the oldest quarter: cheap, and a track's current neighbourhood stays cached.
    private func evictOldest() {
        let drop = max(order.count / 4, 1)
        for piece in order.prefix(drop) {
            prepared[piece] = nil
            vertices -= Int(pieces.pieceVertices[Int(piece)])
        }
        order.removeFirst(min(drop, order.count))
    }
}
