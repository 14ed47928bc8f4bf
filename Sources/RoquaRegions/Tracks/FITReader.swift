import Foundation
import RoquaBoundaries
import RoquaIO

/// Streams fixes out of a FIT activity file (Garmin, Wahoo, Coros, Strava's exports), also
/// several FIT files chained in one. Hand-written: no Swift or Debian FIT library exists. It
/// reads only what a track needs, and only as far as the header's data size says.
///
/// Rules:
/// - Each `record` message (global number 20) with both `position_lat` and `position_long`
///   (fields 0 and 1, semicircles; 0x7FFFFFFF is "invalid") is a point, at its `timestamp`
///   (field 253, seconds since 1989-12-31T00:00:00Z) or, for a compressed-timestamp header,
///   the 5-bit offset applied to the last full timestamp seen in any message. Records without
///   a position (indoor rides, heart rate only) are passed over; a positioned record without a
///   time is skipped and counted (`untimedPoints`), or given the assumed time.
/// - `speed` comes from `enhanced_speed` (field 73) or `speed` (field 6), both mm/s.
/// - Definitions of either byte order, developer fields (skipped by their declared size) and
///   every other message are handled by size, without knowing their meaning.
/// - The header (12 or 14 bytes, `.FIT`), the header CRC when set and the CRC after the data
///   are checked: a corrupt or truncated file is an error naming the byte offset.
/// - `position` is the byte offset of the record message.
public final class FITReader: FixReader {
    /// The file being read, as given (for messages).
    public let path: String
    private let stream: ByteStream
    private var untimed: UntimedPoints
    private var definitions = [Definition?](repeating: nil, count: 16)
    private var lastTimestamp: UInt32?
    private var dataEnd = 0
    private var inFile = false
    private var files = 0
    private var crc: UInt16 = 0
    private var bytes: [UInt8] = []
    /// The data went wrong past a good header (truncated, corrupt): what was read is kept.
    private var ended = false

    /// Records passed over: a point with an impossible time or coordinate; the rest of a file
    /// that is truncated or corrupt past its header (one record for the lot: its byte names
    /// where reading stopped); a file whose CRC does not match (its points are kept, each checked).
    public private(set) var skipped = SkippedRecords()

    private struct Definition {
        var bigEndian: Bool
        var global: UInt16
        var fields: [(number: UInt8, offset: Int, size: Int)]
        var size: Int
    }

    /// Seconds from the Unix epoch to FIT's (1989-12-31T00:00:00Z).
    static let epochOffset: TimeInterval = 631_065_600
    static let semicircle = 180.0 / 2_147_483_648.0

    /// Points read so far that carried no time (see `FixReader.untimedPoints`).
    public var untimedPoints: Int { untimed.count }

    /// Opens the FIT file at `path` for reading; nothing but the first chunk is read yet.
    ///
    /// - Throws: `TrackReadError` when the file cannot be opened or read.
    public convenience init(path: String, options: TrackReadOptions = TrackReadOptions()) throws {
        self.init(stream: try ByteStream(path: path), options: options)
    }

    package init(stream: ByteStream, options: TrackReadOptions = TrackReadOptions()) {
        path = stream.path
        self.stream = stream
        untimed = UntimedPoints(options)
    }

    /// The next fix in file order, or `nil` at the end of the file.
    ///
    /// - Throws: `TrackReadError` naming the file and the line (or record) of the first malformed
    ///   point, or when the file cannot be read.
    public func next() throws -> Fix? {
        while !ended {
            do {
                if !inFile {
                    guard try readHeader() else { return nil }
                    continue
                }
                if stream.offset == dataEnd {
                    let expected = crc
                    let stored = try take(2, "the file CRC")
                    if UInt16(stored[0]) | UInt16(stored[1]) << 8 != expected {
                        skipped.skip(
                            error("CRC mismatch at the end of the data: corrupt bytes somewhere in the file", at: stream.offset - 2),
                            reason: "file CRC mismatch")
                    }
                    inFile = false
                    continue
                }
                if let fix = try readMessage() { return fix }
            } catch let failure as TrackReadError where files > 0 && failure.message.hasPrefix(Self.framing) {
                // Past a good first header, a recording cut short (the watch's battery died) or
                // bytes gone bad: the messages after this point cannot be framed, those before
                // stand. (A file that is no FIT file at all is still refused.)
                skipped.skip(failure, reason: "truncated or corrupt file")
                ended = true
            }
        }
        return nil
    }

    /// Reads one file header; false at the end of the input (after at least one file).
    private func readHeader() throws -> Bool {
        let start = stream.offset
        guard try stream.peek() != nil else {
            if files == 0 { throw error("empty file", at: 0) }
            return false
        }
        crc = 0
        let size = Int(try take(1, "the header")[0])
        guard size == 12 || size == 14 else { throw error("a FIT header of \(size) bytes (expected 12 or 14): corrupt file?", at: start) }
        let header = try take(size - 1, "the header")
        guard Array(header[7..<11]) == Array(".FIT".utf8) else { throw error("no \".FIT\" signature in the header", at: start) }
        if size == 14 {
            let stored = UInt16(header[11]) | UInt16(header[12]) << 8
            var check: UInt16 = 0
            for byte in [UInt8(size)] + header[0..<11] { check = Self.crc(check, byte) }
            guard stored == 0 || stored == check else { throw error("header CRC mismatch: corrupt file", at: start) }
        }
        let dataSize = Int(header[3]) | Int(header[4]) << 8 | Int(header[5]) << 16 | Int(header[6]) << 24
        guard dataSize > 0 else { throw error("the header gives a data size of 0 (an unfinished recording?)", at: start) }
        dataEnd = stream.offset + dataSize
        definitions = [Definition?](repeating: nil, count: 16)
        inFile = true
        files += 1
        return true
    }

    private func readMessage() throws -> Fix? {
        let start = stream.offset
        let header = try take(1, "a record header")[0]
        if header & 0x80 != 0 {
            // Compressed timestamp header: a data message whose time is 5 bits of offset.
            let local = Int(header >> 5 & 0x03)
            let offset = UInt32(header & 0x1F)
            var time: UInt32?
            if let last = lastTimestamp {
                let rolled = offset >= last & 0x1F ? 0 : UInt32(0x20)
                time = (last & ~0x1F) &+ offset &+ rolled
                lastTimestamp = time
            }
            return try readData(local: local, compressedTime: time, start: start)
        }
        let local = Int(header & 0x0F)
        guard header & 0x40 != 0 else { return try readData(local: local, compressedTime: nil, start: start) }
        let fixed = try take(5, "a definition")
        let bigEndian = fixed[1] == 1
        guard fixed[1] <= 1 else { throw error("definition with unknown byte order \(fixed[1])", at: start) }
        let global = bigEndian ? UInt16(fixed[2]) << 8 | UInt16(fixed[3]) : UInt16(fixed[3]) << 8 | UInt16(fixed[2])
        let raw = try take(Int(fixed[4]) * 3, "field definitions")
        var fields: [(number: UInt8, offset: Int, size: Int)] = []
        var size = 0
        for i in 0..<Int(fixed[4]) {
            fields.append((raw[i * 3], size, Int(raw[i * 3 + 1])))
            size += Int(raw[i * 3 + 1])
        }
        if header & 0x20 != 0 {
            let count = Int(try take(1, "developer field count")[0])
            let developer = try take(count * 3, "developer field definitions")
            for i in 0..<count { size += Int(developer[i * 3 + 1]) }
        }
        definitions[local] = Definition(bigEndian: bigEndian, global: global, fields: fields, size: size)
        return nil
    }

    private func readData(local: Int, compressedTime: UInt32?, start: Int) throws -> Fix? {
        guard let definition = definitions[local] else {
            throw error("a data message for local type \(local), which has no definition: corrupt file", at: start)
        }
        let data = try take(definition.size, "a data message")
        func value(_ number: UInt8, size: Int) -> UInt32? {
            guard let field = definition.fields.first(where: { $0.number == number && $0.size == size }) else { return nil }
            var v: UInt32 = 0
            for k in 0..<size {
                let byte = UInt32(data[field.offset + (definition.bigEndian ? k : size - 1 - k)])
                v = v << 8 | byte
            }
            return v
        }
        var time = compressedTime
        if let stamp = value(253, size: 4), stamp != 0xFFFF_FFFF {
            lastTimestamp = stamp
            time = stamp
        }
        guard definition.global == 20 else { return nil }
        guard let lat = value(0, size: 4), let lon = value(1, size: 4), lat != 0x7FFF_FFFF, lon != 0x7FFF_FFFF else { return nil }
        let date: Date
        let coordinate: Coordinate
        do {
            if let time {
                date = try TrackValues.time(
                    Date(timeIntervalSince1970: Self.epochOffset + TimeInterval(time)), file: path, line: nil,
                    what: "record at byte \(start): time")
            } else {
                guard let assumed = untimed.time() else { return nil }
                date = assumed
            }
            coordinate = try TrackValues.coordinate(
                latitude: Double(Int32(bitPattern: lat)) * Self.semicircle,
                longitude: Double(Int32(bitPattern: lon)) * Self.semicircle, file: path, line: nil)
        } catch {
            // One impossible value costs its point; the next record is framed as usual.
            var failure = error
            if !failure.message.hasPrefix("record at byte") { failure.message = "record at byte \(start): " + failure.message }
            skipped.skip(failure)
            return nil
        }
        var speed: Double?
        if let enhanced = value(73, size: 4), enhanced != 0xFFFF_FFFF {
            speed = Double(enhanced) / 1000
        } else if let plain = value(6, size: 2), plain != 0xFFFF {
            speed = Double(plain) / 1000
        }
        return Fix(coordinate: coordinate, timestamp: date, speed: speed, position: start)
    }

    /// The next `count` bytes of the current file (CRC updated), or an error naming `what`.
    private func take(_ count: Int, _ what: String) throws -> [UInt8] {
        if inFile, stream.offset + count > dataEnd + (what == "the file CRC" ? 2 : 0) {
            throw error("\(what) runs past the data size the header gives: corrupt file", at: stream.offset)
        }
        bytes.removeAll(keepingCapacity: true)
        guard try stream.read(count, into: &bytes) == count else {
            throw error("the file ends inside \(what): truncated file?", at: stream.offset)
        }
        for byte in bytes { crc = Self.crc(crc, byte) }
        return bytes
    }

    private static let crcTable: [UInt16] = [
        0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
        0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
    ]

    /// FIT's CRC-16, one byte at a time (low nibble, then high).
    static func crc(_ crc: UInt16, _ byte: UInt8) -> UInt16 {
        var crc = crc
        for nibble in [byte & 0x0F, byte >> 4] {
            let tmp = crcTable[Int(crc & 0x0F)]
            crc = (crc >> 4) & 0x0FFF
            crc = crc ^ tmp ^ crcTable[Int(nibble)]
        }
        return crc
    }

    /// How errors of framing (`error(_:at:)`, not one record's value nor the disk's) begin.
    private static let framing = "at byte "

    private func error(_ message: String, at offset: Int) -> TrackReadError {
        TrackReadError(file: path, line: nil, message: Self.framing + "\(offset): \(message)")
    }
}
