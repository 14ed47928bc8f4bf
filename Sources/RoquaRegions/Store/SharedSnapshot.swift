import Dispatch
import Foundation
import GRDB
import GRDBSQLite
import Synchronization

extension RegionStore {
    /// Runs `first` and `second` at once, each in a read transaction on its own handle of the same
    /// store, on one snapshot: `lock`, a writable handle, holds the write lock until both
    /// transactions have begun reading, so no commit can fall between them (two cores read a
    /// million regions in halves). nil, having run neither, when the lock cannot be had at once (a
    /// writer is at work) or `lock` is read-only: the caller then reads alone.
    /// The three handles must be distinct (each has its own connection).
    /// - Throws: what either body throws (the first's first); `RegionStoreError` when a handle cannot read.
    package static func readTogether<A: Sendable, B: Sendable>(
        _ first: RegionStore, _ second: RegionStore, lock: RegionStore,
        _ a: @escaping @Sendable (Database) throws -> A, _ b: @escaping @Sendable (Database) throws -> B
    ) throws -> (A, B)? {
        let begun = DispatchSemaphore(value: 0)
        let group = DispatchGroup()
        let resultA = Mutex<Result<A, any Error>?>(nil), resultB = Mutex<Result<B, any Error>?>(nil)
        let locked: Bool
        do {
            locked = try lock.queue.writeWithoutTransaction { db -> Bool in
                guard !db.configuration.readonly else { return false }
                sqlite3_busy_timeout(db.sqliteConnection, 0)
                defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(RegionStore.busyTimeout * 1000)) }
                // A writer at work (busy), or a store that cannot be written after all: read alone.
                do { try db.execute(sql: "BEGIN IMMEDIATE") } catch { return false }
                // Queues of their own, each with a thread of its own: the global queue runs no more
                // blocks at once than there are cores, so with other work on it (`stats` reads its
                // travel facts beside) the second half waited for a thread — 0.15–0.2 s at a
                // million regions — while the write lock was held for it to begin.
                DispatchQueue(label: "roqua.read-together.first").async(group: group) {
                    resultA.withLock { $0 = Result { try first.readBegun(signal: begun, a) } }
                }
                DispatchQueue(label: "roqua.read-together.second").async(group: group) {
                    resultB.withLock { $0 = Result { try second.readBegun(signal: begun, b) } }
                }
                begun.wait()
                begun.wait()
                try db.execute(sql: "ROLLBACK")
                return true
            }
        } catch {
            group.wait()  // the reads begun, if any, end before the error is told
            throw RegionStoreError.from(error, path: lock.path, writing: true)
        }
        guard locked else { return nil }
        group.wait()
        return (try resultA.withLock { try $0!.get() }, try resultB.withLock { try $0!.get() })
    }

    /// The facts of every readable region, the ids cut in two halves read at once on one snapshot
    /// (`readTogether`), each half tallied into its own value from `start(expected count)`; the
    /// unreadable rows of both reported together. nil, having read nothing, when the ids span
    /// fewer than `minimumIDs` or a writer is at work.
    package func tallyFactsInHalves<T: Sendable>(
        second: RegionStore, lock: RegionStore, minimumIDs: Int64,
        start: @escaping @Sendable (Int) -> T,
        add: @escaping @Sendable (inout T, RegionFacts) -> Void
    ) throws -> (T, T)? {
        guard let ids = try idRange(), ids.upperBound - ids.lowerBound >= minimumIDs else { return nil }
        let middle = ids.lowerBound + (ids.upperBound - ids.lowerBound) / 2
        @Sendable func half(_ range: ClosedRange<Int64>) -> @Sendable (Database) throws -> (T, [UnreadableRegion]) {
            { db in
                var value = start(Int(range.upperBound - range.lowerBound + 1))
                let unreadable = try Self.eachRegionFacts(db, ids: range) { add(&value, $0) }
                return (value, unreadable)
            }
        }
        guard
            let (first, later) = try Self.readTogether(
                self, second, lock: lock, half(ids.lowerBound...middle),
                half((middle + 1)...ids.upperBound))
        else { return nil }
        report(unreadable: first.1 + later.1)
        return (first.0, later.0)
    }

    /// `read(body)`, signalling `begun` once the transaction has its snapshot (or has failed).
    private func readBegun<T>(signal begun: DispatchSemaphore, _ body: (Database) throws -> T) throws -> T {
        var signalled = false
        defer { if !signalled { begun.signal() } }
        return try read { db in
            _ = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master")  // the snapshot is taken here
            begun.signal()
            signalled = true
            return try body(db)
        }
    }
}
