import Foundation

/// Reads another `FixReader` on a thread of its own, a few thousand fixes ahead, so that parsing
/// a file and clustering its fixes run on two cores at once. The fixes, their order, the counts
/// and the first error are exactly the inner reader's: an error is handed over after the fixes
/// read before it, as reading in line would have met it.
///
/// The inner reader belongs to the thread from `init` until that thread ends; it ends at the end
/// of the input, at an error, or when this reader is released (the thread stops at its next
/// batch and is waited for, so nothing of the inner reader outlives this one).
final class BackgroundFixReader: FixReader {
    let path: String
    /// Fixes per hand-over: the lock is taken once per batch, not per fix.
    static let batchSize = 4096
    /// Batches read ahead at most: memory stays a few hundred kilobytes whatever the file.
    static let depth = 4

    private let channel = Channel()
    private var current: [Fix] = []
    private var position = 0
    private var finished: (untimed: Int, skipped: SkippedRecords)?

    init(_ reader: any FixReader) {
        path = reader.path
        let handover = Handover(reader)
        let channel = channel
        channel.start("roqua-track-reader") { channel.produce(handover) }
    }

    deinit { channel.cancel() }

    /// Known once the input is read to its end; until then, what was known before reading.
    var untimedPoints: Int { finished?.untimed ?? 0 }
    var skipped: SkippedRecords { finished?.skipped ?? SkippedRecords() }

    func next() throws -> Fix? {
        if position < current.count {
            defer { position += 1 }
            return current[position]
        }
        if finished != nil { return nil }
        switch channel.take() {
        case let .batch(fixes):
            current = fixes
            position = 1
            return current[0]
        case let .end(untimed, skipped):
            current = []
            finished = (untimed, skipped)
            return nil
        case let .failure(error):
            current = []
            finished = (0, SkippedRecords())
            throw error
        }
    }

    fileprivate enum Item {
        case batch([Fix])
        case end(untimed: Int, skipped: SkippedRecords)
        case failure(any Error)
    }

    /// The inner reader, handed to the reading thread (which alone uses it from then on).
    private final class Handover: @unchecked Sendable {
        var reader: any FixReader
        init(_ reader: any FixReader) { self.reader = reader }
    }

    /// What the two threads share, all of it guarded by `condition`.
    private final class Channel: WorkerChannel, @unchecked Sendable {
        private var queue: [Item] = []

        /// The reading thread: fills batches until the end, an error, or `cancel`.
        func produce(_ handover: Handover) {
            var batch: [Fix] = []
            batch.reserveCapacity(BackgroundFixReader.batchSize)
            do {
                while let fix = try handover.reader.next() {
                    batch.append(fix)
                    guard batch.count == BackgroundFixReader.batchSize else { continue }
                    guard hand(.batch(batch)) else { return }
                    batch.removeAll(keepingCapacity: true)
                }
                if !batch.isEmpty { guard hand(.batch(batch)) else { return } }
                _ = hand(.end(untimed: handover.reader.untimedPoints, skipped: handover.reader.skipped))
            } catch {
                if !batch.isEmpty { guard hand(.batch(batch)) else { return } }
                _ = hand(.failure(error))
            }
        }

        /// Queues an item, waiting while `depth` are queued; false once cancelled.
        private func hand(_ item: Item) -> Bool {
            condition.lock()
            defer { condition.unlock() }
            while queue.count >= BackgroundFixReader.depth && !cancelled { condition.wait() }
            guard !cancelled else { return false }
            queue.append(item)
            condition.broadcast()
            return true
        }

        /// The next item, waiting for one.
        func take() -> Item {
            condition.lock()
            defer { condition.unlock() }
            while queue.isEmpty { condition.wait() }
            condition.broadcast()
            return queue.removeFirst()
        }

        override func dropQueued() { queue.removeAll() }
    }
}
