import Foundation
import RoquaChatCore
import RoquaIO

/// Column values both stores share: times as whole milliseconds, metadata as canonical JSON
/// text, sign-in code states as JSON; text that does not parse back is a typed error naming the table.
/// Each store's row mapper adopts it to use these helpers unqualified.
package protocol StoreRowMapping {}

extension StoreRowMapping {
    package static func ms(_ date: Date) -> Int64 { ChatTime.milliseconds(date) }
    package static func ms(_ date: Date?) -> Int64? { date.map(ChatTime.milliseconds) }
    package static func date(_ value: Int64) -> Date { ChatTime.date(milliseconds: value) }
    package static func date(_ value: Int64?) -> Date? { value.map(ChatTime.date(milliseconds:)) }

    package static func metadataText(_ metadata: JSONValue?) throws -> String? {
        try metadata.map { String(decoding: try $0.canonicalData(), as: UTF8.self) }
    }

    package static func metadata(_ text: String?, serverID: String) throws -> JSONValue? {
        guard let text else { return nil }
        do {
            return try CheckedJSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        } catch {
            throw ChatStoreError.corruptRow(table: "messages", reason: "metadata of \(serverID) is not JSON")
        }
    }

    package static func otpState(_ text: String) throws -> OTPState {
        do { return try OTPState.decoded(text) } catch {
            throw ChatStoreError.corruptRow(table: "otp_states", reason: "state is not a sign-in code state")
        }
    }

    package static func phone(_ text: String, table: String) throws -> PhoneNumber {
        do { return try PhoneNumber(text) } catch {
            throw ChatStoreError.corruptRow(table: table, reason: "phone is not in E.164 form")
        }
    }

    package static func day(_ text: String?) throws -> CalendarDay? {
        guard let text else { return nil }
        do { return try CalendarDay(text) } catch {
            throw ChatStoreError.corruptRow(table: "tour_groups", reason: "\(error)")
        }
    }

    package static func enumValue<T: RawRepresentable>(_ text: String, table: String) throws -> T where T.RawValue == String {
        guard let value = T(rawValue: text) else { throw ChatStoreError.corruptRow(table: table, reason: "unknown value '\(text)'") }
        return value
    }
}
