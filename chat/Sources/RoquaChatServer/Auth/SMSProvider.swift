import Foundation
import NIOConcurrencyHelpers
import RoquaChatCore

/// Delivers sign-in codes. A real provider (an HTTP API) plugs in here.
package protocol SMSProvider: Sendable {
    /// Sends `code` to `phone`.
    /// - Throws: whatever the delivery failed with; the server logs it and still answers 202.
    func sendCode(_ code: String, to phone: PhoneNumber, at time: Date) async throws
}

/// Development provider: appends `{"phone","code","sent_at"}` JSON lines to a file (created
/// with owner-only permissions), which a developer or a script reads instead of a phone.
package final class FileOutboxSMSProvider: SMSProvider {
    package let path: String
    private let lock = NIOLock()

    package init(path: String) {
        self.path = path
    }

    struct Line: Encodable {
        var phone: String
        var code: String
        var sentAt: Date

        enum CodingKeys: String, CodingKey {
            case phone, code
            case sentAt = "sent_at"
        }
    }

    package func sendCode(_ code: String, to phone: PhoneNumber, at time: Date) async throws {
        var data = try ChatJSON.encoder().encode(Line(phone: phone.e164, code: code, sentAt: time))
        data.append(UInt8(ascii: "\n"))
        try lock.withLock {
            if !FileManager.default.fileExists(atPath: path) {
                guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                    throw SMSProviderError.cannotWrite(path: path)
                }
            }
            guard let handle = FileHandle(forWritingAtPath: path) else { throw SMSProviderError.cannotWrite(path: path) }
            defer { try? handle.close() }
            try handle.seekToEnd()
            try handle.write(contentsOf: data)
        }
    }
}

/// Keeps every code in memory, for tests.
package final class CapturingSMSProvider: SMSProvider {
    /// One delivered code.
    package struct Sent: Sendable, Equatable {
        package var phone: PhoneNumber
        package var code: String
        package var time: Date
    }

    private let box = NIOLockedValueBox<[Sent]>([])

    package init() {}

    package func sendCode(_ code: String, to phone: PhoneNumber, at time: Date) async throws {
        box.withLockedValue { $0.append(Sent(phone: phone, code: code, time: time)) }
    }

    /// Every code sent so far, oldest first.
    package var sent: [Sent] { box.withLockedValue { $0 } }

    /// The newest code sent to `phone`.
    package func lastCode(for phone: PhoneNumber) -> String? {
        box.withLockedValue { $0.last { $0.phone == phone }?.code }
    }
}

/// Why a code could not be delivered.
package enum SMSProviderError: Error, Sendable, Equatable, CustomStringConvertible {
    case cannotWrite(path: String)

    package var description: String {
        switch self {
        case .cannotWrite(let path): "\(path): cannot append to the SMS outbox"
        }
    }
}
