import Foundation
import RoquaIO

/// The bytes of one block of kept fixes: columns of deltas, each a zig-zag varint, then zlib.
///
/// Fixes of one source in time order differ little from one to the next: a phone's fix every
/// 5–60 s is a time delta of one byte (whole seconds are written as seconds), a position delta of
/// two or three per coordinate, an accuracy and a speed delta of one. Columns keep alike values
/// together for zlib. Layout (version 1): `01`, varint length of the columns, zlib of the
/// columns; the columns are the count, then `count` times, latitudes, longitudes, accuracies and
/// speeds. A time is its delta from the one before (the first from zero): `zz(seconds) << 1` when
/// the delta is whole seconds, else `zz(milliseconds) << 1 | 1`. The others are `zz(delta)`.
package enum FixBlock {
    /// Fixes in one block, at most: about 30 kB of columns, one zlib call.
    package static let capacity = 4096
    static let version: UInt8 = 1
    /// zlib's level: level 1. On a generated phone history's blocks levels 1–9 all came to
    /// 5.19–5.20 bytes a fix, level 1 at 0.125 µs a fix against level 6's 0.156 µs; end to end
    /// (scripts/bench/bench_kept_fixes.py) level 6 saved 4.6 % on a 5 s walk (2.56 against 2.68
    /// bytes a fix) and 0.7 % on a phone year, for 4.6 % more CPU on the walk's import.
    static let level: Int32 = 1

    /// A block that cannot be read: damaged, altered, or from a newer Roqua.
    package struct Damaged: Error, Sendable, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// `fixes` (in time order, at most `capacity`) as a block's bytes.
    package static func encode(_ fixes: some Collection<KeptFix>) -> [UInt8] {
        var columns: [UInt8] = []
        columns.reserveCapacity(fixes.count * 9 + 8)
        putVarint(UInt64(fixes.count), &columns)
        var previous: Int64 = 0
        for fix in fixes {
            let delta = fix.time &- previous
            if delta % 1000 == 0 { putVarint(zigzag(delta / 1000) << 1, &columns) } else { putVarint(zigzag(delta) << 1 | 1, &columns) }
            previous = fix.time
        }
        // A closure per column, not a key path: a key path is looked up at run time for every value.
        func column(_ value: (KeptFix) -> Int32) {
            var last: Int64 = 0
            for fix in fixes {
                let next = Int64(value(fix))
                putVarint(zigzag(next - last), &columns)
                last = next
            }
        }
        column { $0.latitude }
        column { $0.longitude }
        column { $0.accuracy }
        column { $0.speed }
        var out: [UInt8] = [version]
        putVarint(UInt64(columns.count), &out)
        out += Zlib.deflate(columns, level: level)
        return out
    }

    /// The fixes of a block's bytes, checked: every value in range, times in order, nothing left over.
    /// - Throws: `Damaged` naming what is wrong.
    package static func decode(_ bytes: [UInt8]) throws(Damaged) -> [KeptFix] {
        var header = Reader(bytes: bytes[...])
        guard try header.byte() == version else {
            throw Damaged(description: "a fix block of an unknown version (from a newer Roqua?)")
        }
        let length = try header.varint()
        // A count of 4,096 fixes takes at most 4,096 × 5 × 10 bytes of varints.
        guard length <= UInt64(capacity * 50 + 10) else { throw Damaged(description: "a fix block declares \(length) bytes of columns") }
        let columns: [UInt8]
        do { columns = try Zlib.inflate(header.rest, expected: Int(length)) } catch { throw Damaged(description: "a fix block: \(error)") }
        var reader = Reader(bytes: columns[...])
        let count = try reader.varint()
        guard count >= 1, count <= UInt64(capacity) else { throw Damaged(description: "a fix block of \(count) fixes") }
        var fixes = [KeptFix](repeating: KeptFix(time: 0, latitude: 0, longitude: 0), count: Int(count))
        var time: Int64 = 0
        for i in fixes.indices {
            let token = try reader.varint()
            let value = unzigzag(token >> 1)
            let (delta, overflow) = token & 1 == 0 ? value.multipliedReportingOverflow(by: 1000) : (value, false)
            let (next, beyond) = time.addingReportingOverflow(delta)
            guard !overflow, !beyond, abs(next) < 1_000_000_000_000_000 else {
                throw Damaged(description: "a fix block's time is out of range")
            }
            guard i == 0 || next >= time else { throw Damaged(description: "a fix block's times are out of order") }
            time = next
            fixes[i].time = time
        }
        func column(_ range: ClosedRange<Int64>, _ set: (inout KeptFix, Int32) -> Void) throws(Damaged) {
            var value: Int64 = 0
            for i in fixes.indices {
                let (next, overflow) = value.addingReportingOverflow(unzigzag(try reader.varint()))
                guard !overflow, range.contains(next) else { throw Damaged(description: "a fix block holds a value out of range") }
                value = next
                set(&fixes[i], Int32(value))
            }
        }
        try column(-900_000_000...900_000_000) { $0.latitude = $1 }
        try column(-1_800_000_000...1_800_000_000) { $0.longitude = $1 }
        try column(-1...Int64(Int32.max)) { $0.accuracy = $1 }
        try column(-1...Int64(Int32.max)) { $0.speed = $1 }
        guard reader.rest.isEmpty else { throw Damaged(description: "a fix block has \(reader.rest.count) bytes after its fixes") }
        return fixes
    }

    static func zigzag(_ value: Int64) -> UInt64 { UInt64(bitPattern: (value << 1) ^ (value >> 63)) }

    static func unzigzag(_ value: UInt64) -> Int64 { Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1) }

    static func putVarint(_ value: UInt64, _ out: inout [UInt8]) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    private struct Reader {
        var rest: ArraySlice<UInt8>

        init(bytes: ArraySlice<UInt8>) { rest = bytes }

        mutating func byte() throws(Damaged) -> UInt8 {
            guard let first = rest.first else { throw Damaged(description: "a fix block ends early") }
            rest = rest.dropFirst()
            return first
        }

        /// At most ten bytes (64 bits).
        mutating func varint() throws(Damaged) -> UInt64 {
            var value: UInt64 = 0
            for shift in stride(from: 0, to: 70, by: 7) {
                let byte = try byte()
                guard shift < 63 || byte <= 1 else { throw Damaged(description: "a fix block holds a number of more than 64 bits") }
                value |= UInt64(byte & 0x7F) << UInt64(shift)
                if byte & 0x80 == 0 { return value }
            }
            throw Damaged(description: "a fix block holds a number of more than 64 bits")
        }
    }
}
