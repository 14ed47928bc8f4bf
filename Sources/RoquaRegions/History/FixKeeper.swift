import Foundation
import GRDB

/// The import's keep stage: fixes of one source gathered into blocks, each sorted, its
/// duplicates dropped — the same fix (second and position to 1e-6°) met earlier in this import
/// or kept by any earlier one — and written in the import's transaction. What it hands on, in
/// time order within each block, is exactly the fixes newly kept: only they are derived, so a
/// file imported twice, or two exports that overlap, count nothing twice.
struct FixKeeper {
    private let db: Database
    private let sourceName: String
    /// Made when the first block is written: an import that keeps nothing leaves no source.
    private var source: Int64?
    private var pending: [KeptFix] = []
    /// No stored block spans more (bounds the index range looked up for duplicates).
    private var longest: Int64
    /// The last block this keeper wrote and its fixes, in time order: the next block, continuing
    /// in time, usually meets only its last second.
    private var lastWritten: (id: Int64, fixes: [KeptFix])?
    /// Fixes handed on (kept), and fixes dropped as kept already.
    private(set) var kept = 0
    private(set) var duplicates = 0
    /// The last full block (its fixes and source), being compressed by `encoder` on another core;
    /// written at the next flush, before anything is looked up in the stored blocks.
    private var encoding: (fixes: [KeptFix], source: Int64)?
    /// Made at the first full block: an import of fewer fixes (a photo's) starts no thread.
    private var encoder: BlockEncoder?

    /// - Parameter longest: the longest span of a stored block, when the caller knows it (a batch
    ///   of photos keeps one fix a source: asking for each would read every block each time).
    init(source name: String, longest: Int64? = nil, _ db: Database) throws {
        self.db = db
        sourceName = name
        self.longest = try longest ?? FixHistory.longestSpan(db)
        pending.reserveCapacity(FixBlock.capacity)
    }

    /// Adds one fix read; when a block is full, keeps it and returns its new fixes (else none).
    /// The block is compressed on another core meanwhile, and written at the next flush.
    mutating func add(_ fix: KeptFix) throws -> [KeptFix] {
        pending.append(fix)
        return pending.count >= FixBlock.capacity ? try flush(encodingAside: true) : []
    }

    /// Keeps what is still gathered and returns its new fixes; every block is written then.
    mutating func finish() throws -> [KeptFix] { try flush(encodingAside: false) }

    /// Writes the block compressed aside, if any.
    private mutating func writeEncoding() throws {
        guard let block = encoding, let encoder else { return }
        encoding = nil
        let id = try FixHistory.insertBlock(block.fixes[...], source: block.source, encoded: encoder.result(), db)
        lastWritten = (id, block.fixes)
    }

    private mutating func flush(encodingAside: Bool) throws -> [KeptFix] {
        try writeEncoding()
        guard !pending.isEmpty else { return [] }
        let block = pending.inTimeOrder()
        pending.removeAll(keepingCapacity: true)
        let seen = try keptIdentities(from: block[0].time, through: block[block.count - 1].time)
        var fresh: [KeptFix] = []
        fresh.reserveCapacity(block.count)
        // In time order the fixes of one second stand together: each is compared with the others
        // of its second only (no set of the whole block to hash).
        var second = SecondOfFixes()
        for fix in block {
            let identity = fix.identity
            guard seen.isEmpty || !seen.contains(identity), second.insert(identity) else { continue }
            fresh.append(fix)
        }
        duplicates += block.count - fresh.count
        kept += fresh.count
        guard !fresh.isEmpty else { return [] }
        let source = try self.source ?? FixHistory.sourceID(sourceName, db)
        self.source = source
        longest = max(longest, fresh[fresh.count - 1].time - fresh[0].time)
        if encodingAside {
            let encoder = self.encoder ?? BlockEncoder()
            self.encoder = encoder
            encoder.submit(fresh)
            encoding = (fresh, source)
        } else {
            lastWritten = (try FixHistory.insertBlock(fresh[...], source: source, db), fresh)
        }
        return fresh
    }

    /// The identities of every fix kept in the seconds `from`…`through` touch.
    private func keptIdentities(from: Int64, through: Int64) throws -> Set<KeptFix.Identity> {
        // Identities are whole seconds: a fix at 12:00:00.900 meets one at 12:00:00.100.
        let start = from - from.modulo(1000), end = through - through.modulo(1000) + 999
        var identities = Set<KeptFix.Identity>()
        for block in try FixHistory.blocks(from: start, through: end, longest: longest, db) {
            if let last = lastWritten, last.id == block.id {
                // Its fixes are in time order: from the first at `start` on, while within `end`.
                var low = 0, high = last.fixes.count
                while low < high {
                    let middle = (low + high) / 2
                    if last.fixes[middle].time < start { low = middle + 1 } else { high = middle }
                }
                for fix in last.fixes[low...] {
                    guard fix.time <= end else { break }
                    identities.insert(fix.identity)
                }
            } else {
                for fix in try FixHistory.fixes(ofBlock: block.id, db) where fix.time >= start && fix.time <= end {
                    identities.insert(fix.identity)
                }
            }
        }
        return identities
    }
}

/// Compresses full blocks, one at a time, on a thread of its own (zlib is most of a block's
/// cost: three seconds of a ten-year import's importing thread). A thread, not a dispatch queue:
/// the import waits for each block, and a caller that is itself on one of a 2-core machine's two
/// pool threads must not wait for work queued behind it. The thread ends with the encoder.
private final class BlockEncoder {
    private let channel = Channel()

    init() {
        let channel = channel
        channel.start("roqua-fix-blocks") { channel.run() }
    }

    deinit { channel.cancel() }

    /// Starts compressing `fixes`; the block before must have been taken with `result`.
    func submit(_ fixes: [KeptFix]) { channel.submit(fixes) }

    /// The bytes of the block submitted last, once compressed.
    func result() -> [UInt8] { channel.result() }

    /// What the two threads share, all of it guarded by `condition`.
    private final class Channel: WorkerChannel, @unchecked Sendable {
        private var job: [KeptFix]?
        private var done: [UInt8]?

        func submit(_ fixes: [KeptFix]) {
            condition.lock()
            defer { condition.unlock() }
            job = fixes
            condition.broadcast()
        }

        func result() -> [UInt8] {
            condition.lock()
            defer { condition.unlock() }
            while done == nil { condition.wait() }
            defer { done = nil }
            return done ?? []
        }

        func run() {
            condition.lock()
            defer { condition.unlock() }
            while true {
                while job == nil && !cancelled { condition.wait() }
                guard !cancelled, let fixes = job else { return }
                job = nil
                condition.unlock()
                let bytes = FixBlock.encode(fixes[...])
                condition.lock()
                done = bytes
                condition.broadcast()
            }
        }
    }
}

/// The identities met in one second of a block in time order: a short list, a set once the
/// second holds many fixes (untimed points given one assumed time all share a second).
private struct SecondOfFixes {
    private var second: Int64 = .min
    private var few: [KeptFix.Identity] = []
    private var many: Set<KeptFix.Identity> = []

    /// Whether `identity` is new in its second (then it is remembered); a later second forgets the earlier.
    mutating func insert(_ identity: KeptFix.Identity) -> Bool {
        if identity.second != second {
            second = identity.second
            few.removeAll(keepingCapacity: true)
            many.removeAll(keepingCapacity: true)
        }
        if !many.isEmpty { return many.insert(identity).inserted }
        guard !few.contains(identity) else { return false }
        few.append(identity)
        if few.count > 16 {
            many = Set(few)
            few.removeAll(keepingCapacity: true)
        }
        return true
    }
}

private extension Int64 {
    /// The non-negative remainder (times before 1970 are negative).
    func modulo(_ divisor: Int64) -> Int64 { ((self % divisor) + divisor) % divisor }
}
