import Foundation
import HeapModule
import RoquaIO
import RoquaTiles

/// What a big import's map counting evicts before the end, kept out of memory and out of the
/// store until then: each eviction is one run of tiles in key order, appended to a private file,
/// and so is each zoom of the final flush; at the end every run is summed, tile by tile, into one
/// last run of the rows' new blobs, which the importing thread writes in key order.
///
/// Merging each evicted tile into its stored row at once (read it, append to it, write it back)
/// cost the importing thread 7.6 s of a ten-year import's 24 s: 504,841 evictions for 126,881
/// rows. Appending a run costs the counting thread a sequential write.
///
/// The file is made 0600 in the store's own directory and unlinked at once: it holds nothing
/// after the process, however that ends.
///
/// Runs are written behind the caller's back, on a queue of their own, one at a time: the
/// counting thread goes on counting while the last eviction is encoded and written. Until
/// `finish` the file's state is the queue's alone (hence `@unchecked Sendable`).
final class MapTileSpill: @unchecked Sendable {
    /// Where the file was made (unlinked since), for messages.
    let path: String
    private let descriptor: Int32
    private let writer = DispatchQueue(label: "roqua-map-spill")
    /// A run being written at most, besides the one the caller builds: memory stays bounded.
    private let writing = DispatchSemaphore(value: 1)
    /// The first run that could not be written, guarded by `failureLock`.
    private var writeFailure: OutputError?
    private let failureLock = NSLock()
    private var size: Int64 = 0
    private var runs: [Range<Int64>] = []
    private var pending: [UInt8] = []
    /// The run of summed blobs, once `finish` has made it.
    private var last: Range<Int64>?

    /// A record: z, kind (a byte each), x, y, the blob's length (UInt32 little-endian), the blob.
    static let headerSize = 14
    static let bufferSize = 1 << 20
    /// Tiles summed on every core at once at the end.
    static let batch = 256
    /// The read buffers of all runs together at the end, but for a record longer than its share:
    /// a run is read 64 KiB at a time, less when there are more than 128 runs (a ten-year phone
    /// history makes 59, the heaviest history benchmarked 188).
    static let readBuffers = 8 << 20

    /// A new file in `directory`.
    /// - Throws: `OutputError` when it cannot be made there.
    init(directory: String) throws(OutputError) {
        var template = Array((directory + "/.roqua-map-spill-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        guard made >= 0 else { throw Self.failure(path) }
        descriptor = made
        _ = fcntl(made, F_SETFD, FD_CLOEXEC)
        unlink(path)
        pending.reserveCapacity(Self.bufferSize)
    }

    /// A spill writing to `descriptor`, opened by the caller, which it closes (tests: a device
    /// that refuses every write).
    init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    deinit { close(descriptor) }

    /// The error for the failed call that just set `errno`, saying what the file is for: its
    /// name, beside the store, is one the user never chose.
    private static func failure(_ path: String) -> OutputError {
        OutputError(path: path, reason: String(cString: strerror(errno)) + " (the file where a big import's map counts wait for its end)")
    }

    /// Appends `tiles` as one run, in key order, each tile's counts as one raw segment: written
    /// on the spill's queue, once the run before is.
    /// - Throws: `OutputError` when a run before could not be written.
    func append(_ tiles: [TileKey: TileDelta]) throws(OutputError) {
        try written()
        writing.wait()
        writer.async { [self] in
            defer { writing.signal() }
            do throws(OutputError) {
                let start = size + Int64(pending.count)
                for key in tiles.keys.sorted() {
                    try put(key, TileRaster.encode(tiles[key] ?? TileDelta(), compress: false))
                }
                try flush()
                runs.append(start..<size)
            } catch {
                failureLock.withLock { writeFailure = writeFailure ?? error }
            }
        }
    }

    /// Waits for the run being written, if one is: an import that stops early lets go of the
    /// file (and the disk it holds) only then.
    func settle() { writer.sync {} }

    /// Throws what stopped a run from being written, if one was.
    private func written() throws(OutputError) {
        if let failure = failureLock.withLock({ writeFailure }) { throw failure }
    }

    /// Sums every run tile by tile into the last run: each tile's blob as a row of its own stores
    /// it (compressed, one segment), decoded, summed and encoded on every core.
    func finish() throws {
        settle()
        try written()
        let chunk = max(4096, min(1 << 16, Self.readBuffers / max(runs.count, 1)))
        var readers = runs.map { RunReader(descriptor: descriptor, path: path, range: $0, chunk: chunk) }
        var heads = try readers.indices.map { try readers[$0].next() }
        // Each run's next key, the least on top: a tile's segments are found in a few steps, not
        // by looking at every run's next key twice (430 M comparisons with 188 runs).
        var next = Heap(heads.indices.compactMap { run in heads[run].map { Head(key: $0.key, run: run) } })
        let start = size
        while true {
            // The next `batch` tiles in key order, each with its segments from every run, in run order.
            var keys: [TileKey] = []
            var parts: [[[UInt8]]] = []
            while keys.count < Self.batch, let key = next.min?.key {
                var segments: [[UInt8]] = []
                while let top = next.min, top.key == key {
                    segments.append(heads[top.run]!.blob)
                    heads[top.run] = try readers[top.run].next()
                    if let head = heads[top.run] {
                        _ = next.replaceMin(with: Head(key: head.key, run: top.run))
                    } else {
                        _ = next.popMin()
                    }
                }
                keys.append(key)
                parts.append(segments)
            }
            if keys.isEmpty { break }
            let tiles = keys, segments = parts
            var blobs = [Result<[UInt8], TileBlobError>](repeating: .success([]), count: keys.count)
            blobs.withUnsafeMutableBufferPointer { buffer in
                nonisolated(unsafe) let out = buffer  // each tile's own index
                DispatchQueue.concurrentPerform(iterations: tiles.count) { i in
                    out[i] = Result { () throws(TileBlobError) in
                        // Most tiles were evicted once: their one segment is compressed as it is.
                        if segments[i].count == 1 { return try TileRaster.compressed(segments[i][0]) }
                        let parts = try segments[i].map { (segment) throws(TileBlobError) in try TileRaster.decode(segment) }
                        return TileRaster.encode(TileRaster.sum(parts))
                    }
                }
            }
            for (key, blob) in zip(keys, blobs) {
                try put(key, try blob.mapError { Unreadable(path: path, problem: "\(key): \($0)") }.get())
            }
        }
        try flush()
        last = start..<size
    }

    /// The last run, `count` tiles at a time, in key order.
    func forEachBatch(_ count: Int, _ body: ([(key: TileKey, blob: [UInt8])]) throws -> Void) throws {
        guard let last else { return }
        var reader = RunReader(descriptor: descriptor, path: path, range: last, chunk: 1 << 16)
        var batch: [(key: TileKey, blob: [UInt8])] = []
        while let tile = try reader.next() {
            batch.append(tile)
            if batch.count == count {
                try body(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        if !batch.isEmpty { try body(batch) }
    }

    private func put(_ key: TileKey, _ blob: [UInt8]) throws(OutputError) {
        func word(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { pending.append(contentsOf: $0) } }
        pending.append(UInt8(truncatingIfNeeded: key.z))
        pending.append(UInt8(truncatingIfNeeded: key.kind.rawValue))
        word(key.x)
        word(key.y)
        word(blob.count)
        pending.append(contentsOf: blob)
        if pending.count >= Self.bufferSize { try flush() }
    }

    private func flush() throws(OutputError) {
        var offset = 0
        while offset < pending.count {
            let written = pending[offset...].withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, off_t(size)) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw Self.failure(path) }
            offset += written
            size += Int64(written)
        }
        pending.removeAll(keepingCapacity: true)
    }

    /// A run's next tile, ordered by key and then by run.
    private struct Head: Comparable {
        var key: TileKey
        var run: Int
        static func < (a: Head, b: Head) -> Bool { a.key != b.key ? a.key < b.key : a.run < b.run }
    }

    /// The records of one run, read front to back through a buffer of their own.
    private struct RunReader {
        let descriptor: Int32
        let path: String
        /// What of the run is not read into `buffer` yet.
        var range: Range<Int64>
        /// Bytes read at once (more for a longer record).
        let chunk: Int
        var buffer: [UInt8] = []
        var position = 0

        init(descriptor: Int32, path: String, range: Range<Int64>, chunk: Int) {
            self.descriptor = descriptor
            self.path = path
            self.range = range
            self.chunk = chunk
        }

        mutating func next() throws(Unreadable) -> (key: TileKey, blob: [UInt8])? {
            if position == buffer.count && range.isEmpty { return nil }
            try fill(MapTileSpill.headerSize)
            func word(_ at: Int) -> Int {
                Int(UInt32(buffer[at]) | UInt32(buffer[at + 1]) << 8 | UInt32(buffer[at + 2]) << 16 | UInt32(buffer[at + 3]) << 24)
            }
            let key = TileKey(
                z: Int(buffer[position]), x: word(position + 2), y: word(position + 6),
                kind: buffer[position + 1] == 0 ? .heat : .lines)
            let length = word(position + 10)
            try fill(MapTileSpill.headerSize + length)
            let start = position + MapTileSpill.headerSize
            position = start + length
            return (key, Array(buffer[start..<position]))
        }

        /// At least `count` unread bytes in `buffer`.
        private mutating func fill(_ count: Int) throws(Unreadable) {
            let unread = buffer.count - position
            if unread >= count { return }
            guard Int64(count - unread) <= Int64(range.count) else {
                throw Unreadable(path: path, problem: "a record cut short")
            }
            buffer.removeFirst(position)
            position = 0
            let want = Int(min(Int64(range.count), Int64(max(count - unread, chunk))))
            buffer.append(contentsOf: repeatElement(0, count: want))
            var done = 0
            while done < want {
                let read = buffer.withUnsafeMutableBytes {
                    pread(descriptor, $0.baseAddress! + unread + done, want - done, off_t(range.lowerBound) + off_t(done))
                }
                if read < 0, errno == EINTR { continue }
                guard read > 0 else {
                    throw Unreadable(
                        path: path, problem: read == 0 ? "the file ends before what was written" : String(cString: strerror(errno)))
                }
                done += read
            }
            range = (range.lowerBound + Int64(want))..<range.upperBound
        }
    }

    /// Spilled counts that do not read back as written.
    struct Unreadable: Error, CustomStringConvertible {
        let path: String
        let problem: String

        var description: String { "\(path): the lifetime map's spilled counts do not read back: \(problem)" }
    }
}
