import Foundation
import GRDB
import RoquaBoundaries
import RoquaTimeline

/// An import's kept timeline segmented on a thread of its own from the fixes as the import keeps
/// them, when they all come after every track fix kept before (a first import; the next months
/// of a phone): nothing is read back from the store, and the import's region write and
/// achievements run meanwhile.
///
/// The thread runs `KeptTimeline.segment` as `KeptTimeline.update` runs it — from the same
/// restart, over the same fixes, in the same windows (the blocks the import writes are known as
/// it writes them) — so it keeps the entries `update` would keep. A read of fixes or of the
/// history's end waits until the import has kept fixes past it, or ended.
final class TimelineStream {
    /// Fixes handed over and not yet asked for, at most: memory stays a megabyte or two ahead of
    /// the segmentation, whatever the import.
    static let ahead = 1 << 15
    /// Fixes kept before the import that the restart reads again, at most (else `update`).
    static let restartFixes = 1 << 18

    private let channel: Channel
    private let start: Int64
    private let settings: TimelineSettings

    /// The stream of an import whose first newly kept block is `fresh` (in time order), or nil
    /// when `update` must be used: a track fix kept before lies at or after its first, or the
    /// fixes kept before that the restart would read are more than `restartFixes`.
    /// - Parameter stored: the first and last track fix (ms) kept before the import, nil for none.
    fileprivate init?(
        first fresh: [KeptFix], stored: (first: Int64, last: Int64)?, maxAccuracy: Double, resolver: Resolver, _ db: Database
    ) throws {
        guard let first = fresh.first?.time, (stored?.last ?? .min) < first else { return nil }
        let known = try KeptTimeline.remembered(db)
        settings = known ?? .standard
        start = known == nil ? .min : try KeptTimeline.restart(from: first, db)
        let before = try Self.stored(from: start, to: first, maxAccuracy: maxAccuracy, db)
        guard let before else { return nil }
        channel = Channel(maxAccuracy: maxAccuracy, before: before)
        let (start, settings, breaks) = (start, settings, try KeptTimeline.forgotten(db))
        let source = Source(channel: channel, firstTime: min(stored?.first ?? first, first))
        let (index, fallbackMeters) = (resolver.index, resolver.fallbackMeters)
        channel.start("roqua-timeline") { [channel] in
            let result = Result {
                let resolver = try Resolver(index: index, fallbackMeters: fallbackMeters, cacheVertices: 20_000)
                return try KeptTimeline.segment(
                    from: start, settings: settings, isOnLand: resolver.isOnLand, source: source, breaks: breaks)
            }
            channel.finished(result)
        }
        _ = try add(fresh)
    }

    deinit { channel.cancel() }

    /// The track fixes kept before the import from `start` to `end` (ms), with the starts of
    /// their blocks after `start`; nil when they are more than `restartFixes`.
    private static func stored(
        from start: Int64, to end: Int64, maxAccuracy: Double, _ db: Database
    ) throws -> (fixes: [TimelineFix], blocks: [Int64])? {
        let tracks = "source NOT IN (SELECT id FROM fix_sources WHERE photo = 1)"
        let count =
            try Int.fetchOne(
                db, sql: "SELECT SUM(count) FROM fix_blocks WHERE end_ms >= ? AND start_ms < ? AND \(tracks)", arguments: [start, end])
            ?? 0
        guard count <= restartFixes else { return nil }
        let blocks = try Int64.fetchAll(
            db, sql: "SELECT start_ms FROM fix_blocks WHERE start_ms > ? AND start_ms < ? AND \(tracks) ORDER BY start_ms",
            arguments: [start, end])
        let fixes = try FixHistory.fixes(from: start, to: end, tracksOnly: true, db)
        return (KeptTimeline.accurate(fixes, maxAccuracy: maxAccuracy), blocks)
    }

    /// Hands over a newly kept block (in time order); false when it goes back to or before a fix
    /// handed over already: the stream cannot take it, and must be dropped.
    func add(_ fresh: [KeptFix]) throws -> Bool { try channel.add(fresh) }

    /// The import has kept everything: the thread segments to the end.
    func close() { channel.close() }

    /// Waits for the entries and keeps them in place of those from the restart on.
    /// - Throws: what the segmentation threw.
    func finish(_ db: Database) throws {
        close()
        let entries = try channel.entries()
        try KeptTimeline.replace(from: start, with: entries, settings: settings, db)
    }

    /// The fixes as the segmentation asks for them, from what the import has handed over.
    private struct Source: SegmentSource, Sendable {
        let channel: Channel
        let firstTime: Int64

        func first() -> Int64? { firstTime }
        func end(within limit: Int64) throws -> Int64? { try channel.end(within: limit) }
        func fixes(_ a: Int64, _ b: Int64) throws -> [TimelineFix] { try channel.fixes(a, b) }
        func reach(from start: Int64) throws -> Int64 { Self.reach(from: start, toBlock: try channel.block(after: start)) }
    }

    /// What the import and the thread share, all of it guarded by `condition`.
    private final class Channel: WorkerChannel, @unchecked Sendable {
        let maxAccuracy: Double
        /// The fixes handed over (the accurate ones), from the earliest still to be asked for.
        private var fixes: [TimelineFix]
        /// The start of every block after the restart, in order.
        private var blocks: [Int64]
        /// The last fix handed over (of any accuracy), and whether the import has ended.
        private var last: Int64 = .min
        private var closed = false
        /// The furthest time the thread has asked about.
        private var horizon: Int64 = .min
        private var result: Result<[TimelineEntry], any Error>?

        init(maxAccuracy: Double, before: (fixes: [TimelineFix], blocks: [Int64])) {
            self.maxAccuracy = maxAccuracy
            fixes = before.fixes
            blocks = before.blocks
            last = before.fixes.last?.time ?? .min
        }

        struct Cancelled: Error {}

        /// Waits until a fix at or after `time` is handed over or the import has ended.
        private func wait(past time: Int64) throws {
            horizon = max(horizon, time)
            condition.broadcast()
            while last < time, !closed, !cancelled { condition.wait() }
            if cancelled { throw Cancelled() }
        }

        func add(_ fresh: [KeptFix]) throws -> Bool {
            guard let first = fresh.first, let final = fresh.last else { return true }
            let accurate = KeptTimeline.accurate(fresh, maxAccuracy: maxAccuracy)
            condition.lock()
            defer { condition.unlock() }
            guard first.time > last else { return false }
            // A segmentation that failed keeps nothing more; `entries` throws its error.
            guard result == nil else { return true }
            // Not too far ahead of what the thread has asked for.
            while !cancelled, result == nil, fixes.count - Self.index(fixes, from: horizon) > TimelineStream.ahead {
                condition.wait()
            }
            fixes += accurate
            blocks.append(first.time)
            last = final.time
            condition.broadcast()
            return true
        }

        func close() {
            condition.lock()
            closed = true
            condition.broadcast()
            condition.unlock()
        }

        func finished(_ outcome: Result<[TimelineEntry], any Error>) {
            condition.lock()
            result = outcome
            condition.broadcast()
            condition.unlock()
        }

        func entries() throws -> [TimelineEntry] {
            condition.lock()
            defer { condition.unlock() }
            while result == nil { condition.wait() }
            return try result!.get()
        }

        func end(within limit: Int64) throws -> Int64? {
            condition.lock()
            defer { condition.unlock() }
            try wait(past: limit)
            return last < limit ? last + 1 : nil
        }

        /// The fixes in `[a, b)`; those before `a` are dropped (the segmentation never goes back).
        func fixes(_ a: Int64, _ b: Int64) throws -> [TimelineFix] {
            condition.lock()
            defer { condition.unlock() }
            try wait(past: b)
            fixes.removeFirst(Self.index(fixes, from: a))
            return Array(fixes[..<Self.index(fixes, from: b)])
        }

        /// The start of the `windowBlocks + 1`-th block after `start`, nil when there are not that many.
        func block(after start: Int64) throws -> Int64? {
            condition.lock()
            defer { condition.unlock() }
            func found() -> Int64? {
                let k = Self.index(blocks, from: start + 1) + KeptTimeline.windowBlocks
                return k < blocks.count ? blocks[k] : nil
            }
            while found() == nil, !closed, !cancelled {
                horizon = .max
                condition.broadcast()
                condition.wait()
            }
            if cancelled { throw Cancelled() }
            return found()
        }

        /// The index of the first element at or after `time` in `times`, in order.
        private static func index(_ times: [Int64], from time: Int64) -> Int {
            var low = 0, high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < time { low = middle + 1 } else { high = middle }
            }
            return low
        }

        private static func index(_ fixes: [TimelineFix], from time: Int64) -> Int {
            var low = 0, high = fixes.count
            while low < high {
                let middle = (low + high) / 2
                if fixes[middle].time < time { low = middle + 1 } else { high = middle }
            }
            return low
        }

        override func dropQueued() { fixes.removeAll() }
    }
}

/// Hands an import's newly kept blocks to a `TimelineStream` while one can take them: from the
/// first block, and only while the blocks come in time order.
struct TimelineFeed {
    private enum State {
        /// No block yet: the track fixes kept before the import.
        case before(stored: (first: Int64, last: Int64)?)
        case streaming(TimelineStream)
        /// The timeline is updated from the store after the import.
        case off
    }

    private var state: State
    private let maxAccuracy: Double
    private let resolver: Resolver

    /// Before the import keeps anything (`enabled` false: always `update` afterwards).
    init(enabled: Bool, maxAccuracy: Double, resolver: Resolver, _ db: Database) throws {
        self.maxAccuracy = maxAccuracy
        self.resolver = resolver
        guard enabled else {
            state = .off
            return
        }
        let row = try Row.fetchOne(db, sql: "SELECT MIN(first_ms), MAX(last_ms) FROM fix_sources WHERE photo = 0 AND fixes > 0")
        if let row, let first: Int64 = row[0], let last: Int64 = row[1] {
            state = .before(stored: (first, last))
        } else {
            state = .before(stored: nil)
        }
    }

    /// A block the import has kept, in time order.
    mutating func add(_ fresh: [KeptFix], _ db: Database) throws {
        switch state {
        case let .before(stored):
            state =
                try TimelineStream(first: fresh, stored: stored, maxAccuracy: maxAccuracy, resolver: resolver, db).map { .streaming($0) }
                ?? .off
        case let .streaming(stream):
            if try !stream.add(fresh) { state = .off }
        case .off:
            break
        }
    }

    /// The stream once the import has kept everything (closed: it segments to the end), nil
    /// when the kept timeline must be updated from the store.
    mutating func close() -> TimelineStream? {
        guard case let .streaming(stream) = state else { return nil }
        stream.close()
        return stream
    }
}
