/// Writes an `Encodable` value as compact JSON with its keys in the order its `encode(to:)`
/// encodes them — the declaration order for a synthesised conformance — so that an answer's
/// documented order lives in its type. Foundation's `JSONEncoder` cannot keep an order (without
/// `.sortedKeys` it writes a dictionary's, which changes from run to run) and prints `40.0` as `40`.
///
/// Numbers are written as Swift prints them (`JSONWriter.number`), `JSONNumber` as its text,
/// strings as `JSONWriter.string` escapes them; `nil` encoded with `encodeNil` is `null`, and a
/// synthesised conformance leaves an absent optional out. Dates and `Data` encode as their own
/// `Encodable` conformances do (numbers): answers that carry them format them as text first.
/// A `Dictionary` comes out in its own order, which changes from run to run: an answer whose
/// keys are data lists them itself (`JSONKey`). `codingPath` is always empty (nothing here reads it).
///
/// A `JSONWrittenDirectly` answer writes itself into the buffer instead (hot paths).
package struct OrderedJSONEncoder {
    /// Whether `JSONWrittenDirectly` answers write themselves; false: through their `encode(to:)`,
    /// which their tests compare with the direct text.
    let direct: Bool

    package init() {
        direct = true
    }

    package init(direct: Bool) {
        self.direct = direct
    }

    /// `value` as UTF-8 JSON text.
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, or what `value` throws.
    package func encode<T: Encodable>(_ value: T, capacity: Int = 512) throws -> [UInt8] {
        if direct, let value = value as? any JSONWrittenDirectly {
            var writer = JSONWriter(capacity: capacity)
            try value.write(to: &writer)
            return writer.bytes
        }
        let encoder = OrderedJSONEncoding(writer: JSONWriter(capacity: capacity))
        try encoder.value(value)
        encoder.close(downTo: 0)
        return encoder.writer.bytes
    }

    /// Appends `value`'s JSON text to `bytes` (a stream of answers, one buffer for all).
    /// - Throws: `EncodingError.invalidValue` for a non-finite number, or what `value` throws;
    ///   `bytes` then ends with part of the value.
    package func encode<T: Encodable>(_ value: T, appendingTo bytes: inout [UInt8]) throws {
        let encoder = OrderedJSONEncoding(writer: JSONWriter(capacity: 0))
        // Swapped in and out, so the buffer is never copied.
        swap(&encoder.writer.bytes, &bytes)
        defer { swap(&encoder.writer.bytes, &bytes) }
        try encoder.value(value)
        encoder.close(downTo: 0)
    }
}

/// An answer whose JSON `OrderedJSONEncoder` writes: its documented key order is the order its
/// `encode(to:)` encodes the keys, and its numbers print as Swift prints them.
package protocol OrderedJSON: Encodable {}

/// An answer on a hot path (`/reverse`, thousands a second) that `OrderedJSONEncoder` lets write
/// itself into its buffer with `JSONWriter`'s primitives: the encoder's containers cost about as
/// much again as the text. Its `encode(to:)` stays the reference, for any other encoder, and its
/// tests hold the two to the same bytes (`OrderedJSONEncoder(direct: false)`).
package protocol JSONWrittenDirectly: OrderedJSON {
    /// Appends the answer's JSON text, exactly what `encode(to:)` gives.
    /// - Throws: `EncodingError.invalidValue` for a non-finite number.
    func write(to writer: inout JSONWriter) throws
}

/// A key spelled where it is encoded: for keys that are data (Nominatim names an address's parts
/// by country) or that are not Swift names (`ISO3166-2-lvl4`, `_type`).
package struct JSONKey: CodingKey, ExpressibleByStringLiteral, Sendable {
    package let stringValue: String
    package var intValue: Int? { nil }

    package init(_ name: String) {
        stringValue = name
    }

    package init(stringLiteral name: String) {
        stringValue = name
    }

    package init?(stringValue: String) {
        self.stringValue = stringValue
    }

    package init?(intValue: Int) {
        nil
    }
}

/// One encoding under way. Containers have no "end" call in `Encoder`, so each open one is a
/// level on `levels`; a level is closed when the value that opened it has been encoded, or, for a
/// nested container, when its parent writes its next member.
final class OrderedJSONEncoding: Encoder {
    struct Level {
        var isObject: Bool
        var members: Int
    }

    // Unchecked: one encoding is used by one thread, in nested calls that never hold two
    // accesses at once; the run-time checks were a quarter of an answer's time.
    @exclusivity(unchecked) var writer: JSONWriter
    @exclusivity(unchecked) var levels: [Level] = []
    /// The depth at which the value being encoded opens its container.
    @exclusivity(unchecked) var valueDepth = 0

    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(writer: JSONWriter) {
        self.writer = writer
        levels.reserveCapacity(8)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(OrderedKeyedContainer<Key>(encoding: self, depth: open(object: true)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        OrderedUnkeyedContainer(encoding: self, depth: open(object: false))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        OrderedSingleValueContainer(encoding: self)
    }

    /// The value's container: opened once, the same on a second call (as `JSONEncoder` does).
    private func open(object: Bool) -> Int {
        if levels.count > valueDepth { return valueDepth }
        writer.raw(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        levels.append(Level(isObject: object, members: 0))
        return levels.count - 1
    }

    /// Closes every container deeper than `depth` levels.
    func close(downTo depth: Int) {
        while levels.count > depth {
            writer.raw(levels.removeLast().isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        }
    }

    /// Starts a member of the container at `depth`: closes nested containers it left open, then
    /// writes the separator and, in an object, the key.
    func member(at depth: Int, key: String?) {
        close(downTo: depth + 1)
        if levels[depth].members > 0 { writer.raw(UInt8(ascii: ",")) }
        levels[depth].members += 1
        if let key {
            writer.string(key)
            writer.raw(UInt8(ascii: ":"))
        }
    }

    /// Opens a container as the member just started at `depth`.
    func nested(object: Bool, after depth: Int) -> Int {
        writer.raw(object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        levels.append(Level(isObject: object, members: 0))
        return levels.count - 1
    }

    /// Writes one value where a member was started (or at the top).
    func value<T: Encodable>(_ value: T) throws {
        // Compared by type first: a failing dynamic cast per value and type was a fifth of an answer's time.
        if T.self == String.self, let text = value as? String {
            writer.string(text)
        } else if T.self == JSONNumber.self, let number = value as? JSONNumber {
            writer.raw(number: number.text)
        } else if T.self == Double.self, let number = value as? Double {
            try writer.number(number)
        } else if T.self == Int.self, let number = value as? Int {
            writer.number(Int64(number))
        } else {
            let saved = valueDepth, start = writer.bytes.count
            valueDepth = levels.count
            defer { valueDepth = saved }
            try value.encode(to: self)
            close(downTo: valueDepth)
            // A value that encoded nothing is an empty object, as `JSONEncoder` writes it.
            if writer.bytes.count == start { writer.raw("{}") }
        }
    }
}

struct OrderedKeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoding: OrderedJSONEncoding
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws {
        encoding.member(at: depth, key: key.stringValue)
        encoding.writer.null()
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        encoding.member(at: depth, key: key.stringValue)
        encoding.writer.bool(value)
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        encoding.member(at: depth, key: key.stringValue)
        encoding.writer.string(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        encoding.member(at: depth, key: key.stringValue)
        try encoding.writer.number(value)
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        encoding.member(at: depth, key: key.stringValue)
        try encoding.writer.number(Double(value))
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { integer(Int64(value), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { integer(Int64(value), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { integer(Int64(value), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { integer(Int64(value), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { integer(Int64(value), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { integer(UInt64(value), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { integer(UInt64(value), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { integer(UInt64(value), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { integer(UInt64(value), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { integer(UInt64(value), key) }

    private func integer(_ value: Int64, _ key: Key) {
        encoding.member(at: depth, key: key.stringValue)
        encoding.writer.number(value)
    }

    private func integer(_ value: UInt64, _ key: Key) {
        encoding.member(at: depth, key: key.stringValue)
        encoding.writer.number(value)
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        encoding.member(at: depth, key: key.stringValue)
        try encoding.value(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type,
        forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        encoding.member(at: depth, key: key.stringValue)
        return KeyedEncodingContainer(
            OrderedKeyedContainer<NestedKey>(encoding: encoding, depth: encoding.nested(object: true, after: depth)))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        encoding.member(at: depth, key: key.stringValue)
        return OrderedUnkeyedContainer(encoding: encoding, depth: encoding.nested(object: false, after: depth))
    }

    mutating func superEncoder() -> any Encoder {
        superEncoder(key: "super")
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        superEncoder(key: key.stringValue)
    }

    private func superEncoder(key: String) -> any Encoder {
        encoding.member(at: depth, key: key)
        encoding.valueDepth = encoding.levels.count
        return encoding
    }
}

struct OrderedUnkeyedContainer: UnkeyedEncodingContainer {
    let encoding: OrderedJSONEncoding
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int { depth < encoding.levels.count ? encoding.levels[depth].members : 0 }

    mutating func encodeNil() throws {
        encoding.member(at: depth, key: nil)
        encoding.writer.null()
    }

    mutating func encode(_ value: Bool) throws {
        encoding.member(at: depth, key: nil)
        encoding.writer.bool(value)
    }

    mutating func encode(_ value: String) throws {
        encoding.member(at: depth, key: nil)
        encoding.writer.string(value)
    }

    mutating func encode(_ value: Double) throws {
        encoding.member(at: depth, key: nil)
        try encoding.writer.number(value)
    }

    mutating func encode(_ value: Float) throws {
        encoding.member(at: depth, key: nil)
        try encoding.writer.number(Double(value))
    }

    mutating func encode(_ value: Int) throws { integer(Int64(value), nil) }
    mutating func encode(_ value: Int8) throws { integer(Int64(value), nil) }
    mutating func encode(_ value: Int16) throws { integer(Int64(value), nil) }
    mutating func encode(_ value: Int32) throws { integer(Int64(value), nil) }
    mutating func encode(_ value: Int64) throws { integer(Int64(value), nil) }
    mutating func encode(_ value: UInt) throws { integer(UInt64(value), nil) }
    mutating func encode(_ value: UInt8) throws { integer(UInt64(value), nil) }
    mutating func encode(_ value: UInt16) throws { integer(UInt64(value), nil) }
    mutating func encode(_ value: UInt32) throws { integer(UInt64(value), nil) }
    mutating func encode(_ value: UInt64) throws { integer(UInt64(value), nil) }

    private func integer(_ value: Int64, _ key: String?) {
        encoding.member(at: depth, key: key)
        encoding.writer.number(value)
    }

    private func integer(_ value: UInt64, _ key: String?) {
        encoding.member(at: depth, key: key)
        encoding.writer.number(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        encoding.member(at: depth, key: nil)
        try encoding.value(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        encoding.member(at: depth, key: nil)
        return KeyedEncodingContainer(
            OrderedKeyedContainer<NestedKey>(encoding: encoding, depth: encoding.nested(object: true, after: depth)))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        encoding.member(at: depth, key: nil)
        return OrderedUnkeyedContainer(encoding: encoding, depth: encoding.nested(object: false, after: depth))
    }

    mutating func superEncoder() -> any Encoder {
        encoding.member(at: depth, key: nil)
        encoding.valueDepth = encoding.levels.count
        return encoding
    }
}

struct OrderedSingleValueContainer: SingleValueEncodingContainer {
    let encoding: OrderedJSONEncoding
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { encoding.writer.null() }
    mutating func encode(_ value: Bool) throws { encoding.writer.bool(value) }
    mutating func encode(_ value: String) throws { encoding.writer.string(value) }
    mutating func encode(_ value: Double) throws { try encoding.writer.number(value) }
    mutating func encode(_ value: Float) throws { try encoding.writer.number(Double(value)) }
    mutating func encode(_ value: Int) throws { encoding.writer.number(Int64(value)) }
    mutating func encode(_ value: Int8) throws { encoding.writer.number(Int64(value)) }
    mutating func encode(_ value: Int16) throws { encoding.writer.number(Int64(value)) }
    mutating func encode(_ value: Int32) throws { encoding.writer.number(Int64(value)) }
    mutating func encode(_ value: Int64) throws { encoding.writer.number(Int64(value)) }
    mutating func encode(_ value: UInt) throws { encoding.writer.number(UInt64(value)) }
    mutating func encode(_ value: UInt8) throws { encoding.writer.number(UInt64(value)) }
    mutating func encode(_ value: UInt16) throws { encoding.writer.number(UInt64(value)) }
    mutating func encode(_ value: UInt32) throws { encoding.writer.number(UInt64(value)) }
    mutating func encode(_ value: UInt64) throws { encoding.writer.number(UInt64(value)) }
    mutating func encode<T: Encodable>(_ value: T) throws { try encoding.value(value) }
}
