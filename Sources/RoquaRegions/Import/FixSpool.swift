import Foundation
import RoquaBoundaries
import RoquaIO

/// A track's fixes, read and checked, kept in a private file of fixed-size records so that they
/// can be clustered and written later without parsing again: a server reads an upload while the
/// store is free and holds the store only to write (`TrackImporter.prepare` / `commit`). Memory
/// stays one 1 MiB buffer whatever the number of fixes; the file is exactly what `next()` gives
/// back, bit for bit.
package final class FixSpool {
    /// latitude, longitude, time (Date's own seconds since 2001, kept exactly), accuracy, speed,
    /// position, which optionals are set: 7 little-endian words.
    static let recordSize = 7 * 8
    static let bufferSize = 1 << 20

    package let path: String
    /// Fixes written.
    package private(set) var count = 0
    /// What the reader counted as untimed (skipped, or given the assumed time).
    package private(set) var untimedPoints = 0
    /// What the reader skipped.
    package private(set) var skipped = SkippedRecords()

    private init(path: String) {
        self.path = path
    }

    /// Reads `reader` to its end into a new 0600 file at `path`. `progress` gets the fixes read so
    /// far every 8,192 and may throw to stop.
    /// - Throws: the reader's `TrackReadError` (the file is removed), `OutputError` when the file
    ///   cannot be written, what `progress` throws.
    package static func write(_ reader: inout any FixReader, to path: String, progress: ((Int) throws -> Void)? = nil) throws -> FixSpool {
        let spool = FixSpool(path: path)
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw OutputError.errno(path) }
        defer { close(descriptor) }
        do {
            var buffer = [UInt8]()
            buffer.reserveCapacity(bufferSize)
            while let fix = try reader.next() {
                append(fix, to: &buffer)
                spool.count += 1
                if buffer.count >= bufferSize { try flush(&buffer, descriptor, path) }
                if spool.count % 8192 == 0 { try progress?(spool.count) }
            }
            try flush(&buffer, descriptor, path)
            // Nothing readable but bad records: refused here, before the store is touched.
            if spool.count == 0, let refusal = reader.skipped.refusal { throw refusal }
            spool.untimedPoints = reader.untimedPoints
            spool.skipped = reader.skipped
            return spool
        } catch {
            unlink(path)
            throw error
        }
    }

    /// The fixes again, in order.
    /// - Throws: `TrackReadError` when the file cannot be opened.
    package func reader() throws -> any FixReader {
        SpooledFixes(stream: try ByteStream(path: path), name: path, untimedPoints: untimedPoints, skipped: skipped)
    }

    /// Removes the file.
    package func remove() { unlink(path) }

    private static func append(_ fix: Fix, to buffer: inout [UInt8]) {
        func put(_ word: UInt64) { withUnsafeBytes(of: word.littleEndian) { buffer.append(contentsOf: $0) } }
        put(fix.coordinate.latitude.bitPattern)
        put(fix.coordinate.longitude.bitPattern)
        put(fix.timestamp.timeIntervalSinceReferenceDate.bitPattern)
        put((fix.accuracy ?? 0).bitPattern)
        put((fix.speed ?? 0).bitPattern)
        put(UInt64(bitPattern: Int64(fix.position)))
        put(UInt64((fix.accuracy == nil ? 0 : 1) | (fix.speed == nil ? 0 : 2)))
    }

    private static func flush(_ buffer: inout [UInt8], _ descriptor: Int32, _ path: String) throws(OutputError) {
        var offset = 0
        while offset < buffer.count {
            let written = buffer[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { throw OutputError.errno(path) }
            offset += written
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// `FixSpool`'s records read back.
private struct SpooledFixes: FixReader {
    let stream: ByteStream
    let path: String
    let untimedPoints: Int
    let skipped: SkippedRecords
    private var record = [UInt8]()

    init(stream: ByteStream, name: String, untimedPoints: Int, skipped: SkippedRecords) {
        self.stream = stream
        self.path = name
        self.untimedPoints = untimedPoints
        self.skipped = skipped
        record.reserveCapacity(FixSpool.recordSize)
    }

    mutating func next() throws -> Fix? {
        record.removeAll(keepingCapacity: true)
        let read = try stream.read(FixSpool.recordSize, into: &record)
        if read == 0 { return nil }
        guard read == FixSpool.recordSize else {
            throw TrackReadError(file: path, line: nil, message: "the spooled fixes end inside a record")
        }
        return record.withUnsafeBytes { bytes in
            func word(_ index: Int) -> UInt64 { UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 8, as: UInt64.self)) }
            let flags = word(6)
            return Fix(
                coordinate: Coordinate(latitude: Double(bitPattern: word(0)), longitude: Double(bitPattern: word(1))),
                timestamp: Date(timeIntervalSinceReferenceDate: Double(bitPattern: word(2))),
                accuracy: flags & 1 == 0 ? nil : Double(bitPattern: word(3)),
                speed: flags & 2 == 0 ? nil : Double(bitPattern: word(4)),
                position: Int(Int64(bitPattern: word(5))))
        }
    }
}
