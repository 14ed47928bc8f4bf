import Foundation
import GRDB

/// Where figures computed from every region (the explored area, the world share: over a second
/// at a million regions) are remembered with the fingerprint of what they were computed from,
/// so the next reader of the same regions takes them instead of computing them again.
public protocol FigureMemory: AnyObject {
    /// The value remembered for `name`, if it was computed from what `fingerprint` names.
    func figure(_ name: String, fingerprint: String) -> Double?
    /// Remembers `value` for `name` (replacing any other); best effort: a store that cannot be
    /// written (read-only media, a read transaction) just does not remember.
    func remember(_ name: String, fingerprint: String, value: Double)
}

/// The store's `explored_figures` table as a `FigureMemory`: one value per name, the latest.
/// A figure is only taken when its fingerprint equals the asker's, so a stale one is never used.
public final class StoredFigures: FigureMemory {
    private enum Access {
        case store(RegionStore)
        case transaction(Database)
    }

    private let access: Access

    /// Reads and writes in transactions of its own: not for use inside one of the store's.
    public init(store: RegionStore) { access = .store(store) }

    /// Inside an open transaction (an import's, the achievement board's).
    package init(_ db: Database) { access = .transaction(db) }

    public func figure(_ name: String, fingerprint: String) -> Double? {
        let read = { (db: Database) throws -> Double? in
            try Double.fetchOne(
                db, sql: "SELECT value FROM explored_figures WHERE name = ? AND fingerprint = ?",
                arguments: [name, fingerprint])
        }
        // A store too old for the table (opened read-only, not migrated) remembers nothing.
        switch access {
        case let .store(store): return (try? store.read(read)) ?? nil
        case let .transaction(db): return (try? read(db)) ?? nil
        }
    }

    public func remember(_ name: String, fingerprint: String, value: Double) {
        guard value.isFinite else { return }
        let write = { (db: Database) throws in
            try db.execute(
                sql: "INSERT OR REPLACE INTO explored_figures (name, fingerprint, value) VALUES (?, ?, ?)",
                arguments: [name, fingerprint, value])
        }
        switch access {
        case let .store(store): try? store.write(write)
        case let .transaction(db):
            // A savepoint, so a failure (a read-only transaction) leaves the caller's transaction as it was.
            try? db.inSavepoint {
                try write(db)
                return .commit
            }
        }
    }
}
