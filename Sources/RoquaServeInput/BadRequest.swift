/// A request that cannot be answered as sent: the server turns it into a 400 with a JSON error
/// in Nominatim's shape. Messages echo request values at most 80 characters.
package struct BadRequest: Error, Sendable, CustomStringConvertible {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { "400 \(message)" }
}
