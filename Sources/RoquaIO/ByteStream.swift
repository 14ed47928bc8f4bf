import Foundation

/// Size caps that keep every reader's memory bounded by one record, never by the file.
package enum InputLimits {
    /// Bytes read from disk at a time.
    package static let chunkSize = 1 << 20
    /// Longest single token (CSV line, XML text or attribute, JSON string) or JSON record.
    /// Real records are a few hundred bytes; this only stops a corrupt file (say, one with no
    /// newlines or a missing quote) from being pulled into memory whole.
    package static let maxRecordBytes = 64 << 20
    /// Deepest element / container nesting accepted (GPX and JSON exports nest < 10 deep).
    package static let maxDepth = 512
}

/// A file (or standard input, as `-`) read front to back in fixed-size chunks, counting lines as
/// it goes so every error can name one. A leading UTF-8 byte order mark is skipped; UTF-16 text
/// (with its byte order mark) is read as UTF-8 through `UTF16Source`. A class because it owns a file descriptor (closed in `deinit`)
/// and is shared by a reader and its tokenizer.
package final class ByteStream {
    package let path: String
    /// The file's size when it is a regular file (for progress), nil for pipes, devices and
    /// decompressed streams.
    package let totalBytes: Int?
    private var source: any ByteSource
    /// The chunk buffer: raw memory owned by this object, not an array, so reading it needs no
    /// exclusivity bookkeeping (which dominated profiles of the array version).
    private let buffer: UnsafeMutableBufferPointer<UInt8>
    private var index = 0
    private var count = 0
    private var consumedBefore = 0
    private var reachedEOF = false
    /// 1-based line of the next unread byte.
    package private(set) var line = 1

    package convenience init(path: String, chunkSize: Int = InputLimits.chunkSize) throws(InputError) {
        let file = try FileSource(path: path)
        try self.init(source: file, name: path, totalBytes: file.size, chunkSize: chunkSize)
    }

    /// A stream over any source of bytes (a decompressor, an archive entry); `name` is what
    /// errors call it.
    package init(
        source: any ByteSource, name: String, totalBytes: Int? = nil,
        chunkSize: Int = InputLimits.chunkSize
    ) throws(InputError) {
        path = name
        self.source = source
        self.totalBytes = totalBytes
        buffer = .allocate(capacity: max(chunkSize, 16))
        // Every property is set: from here on `deinit` frees whatever happens.
        try refill()
        try skipByteOrderMark()
    }

    /// A stream over bytes already in memory (one NDJSON row, a file read whole); `name` is
    /// what errors call it and `line` the line its first byte stands on.
    package init(bytes: some Collection<UInt8>, name: String, line: Int = 1) {
        path = name
        source = EmptySource()
        totalBytes = bytes.count
        buffer = .allocate(capacity: max(bytes.count, 16))
        _ = buffer.initialize(from: bytes)
        count = bytes.count
        reachedEOF = true
        self.line = line
    }

    deinit {
        buffer.deallocate()
    }

    /// Up to `limit` bytes ahead, not consumed (fewer only at the end of the input), for format
    /// detection that must not consume anything, even on a pipe. `limit` is capped by the chunk size.
    package func lookahead(_ limit: Int) throws(InputError) -> [UInt8] {
        let wanted = min(limit, buffer.count)
        if count - index < wanted, !reachedEOF {
            // Move what is left to the front and read more behind it.
            let left = count - index
            if index > 0, left > 0 { memmove(buffer.baseAddress!, buffer.baseAddress! + index, left) }
            consumedBefore += index
            index = 0
            count = left
            while count < wanted {
                let n = try source.read(
                    into: UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[count...])), name: path)
                if n == 0 {
                    reachedEOF = true
                    break
                }
                count += n
            }
        }
        return Array(UnsafeBufferPointer(rebasing: buffer[index..<min(count, index + wanted)]))
    }

    /// Bytes consumed so far (used to bound the size of one record, and for progress).
    package var offset: Int { consumedBefore + index }

    /// The next byte without consuming it, or nil at the end of the file.
    @inline(__always)
    package func peek() throws(InputError) -> UInt8? {
        if index < count { return buffer[index] }
        try refill()
        return index < count ? buffer[index] : nil
    }

    /// Consumes the byte `peek()` just returned (call only after a non-nil peek).
    @inline(__always)
    package func advance() {
        if buffer[index] == 0x0A { line += 1 }
        index += 1
    }

    /// Consumes and returns the next byte, or nil at the end of the file.
    @inline(__always)
    package func next() throws(InputError) -> UInt8? {
        guard let byte = try peek() else { return nil }
        advance()
        return byte
    }

    /// Appends up to `wanted` bytes to `output` and returns how many were appended (fewer only
    /// at the end of the input), for binary formats. Newlines are not counted in binary data.
    @discardableResult
    package func read(_ wanted: Int, into output: inout [UInt8]) throws(InputError) -> Int {
        var got = 0
        while got < wanted {
            if index >= count {
                try refill()
                if index >= count { break }
            }
            let take = min(wanted - got, count - index)
            output.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[index..<(index + take)]))
            index += take
            got += take
        }
        return got
    }

    /// Skips spaces, tabs, CR and LF and returns the next byte, not consumed (nil at the end).
    /// Works on the chunk directly rather than through `peek`/`advance`: JSON is mostly this.
    package func skipWhitespace() throws(InputError) -> UInt8? {
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
    package func skip(until stops: ByteSet) throws(InputError) -> UInt8? {
        var unused: [UInt8] = []
        return try scan(until: stops, into: &unused, keep: false, limit: 0)
    }

    /// As `skip(until:)`, appending the bytes passed over to `output`, which may not grow past
    /// `limit` bytes (a corrupt file must not be read into memory whole).
    @discardableResult
    package func collect(
        until stops: ByteSet, into output: inout [UInt8], limit: Int = InputLimits.maxRecordBytes
    ) throws(InputError) -> UInt8? {
        try scan(until: stops, into: &output, keep: true, limit: limit)
    }

    /// The bulk path for whitespace, strings, numbers and skipped text: a tight loop over the
    /// chunk instead of a `peek`/`advance` call per byte.
    private func scan(until stops: ByteSet, into output: inout [UInt8], keep: Bool, limit: Int) throws(InputError) -> UInt8? {
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

    /// Hands the unread bytes to `body`, a buffer at a time, until it is done. `body` returns
    /// how many of the bytes it consumed, how many newlines were among them, and whether it is
    /// done (having consumed what it wanted of the last buffer). Returns false when the input
    /// ended before `body` was done.
    package func consume(
        _ body: (UnsafeBufferPointer<UInt8>) throws(InputError) -> (count: Int, newlines: Int, done: Bool)
    )
        throws(InputError) -> Bool
    {
        while true {
            if index >= count {
                try refill()
                if index >= count { return false }
            }
            let (used, newlines, done) = try body(UnsafeBufferPointer(rebasing: buffer[index..<count]))
            index += used
            line += newlines
            if done { return true }
        }
    }

    /// Offers the bytes buffered now (possibly none; nothing is read) to `body`, which either
    /// takes a prefix of them — returning how many bytes and how many newlines among them, with
    /// a value — or declines (nil), and then nothing is consumed.
    package func takeBuffered<T>(_ body: (UnsafeBufferPointer<UInt8>) -> (used: Int, newlines: Int, value: T)?) -> T? {
        guard index < count, let taken = body(UnsafeBufferPointer(rebasing: buffer[index..<count])) else { return nil }
        index += taken.used
        line += taken.newlines
        return taken.value
    }

    /// What `readLine(into:limit:)` found.
    package enum LineRead: Equatable {
        case line
        /// A line longer than the limit: consumed up to its end, not kept.
        case tooLong(bytes: Int)
        case end
    }

    /// Reads one line (without its `\n` or `\r\n`) into `line`, replacing its contents. A line
    /// longer than `limit` bytes is skipped to its end and reported, so one corrupt row never
    /// pulls a file into memory.
    package func readLine(into line: inout [UInt8], limit: Int) throws(InputError) -> LineRead {
        line.removeAll(keepingCapacity: true)
        let read = try appendLine(to: &line, limit: limit)
        if case .tooLong = read { line.removeAll(keepingCapacity: false) }
        guard read == .line else { return read }
        if line.last == 0x0A { line.removeLast() }
        if line.last == 0x0D { line.removeLast() }
        return .line
    }

    /// Appends one line as it is in the input, with its `\n` (none on a last line without one), to
    /// `output`. A line longer than `limit` bytes (not counting the `\n`) is skipped to its end,
    /// `output` is left as it was, and its length reported. Works a chunk at a time (memchr).
    package func appendLine(to output: inout [UInt8], limit: Int) throws(InputError) -> LineRead {
        let before = output.count
        var sawAny = false
        var length = 0
        while true {
            if index >= count {
                try refill()
                if index >= count { break }
            }
            sawAny = true
            let start = index, end = count, bytes = buffer
            // memchr scans many bytes per step; this loop is most of reading a CSV file.
            let i =
                memchr(bytes.baseAddress! + start, 0x0A, end - start)  // a buffer is never empty
                .map { $0.assumingMemoryBound(to: UInt8.self) - bytes.baseAddress! } ?? end
            length += i - start
            let found = i < end
            if length <= limit {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<(found ? i + 1 : i)]))
            } else if output.count > before {
                output.removeSubrange(before...)
            }
            if found {
                index = i + 1
                self.line += 1
                break
            }
            index = count
        }
        guard sawAny else { return .end }
        return length > limit ? .tooLong(bytes: length) : .line
    }

    /// Appends the buffered bytes up to the last `\n` among the next `limit` (at least one whole
    /// line) to `output` and returns how many lines that was: 0 when those bytes hold no `\n`
    /// (read that line with `appendLine`), nil at the end of the input. Refills only when the
    /// buffer is empty, so a line that crosses a refill is left to `appendLine`. Counting the
    /// newlines is the only per-byte work, for a reader that splits lines on another thread.
    package func appendLines(to output: inout [UInt8], limit: Int) throws(InputError) -> Int? {
        if index >= count {
            try refill()
            if index >= count { return nil }
        }
        // The last newline is within one line of the window's end: a short backward scan.
        var end = index + min(count - index, max(limit, 0))
        while end > index, buffer[end - 1] != 0x0A { end -= 1 }
        guard end > index else { return 0 }
        let block = UnsafeBufferPointer(rebasing: buffer[index..<end])
        let length = end - index
        var newlines = 0
        for byte in block { newlines &+= byte == 0x0A ? 1 : 0 }
        output.append(contentsOf: block)
        index += length
        line += newlines
        return newlines
    }

    /// As `readLine(into:limit:)` with the record limit, for files where an overlong line means
    /// the file is not what it claims to be; false at the end of the file.
    package func readLine(into line: inout [UInt8]) throws(InputError) -> Bool {
        switch try readLine(into: &line, limit: InputLimits.maxRecordBytes) {
        case .line: return true
        case .end: return false
        case .tooLong:
            throw error("line longer than \(InputLimits.maxRecordBytes >> 20) MiB (is this really a text file?)", line: self.line - 1)
        }
    }

    /// A `InputError` for this file at `line` (the current line by default).
    package func error(_ message: String, line: Int? = nil) -> InputError {
        InputError(file: path, line: line ?? self.line, message: message)
    }

    private func refill() throws(InputError) {
        guard !reachedEOF else { return }
        consumedBefore += count
        index = 0
        count = 0
        let n = try source.read(into: UnsafeMutableRawBufferPointer(buffer), name: path)
        if n == 0 { reachedEOF = true }
        count = n
    }

    private func skipByteOrderMark() throws(InputError) {
        if count >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            index = 3
        } else if count >= 2, (buffer[0] == 0xFF && buffer[1] == 0xFE) || (buffer[0] == 0xFE && buffer[1] == 0xFF) {
            // The rest of this chunk and the file after it, transcoded.
            source = UTF16Source(inner: source, bigEndian: buffer[0] == 0xFE, first: Array(buffer[2..<count]))
            count = 0
            index = 0
            reachedEOF = false
            try refill()
        }
    }
}

/// A set of bytes as a lookup table, for `ByteStream.scan`.
package struct ByteSet: Sendable {
    package let table: [Bool]

    package init(_ bytes: [UInt8], inverted: Bool = false) {
        var table = [Bool](repeating: inverted, count: 256)
        for byte in bytes { table[Int(byte)] = !inverted }
        self.table = table
    }

    package static let notWhitespace = ByteSet([0x20, 0x0A, 0x0D, 0x09], inverted: true)
}
