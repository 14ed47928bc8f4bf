import Foundation
import GRDB

/// A stored row that cannot be read back as a region (a time that does not parse, a value of
/// the wrong type): written by an older Roqua or by hand. It is skipped by every reader, so one
/// bad row never makes the store unusable, and `roqua regions repair` removes it.
public struct UnreadableRegion: Error, Sendable, Equatable, CustomStringConvertible {
    /// The row id (-1 when even that cannot be read).
    public var id: Int64
    /// Why the row cannot be read, naming the column.
    public var problem: String
    /// `region ID: PROBLEM`.
    public var description: String { "region \(id): \(problem)" }
}

extension RegionStore {
    /// Rows of `visited_regions` that cannot be read back, in id order.
    /// - Throws: `RegionStoreError.cannotOpen` when the store cannot be read.
    public func unreadableRegions() throws -> [UnreadableRegion] {
        try read { db in try Self.regions(db).unreadable }
    }

    /// Deletes the unreadable rows in one transaction; returns what was removed.
    /// - Throws: `RegionStoreError.cannotWrite` when the transaction fails.
    @discardableResult
    public func removeUnreadableRegions() throws -> [UnreadableRegion] {
        try write { db in
            let bad = try Self.regions(db).unreadable
            for row in bad { try db.execute(sql: "DELETE FROM visited_regions WHERE id = ?", arguments: [row.id]) }
            try PlaceTable.dropUnused(db)
            return bad
        }
    }
}
