import Crypto
import Foundation
import RoquaChatCore

/// The server's master secret. Every key the server needs (the JWT key, the key for the sign-in
/// code MACs, the key that derives refresh-token successors) is derived
/// from it with HKDF-SHA256 under its own label, so one file configures a whole fleet.
package struct ServerSecret: Sendable {
    private let material: SymmetricKey

    /// At least 32 bytes of secret.
    /// - Throws: `ServerSecretError.tooShort` when fewer.
    package init(bytes: Data) throws {
        guard bytes.count >= 32 else { throw ServerSecretError.tooShort(source: "the secret", bytes: bytes.count) }
        material = SymmetricKey(data: bytes)
    }

    /// A fresh random secret (tokens signed with it die with the process).
    package static func random() -> ServerSecret {
        // A 256-bit key from the system CSPRNG; `init(bytes:)` cannot fail for 32 bytes.
        ServerSecret(key: SymmetricKey(size: .bits256))
    }

    private init(key: SymmetricKey) { material = key }

    /// Reads the secret from `path`: its bytes, with surrounding white space trimmed when the file
    /// is text (so `openssl rand -hex 32 > F` works).
    /// - Throws: `ServerSecretError` naming the file when it cannot be read or is too short.
    package static func load(path: String) throws -> ServerSecret {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ServerSecretError.unreadable(path: path)
        }
        let trimmed: Data
        if let text = String(data: data, encoding: .utf8) {
            trimmed = Data(text.trimmingCharacters(in: .whitespacesAndNewlines).utf8)
        } else {
            trimmed = data
        }
        guard trimmed.count >= 32 else { throw ServerSecretError.tooShort(source: path, bytes: trimmed.count) }
        return ServerSecret(key: SymmetricKey(data: trimmed))
    }

    /// Reads the secret at `path`, first writing a new random one there (owner-only
    /// permissions) when the file does not exist, so that tokens survive restarts.
    /// - Throws: `ServerSecretError` naming the file.
    package static func loadOrCreate(path: String) throws -> ServerSecret {
        if !FileManager.default.fileExists(atPath: path) {
            let text = Hex.encode(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) }) + "\n"
            guard FileManager.default.createFile(atPath: path, contents: Data(text.utf8), attributes: [.posixPermissions: 0o600]) else {
                throw ServerSecretError.unwritable(path: path)
            }
        }
        return try load(path: path)
    }

    /// The subkey for `purpose`.
    package func key(for purpose: KeyPurpose) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: material, salt: Data("roqua-chat".utf8),
            info: Data(purpose.rawValue.utf8), outputByteCount: 32)
    }

    /// What a derived key is for.
    package enum KeyPurpose: String, Sendable {
        case accessToken = "access-token/v1"
        case signInCode = "sign-in-code/v1"
        case refreshSuccessor = "refresh-successor/v1"
        /// Labelled for the route it was first made for (peer credentials, gone): the label stays
        /// so that the key every home pinned stays too.
        case serverIdentity = "peer-credential/v1"
    }
}

/// Why the secret could not be used.
package enum ServerSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    case unreadable(path: String)
    case unwritable(path: String)
    case tooShort(source: String, bytes: Int)

    package var description: String {
        switch self {
        case .unreadable(let path): "\(path): cannot read the JWT secret file"
        case .unwritable(let path): "\(path): cannot create the JWT secret file"
        case let .tooShort(source, bytes): "\(source): the secret has \(bytes) bytes; at least 32 are needed (e.g. openssl rand -hex 32)"
        }
    }
}

/// HMAC-SHA256 under one derived key, with a constant-time check.
package struct KeyedMAC: Sendable {
    private let key: SymmetricKey

    package init(_ key: SymmetricKey) { self.key = key }

    /// The MAC of `text`.
    package func mac(_ text: String) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: key))
    }

    /// Whether `stored` is the MAC of `text`. swift-crypto compares in constant time, so how far
    /// a guess matches cannot be read from the response time.
    package func matches(_ stored: Data, _ text: String) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(stored, authenticating: Data(text.utf8), using: key)
    }
}
