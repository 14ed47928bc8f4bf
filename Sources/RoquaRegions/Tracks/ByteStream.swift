import Foundation
import RoquaBoundaries

/// Size caps that keep every reader's memory bounded by one record, never by the file.
enum TrackLimits {
    /// Bytes read from disk at a time.
    static let chunkSize = 1 << 20
    /// Longest single token (CSV line, XML text or attribute, JSON string) or JSON record.
    /// Real records are a few hundred bytes; this only stops a corrupt file (say, one with no
    /// newlines or a missing quote) from being pulled into memory whole.
    static let maxRecordBytes = 64 << 20
    /// Deepest element / container nesting accepted (GPX and JSON exports nest < 10 deep).
    static let maxDepth = 512
}

/// A file read front to back in fixed-size chunks, counting lines as it goes so every error can
/// name one. A leading UTF-8 byte order mark is skipped; UTF-16 is refused with a clear message.
/// A class because it owns a file descriptor (closed in `deinit`) and is shared by a reader and
/// its tokenizer.
final class ByteStream {
    let path: String
    private let fd: Int32
    /// The chunk buffer: raw memory owned by this object, not an array, so reading it needs no
    /// exclusivity bookkeeping (which dominated profiles of the array version).
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var index = 0
    private var count = 0
    private var consumedBefore = 0
    private var reachedEOF = false
    /// 1-based line of the next unread byte.
    private(set) var line = 1

    init(path: String, chunkSize: Int = TrackLimits.chunkSize) throws(TrackReadError) {
        self.path = path
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw TrackReadError(file: path, line: nil, message: "is a directory, not a track file")
        }
        fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw TrackReadError(file: path, line: nil, message: "cannot open: \(String(cString: strerror(errno)))")
        }
        buffer = .allocate(capacity: max(chunkSize, 16))
        try refill()
        try skipByteOrderMark()
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Bytes consumed so far (used to bound the size of one record).
    var offset: Int { consumedBefore + index }

    /// The next byte without consuming it, or nil at the end of the file.
    @inline(__always)
    func peek() throws(TrackReadError) -> UInt8? {
        if index < count { return buffer[index] }
        try refill()
        return index < count ? buffer[index] : nil
    }

    /// Consumes the byte `peek()` just returned (call only after a non-nil peek).
    @inline(__always)
    func advance() {
        if buffer[index] == 0x0A { line += 1 }
        index += 1
    }

    /// Consumes and returns the next byte, or nil at the end of the file.
    @inline(__always)
    func next() throws(TrackReadError) -> UInt8? {
        guard let byte = try peek() else { return nil }
        advance()
        return byte
    }

    /// Skips spaces, tabs, CR and LF and returns the next byte, not consumed (nil at the end).
    /// Works on the chunk directly rather than through `peek`/`advance`: JSON is mostly this.
    func skipWhitespace() throws(TrackReadError) -> UInt8? {
        // Most calls land on a token already: answer those without setting up a scan.
        if index < count {
            let byte = buffer[index]
            if byte != 0x20, byte != 0x0A, byte != 0x0D, byte != 0x09 { return byte }
        }
        var unused: [UInt8] = []
        return try scan(until: ByteSet.notWhitespace, into: &unused, keep: false, limit: 0)
    }

    /// Consumes bytes up to (not including) the first one in `stops` and returns that byte, not
    /// consumed (nil at the end of the file). Newlines passed over are counted.
    @discardableResult
    func skip(until stops: ByteSet) throws(TrackReadError) -> UInt8? {
        var unused: [UInt8] = []
        return try scan(until: stops, into: &unused, keep: false, limit: 0)
    }

    /// As `skip(until:)`, appending the bytes passed over to `output`, which may not grow past
    /// `limit` bytes (a corrupt file must not be read into memory whole).
    @discardableResult
    func collect(until stops: ByteSet, into output: inout [UInt8], limit: Int = TrackLimits.maxRecordBytes) throws(TrackReadError) -> UInt8? {
        try scan(until: stops, into: &output, keep: true, limit: limit)
    }

    /// The bulk path for whitespace, strings, numbers and skipped text: a tight loop over the
    /// chunk instead of a `peek`/`advance` call per byte.
    private func scan(until stops: ByteSet, into output: inout [UInt8], keep: Bool, limit: Int) throws(TrackReadError) -> UInt8? {
        while true {
            if index >= count {
                try refill()
                if index >= count { return nil }
            }
            let start = index, end = count
            let bytes = buffer
            let (stop, newlines) = stops.table.withUnsafeBufferPointer { table in
                var i = start, n = 0
                while i < end {
                    let b = bytes[i]
                    if table[Int(b)] { break }
                    if b == 0x0A { n += 1 }
                    i += 1
                }
                return (i, n)
            }
            if keep {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[start..<stop]))
                guard output.count <= limit else { throw error("a single value or text is longer than \(limit) bytes") }
            }
            line += newlines
            index = stop
            if stop < end { return buffer[stop] }
        }
    }

    /// Reads one line (without its `\n` or `\r\n`) into `into`, replacing its contents.
    /// Returns false at the end of the file when nothing was left. Works a chunk at a time
    /// rather than byte by byte because CSV files are mostly this.
    func readLine(into line: inout [UInt8]) throws(TrackReadError) -> Bool {
        line.removeAll(keepingCapacity: true)
        var sawAny = false
        while true {
            if index >= count {
                try refill()
                if index >= count { break }
            }
            sawAny = true
            let start = index, end = count, bytes = buffer
            var i = start
            while i < end, bytes[i] != 0x0A { i += 1 }
            let newline: Int? = i < end ? i : nil
            line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<i]))
            guard line.count <= TrackLimits.maxRecordBytes else {
                throw error("line longer than \(TrackLimits.maxRecordBytes) bytes (is this really a text track file?)")
            }
            if let newline {
                index = newline + 1
                self.line += 1
                break
            }
            index = count
        }
        if line.last == 0x0D { line.removeLast() }
        return sawAny
    }

    /// A `TrackReadError` for this file at `line` (the current line by default).
    func error(_ message: String, line: Int? = nil) -> TrackReadError {
        TrackReadError(file: path, line: line ?? self.line, message: message)
    }

    private func refill() throws(TrackReadError) {
        guard !reachedEOF else { return }
        consumedBefore += count
        index = 0
        count = 0
        while true {
            let n = read(fd, buffer.baseAddress, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw TrackReadError(file: path, line: line, message: "read failed: \(String(cString: strerror(errno)))")
            }
            if n == 0 { reachedEOF = true }
            count = n
            return
        }
    }

    private func skipByteOrderMark() throws(TrackReadError) {
        if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            index = 3
        } else if count >= 2, (buffer[0] == 0xFF && buffer[1] == 0xFE) || (buffer[0] == 0xFE && buffer[1] == 0xFF) {
            throw TrackReadError(file: path, line: nil, message: "UTF-16 text is not supported; save the file as UTF-8")
        }
    }
}

/// A set of bytes as a lookup table, for `ByteStream.scan`.
struct ByteSet: Sendable {
    let table: [Bool]

    init(_ bytes: [UInt8], inverted: Bool = false) {
        var table = [Bool](repeating: inverted, count: 256)
        for byte in bytes { table[Int(byte)] = !inverted }
        self.table = table
    }

    static let notWhitespace = ByteSet([0x20, 0x0A, 0x0D, 0x09], inverted: true)
}

/// Small value parsers shared by the readers.
enum TrackValues {
    /// A decimal number written the plain way (`-12.5`, `1e3`), whitespace around it allowed, refusing `nan`, `inf`, hex and empty text that `Double(String)` would otherwise
    /// accept or that mean a corrupt field.
    static func number(_ text: some StringProtocol) -> Double? {
        number(bytes: trimmed(Array(text.utf8)[...]))
    }

    /// `bytes` without the spaces, tabs, CRs and LFs around it.
    static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var bytes = bytes
        while let first = bytes.first, first == 0x20 || first == 0x09 || first == 0x0A || first == 0x0D { bytes.removeFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 || last == 0x0A || last == 0x0D { bytes.removeLast() }
        return bytes
    }

    /// As `number(_:)`, for bytes without surrounding spaces. Plain integers of up to 15 digits
    /// (the E7 coordinates and epoch times that dominate Google exports) skip `Double(String)`.
    static func number(bytes: ArraySlice<UInt8>) -> Double? {
        guard !bytes.isEmpty else { return nil }
        var digits = bytes
        let negative = digits.first == 0x2D
        if negative { digits.removeFirst() }
        if !digits.isEmpty, digits.count <= 15 {
            var value = 0
            var allDigits = true
            for b in digits {
                guard b >= 0x30, b <= 0x39 else { allDigits = false; break }
                value = value * 10 + Int(b - 0x30)
            }
            if allDigits { return Double(negative ? -value : value) }
        }
        guard bytes.allSatisfy({ isNumberByte($0) }), let value = Double(String(decoding: bytes, as: UTF8.self)),
              value.isFinite else { return nil }
        return value
    }

    @inline(__always)
    static func isNumberByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x2D || byte == 0x2B || byte == 0x65 || byte == 0x45
    }

    /// A validated coordinate, or a `TrackReadError` at `line` saying what is wrong with it.
    static func coordinate(latitude: Double, longitude: Double, file: String, line: Int?) throws(TrackReadError) -> Coordinate {
        do {
            return try Coordinate(latitude: latitude, longitude: longitude).validated()
        } catch {
            throw TrackReadError(file: file, line: line, message: error.description)
        }
    }
}
