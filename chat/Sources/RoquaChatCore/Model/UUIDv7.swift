import Foundation

/// Time-ordered UUIDs (RFC 9562 version 7): 48 bits of Unix milliseconds, then random bits.
/// Clients name their messages with them (`local_id`); the server names its rows with them so
/// that new rows land at the end of indexes.
public enum UUIDv7 {
    /// A new UUIDv7 for `date`, lower-case text.
    public static func make(at date: Date = Date()) -> String {
        var generator = SystemRandomNumberGenerator()
        return make(at: date, using: &generator)
    }

    /// A new UUIDv7 for `date`, drawing its random bits from `generator`.
    public static func make(at date: Date, using generator: inout some RandomNumberGenerator) -> String {
        let millis = UInt64(max(0, ChatTime.milliseconds(date)))
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: millis >> (8 * (5 - index))) }
        for index in 6..<16 { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
        bytes[6] = (bytes[6] & 0x0F) | 0x70  // version 7
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }
}
